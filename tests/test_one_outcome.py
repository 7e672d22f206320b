"""Every report names the failing cases the gate's outcome names, and no other.

The gate decides each case once (:class:`~pytest_ragas_gate.gate.case_verdicts.CaseVerdict`);
the Markdown summary, the PR comment, the annotations, the HTML page, the JSON report and
JUnit only read that decision. Generated runs — scores on either side of gate and case
thresholds, n/a scores, errors of a metric or a whole case, lower-is-better metrics, a
baseline — check that no renderer counts a case differently.
"""

from __future__ import annotations

import re
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_ragas_gate.gate.baseline import compare_to_baseline
from pytest_ragas_gate.gate.verdict import GateVerdict, RunFacts, evaluate_gate
from pytest_ragas_gate.reports.github import annotation_lines
from pytest_ragas_gate.reports.html import page_context
from pytest_ragas_gate.reports.json_report import (
    JudgeInfo,
    build_report,
    load_report,
    write_report,
)
from pytest_ragas_gate.reports.junit import write_junit
from pytest_ragas_gate.reports.long_lists import is_error_row
from pytest_ragas_gate.reports.markdown import MAX_FAILING_CASES, render_markdown
from pytest_ragas_gate.reports.pr_comment import MAX_CASES, comment_body
from pytest_ragas_gate.scoring.results import CaseResult, canonical_order
from pytest_ragas_gate.settings.config import GateConfig
from pytest_ragas_gate.usage import Usage

METRICS = ["faithfulness", "context_recall", "contradiction_rate"]
JUDGE = JudgeInfo(kind="anthropic", model="claude-test", selected_by="test")
SCORES = st.sampled_from([0.0, 0.25, 0.5, 0.7, 0.8, 0.85, 0.9, 1.0])


@st.composite
def case_results(draw: st.DrawFn, count: int) -> list[CaseResult]:
    results = []
    for index in range(count):
        scores: dict[str, float | None] = {}
        errors: dict[str, str] = {}
        for metric in METRICS:
            kind = draw(st.sampled_from(["score", "score", "score", "n/a", "error"]))
            if kind == "score":
                scores[metric] = draw(SCORES)
            elif kind == "n/a":
                scores[metric] = None
            else:
                errors[metric] = "the judge's reply did not parse\nat line 1"
        own = draw(st.dictionaries(st.sampled_from(METRICS), SCORES, max_size=2))
        whole_case_error = draw(st.booleans()) and draw(st.booleans()) and draw(st.booleans())
        results.append(
            CaseResult(
                id=f"case-{index}",
                source=f"golden.jsonl:{index + 1}",
                question=f"question {index}?",
                metrics=list(METRICS),
                scores={} if whole_case_error else scores,
                errors={} if whole_case_error else errors,
                thresholds=own,
                error="the target raised\nTraceback" if whole_case_error else None,
            )
        )
    return results


@st.composite
def runs(draw: st.DrawFn) -> tuple[list[CaseResult], GateConfig, RunFacts]:
    count = draw(st.integers(min_value=1, max_value=12))
    results = draw(case_results(count))
    thresholds: dict[str, Any] = draw(
        st.dictionaries(st.sampled_from(["faithfulness", "context_recall"]), SCORES, max_size=2)
    )
    if draw(st.booleans()):
        thresholds["contradiction_rate"] = f"<={draw(SCORES)}"
    config = GateConfig(
        thresholds=thresholds, bootstrap_resamples=200, max_error_rate=1.0, min_cases=1
    )
    facts = RunFacts()
    if draw(st.booleans()):
        base = draw(case_results(count))
        facts = RunFacts(
            baseline=compare_to_baseline(base, results, METRICS, config, path="base.json")
        )
    return results, config, facts


def _section_ids(
    text: str, heading: str, pattern: str, end: str = r"\n\n[^|]"
) -> tuple[int | None, set[str]]:
    """The count a ``### heading (N)`` section gives, and the ids its rows name."""
    found = re.search(rf"### {heading} \((\d+)\)\n(.*?)(?:{end}|\Z)", text, re.S)
    if found is None:
        return None, set()
    return int(found.group(1)), set(re.findall(pattern, found.group(2)))


def _errored_section(text: str) -> tuple[int, set[str]]:
    """How many cases the ``### Errored cases (N), K causes`` section counts, and its examples."""
    found = re.search(
        r"### Errored cases \(([\d,]+)\), [\d,]+ causes?\n(.*?)(?:\n\n[^|]|\Z)", text, re.S
    )
    if found is None:
        return 0, set()
    rows = [line for line in found.group(2).splitlines() if re.match(r"\| [\d,]+ \|", line)]
    assert sum(int(row.split("|")[1].replace(",", "")) for row in rows) == int(
        found.group(1).replace(",", "")
    )
    return int(found.group(1).replace(",", "")), {
        example for row in rows for example in re.findall(r"`([^`]+)`", row.rsplit("|", 2)[1])
    }


def _check_markdown(verdict: GateVerdict, results: list[CaseResult]) -> None:
    text = render_markdown(verdict, results=results, judge=JUDGE, usage=Usage())
    failing = {case.id for case in verdict.failing_cases}
    # The section runs to the next heading: failing cases of reported metrics fold below.
    count, named = _section_ids(text, "Failing cases", r"(?m)^\| `([^`]+)` \|", r"\n###")
    # Cases listed for an error alone are counted by cause in a section of their own.
    errored, examples = _errored_section(text)
    assert (count or 0) + errored == len(failing)
    assert named <= failing and examples <= failing
    if len(failing) <= MAX_FAILING_CASES:
        missing = {case.id for case in verdict.failing_cases if not is_error_row(case)}
        assert missing <= named


def _check_comment(verdict: GateVerdict, report_path: Path) -> None:
    text = comment_body(load_report(report_path))
    failing = {case.key for case in verdict.failing_cases}
    always = {case.key for case in verdict.failing_cases if case.status != "below"}
    count, named = _section_ids(text, "Failing cases", r"(?m)^\| `([^`]+)` \|")
    errored, examples = _errored_section(text)
    grouped = {case.key for case in verdict.failing_cases if is_error_row(case)}
    assert (count or 0) + errored == len(failing)
    assert errored == len(grouped)
    assert always - grouped <= named <= failing - grouped
    assert examples <= {case.id for case in verdict.failing_cases if is_error_row(case)}
    if len(failing) <= MAX_CASES:
        assert named == failing - grouped


def _check_annotations(verdict: GateVerdict, results: list[CaseResult]) -> None:
    lines = annotation_lines(verdict, results=results, judge=JUDGE)
    named = set(re.findall(r"title=RAG case ([^:,]+)::", "\n".join(lines)))
    failing = {case.id for case in verdict.failing_cases}
    always = {case.id for case in verdict.failing_cases if case.status != "below"}
    assert always <= named <= failing


def _check_page_and_json(
    verdict: GateVerdict, results: list[CaseResult], report: dict[str, Any]
) -> None:
    statuses = {case.key: case.status for case in verdict.cases}
    assert {record["id"]: record["verdict"]["status"] for record in report["cases"]} == {
        case.id: case.status for case in verdict.cases
    }
    page = page_context(report, results)
    words = {"errored": "error", "failed": "fail", "below": "below", "passed": "pass"}
    counts = {word: 0 for word in words.values()}
    for status in statuses.values():
        counts[words[status]] += 1
    assert page["counts"] == counts


def _check_junit(verdict: GateVerdict, results: list[CaseResult], folder: Path) -> None:
    path = folder / "junit.xml"
    write_junit(path, results=results, verdict=verdict, judge=JUDGE, failure_lines={})
    suite = ET.parse(path).getroot().find("testsuite[@name='rag-cases']")
    assert suite is not None
    failed = {case.get("name") for case in suite if case.find("failure") is not None}
    assert failed == {case.id for case in verdict.cases if case.own_misses}


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(run=runs())
def test_every_report_names_the_failing_cases_of_the_outcome(
    run: tuple[list[CaseResult], GateConfig, RunFacts],
) -> None:
    results, config, facts = run
    verdict = evaluate_gate(results, METRICS, config, facts)
    report = build_report(
        results=results,
        verdict=verdict,
        config=config,
        judge=JUDGE,
        usage_by_metric={},
        wall_s=1.0,
        scoring_s=0.5,
        facts=facts,
        stamp={"commit": None, "run_url": None},
    )
    assert [case.key for case in verdict.cases] == [r.key for r in canonical_order(results)]
    _check_markdown(verdict, results)
    _check_annotations(verdict, results)
    _check_page_and_json(verdict, results, report)
    with tempfile.TemporaryDirectory() as folder:
        report_path = Path(folder) / "report.json"
        write_report(report_path, report)
        _check_comment(verdict, report_path)
        _check_junit(verdict, results, Path(folder))


def test_a_case_meeting_its_own_threshold_is_judged_by_it_not_the_gates() -> None:
    own_met = CaseResult(
        id="lenient",
        source="golden.jsonl:1",
        metrics=["faithfulness"],
        scores={"faithfulness": 0.7},
        thresholds={"faithfulness": 0.6},
    )
    low = CaseResult(
        id="low", source="golden.jsonl:2", metrics=["faithfulness"], scores={"faithfulness": 0.5}
    )
    verdict = evaluate_gate(
        [own_met, low], ["faithfulness"], GateConfig(thresholds={"faithfulness": 0.85})
    )
    lenient, below = verdict.cases
    assert (lenient.status, lenient.misses) == ("passed", [])
    assert below.status == "below"
    assert below.why == "faithfulness 0.50 < 0.85"
    assert below.worst is not None and round(below.worst.shortfall, 2) == 0.35


def _scored(case_id: str, score: float) -> CaseResult:
    return CaseResult(
        id=case_id,
        source=f"golden.jsonl:{case_id[-1]}",
        metrics=["faithfulness"],
        scores={"faithfulness": score},
    )


def test_cases_say_what_they_newly_fail_or_pass_against_the_baseline() -> None:
    config = GateConfig(thresholds={"faithfulness": 0.85}, bootstrap_resamples=200)
    base = [_scored("c1", 0.9), _scored("c2", 0.5), _scored("c3", 0.9)]
    new = [_scored("c1", 0.5), _scored("c2", 0.9), _scored("c3", 0.9), _scored("c4", 0.5)]
    comparison = compare_to_baseline(base, new, ["faithfulness"], config, path="base.json")
    verdict = evaluate_gate(new, ["faithfulness"], config, RunFacts(baseline=comparison))

    by_id = {case.id: case for case in verdict.cases}
    assert by_id["c1"].newly_failing == ["faithfulness"]
    assert by_id["c2"].newly_passing == ["faithfulness"]
    assert (by_id["c3"].newly_failing, by_id["c3"].newly_passing) == ([], [])
    # A case new to the baseline was not there to fail or pass.
    assert (by_id["c4"].status, by_id["c4"].newly_failing) == ("below", [])

    # A report written before the baseline's case misses were kept says nothing per case.
    older = comparison.model_copy(update={"case_misses": None})
    again = evaluate_gate(new, ["faithfulness"], config, RunFacts(baseline=older))
    assert all(not case.newly_failing and not case.newly_passing for case in again.cases)
