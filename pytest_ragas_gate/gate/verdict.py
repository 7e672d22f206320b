"""The gate: the overall verdict, reached from a list of checks.

The verdict is decided here and nowhere else, by :func:`evaluate_gate`: a pure function
of (case results, metrics, config, run facts). The run facts are what the run knew beyond
its case results — unreadable golden files, how many golden cases were collected and why
fewer were gated, other tests that failed, the baseline comparison — and the JSON report
saves them all, so the plugin, ``rag-gate gate`` and ``render`` reach the
very same verdict from the same inputs.

Each thing the gate decides is a :class:`~.checks.GateCheck`, built by a small function
(:mod:`.run_checks`, :mod:`.coverage`, :mod:`.judge_noise`, :mod:`.unevaluated`); the
status and the recommendation are read off the list, and every report renders it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..live.latency import LatencyVerdict, evaluate_latency
from ..live.oracle_gap_figures import ORACLE_PREFIX, OracleGap
from ..model_defaults import empty_list
from ..scoring.results import CaseResult, canonical_order, conversation_groups
from ..settings.config import GateConfig
from ..trust.figures import MetricAgreement
from .aggregates import (
    MetricAggregate,
    TagVerdict,
    aggregate_metric,
    measure_agreements,
    rests_on_little,
    tag_verdict,
)
from .auto_repeats import auto_summary
from .baseline_figures import BaselineComparison
from .case_verdicts import CaseVerdict, case_verdicts
from .checks import GateCheck, failed_checks, hints_of, recommendation_causes
from .coverage import coverage_check
from .deploy_decision import (
    SAFE_TO_DEPLOY,
    judged_by_heuristic,
    passed_recommendation,
    unchecked_recommendation,
    unrecorded_judges,
)
from .diagnosis import DiagnosisSummary, diagnose, summarise_diagnoses
from .ignored_top import IgnoredTopRanked, ignored_top_ranked
from .judge_noise import judge_noise_check
from .judge_outage import JUDGE_UNAVAILABLE, judge_undecided, outage_cause, outage_remedy
from .metric_outcome import MetricOutcome, metric_outcome
from .pairwise_summary import PairwiseSummary
from .run_checks import (
    agreement_checks,
    alignment_check,
    baseline_checks,
    case_thresholds_check,
    error_rate_check,
    incomplete_check,
    latency_checks,
    metric_check,
    other_tests_check,
    tag_check,
    ungated_check,
    unreadable_files_check,
)
from .run_facts import (
    RunFacts,
    fold_golden_files,
    gate_scope,
    look_alike_hint,
    named,
    nothing_gated,
)
from .unevaluated import not_evaluated_checks

__all__ = [
    "CaseVerdict",
    "GateCheck",
    "GateStatus",
    "GateVerdict",
    "MetricAggregate",
    "MetricOutcome",
    "RunFacts",
    "TagVerdict",
    "aggregate_metric",
    "canonical_order",
    "evaluate_gate",
    "fold_golden_files",
]

#: The verdict's one word, as every report and the Action's ``verdict`` output carry it.
GateStatus = Literal["passed", "failed", "partial", "ungated", "error"]

#: Failing checks of the run itself rather than of a metric, by name in ``run_checks``.
_RUN_LEVEL = frozenset(
    {
        "unreadable_files",
        "incomplete",
        "case_thresholds",
        "agreement",
        "judge_noise",
        "other_tests",
        "pairwise",
    }
)


class GateVerdict(BaseModel):
    """The gate's decision and everything the reports show about it.

    ``status`` is the one word every report and the Action's ``verdict`` output carry:
    ``failed`` when anything fails, ``error`` when the only causes are errors of a judge
    that did not answer (no deploy decision: retry), ``ungated`` when nothing fails but
    nothing was gated either (no threshold in force: a report, not a deploy decision),
    ``partial`` when nothing fails but fewer golden cases were gated than were collected,
    or a check asked for evaluated nothing (``not_evaluated``: a baseline that paired no
    case, retrieval under oracle-only mode), which is not a deploy decision; else ``passed``.
    ``checks`` is everything the gate decided, one :class:`GateCheck` each, in the order
    JUnit lists them; the failure lines, hints and not-evaluated reasons are read off it.
    """

    model_config = ConfigDict(extra="forbid")

    passed: bool
    status: GateStatus
    partial: bool
    coverage: str
    collected_cases: int | None
    metrics: dict[str, MetricAggregate]
    tags: list[TagVerdict]
    total_cases: int
    errored_cases: int
    error_rate: float
    max_error_rate: float
    error_rate_passed: bool
    error_rate_message: str
    confidence: float
    recommendation: str
    checks: list[GateCheck]
    latency: LatencyVerdict | None = None
    alignment: IgnoredTopRanked | None = None
    below_own_thresholds: list[str] = Field(default_factory=empty_list)
    unreadable_files: list[str] = Field(default_factory=empty_list)
    other_failures: list[str] = Field(default_factory=empty_list)
    # Files that read as golden sets but match no golden.files glob, named in one line.
    look_alike_hint: str | None = None
    baseline: BaselineComparison | None = None
    # With pairwise judging: the new answers against the baseline's (win, loss, tie rates).
    pairwise: PairwiseSummary | None = None
    diagnosis: DiagnosisSummary | None = None
    agreement: dict[str, MetricAgreement] = Field(default_factory=dict)
    oracle_gaps: list[OracleGap] = Field(default_factory=empty_list)
    # Under ``repeats: auto``: which cases were judged again and what that cost.
    auto_repeats: str | None = None
    # With conversation cases: how many, over how many turns, and which turns broke.
    conversations: str | None = None
    # Each case's verdict, in canonical order: what every report lists as failing.
    cases: list[CaseVerdict] = Field(default_factory=empty_list)
    # Cases not errored on which a gated metric was scored (every case not errored when
    # nothing is gated); None in verdicts of reports written before it was counted.
    scored_cases: int | None = None
    # Keys of golden rows one edit from a field those rows lack, said beside the verdict.
    misspelt_keys: list[str] = Field(default_factory=empty_list)
    # Whether the run is a deploy decision: it passed, and an LLM judge scored every gated
    # metric that asks a judge. False for the offline heuristic and for any other verdict.
    deploy_decision: bool = False
    # What each metric's figures mean, in display order: what every report prints.
    outcomes: list[MetricOutcome] = Field(default_factory=empty_list)

    def outcome(self, metric: str) -> MetricOutcome:
        """The outcome of ``metric``, one of the metrics that ran."""
        return next(found for found in self.outcomes if found.metric == metric)

    @property
    def headline(self) -> str:
        """``RAG gate: PASSED`` / ``FAILED`` / ``ERROR`` / ``PARTIAL`` / ``UNGATED``."""
        return f"RAG gate: {self.status.upper()}"

    @property
    def failed_checks(self) -> list[GateCheck]:
        """The failing checks, in the order the reports list their failure lines."""
        return failed_checks(self.checks)

    @property
    def failures(self) -> list[str]:
        """One failure line per failing check."""
        return [check.message for check in self.failed_checks]

    @property
    def failing_metrics(self) -> list[str]:
        """The metrics whose aggregate fails its threshold, in display order."""
        return [metric for metric, agg in self.metrics.items() if agg.passed is False]

    @property
    def newly_failing(self) -> list[str]:
        """The gated metrics judged in both runs that passed in the baseline and fail now."""
        return [outcome.metric for outcome in self.outcomes if outcome.newly_failing]

    @property
    def failing_cases(self) -> list[CaseVerdict]:
        """The cases the reports list as failing, in canonical order.

        A case is failing when it errored, misses a threshold of its own, or is below the
        threshold of a metric that failed; below the threshold of a metric that passed
        it is listed apart (:attr:`below_report_only`), never as failing.
        """
        failed = {outcome.metric for outcome in self.outcomes if outcome.status == "failed"}
        if not self.outcomes:
            return [case for case in self.cases if case.failing]
        return [
            case
            for case in self.cases
            if case.status in ("errored", "failed")
            or any(miss.metric in failed for miss in case.misses)
        ]

    @property
    def below_report_only(self) -> list[CaseVerdict]:
        """Cases below a gate threshold of a metric that did not fail: reported only."""
        listed = {case.key for case in self.failing_cases}
        return [case for case in self.cases if case.failing and case.key not in listed]

    @property
    def hints(self) -> dict[str, str]:
        """Per failing metric (or ``latency``), how to fix it."""
        return hints_of(self.checks)

    @property
    def run_checks(self) -> dict[str, str]:
        """The failing checks of the run itself (not of a metric), with their lines."""
        return {
            check.name: check.message for check in self.failed_checks if check.kind in _RUN_LEVEL
        }

    @property
    def not_evaluated_checks(self) -> list[GateCheck]:
        """Checks the run asked for that checked nothing; each keeps the run from PASSED."""
        return [check for check in self.checks if check.kind == "not_evaluated"]

    @property
    def not_evaluated(self) -> list[str]:
        """Why each check in :attr:`not_evaluated_checks` checked nothing."""
        return [check.message for check in self.not_evaluated_checks]

    @property
    def partial_coverage(self) -> bool:
        """Whether fewer golden cases were gated than collected (one cause of ``partial``)."""
        return any(check.kind == "coverage" and check.passed is None for check in self.checks)


def _pairwise_summary(ordered: Sequence[CaseResult], config: GateConfig) -> PairwiseSummary | None:
    """The head-to-head figures, None when no case was compared with the baseline."""
    if all(result.pairwise is None for result in ordered):
        return None
    # Loaded only for a run that compared answers (``pairwise: true`` with a baseline).
    from .pairwise import summarise_pairwise

    return summarise_pairwise(ordered, config)


def _pairwise_check(summary: PairwiseSummary | None) -> GateCheck | None:
    if summary is None:
        return None
    from .pairwise import pairwise_check

    return pairwise_check(summary)


def _oracle_gaps(ordered: Sequence[CaseResult], metrics: Sequence[str]) -> list[OracleGap]:
    """What retrieval costs, measured only when oracle metrics ran (``live.oracle: both``)."""
    if not any(metric.startswith(ORACLE_PREFIX) for metric in metrics):
        return []
    from ..live.oracle_gaps import paired_oracle_gaps

    return paired_oracle_gaps(ordered, metrics)


def evaluate_gate(
    results: Sequence[CaseResult],
    metrics: Sequence[str],
    config: GateConfig,
    facts: RunFacts | None = None,
) -> GateVerdict:
    """Decide the gate: the one place the verdict is reached.

    Only ``metrics`` (the metrics that ran) are aggregated; a threshold for a metric that
    did not run is ignored, while an explicit per-tag minimum always applies and fails
    when no tagged case was scored. Beyond the aggregates, the gate fails for cases below
    their own thresholds, errored cases over ``max_error_rate``, unreadable golden files,
    other tests that failed in the run and baseline regressions; a run that gated fewer
    golden cases than it collected is ``partial`` at best, never "Safe to deploy".

    Args:
        results: Every case result of the run, in any order, each case once.
        metrics: The metrics that ran, in display order.
        config: The gate settings.
        facts: What the run knew beyond its results (default: nothing).

    Returns:
        The verdict, with one check per decision and the deploy recommendation.
    """
    facts = facts or RunFacts()
    ordered = canonical_order(results)
    aggregates = {metric: aggregate_metric(ordered, metric, config) for metric in metrics}
    if facts.baseline is not None:
        # The comparison's code loads only for a run given a baseline.
        from .baseline import against_baseline

        aggregates = {
            metric: against_baseline(aggregate, facts.baseline, min_cases=config.min_cases)
            for metric, aggregate in aggregates.items()
        }
    tags = [
        tag_verdict(ordered, tag, metric, threshold, config)
        for tag, thresholds in config.tag_thresholds.items()
        for metric, threshold in thresholds.items()
    ]
    latency = evaluate_latency(ordered, config.latency)
    bounds = config.bounds()
    baseline = facts.baseline
    cases = (
        case_verdicts(ordered, bounds)
        if baseline is None
        else case_verdicts(
            ordered,
            bounds,
            baseline.case_misses,
            baseline.new_cases,
            baseline.not_compared_metrics,
        )
    )
    below_own = [case.id for case in cases if case.own_misses]
    coverage, partial_reasons = gate_scope(len(ordered), facts)
    agreement = measure_agreements(ordered, metrics, config)
    top = aggregates.get("top_doc_usage")
    alignment = None if top is None else ignored_top_ranked(top.mean, top.n)

    errored = sum(1 for result in ordered if result.errored)
    pairwise = _pairwise_summary(ordered, config)
    error_rate = error_rate_check(ordered, config, nothing_gated(facts))
    checks = [
        *(metric_check(aggregate, config) for aggregate in aggregates.values()),
        error_rate,
        coverage_check(
            coverage,
            partial=bool(partial_reasons),
            gated=len(ordered),
            collected=facts.collected_cases,
        ),
    ]
    repeated = any(aggregate.judge_noise for aggregate in aggregates.values())
    not_evaluated = not_evaluated_checks(config, facts.baseline, repeated=repeated)
    head_to_head = _pairwise_check(pairwise)
    if head_to_head is not None and head_to_head.kind == "not_evaluated":
        not_evaluated = [*not_evaluated, head_to_head]
        head_to_head = None
    run_level = [
        unreadable_files_check(facts.unreadable_files),
        incomplete_check(ordered),
        case_thresholds_check(below_own),
        *baseline_checks(facts.baseline),
        head_to_head,
        other_tests_check(facts.other_failures),
        *latency_checks(latency),
        alignment_check(alignment),
        *(tag_check(tag, ordered) for tag in tags),
        *agreement_checks(agreement),
        *(
            judge_noise_check(
                metric,
                aggregate.judge_noise,
                config.min_judge_agreement,
                gated=aggregate.threshold is not None,
            )
            for metric, aggregate in aggregates.items()
        ),
    ]
    # A run with no threshold in force anywhere checked nothing it could pass.
    gated = (
        any(aggregate.threshold is not None for aggregate in aggregates.values())
        or bool(tags or latency or facts.baseline)
        or (pairwise is not None and pairwise.max_loss_rate is not None)
        or any(figures.passed is False for figures in agreement.values())
        or any(result.thresholds for result in ordered)
    )
    decided = [*checks, *not_evaluated, *(check for check in run_level if check is not None)]
    diagnosis = summarise_diagnoses(diagnose(result, bounds) for result in ordered)
    status, recommendation = _status(
        decided,
        ordered,
        list(aggregates),
        coverage,
        partial_reasons,
        diagnosis,
        gated=gated,
        cached=config.cache != "off",
    )
    deploy_decision = False
    if status == "passed":
        recommendation, deploy_decision = _passed(
            ordered,
            aggregates,
            tags,
            facts.scored_by,
            compared=facts.baseline is not None or pairwise is not None,
        )
    thin = [
        *((agg.metric, agg.message) for agg in aggregates.values() if rests_on_little(agg, config)),
        *((f"tag {tag.tag!r} {tag.metric}", tag.message) for tag in tags if tag.thin_evidence),
        *(
            [("pairwise_loss_rate", head_to_head.message)]
            if pairwise is not None and pairwise.thin_evidence and head_to_head is not None
            else []
        ),
    ]
    if recommendation == "Safe to deploy" and thin:
        # Only a deploy decision is qualified: a smoke check or a partial run says its own.
        recommendation = _thin_evidence(thin)
    # A pass on thin evidence says how unsure it is; it is no more a deploy decision than
    # a smoke check: only "Safe to deploy" is one.
    deploy_decision = deploy_decision and recommendation == SAFE_TO_DEPLOY
    if status == "ungated":
        decided.insert(len(checks), ungated_check(recommendation))
    own_missed: dict[str, int] = {}
    for case in cases:
        for miss in case.misses:
            if miss.own:
                own_missed[miss.metric] = own_missed.get(miss.metric, 0) + 1
    remedy = outage_remedy(outage_cause(ordered), cached=config.cache != "off")
    by_conversation = any(result.conversation is not None for result in ordered)
    outcomes = [
        metric_outcome(
            aggregate,
            decided,
            own_missed=own_missed,
            baseline=facts.baseline,
            run_error=status == "error",
            outage_remedy=remedy if any(r.errored for r in ordered) else None,
            conversations=by_conversation,
        )
        for aggregate in aggregates.values()
    ]
    decided = [_with_outcome(check, outcomes) for check in decided]
    return GateVerdict(
        passed=not failed_checks(decided),
        status=status,
        partial=bool(partial_reasons or not_evaluated),
        coverage=coverage,
        collected_cases=facts.collected_cases,
        look_alike_hint=look_alike_hint(facts),
        metrics=aggregates,
        tags=tags,
        total_cases=len(ordered),
        errored_cases=errored,
        error_rate=errored / len(ordered) if ordered else 0.0,
        max_error_rate=config.max_error_rate,
        error_rate_passed=error_rate.passed is True,
        error_rate_message=error_rate.message,
        confidence=config.confidence,
        recommendation=recommendation,
        checks=decided,
        latency=latency,
        alignment=alignment,
        below_own_thresholds=below_own,
        unreadable_files=list(facts.unreadable_files),
        other_failures=list(facts.other_failures),
        baseline=facts.baseline,
        pairwise=pairwise,
        diagnosis=diagnosis if diagnosis.diagnosed else None,
        agreement=agreement,
        oracle_gaps=_oracle_gaps(ordered, metrics),
        auto_repeats=auto_summary(ordered),
        conversations=_conversations_line(ordered, below_own),
        cases=cases,
        scored_cases=_scored_cases(ordered, aggregates),
        misspelt_keys=_misspelt_key_lines(ordered),
        deploy_decision=deploy_decision,
        outcomes=outcomes,
    )


def _passed(
    ordered: Sequence[CaseResult],
    aggregates: dict[str, MetricAggregate],
    tags: Sequence[TagVerdict],
    scored_by: dict[str, str | None],
    *,
    compared: bool,
) -> tuple[str, bool]:
    """A passing run's recommendation, and whether it is a deploy decision.

    The gated metrics are those with a threshold, a tag threshold or a case's own; with a
    baseline or a pairwise comparison, every metric, since the judge's scores (or its
    head-to-head judgement) decide those checks too.
    """
    gated = list(
        dict.fromkeys(
            [
                *(
                    metric
                    for metric, aggregate in aggregates.items()
                    if aggregate.threshold is not None or compared
                ),
                *(tag.metric for tag in tags),
                *(metric for result in ordered for metric in result.thresholds),
            ]
        )
    )
    heuristic = judged_by_heuristic(gated, scored_by)
    unrecorded = unrecorded_judges(gated, scored_by)
    judged = [metric for metric in gated if scored_by.get(metric) is not None]
    errored = sum(
        1
        for result in ordered
        if result.error is not None or any(metric in result.errors for metric in gated)
    )
    recommendation = passed_recommendation(heuristic, judged, unrecorded, errored=errored)
    unchecked = [f"{result.id}: {line}" for result in ordered for line in result.unchecked]
    if unchecked and recommendation == SAFE_TO_DEPLOY:
        recommendation = unchecked_recommendation(unchecked)
    decided = not heuristic and not unrecorded and not errored and not unchecked
    return recommendation, decided


def _with_outcome(check: GateCheck, outcomes: Sequence[MetricOutcome]) -> GateCheck:
    """A metric's check with its outcome's status and shown figures, as JUnit lists them."""
    if check.kind not in ("metric", "min_cases", "min_coverage"):
        return check
    outcome = next((found for found in outcomes if found.metric == check.name), None)
    if outcome is None:
        return check
    extra = {"status": outcome.status, "shown": outcome.comparison}
    if outcome.reason is not None and outcome.reason != check.message:
        extra["reason"] = outcome.reason
    return check.model_copy(update={"properties": {**check.properties, **extra}})


def _scored_cases(ordered: Sequence[CaseResult], aggregates: dict[str, MetricAggregate]) -> int:
    """Cases not errored on which at least one gated metric was scored."""
    gated = [metric for metric, aggregate in aggregates.items() if aggregate.threshold is not None]
    return sum(
        1
        for result in ordered
        if not result.errored
        and (not gated or any(result.scores.get(metric) is not None for metric in gated))
    )


def _misspelt_key_lines(ordered: Sequence[CaseResult]) -> list[str]:
    """Per golden file and misspelt key, how many rows have it: said beside the verdict."""
    rows: dict[tuple[str, str, str], int] = {}
    for result in ordered:
        for field, key in result.misspelt.items():
            rows[(result.file, key, field)] = rows.get((result.file, key, field), 0) + 1
    return [
        f"{file}: {count} row{'s' if count != 1 else ''} "
        f"{'have' if count != 1 else 'has'} the key {key!r} and no {field!r} — did you mean "
        f"{field!r}?"
        for (file, key, field), count in rows.items()
    ]


def _conversations_line(ordered: Sequence[CaseResult], below_own: Sequence[str]) -> str | None:
    """``conversations: 2 with 6 turns, …``; None when the run has no conversation."""
    groups = [group for group in conversation_groups(ordered) if group[0].conversation]
    if not groups:
        return None
    turns = sum(len(group) for group in groups)
    line = (
        f"conversations: {len(groups)} with {turns} turn{'' if turns == 1 else 's'}, each "
        "conversation counted once "
        "in the metric means"
    )
    broken = [
        result.id
        for group in groups
        for result in group
        if result.errored or result.id in below_own
    ]
    if broken:
        line += f"; turns that broke: {named(broken)}"
    return line


def _thin_evidence(thin: Sequence[tuple[str, str]]) -> str:
    """Passes whose intervals reach past their thresholds, the first of them quoted.

    ``Passed on thin evidence — faithfulness mean 1.00 ≥ 0.85 on 2 cases; the 95% interval
    reaches 0.34``; further such figures (metrics, tags, the pairwise loss rate) are named
    after it.
    """
    others = f" (also {', '.join(name for name, _ in thin[1:])})" if thin[1:] else ""
    return f"Passed on thin evidence — {thin[0][1]}{others}"


def _status(
    checks: Sequence[GateCheck],
    results: Sequence[CaseResult],
    metrics: Sequence[str],
    coverage: str,
    partial_reasons: Sequence[str],
    diagnosis: DiagnosisSummary,
    *,
    gated: bool,
    cached: bool,
) -> tuple[GateStatus, str]:
    """The verdict's word and its recommendation, read off the checks."""
    failing = failed_checks(checks)
    not_evaluated = [check.message for check in checks if check.kind == "not_evaluated"]
    unchecked = "".join(f"; {reason}" for reason in not_evaluated)
    partial_run = f"; partial run: {coverage}" if partial_reasons else ""
    if judge_undecided(checks, results):
        error_rate = next(check for check in checks if check.name == "error_rate")
        return "error", (
            f"{JUDGE_UNAVAILABLE} — {error_rate.message}; "
            + outage_remedy(outage_cause(results), cached=cached)
        )
    if failing:
        diagnosed = f"; {diagnosis.failures}: {diagnosis.advice}" if diagnosis.failures else ""
        return "failed", (
            "Block deployment — "
            + "; ".join(recommendation_causes(checks))
            + diagnosed
            + partial_run
            + unchecked
        )
    if not gated:
        return "ungated", (
            "Report only, not a deploy decision — no gated metric: no threshold is in force "
            f"for the metrics that ran ({', '.join(metrics) or 'none'}); give one a "
            "threshold (thresholds: or --rag-gate-threshold) to gate the run"
            + partial_run
            + unchecked
        )
    if partial_reasons:
        return "partial", (
            f"Partial run, not a deploy decision — {coverage}; gate the whole golden set to "
            "decide" + unchecked
        )
    if not_evaluated:
        return "partial", "Not a deploy decision — " + "; ".join(not_evaluated)
    # Whether the pass is a deploy decision is read after: see :func:`_passed`.
    return "passed", SAFE_TO_DEPLOY
