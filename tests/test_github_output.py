"""GitHub output: workflow-command escaping, annotations and the step summary."""

from __future__ import annotations

from pathlib import Path

from gate_runs import METRICS, case, cases

from pytest_ragas_gate.gate.verdict import evaluate_gate
from pytest_ragas_gate.reports.github import (
    MAX_CASE_ANNOTATIONS,
    annotation_lines,
    escape_data,
    escape_property,
    write_step_summary,
)
from pytest_ragas_gate.reports.json_report import JudgeInfo
from pytest_ragas_gate.scoring.results import CaseResult
from pytest_ragas_gate.settings.config import GateConfig
from pytest_ragas_gate.usage import Usage

CONFIG = GateConfig(bootstrap_resamples=200, thresholds={"faithfulness": 0.8})
LLM = JudgeInfo(kind="anthropic", model="claude-test")
OFFLINE = JudgeInfo(kind="offline", model="heuristic-v1")


def test_escaping_follows_the_workflow_command_rules() -> None:
    assert escape_data("50%\r\nnext: a, b") == "50%25%0D%0Anext: a, b"
    assert escape_property("dir,with:colon%\n") == "dir%2Cwith%3Acolon%25%0A"


def test_a_passing_llm_run_has_no_annotation() -> None:
    results = cases([0.9, 1.0])
    assert (
        annotation_lines(evaluate_gate(results, METRICS, CONFIG), results=results, judge=LLM) == []
    )


def test_failures_offline_warning_and_case_annotations() -> None:
    broken = CaseResult(
        id="broken", source="sets/qa, v2.jsonl:4", error="Judge timed out\nafter 3 retries"
    )
    own_minimum = case("strict", 0.85, line=5).model_copy(
        update={"thresholds": {"faithfulness": 0.9}}
    )
    results = [*cases([0.2, 1.0]), broken, own_minimum]
    verdict = evaluate_gate(results, METRICS, CONFIG)
    lines = annotation_lines(
        verdict, results=results, judge=OFFLINE, rootdir=Path("/ws/app"), workspace="/ws"
    )
    assert lines[0].startswith("::error title=RAG gate::faithfulness mean ")
    assert "::warning title=RAG gate::Scored by the offline heuristic judge" in "\n".join(lines)
    assert (
        "::error file=app/golden.jsonl,line=1,title=RAG case c0::c0: faithfulness 0.20 < 0.80"
        in lines
    )
    assert (
        "::error file=app/sets/qa%2C v2.jsonl,line=4,title=RAG case broken::"
        "broken: errored: Judge timed out" in lines
    )
    assert (
        "::error file=app/golden.jsonl,line=5,title=RAG case strict::"
        "strict: faithfulness 0.85 < 0.90 (case min)" in lines
    )
    assert all("\n" not in line for line in lines)


def test_case_annotations_are_capped() -> None:
    results = cases([0.1] * (MAX_CASE_ANNOTATIONS + 5))
    lines = annotation_lines(evaluate_gate(results, METRICS, CONFIG), results=results, judge=LLM)
    assert sum(line.startswith("::error file=") for line in lines) == MAX_CASE_ANNOTATIONS
    assert lines[-1] == "::error title=RAG gate::5 more failing case(s) in the reports."


def test_step_summary_is_appended_only_when_the_variable_is_set(tmp_path: Path) -> None:
    results = cases([0.9])
    verdict = evaluate_gate(results, METRICS, CONFIG)
    usage = Usage(calls=3)
    assert not write_step_summary(verdict, results=results, judge=LLM, usage=usage, env={})
    target = tmp_path / "summary.md"
    target.write_text("earlier step\n", encoding="utf-8")
    assert write_step_summary(
        verdict, results=results, judge=LLM, usage=usage, env={"GITHUB_STEP_SUMMARY": str(target)}
    )
    text = target.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n## ✅ RAG gate: PASSED")
    assert "offline" not in text
    missing_dir = tmp_path / "gone" / "summary.md"
    assert not write_step_summary(
        verdict,
        results=results,
        judge=LLM,
        usage=usage,
        env={"GITHUB_STEP_SUMMARY": str(missing_dir)},
    )


def test_case_annotations_come_worst_first() -> None:
    scores = [0.75, 0.1, 0.7, 0.5]
    results = cases(scores)
    lines = annotation_lines(evaluate_gate(results, METRICS, CONFIG), results=results, judge=LLM)
    shown = [
        line.split("::")[2].split(":")[0] for line in lines if line.startswith("::error file=")
    ]
    assert shown == ["c1", "c3", "c2", "c0"]  # GitHub shows the first ten: the worst
