"""End to end: `--rag-gate-baseline` compares a run with a saved report, case by case."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeLLM
from gate_runs import (
    GOOD,
    HALLUCINATED,
    WORKERS,
    case_row,
    gate_run,
    use_fake_judge,
    write_jsonl,
)

from pytest_ragas_gate.judges.prompts import PROMPT_VERSION
from pytest_ragas_gate.reports.json_report import load_report
from pytest_ragas_gate.reports.pr_comment import comment_body

GOOD_ROWS = [{**GOOD, "id": f"case-{index}"} for index in range(8)]
#: An answer to GOOD's question that its contexts contradict.
HALLUCINATED_APPLE = "Apple was founded in 1925."


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
        *({**GOOD, "answer": HALLUCINATED_APPLE, "id": f"case-{index}"} for index in range(6)),
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


# The feature's one xdist run of the default suite: the offline judge, so it is quick.
@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_baseline_of_other_questions_under_the_same_ids_pairs_nothing(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    # Another golden set numbered alike (case-0 …): before, "8 paired", then "regressed"
    # and "newly failing" measured against answers to unrelated questions.
    write_jsonl(pytester, "golden.jsonl", GOOD_ROWS)
    assert pytester.runpytest("--rag-gate", "--rag-gate-report", "base.json").ret == 0
    other_set = [
        {**HALLUCINATED, "id": f"case-{index}", "question": f"When was tower {index} built?"}
        for index in range(8)
    ]
    write_jsonl(pytester, "golden.jsonl", other_set)
    result, report = gate_run(
        pytester,
        *workers,
        "--rag-gate-baseline",
        "base.json",
        "--rag-gate-threshold",
        "faithfulness=0",
        **OPTIONS,
    )
    result.stdout.fnmatch_lines(
        [
            "baseline base.json: 0 paired, 8 new, 8 removed case(s); baseline check not evaluated",
            "baseline warning: 8 baseline ids reused for other questions: not paired "
            "(case-0, case-1, case-2, case-3, case-4, …)",
            "baseline check not evaluated: 0 cases paired with the baseline (min_paired 1)*",
            "RAG gate: PARTIAL",
        ]
    )
    assert "regressed" not in result.stdout.str()
    assert "newly failing" not in result.stdout.str()
    assert report["verdict"] == "partial"
    assert report["baseline"]["paired_cases"] == 0
    assert report["baseline"]["reused_ids"] == [f"case-{index}" for index in range(8)]
    assert report["judge"]["metrics"]["faithfulness"]["kind"] == "offline"
    assert report["baseline"]["regressed_metrics"] == []
    assert report["metrics"]["faithfulness"]["newly_failing"] is False
    assert all(case["verdict"]["newly_failing"] == [] for case in report["cases"])
    # The same report and baseline, re-gated and compared, say the same.
    regated = pytester.run(
        sys.executable,
        "-m",
        "pytest_ragas_gate.cli",
        "regate",
        "new.json",
        "--baseline",
        "base.json",
    )
    regated.stdout.fnmatch_lines(["baseline warning: 8 baseline ids reused*", "RAG gate: PARTIAL"])
    compared = pytester.run(
        sys.executable, "-m", "pytest_ragas_gate.cli", "compare", "base.json", "new.json"
    )
    assert compared.ret == 1
    compared.stdout.fnmatch_lines(
        ["0 paired case(s), 8 new, 8 removed", "baseline check not evaluated: 0 cases paired*"]
    )
    compared.stderr.fnmatch_lines(["*warning: 8 baseline ids reused for other questions*"])


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_current_baseline_missing_a_question_pairs_no_case_by_id_alone(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    # Another set under the same ids, one question removed from the report: before,
    # that case paired "by id alone" and the run was "Safe to deploy".
    other_set = [
        {**HALLUCINATED, "id": f"case-{index}", "question": f"When was tower {index} built?"}
        for index in range(8)
    ]
    write_jsonl(pytester, "golden.jsonl", other_set)
    assert pytester.runpytest("--rag-gate", "--rag-gate-report", "base.json").ret in (0, 1)
    saved = json.loads((pytester.path / "base.json").read_text())
    del saved["cases"][0]["question"]
    (pytester.path / "half.json").write_text(json.dumps(saved))
    for case in saved["cases"]:
        case["question"] = ""
    (pytester.path / "blank.json").write_text(json.dumps(saved))
    write_jsonl(pytester, "golden.jsonl", GOOD_ROWS)
    for name in ("half.json", "blank.json"):
        result, report = gate_run(pytester, *workers, "--rag-gate-baseline", name, **OPTIONS)
        result.stdout.fnmatch_lines(
            [
                f"baseline {name}: 0 paired, 8 new, 8 removed case(s); "
                "baseline check not evaluated",
                "*saved no question: not paired*",
                "RAG gate: PARTIAL",
            ]
        )
        assert "Safe to deploy" not in result.stdout.str()
        assert report["baseline"]["paired_cases"] == 0


@pytest.mark.usefixtures("baseline")
def test_ids_reused_for_other_questions_are_counted_and_the_rest_pair(
    pytester: pytest.Pytester,
) -> None:
    rows = [
        *(
            {**GOOD, "id": f"case-{index}", "question": f"Who founded firm {index}?"}
            for index in range(3)
        ),
        *GOOD_ROWS[3:],
    ]
    write_jsonl(pytester, "golden.jsonl", rows)
    pytester.makefile(".yaml", rag_gate="baseline:\n  min_paired: 6\n")
    result, report = gate_run(pytester, "--rag-gate-baseline", "base.json", **OPTIONS)
    result.stdout.fnmatch_lines(
        [
            "baseline base.json: 5 paired, 3 new, 3 removed case(s); baseline check not evaluated",
            "baseline warning: 3 baseline ids reused for other questions: not paired "
            "(case-0, case-1, case-2)",
            "baseline check not evaluated: 5 cases paired with the baseline (min_paired 6)*",
            "RAG gate: PARTIAL",
        ]
    )
    assert report["baseline"]["new_cases"] == [f"golden.jsonl::case-{i}" for i in range(3)]
    # Whitespace in a question is not another question.
    spaced = [{**row, "question": "  Who founded   Apple\nand when? "} for row in GOOD_ROWS]
    write_jsonl(pytester, "golden.jsonl", spaced)
    result, report = gate_run(pytester, "--rag-gate-baseline", "base.json", **OPTIONS)
    assert report["baseline"]["paired_cases"] == 8, result.stdout.str()
    assert report["verdict"] == "passed"


@pytest.mark.usefixtures("baseline")
def test_a_metric_only_reported_judged_otherwise_is_named_in_the_terminal_and_markdown(
    pytester: pytest.Pytester,
) -> None:
    # Before, only the JSON's baseline.metrics named it; the terminal and Markdown were silent.
    saved = json.loads((pytester.path / "base.json").read_text(encoding="utf-8"))
    gated = set(saved["config"]["thresholds"])
    reported = sorted(set(saved["judge"]["metrics"]) - gated)
    assert reported, saved["judge"]["metrics"]
    saved["judge"]["metrics"][reported[0]] = {
        "kind": "anthropic",
        "model": "claude-x",
        "prompt_version": "6",
    }
    (pytester.path / "base.json").write_text(json.dumps(saved), encoding="utf-8")
    line = (
        "baseline judged by claude-x prompt v6, this run by the offline heuristic "
        f"(heuristic-v1) ({reported[0]}); not compared (reported only, decides nothing)"
    )
    outcome = gate_run(pytester, "--rag-gate-baseline", "base.json", markdown="out.md", **OPTIONS)
    result, report = outcome
    result.stdout.fnmatch_lines([f"baseline warning: {line}", "RAG gate: PASSED"])
    assert report["baseline"]["warnings"] == [line]
    assert line in (outcome.markdown or "")


def _claim_judge(path: Path, *, prompt_version: str) -> None:
    """Rewrite a saved report as if its LLM judge had used other prompts."""
    saved = json.loads(path.read_text(encoding="utf-8"))
    saved["judge"]["prompt_version"] = prompt_version
    for judge in saved["judge"]["metrics"].values():
        if judge["kind"] != "none":
            judge["prompt_version"] = prompt_version
    path.write_text(json.dumps(saved), encoding="utf-8")


#: An answer the fake judge finds no support for in its contexts.
UNSUPPORTED = "The moon is made of green cheese and was sold in 1802."


@pytest.mark.parametrize("workers", WORKERS)
def test_a_baseline_judged_with_other_prompts_or_model_is_named_and_not_compared(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    fake_llm: FakeLLM,
    workers: list[str],
) -> None:
    use_fake_judge(monkeypatch, fake_llm)
    rows = [case_row(index) for index in range(12)]
    write_jsonl(pytester, "golden.jsonl", rows)
    base, base_report = gate_run(pytester, judge="anthropic", report="base.json")
    assert base_report["verdict"] == "passed", base.stdout.str()
    assert base_report["judge"]["metrics"]["faithfulness"] == {
        "kind": "anthropic",
        "model": base_report["judge"]["model"],
        "prompt_version": PROMPT_VERSION,
    }
    # Written "v6", the version still reads "prompt v6" (not "vv6").
    _claim_judge(pytester.path / "base.json", prompt_version="v6")
    model = base_report["judge"]["model"]
    # Two thirds of the answers now have no support: a drop the regression check would catch.
    worse = [{**row, "answer": UNSUPPORTED} if index < 8 else row for index, row in enumerate(rows)]
    write_jsonl(pytester, "golden.jsonl", worse)
    args = [*workers, "--rag-gate-baseline", "base.json"]
    args += [
        "--rag-gate-threshold",
        "faithfulness=0.3",
        "--rag-gate-threshold",
        "answer_relevancy=0.3",
    ]
    result, report = gate_run(pytester, *args, judge="anthropic", **OPTIONS)
    change = f"baseline judged by {model} prompt v6, this run v{PROMPT_VERSION}"
    result.stdout.fnmatch_lines(
        [
            "baseline base.json: 12 paired, 0 new, 0 removed case(s); no metric compared; not "
            "compared (judged differently): faithfulness, answer_relevancy, context_precision, "
            "context_recall",
            f"baseline regression check not evaluated for faithfulness, answer_relevancy, "
            f"context_precision, context_recall: {change}; "
            "a change of judge is not a change of the system (set "
            "baseline.allow_judge_change: true to compare anyway)",
            "RAG gate: PARTIAL",
        ]
    )
    assert "regressed" not in result.stdout.str()
    # Nothing was compared, so nothing says "no regression".
    assert "no regression" not in result.stdout.str()
    assert report["verdict"] == "partial"
    faithfulness = report["baseline"]["metrics"]["faithfulness"]
    assert faithfulness["compared"] is False
    assert faithfulness["judge_change"] == change
    assert report["metrics"]["faithfulness"]["passed"] is True
    assert report["baseline"]["regressed_metrics"] == []
    # rag-gate gate with the baseline, and rag-gate compare, decide alike.
    cli = [sys.executable, "-m", "pytest_ragas_gate.cli"]
    regated = pytester.run(*cli, "regate", "new.json", "--baseline", "base.json")
    regated.stdout.fnmatch_lines(
        [f"baseline regression check not evaluated for faithfulness, *: {change}; *"]
    )
    assert "regressed" not in regated.stdout.str()
    compared = pytester.run(*cli, "compare", "base.json", "new.json")
    assert compared.ret == 1
    compared.stdout.fnmatch_lines(
        ["faithfulness not compared: " + change, "baseline regression check not evaluated*"]
    )
    compared = pytester.run(*cli, "compare", "base.json", "new.json", "--allow-judge-change")
    assert compared.ret == 1
    compared.stdout.fnmatch_lines(["faithfulness regressed: *", "Regression: *faithfulness*"])
    allowed = pytester.makefile(".yaml", allowed="baseline:\n  allow_judge_change: true\n")
    regated = pytester.run(
        *cli, "regate", "new.json", "--baseline", "base.json", "--config", str(allowed)
    )
    regated.stdout.fnmatch_lines(["FAILED faithfulness regressed: *", "RAG gate: FAILED"])
    # Without --baseline the stored comparison stands; the advice is to compare again.
    regated = pytester.run(*cli, "regate", "new.json", "--config", str(allowed))
    regated.stdout.fnmatch_lines(
        [
            "baseline regression check not evaluated for faithfulness, *; a change of judge "
            "is not a change of the system (pass --baseline to compare again with "
            "baseline.allow_judge_change)",
            "RAG gate: PARTIAL",
        ]
    )
    assert "set baseline.allow_judge_change: true" not in regated.stdout.str()

    # The absolute thresholds still decide.
    result, report = gate_run(
        pytester, *args, "--rag-gate-threshold", "faithfulness=0.9", judge="anthropic", **OPTIONS
    )
    assert report["verdict"] == "failed"
    assert report["failing_metrics"] == ["faithfulness"]
    assert "newly failing" not in result.stdout.str()
    # Allowed, the regression check runs and says what it compared.
    pytester.makefile(".yaml", rag_gate="baseline:\n  allow_judge_change: true\n")
    result, report = gate_run(pytester, *args, judge="anthropic", **OPTIONS)
    result.stdout.fnmatch_lines(
        [
            f"baseline warning: {change} (faithfulness, *); compared anyway "
            "(baseline.allow_judge_change): its deltas mix judge changes with system changes",
            "FAILED faithfulness regressed: mean 0.33 vs baseline 1.00 *",
            "RAG gate: FAILED",
        ]
    )
    assert "faithfulness" in report["baseline"]["regressed_metrics"]

    # Another model is named as such.
    saved = json.loads((pytester.path / "base.json").read_text(encoding="utf-8"))
    saved["judge"]["model"] = "claude-old-1"
    for judge in saved["judge"]["metrics"].values():
        if judge["kind"] != "none":
            judge["model"] = "claude-old-1"
    (pytester.path / "base.json").write_text(json.dumps(saved), encoding="utf-8")
    strict = pytester.makefile(".yaml", strict="baseline:\n  allow_judge_change: false\n")
    regated = pytester.run(
        *cli, "regate", "new.json", "--baseline", "base.json", "--config", str(strict)
    )
    regated.stdout.fnmatch_lines(
        [
            "baseline regression check not evaluated for faithfulness, *: baseline judged by "
            f"claude-old-1 prompt v6, this run by {model} prompt v{PROMPT_VERSION}; *"
        ]
    )


@pytest.mark.usefixtures("baseline")
def test_a_baseline_scored_by_the_heuristic_is_named_and_not_compared(
    pytester: pytest.Pytester,
) -> None:
    saved = json.loads((pytester.path / "base.json").read_text(encoding="utf-8"))
    # A report of an older version: one judge for the run, none recorded per metric.
    saved["judge"] = {
        "kind": "anthropic",
        "model": "claude-sonnet-4-5",
        "selected_by": "config",
        "prompt_version": "4",
    }
    saved["metrics"]["mrr"] = saved["metrics"]["faithfulness"]
    (pytester.path / "base.json").write_text(json.dumps(saved), encoding="utf-8")
    result, report = gate_run(
        pytester, "--rag-gate-baseline", "base.json", html="new.html", **OPTIONS
    )
    judge_change = (
        "baseline judged by claude-sonnet-4-5 prompt v4, this run by the offline heuristic "
        "(heuristic-v1)"
    )
    metric_warning = (
        "the baseline was scored on other metrics (in the baseline only: mrr); "
        "those are not compared"
    )
    result.stdout.fnmatch_lines(
        [
            f"baseline warning: {metric_warning}",
            f"baseline regression check not evaluated for faithfulness, *: {judge_change}; *",
            "RAG gate: PARTIAL",
        ]
    )
    # The metrics only reported are named too, in a warning of their own.
    assert report["baseline"]["warnings"] == [
        f"{judge_change} (contradiction_rate, answer_correctness, context_relevance, "
        "top_doc_usage); not compared (reported only, decides nothing)",
        metric_warning,
    ]
    assert report["judge"]["metrics"]["faithfulness"] == {
        "kind": "offline",
        "model": "heuristic-v1",
        "prompt_version": "",
    }
    comment = comment_body(load_report(pytester.path / "new.json"))
    assert judge_change in comment, comment
    page = (pytester.path / "new.html").read_text(encoding="utf-8")
    assert f"baseline not compared: {judge_change}" in page
    assert "Not evaluated: baseline regression check not evaluated for faithfulness" in page
    assert "No regression." not in page


def test_a_metric_computed_without_a_judge_is_compared_across_judges(
    pytester: pytest.Pytester,
) -> None:
    rows = [
        {
            **GOOD,
            "id": f"case-{index}",
            "relevant_context_ids": ["a"],
            "contexts": [{"id": "a", "text": GOOD["contexts"][0]}],
        }
        for index in range(4)
    ]
    write_jsonl(pytester, "golden.jsonl", rows)
    base, _ = gate_run(pytester, report="base.json")
    saved = json.loads((pytester.path / "base.json").read_text(encoding="utf-8"))
    saved["judge"]["kind"], saved["judge"]["model"] = "anthropic", "claude-old-1"
    saved["judge"]["metrics"] = {
        name: (
            judge
            if judge["kind"] == "none"
            else {"kind": "anthropic", "model": "claude-old-1", "prompt_version": "6"}
        )
        for name, judge in saved["judge"]["metrics"].items()
    }
    (pytester.path / "base.json").write_text(json.dumps(saved), encoding="utf-8")
    _, report = gate_run(pytester, "--rag-gate-baseline", "base.json", **OPTIONS)
    assert report["judge"]["metrics"]["mrr"] == {"kind": "none", "model": "", "prompt_version": ""}
    assert report["baseline"]["metrics"]["mrr"]["compared"] is True
    assert report["baseline"]["metrics"]["faithfulness"]["compared"] is False
