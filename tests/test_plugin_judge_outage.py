"""A judge that does not answer decides nothing: the verdict is ``error``, not ``failed``.

The runs go through the real anthropic SDK against the local fake server, which answers
with HTTP errors on demand; every report, the Action's ``verdict`` output and the
re-gated report must say ``error`` for an outage, and ``failed`` as soon as a quality
check fails, judge errors or not.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeLLM, status
from gate_runs import gate_run, read_report
from test_action import Runner
from test_cli import in_process

from pytest_ragas_gate.reports.json_report import load_report
from pytest_ragas_gate.reports.pr_comment import comment_body

KEY = "test-key-not-real"

GOOD = {
    "question": "How much storage does the Zorblax plan give each user?",
    "answer": "The Zorblax plan gives each user 2 TB of storage.",
    "contexts": ["The Zorblax plan gives each user 2 TB of storage.", "Support is on weekdays."],
    "reference": "The Zorblax plan gives each user 2 TB of storage.",
}
# Nothing of this answer is in the contexts: faithfulness 0 whenever the judge answers.
HALLUCINATED = {
    **GOOD,
    "answer": "The Quorvex tier ships with unlimited satellite uplinks.",
}

#: How every run of this module gates: the anthropic judge, both reports, fixed order.
OPTIONS: dict[str, Any] = {"judge": "anthropic", "junit": "junit.xml", "disable": ("randomly",)}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        yield fake


def write_golden(directory: Path, rows: list[dict[str, Any]]) -> None:
    lines = [json.dumps({"id": f"case-{index}", **row}) + "\n" for index, row in enumerate(rows)]
    (directory / "golden.jsonl").write_text("".join(lines), encoding="utf-8")
    # Few, fast retries: an outage should end the run in a second, not a minute.
    (directory / "rag_gate.yaml").write_text(
        "max_retries: 1\nretry_backoff_s: 0.005\nconcurrency: 1\n"
        "metrics: [faithfulness, answer_relevancy]\nthresholds: {faithfulness: 0.8}\n",
        encoding="utf-8",
    )


def suite_verdict(suite: ElementTree.Element) -> str | None:
    verdict = suite.find("properties/property[@name='verdict']")
    return None if verdict is None else verdict.get("value")


@pytest.mark.slow
@pytest.mark.parametrize("fault", [503, 429])
def test_an_outage_is_error_in_every_report(
    pytester: pytest.Pytester,
    server: FakeLLM,
    fault: int,
) -> None:
    write_golden(pytester.path, [GOOD, HALLUCINATED])
    server.fail(status(fault, retry_after="0"))
    run = gate_run(pytester, html="report.html", markdown="step_summary.md", **OPTIONS)
    result, report = run
    # No deploy decision is still no deploy: the run exits non-zero.
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "ERROR judge unreliable: 2 of 2 case(s) errored*",
            "RAG gate: ERROR",
            "Judge unavailable, no deploy decision — judge unreliable: 2 of 2 case(s) errored*",
        ]
    )
    assert "Block deployment" not in result.stdout.str()
    assert report["verdict"] == "error"
    assert report["recommendation"].startswith("Judge unavailable, no deploy decision")
    assert all(case["judge_errors"] for case in report["cases"])

    suite = run.gate_suite()
    assert suite_verdict(suite) == "error"
    # Checks the judge could not make are errors in a CI's test view, never failures.
    assert suite.get("failures") == "0"
    error_rate = suite.find("testcase[@name='error_rate']/error")
    assert error_rate is not None
    assert error_rate.get("type") == "RagGateJudgeUnavailable"
    assert error_rate.get("message", "").startswith("Judge unavailable, no deploy decision")

    markdown = run.markdown
    assert markdown is not None
    assert markdown.startswith("## 🛑 RAG gate: ERROR")
    assert "**Judge unavailable, no deploy decision" in markdown

    page = (pytester.path / "report.html").read_text(encoding="utf-8")
    assert 'class="banner verdict-error"' in page and "RAG gate: ERROR" in page
    comment = comment_body(load_report(pytester.path / "report.json")).splitlines()
    assert comment[1] == "## 🛑 RAG gate: ERROR"
    assert comment[3].startswith("**Judge unavailable, no deploy decision")

    # The saved report re-gates to the same verdict, with the same exit status.
    status_code, out, _ = in_process(pytester.path, "regate", "report.json")
    assert status_code == 1
    assert "RAG gate: ERROR" in out.splitlines()


@pytest.mark.parametrize(
    ("cache", "replayed"), [("readwrite", True), ("off", False)], ids=["cached", "no-cache"]
)
def test_the_outage_remedy_promises_a_cache_replay_only_with_a_cache(
    pytester: pytest.Pytester, server: FakeLLM, cache: str, replayed: bool
) -> None:
    write_golden(pytester.path, [GOOD, HALLUCINATED])
    server.fail(status(503, retry_after="0"))
    result, report = gate_run(pytester, html="report.html", cache=cache, **OPTIONS)
    assert report["verdict"] == "error"
    promise = "replies already received are replayed from the cache"
    page = (pytester.path / "report.html").read_text(encoding="utf-8")
    for said in (report["recommendation"], result.stdout.str(), page):
        assert "run the gate again once the judge answers" in said
        assert (promise in said) is replayed


def test_an_outage_that_is_no_timeout_is_not_called_one(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    # Every retryable failure's message advises "judge.timeout_s"; only a request that
    # timed out is a timeout.
    write_golden(pytester.path, [GOOD, HALLUCINATED])
    server.fail(status(503, retry_after="0"))
    _, report = gate_run(pytester, html="report.html", **OPTIONS)
    assert report["verdict"] == "error"
    assert all("judge.timeout_s" in case["errors"]["faithfulness"] for case in report["cases"])
    page = (pytester.path / "report.html").read_text(encoding="utf-8")
    assert "The judge gave no usable answer for 2 case(s)" in page
    assert "timed out" not in page


def test_a_quality_failure_with_a_healthy_judge_stays_failed(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    write_golden(pytester.path, [GOOD, HALLUCINATED])
    run = gate_run(pytester, **OPTIONS)
    result, report = run
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["RAG gate: FAILED", "Block deployment — *faithfulness*"])
    assert report["verdict"] == "failed"
    assert suite_verdict(run.gate_suite()) == "failed"


def test_a_quality_failure_and_judge_errors_together_are_failed(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    # The first case's two concurrent first requests fail for good (two attempts each);
    # the other cases are judged, and they are hallucinated.
    write_golden(pytester.path, [GOOD, HALLUCINATED, HALLUCINATED])
    server.fail(status(503), calls=[1, 2, 3, 4])
    result, report = gate_run(pytester, **OPTIONS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert [case["id"] for case in report["cases"] if case["judge_errors"]] == ["case-0"]
    assert report["metrics"]["faithfulness"]["passed"] is False
    assert report["verdict"] == "failed"
    result.stdout.fnmatch_lines(
        [
            "FAILED faithfulness mean *",
            "FAILED judge unreliable: 1 of 3 case(s) errored*",
            "RAG gate: FAILED",
        ]
    )
    status_code, out, _ = in_process(pytester.path, "regate", "report.json")
    assert status_code == 1 and "RAG gate: FAILED" in out.splitlines()


@pytest.mark.slow
def test_the_actions_verdict_output_is_error_on_an_outage(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    write_golden(workspace, [GOOD, HALLUCINATED])
    runner = Runner(workspace)
    with FakeLLM() as fake:
        fake.fail(status(503))
        result = runner.run_gate(
            {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": KEY},
            paths="golden.jsonl",
            judge="anthropic",
            cache="off",
        )
    assert result.returncode == 1, result.stdout + result.stderr
    assert runner.outputs["verdict"] == "error"
    assert runner.outputs["exit-code"] == "1"
    assert runner.outputs["report-path"] == "rag-gate-report.json"
    assert runner.outputs["summary"].startswith(
        "RAG gate ERROR: Judge unavailable, no deploy decision — judge unreliable: "
    )
    assert runner.summary.startswith("## 🛑 RAG gate: ERROR")
    assert "no verdict" not in runner.summary


@pytest.mark.slow
def test_merged_shards_of_an_outage_are_error(pytester: pytest.Pytester, server: FakeLLM) -> None:
    write_golden(pytester.path, [GOOD, HALLUCINATED, GOOD, HALLUCINATED])
    server.fail(status(503))
    for shard in ("1/2", "2/2"):
        name = f"shard{shard[0]}.json"
        result, shard_report = gate_run(
            pytester, shard=shard, report=name, judge="anthropic", disable=("randomly",)
        )
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        assert shard_report["verdict"] == "error"
    status_code, out, err = in_process(
        pytester.path, "merge", "shard1.json", "shard2.json", "-o", "merged.json"
    )
    assert status_code == 1, err
    merged = read_report(pytester.path / "merged.json")
    assert merged["verdict"] == "error"
    assert len(merged["cases"]) == 4


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_pass_with_errors_max_error_rate_allows_exits_0_and_decides_no_deploy(
    pytester: pytest.Pytester, server: FakeLLM, workers: list[str]
) -> None:
    # The first case's first requests fail for good; max_error_rate allows the one error.
    write_golden(pytester.path, [GOOD] * 4)
    with (pytester.path / "rag_gate.yaml").open("a", encoding="utf-8") as config:
        config.write("max_error_rate: 0.5\nmin_cases: 1\nrules: {default: mean}\n")
    server.fail(status(503), calls=[1, 2, 3, 4])
    result, report = gate_run(pytester, *workers, **OPTIONS)
    errored = [case["id"] for case in report["cases"] if case["judge_errors"]]
    assert len(errored) == 1
    assert report["verdict"] == "passed"
    assert report["deploy_decision"] is False
    recommendation = (
        "Passed with 1 case(s) errored on a gated metric, allowed by max_error_rate — "
        "not a deploy decision"
    )
    assert report["recommendation"] == recommendation
    result.stdout.fnmatch_lines(["RAG gate: PASSED", recommendation])
    # The gate passed, and pytest says so: the case stays an error in the reports.
    assert result.ret == pytest.ExitCode.OK
    status_code, out, _ = in_process(pytester.path, "regate", "report.json")
    assert status_code == 0 and recommendation in out
