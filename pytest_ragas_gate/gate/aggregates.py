"""Per-metric and per-tag aggregates, each decided against its threshold and rule.

A metric's aggregate is its mean over the applicable scored cases, an interval valid for
bounded scores at any n (:func:`~pytest_ragas_gate.stats.bounded_mean_ci`, widened by the
judge's own noise under repeats), the prediction-powered estimate once
enough human labels are in, and the verdict line every report quotes. Results are put in a
canonical order (by source, then id) before any arithmetic, so a run split across
pytest-xdist workers yields bit-identical aggregates and intervals to a serial run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..golden.cases import is_missing_fields_reason
from ..model_defaults import empty_list
from ..scoring.gated_metrics import not_applicable_reasons, too_few_cases
from ..scoring.results import (
    CaseResult,
    canonical_order,
    conversation_groups,
    conversation_score,
)
from ..settings.bounds import Bound, Direction, own_bound
from ..settings.config import GateConfig, Rule
from ..stats import bounded_interval, bounded_mean_ci, format_interval, hull, mean, sample_std
from ..trust.figures import MetricAgreement, PpiEstimate
from .judge_noise import JudgeNoise, measure_judge_noise, noise_aware_ci

__all__ = [
    "MetricAggregate",
    "MisspeltKey",
    "TagVerdict",
    "aggregate_metric",
    "confidence_label",
    "format_interval",
    "rests_on_little",
    "measure_agreements",
    "tag_verdict",
]


class MisspeltKey(BaseModel):
    """Rows that lack a field a metric needs and carry a key one edit from it."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    key: str
    field: str
    rows: int


class MetricAggregate(BaseModel):
    """One metric over all cases, and its verdict.

    ``passed`` is None when the metric has no threshold: it is reported, not gated.
    ``cases`` are the cases the metric was meant to judge (scored, n/a or errored);
    ``coverage`` the share of them it was scored on, leaving out the errored ones (the
    error rate judges those) and the n/a by nature (a refusal makes no claims): a case
    n/a for a missing field counts against it. ``coverage_passed`` is False when a gated
    metric's coverage is below ``min_coverage``.
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
    cases: int = 0
    coverage: float | None = None
    min_coverage: float | None = None
    coverage_passed: bool | None = None
    # n/a cases counted by reason: the field is absent, misspelt or empty; or the case
    # has, by its nature, nothing for the metric to score.
    not_applicable_missing_fields: dict[str, int] = Field(default_factory=dict)
    not_applicable_by_nature: dict[str, int] = Field(default_factory=dict)
    misspelt_keys: list[MisspeltKey] = Field(default_factory=empty_list)
    # Against a baseline: its mean on the cases paired with this run (``baseline_paired``
    # of them), whether the metric passed this run's threshold in the baseline, and
    # whether it passed there and fails now, whatever the paired test says of the drop.
    baseline_mean: float | None = None
    baseline_paired: int | None = None
    baseline_passed: bool | None = None
    newly_failing: bool = False


class TagVerdict(BaseModel):
    """One per-tag minimum (``tag_thresholds``) and whether the tagged cases reach it."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    tag: str
    metric: str
    mean: float | None
    n: int
    threshold: float
    passed: bool
    message: str
    direction: Direction = "min"
    # The bounded interval of the tagged cases' mean, and the rule that decided it.
    ci_low: float | None = None
    ci_high: float | None = None
    rule: Rule = "mean"
    # Passed while the interval reaches past the threshold (see rests_on_little).
    thin_evidence: bool = False


def _errored_for(result: CaseResult, metric: str) -> bool:
    """Whether ``result`` counts as an error of ``metric``."""
    if metric in result.errors:
        return True
    # A whole-case error (malformed case, target exception, budget stop) means nothing was
    # scored, so every metric the case was meant to get counts it.
    return result.error is not None and (not result.metrics or metric in result.metrics)


class _NotApplicable:
    """The n/a cases of a metric, by reason, and the misspelt keys that explain them."""

    def __init__(self) -> None:
        self.missing_fields: dict[str, int] = {}
        self.by_nature: dict[str, int] = {}
        self.misspelt: dict[tuple[str, str], int] = {}

    def count(self, result: CaseResult, metric: str) -> None:
        reason = result.reasons.get(metric, "")
        if not is_missing_fields_reason(reason):
            counts = self.by_nature
            counts[reason or "not applicable"] = counts.get(reason or "not applicable", 0) + 1
            return
        self.missing_fields[reason] = self.missing_fields.get(reason, 0) + 1
        lacking = {part.removeprefix("no ") for part in reason.split(" and ")}
        for field, key in result.misspelt.items():
            if field in lacking:
                self.misspelt[(key, field)] = self.misspelt.get((key, field), 0) + 1

    @property
    def keys(self) -> list[MisspeltKey]:
        ranked = sorted(self.misspelt.items(), key=lambda item: -item[1])
        return [MisspeltKey(key=key, field=field, rows=rows) for (key, field), rows in ranked]


def _coverage_line(
    metric: str, scored: int, cases: int, lacking: _NotApplicable, floor: float, share: float
) -> str:
    """``faithfulness computed on 1 of 12 cases (11 n/a: no contexts — …)``, and the floor."""
    missing = sum(lacking.missing_fields.values())
    ranked = sorted(lacking.missing_fields.items(), key=lambda item: -item[1])
    if len(ranked) == 1:
        reasons = ranked[0][0]
    else:
        reasons = ", ".join(f"{count} {reason}" for reason, count in ranked)
    for key in lacking.keys:
        reasons += (
            f" — {key.rows} row{'s' if key.rows != 1 else ''} "
            f"{'have' if key.rows != 1 else 'has'} {key.key!r}; did you mean {key.field!r}?"
        )
    by_nature = sum(lacking.by_nature.values())
    nature = f"; {by_nature} n/a by nature" if by_nature else ""
    # Whole percentages, or one decimal when they would print a failing pair as equal.
    shown, limit = f"{share:.0%}", f"{floor:.0%}"
    if shown == limit:
        shown, limit = f"{share:.1%}", f"{floor:.1%}"
    return (
        f"{metric} computed on {scored} of {cases} cases ({missing} n/a: {reasons}{nature}); "
        f"coverage {shown} < min_coverage {limit}: give the cases the fields it "
        "needs, lower min_coverage, or set its threshold to null"
    )


def _collect(
    results: Sequence[CaseResult], metric: str, lacking: _NotApplicable | None = None
) -> tuple[list[float], int, int]:
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
            if lacking is not None:
                lacking.count(next(r for r in group if metric in r.scores), metric)
    return scores, not_applicable, errors


def _coverage_facts(
    scored: int, not_applicable: int, errors: int, lacking: _NotApplicable
) -> dict[str, Any]:
    """The aggregate's coverage fields: cases meant, the share scored, n/a by reason."""
    judged = scored + sum(lacking.missing_fields.values())
    return {
        "cases": scored + not_applicable + errors,
        "coverage": scored / judged if judged else None,
        "not_applicable_missing_fields": dict(lacking.missing_fields),
        "not_applicable_by_nature": dict(lacking.by_nature),
        "misspelt_keys": lacking.keys,
    }


def _fmt_pair(value: float, bound: Bound) -> tuple[str, str]:
    """Both numbers with 2 decimals, or 4 when 2 would print a failing pair as equal."""
    shown, limit = f"{value:.2f}", f"{bound.value:.2f}"
    if shown == limit and not bound.met_by(value):
        shown, limit = f"{value:.4f}", f"{bound.value:.4f}"
    return shown, limit


# The rules that can pass a metric whose interval reaches past its threshold: the mean
# (on the point estimate) and ci_upper (on the interval's lenient side).
_LENIENT_RULES: frozenset[Rule] = frozenset({"mean", "ci_upper"})


def _rule_verdict(
    name: str,
    rule: str,
    bound: Bound,
    average: float,
    interval: tuple[float, float],
    n: int,
    ci: str,
) -> tuple[bool, str]:
    """Whether a mean or its interval meets ``bound`` under ``rule``, and the message saying so.

    One wording for metrics and tags alike: ``mean`` reads the mean, ``ci_lower`` and
    ``ci_upper`` the side of the interval the rule names.
    """
    ci_low, ci_high = interval
    if rule == "mean":
        passed = bound.met_by(average)
        shown, limit = _fmt_pair(average, bound)
        return passed, (
            f"{name} mean {shown} {bound.kept if passed else bound.broken} {limit} "
            f"(n={n}, {ci} CI {format_interval(ci_low, ci_high, mark=bound.value)})"
        )
    side, value = bound.interval_side(ci_low, ci_high, strict=rule == "ci_lower")
    passed = bound.met_by(value)
    shown, limit = _fmt_pair(value, bound)
    return passed, (
        f"{name} {ci} CI {side} bound {shown} {bound.kept if passed else bound.broken} "
        f"{limit} (mean {average:.2f}, n={n})"
    )


def rests_on_little(aggregate: MetricAggregate, config: GateConfig) -> bool:
    """Whether a metric passed while its interval reaches past the threshold.

    Such a pass is what the rule ``mean`` or ``ci_upper`` asks for, and the run passes; the
    verdict says how little the pass rests on, which ``ci_lower`` would not have let through:
    for a minimum, the interval's lower bound is below it; for a maximum, its upper bound is
    above it.
    """
    bound = config.bounds().get(aggregate.metric)
    if (
        bound is None
        or aggregate.rule not in _LENIENT_RULES
        or aggregate.passed is not True
        or aggregate.ci_low is None
        or aggregate.ci_high is None
    ):
        return False
    _, far = bound.interval_side(aggregate.ci_low, aggregate.ci_high, strict=True)
    return not bound.met_by(far)


def _thin_note(
    metric: str,
    average: float,
    interval: tuple[float, float],
    bound: Bound,
    n: int,
    ci: str,
    rule: Rule,
) -> str | None:
    """What a passing metric rests on when its interval reaches past the threshold, or None.

    ``faithfulness mean 1.00 ≥ 0.85 on 2 cases; the 95% interval reaches 0.34``; under
    ``ci_upper`` a mean on the failing side says the interval alone let it through:
    ``answer_relevancy mean 0.88 < 0.95 but its 95% interval reaches 1.00 (rule ci_upper)``.
    """
    low, high = interval
    _, far = bound.interval_side(low, high, strict=True)
    if bound.met_by(far):
        return None
    shown, limit = _fmt_pair(average, bound)
    by_rule = "" if rule == "mean" else f" (rule {rule})"
    if not bound.met_by(average):
        _, near = bound.interval_side(low, high, strict=False)
        return (
            f"{metric} mean {shown} {bound.broken} {limit} but its {ci} interval reaches "
            f"{_fmt_pair(near, bound)[0]}{by_rule}"
        )
    return (
        f"{metric} mean {shown} {bound.kept} {limit} on {n} case{'s' if n != 1 else ''}; "
        f"the {ci} interval reaches {_fmt_pair(far, bound)[0]}{by_rule}"
    )


def confidence_label(confidence: float) -> str:
    """``0.95`` → ``"95%"``, ``0.975`` → ``"97.5%"``."""
    return f"{round(confidence * 100, 6):g}%"


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
    lacking = _NotApplicable()
    scores, not_applicable, errors = _collect(ordered, metric, lacking)
    noise = measure_judge_noise(ordered, metric)
    bound = config.bounds().get(metric)
    threshold = None if bound is None else bound.value
    direction = config.direction_of(metric) if bound is None else bound.direction
    rule = config.rule_for(metric)
    ci = confidence_label(config.confidence)

    reasons = not_applicable_reasons(results, metric)
    # What every aggregate of the metric says, scored or not.
    counted: dict[str, Any] = {
        "metric": metric,
        "n": len(scores),
        "not_applicable": not_applicable,
        "errors": errors,
        "threshold": threshold,
        "rule": rule,
        "direction": direction,
        "judge_noise": noise,
        **_coverage_facts(len(scores), not_applicable, errors, lacking),
    }
    too_few = threshold is not None and len(scores) < config.min_cases
    if not scores:
        # A conversation is one unit of the aggregate, but its reasons are counted by turn.
        by_turn = any(result.conversation is not None for result in ordered)
        units = f"{not_applicable} conversation(s)" if by_turn else str(not_applicable)
        why = (f", their turns: {reasons}" if by_turn else f": {reasons}") if reasons else ""
        message = (
            f"{metric} has no scored cases (n=0, {units} not applicable{why}, "
            f"{errors} error{'s' if errors != 1 else ''}); "
            + ("an empty aggregate fails the gate" if threshold is not None else "not gated")
        )
        if threshold is not None and reasons:
            message += ": give the cases the fields it needs, or set its threshold to null"
        return MetricAggregate(
            **counted,
            mean=None,
            std=None,
            ci_low=None,
            ci_high=None,
            passed=None if threshold is None else False,
            message=message,
        )

    n = len(scores)
    average = mean(scores)
    # With repeats, the interval carries the judge's within-case noise as well; its
    # resampling is per case, so conversations (per-conversation units) use the plain one.
    conversations = any(result.conversation is not None for result in ordered)
    noisy_ci = None if conversations else noise_aware_ci(ordered, metric, scores, config)
    if noisy_ci is not None:
        ci_low, ci_high = hull(noisy_ci, bounded_interval(scores, confidence=config.confidence))
    else:
        ci_low, ci_high = bounded_mean_ci(
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
        shown_ci = format_interval(ci_low, ci_high)
        message = f"{metric} mean {average:.2f} (n={n}, {ci} CI {shown_ci}); not gated"
    elif rule.startswith("ppi"):
        passed, message = _ppi_verdict(
            metric, rule, bound, ppi, len(labels), n, config, judge_mean=average
        )
    else:
        passed, message = _rule_verdict(metric, rule, bound, average, (ci_low, ci_high), n, ci)
    note = None
    if passed and bound is not None and rule in _LENIENT_RULES:
        # The rule let the metric through, the evidence does not clear the threshold: say
        # on how much the pass rests.
        note = _thin_note(metric, average, (ci_low, ci_high), bound, n, ci, rule)
    if note is not None:
        message = note
    if too_few and passed is not False:
        passed, message = False, too_few_cases(metric, n, config.min_cases, reasons)
    share = counted["coverage"]
    if bound is not None and not too_few and share is not None:
        floor = config.coverage_floor(metric)
        counted["min_coverage"] = floor
        counted["coverage_passed"] = share + 1e-9 >= floor
        if not counted["coverage_passed"]:
            passed = False
            message = _coverage_line(metric, n, counted["cases"], lacking, floor, share)
    return MetricAggregate(
        **counted,
        mean=average,
        std=sample_std(scores),
        ci_low=ci_low,
        ci_high=ci_high,
        passed=passed,
        message=message,
        labelled=len(labels),
        ppi=ppi,
    )


def tag_verdict(
    results: Sequence[CaseResult], tag: str, metric: str, threshold: float, config: GateConfig
) -> TagVerdict:
    """The mean of ``metric`` over the cases tagged ``tag``, against its per-tag threshold."""
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
    n = len(scores)
    ci_low, ci_high = bounded_mean_ci(
        scores,
        confidence=config.confidence,
        resamples=config.bootstrap_resamples,
        seed=config.seed,
    )
    ci = confidence_label(config.confidence)
    # A tag has no labels of its own to estimate on: a PPI rule decides it on the mean.
    rule: Rule = config.rule_for(metric)
    rule = rule if rule in ("mean", "ci_lower", "ci_upper") else "mean"
    name = f"tag {tag!r} {metric}"
    passed, message = _rule_verdict(name, rule, bound, average, (ci_low, ci_high), n, ci)
    note = None
    if passed and rule in _LENIENT_RULES:
        note = _thin_note(name, average, (ci_low, ci_high), bound, n, ci, rule)
    return TagVerdict(
        tag=tag,
        metric=metric,
        mean=average,
        n=n,
        threshold=threshold,
        passed=passed,
        direction=bound.direction,
        message=note or message,
        ci_low=ci_low,
        ci_high=ci_high,
        rule=rule,
        thin_evidence=note is not None,
    )


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
    # Only a run with labels gets here; the others need not load PPI.
    from ..trust.ppi import ppi_mean

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
            f"{confidence_label(config.confidence)} CI; {counts}; judge mean {judge_mean:.3f})"
        )
    side, value = bound.interval_side(low, high, strict=rule == "ppi_lower")
    passed = bound.met_by(value)
    shown, limit = _fmt_pair(value, bound)
    return passed, (
        f"{metric} {name} {confidence_label(config.confidence)} CI {side} bound {shown} "
        f"{bound.kept if passed else bound.broken} {limit} "
        f"({name} {estimate:.3f} [{low:.3f}–{high:.3f}]; {counts}; judge mean {judge_mean:.3f})"
    )


def measure_agreements(
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
        # The statistics load only for a run with labels or floors.
        from ..trust.agreement import check_floors, measure_agreement, no_labels

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
