"""The head-to-head figures of a run against its baseline, and the gate rule on them.

Each case paired with the baseline carries a :class:`~..scoring.pairwise_verdict.PairwiseVerdict`
(:mod:`pytest_ragas_gate.scoring.pairwise`): a win, a loss, a tie or an undecided
comparison of the new answer against the baseline's. Over the compared cases — every
paired case whose verdict the judge gave, unchanged answers counting as ties — the run
reports the judge's position-consistency (the share of changed cases on which both
positions gave the same judgement), how many comparisons were undecided (the judgement
changed with the position), and the win, loss and tie rates of the decided ones, each
with an interval at the run's confidence that stays honest on few cases
(:func:`~pytest_ragas_gate.stats.bounded_mean_ci`: a tie rate of 100% is not 100–100%).

The rule ``pairwise_loss_rate <= pairwise_max_loss_rate`` fails the run when the loss
rate is above the setting. A changed case the judge could not compare is an error of the
check (the gate fails closed, as for any judge failure). The rule is *not evaluated* —
the run is partial at best, never a pass — when fewer than ``min_paired`` cases were
compared, when the judge's position-consistency is below ``pairwise_min_consistency``
(it followed the order of the answers, not their content), or when fewer than
``min_cases`` comparisons were decided. Pure: a re-gated report reaches the same figures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..scoring.results import CaseResult
from ..settings.bounds import default_direction
from ..settings.config import GateConfig
from ..stats import bounded_mean_ci
from .aggregates import confidence_label
from .checks import GateCheck
from .pairwise_summary import PairwiseLoss, PairwiseSummary

__all__ = ["PairwiseLoss", "PairwiseSummary", "pairwise_check", "summarise_pairwise"]

#: How many of the worst losses the reports show side by side.
WORST_LOSSES_SHOWN = 5


def _rate(
    flags: Sequence[bool], config: GateConfig
) -> tuple[float | None, tuple[float, float] | None]:
    if not flags:
        return None, None
    values = [1.0 if flag else 0.0 for flag in flags]
    low, high = bounded_mean_ci(
        values,
        confidence=config.confidence,
        resamples=config.bootstrap_resamples,
        seed=config.seed,
    )
    return sum(values) / len(values), (low, high)


def _badness(result: CaseResult) -> float:
    """How a loss ranks among the worst: the lower the case's mean score, the earlier.

    Every loss is one the judge was sure of in both orders, so the case's own scores
    (mean over its scored metrics, a lower-is-better one turned round, 1.0 without any)
    put the worst first; a stable sort
    keeps canonical order among equals.
    """
    scores = [
        score if default_direction(metric) == "min" else 1.0 - score
        for metric, score in result.scores.items()
        if score is not None
    ]
    return sum(scores) / len(scores) if scores else 1.0


def _not_evaluated_reason(
    config: GateConfig,
    *,
    compared: int,
    decided: int,
    undecided: int,
    judged_twice: int,
    consistency: float | None,
) -> str | None:
    """Why the loss-rate rule checked nothing; None when the comparison decided enough.

    Consistency and the decided count matter only to a rule in force: figures reported
    alone show both beside them and decide nothing either way.
    """
    if compared < max(1, config.min_paired):
        return (
            f"pairwise check not evaluated: {compared} case(s) compared with the "
            f"baseline (min_paired {config.min_paired})"
        )
    if config.pairwise_max_loss_rate is None:
        return None
    floor = config.pairwise_min_consistency
    if consistency is not None and consistency < floor - 1e-9:
        return (
            f"pairwise check not evaluated: the judge's position-consistency was "
            f"{consistency:.0%} on {judged_twice} changed case(s), below "
            f"pairwise_min_consistency {floor:.0%}: its judgement followed the order the "
            f"answers were shown in, so {undecided} of {compared} compared case(s) decided "
            "nothing; judge with a stronger model, or lower pairwise_min_consistency"
        )
    if decided < config.min_cases:
        return (
            f"pairwise check not evaluated: {decided} of {compared} comparison(s) decided "
            f"({undecided} changed with the position), fewer than min_cases "
            f"{config.min_cases}; compare more cases, or lower min_cases"
        )
    return None


def summarise_pairwise(results: Sequence[CaseResult], config: GateConfig) -> PairwiseSummary | None:
    """The run's head-to-head figures; None when no case carries a pairwise verdict.

    Args:
        results: The run's case results, in canonical order.
        config: The settings (confidence, resamples, seed, ``pairwise_max_loss_rate``).
    """
    judged = [result for result in results if result.pairwise is not None]
    if not judged:
        return None
    # The comparison's module (and its judge requests) loads only for a run that compared.
    from ..scoring.pairwise import PAIRWISE_USAGE

    compared = [r for r in judged if r.pairwise is not None and r.pairwise.error is None]
    outcomes = [r.pairwise.outcome for r in compared if r.pairwise is not None]
    # A flip says nothing about which answer is better: the rates are of decided cases.
    decided = [outcome for outcome in outcomes if outcome != "undecided"]
    changed = [r.pairwise for r in compared if r.pairwise is not None and r.pairwise.changed]
    win_rate, win_ci = _rate([o == "win" for o in decided], config)
    loss_rate, loss_ci = _rate([o == "loss" for o in decided], config)
    tie_rate, tie_ci = _rate([o == "tie" for o in decided], config)
    undecided_rate, undecided_ci = _rate([o == "undecided" for o in outcomes], config)
    consistent = [verdict.consistent for verdict in changed if verdict.consistent is not None]
    consistency = (sum(consistent) / len(consistent)) if consistent else None
    losses = sorted(
        (r for r in compared if r.pairwise is not None and r.pairwise.outcome == "loss"),
        key=_badness,
    )
    undecided = outcomes.count("undecided")
    return PairwiseSummary(
        compared=len(compared),
        changed=sum(1 for r in judged if r.pairwise is not None and r.pairwise.changed),
        wins=outcomes.count("win"),
        losses=outcomes.count("loss"),
        ties=outcomes.count("tie"),
        position_ties=undecided,
        win_rate=win_rate,
        loss_rate=loss_rate,
        tie_rate=tie_rate,
        win_ci=win_ci,
        loss_ci=loss_ci,
        tie_ci=tie_ci,
        undecided=undecided,
        decided=len(decided),
        undecided_rate=undecided_rate,
        undecided_ci=undecided_ci,
        position_consistency=consistency,
        min_consistency=config.pairwise_min_consistency,
        min_cases=config.min_cases,
        not_evaluated_reason=_not_evaluated_reason(
            config,
            compared=len(compared),
            decided=len(decided),
            undecided=undecided,
            judged_twice=len(consistent),
            consistency=consistency,
        ),
        errors={
            r.key: r.pairwise.error
            for r in judged
            if r.pairwise is not None and r.pairwise.error is not None
        },
        comparisons=sum(len(r.pairwise.seen) for r in judged if r.pairwise is not None),
        calls=sum(r.usage[PAIRWISE_USAGE].calls for r in judged if PAIRWISE_USAGE in r.usage),
        cache_hits=sum(
            r.usage[PAIRWISE_USAGE].cache_hits for r in judged if PAIRWISE_USAGE in r.usage
        ),
        confidence=config.confidence,
        max_loss_rate=config.pairwise_max_loss_rate,
        rule=config.rule_for("pairwise_loss_rate"),
        min_paired=config.min_paired,
        worst_losses=[
            PairwiseLoss(
                case=r.key,
                question=r.question,
                new_answer=r.answer or "",
                baseline_answer=r.pairwise.baseline_answer or "",
                reasons=list(r.pairwise.reasons),
            )
            for r in losses[:WORST_LOSSES_SHOWN]
            if r.pairwise is not None
        ],
    )


def _upper_percent(value: float) -> str:
    """An interval's upper bound as the interval prints it: rounded up (``0.161`` → ``17%``)."""
    return f"{math.ceil(value * 100 - 1e-9)}%"


def pairwise_check(summary: PairwiseSummary | None) -> GateCheck | None:
    """The rule ``pairwise_loss_rate <= pairwise_max_loss_rate``; None without a summary."""
    if summary is None:
        return None
    properties = {
        "compared": str(summary.compared),
        "changed": str(summary.changed),
        "decided": str(summary.decided),
        "wins": str(summary.wins),
        "losses": str(summary.losses),
        "ties": str(summary.ties),
        "undecided": str(summary.undecided),
        "calls": str(summary.calls),
    }
    for name in ("win", "loss", "tie", "undecided"):
        value = getattr(summary, f"{name}_rate")
        interval = getattr(summary, f"{name}_ci")
        if value is not None:
            properties[f"{name}_rate"] = f"{value:.4f}"
        if interval is not None:
            properties[f"{name}_ci_low"] = f"{interval[0]:.4f}"
            properties[f"{name}_ci_high"] = f"{interval[1]:.4f}"
    if summary.position_consistency is not None:
        properties["position_consistency"] = f"{summary.position_consistency:.4f}"
    if summary.min_consistency is not None:
        properties["min_consistency"] = f"{summary.min_consistency:.4f}"
    if summary.max_loss_rate is not None:
        properties["max_loss_rate"] = f"{summary.max_loss_rate:.4f}"
    if summary.errors:
        first = next(iter(summary.errors.items()))
        message = (
            f"pairwise: {len(summary.errors)} changed case(s) could not be compared with the "
            f"baseline (first: {first[0]}: {first[1]})"
        )
        return GateCheck(
            name="pairwise_loss_rate",
            kind="pairwise",
            passed=False,
            message=message,
            cause="pairwise comparison incomplete",
            properties={**properties, "verdict": message},
            judge_unavailable=True,
        )
    if not summary.evaluated:
        message = summary.not_evaluated_reason or (
            f"pairwise check not evaluated: {summary.compared} case(s) compared with the "
            f"baseline (min_paired {summary.min_paired})"
        )
        return GateCheck(
            name="pairwise_loss_rate",
            kind="not_evaluated",
            passed=None,
            message=message,
            properties={**properties, "verdict": message},
        )
    passed = summary.passed
    lost = f"the new answers lose to the baseline's on {summary.short()}"
    if summary.max_loss_rate is None:
        message = (
            f"pairwise_loss_rate reported only: {lost}; set pairwise_max_loss_rate to gate on it"
        )
    else:
        relation = ">" if passed is False else "≤"
        rate = summary.loss_rate or 0.0
        if summary.rule == "ci_lower" and summary.loss_ci is not None:
            message = (
                f"pairwise_loss_rate {confidence_label(summary.confidence)} CI upper bound "
                f"{_upper_percent(summary.loss_ci[1])} {relation} pairwise_max_loss_rate "
                f"{summary.max_loss_rate:.0%} (rate {rate:.0%}, rule ci_lower): {lost}"
            )
        else:
            message = (
                f"pairwise_loss_rate {rate:.0%} {relation} "
                f"pairwise_max_loss_rate {summary.max_loss_rate:.0%}: {lost}"
            )
        if summary.thin_evidence and summary.loss_ci is not None:
            message += (
                f"; the {confidence_label(summary.confidence)} interval reaches "
                f"{_upper_percent(summary.loss_ci[1])}"
            )
    return GateCheck(
        name="pairwise_loss_rate",
        kind="pairwise",
        passed=passed,
        message=message,
        cause=None if passed is not False else "the new answers lose to the baseline's",
        hint=(
            None
            if passed is not False
            else "read the worst losses side by side in the HTML report or PR comment"
        ),
        properties={**properties, "verdict": message},
    )
