"""The judge's own noise per metric, measured from repeated judgements of the same cases.

With ``repeats: K`` (K ≥ 2) each case result carries, per metric, the score of every repeat
and how many item verdicts all repeats gave alike (:mod:`pytest_ragas_gate.scoring.repeats`). Per
metric this module reports:

- ``agreement``: the share of item verdicts (claims, statements, chunks, ratings)
  identical across the repeats of a case, pooled over the repeated cases, in [0, 1];
- ``sd``: the mean within-case standard deviation of the metric's score;
- ``cases``: how many cases were repeated and scored, and ``repeats`` the most repeats
  one of them had.

Everything is computed from case results alone, so ``rag-gate gate`` (one report or merged shards)
reproduces the figures of the run. A metric whose agreement falls below
``trust.agreement.self`` fails the gate: its judge is too noisy for the verdict to stand.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from ..scoring.results import CaseResult
from ..settings.config import GateConfig
from ..stats import mean, two_level_bootstrap_ci
from .checks import GateCheck

__all__ = [
    "JudgeNoise",
    "judge_noise_check",
    "measure_judge_noise",
    "noise_aware_ci",
    "noise_properties",
    "repeat_groups",
    "too_noisy",
]


class JudgeNoise(BaseModel):
    """How much one metric's judge disagrees with itself across repeats of the same case."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    agreement: float | None
    sd: float | None
    cases: int
    repeats: int
    items: int = 0


def _usable(result: CaseResult, metric: str) -> bool:
    return result.error is None and metric not in result.errors


def repeat_groups(result: CaseResult, metric: str) -> list[float]:
    """The case's scores of ``metric``, one per repeat that scored it.

    An unrepeated case gives its one score; an unscored case (n/a, error) none.

    >>> repeated = CaseResult(id="a", source="g:1", scores={"m": 0.5},
    ...                       repeat_scores={"m": [0.0, 1.0, None]})
    >>> repeat_groups(repeated, "m")
    [0.0, 1.0]
    >>> repeat_groups(CaseResult(id="b", source="g:2", scores={"m": 0.7}), "m")
    [0.7]
    """
    if not _usable(result, metric) or result.scores.get(metric) is None:
        return []
    repeats = result.repeat_scores.get(metric)
    if repeats:
        return [score for score in repeats if score is not None]
    score = result.scores[metric]
    return [] if score is None else [score]


def _spread(scores: Sequence[float]) -> float:
    """The sample standard deviation of a case's repeats (0 for one).

    In floats rather than :func:`~pytest_ragas_gate.stats.sample_std`'s exact fractions:
    a repeated run of many cases takes one per case and metric, in the repeats' own order.
    """
    if len(scores) < 2:
        return 0.0
    centre = mean(scores)
    return math.sqrt(math.fsum((score - centre) ** 2 for score in scores) / (len(scores) - 1))


def measure_judge_noise(results: Sequence[CaseResult], metric: str) -> JudgeNoise | None:
    """The judge noise of ``metric`` over ``results``; None when no case was repeated.

    Args:
        results: Case results, in canonical order (the figures do not depend on it).
        metric: The metric.

    Returns:
        The figures, or None when no scored case of ``metric`` had two repeats or more.

    Example:
        >>> from pytest_ragas_gate.scoring.repeats import ItemAgreement
        >>> def case(name, scores, identical):
        ...     return CaseResult(id=name, source=f"g:{name}", scores={"m": sum(scores) / 3},
        ...                       repeat_scores={"m": scores},
        ...                       repeat_agreement={"m": ItemAgreement(identical=identical,
        ...                                                            items=4)})
        >>> noise = measure_judge_noise(
        ...     [case("a", [1.0, 1.0, 1.0], 4), case("b", [0.5, 0.75, 0.5], 3)], "m")
        >>> noise.agreement, round(noise.sd, 4), noise.cases, noise.repeats
        (0.875, 0.0722, 2, 3)
    """
    identical = items = 0
    spreads: list[float] = []
    cases = most_repeats = 0
    for result in results:
        if not _usable(result, metric) or len(result.repeat_scores.get(metric, [])) < 2:
            continue
        scores = repeat_groups(result, metric)
        agreement = result.repeat_agreement.get(metric)
        if agreement is not None:
            identical += agreement.identical
            items += agreement.items
        if not scores:
            continue
        cases += 1
        most_repeats = max(most_repeats, len(result.repeat_scores[metric]))
        spreads.append(_spread(scores))
    if not cases:
        return None
    return JudgeNoise(
        agreement=identical / items if items else None,
        sd=mean(spreads) if spreads else None,
        cases=cases,
        repeats=most_repeats,
        items=items,
    )


def too_noisy(metric: str, noise: JudgeNoise | None, floor: float | None) -> str | None:
    """The failure line when ``metric``'s judge agrees with itself less than ``floor``.

    A floor with no measured agreement checks nothing and is not a failure here; the
    gate reports that check as not evaluated.

    >>> noise = JudgeNoise(agreement=0.8, sd=0.05, cases=20, repeats=3, items=60)
    >>> too_noisy("faithfulness", noise, 0.9)
    'faithfulness judge too noisy for this metric: agreement 0.80 < trust.agreement.self 0.90 (48 of 60 item verdicts identical across 3 repeats of 20 cases)'
    >>> too_noisy("faithfulness", noise, 0.8) is None
    True
    """  # noqa: E501
    if floor is None or noise is None or noise.agreement is None:
        return None
    if noise.agreement >= floor:
        return None
    identical = round(noise.agreement * noise.items)
    return (
        f"{metric} judge too noisy for this metric: agreement {noise.agreement:.2f} < "
        f"trust.agreement.self {floor:.2f} ({identical} of {noise.items} item verdicts "
        f"identical across {noise.repeats} repeats of {noise.cases} cases)"
    )


def noise_aware_ci(
    ordered: Sequence[CaseResult], metric: str, scores: Sequence[float], config: GateConfig
) -> tuple[float, float] | None:
    """The two-level bootstrap interval of ``metric``, or None when no case was repeated.

    Args:
        ordered: The case results in canonical order.
        metric: The metric.
        scores: Its scored cases' (mean) scores, as the gate collected them in that order.
        config: The settings (confidence, resamples, seed).

    Returns:
        ``(low, high)``, or None: then the one-level interval of ``scores`` applies.
    """
    if not any(len(result.repeat_scores.get(metric, [])) >= 2 for result in ordered):
        return None
    groups = [group for group in (repeat_groups(r, metric) for r in ordered) if group]
    if len(groups) != len(scores):
        return None  # the scores counted otherwise (a whole-case error): keep to them
    return two_level_bootstrap_ci(
        groups,
        confidence=config.confidence,
        resamples=config.bootstrap_resamples,
        seed=config.seed,
    )


def judge_noise_check(
    metric: str, noise: JudgeNoise | None, floor: float | None, *, gated: bool
) -> GateCheck | None:
    """The failing check of a gated metric whose judge is too noisy; None otherwise."""
    line = too_noisy(metric, noise, floor)
    if line is None or not gated:
        return None
    return GateCheck(
        name=f"judge_noise:{metric}",
        kind="judge_noise",
        passed=False,
        message=line,
        cause="judge too noisy for this metric",
        subject=metric,
        properties={**noise_properties(noise), "verdict": line},
    )


def noise_properties(noise: JudgeNoise | None) -> dict[str, str]:
    """A metric's judge noise as JUnit properties (none without repeats)."""
    if noise is None:
        return {}
    properties = {"judge_noise_cases": str(noise.cases), "judge_repeats": str(noise.repeats)}
    if noise.agreement is not None:
        properties["judge_agreement"] = f"{noise.agreement:.4f}"
    if noise.sd is not None:
        properties["judge_noise_sd"] = f"{noise.sd:.4f}"
    return properties
