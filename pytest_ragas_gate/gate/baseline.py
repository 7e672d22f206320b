"""Regression against a baseline: a previous run's JSON report, compared case by case.

Cases are paired by (golden file, id); a case whose file was moved or renamed is still
paired by its id alone when that id is unambiguous. Per metric, the paired deltas
(new − baseline) over the cases scored in both runs give a mean drop and a paired
interval (:func:`~pytest_ragas_gate.stats.bounded_mean_ci` on changes in [-1, 1]). A
metric *regresses* when its mean drops by more than ``max_regression`` **and** the whole
interval lies below 0, so a noisy dip on a few cases does not block a deploy while a
real, material drop does. Like a threshold, a regression
fails the gate only for a gated metric (one with a threshold); the regression of a
reported-only metric is shown and does not block.

Two cases pair only when their question matches too (and their reference, when both runs
saved one): a baseline of another golden set whose ids happen to be the same pairs
nothing, and the ids reused for other questions are counted in a line. A baseline that
paired fewer than ``min_paired`` cases has checked nothing: its check is *not evaluated*,
nothing of it regresses or is newly failing, and the gate cannot pass the run on it.

A metric the baseline scored with another judge, model or prompt version is *not
compared* (its regression and newly failing are not evaluated, the run is partial at
best) unless ``baseline.allow_judge_change`` is set, in which case it is compared with a
line saying its deltas mix judge changes with system changes. Its absolute threshold
decides either way.

Everything here is pure: the plugin, ``rag-gate compare`` and ``rag-gate gate`` share it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

from ..golden.cases import case_identity
from ..golden.sharding import Shard
from ..judges.base import JudgeInfo
from ..scoring.results import CaseResult, canonical_order, conversation_score
from ..settings.bounds import Direction
from ..settings.config import GateConfig
from ..stats import (
    bounded_interval,
    bounded_mean_ci,
    hull,
    interval_text,
    mean,
    two_level_paired_bootstrap_ci,
)
from .aggregates import MetricAggregate, aggregate_metric
from .baseline_figures import BaselineComparison, CaseDelta, MetricDelta
from .case_verdicts import case_misses
from .judge_changes import judge_changes

__all__ = [
    "against_baseline",
    "BaselineComparison",
    "CaseDelta",
    "MetricDelta",
    "case_deltas",
    "case_drops",
    "compare_to_baseline",
    "pair_cases",
    "pairing",
    "Pairing",
    "reused_ids_line",
    "same_case",
    "in_shard",
    "scoring_differences",
]

# The same float slack as the gate: a drop equal to max_regression on paper must not
# regress because of the last bits of a subtraction.
_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Pairing:
    """The baseline's cases matched with this run's.

    Attributes:
        pairs: (baseline, new) pairs, in the new run's canonical order.
        new_only: This run's cases the baseline has no match for.
        base_only: The baseline's cases this run has no match for.
        by_id_only: Pairs matched on the id alone (the golden file moved).
        reused: The ids the baseline holds for another question (or reference): those
            cases are in ``new_only`` and ``base_only``, not paired. A conversation is
            one id: a turn that differs unpairs all its turns.
        unverified: Pairs matched by id alone because one side saved no question (a
            report written before questions were kept).
        unchecked: The ids not paired because no question could check them and the
            baseline is not an older report (it keeps questions or per-metric judges,
            or shows ids reused for another set).
    """

    pairs: list[tuple[CaseResult, CaseResult]]
    new_only: list[CaseResult]
    base_only: list[CaseResult]
    by_id_only: int
    reused: list[str] = field(default_factory=list)
    unverified: int = 0
    unchecked: list[str] = field(default_factory=list)


def _text(value: str | None) -> str:
    return " ".join((value or "").split())


def same_case(base: CaseResult, new: CaseResult) -> bool | None:
    """Whether two results of one id are the same case: True, False, or None (cannot tell).

    The question decides, whitespace aside; the reference too when both runs saved one.
    A side with no question saved (a report older than the field) cannot tell.
    """
    if not _text(base.question) or not _text(new.question):
        return None
    if _text(base.question) != _text(new.question):
        return False
    if _text(base.reference) and _text(new.reference):
        return _text(base.reference) == _text(new.reference)
    return True


def pairing(
    base: Sequence[CaseResult], new: Sequence[CaseResult], *, older_format: bool = True
) -> Pairing:
    """Pair baseline and new cases by (file, id), then by id alone for moved files.

    A pair whose question (or reference) differs is not the same case, whatever its id
    says: a baseline of another golden set numbered ``case-000…`` like this one pairs
    nothing.

    Args:
        base: The baseline's case results.
        new: The new run's case results.
        older_format: Whether the baseline may be a report written before questions
            were kept (False: it records per-metric judges, so it is current).
    """
    base_by_key = {r.key: r for r in canonical_order(base)}
    matched: list[tuple[CaseResult, CaseResult]] = []
    unmatched_new: list[CaseResult] = []
    for result in canonical_order(new):
        match = base_by_key.pop(result.key, None)
        if match is None:
            unmatched_new.append(result)
        else:
            matched.append((match, result))

    # A file that moved keeps its ids; pair on the id only where it names one case on
    # each side, since an id repeated across files cannot say which is which.
    base_left = list(base_by_key.values())
    base_ids = Counter(result.id for result in base_left)
    new_ids = Counter(result.id for result in unmatched_new)
    base_by_id = {result.id: result for result in base_left if base_ids[result.id] == 1}
    by_id_pairs: set[int] = set()
    new_only: list[CaseResult] = []
    for result in unmatched_new:
        match = base_by_id.pop(result.id, None) if new_ids[result.id] == 1 else None
        if match is None:
            new_only.append(result)
        else:
            matched.append((match, result))
            by_id_pairs.add(id(result))

    # A conversation is one case: one turn asked differently unpairs every turn of it.
    def unit(result: CaseResult) -> str:
        return result.id if result.conversation is None else result.conversation

    verdicts = [(pair, same_case(*pair)) for pair in matched]
    reused_units = {unit(new_result) for (_, new_result), same in verdicts if same is False}
    # A pair no question can check is trusted only from a report that kept no question
    # at all; a current report missing one, or a baseline showing ids of another set,
    # leaves the case unpaired rather than "safe" on an unchecked id.
    trust_unchecked = older_format and not reused_units and not any(_text(r.question) for r in base)
    unchecked_units = (
        set()
        if trust_unchecked
        else {unit(new_result) for (_, new_result), same in verdicts if same is None}
    )
    pairs: list[tuple[CaseResult, CaseResult]] = []
    unverified = 0
    for (base_result, new_result), same in verdicts:
        if unit(new_result) in reused_units or unit(new_result) in unchecked_units:
            new_only.append(new_result)
            continue
        pairs.append((base_result, new_result))
        unverified += (
            same is None and not _text(base_result.question) and bool(_text(new_result.question))
        )
    paired_base = {id(base_result) for base_result, _ in pairs}
    base_only = [result for result in canonical_order(base) if id(result) not in paired_base]
    pairs.sort(key=lambda pair: (pair[1].source, pair[1].id))
    return Pairing(
        pairs=pairs,
        new_only=canonical_order(new_only),
        base_only=base_only,
        by_id_only=sum(1 for _, new_result in pairs if id(new_result) in by_id_pairs),
        reused=sorted(reused_units),
        unverified=unverified,
        unchecked=sorted(unchecked_units),
    )


def pair_cases(
    base: Sequence[CaseResult], new: Sequence[CaseResult]
) -> tuple[list[tuple[CaseResult, CaseResult]], list[CaseResult], list[CaseResult], int]:
    """:func:`pairing` as ``(pairs, new_only, base_only, paired_by_id_only)``."""
    found = pairing(base, new)
    return found.pairs, found.new_only, found.base_only, found.by_id_only


def reused_ids_line(reused: Sequence[str], *, shown: int = 5) -> str | None:
    """``3 baseline ids reused for other questions: not paired (a, b, c)``, or None.

    >>> reused_ids_line(["case-000", "case-001", "case-002"], shown=2)
    '3 baseline ids reused for other questions: not paired (case-000, case-001, …)'
    """
    if not reused:
        return None
    names = ", ".join(reused[:shown]) + (", …" if len(reused) > shown else "")
    noun = "id" if len(reused) == 1 else "ids"
    return f"{len(reused)} baseline {noun} reused for other questions: not paired ({names})"


def unchecked_line(unchecked: Sequence[str], *, shown: int = 5) -> str | None:
    """The ids left unpaired because no question could check them, or None."""
    if not unchecked:
        return None
    names = ", ".join(unchecked[:shown]) + (", …" if len(unchecked) > shown else "")
    noun = "id" if len(unchecked) == 1 else "ids"
    return (
        f"{len(unchecked)} baseline {noun} saved no question: not paired ({names}); "
        "only a report written before questions were kept pairs by id alone"
    )


def unverified_line(count: int) -> str | None:
    """The pairs matched by id alone because the baseline saved no question, or None."""
    if not count:
        return None
    cases = "case" if count == 1 else "cases"
    return (
        f"{count} {cases} paired by id alone: the baseline saved no question to check them "
        "against (a report written by an older version); re-run the baseline to pair by question"
    )


def _score(result: CaseResult, metric: str) -> float | None:
    """A metric's number in a case, or None when unscored (n/a, errored, absent)."""
    if result.error is not None or metric in result.errors:
        return None
    return result.scores.get(metric)


def _repeats(result: CaseResult, metric: str) -> list[float]:
    """The scores of a case's repeats, when it was judged more than once."""
    scored = [score for score in result.repeat_scores.get(metric, []) if score is not None]
    return scored if len(scored) >= 2 else []


def case_deltas(pairs: Sequence[tuple[CaseResult, CaseResult]], metric: str) -> list[CaseDelta]:
    """The per-case changes of ``metric`` over the pairs scored in both runs.

    A conversation is one paired unit, as the gate counts it: the change of its score
    (:func:`conversation_score`) over the turns scored in both runs.

    Args:
        pairs: (baseline, new) case pairs from :func:`pair_cases`.
        metric: The metric.

    Returns:
        One delta per pair (or conversation) where both runs have a number, in pair order.
    """
    deltas = []
    conversations: dict[str, list[tuple[float, float]]] = {}
    for base_result, new_result in pairs:
        base_score, new_score = _score(base_result, metric), _score(new_result, metric)
        if base_score is None or new_score is None:
            continue
        if new_result.conversation is not None:
            key = case_identity(new_result.file, new_result.conversation)
            if key not in conversations:
                conversations[key] = []
                deltas.append(CaseDelta(case=key, metric=metric, base=0.0, new=0.0))
            conversations[key].append((base_score, new_score))
            continue
        deltas.append(
            CaseDelta(
                case=new_result.key,
                metric=metric,
                base=base_score,
                new=new_score,
                base_repeats=_repeats(base_result, metric),
                new_repeats=_repeats(new_result, metric),
            )
        )
    folded = []
    for delta in deltas:
        turns = conversations.get(delta.case)
        if turns is not None:
            delta = CaseDelta(
                case=delta.case,
                metric=metric,
                base=conversation_score(metric, [base for base, _ in turns]),
                new=conversation_score(metric, [new for _, new in turns]),
            )
        folded.append(delta)
    return folded


def case_drops(
    base: Sequence[CaseResult],
    new: Sequence[CaseResult],
    directions: Mapping[str, Direction],
    gated: Collection[str] = (),
) -> list[CaseDelta]:
    """Every paired case's move to the worse side, per metric, the largest first.

    The drops of ``gated`` metrics come before any other, so a list cut at ten shows the
    drops that can fail the gate before those of metrics only reported.

    Args:
        base: The baseline's case results.
        new: The new run's case results.
        directions: The metrics to look at, each with its direction.
        gated: The metrics the gate decides on.
    """
    pairs, _, _, _ = pair_cases(base, new)
    drops = [
        change
        for metric, direction in directions.items()
        for change in case_deltas(pairs, metric)
        if change.worsening(direction) > _TOLERANCE
    ]
    drops.sort(
        key=lambda change: (
            change.metric not in gated,
            -change.worsening(directions[change.metric]),
            change.case,
            change.metric,
        )
    )
    return drops


def _signed(value: float) -> str:
    return f"{value:+.2f}"


def _metric_delta(
    metric: str, deltas: Sequence[CaseDelta], config: GateConfig, label: str, *, gated: bool
) -> MetricDelta:
    if not deltas:
        return MetricDelta(
            metric=metric,
            n_paired=0,
            base_mean=None,
            new_mean=None,
            delta=None,
            ci_low=None,
            ci_high=None,
            regressed=False,
            gated=gated,
            message=f"{metric}: no case scored in both runs; not compared",
        )
    base_mean = mean([delta.base for delta in deltas])
    new_mean = mean([delta.new for delta in deltas])
    change = mean([delta.delta for delta in deltas])
    repeated = any(delta.base_repeats or delta.new_repeats for delta in deltas)
    if repeated:
        # Cases, then each side's repeats within a case: the judge's jitter is inside.
        ci_low, ci_high = hull(
            two_level_paired_bootstrap_ci(
                [
                    (delta.new_repeats or [delta.new], delta.base_repeats or [delta.base])
                    for delta in deltas
                ],
                confidence=config.confidence,
                resamples=config.bootstrap_resamples,
                seed=config.seed,
            ),
            # A change of a score in [0, 1] lies in [-1, 1].
            bounded_interval(
                [delta.delta for delta in deltas], low=-1.0, confidence=config.confidence
            ),
        )
    else:
        ci_low, ci_high = bounded_mean_ci(
            [delta.delta for delta in deltas],
            low=-1.0,
            confidence=config.confidence,
            resamples=config.bootstrap_resamples,
            seed=config.seed,
        )
    noise = judge_noise_band(deltas, config.confidence) if repeated else None
    # A regression is a move to the worse side: down for most metrics, up for a
    # lower-is-better one such as contradiction_rate.
    bound = config.bounds().get(metric)
    worse = (bound.direction if bound is not None else config.direction_of(metric)) == "max"
    dropped_materially = (change if worse else -change) > config.max_regression + _TOLERANCE
    real = ci_low > 0.0 if worse else ci_high < 0.0
    within_judge_noise = noise is not None and abs(change) <= noise + _TOLERANCE
    regressed = dropped_materially and real and not within_judge_noise
    if regressed:
        status = "regressed" if gated else "regressed (not gated)"
    elif dropped_materially and within_judge_noise:
        status = "dropped, within the judge's noise"
    elif dropped_materially:
        status = "dropped, within noise"
    else:
        status = "no regression"
    shown_noise = "" if noise is None else f", judge noise ±{noise:.2f}"
    message = (
        f"{metric} {status}: mean {new_mean:.2f} vs baseline {base_mean:.2f} "
        f"(Δ {_signed(change)}, {label} CI {interval_text(ci_low, ci_high)}{shown_noise}, "
        f"n={len(deltas)} paired)"
    )
    return MetricDelta(
        metric=metric,
        n_paired=len(deltas),
        base_mean=base_mean,
        new_mean=new_mean,
        delta=change,
        ci_low=ci_low,
        ci_high=ci_high,
        regressed=regressed,
        gated=gated,
        message=message,
        judge_noise=noise,
    )


def judge_noise_band(deltas: Sequence[CaseDelta], confidence: float) -> float | None:
    """How far the judge's noise alone moves the mean change, at ``confidence`` (two-sided).

    The mean change over n paired cases, with no change in the system, differs from 0 by
    the judge's noise only: its variance is the sum over the cases of each side's
    within-case variance over its number of repeats, divided by n². A side judged once
    has no variance of its own to show; it is taken at the other side's mean within-case
    variance, since the same judge scored it. None when no case has two repeats.

    >>> same = [CaseDelta(case=f"c{i}", metric="m", base=0.5, new=0.5,
    ...                   base_repeats=[0.0, 1.0], new_repeats=[1.0, 0.0]) for i in range(4)]
    >>> round(judge_noise_band(same, 0.95), 4)
    0.693
    """
    variances = [
        _variance(delta.new_repeats) for delta in deltas if len(delta.new_repeats) >= 2
    ] + [_variance(delta.base_repeats) for delta in deltas if len(delta.base_repeats) >= 2]
    if not variances:
        return None
    typical = mean(variances)
    total = 0.0
    for delta in deltas:
        for repeats in (delta.new_repeats, delta.base_repeats):
            if len(repeats) >= 2:
                total += _variance(repeats) / len(repeats)
            else:
                total += typical
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    return z * math.sqrt(total) / len(deltas)


def _variance(values: Sequence[float]) -> float:
    """The sample variance of two or more values."""
    centre = mean(values)
    return math.fsum((value - centre) ** 2 for value in values) / (len(values) - 1)


def compare_to_baseline(
    base: Sequence[CaseResult],
    new: Sequence[CaseResult],
    metrics: Sequence[str],
    config: GateConfig,
    *,
    path: str,
    warnings: Sequence[str] = (),
    base_judge: JudgeInfo | None = None,
    new_judge: JudgeInfo | None = None,
) -> BaselineComparison:
    """Compare a run with its baseline, metric by metric.

    Cases pair when their id and question (and reference, where both have one) match. A
    metric the baseline's judge scored differently (:func:`.judge_changes.judge_changes`)
    is not compared — no regression, no newly failing — unless
    ``baseline.allow_judge_change`` is set; its absolute threshold still decides.

    Args:
        base: The baseline's case results.
        new: The new run's case results.
        metrics: The metrics to compare (the new run's gate metrics).
        config: The new run's settings (``max_regression``, ``min_paired``,
            ``allow_judge_change``, confidence, resamples, seed).
        path: The baseline as the user named it, for messages.
        warnings: How the baseline was scored differently (:func:`scoring_differences`).
        base_judge: Who scored the baseline (None: not known, taken as alike).
        new_judge: Who scored this run.

    Returns:
        The comparison; ``regressed_metrics`` lists the metrics that fail.
    """
    found = pairing(base, new, older_format=base_judge is None or not base_judge.metrics)
    pairs = found.pairs
    label = f"{round(config.confidence * 100, 6):g}%"
    gated = set(config.effective_thresholds())
    for tag_thresholds in config.tag_thresholds.values():
        gated.update(tag_thresholds)
    bounds = config.bounds()
    changed = (
        {}
        if base_judge is None or new_judge is None
        else judge_changes(base_judge, new_judge, metrics)
    )
    compared = {metric: config.allow_judge_change or metric not in changed for metric in metrics}
    evaluated = len(pairs) >= config.min_paired
    errored = {
        metric: any(metric in result.errors or result.error is not None for result in new)
        for metric in metrics
    }
    deltas = {}
    for metric in metrics:
        delta = _metric_delta(
            metric, case_deltas(pairs, metric), config, label, gated=metric in gated
        )
        update: dict[str, object] = {"judge_change": changed.get(metric)}
        if not compared[metric]:
            update.update(
                regressed=False,
                compared=False,
                message=f"{metric} not compared: {changed[metric]}",
            )
        elif evaluated and delta.n_paired == 0 and errored[metric]:
            # The judge failed where a change would be measured: not a pass of either
            # the regression or the newly failing check.
            judged_here = any(result.scores.get(metric) is not None for result in new)
            update["unscored"] = (
                "no case scored in both runs"
                if judged_here
                else "this run's judge gave no usable answer"
            )
        elif evaluated:
            # Newly failing is measured on the baseline's cases only when they are this
            # run's: a baseline that paired too few says nothing of it.
            update["base_passed"] = _base_passed(
                [base_result for base_result, _ in pairs], metric, config
            )
        deltas[metric] = delta.model_copy(update=update)
    lines = [
        line
        for line in (
            reused_ids_line(found.reused),
            unchecked_line(found.unchecked),
            unverified_line(found.unverified),
        )
        if line
    ]
    # A metric only reported decides nothing, so no "not evaluated" reason names it: a
    # warning does, or its judge change would show in the JSON alone.
    reported: dict[str, list[str]] = {}
    for metric, change in changed.items():
        if not config.allow_judge_change and metric not in gated:
            reported.setdefault(change, []).append(metric)
    lines += [
        f"{change} ({', '.join(names)}); not compared (reported only, decides nothing)"
        for change, names in reported.items()
    ]
    if config.allow_judge_change:
        by_change: dict[str, list[str]] = {}
        for metric, change in changed.items():
            by_change.setdefault(change, []).append(metric)
        lines += [
            f"{change} ({', '.join(names)}); compared anyway (baseline.allow_judge_change): "
            "its deltas mix judge changes with system changes"
            for change, names in by_change.items()
        ]
    return BaselineComparison(
        path=path,
        max_regression=config.max_regression,
        confidence=config.confidence,
        paired_cases=len(pairs),
        paired_by_id_only=found.by_id_only,
        new_cases=[result.key for result in found.new_only],
        removed_cases=[result.key for result in found.base_only],
        metrics=deltas,
        regressed_metrics=(
            [metric for metric, delta in deltas.items() if delta.regressed and delta.gated]
            if evaluated
            else []
        ),
        min_paired=config.min_paired,
        warnings=[*lines, *warnings],
        case_misses=(
            {
                new_result.key: missed
                for base_result, new_result in pairs
                if (missed := [miss.metric for miss in case_misses(base_result, bounds)])
            }
            if evaluated
            else None
        ),
        reused_ids=found.reused,
        unverified_pairs=found.unverified,
        allow_judge_change=config.allow_judge_change,
    )


def _base_passed(base: Sequence[CaseResult], metric: str, config: GateConfig) -> bool | None:
    """Whether ``metric`` passed this run's threshold over the baseline's cases."""
    if metric not in config.bounds() or not any(metric in result.scores for result in base):
        return None
    if config.rule_for(metric) == "mean":
        # The mean decides alone: the interval the aggregate also draws needs no precision.
        config = config.model_copy(update={"bootstrap_resamples": 100})
    return aggregate_metric(base, metric, config).passed


def scoring_differences(base_metrics: Sequence[str], new_metrics: Sequence[str]) -> list[str]:
    """How a baseline was scored on other metrics than the run compared with it.

    A metric on one side only is not compared at all; a metric judged differently is said
    by :func:`compare_to_baseline` itself.

    Args:
        base_metrics: The baseline's metrics.
        new_metrics: This run's metrics.

    Returns:
        One warning, or none when both scored the same metrics.
    """
    only_new = [metric for metric in new_metrics if metric not in base_metrics]
    only_base = [metric for metric in base_metrics if metric not in new_metrics]
    if not (only_new or only_base):
        return []
    parts = []
    if only_new:
        parts.append("not in the baseline: " + ", ".join(only_new))
    if only_base:
        parts.append("in the baseline only: " + ", ".join(only_base))
    return [
        f"the baseline was scored on other metrics ({'; '.join(parts)}); those are not compared"
    ]


def in_shard(
    results: Sequence[CaseResult],
    shard: Shard | None,
    current: Sequence[CaseResult] = (),
) -> list[CaseResult]:
    """The baseline cases of one shard, so a shard is compared with its own share only.

    A case belongs to the shard its (file, id) hashes to, or to the shard of this run's
    case it pairs with (same id and question, :func:`pairing`): a golden file that moved
    or was renamed hashes its cases to other shards, and they must pair there rather
    than count as new in one shard and removed in another.

    Args:
        results: Case results of a full run.
        shard: The shard of the current run, or None.
        current: This shard's case results.

    Returns:
        The results of ``shard`` (all of them without a shard).
    """
    if shard is None:
        return list(results)
    paired = {id(base) for base, _ in pairing(results, current).pairs} if current else set()
    return [
        result
        for result in results
        if id(result) in paired or shard.holds(result.file, result.conversation or result.id)
    ]


def against_baseline(
    aggregate: MetricAggregate, comparison: BaselineComparison | None, *, min_cases: int = 1
) -> MetricAggregate:
    """``aggregate`` with its baseline facts: the paired baseline mean, and newly failing.

    A gated metric that passed this run's threshold in the baseline and fails it now is
    *newly failing since the baseline*, whether or not the paired test finds the drop
    significant: its verdict line says so.
    """
    delta = None if comparison is None else comparison.metrics.get(aggregate.metric)
    if delta is None or not delta.compared:
        return aggregate
    # A metric the judge left without enough scored cases was not judged in this run:
    # nothing is newly failing about it.
    unjudged = bool(aggregate.errors) and aggregate.n < min_cases
    newly = delta.base_passed is True and aggregate.passed is False and not unjudged
    message = aggregate.message
    if newly:
        paired = (
            ""
            if delta.base_mean is None
            else f"; baseline mean {delta.base_mean:.2f} on the same {delta.n_paired} "
            f"paired case{'' if delta.n_paired == 1 else 's'}"
        )
        message += f" — newly failing since the baseline (passed there{paired})"
    return aggregate.model_copy(
        update={
            "baseline_mean": delta.base_mean,
            "baseline_paired": delta.n_paired,
            "baseline_passed": delta.base_passed,
            "newly_failing": newly,
            "message": message,
        }
    )
