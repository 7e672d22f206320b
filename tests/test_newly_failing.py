"""End to end: a gated metric that passed in the baseline and fails now is said so everywhere.

The paired test may find the drop inside the noise ("no regression"), yet the metric did
pass in the baseline and does fail now: every report names it "newly failing since the
baseline", with the baseline's mean on the same paired cases, labelled so.
"""

from __future__ import annotations

import pytest
from gate_runs import GOOD, WORKERS, gate_run, write_jsonl

from pytest_ragas_gate import cli
from pytest_ragas_gate.reports.json_report import load_report
from pytest_ragas_gate.reports.pr_comment import comment_body

NEWLY = "newly failing since the baseline"
ROWS = [{**GOOD, "id": f"case-{index}"} for index in range(10)]
THRESHOLD = ("--rag-gate-threshold", "faithfulness=0.95")


@pytest.mark.parametrize("workers", WORKERS)
def test_a_metric_that_newly_fails_inside_the_noise_is_named_in_every_report(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    write_jsonl(pytester, "golden.jsonl", ROWS)
    base = gate_run(pytester, *THRESHOLD, report="base.json")
    assert base.ret == pytest.ExitCode.OK
    # One answer of ten now hallucinates: the mean drops from 1.00 to 0.90, below 0.95,
    # while the paired interval of the drop still reaches 0 (inside the noise).
    write_jsonl(
        pytester,
        "golden.jsonl",
        [{**GOOD, "answer": "Apple was founded in 1925.", "id": "case-0"}, *ROWS[1:]],
    )
    run = gate_run(
        pytester,
        *THRESHOLD,
        "--rag-gate-baseline",
        "base.json",
        *workers,
        report="new.json",
        markdown="summary.md",
        html="new.html",
    )

    assert run.ret == pytest.ExitCode.TESTS_FAILED
    report = run.report
    assert report["baseline"]["regressed_metrics"] == []
    faithfulness = report["metrics"]["faithfulness"]
    assert faithfulness["newly_failing"] is True
    assert faithfulness["baseline_passed"] is True
    assert (faithfulness["baseline_mean"], faithfulness["baseline_paired"]) == (1.0, 10)
    assert any(NEWLY in line for line in report["failures"])
    run.stdout.fnmatch_lines(
        [
            f"baseline base.json: 10 paired, 0 new, 0 removed case(s); no regression; {NEWLY}: "
            "faithfulness",
            f"FAILED faithfulness mean 0.90 < 0.95* — {NEWLY} "
            "(passed there; baseline mean 1.00 on the same 10 paired cases)",
            "RAG gate: FAILED",
            "Block deployment — 1 metric(s) below threshold: faithfulness*",
        ]
    )
    summary = run.markdown or ""
    assert "No regression" not in summary
    assert "| `faithfulness` | 1.00 | 0.90 | -0.10 |" in summary
    assert f"| 10 | ❌ {NEWLY} |" in summary

    page = (pytester.path / "new.html").read_text(encoding="utf-8")
    assert "No regression." not in page
    assert "Newly failing since the baseline: faithfulness" in page
    assert "baseline on the same 10 paired cases 1.00" in page

    comment = comment_body(load_report(pytester.path / "new.json"))
    assert f"{NEWLY}" in comment
    # The one failing case is named as newly failing too.
    assert "`golden.jsonl::case-0`" in comment


def test_a_regated_report_says_newly_failing_as_the_run_did(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    write_jsonl(pytester, "golden.jsonl", ROWS)
    assert gate_run(pytester, *THRESHOLD, report="base.json").ret == pytest.ExitCode.OK
    write_jsonl(
        pytester,
        "golden.jsonl",
        [{**GOOD, "answer": "Apple was founded in 1925.", "id": "case-0"}, *ROWS[1:]],
    )
    run = gate_run(pytester, *THRESHOLD, "--rag-gate-baseline", "base.json", report="new.json")
    # The baseline file is gone: the comparison saved in the report is what re-gates.
    (pytester.path / "base.json").unlink()

    capsys.readouterr()
    status = cli.main(["regate", str(pytester.path / "new.json"), "-o", "again.json"])
    printed = capsys.readouterr().out

    assert status == 1
    newly = [line for line in run.stdout.lines if NEWLY in line]
    assert newly and all(line in printed for line in newly)
    again = load_report(pytester.path / "again.json").raw
    assert again["metrics"]["faithfulness"]["newly_failing"] is True
    verdicts = {case["id"]: case["verdict"] for case in again["cases"]}
    assert verdicts["case-0"]["newly_failing"] == ["faithfulness"]
    assert verdicts["case-0"]["status"] == "below"
    assert verdicts["case-1"] == {
        "status": "passed",
        "misses": [],
        "own_misses": [],
        "newly_failing": [],
        "newly_passing": [],
    }


def test_a_metric_that_failed_in_the_baseline_too_is_not_newly_failing(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(
        pytester,
        "golden.jsonl",
        [{**GOOD, "answer": "Apple was founded in 1925.", "id": "case-0"}, *ROWS[1:]],
    )
    assert gate_run(pytester, *THRESHOLD, report="base.json").ret == pytest.ExitCode.TESTS_FAILED
    run = gate_run(pytester, *THRESHOLD, "--rag-gate-baseline", "base.json", report="new.json")

    assert run.ret == pytest.ExitCode.TESTS_FAILED
    faithfulness = run.report["metrics"]["faithfulness"]
    assert faithfulness["baseline_passed"] is False
    assert faithfulness["newly_failing"] is False
    assert NEWLY not in run.stdout.str()
