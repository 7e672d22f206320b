"""Every report prints the status the gate gave each metric, also when the judge was down.

The gate decides each metric once (:class:`~pytest_ragas_gate.gate.metric_outcome.MetricOutcome`):
passed, failed, not judged, not evaluated or report only, its shown value, whether it is
newly failing since the baseline and what to do about it. The terminal table, JUnit, the
JSON report, the Markdown summary and the PR comment only print it.
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
from pytest_ragas_gate.gate.metric_outcome import STATUS_MARKS, shown_value
from pytest_ragas_gate.gate.verdict import GateVerdict, RunFacts, evaluate_gate
from pytest_ragas_gate.reports.json_report import JudgeInfo, build_report, load_report, write_report
from pytest_ragas_gate.reports.junit import write_junit
from pytest_ragas_gate.reports.markdown import render_markdown
from pytest_ragas_gate.reports.pr_comment import comment_body
from pytest_ragas_gate.reports.summary import summary_lines
from pytest_ragas_gate.scoring.results import CaseResult
from pytest_ragas_gate.settings.config import GateConfig
from pytest_ragas_gate.usage import Usage

JUDGE = JudgeInfo(kind="openai", model="gpt-test", selected_by="test")
GATED = ["faithfulness", "answer_relevancy", "context_recall"]
METRICS = [*GATED, "context_relevance"]
OUTAGE = "judge request failed: connection refused (http://127.0.0.1:9/v1)"
JUNIT_WORDS = {"passed": "PASS", "failed": "FAIL", "not_judged": "NOT-JUDGED"}


def _config(**overrides: Any) -> GateConfig:
    settings_: dict[str, Any] = {
        "thresholds": {"faithfulness": 0.8, "answer_relevancy": 0.75, "context_recall": 0.7},
        "bootstrap_resamples": 200,
        "min_cases": 1,
        **overrides,
    }
    return GateConfig(**settings_)


def _case(index: int, **fields: Any) -> CaseResult:
    return CaseResult(
        id=fields.pop("id", f"case-{index:02d}"),
        source=f"golden.jsonl:{index + 1}",
        metrics=fields.pop("metrics", list(METRICS)),
        **fields,
    )


def _outage(index: int, **fields: Any) -> CaseResult:
    return _case(
        index,
        errors={metric: OUTAGE for metric in METRICS},
        judge_errors=list(METRICS),
        **fields,
    )


def _scored(index: int, value: float = 0.9, **fields: Any) -> CaseResult:
    return _case(index, scores={metric: value for metric in METRICS}, **fields)


def _outputs(
    verdict: GateVerdict, results: list[CaseResult], facts: RunFacts, config: GateConfig
) -> dict[str, Any]:
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
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "report.json"
        write_report(path, report)
        comment = comment_body(load_report(path))
        junit = Path(folder) / "junit.xml"
        write_junit(junit, results=results, verdict=verdict, judge=JUDGE, failure_lines={})
        root = ET.parse(junit).getroot()
    return {
        "report": report,
        "comment": comment,
        "junit": root,
        "markdown": render_markdown(verdict, results=results, judge=JUDGE, usage=Usage()),
        "terminal": "\n".join(
            summary_lines(verdict, judge=JUDGE, usage_by_metric={}, results=results)
        ),
    }


def _row_status(text: str, metric: str) -> str:
    """The verdict cell (last column) of the metric's row in a Markdown table."""
    row = next(line for line in text.splitlines() if line.startswith(f"| `{metric}` |"))
    return row.rstrip(" |").rsplit("|", 1)[1].strip()


def _terminal_status(text: str, metric: str) -> str:
    row = next(line for line in text.splitlines() if line.startswith(f"{metric} "))
    return row.split()[-1]


# --- the displayed value -------------------------------------------------------------------


def test_a_value_a_hair_below_its_threshold_never_prints_as_meeting_it() -> None:
    assert shown_value(0.7472, 0.75, "min") == ("0.747", "0.75")
    assert shown_value(0.74996, 0.75, "min") == ("0.74996", "0.75")
    assert shown_value(0.0201, 0.02, "max") == ("0.0201", "0.02")
    assert shown_value(0.75, 0.75, "min") == ("0.75", "0.75")
    assert shown_value(0.86, 0.85, "min") == ("0.86", "0.85")


def test_answer_relevancy_of_0_7472_reads_below_its_threshold_in_every_report() -> None:
    results = [
        _case(
            i,
            scores={
                "faithfulness": 0.9,
                "answer_relevancy": 0.7472,
                "context_recall": 0.9,
                "context_relevance": 0.9,
            },
        )
        for i in range(6)
    ]
    config = _config()
    verdict = evaluate_gate(results, METRICS, config)
    outcome = verdict.outcome("answer_relevancy")
    assert outcome is not None and outcome.status == "failed"
    assert outcome.comparison == "0.747 < 0.75"
    out = _outputs(verdict, results, RunFacts(), config)
    assert "| `answer_relevancy` | 0.747 |" in out["markdown"]
    assert "| `answer_relevancy` | 0.747 |" in out["comment"]
    assert "0.75 | ≥ 0.75 | ❌ fail" not in out["comment"]
    assert out["report"]["metrics"]["answer_relevancy"]["outcome"]["value_text"] == "0.747"


# --- a judge outage ----------------------------------------------------------------------


def test_an_outage_with_a_max_steps_failure_never_reads_as_a_quality_collapse() -> None:
    results = [_outage(i) for i in range(5)]
    results.append(
        _case(
            5,
            id="refund-order-7",
            metrics=[*METRICS, "max_steps"],
            scores={"max_steps": 0.0},
            errors={metric: OUTAGE for metric in METRICS},
            judge_errors=list(METRICS),
            thresholds={"max_steps": 1.0},
        )
    )
    config = _config()
    verdict = evaluate_gate(results, [*METRICS, "max_steps"], config)
    assert verdict.status == "failed"
    statuses = {outcome.metric: outcome.status for outcome in verdict.outcomes}
    assert statuses == {
        "faithfulness": "not_judged",
        "answer_relevancy": "not_judged",
        "context_recall": "not_judged",
        "context_relevance": "report_only",
        "max_steps": "failed",
    }
    steps = verdict.outcome("max_steps")
    assert steps is not None and steps.gated and steps.failures == ["blocking_check"]
    for metric in GATED:
        outcome = verdict.outcome(metric)
        assert outcome is not None
        # An outage gets "retry / check the judge", never a quality hint.
        assert outcome.remedy is not None and "judge" in outcome.remedy
        assert "retriev" not in outcome.remedy and "fields" not in outcome.remedy
    out = _outputs(verdict, results, RunFacts(), _config())
    for metric in GATED:
        assert _row_status(out["markdown"], metric) == "⚪ not judged"
        assert _row_status(out["comment"], metric) == "⚪ not judged"
        assert _terminal_status(out["terminal"], metric) == "NOT-JUDGED"
    # max_steps blocked the run: gated, in the gated table of the comment.
    assert _row_status(out["comment"], "max_steps") == "❌ fail"
    gated_table = out["comment"].split("reported, not gated")[0]
    assert "| `max_steps` |" in gated_table


def test_an_error_run_is_never_newly_failing_since_the_baseline() -> None:
    config = _config()
    baseline_results = [_scored(i, 0.95) for i in range(6)]
    results = [_outage(i) for i in range(6)]
    facts = RunFacts(
        baseline=compare_to_baseline(baseline_results, results, METRICS, config, path="base.json")
    )
    verdict = evaluate_gate(results, METRICS, config, facts)
    assert verdict.status == "error"
    assert verdict.newly_failing == []
    assert all(not outcome.newly_failing for outcome in verdict.outcomes)
    out = _outputs(verdict, results, facts, config)
    for name in ("markdown", "comment", "terminal"):
        assert "newly failing" not in out[name], name
    # The remedy is the outage's, never a quality hint.
    assert "lower judge.concurrency" not in out["markdown"]
    assert "give the cases the fields it needs" not in out["markdown"]


def test_an_error_run_adds_no_point_to_the_quality_trend() -> None:
    from pytest_ragas_gate.reports.history import entry_from_report, trend_line

    config = _config()
    passed = [_scored(i, 0.86) for i in range(4)]
    failing = [_outage(i) for i in range(4)]
    entries = []
    for index, results in enumerate((passed, failing)):
        verdict = evaluate_gate(results, METRICS, config)
        report = _outputs(verdict, results, RunFacts(), config)["report"]
        report["generated_at"] = f"2026-05-0{index + 1}T00:00:00+00:00"
        entries.append(entry_from_report(report))
    assert entries[1].metrics["faithfulness"].mean is None
    line = trend_line("faithfulness", [entries[0], entries[0], entries[1]])
    assert line is not None and "this run not judged" in line


# --- case-level failing is one field -------------------------------------------------------


def test_a_passed_run_has_no_failing_cases_only_cases_below_a_threshold() -> None:
    results = [_scored(i, 0.95) for i in range(9)]
    results.append(_scored(9, 0.5))
    config = _config()
    verdict = evaluate_gate(results, METRICS, config)
    assert verdict.status == "passed"
    assert verdict.failing_cases == []
    assert [case.id for case in verdict.below_report_only] == ["case-09"]
    out = _outputs(verdict, results, RunFacts(), config)
    for name in ("markdown", "comment"):
        assert "Failing cases" not in out[name], name
        assert "below a threshold (report only)" in out[name], name
    assert "Fix the generator first" not in out["markdown"]


# --- the property: every renderer agrees with the outcome --------------------------------

SCORES = st.sampled_from([0.5, 0.7, 0.7472, 0.7499, 0.75, 0.79999, 0.8, 0.9, 1.0])


@st.composite
def runs(draw: st.DrawFn) -> tuple[list[CaseResult], GateConfig, RunFacts]:
    count = draw(st.integers(min_value=1, max_value=8))
    outage = draw(st.sampled_from(["none", "whole", "partial"]))
    results: list[CaseResult] = []
    for index in range(count):
        down = outage == "whole" or (outage == "partial" and draw(st.booleans()))
        if down:
            results.append(_outage(index))
        else:
            results.append(_case(index, scores={metric: draw(SCORES) for metric in METRICS}))
    gated = draw(st.booleans())
    config = _config(
        thresholds=(
            {"faithfulness": 0.8, "answer_relevancy": 0.75, "context_recall": 0.7} if gated else {}
        ),
        max_error_rate=draw(st.sampled_from([0.0, 0.5, 1.0])),
    )
    facts = RunFacts()
    if draw(st.booleans()):
        base = [_case(i, scores={metric: draw(SCORES) for metric in METRICS}) for i in range(count)]
        comparison = compare_to_baseline(base, results, METRICS, config, path="base.json")
        if draw(st.booleans()):
            comparison = comparison.model_copy(
                update={
                    "warnings": [
                        "baseline scored by the offline judge, this run by openai: "
                        "deltas mix judge changes with system changes"
                    ]
                }
            )
        facts = RunFacts(baseline=comparison)
    return results, config, facts


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(run=runs())
def test_every_report_prints_the_status_the_gate_gave_each_metric(
    run: tuple[list[CaseResult], GateConfig, RunFacts],
) -> None:
    results, config, facts = run
    verdict = evaluate_gate(results, METRICS, config, facts)
    out = _outputs(verdict, results, facts, config)
    headline = f"RAG gate: {verdict.status.upper()}"
    assert out["markdown"].splitlines()[0].endswith(headline)
    assert headline in out["comment"]
    assert out["report"]["verdict"] == verdict.status
    suites = {suite.get("name"): suite for suite in out["junit"]}
    gate_cases = {case.get("name"): case for case in suites["rag-gate"]}
    for outcome in verdict.outcomes:
        metric = outcome.metric
        saved = out["report"]["metrics"][metric]["outcome"]
        assert saved["status"] == outcome.status
        assert saved["newly_failing"] == outcome.newly_failing
        assert _row_status(out["markdown"], metric).startswith(STATUS_MARKS[outcome.status])
        assert _row_status(out["comment"], metric).startswith(STATUS_MARKS[outcome.status])
        word = _terminal_status(out["terminal"], metric)
        assert word == JUNIT_WORDS.get(outcome.status, word)
        if outcome.status == "report_only":
            assert word == "report"
        case = gate_cases[metric]
        properties = {p.get("name"): p.get("value") for p in case.iter("property")}
        assert properties["status"] == outcome.status
        if outcome.status == "not_judged":
            assert case.find("error") is not None and case.find("failure") is None
        elif outcome.status == "failed" and "below_threshold" in outcome.failures:
            assert case.find("failure") is not None
        elif outcome.status in ("passed", "report_only"):
            assert case.find("failure") is None and case.find("error") is None
        # A failing value never prints as meeting its threshold.
        if outcome.relation in ("<", ">"):
            shown, limit = float(outcome.value_text), float(outcome.threshold_text)
            assert shown < limit if outcome.relation == "<" else shown > limit
        if outcome.status == "not_judged":
            assert not outcome.newly_failing
    newly = set(verdict.newly_failing)
    mentioned = set(re.findall(r"newly failing since the baseline: (.*)", out["terminal"]))
    assert {name for line in mentioned for name in line.split(", ")} == newly
    if verdict.status == "error":
        assert not newly
    failing = {case.id for case in verdict.failing_cases}
    if verdict.status == "passed":
        assert not failing
        assert "Failing cases" not in out["markdown"]
    # Cases that errored on a gated metric are grouped by cause, apart from those below one.
    found = re.search(r"### Failing cases \((\d+)\)", out["markdown"])
    errored = re.search(r"### Errored cases \((\d+)\)", out["markdown"])
    listed = (int(found.group(1)) if found else 0) + (int(errored.group(1)) if errored else 0)
    assert listed == len(failing)


# --- the HTML page ---------------------------------------------------------------------------


def _page(
    verdict: GateVerdict,
    results: list[CaseResult],
    facts: RunFacts,
    config: GateConfig,
    **keywords: Any,
) -> str:
    from pytest_ragas_gate.reports.html import render_html

    report = _outputs(verdict, results, facts, config)["report"]
    return render_html(report, results, **keywords)


def _cards(page: str) -> dict[str, tuple[str, str]]:
    """Per metric card: its class and its badge."""
    return {
        metric: (tone, badge)
        for tone, metric, badge in re.findall(
            r'<article class="card card-(\w+)" data-metric="(\w+)"'
            r'.*?<span class="badge">([^<]+)</span>',
            page,
            re.S,
        )
    }


def test_the_page_of_an_outage_with_a_real_failure_marks_unscored_metrics_not_judged() -> None:
    results = [_outage(i) for i in range(4)]
    results.append(
        _case(
            4,
            id="refund-order-7",
            metrics=[*METRICS, "max_steps"],
            scores={"max_steps": 0.0},
            errors={m: OUTAGE for m in METRICS},
            judge_errors=list(METRICS),
            thresholds={"max_steps": 1.0},
        )
    )
    config = _config()
    verdict = evaluate_gate(results, [*METRICS, "max_steps"], config)
    page = _page(verdict, results, RunFacts(), config)
    cards = _cards(page)
    for metric in GATED:
        assert cards[metric] == ("undecided", "not judged"), metric
    assert cards["max_steps"] == ("fail", "FAIL")
    assert cards["context_relevance"][0] == "report"
    assert '<section class="outage"' in page
    assert "Not judged: faithfulness, answer_relevancy, context_recall" in page


def test_the_page_shows_the_mixed_judge_warning_and_no_newly_failing_in_an_error_run() -> None:
    config = _config()
    baseline_results = [_scored(i, 0.95) for i in range(6)]
    results = [_outage(i) for i in range(6)]
    warning = "baseline scored by the offline judge, this run by openai: deltas mix judge changes"
    comparison = compare_to_baseline(baseline_results, results, METRICS, config, path="base.json")
    facts = RunFacts(baseline=comparison.model_copy(update={"warnings": [warning]}))
    verdict = evaluate_gate(results, METRICS, config, facts)
    page = _page(verdict, results, facts, config, baseline=baseline_results)
    assert '<section class="mixed-judge warning">' in page and warning in page
    assert "newly failing" not in page.lower().replace("newly_failing", "")
    assert "NO LONGER CLAIMED" not in page


def test_an_outage_files_each_errored_case_under_a_gated_metric() -> None:
    # answer_correctness sorts first but is only reported: the case is a gated metric's error.
    metrics = ["answer_correctness", *GATED]
    results = [
        _case(i, metrics=metrics, errors={m: OUTAGE for m in metrics}, judge_errors=metrics)
        for i in range(4)
    ]
    config = _config()
    verdict = evaluate_gate(results, metrics, config)
    assert verdict.status == "error"
    assert {case.error_metric for case in verdict.cases} == {"answer_relevancy"}
    markdown = render_markdown(verdict, results=results, judge=JUDGE, usage=Usage())
    assert "of metrics reported, not gated" not in markdown


def test_a_threshold_prints_with_the_digits_it_was_given_in_the_table_and_header() -> None:
    results = [_scored(i, 0.75) for i in range(6)]
    config = _config(thresholds={"faithfulness": 0.7501})
    verdict = evaluate_gate(results, METRICS, config)
    outcome = verdict.outcome("faithfulness")
    assert outcome.status == "failed" and outcome.threshold_text == "0.7501"
    terminal = _outputs(verdict, results, RunFacts(), config)["terminal"]
    row = next(line for line in terminal.splitlines() if line.startswith("faithfulness "))
    assert row.split()[1:2] == ["0.750"] and "0.7501" in row.split()
    assert " 0.75 " not in row
    assert config.bounds()["faithfulness"].written("faithfulness") == "faithfulness>=0.7501"


def test_a_metric_not_judged_keeps_its_threshold_in_every_report() -> None:
    results = [_outage(i) for i in range(4)]
    config = _config()
    verdict = evaluate_gate(results, METRICS, config)
    outcome = verdict.outcome("faithfulness")
    assert outcome.status == "not_judged" and outcome.threshold_text == "0.80"
    out = _outputs(verdict, results, RunFacts(), config)
    assert out["report"]["metrics"]["faithfulness"]["outcome"]["threshold_text"] == "0.80"
    assert "≥ —" not in out["comment"]
    row = next(
        line for line in out["markdown"].splitlines() if line.startswith("| `faithfulness` |")
    )
    assert "0.80" in row


def test_a_case_the_judge_failed_on_with_the_same_answer_is_not_changed_since_the_baseline() -> (
    None
):
    from pytest_ragas_gate.reports.html import _baseline_changes

    base = [_scored(i, answer="same") for i in range(3)]
    new = [_outage(0, answer="same"), _outage(1, answer="other"), _scored(2, 0.5, answer="same")]
    changes = _baseline_changes(new, base)
    assert sorted(changes) == sorted([new[1].key, new[2].key])
    assert changes[new[1].key] == {"answer": "same"}


def test_the_page_of_an_error_run_with_scored_cases_decides_no_card() -> None:
    # Two cases scored, four lost to the judge: ERROR, yet something was judged.
    results = [_scored(0), _scored(1), *(_outage(i) for i in range(2, 6))]
    config = _config(max_error_rate=0.0)
    verdict = evaluate_gate(results, METRICS, config)
    assert verdict.status == "error"
    page = _page(verdict, results, RunFacts(), config)
    badges = [badge for _, badge in _cards(page).values()]
    assert "PASS" not in badges and "FAIL" not in badges
    assert " passing</span>" not in page
    assert "Nothing was judged" not in page
    assert "Part of the run was not judged" in page
    nothing = [_outage(i) for i in range(4)]
    assert "Nothing was judged" in _page(
        evaluate_gate(nothing, METRICS, config), nothing, RunFacts(), config
    )


def test_a_metric_paired_on_no_case_is_not_ok_and_a_passed_page_says_report_only() -> None:
    config = _config(max_error_rate=1.0)
    # context_relevance is only reported and scored in neither run's paired cases.
    base = [
        _case(i, scores={m: 0.9 for m in METRICS if m != "context_relevance"}) for i in range(6)
    ]
    results = [_scored(i, 0.9) for i in range(5)] + [_scored(5, 0.5)]
    comparison = compare_to_baseline(base, results, METRICS, config, path="base.json")
    assert comparison.metrics["context_relevance"].n_paired == 0
    facts = RunFacts(baseline=comparison)
    verdict = evaluate_gate(results, METRICS, config, facts)
    assert verdict.status == "passed"
    markdown = render_markdown(verdict, results=results, judge=JUDGE, usage=Usage())
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in markdown.splitlines()
        if line.startswith("| `context_relevance` |")
    ]
    row = next(cells for cells in rows if len(cells) == 7 and cells[5] == "0")
    assert row[6] == "—"
    assert "✅ ok" not in row
    page = _page(verdict, results, facts, config)
    assert "below a threshold (report only)</span>" in page
    assert "below a metric threshold</span>" not in page
