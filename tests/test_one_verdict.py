"""One verdict: the gate, every report, ``rag-gate`` and the exit status always agree.

Each test here runs the gate the way users do — with the plugins and options real projects
use — and checks that the terminal, the JSON report, the JUnit file and a re-gate of the
report say the same thing as the exit status.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from gate_runs import WORKERS, case_row, gate_run, read_report, write_golden

from pytest_ragas_gate import cli
from pytest_ragas_gate.gate.deploy_decision import SMOKE_CHECK

ONLY_FAITHFULNESS = ("--rag-gate-metrics", "faithfulness")


#: How every run of this module gates: faithfulness only, fresh judgements, fixed order.
OPTIONS: dict[str, Any] = {
    "cache": "off",
    "junit": "junit.xml",
    "metrics": "faithfulness",
    "disable": ("randomly",),
}


def good(index: int) -> dict[str, Any]:
    return case_row(index)


def unfaithful(index: int, **extra: Any) -> dict[str, Any]:
    """A case whose answer the contexts do not support: faithfulness 0 offline."""
    return {**case_row(index), "answer": "Bill Gates founded Apple in 1999 in Seattle.", **extra}


def regate(path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    status = cli.main(["regate", str(path), *args])
    return status, capsys.readouterr().out.splitlines()


def gate_section(lines: list[str]) -> list[str]:
    """The summary pytest prints after its ``RAG gate`` rule, up to the final counts."""
    start = next(i for i, line in enumerate(lines) if "= RAG gate =" in line)
    end = next(
        i
        for i in range(len(lines) - 1, start, -1)
        if lines[i].startswith("=") or " passed" in lines[i] or " failed" in lines[i]
    )
    section = lines[start + 1 : end]
    # pytest's short test summary sits between the gate section and the final counts.
    if any(line.startswith("=") for line in section):
        section = section[: next(i for i, line in enumerate(section) if line.startswith("="))]
    return [line for line in section if not line.startswith("::")]


def junit_gate_cases(path: Path) -> dict[str, str]:
    outcomes = {}
    for suite in ET.parse(path).getroot().iter("testsuite"):
        if suite.get("name") != "rag-gate":
            continue
        for case in suite.iter("testcase"):
            kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
            outcomes[str(case.get("name"))] = kinds[0] if kinds else "passed"
    return outcomes


@pytest.mark.slow
@pytest.mark.parametrize("continue_on_errors", [False, True], ids=["default", "continue"])
def test_a_run_with_an_unreadable_golden_file_regates_as_failed(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], continue_on_errors: bool
) -> None:
    write_golden(pytester.path, [good(1), good(2)])
    (pytester.path / "golden_broken.json").write_text("{not json", encoding="utf-8")
    extra = ("--continue-on-collection-errors",) if continue_on_errors else ()
    result, report = gate_run(pytester, *extra, **OPTIONS)

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(
        ["RAG gate: FAILED", "Block deployment — 1 golden file(s) unreadable*"]
    )
    assert "Safe to deploy" not in result.stdout.str()
    assert report["verdict"] == "failed"
    assert report["run"]["unreadable_files"][0].startswith("golden_broken.json")

    status, lines = regate(pytester.path / "report.json", capsys)
    assert status == 1
    assert "RAG gate: FAILED" in lines
    assert any("golden_broken.json" in line for line in lines)
    # New thresholds cannot make an unreadable file readable.
    status, lines = regate(pytester.path / "report.json", capsys, "--threshold", "faithfulness=0")
    assert status == 1 and "RAG gate: FAILED" in lines


def test_pytest_and_rag_gate_print_the_same_summary(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    malformed = {"id": "no-question", "answer": "An answer without its question."}
    write_golden(pytester.path, [good(1), unfaithful(2), malformed])
    result, _ = gate_run(pytester, "--rag-gate-threshold", "faithfulness=0.4", **OPTIONS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED

    status, lines = regate(pytester.path / "report.json", capsys)
    assert status == 1
    printed = gate_section(result.outlines)
    assert printed == lines, "\n".join(printed) + "\n---\n" + "\n".join(lines)
    assert "cases: gated 3 of 3 collected golden case(s); 2 scored, 1 errored" in lines


@pytest.mark.parametrize("workers", WORKERS)
def test_reruns_gate_each_case_once_by_its_final_outcome(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], workers: list[str]
) -> None:
    rows = [good(1), good(2), good(3), unfaithful(4, thresholds={"faithfulness": 0.9})]
    write_golden(pytester.path, rows)
    result, report = gate_run(pytester, "--reruns", "2", *workers, **OPTIONS)

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    faithfulness = report["metrics"]["faithfulness"]
    assert (faithfulness["n"], faithfulness["mean"]) == (4, 0.75)
    assert [case["id"] for case in report["cases"]] == [
        "case-001",
        "case-002",
        "case-003",
        "case-004",
    ]
    names = [
        case.get("name")
        for suite in ET.parse(pytester.path / "junit.xml").getroot().iter("testsuite")
        if suite.get("name") == "rag-cases"
        for case in suite.iter("testcase")
    ]
    assert len(names) == 4
    assert report["verdict"] == "failed"
    assert "1 case(s) below their own thresholds: case-004" in report["failures"]

    merged = pytester.path / "merged.json"
    capsys.readouterr()
    assert cli.main(["merge", str(pytester.path / "report.json"), "-o", str(merged)]) == 1
    assert read_report(merged)["metrics"]["faithfulness"]["n"] == 4


def test_a_case_below_its_own_threshold_fails_the_gate_everywhere(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [good(1), good(2), good(3), unfaithful(4, thresholds={"faithfulness": 0.9})]
    write_golden(pytester.path, rows)
    result, report = gate_run(pytester, "--rag-gate-threshold", "faithfulness=0.5", **OPTIONS)

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "FAILED 1 case(s) below their own thresholds: case-004",
            "RAG gate: FAILED",
            "Block deployment — 1 case(s) below their own thresholds; "
            "1 generation failure: fix the generator first",
        ]
    )
    assert "Safe to deploy" not in result.stdout.str()
    assert report["verdict"] == "failed"
    assert junit_gate_cases(pytester.path / "junit.xml")["case_thresholds"] == "failure"
    status, lines = regate(pytester.path / "report.json", capsys)
    assert status == 1 and "RAG gate: FAILED" in lines


def test_a_failing_ordinary_test_fails_the_verdict_too(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    write_golden(pytester.path, [good(1), good(2)])
    pytester.makepyfile(test_unit="def test_breaks():\n    assert 1 == 2\n")
    result, report = gate_run(pytester, **OPTIONS)

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "FAILED 1 other test(s) failed in this run: test_unit.py::test_breaks",
            "RAG gate: FAILED",
            "Block deployment — 1 other test(s) failed",
        ]
    )
    assert report["verdict"] == "failed"
    assert report["run"]["other_failures"] == ["test_unit.py::test_breaks"]
    status, lines = regate(pytester.path / "report.json", capsys)
    assert status == 1 and "RAG gate: FAILED" in lines


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["-k", "case-001 or case-002"], "-k 'case-001 or case-002'"),
        (["-m", "not slow"], "-m 'not slow'"),
        (["--deselect", "golden.jsonl::case-003"], "--deselect golden.jsonl::case-003"),
        (["golden.jsonl::case-001"], "node ids named on the command line"),
        (["--rag-gate-shard", "1/2"], "--rag-gate-shard 1/2"),
    ],
    ids=["k", "m", "deselect", "nodeid", "shard"],
)
def test_a_partial_run_is_never_safe_to_deploy(
    pytester: pytest.Pytester,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    reason: str,
) -> None:
    rows = [good(index) for index in range(1, 5)]
    write_golden(pytester.path, rows)
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow cases\n")
    if args == ["-m", "not slow"]:
        # Tags become keywords, not markers; a conftest marks one case.
        pytester.makeconftest(
            "import pytest\n"
            "@pytest.hookimpl(tryfirst=True)\n"
            "def pytest_collection_modifyitems(items):\n"
            "    for item in items:\n"
            "        if item.name == 'case-003':\n"
            "            item.add_marker(pytest.mark.slow)\n"
        )
    result, report = gate_run(pytester, *args, **OPTIONS)

    assert result.ret == pytest.ExitCode.OK
    out = result.stdout.str()
    assert "Safe to deploy" not in out
    result.stdout.fnmatch_lines(
        ["RAG gate: PARTIAL", "Partial run, not a deploy decision — gated * of 4*"]
    )
    assert reason in out
    assert report["verdict"] == "partial" and report["partial"] is True
    assert report["run"]["collected_cases"] == 4
    # A shard is partial by design, even when the hash happens to give it every case.
    assert report["run"]["gated_cases"] < 4 or args[0] == "--rag-gate-shard"
    assert junit_gate_cases(pytester.path / "junit.xml")["coverage"] == "skipped"
    status, lines = regate(pytester.path / "report.json", capsys)
    assert status == 0 and "RAG gate: PARTIAL" in lines and "Safe to deploy" not in lines


@pytest.mark.slow
def test_a_partial_xdist_run_knows_what_the_workers_collected(pytester: pytest.Pytester) -> None:
    write_golden(pytester.path, [good(index) for index in range(1, 7)])
    result, report = gate_run(pytester, "-n", "2", "-k", "case-001 or case-002", **OPTIONS)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "*gated 2 of 6 golden case(s); not gated: golden.jsonl "
            "(4 case(s), deselected by -k 'case-001 or case-002')*",
            "RAG gate: PARTIAL",
        ]
    )
    assert report["verdict"] == "partial"

    result, report = gate_run(pytester, "-n", "2", **OPTIONS)
    result.stdout.fnmatch_lines(["*gated 6 of 6 collected golden case(s);*", SMOKE_CHECK])
    assert report["verdict"] == "passed"


def test_stopping_at_the_first_failure_is_a_partial_failed_run(pytester: pytest.Pytester) -> None:
    rows = [unfaithful(1, thresholds={"faithfulness": 0.9}), good(2), good(3)]
    write_golden(pytester.path, rows)
    result, report = gate_run(pytester, "-x", **OPTIONS)

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "RAG gate: FAILED",
            "*partial run: gated 1 of 3 golden case(s); "
            "not gated: golden.jsonl (2 case(s), not reached: -x stopped)",
        ]
    )
    assert report["verdict"] == "failed" and report["partial"] is True


def test_last_failed_and_stepwise_runs_are_partial(pytester: pytest.Pytester) -> None:
    write_golden(pytester.path, [good(1), unfaithful(2, thresholds={"faithfulness": 0.9}), good(3)])
    pytester.runpytest("--rag-gate", "-p", "no:randomly", *ONLY_FAITHFULNESS)

    result = pytester.runpytest("--rag-gate", "-p", "no:randomly", "--lf", *ONLY_FAITHFULNESS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*partial run: gated 1 of 3 golden case(s); "
            "not gated: golden.jsonl (2 case(s), not run: --lf)"
        ]
    )

    result = pytester.runpytest("--rag-gate", "-p", "no:randomly", "--sw", *ONLY_FAITHFULNESS)
    assert "Safe to deploy" not in result.stdout.str()


def test_last_failed_that_skips_whole_golden_files_is_partial(pytester: pytest.Pytester) -> None:
    write_golden(pytester.path, [good(1)], name="golden_a.jsonl")
    write_golden(pytester.path, [good(2)], name="golden_b.jsonl")
    pytester.makepyfile(
        test_unit="import os\ndef test_flag():\n    assert not os.environ.get('BREAK')\n"
    )
    os.environ["BREAK"] = "1"
    try:
        pytester.runpytest("--rag-gate", "-p", "no:randomly", *ONLY_FAITHFULNESS)
    finally:
        del os.environ["BREAK"]
    result = pytester.runpytest("--rag-gate", "-p", "no:randomly", "--lf", *ONLY_FAITHFULNESS)
    assert "Safe to deploy" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*not gated: golden_a.jsonl (1 case(s), not run: --lf); "
            "golden_b.jsonl (1 case(s), not run: --lf)*"
        ]
    )
    # The unit test passed this time: a gate that gated nothing fails (1), no usage error.
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_symlink_loop_collects_each_golden_file_once(pytester: pytest.Pytester) -> None:
    write_golden(pytester.path, [good(1), good(2)])
    (pytester.path / "loop").symlink_to(pytester.path, target_is_directory=True)
    result, report = gate_run(pytester, **OPTIONS)
    assert result.ret == pytest.ExitCode.OK
    assert [case["id"] for case in report["cases"]] == ["case-001", "case-002"]
    assert report["run"]["collected_cases"] == 2
    assert report["verdict"] == "passed"


def test_an_empty_named_golden_file_says_it_holds_no_cases(pytester: pytest.Pytester) -> None:
    (pytester.path / "golden.json").write_text("[]", encoding="utf-8")
    result, report = gate_run(pytester, "golden.json", **OPTIONS)
    # Nothing was collected, as pytest says it (5); not a usage error.
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(["*golden.json hold(s) no cases*"])
    assert "no golden file was collected" not in result.stdout.str()
    assert report["verdict"] == "failed"


def test_a_version_one_report_still_regates(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    write_golden(pytester.path, [good(1), good(2)])
    gate_run(pytester, **OPTIONS)
    path = pytester.path / "report.json"
    old = json.loads(path.read_text(encoding="utf-8"))
    old["schema_version"] = 1
    for key in ("run", "partial", "coverage"):
        old.pop(key)
    path.write_text(json.dumps(old), encoding="utf-8")
    status, lines = regate(path, capsys)
    assert status == 0
    assert "cases: gated 2 golden case(s); 2 scored, 0 errored" in lines


@pytest.mark.parametrize(
    ("where", "said"),
    [
        ("env", "RAG_GATE_JUDGE=offline"),
        ("yaml", "judge: offline in rag_gate.yaml"),
        ("pyproject", "judge: offline in pyproject.toml [tool.rag_gate]"),
        ("cli", "--rag-gate-judge offline"),
    ],
)
def test_the_judge_is_announced_by_where_it_was_chosen(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, where: str, said: str
) -> None:
    write_golden(pytester.path, [good(1)])
    extra: list[str] = []
    if where == "env":
        monkeypatch.setenv("RAG_GATE_JUDGE", "offline")
    elif where == "yaml":
        (pytester.path / "rag_gate.yaml").write_text("judge: offline\n", encoding="utf-8")
    elif where == "pyproject":
        pytester.makepyprojecttoml('[tool.rag_gate]\njudge = "offline"\n')
    else:
        extra = ["--rag-gate-judge", "offline"]
    result, report = gate_run(pytester, *extra, **OPTIONS)
    result.stdout.fnmatch_lines([f"rag-gate: judge offline (heuristic-v1) — {said}"])
    assert report["judge"]["selected_by"] == said


def test_a_missing_key_names_where_the_judge_was_chosen(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_golden(pytester.path, [good(1)])
    monkeypatch.setenv("RAG_GATE_JUDGE", "anthropic")
    result, _ = gate_run(pytester, **OPTIONS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*RAG_GATE_JUDGE=anthropic needs ANTHROPIC_API_KEY*"])
