"""End to end: `--rag-gate-baseline` compares a run with a saved report, case by case."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from gate_runs import GOOD, HALLUCINATED, gate_run, write_jsonl

from pytest_ragas_gate.reports.json_report import load_report
from pytest_ragas_gate.reports.pr_comment import comment_body

GOOD_ROWS = [{**GOOD, "id": f"case-{index}"} for index in range(8)]


#: Every run of this module writes its report next to the baseline it compares with.
OPTIONS: dict[str, Any] = {"report": "new.json"}


@pytest.fixture
def baseline(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", GOOD_ROWS)
    result = pytester.runpytest("--rag-gate", "--rag-gate-report", "base.json")
    assert result.ret == pytest.ExitCode.OK


@pytest.mark.usefixtures("baseline")
def test_an_unchanged_system_passes_against_its_baseline(pytester: pytest.Pytester) -> None:
    result, report = gate_run(pytester, "--rag-gate-baseline", "base.json", **OPTIONS)
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
    # Six of seven answers now hallucinate (on 7 cases the interval of the change must
    # rule out no change): the mean stays above a lowered threshold, so only the baseline
    # can catch the drop.
    rows = [
        *({**HALLUCINATED, "id": f"case-{index}"} for index in range(6)),
        *GOOD_ROWS[6:7],
        {**GOOD, "id": "brand-new"},
    ]
    write_jsonl(pytester, "golden.jsonl", rows)
    result, report = gate_run(
        pytester,
        "--rag-gate-baseline",
        "base.json",
        "--rag-gate-threshold",
        "faithfulness=0.1",
        **OPTIONS,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "baseline base.json: 7 paired, 1 new, 1 removed case(s); "
            "1 metric(s) regressed: faithfulness",
            "FAILED faithfulness regressed: mean 0.14 vs baseline 1.00 "
            "(Δ -0.86, 95% CI *, n=7 paired)",
            "RAG gate: FAILED",
            "Block deployment — 1 metric(s) regressed: faithfulness; "
            "6 generation failures: fix the generator first",
        ]
    )
    assert report["verdict"] == "failed"
    assert report["baseline"]["new_cases"] == ["golden.jsonl::brand-new"]
    assert report["baseline"]["removed_cases"] == ["golden.jsonl::case-7"]
    assert report["baseline"]["regressed_metrics"] == ["faithfulness"]
    assert report["recommendation"] == (
        "Block deployment — 1 metric(s) regressed: faithfulness; "
        "6 generation failures: fix the generator first"
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


def test_a_baseline_none_of_whose_cases_pair_is_not_evaluated_and_not_passed(
    pytester: pytest.Pytester,
) -> None:
    # The baseline holds other ids (another golden set, or every case renamed): before,
    # "0 paired … no regression" and Safe to deploy.
    write_jsonl(
        pytester,
        "golden.jsonl",
        [{**row, "id": f"old-{index}"} for index, row in enumerate(GOOD_ROWS)],
    )
    assert pytester.runpytest("--rag-gate", "--rag-gate-report", "base.json").ret == 0
    write_jsonl(pytester, "golden.jsonl", GOOD_ROWS)
    result, report = gate_run(
        pytester, "--rag-gate-baseline", "base.json", "--rag-gate-junit", "junit.xml", **OPTIONS
    )
    result.stdout.fnmatch_lines(
        [
            "baseline base.json: 0 paired, 8 new, 8 removed case(s); baseline check not evaluated",
            "baseline check not evaluated: 0 cases paired with the baseline (min_paired 1); "
            "check that base.json is a report of the same golden set",
            "RAG gate: PARTIAL",
            "Not a deploy decision — baseline check not evaluated: 0 cases paired *",
        ]
    )
    assert "Safe to deploy" not in result.stdout.str()
    assert report["verdict"] == "partial"
    assert report["not_evaluated"] == [
        "baseline check not evaluated: 0 cases paired with the baseline (min_paired 1); "
        "check that base.json is a report of the same golden set"
    ]
    junit = pytester.path / "junit.xml"
    assert junit.exists()
    skipped = {
        case.get("name"): case.find("skipped")
        for case in ET.parse(junit).getroot().iter("testcase")
        if case.get("classname") == "rag-gate"
    }
    unchecked = skipped["not_evaluated:baseline check"]
    assert unchecked is not None
    assert unchecked.get("message", "").startswith("baseline check not evaluated: 0 cases")
    assert skipped["coverage"] is None
    comment = comment_body(load_report(pytester.path / "new.json"))
    assert "> ⚠️ Not evaluated: baseline check not evaluated: 0 cases paired" in comment
    # The same report re-gated reaches the same verdict.
    regated = pytester.run(sys.executable, "-m", "pytest_ragas_gate.cli", "regate", "new.json")
    regated.stdout.fnmatch_lines(["RAG gate: PARTIAL"])


@pytest.mark.usefixtures("baseline")
def test_min_paired_sets_how_many_pairs_a_baseline_needs(pytester: pytest.Pytester) -> None:
    write_jsonl(
        pytester, "golden.jsonl", [*GOOD_ROWS[:2], *({**GOOD, "id": f"n{i}"} for i in range(6))]
    )
    pytester.makefile(".yaml", rag_gate="min_paired: 3\n")
    result, report = gate_run(pytester, "--rag-gate-baseline", "base.json", **OPTIONS)
    result.stdout.fnmatch_lines(
        ["baseline check not evaluated: 2 cases paired with the baseline (min_paired 3)*"]
    )
    assert report["verdict"] == "partial"
    pytester.makefile(".yaml", rag_gate="min_paired: 2\n")
    result, report = gate_run(pytester, "--rag-gate-baseline", "base.json", **OPTIONS)
    assert report["verdict"] == "passed", result.stdout.str()
    assert report["not_evaluated"] == []


@pytest.mark.usefixtures("baseline")
def test_a_baseline_scored_by_another_judge_or_on_other_metrics_is_named(
    pytester: pytest.Pytester,
) -> None:
    saved = json.loads((pytester.path / "base.json").read_text(encoding="utf-8"))
    saved["judge"] = {
        "kind": "anthropic",
        "model": "claude-sonnet-4-5",
        "selected_by": "config",
        "prompt_version": "4",
    }
    saved["metrics"]["mrr"] = saved["metrics"]["faithfulness"]
    (pytester.path / "base.json").write_text(json.dumps(saved), encoding="utf-8")
    result, report = gate_run(pytester, "--rag-gate-baseline", "base.json", **OPTIONS)
    judge_warning = (
        "the baseline was scored by the anthropic judge (claude-sonnet-4-5), this run by the "
        "offline judge (heuristic-v1); its deltas mix judge changes with system changes"
    )
    metric_warning = (
        "the baseline was scored on other metrics (in the baseline only: mrr); "
        "those are not compared"
    )
    result.stdout.fnmatch_lines(
        [f"baseline warning: {judge_warning}", f"baseline warning: {metric_warning}"]
    )
    assert report["baseline"]["warnings"] == [judge_warning, metric_warning]
    comment = comment_body(load_report(pytester.path / "new.json"))
    assert f"> ⚠️ {judge_warning}" in comment, comment


def test_a_baseline_of_another_prompt_version_is_named(pytester: pytest.Pytester) -> None:
    from pytest_ragas_gate.gate.baseline import scoring_differences
    from pytest_ragas_gate.judges.base import JudgeInfo

    old = JudgeInfo(kind="openai", model="gpt-4.1-mini", prompt_version="4")
    new = JudgeInfo(kind="openai", model="gpt-4.1-mini", prompt_version="5")
    assert scoring_differences(old, new, ["faithfulness"], ["faithfulness"]) == [
        "the baseline was scored with judge prompts version 4, this run with version 5; its "
        "deltas mix judge changes with system changes"
    ]
    # A report written before versions were kept is not said to differ.
    unknown = old.model_copy(update={"prompt_version": ""})
    assert scoring_differences(unknown, new, ["faithfulness"], ["faithfulness"]) == []
