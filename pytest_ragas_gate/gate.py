"""The gate: per-metric aggregates, thresholds and rules, and the overall verdict.

Everything here is a pure function of (case results, config). The plugin calls
:func:`evaluate_gate` at the end of a run, and ``rag-gate regate`` / ``merge`` call it on
case results loaded from JSON reports, so a re-gate can never disagree with the run.

Results are put in a canonical order (by source, then id) before any arithmetic, so a
run split across pytest-xdist workers yields bit-identical aggregates and intervals to a
serial run.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from .config import GateConfig, Rule
from .exceptions import BUDGET_SPENT
from .ignored_top import IgnoredTopRanked, ignored_top_ranked
from .latency import LatencyVerdict, evaluate_latency
from .reports.hints import hint_for
from .results import CaseResult
from .stats import bootstrap_ci, mean, sample_std

__all__ = [
    "GateVerdict",
    "MetricAggregate",
    "TagVerdict",
    "aggregate_metric",
    "canonical_order",
    "evaluate_gate",
]

# Scores are ratios of small integers; a mean that equals its threshold on paper can land
# a few ulps below it in floating point, and must still pass.
_TOLERANCE = 1e-9


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


class GateVerdict(BaseModel):
    """The gate's decision and everything the reports show about it."""

    model_config = ConfigDict(extra="forbid")

    passed: bool
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


def canonical_order(results: Sequence[CaseResult]) -> list[CaseResult]:
    """The results sorted by (source, id): the order every aggregate is computed in.

    Args:
        results: Case results in any order (e.g. as xdist workers reported them).

    Returns:
        A new, sorted list.
    """
    return sorted(results, key=lambda result: (result.source, result.id))


def _errored_for(result: CaseResult, metric: str) -> bool:
    """Whether ``result`` counts as an error of ``metric``."""
    if metric in result.errors:
        return True
    # A whole-case error (malformed case, target exception, budget stop) means nothing was
    # scored, so every metric the case was meant to get counts it.
    return result.error is not None and (not result.metrics or metric in result.metrics)


def _stopped_by_budget(result: CaseResult) -> bool:
    """Whether ``max_calls`` / ``max_cost`` stopped this case before it was scored."""
    return result.error is not None and BUDGET_SPENT in result.error


def _collect(results: Sequence[CaseResult], metric: str) -> tuple[list[float], int, int]:
    """The applicable scores of ``metric``, its not-applicable count and its error count."""
    scores: list[float] = []
    not_applicable = 0
    errors = 0
    for result in results:
        if _errored_for(result, metric):
            errors += 1
        elif metric in result.scores:
            score = result.scores[metric]
            if score is None:
                not_applicable += 1
            else:
                scores.append(score)
    return scores, not_applicable, errors


def _fmt_pair(value: float, threshold: float) -> tuple[str, str]:
    """Both numbers with 2 decimals, or 4 when 2 would print a failing pair as equal."""
    shown, limit = f"{value:.2f}", f"{threshold:.2f}"
    if shown == limit and value + _TOLERANCE < threshold:
        shown, limit = f"{value:.4f}", f"{threshold:.4f}"
    return shown, limit


def _confidence_label(confidence: float) -> str:
    """``0.95`` → ``"95%"``, ``0.975`` → ``"97.5%"``."""
    return f"{round(confidence * 100, 6):g}%"


def _percent(rate: float) -> str:
    """A rate as a short percentage: 0.075 → ``"7.5%"``, 0.0 → ``"0%"``."""
    text = f"{rate * 100:.2f}".rstrip("0").rstrip(".")
    return f"{text}%"


def _reaches(value: float, threshold: float) -> bool:
    return value + _TOLERANCE >= threshold


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
    scores, not_applicable, errors = _collect(canonical_order(results), metric)
    threshold = config.effective_thresholds().get(metric)
    rule = config.rule_for(metric)
    ci = _confidence_label(config.confidence)

    if not scores:
        message = (
            f"{metric} has no scored cases (n=0, {not_applicable} not applicable, "
            f"{errors} error{'s' if errors != 1 else ''}); "
            + ("an empty aggregate fails the gate" if threshold is not None else "not gated")
        )
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
        )

    n = len(scores)
    average = mean(scores)
    ci_low, ci_high = bootstrap_ci(
        scores,
        confidence=config.confidence,
        resamples=config.bootstrap_resamples,
        seed=config.seed,
    )
    passed: bool | None
    if threshold is None:
        passed = None
        message = (
            f"{metric} mean {average:.2f} (n={n}, {ci} CI {ci_low:.2f}–{ci_high:.2f}); not gated"
        )
    elif rule == "mean":
        passed = _reaches(average, threshold)
        shown, limit = _fmt_pair(average, threshold)
        message = (
            f"{metric} mean {shown} {'≥' if passed else '<'} {limit} "
            f"(n={n}, {ci} CI {ci_low:.2f}–{ci_high:.2f})"
        )
    else:
        bound_name, bound = ("lower", ci_low) if rule == "ci_lower" else ("upper", ci_high)
        passed = _reaches(bound, threshold)
        shown, limit = _fmt_pair(bound, threshold)
        message = (
            f"{metric} {ci} CI {bound_name} bound {shown} {'≥' if passed else '<'} {limit} "
            f"(mean {average:.2f}, n={n})"
        )
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
    )


def _tag_verdict(
    results: Sequence[CaseResult], tag: str, metric: str, threshold: float
) -> TagVerdict:
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
            message=(
                f"tag {tag!r} {metric} has no scored cases (n=0, {not_applicable} not "
                f"applicable, {errors} error{'s' if errors != 1 else ''}); "
                "an empty aggregate fails the gate"
            ),
        )
    average = mean(scores)
    passed = _reaches(average, threshold)
    shown, limit = _fmt_pair(average, threshold)
    return TagVerdict(
        tag=tag,
        metric=metric,
        mean=average,
        n=len(scores),
        threshold=threshold,
        passed=passed,
        message=f"tag {tag!r} {metric} mean {shown} {'≥' if passed else '<'} {limit} "
        f"(n={len(scores)})",
    )


def evaluate_gate(
    results: Sequence[CaseResult], metrics: Sequence[str], config: GateConfig
) -> GateVerdict:
    """Decide the gate for a run.

    Only ``metrics`` (the metrics that ran) are aggregated; a threshold for a metric that
    did not run is ignored, while an explicit per-tag minimum always applies and fails
    when no tagged case was scored.

    Args:
        results: Every case result of the run, in any order.
        metrics: The metrics that ran, in display order.
        config: The gate settings.

    Returns:
        The verdict, with one failure line per cause and the seed-003 recommendation.
    """
    ordered = canonical_order(results)
    aggregates = {metric: aggregate_metric(ordered, metric, config) for metric in metrics}
    tag_verdicts = [
        _tag_verdict(ordered, tag, metric, threshold)
        for tag, thresholds in config.tag_thresholds.items()
        for metric, threshold in thresholds.items()
    ]

    total = len(ordered)
    errored = sum(1 for result in ordered if result.errored)
    rate = errored / total if total else 0.0
    if total == 0:
        error_rate_passed = False
        error_rate_message = "no golden cases were scored"
    else:
        error_rate_passed = rate <= config.max_error_rate
        comparison = "≤" if error_rate_passed else ">"
        # Malformed cases are input errors; only metric failures speak of the judge.
        judge_errors = sum(1 for result in ordered if result.errors)
        # A spent budget is a setting that stopped the run, not a judge that misbehaved.
        budget_stops = sum(1 for result in ordered if _stopped_by_budget(result))
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

    failures: list[str] = []
    if total == 0:
        failures.append(error_rate_message)
    failures.extend(aggregates[metric].message for metric in failing_metrics)
    failures.extend(verdict.message for verdict in failing_tags)
    if latency is not None:
        failures.extend(latency.failures)
    if total and not error_rate_passed:
        failures.append(error_rate_message)

    causes: list[str] = []
    if total == 0:
        causes.append("no golden cases were scored")
    if failing_metrics:
        causes.append(
            f"{len(failing_metrics)} metric(s) below threshold: " + ", ".join(failing_metrics)
        )
    if total and not error_rate_passed:
        causes.append(f"{errored} case(s) errored")
    for tag in dict.fromkeys(verdict.tag for verdict in failing_tags):
        causes.append(f"tag {tag!r} below threshold")
    if slow:
        causes.append("latency over budget: " + ", ".join(slow))

    passed = not failures
    hinted = list(dict.fromkeys([*failing_metrics, *(v.metric for v in failing_tags)]))
    if slow:
        hinted.append("latency")
    return GateVerdict(
        passed=passed,
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
        recommendation="Safe to deploy" if passed else "Block deployment — " + "; ".join(causes),
        hints={metric: hint_for(metric) for metric in hinted},
        latency=latency,
        alignment=None if top is None else ignored_top_ranked(top.mean, top.n),
    )
