"""End to end: `--rag-gate-baseline` compares a run with a saved report, case by case."""

from __future__ import annotations

import json
from typing import Any

import pytest
from gate_runs import GOOD, HALLUCINATED, write_jsonl

GOOD_ROWS = [{**GOOD, "id": f"case-{index}"} for index in range(8)]


def gate(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    result = pytester.runpytest("--rag-gate", "--rag-gate-report", "new.json", *args)
    report_path = pytester.path / "new.json"
    report = json.loads(report_path.read_text(encoding="utf-8")) if report_path.exists() else {}
    return result, report


@pytest.fixture
def baseline(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", GOOD_ROWS)
    result = pytester.runpytest("--rag-gate", "--rag-gate-report", "base.json")
    assert result.ret == pytest.ExitCode.OK


@pytest.mark.usefixtures("baseline")
def test_an_unchanged_system_passes_against_its_baseline(pytester: pytest.Pytester) -> None:
    result, report = gate(pytester, "--rag-gate-baseline", "base.json")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "rag-gate: baseline base.json (max regression 0.05)",
            "baseline base.json: 8 paired, 0 new, 0 removed case(s); no regression",
            "RAG gate: PASSED",
        ]
    )
    assert report["baseline"]["paired_cases"] == 8
    assert report["baseline"]["regressed_metrics"] == []
    assert report["baseline"]["metrics"]["faithfulness"]["delta"] == 0.0


@pytest.mark.usefixtures("baseline")
def test_a_regression_fails_the_gate_and_lists_new_and_removed_cases(
    pytester: pytest.Pytester,
) -> None:
    # Half the answers now hallucinate: the mean stays above a lowered threshold, so only
    # the baseline can catch the drop.
    rows = [
        *({**HALLUCINATED, "id": f"case-{index}"} for index in range(4)),
        *GOOD_ROWS[4:7],
        {**GOOD, "id": "brand-new"},
    ]
    write_jsonl(pytester, "golden.jsonl", rows)
    result, report = gate(
        pytester, "--rag-gate-baseline", "base.json", "--rag-gate-threshold", "faithfulness=0.3"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "baseline base.json: 7 paired, 1 new, 1 removed case(s); "
            "1 metric(s) regressed: faithfulness",
            "FAILED faithfulness regressed: mean 0.43 vs baseline 1.00 "
            "(Δ -0.57, 95% CI *, n=7 paired)",
            "RAG gate: FAILED",
            "Block deployment — 1 metric(s) regressed: faithfulness; "
            "4 generation failures: fix the generator first",
        ]
    )
    assert report["verdict"] == "failed"
    assert report["baseline"]["new_cases"] == ["golden.jsonl::brand-new"]
    assert report["baseline"]["removed_cases"] == ["golden.jsonl::case-7"]
    assert report["baseline"]["regressed_metrics"] == ["faithfulness"]
    assert report["recommendation"] == (
        "Block deployment — 1 metric(s) regressed: faithfulness; "
        "4 generation failures: fix the generator first"
    )


def test_an_unreadable_baseline_is_a_usage_error_at_start_up(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", GOOD_ROWS[:1])
    (pytester.path / "broken.json").write_text("[1, 2", encoding="utf-8")
    for path, message in (
        ("missing.json", "*Baseline (--rag-gate-baseline missing.json): Cannot read the report*"),
        ("broken.json", "*Baseline (--rag-gate-baseline broken.json): The report * is not JSON*"),
    ):
        result = pytester.runpytest("--rag-gate", "--rag-gate-baseline", path)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines([message])
