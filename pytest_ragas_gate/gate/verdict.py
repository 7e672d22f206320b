"""The gate: per-metric aggregates, thresholds and rules, and the overall verdict.

The verdict is decided here and nowhere else, by :func:`evaluate_gate`: a pure function
of (case results, metrics, config, run facts). The run facts are what the run knew beyond
its case results — unreadable golden files, how many golden cases were collected and why
fewer were gated, other tests that failed, the baseline comparison — and the JSON report
saves them all, so the plugin, ``rag-gate regate``, ``merge`` and ``summary`` reach the
very same verdict from the same inputs.

Results are put in a canonical order (by source, then id) before any arithmetic, so a
run split across pytest-xdist workers yields bit-identical aggregates and intervals to a
serial run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..judges.cache_signing import CacheIntegrity
from ..live.latency import LatencyVerdict, evaluate_latency
from ..live.oracle_gaps import OracleGap, paired_oracle_gaps
from ..scoring.gated_metrics import not_applicable_reasons, too_few_cases
from ..scoring.results import (
    CaseResult,
    canonical_order,
    conversation_groups,
    conversation_score,
)
from ..settings.bounds import Bound, Direction, default_direction, own_bound
from ..settings.config import GateConfig, Rule
from ..stats import bootstrap_ci, mean, sample_std
from ..trust.agreement import MetricAgreement, check_floors, measure_agreement, no_labels
from ..trust.ppi import PpiEstimate, ppi_mean
from .auto_repeats import auto_summary
from .baseline import BaselineComparison
from .coverage import CoverageLedger
from .diagnosis import DiagnosisSummary, diagnose, summarise_diagnoses
from .gate_changes import GateChanges
from .hints import hint_for
from .ignored_top import IgnoredTopRanked, ignored_top_ranked
from .judge_noise import JudgeNoise, measure_judge_noise, noise_aware_ci, too_noisy
from .judge_outage import JUDGE_UNAVAILABLE, judge_errored, only_judge_errors
from .unevaluated import checks_not_evaluated

__all__ = [
    "GateStatus",
    "GateVerdict",
    "MetricAggregate",
    "RunFacts",
    "TagVerdict",
    "aggregate_metric",
    "canonical_order",
    "evaluate_gate",
    "fold_golden_files",
]

#: How many case ids or test ids a failure line names before it says "and N more".
_NAMED = 5


#: The verdict's one word, as every report and the Action's ``verdict`` output carry it.
GateStatus = Literal["passed", "failed", "partial", "ungated", "error"]


class MetricAggregate(BaseModel):
    """One metric over all cases, and its verdict.

    ``passed`` is None when the metric has no threshold: it is reported, not gated.
    """

    model_config = ConfigDict(extra="forbid")

    metric: str
    mean: float | None
    n: int
    not_applicable: int
    errors: int
    std: float | None
    ci_low: float | None
    ci_high: float | None
    threshold: float | None
    rule: Rule
    passed: bool | None
    message: str
    direction: Direction = "min"
    # Cases with a human label for this metric, and the prediction-powered estimate of
    # the human-scale mean once there are ppi_min_labels of them.
    labelled: int = 0
    ppi: PpiEstimate | None = None
    # With repeated judgements: how much the judge disagrees with itself on this metric.
    judge_noise: JudgeNoise | None = None


class TagVerdict(BaseModel):
    """One per-tag minimum (``tag_thresholds``) and whether the tagged cases reach it."""

    model_config = ConfigDict(extra="forbid")

    tag: str
    metric: str
    mean: float | None
    n: int
    threshold: float
    passed: bool
    message: str
    direction: Direction = "min"


class RunFacts(BaseModel):
    """What a run knew beyond its case results; saved under ``run`` in the JSON report.

    ``golden_files`` maps each golden file found to the number of cases collected from it
    (malformed cases included), or None when the file was found but not collected (``--lf``
    skips files without a previous failure). ``counted`` is False for reports written
    before these facts were saved: then nothing is known of what was collected.
    """

    model_config = ConfigDict(extra="forbid")

    counted: bool = False
    case_files: list[str] = Field(default_factory=list)
    golden_files: dict[str, int | None] = Field(default_factory=dict)
    unreadable_files: list[str] = Field(default_factory=list)
    selection: list[str] = Field(default_factory=list)
    shard: str | None = None
    other_failures: list[str] = Field(default_factory=list)
    baseline: BaselineComparison | None = None
    # Where every golden case went (gated, or why not); None in reports written before it.
    coverage: CoverageLedger | None = None
    # What the judge cache verified, rejected and signed; None when it neither signs nor
    # verifies (no signing key, no cache_public_key).
    cache_integrity: CacheIntegrity | None = None
    # What the change under test does to the gate's own inputs, against the base branch.
    gate_changes: GateChanges | None = None

    @property
    def collected_cases(self) -> int | None:
        """Golden cases collected, before any selection; None when not counted."""
        if not self.counted:
            return None
        return sum(count for count in self.golden_files.values() if count is not None)

    @property
    def skipped_files(self) -> list[str]:
        """Golden files found but never collected."""
        return [path for path, count in self.golden_files.items() if count is None]


def fold_golden_files(into: dict[str, int | None], other: Mapping[str, int | None]) -> None:
    """Fold another process's golden-file counts into ``into``, in place.

    Every xdist worker and every shard collects the same golden files, so a count (the
    file was read) wins over None (found but not collected), and the larger count wins.
    """
    for path, count in other.items():
        known = into.get(path)
        if known is None or (count is not None and count > known):
            into[path] = count


class GateVerdict(BaseModel):
    """The gate's decision and everything the reports show about it.

    ``status`` is the one word every report and the Action's ``verdict`` output carry:
    ``failed`` when anything fails, ``error`` when the only causes are errors of a judge
    that did not answer (no deploy decision: retry), ``ungated`` when nothing fails but
    nothing was gated either (no threshold in force: a report, not a deploy decision),
    ``partial`` when nothing fails but fewer golden cases were gated than were collected,
    or a check asked for evaluated nothing (``not_evaluated``: a baseline that paired no
    case, retrieval under oracle-only mode), which is not a deploy decision; else ``passed``.
    ``run_checks`` holds the failing run-level checks (``unreadable_files``,
    ``case_thresholds``, ``other_tests``) with their failure lines.
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
    failures: list[str]
    failing_metrics: list[str]
    recommendation: str
    hints: dict[str, str]
    latency: LatencyVerdict | None = None
    alignment: IgnoredTopRanked | None = None
    below_own_thresholds: list[str] = Field(default_factory=list)
    unreadable_files: list[str] = Field(default_factory=list)
    other_failures: list[str] = Field(default_factory=list)
    run_checks: dict[str, str] = Field(default_factory=dict)
    baseline: BaselineComparison | None = None
    diagnosis: DiagnosisSummary | None = None
    agreement: dict[str, MetricAgreement] = Field(default_factory=dict)
    # Checks the run asked for that checked nothing; each keeps the run from PASSED.
    not_evaluated: list[str] = Field(default_factory=list)
    # Whether fewer golden cases were gated than collected (one cause of ``partial``).
    partial_coverage: bool = False
    oracle_gaps: list[OracleGap] = Field(default_factory=list)
    # Under ``repeats: auto``: which cases were judged again and what that cost.
    auto_repeats: str | None = None
    # With conversation cases: how many, over how many turns, and which turns broke.
    conversations: str | None = None

    @property
    def headline(self) -> str:
        """``RAG gate: PASSED`` / ``FAILED`` / ``ERROR`` / ``PARTIAL`` / ``UNGATED``."""
        return f"RAG gate: {self.status.upper()}"


def _errored_for(result: CaseResult, metric: str) -> bool:
    """Whether ``result`` counts as an error of ``metric``."""
    if metric in result.errors:
        return True
    # A whole-case error (malformed case, target exception, budget stop) means nothing was
    # scored, so every metric the case was meant to get counts it.
    return result.error is not None and (not result.metrics or metric in result.metrics)


def _collect(results: Sequence[CaseResult], metric: str) -> tuple[list[float], int, int]:
    """The applicable scores of ``metric``, its not-applicable count and its error count.

    A conversation counts once: its score is its turns' mean (the worst turn for
    ``turn_faithfulness_min``), n/a when no turn was scored, an error when any turn
    errored (fail closed).
    """
    scores: list[float] = []
    not_applicable = 0
    errors = 0
    for group in conversation_groups(results):
        if any(_errored_for(result, metric) for result in group):
            errors += 1
            continue
        judged = [result.scores[metric] for result in group if metric in result.scores]
        numbers = [score for score in judged if score is not None]
        if numbers:
            scores.append(conversation_score(metric, numbers))
        elif judged:
            not_applicable += 1
    return scores, not_applicable, errors


def _fmt_pair(value: float, bound: Bound) -> tuple[str, str]:
    """Both numbers with 2 decimals, or 4 when 2 would print a failing pair as equal."""
    shown, limit = f"{value:.2f}", f"{bound.value:.2f}"
    if shown == limit and not bound.met_by(value):
        shown, limit = f"{value:.4f}", f"{bound.value:.4f}"
    return shown, limit


def _confidence_label(confidence: float) -> str:
    """``0.95`` → ``"95%"``, ``0.975`` → ``"97.5%"``."""
    return f"{round(confidence * 100, 6):g}%"


def _percent(rate: float) -> str:
    """A rate as a short percentage: 0.075 → ``"7.5%"``, 0.0 → ``"0%"``."""
    text = f"{rate * 100:.2f}".rstrip("0").rstrip(".")
    return f"{text}%"


def aggregate_metric(
    results: Sequence[CaseResult], metric: str, config: GateConfig
) -> MetricAggregate:
    """Aggregate ``metric`` over ``results`` and decide it against its threshold and rule.

    Not-applicable cases are counted but excluded from the mean; errored cases are counted
    separately. A gated metric with no scored case fails: an empty aggregate is an error.

    Args:
        results: Every case result of the run, in any order.
        metric: The metric to aggregate.
        config: The gate settings (thresholds, rules, confidence, resamples, seed).

    Returns:
        The aggregate with its verdict line.
    """
    ordered = canonical_order(results)
    scores, not_applicable, errors = _collect(ordered, metric)
    noise = measure_judge_noise(ordered, metric)
    bound = config.bounds().get(metric)
    threshold = None if bound is None else bound.value
    direction = default_direction(metric) if bound is None else bound.direction
    rule = config.rule_for(metric)
    ci = _confidence_label(config.confidence)

    reasons = not_applicable_reasons(results, metric)
    too_few = threshold is not None and len(scores) < config.min_cases
    if not scores:
        message = (
            f"{metric} has no scored cases (n=0, {not_applicable} not applicable"
            f"{f': {reasons}' if reasons else ''}, "
            f"{errors} error{'s' if errors != 1 else ''}); "
            + ("an empty aggregate fails the gate" if threshold is not None else "not gated")
        )
        if threshold is not None and reasons:
            message += ": give the cases the fields it needs, or set its threshold to null"
        return MetricAggregate(
            metric=metric,
            mean=None,
            n=0,
            not_applicable=not_applicable,
            errors=errors,
            std=None,
            ci_low=None,
            ci_high=None,
            threshold=threshold,
            rule=rule,
            passed=None if threshold is None else False,
            message=message,
            direction=direction,
            judge_noise=noise,
        )

    n = len(scores)
    average = mean(scores)
    # With repeats, the interval carries the judge's within-case noise as well; its
    # resampling is per case, so conversations (per-conversation units) use the plain one.
    conversations = any(result.conversation is not None for result in ordered)
    noisy_ci = None if conversations else noise_aware_ci(ordered, metric, scores, config)
    ci_low, ci_high = noisy_ci or bootstrap_ci(
        scores,
        confidence=config.confidence,
        resamples=config.bootstrap_resamples,
        seed=config.seed,
    )
    unlabelled, judged, labels = _labelled_scores(results, metric, for_ppi=True)
    left_out = len(_labelled_scores(results, metric)[2]) - len(labels)
    ppi = _ppi(unlabelled, judged, labels, config, left_out=left_out)
    passed: bool | None
    if bound is None:
        passed = None
        message = (
            f"{metric} mean {average:.2f} (n={n}, {ci} CI {ci_low:.2f}–{ci_high:.2f}); not gated"
        )
    elif rule.startswith("ppi"):
        passed, message = _ppi_verdict(
            metric, rule, bound, ppi, len(labels), n, config, judge_mean=average
        )
    elif rule == "mean":
        passed = bound.met_by(average)
        shown, limit = _fmt_pair(average, bound)
        message = (
            f"{metric} mean {shown} {bound.kept if passed else bound.broken} {limit} "
            f"(n={n}, {ci} CI {ci_low:.2f}–{ci_high:.2f})"
        )
    else:
        bound_name, value = bound.interval_side(ci_low, ci_high, strict=rule == "ci_lower")
        passed = bound.met_by(value)
        shown, limit = _fmt_pair(value, bound)
        message = (
            f"{metric} {ci} CI {bound_name} bound {shown} "
            f"{bound.kept if passed else bound.broken} {limit} (mean {average:.2f}, n={n})"
        )
    if too_few and passed is not False:
        passed, message = False, too_few_cases(metric, n, config.min_cases, reasons)
    return MetricAggregate(
        metric=metric,
        mean=average,
        n=n,
        not_applicable=not_applicable,
        errors=errors,
        std=sample_std(scores),
        ci_low=ci_low,
        ci_high=ci_high,
        threshold=threshold,
        rule=rule,
        passed=passed,
        message=message,
        direction=direction,
        labelled=len(labels),
        ppi=ppi,
        judge_noise=noise,
    )


def _tag_verdict(
    results: Sequence[CaseResult], tag: str, metric: str, threshold: float, config: GateConfig
) -> TagVerdict:
    bound = own_bound(metric, threshold, config.bounds())
    tagged = [result for result in results if tag in result.tags]
    scores, not_applicable, errors = _collect(tagged, metric)
    if not scores:
        return TagVerdict(
            tag=tag,
            metric=metric,
            mean=None,
            n=0,
            threshold=threshold,
            passed=False,
            direction=bound.direction,
            message=(
                f"tag {tag!r} {metric} has no scored cases (n=0, {not_applicable} not "
                f"applicable, {errors} error{'s' if errors != 1 else ''}); "
                "an empty aggregate fails the gate"
            ),
        )
    average = mean(scores)
    passed = bound.met_by(average)
    shown, limit = _fmt_pair(average, bound)
    return TagVerdict(
        tag=tag,
        metric=metric,
        mean=average,
        n=len(scores),
        threshold=threshold,
        passed=passed,
        direction=bound.direction,
        message=f"tag {tag!r} {metric} mean {shown} {bound.kept if passed else bound.broken} "
        f"{limit} (n={len(scores)})",
    )


def _named(names: Sequence[str]) -> str:
    """``a, b, c`` — or the first few and how many more."""
    shown = ", ".join(names[:_NAMED])
    return shown if len(names) <= _NAMED else f"{shown} and {len(names) - _NAMED} more"


def _coverage(gated: int, facts: RunFacts) -> tuple[str, list[str]]:
    """The "gated N of M" line and, for a partial run, why fewer cases were gated."""
    ledger = facts.coverage
    if ledger is not None:
        accounted = list(ledger.reasons)
        if facts.shard and not accounted:
            # A shard is partial by design, even when the hash gives it every case.
            accounted.append(f"--rag-gate-shard {facts.shard}")
            return f"{ledger.line} (--rag-gate-shard {facts.shard})", accounted
        return ledger.line, accounted
    collected = facts.collected_cases
    if collected is None:
        return f"gated {gated} golden case(s)", []
    reasons: list[str] = []
    skipped = facts.skipped_files
    if gated < collected or skipped or facts.shard:
        reasons = list(facts.selection)
        if facts.shard:
            reasons.append(f"--rag-gate-shard {facts.shard}")
        if skipped:
            reasons.append(f"{len(skipped)} golden file(s) not collected: {_named(skipped)}")
        if not reasons:
            reasons.append(f"{collected - gated} collected case(s) reported no result")
    line = f"gated {gated} of {collected} collected golden case(s)"
    return (f"{line} ({'; '.join(reasons)})" if reasons else line), reasons


def _nothing_gated(facts: RunFacts) -> str:
    """Why a run has no case to gate, as precisely as the facts tell."""
    if not facts.counted:
        return "no golden cases were scored"
    ledger = facts.coverage
    if ledger is not None and ledger.total_cases and ledger.not_gated:
        return "no golden cases were scored: " + _named(ledger.reasons)
    readable = {path: count for path, count in facts.golden_files.items() if count is not None}
    if facts.collected_cases:
        return (
            "no golden cases were scored: all "
            f"{facts.collected_cases} collected case(s) were deselected"
            + (f" ({'; '.join(facts.selection)})" if facts.selection else "")
        )
    if readable:
        return (
            f"no golden cases were scored: {_named(list(readable))} hold(s) no cases; "
            "add cases to the golden file(s)"
        )
    if facts.unreadable_files:
        return "no golden cases were scored: no golden file could be read"
    patterns = ", ".join(facts.case_files) or "the configured case_files"
    return (
        "no golden cases were scored: no golden file was collected (under directories, "
        f"golden files match {patterns}; name a file on the command line to use any other "
        "name, or set case_files)"
    )


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
        The verdict, with one failure line per cause and the deploy recommendation.
    """
    facts = facts or RunFacts()
    ordered = canonical_order(results)
    aggregates = {metric: aggregate_metric(ordered, metric, config) for metric in metrics}
    tag_verdicts = [
        _tag_verdict(ordered, tag, metric, threshold, config)
        for tag, thresholds in config.tag_thresholds.items()
        for metric, threshold in thresholds.items()
    ]

    total = len(ordered)
    errored = sum(1 for result in ordered if result.errored)
    rate = errored / total if total else 0.0
    if total == 0:
        error_rate_passed = False
        error_rate_message = _nothing_gated(facts)
    else:
        error_rate_passed = rate <= config.max_error_rate
        comparison = "≤" if error_rate_passed else ">"
        # Malformed cases are input errors; only metric failures speak of the judge.
        judge_errors = sum(1 for result in ordered if result.errors)
        # A spent budget is a setting that stopped the run, not a judge that misbehaved.
        budget_stops = sum(1 for result in ordered if result.budget_spent)
        if error_rate_passed or not judge_errors:
            prefix = ""
        elif budget_stops:
            prefix = f"judge budget spent ({budget_stops} case(s) left unscored): "
        else:
            prefix = "judge unreliable: "
        error_rate_message = (
            f"{prefix}{errored} of {total} case(s) errored "
            f"({_percent(rate)} {comparison} max_error_rate {_percent(config.max_error_rate)})"
        )

    failing_metrics = [metric for metric, agg in aggregates.items() if agg.passed is False]
    failing_tags = [verdict for verdict in tag_verdicts if not verdict.passed]
    latency = evaluate_latency(ordered, config.latency)
    slow = [check.statistic for check in latency.checks if not check.passed] if latency else []
    top = aggregates.get("top_doc_usage")
    bounds = config.bounds()
    below_own = [result.id for result in ordered if result.case_threshold_failures(bounds)]
    unreadable = facts.unreadable_files
    others = facts.other_failures
    regressed = facts.baseline.regressed_metrics if facts.baseline is not None else []
    coverage, partial_reasons = _coverage(total, facts)
    diagnosis = summarise_diagnoses(diagnose(result, bounds) for result in ordered)
    agreement = _agreement(ordered, metrics, config)
    disagreeing = [metric for metric, figures in agreement.items() if figures.passed is False]

    failures: list[str] = []
    causes: list[str] = []
    run_checks: dict[str, str] = {}
    if unreadable:
        run_checks["unreadable_files"] = (
            f"{len(unreadable)} golden file(s) could not be read, so their cases were not "
            "scored: " + "; ".join(problem.splitlines()[0] for problem in unreadable)
        )
        failures.append(run_checks["unreadable_files"])
        causes.append(f"{len(unreadable)} golden file(s) unreadable")
    if total == 0:
        failures.append(error_rate_message)
        causes.append("no golden cases were scored")
    failures.extend(aggregates[metric].message for metric in failing_metrics)
    # A metric computed on too few cases is not below its threshold: it was never measured.
    uncomputed = [metric for metric in failing_metrics if aggregates[metric].n < config.min_cases]
    below = [metric for metric in failing_metrics if metric not in uncomputed]
    if below:
        causes.append(f"{len(below)} metric(s) below threshold: " + ", ".join(below))
    if uncomputed:
        causes.append(
            f"{len(uncomputed)} gated metric(s) computed on fewer than min_cases "
            f"{config.min_cases} case(s): " + ", ".join(uncomputed)
        )
    if below_own:
        run_checks["case_thresholds"] = (
            f"{len(below_own)} case(s) below their own thresholds: {_named(below_own)}"
        )
        failures.append(run_checks["case_thresholds"])
        causes.append(f"{len(below_own)} case(s) below their own thresholds")
    failures.extend(verdict.message for verdict in failing_tags)
    if latency is not None:
        failures.extend(latency.failures)
    if total and not error_rate_passed:
        failures.append(error_rate_message)
        causes.append(f"{errored} case(s) errored")
    causes.extend(
        f"tag {tag!r} below threshold" for tag in dict.fromkeys(v.tag for v in failing_tags)
    )
    if slow:
        causes.append("latency over budget: " + ", ".join(slow))
    if facts.baseline is not None and regressed:
        failures.extend(facts.baseline.metrics[metric].message for metric in regressed)
        causes.append(f"{len(regressed)} metric(s) regressed: " + ", ".join(regressed))
    for metric in disagreeing:
        run_checks[f"agreement:{metric}"] = agreement[metric].message
        failures.append(agreement[metric].message)
    if disagreeing:
        causes.append("judge–human agreement below its floor: " + ", ".join(disagreeing))
    noisy = _too_noisy(aggregates, config)
    for metric, line in noisy.items():
        run_checks[f"judge_noise:{metric}"] = line
        failures.append(line)
    if noisy:
        causes.append("judge too noisy for this metric: " + ", ".join(noisy))
    if others:
        run_checks["other_tests"] = (
            f"{len(others)} other test(s) failed in this run: {_named(others)}"
        )
        failures.append(run_checks["other_tests"])
        causes.append(f"{len(others)} other test(s) failed")

    passed = not failures
    judge_only = _judge_undecided(
        ordered,
        failures,
        error_rate_message,
        [aggregates[m] for m in failing_metrics],
        failing_tags,
        config,
    )
    not_evaluated = checks_not_evaluated(config, facts.baseline)
    if config.min_judge_agreement is not None and not any(
        aggregate.judge_noise for aggregate in aggregates.values()
    ):
        not_evaluated.append(JUDGE_AGREEMENT_NOT_EVALUATED)
    partial = bool(partial_reasons or not_evaluated)
    # A run with no threshold in force anywhere checked nothing it could pass.
    gated = (
        any(aggregate.threshold is not None for aggregate in aggregates.values())
        or bool(tag_verdicts or latency or facts.baseline or disagreeing)
        or any(result.thresholds for result in ordered)
    )
    status: GateStatus
    if judge_only:
        status = "error"
        recommendation = (
            f"{JUDGE_UNAVAILABLE} — {error_rate_message}; run the gate again once the "
            "judge answers (replies already received are replayed from the cache)"
        )
    elif not passed:
        status = "failed"
        recommendation = "Block deployment — " + "; ".join(causes)
        if diagnosis.failures:
            recommendation += f"; {diagnosis.failures}: {diagnosis.advice}"
        if partial_reasons:
            recommendation += f"; partial run: {coverage}"
        if not_evaluated:
            recommendation += "; " + "; ".join(not_evaluated)
    elif not gated:
        status = "ungated"
        recommendation = (
            "Report only, not a deploy decision — no gated metric: no threshold is in force "
            f"for the metrics that ran ({', '.join(aggregates) or 'none'}); give one a "
            "threshold (thresholds: or --rag-gate-threshold) to gate the run"
        )
        if partial_reasons:
            recommendation += f"; partial run: {coverage}"
        if not_evaluated:
            recommendation += "; " + "; ".join(not_evaluated)
    elif partial_reasons:
        status = "partial"
        recommendation = (
            f"Partial run, not a deploy decision — {coverage}; gate the whole golden set to decide"
        )
        if not_evaluated:
            recommendation += "; " + "; ".join(not_evaluated)
    elif partial:
        status = "partial"
        recommendation = "Not a deploy decision — " + "; ".join(not_evaluated)
    else:
        status = "passed"
        recommendation = "Safe to deploy"
    hinted = list(dict.fromkeys([*below, *(v.metric for v in failing_tags)]))
    if slow:
        hinted.append("latency")
    hinted.extend(metric for metric in regressed if metric not in hinted)
    return GateVerdict(
        passed=passed,
        status=status,
        partial=partial,
        coverage=coverage,
        collected_cases=facts.collected_cases,
        metrics=aggregates,
        tags=tag_verdicts,
        total_cases=total,
        errored_cases=errored,
        error_rate=rate,
        max_error_rate=config.max_error_rate,
        error_rate_passed=error_rate_passed,
        error_rate_message=error_rate_message,
        confidence=config.confidence,
        failures=failures,
        failing_metrics=failing_metrics,
        recommendation=recommendation,
        hints={metric: hint_for(metric) for metric in hinted},
        latency=latency,
        alignment=None if top is None else ignored_top_ranked(top.mean, top.n),
        below_own_thresholds=below_own,
        unreadable_files=list(unreadable),
        other_failures=list(others),
        run_checks=run_checks,
        baseline=facts.baseline,
        diagnosis=diagnosis if diagnosis.diagnosed else None,
        agreement=agreement,
        not_evaluated=not_evaluated,
        partial_coverage=bool(partial_reasons),
        oracle_gaps=paired_oracle_gaps(ordered, metrics),
        auto_repeats=auto_summary(ordered),
        conversations=_conversations_line(ordered, below_own),
    )


def _conversations_line(ordered: Sequence[CaseResult], below_own: Sequence[str]) -> str | None:
    """``conversations: 2 with 6 turns, …``; None when the run has no conversation."""
    groups = [group for group in conversation_groups(ordered) if group[0].conversation]
    if not groups:
        return None
    turns = sum(len(group) for group in groups)
    line = (
        f"conversations: {len(groups)} with {turns} turns, each conversation counted once "
        "in the metric means"
    )
    broken = [
        result.id
        for group in groups
        for result in group
        if result.errored or result.id in below_own
    ]
    if broken:
        line += f"; turns that broke: {_named(broken)}"
    return line


#: Why a ``min_judge_agreement`` floor checked nothing.
JUDGE_AGREEMENT_NOT_EVALUATED = (
    "judge agreement not evaluated: min_judge_agreement is set but no case was judged "
    "more than once; set repeats: 2 or more (--rag-gate-repeats)"
)


def _too_noisy(aggregates: Mapping[str, MetricAggregate], config: GateConfig) -> dict[str, str]:
    """The gated metrics whose judge agrees with itself less than ``min_judge_agreement``."""
    found: dict[str, str] = {}
    for metric, aggregate in aggregates.items():
        line = too_noisy(metric, aggregate.judge_noise, config.min_judge_agreement)
        if line is not None and aggregate.threshold is not None:
            found[metric] = line
    return found


def _judge_undecided(
    ordered: Sequence[CaseResult],
    failures: Sequence[str],
    error_rate_message: str,
    failing: Sequence[MetricAggregate],
    failing_tags: Sequence[TagVerdict],
    config: GateConfig,
) -> bool:
    """Whether every failure of the run is the judge's not answering: the verdict ``error``.

    The errored cases must all be the judge's, and each failure line must be the error
    rate itself, or a metric or tag minimum left without enough scored cases by those
    errors. A metric measured below its threshold is a quality failure, and then the run
    is ``failed`` whatever else the judge did.
    """
    if not failures or not only_judge_errors(ordered):
        return False
    unmeasured = {
        aggregate.message
        for aggregate in failing
        if aggregate.errors and aggregate.n < config.min_cases
    }
    unmeasured.update(
        tag.message
        for tag in failing_tags
        if tag.n == 0 and any(judge_errored(r) for r in ordered if tag.tag in r.tags)
    )
    return all(line == error_rate_message or line in unmeasured for line in failures)


# --- human labels: prediction-powered estimates and judge–human agreement ---------------


def _labelled_scores(
    results: Sequence[CaseResult], metric: str, *, for_ppi: bool = False
) -> tuple[list[float], list[float], list[float]]:
    """The judge's scores of unlabelled cases, and of labelled cases with their labels.

    Only scored cases count: a label on a case the judge found not applicable, or that
    errored, has no judge score to compare. ``for_ppi`` leaves out the labels of cases
    picked near the threshold (``sampled_by: near_threshold``): PPI is valid for a random
    sample only, so those cases count as unlabelled there (agreement uses every label).
    """
    unlabelled: list[float] = []
    judged: list[float] = []
    labels: list[float] = []
    for result in canonical_order(results):
        score = result.scores.get(metric)
        if score is None or _errored_for(result, metric):
            continue
        label = result.human.get(metric)
        if for_ppi and result.sampled_by == "near_threshold":
            label = None
        if label is None:
            unlabelled.append(score)
        else:
            judged.append(score)
            labels.append(label)
    return unlabelled, judged, labels


def _ppi(
    unlabelled: Sequence[float],
    judged: Sequence[float],
    labels: Sequence[float],
    config: GateConfig,
    *,
    left_out: int = 0,
) -> PpiEstimate | None:
    """The PPI estimate, once ``ppi_min_labels`` randomly sampled labelled cases were scored."""
    if len(labels) < config.ppi_min_labels:
        return None
    estimate = ppi_mean(
        unlabelled,
        judged,
        labels,
        confidence=config.confidence,
        power_tuning=config.ppi_power_tuning,
    )
    return estimate.model_copy(update={"left_out": left_out})


def _ppi_verdict(
    metric: str,
    rule: Rule,
    bound: Bound,
    ppi: PpiEstimate | None,
    labelled: int,
    n: int,
    config: GateConfig,
    *,
    judge_mean: float,
) -> tuple[bool, str]:
    """Decide a ``ppi``/``ppi_lower``/``ppi_upper`` rule; too few labels fail closed.

    The line quotes the figures the table and the PPI line show: the estimate and its
    interval to three places, and the judge's mean over every scored case.
    """
    if ppi is None:
        return False, (
            f"{metric} rule {rule} needs at least {config.ppi_min_labels} randomly sampled "
            f"labelled cases, has {labelled}; label more (rag-gate label export) or gate on "
            "the judge's mean"
        )
    name, estimate, low, high = "PPI", ppi.estimate, ppi.ci_low, ppi.ci_high
    if ppi.power_tuned is not None:
        tuned = ppi.power_tuned
        name, estimate, low, high = "PPI++", tuned.estimate, tuned.ci_low, tuned.ci_high
    counts = f"n={labelled} labelled of {n}"
    if rule == "ppi":
        passed = bound.met_by(estimate)
        shown, limit = _fmt_pair(estimate, bound)
        return passed, (
            f"{metric} {name} estimate {shown} {bound.kept if passed else bound.broken} "
            f"{limit} ({name} {estimate:.3f} [{low:.3f}–{high:.3f}], "
            f"{_confidence_label(config.confidence)} CI; {counts}; judge mean {judge_mean:.3f})"
        )
    side, value = bound.interval_side(low, high, strict=rule == "ppi_lower")
    passed = bound.met_by(value)
    shown, limit = _fmt_pair(value, bound)
    return passed, (
        f"{metric} {name} {_confidence_label(config.confidence)} CI {side} bound {shown} "
        f"{bound.kept if passed else bound.broken} {limit} "
        f"({name} {estimate:.3f} [{low:.3f}–{high:.3f}]; {counts}; judge mean {judge_mean:.3f})"
    )


def _agreement(
    ordered: Sequence[CaseResult], metrics: Sequence[str], config: GateConfig
) -> dict[str, MetricAgreement]:
    """Judge–human agreement of every metric that ran with a label or a floor."""
    thresholds = config.effective_thresholds()
    found: dict[str, MetricAgreement] = {}
    for metric in metrics:
        floors = config.min_agreement.get(metric, {})
        _, judged, labels = _labelled_scores(ordered, metric)
        if not labels and not floors:
            continue
        measured = (
            measure_agreement(
                metric,
                judged,
                labels,
                threshold=thresholds.get(metric),
                confidence=config.confidence,
                resamples=config.bootstrap_resamples,
                seed=config.seed,
            )
            if labels
            else no_labels(metric, thresholds.get(metric))
        )
        found[metric] = check_floors(measured, floors)
    return found
