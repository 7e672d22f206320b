"""Prediction-powered inference: the human-scale mean of a metric from a few labels.

A judge scores every case; people label a few of them. The judge's mean is precise but
biased, the labels' mean unbiased but wide. Prediction-powered inference (Angelopoulos et
al., Science 2023; used for RAG evaluation by ARES, Saad-Falcon et al., NAACL 2024)
combines both: the judge's mean over the N unlabelled cases, corrected by the judge's mean
error on the n labelled ones (the *rectifier*)::

    estimate = mean(judge over unlabelled) - mean(judge - human over labelled)

Its variance is the sum of the two terms' variances, and the interval is the normal
approximation around it. The human-scale mean lives in [0, 1], so the estimate and both
ends of its interval are clipped to [0, 1] (which never lowers the coverage, and keeps the
interval ordered and around the estimate: a rectifier larger than the judge's mean gives
0.000 [0.000–0.000], never a negative mean or an inverted interval). The interval is
valid however biased the judge is; the better the judge tracks people, the narrower it
gets, down to far narrower than the labels alone. It needs the labelled cases to be a
random sample of the golden set: the gate leaves out labels marked
``sampled_by: near_threshold``.

PPI++ (Angelopoulos, Duchi and Zrnic, 2023) weighs the judge by a power-tuning factor
``lam`` in [0, 1] estimated from the data: ``lam = 1`` is the classical estimator above,
``lam = 0`` the labels' own mean; the tuned value is never wider than either, up to the
estimation of ``lam``.

Pure Python and exactly rounded sums (:func:`math.fsum`), so the figures do not depend on
the order of the cases or on the machine.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

from .figures import PowerTunedEstimate, PpiEstimate

__all__ = [
    "PowerTunedEstimate",
    "PpiEstimate",
    "normal_interval",
    "ppi_mean",
    "variance",
]


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def variance(values: Sequence[float]) -> float:
    """The sample variance (``ddof=1``), 0.0 for fewer than two values.

    Two passes with exactly rounded sums: the same value in any order of the inputs.

    Example:
        >>> variance([1.0, 0.0, 1.0, 0.0])
        0.3333333333333333
        >>> variance([0.4])
        0.0
    """
    if len(values) < 2:
        return 0.0
    centre = _mean(values)
    return math.fsum((value - centre) ** 2 for value in values) / (len(values) - 1)


def _covariance(first: Sequence[float], second: Sequence[float]) -> float:
    if len(first) < 2:
        return 0.0
    first_mean, second_mean = _mean(first), _mean(second)
    products = ((a - first_mean) * (b - second_mean) for a, b in zip(first, second, strict=True))
    return math.fsum(products) / (len(first) - 1)


def normal_interval(centre: float, var: float, confidence: float) -> tuple[float, float]:
    """``centre ± z · sqrt(var)``, z the two-sided normal quantile of ``confidence``.

    Not cut to [0, 1]: :func:`ppi_mean` does that for the means it estimates.

    Example:
        >>> low, high = normal_interval(0.5, 0.0004, 0.95)
        >>> round(low, 4), round(high, 4)
        (0.4608, 0.5392)
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence={confidence} is outside (0, 1)")
    half = NormalDist().inv_cdf(0.5 + confidence / 2.0) * math.sqrt(max(var, 0.0))
    return centre - half, centre + half


def ppi_mean(
    judge_unlabelled: Sequence[float],
    judge_labelled: Sequence[float],
    human_labelled: Sequence[float],
    *,
    confidence: float = 0.95,
    power_tuning: bool = False,
) -> PpiEstimate:
    """The classical PPI estimate of the human-scale mean, with its interval.

    Args:
        judge_unlabelled: The judge's scores of the cases nobody labelled.
        judge_labelled: The judge's scores of the labelled cases.
        human_labelled: The human labels of the same cases, in the same order.
        confidence: The coverage of the interval, e.g. 0.95.
        power_tuning: Also compute the PPI++ figure (:class:`PowerTunedEstimate`).

    Returns:
        The estimate. With no unlabelled case it is the labels' own mean and interval.

    Raises:
        ValueError: With no labelled case, or labels and scores of different lengths.

    Example:
        The judge reads 0.1 high on the labelled cases, so its unlabelled mean of 0.8 is
        corrected to 0.7:

        >>> result = ppi_mean([0.9, 0.7, 0.8, 0.8], [1.0, 0.6], [0.9, 0.5])
        >>> round(result.estimate, 10), round(result.rectifier, 10)
        (0.7, 0.1)
    """
    if len(judge_labelled) != len(human_labelled):
        raise ValueError(
            f"{len(judge_labelled)} judge scores but {len(human_labelled)} human labels"
        )
    if not human_labelled:
        raise ValueError("prediction-powered inference needs at least one labelled case")
    n, big_n = len(human_labelled), len(judge_unlabelled)
    errors = [judge - human for judge, human in zip(judge_labelled, human_labelled, strict=True)]
    rectifier = _mean(errors)
    human_mean = _mean(human_labelled)
    if big_n == 0:
        # Everything is labelled: the labels are the answer, with their own interval.
        spread = variance(human_labelled) / n
        estimate, judge_mean = human_mean, _mean(judge_labelled)
    else:
        judge_mean = _mean(judge_unlabelled)
        estimate = judge_mean - rectifier
        spread = variance(judge_unlabelled) / big_n + variance(errors) / n
    low, high = _unit(normal_interval(estimate, spread, confidence))
    estimate = _clip(estimate)
    tuned = (
        _power_tuned(judge_unlabelled, judge_labelled, human_labelled, confidence)
        if power_tuning
        else None
    )
    return PpiEstimate(
        labelled=n,
        unlabelled=big_n,
        estimate=estimate,
        ci_low=low,
        ci_high=high,
        standard_error=math.sqrt(spread),
        judge_mean=judge_mean,
        rectifier=rectifier,
        human_mean=human_mean,
        power_tuned=tuned,
    )


def _power_tuned(
    judge_unlabelled: Sequence[float],
    judge_labelled: Sequence[float],
    human_labelled: Sequence[float],
    confidence: float,
) -> PowerTunedEstimate:
    """PPI++ for a mean: ``lam = Cov(human, judge) / ((1 + n/N) Var(judge))``, clipped to [0, 1].

    The variance of ``lam · mean_N(judge) − mean_n(lam · judge − human)`` is
    ``lam² Var(judge)/N + Var(human − lam · judge)/n``, smallest at that ``lam``; the judge's
    variance is estimated from every scored case.
    """
    n, big_n = len(human_labelled), len(judge_unlabelled)
    judge_variance = variance([*judge_unlabelled, *judge_labelled])
    if big_n == 0 or judge_variance == 0.0:
        lam = 0.0
    else:
        raw = _covariance(human_labelled, judge_labelled) / ((1 + n / big_n) * judge_variance)
        lam = min(1.0, max(0.0, raw))
    residuals = [
        human - lam * judge for judge, human in zip(judge_labelled, human_labelled, strict=True)
    ]
    judge_term = lam * _mean(judge_unlabelled) if big_n else 0.0
    estimate = judge_term + _mean(residuals)
    spread = variance(residuals) / n + (
        lam * lam * variance(judge_unlabelled) / big_n if big_n else 0.0
    )
    low, high = _unit(normal_interval(estimate, spread, confidence))
    return PowerTunedEstimate(
        lam=lam,
        estimate=_clip(estimate),
        ci_low=low,
        ci_high=high,
        standard_error=math.sqrt(spread),
    )


def _clip(value: float) -> float:
    """A value in [0, 1]: the nearest end when it falls outside."""
    return min(1.0, max(0.0, value))


def _unit(interval: tuple[float, float]) -> tuple[float, float]:
    """An interval for a mean of values in [0, 1], both ends clipped to [0, 1].

    Clipping each end (not only the outer one) keeps the interval ordered when it lies
    wholly outside [0, 1]:

    >>> _unit((-0.42, -0.195))
    (0.0, 0.0)
    >>> _unit((0.9, 1.2))
    (0.9, 1.0)
    """
    low, high = interval
    return _clip(low), _clip(high)
