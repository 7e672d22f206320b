"""Small, deterministic statistics for the gate: means, spreads, bounded-score intervals.

Pure Python on purpose: the gate must give the same numbers on every machine and under
every worker layout, and must not pull in numpy. Sums go through :func:`math.fsum`, which
is exactly rounded and therefore independent of the order of the values.
"""

from __future__ import annotations

import itertools
import math
import operator
import random
import statistics
from collections import Counter
from collections.abc import Sequence
from statistics import NormalDist

#: From this many values on, a bootstrap over few distinct values draws how often each
#: value is picked (one binomial per value) instead of picking values one by one: the
#: same distribution of resampled means, at a cost that no longer grows with n.
COUNTED_RESAMPLING_FROM = 1000

#: Most distinct values for the counted resampling; built-in metric scores take few.
COUNTED_RESAMPLING_MAX_DISTINCT = 64

#: From this many cases on, the two-level bootstrap is taken at its normal limit: the same
#: mean and variance as its resamples, computed in one pass instead of resamples × cases
#: draws (a repeated run of 50,000 cases would otherwise spend minutes here).
TWO_LEVEL_NORMAL_FROM = 1000

#: Up to this many values, a bootstrap draws its picks as random bytes, one byte per pick,
#: mapped to indices in C (``bytes.translate``): two to four times faster than one ``random()``
#: per pick, which matters on every run of a typical golden set of a few hundred cases.
BYTE_RESAMPLING_MAX = 256

#: Up to about this many cases, the variance-scaled Wilson interval counts in full; from
#: then on its weight fades as ``SKEW_CORRECTED_UP_TO / n``, where the bootstrap's own
#: percentiles carry the skew of a bounded score and a large sample needs no more.
SKEW_CORRECTED_UP_TO = 10

__all__ = [
    "format_interval",
    "bootstrap_ci",
    "bounded_interval",
    "bounded_mean_ci",
    "mean",
    "paired_bootstrap_ci",
    "percentile",
    "expanded_tail",
    "hull",
    "interval_text",
    "sample_std",
    "two_level_bootstrap_ci",
    "two_level_paired_bootstrap_ci",
]


def interval_text(low: float, high: float, spec: str = ".2f") -> str:
    """An interval as text: ``0.61–0.84``, or ``-0.24 to -0.09`` when a bound is negative.

    A dash between two signed numbers reads as a minus (``-0.24–-0.09``), so an interval
    with a negative bound is written with "to".

    >>> interval_text(0.61, 0.84), interval_text(-0.24, -0.09), interval_text(-0.1, 0.2, "+.2f")
    ('0.61–0.84', '-0.24 to -0.09', '-0.10 to +0.20')
    """
    joiner = " to " if low < 0 or high < 0 or spec.startswith("+") else "–"
    return f"{low:{spec}}{joiner}{high:{spec}}"


def mean(values: Sequence[float]) -> float:
    """The arithmetic mean.

    An empty sequence is an error rather than 0.0: an aggregate over nothing must never
    look like a score.

    Args:
        values: The numbers to average.

    Returns:
        Their mean.

    Raises:
        ValueError: If ``values`` is empty.

    Example:
        >>> mean([1.0, 0.5, 0.0])
        0.5
        >>> mean([0.1] * 10)
        0.1
    """
    if not values:
        raise ValueError("the mean of no values is undefined")
    return math.fsum(values) / len(values)


def sample_std(values: Sequence[float]) -> float | None:
    """The sample standard deviation (``ddof=1``), or None with fewer than two values.

    Args:
        values: The numbers.

    Returns:
        The standard deviation, or None when it is undefined.

    Example:
        >>> sample_std([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])
        2.138089935299395
        >>> sample_std([0.7]) is None
        True
    """
    if len(values) < 2:
        return None
    # statistics.stdev computes with exact fractions, so the result cannot depend on order.
    return statistics.stdev(values)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile with linear interpolation between order statistics.

    This is numpy's default (``method="linear"``): the rank is ``q / 100 * (n - 1)``.

    Args:
        values: The numbers, in any order.
        q: The percentile, from 0 to 100.

    Returns:
        The interpolated percentile.

    Raises:
        ValueError: If ``values`` is empty or ``q`` is outside [0, 100].

    Example:
        >>> percentile([1.0, 2.0, 3.0, 4.0], 50)
        2.5
        >>> percentile([0.2, 0.9, 0.4], 95)
        0.85
        >>> percentile([5.0], 99)
        5.0
    """
    if not values:
        raise ValueError("the percentile of no values is undefined")
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"percentile q={q} is outside 0..100")
    ordered = sorted(values)
    return _interpolate(ordered, q / 100.0)


def _interpolate(ordered: Sequence[float], fraction: float) -> float:
    """Linear interpolation at ``fraction`` (0..1) of an already sorted sequence."""
    rank = fraction * (len(ordered) - 1)
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    weight = rank - low
    if weight == 0.0 or ordered[low] == ordered[high]:
        return ordered[low]
    return ordered[low] + (ordered[high] - ordered[low]) * weight


def bootstrap_ci(
    values: Sequence[float],
    *,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float]:
    """A percentile-bootstrap confidence interval for the mean.

    Resampling is driven by ``random.Random(seed)`` alone, so the same values in the same
    order and the same seed always give the same interval; callers that want independence
    from input order sort their values first.

    Args:
        values: The per-case scores.
        confidence: The coverage of the interval, e.g. 0.95.
        resamples: How many bootstrap resamples to draw.
        seed: The seed of the random generator.

    Returns:
        ``(low, high)``. A single value gives ``(x, x)``; identical values give a
        zero-width interval.

    Raises:
        ValueError: If ``values`` is empty, or ``confidence`` or ``resamples`` is out of range.

    Example:
        >>> bootstrap_ci([0.8], confidence=0.95, resamples=1000, seed=0)
        (0.8, 0.8)
        >>> low, high = bootstrap_ci([0.0, 1.0] * 20, confidence=0.95, resamples=1000, seed=0)
        >>> low < 0.5 < high
        True
        >>> bootstrap_ci([0.2, 0.4, 0.9], seed=3) == bootstrap_ci([0.2, 0.4, 0.9], seed=3)
        True
    """
    if not values:
        raise ValueError("a confidence interval over no values is undefined")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence={confidence} is outside (0, 1)")
    if resamples < 1:
        raise ValueError(f"resamples={resamples} must be at least 1")
    if min(values) == max(values):
        # The mean as mean() computes it, which for identical values may differ from them
        # in the last bit: the interval must contain the mean it is shown with.
        centre = mean(values)
        return (centre, centre)
    rng = random.Random(seed)
    size = len(values)
    counts = sorted(Counter(values).items())
    if size >= COUNTED_RESAMPLING_FROM and len(counts) <= COUNTED_RESAMPLING_MAX_DISTINCT:
        means = sorted(_counted_resample_mean(rng, counts, size) for _ in range(resamples))
    elif size <= BYTE_RESAMPLING_MAX:
        picks = _byte_picks(rng, size, size * resamples)
        pick = values.__getitem__
        means = sorted(
            math.fsum(map(pick, picks[start : start + size])) / size
            for start in range(0, len(picks), size)
        )
    else:
        means = sorted(math.fsum(rng.choices(values, k=size)) / size for _ in range(resamples))
    tail = (1.0 - confidence) / 2.0
    return (_interpolate(means, tail), _interpolate(means, 1.0 - tail))


def _byte_picks(rng: random.Random, size: int, count: int) -> bytes:
    """``count`` uniform indices below ``size`` (at most 256), one per byte.

    A random byte at or above the largest multiple of ``size`` that fits in a byte is
    dropped rather than folded, so every index is exactly equally likely.

    >>> picks = _byte_picks(random.Random(0), 3, 3000)
    >>> len(picks), sorted(set(picks))
    (3000, [0, 1, 2])
    """
    limit = 256 - 256 % size
    to_index = bytes(byte % size for byte in range(256))
    dropped = bytes(range(limit, 256))
    picks = b""
    while len(picks) < count:
        picks += rng.randbytes(count - len(picks)).translate(to_index, dropped)
    return picks


def _counted_resample_mean(
    rng: random.Random, counts: Sequence[tuple[float, int]], size: int
) -> float:
    """The mean of one resample of ``size`` values, drawn as a count per distinct value.

    The counts of a resample are multinomial; they are drawn as a chain of binomials, the
    count of each value among the draws not yet given to the values before it.
    """
    trials_left, weight_left = size, size
    parts: list[float] = []
    for value, count in counts:
        drawn = _binomial(rng, trials_left, count, weight_left)
        parts.append(value * drawn)
        trials_left -= drawn
        weight_left -= count
        if not trials_left:
            break
    return math.fsum(parts) / size


def _binomial(rng: random.Random, trials: int, numerator: int, denominator: int) -> int:
    """An exact draw from Binomial(trials, numerator / denominator), from random bits alone.

    Each trial compares a uniform number with p bit by bit; one ``getrandbits`` call
    decides about half of the still-undecided trials per bit of p, so a draw costs about
    log2(trials) calls whatever the number of trials.

    >>> rng = random.Random(5)
    >>> draws = [_binomial(rng, 1000, 3, 10) for _ in range(4000)]
    >>> abs(sum(draws) / len(draws) - 300) < 2
    True
    >>> _binomial(rng, 50, 0, 7), _binomial(rng, 50, 7, 7)
    (0, 50)
    """
    if numerator <= 0 or trials == 0:
        return 0
    if numerator >= denominator:
        return trials
    successes = 0
    undecided = trials
    remainder = numerator
    while undecided:
        remainder *= 2
        bit_is_one = remainder >= denominator
        if bit_is_one:
            remainder -= denominator
        ones = rng.getrandbits(undecided).bit_count()
        if bit_is_one:
            successes += undecided - ones  # the uniform's 0 under p's 1: below p
            undecided = ones
        else:
            undecided -= ones  # the uniform's 1 over p's 0: above p
        if remainder == 0:
            break  # p's remaining bits are 0: every undecided uniform is at least p
    return successes


def paired_bootstrap_ci(
    deltas: Sequence[float],
    *,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float]:
    """A confidence interval for the mean of paired differences (candidate − baseline).

    The caller pairs the two runs case by case and passes one delta per case; resampling
    the deltas keeps each pair together, which removes the between-case variance that an
    unpaired comparison would carry. A regression is "real" when the upper bound is below 0.

    Args:
        deltas: One difference per case present in both runs.
        confidence: The coverage of the interval.
        resamples: How many bootstrap resamples to draw.
        seed: The seed of the random generator.

    Returns:
        ``(low, high)`` for the mean delta.

    Raises:
        ValueError: As :func:`bootstrap_ci`.

    Example:
        >>> low, high = paired_bootstrap_ci([-0.2, -0.1, -0.15, -0.3, -0.05], seed=0)
        >>> high < 0.0
        True
        >>> paired_bootstrap_ci([0.0, 0.0, 0.0])
        (0.0, 0.0)
    """
    return bootstrap_ci(deltas, confidence=confidence, resamples=resamples, seed=seed)


def bounded_interval(
    values: Sequence[float],
    *,
    low: float = 0.0,
    high: float = 1.0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """An interval for the mean of scores bounded in ``[low, high]``, valid at any n.

    The hull of three intervals, each covering a case the percentile bootstrap misses:

    * **Unseen share** (Wilson 1927): a sample that shows no spread still leaves room for
      cases it did not draw. With no case off the most common score, the share of such
      cases is, at the given confidence, at most Wilson's upper bound for 0 of n,
      ``z² / (n + z²)``, and they may sit at either bound of the range; the mean moves by
      that share of the distance to the bound. For n identical scores at the top this is
      exactly Wilson's interval for n of n. The share is divided by ``(1 + k)²`` for ``k``
      cases off the most common score, so it fades as soon as the sample shows spread.
    * **Student's t** (Student 1908): ``mean ± t(n-1) · σ / √n``, with σ the spread
      the bootstrap resamples (divisor n): the bootstrap's normal limit, read at the
      small-sample quantile it lacks.
    * **Variance-scaled Wilson**: Wilson's score interval on the mean, with the sample's
      variance as the share ``r = s² / (m(1-m))`` of the largest a bounded score can have,
      i.e. at ``n / r`` effective trials, read at t(n-1): the skew of a score near a
      bound (for 0/1 scores it is Wilson's own interval). Its weight fades from
      :data:`SKEW_CORRECTED_UP_TO` cases on.

    Values outside ``[low, high]`` widen the range to hold them.

    Args:
        values: The scores (or, with ``low=-1``, paired differences).
        low: The smallest value a score can take.
        high: The largest value a score can take.
        confidence: The coverage of the interval.

    Returns:
        ``(low, high)``: inside the range, containing the mean, never zero-width.

    Raises:
        ValueError: If ``values`` is empty or ``confidence`` is out of range.

    Example:
        >>> [round(bound, 3) for bound in bounded_interval([1.0, 1.0])]
        [0.342, 1.0]
        >>> [round(bound, 3) for bound in bounded_interval([1.0] * 20)]
        [0.839, 1.0]
        >>> [round(bound, 3) for bound in bounded_interval([0.5])]
        [0.103, 0.897]
        >>> [round(bound, 3) for bound in bounded_interval([0.0, 0.0, 0.0], low=-1.0)]
        [-0.561, 0.561]
    """
    _check_interval(len(values), confidence, 1)
    floor, ceiling = min(low, min(values)), max(high, max(values))
    width = ceiling - floor
    if width <= 0.0:
        raise ValueError(f"the range {low}..{high} of a bounded score is empty")
    size = len(values)
    centre = mean(values)
    share = min(max((centre - floor) / width, 0.0), 1.0)
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    off_mode = size - max(Counter(values).values())
    unseen = z * z / (size + z * z) / (1 + off_mode) ** 2
    lows = [share - unseen * share]
    highs = [share + unseen * (1.0 - share)]
    if size >= 2:
        variance = statistics.variance(values) / (width * width)
        t = _t_quantile(1.0 - (1.0 - confidence) / 2.0, size - 1)
        # The bootstrap's own spread (divisor n), at t's quantile rather than the normal's.
        half = t * math.sqrt(variance * (size - 1) / size / size)
        lows.append(share - half)
        highs.append(share + half)
        spread = share * (1.0 - share)
        if variance > 0.0 and spread > 0.0:
            ratio = min(variance / spread, 1.0) * min(1.0, SKEW_CORRECTED_UP_TO / size)
            wilson_low, wilson_high = _wilson(share, size / ratio, t)
            lows.append(wilson_low)
            highs.append(wilson_high)
    start = max(min(lows), 0.0)
    end = min(max(highs), 1.0)
    return (min(floor + start * width, centre), max(floor + end * width, centre))


def _wilson(share: float, trials: float, z: float) -> tuple[float, float]:
    """Wilson's score interval for a share observed over ``trials`` (not necessarily whole).

    >>> [round(bound, 3) for bound in _wilson(0.9, 30, 1.959964)]
    [0.744, 0.965]
    """
    scale = 1.0 + z * z / trials
    middle = (share + z * z / (2.0 * trials)) / scale
    half = z / scale * math.sqrt(share * (1.0 - share) / trials + z * z / (4.0 * trials**2))
    return (middle - half, middle + half)


def _t_quantile(probability: float, degrees: int) -> float:
    """Student's t quantile: exact for 1 and 2 degrees of freedom, else Cornish-Fisher.

    >>> round(_t_quantile(0.975, 1), 3), round(_t_quantile(0.975, 2), 3)
    (12.706, 4.303)
    """
    if degrees == 1:
        return math.tan(math.pi * (probability - 0.5))
    if degrees == 2:
        return (2.0 * probability - 1.0) / math.sqrt(2.0 * probability * (1.0 - probability))
    return _student_t_quantile(probability, degrees)


def hull(*intervals: tuple[float, float]) -> tuple[float, float]:
    """The smallest interval holding every one given.

    >>> hull((0.2, 0.5), (0.3, 0.7))
    (0.2, 0.7)
    """
    return (min(low for low, _ in intervals), max(high for _, high in intervals))


def bounded_mean_ci(
    values: Sequence[float],
    *,
    low: float = 0.0,
    high: float = 1.0,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float]:
    """The gate's interval for a mean of bounded scores: bootstrap and bounded bound together.

    The hull of the seeded percentile bootstrap (:func:`bootstrap_ci`) and
    :func:`bounded_interval`: on a large sample with spread it is the bootstrap's, within
    a few thousandths; on a small or uniform one, the bounded interval keeps it honest.

    Args:
        values: The per-case scores (paired differences with ``low=-1``).
        low: The smallest value a score can take.
        high: The largest value a score can take.
        confidence: The coverage of the interval.
        resamples: How many bootstrap resamples to draw.
        seed: The seed of the random generator.

    Returns:
        ``(low, high)``, never zero-width, containing the mean.

    Raises:
        ValueError: As :func:`bootstrap_ci`.

    Example:
        >>> [round(bound, 2) for bound in bounded_mean_ci([1.0, 1.0])]
        [0.34, 1.0]
        >>> low, high = bounded_mean_ci([0.0, 1.0] * 20, seed=0)
        >>> low < 0.5 < high
        True
    """
    return hull(
        bootstrap_ci(values, confidence=confidence, resamples=resamples, seed=seed),
        bounded_interval(values, low=low, high=high, confidence=confidence),
    )


def _check_interval(count: int, confidence: float, resamples: int) -> None:
    if not count:
        raise ValueError("a confidence interval over no values is undefined")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence={confidence} is outside (0, 1)")
    if resamples < 1:
        raise ValueError(f"resamples={resamples} must be at least 1")


def _resampled_mean(rng: random.Random, repeats: Sequence[float]) -> float:
    """The mean of one resample of a case's repeats (a constant case needs no draw)."""
    if len(repeats) == 1 or min(repeats) == max(repeats):
        return repeats[0]
    return math.fsum(rng.choices(repeats, k=len(repeats))) / len(repeats)


def two_level_bootstrap_ci(
    groups: Sequence[Sequence[float]],
    *,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
    normal_from: int = TWO_LEVEL_NORMAL_FROM,
) -> tuple[float, float]:
    """A confidence interval for the mean of per-case means, from cases and their repeats.

    Each resample draws the cases with replacement, then each drawn case's repeats with
    replacement, and averages the per-case means: the interval carries both the sampling
    of cases and the judge's within-case noise. It counts that noise a second time (it is
    already in the spread of the case means), which widens the interval by a little, the
    safe side for a gate, and reads its percentiles at :func:`expanded_tail`, since the
    plain percentile interval is too narrow on a few dozen cases. Groups of one value
    each give :func:`bootstrap_ci`'s interval, as a run without repeats always did.

    Args:
        groups: One sequence per case: the case's score in each repeat (at least one).
        confidence: The coverage of the interval.
        resamples: How many bootstrap resamples to draw.
        seed: The seed of the random generator.
        normal_from: From this many cases on, the normal limit of the same bootstrap.

    Returns:
        ``(low, high)`` around the mean of the case means.

    Raises:
        ValueError: With no groups, an empty group, or ``confidence``/``resamples`` out
            of range.

    Example:
        >>> two_level_bootstrap_ci([[0.8], [0.6]]) == bootstrap_ci([0.8, 0.6])
        True
        >>> low, high = two_level_bootstrap_ci([[1.0, 0.0, 1.0], [1.0, 1.0, 0.0]] * 5, seed=1)
        >>> low < 2 / 3 < high
        True
        >>> two_level_bootstrap_ci([[0.5, 0.5], [0.5]])
        (0.5, 0.5)
    """
    _check_interval(len(groups), confidence, resamples)
    if any(not group for group in groups):
        raise ValueError("every case needs at least one score")
    case_means = [mean(group) for group in groups]
    if all(len(group) == 1 for group in groups):
        return bootstrap_ci(case_means, confidence=confidence, resamples=resamples, seed=seed)
    if all(min(group) == max(group) for group in groups) and min(case_means) == max(case_means):
        centre = mean(case_means)
        return (centre, centre)
    if len(groups) >= normal_from:
        return _normal_interval(case_means, [_resample_variance(g) for g in groups], confidence)
    rng = random.Random(seed)
    size = len(groups)
    table = _outcome_tables(groups)
    if table is not None:
        means = _tabled_means(rng, size, resamples, table)
    else:
        means = sorted(
            math.fsum(_resampled_mean(rng, groups[index]) for index in _indexes(rng, size)) / size
            for _ in range(resamples)
        )
    tail = expanded_tail(confidence, size)
    return (_interpolate(means, tail), _interpolate(means, 1.0 - tail))


def two_level_paired_bootstrap_ci(
    pairs: Sequence[tuple[Sequence[float], Sequence[float]]],
    *,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
    normal_from: int = TWO_LEVEL_NORMAL_FROM,
) -> tuple[float, float]:
    """A confidence interval for the mean paired change (new − baseline) of per-case means.

    Each resample draws the pairs with replacement, then, within each drawn pair, the new
    run's repeats and the baseline's repeats, each with replacement: a change that the
    judge's own noise could make is inside the interval (read at :func:`expanded_tail`).
    Pairs of one value per side give :func:`paired_bootstrap_ci`'s interval of the deltas.

    Args:
        pairs: Per case, ``(new repeats, baseline repeats)``, each at least one score.
        confidence: The coverage of the interval.
        resamples: How many bootstrap resamples to draw.
        seed: The seed of the random generator.
        normal_from: From this many pairs on, the normal limit of the same bootstrap.

    Returns:
        ``(low, high)`` for the mean change.

    Raises:
        ValueError: As :func:`two_level_bootstrap_ci`.

    Example:
        >>> two_level_paired_bootstrap_ci([([0.5], [0.7]), ([0.4], [0.8])]) == (
        ...     paired_bootstrap_ci([0.5 - 0.7, 0.4 - 0.8]))
        True
        >>> low, high = two_level_paired_bootstrap_ci(
        ...     [([1.0, 0.5, 1.0], [1.0, 1.0, 0.5])] * 10, seed=2)
        >>> low < 0.0 < high
        True
    """
    _check_interval(len(pairs), confidence, resamples)
    if any(not new or not base for new, base in pairs):
        raise ValueError("every pair needs at least one score on each side")
    if all(len(new) == 1 and len(base) == 1 for new, base in pairs):
        return paired_bootstrap_ci(
            [new[0] - base[0] for new, base in pairs],
            confidence=confidence,
            resamples=resamples,
            seed=seed,
        )
    if len(pairs) >= normal_from:
        return _normal_interval(
            [mean(new) - mean(base) for new, base in pairs],
            [_resample_variance(new) + _resample_variance(base) for new, base in pairs],
            confidence,
        )
    rng = random.Random(seed)
    size = len(pairs)
    new_table = _outcome_tables([new for new, _ in pairs])
    base_table = _outcome_tables([base for _, base in pairs])
    if new_table is not None and base_table is not None:
        means = _tabled_means(rng, size, resamples, new_table, base_table)
    else:
        means = sorted(
            math.fsum(
                _resampled_mean(rng, pairs[index][0]) - _resampled_mean(rng, pairs[index][1])
                for index in _indexes(rng, size)
            )
            / size
            for _ in range(resamples)
        )
    tail = expanded_tail(confidence, size)
    return (_interpolate(means, tail), _interpolate(means, 1.0 - tail))


def _resample_variance(repeats: Sequence[float]) -> float:
    """The variance of the mean of one resample (with replacement) of a case's repeats."""
    if len(repeats) < 2:
        return 0.0
    centre = mean(repeats)
    spread = math.fsum((value - centre) ** 2 for value in repeats) / len(repeats)
    return spread / len(repeats)


def _normal_interval(
    case_means: Sequence[float], within: Sequence[float], confidence: float
) -> tuple[float, float]:
    """The normal limit of the two-level bootstrap of ``case_means``.

    A resample's mean has the variance of the case means drawn with replacement
    (their spread over n) plus the mean of the cases' within-resample variances over n.
    """
    size = len(case_means)
    centre = mean(case_means)
    between = math.fsum((value - centre) ** 2 for value in case_means) / size
    standard_error = math.sqrt((between + mean(within)) / size)
    z = NormalDist().inv_cdf(1.0 - expanded_tail(confidence, size))
    return (centre - z * standard_error, centre + z * standard_error)


def expanded_tail(confidence: float, size: int) -> float:
    """The tail share of the expanded percentile bootstrap, for ``size`` cases.

    A percentile interval of a mean is too narrow on a few dozen cases: the bootstrap
    distribution has a spread of ``(n-1)/n`` times the mean's and a normal's tails where
    Student's t has wider ones (at 30 cases a 95% interval covers 92-94%). Hesterberg's
    expansion reads the percentiles at ``Φ(-√(n/(n-1)) · t(1-α/2, n-1))`` instead of
    ``α/2``; from three cases on, each tail in this function, and 0 below.

    >>> round(expanded_tail(0.95, 30), 4)
    0.0188
    >>> round(expanded_tail(0.95, 10_000), 4)
    0.025
    >>> expanded_tail(0.95, 2)
    0.0
    """
    if size < 3:
        return 0.0
    degrees = size - 1
    t = _student_t_quantile(1.0 - (1.0 - confidence) / 2.0, degrees)
    return NormalDist().cdf(-math.sqrt(size / degrees) * t)


def _student_t_quantile(probability: float, degrees: int) -> float:
    """Student's t quantile by the Cornish-Fisher expansion around the normal's.

    Within 0.1% of the exact value from 2 degrees of freedom on at the usual levels.

    >>> round(_student_t_quantile(0.975, 29), 3), round(_student_t_quantile(0.975, 5), 2)
    (2.045, 2.57)
    """
    z = NormalDist().inv_cdf(probability)
    terms = (
        (z**3 + z) / 4,
        (5 * z**5 + 16 * z**3 + 3 * z) / 96,
        (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
        (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160,
    )
    return z + math.fsum(term / degrees ** (power + 1) for power, term in enumerate(terms))


def _indexes(rng: random.Random, size: int) -> Sequence[int]:
    """``size`` uniform indices below ``size``: the cases of one resample."""
    if size <= BYTE_RESAMPLING_MAX:
        return _byte_picks(rng, size, size)
    return rng.choices(range(size), k=size)


#: A case of one, two or three repeats has 1, 4 or 27 equally likely resample means (one
#: per tuple of picks), and 216 is a multiple of each: a byte-drawn index below 216 into
#: the case's outcomes, each listed equally often, draws one of them uniformly.
_OUTCOMES = 216


def _outcome_tables(groups: Sequence[Sequence[float]]) -> list[float] | None:
    """Every case's resample means, ``_OUTCOMES`` per case, end to end; None past 3 repeats.

    >>> table = _outcome_tables([[0.0, 1.0]])
    >>> len(table), sorted(set(table)), table.count(0.5)
    (216, [0.0, 0.5, 1.0], 108)
    """
    if any(len(group) > 3 for group in groups):
        return None
    table: list[float] = []
    for group in groups:
        count = len(group)
        outcomes = [
            math.fsum(group[index] for index in picks) / count
            for picks in itertools.product(range(count), repeat=count)
        ]
        table += outcomes * (_OUTCOMES // len(outcomes))
    return table


def _tabled_means(
    rng: random.Random,
    size: int,
    resamples: int,
    table: Sequence[float],
    minus: Sequence[float] | None = None,
) -> list[float]:
    """Sorted two-level resample means from outcome tables (``minus``: the paired side).

    One resample costs two (or three) byte draws and a lookup per case, instead of a
    draw of every repeat of every case.
    """
    means = []
    for _ in range(resamples):
        offsets = [index * _OUTCOMES for index in _indexes(rng, size)]
        picks = map(operator.add, offsets, _byte_picks(rng, _OUTCOMES, size))
        total = math.fsum(map(table.__getitem__, picks))
        if minus is not None:
            paired = map(operator.add, offsets, _byte_picks(rng, _OUTCOMES, size))
            total -= math.fsum(map(minus.__getitem__, paired))
        means.append(total / size)
    means.sort()
    return means


def format_interval(
    low: float, high: float, digits: int = 2, *, percent: bool = False, mark: float | None = None
) -> str:
    """``0.34–1.00``: the bounds rounded outwards, never zero-width unless the interval is.

    ``0.9971–1.0`` prints ``0.99–1.00``, not ``1.00–1.00``.

    >>> format_interval(0.9971, 1.0), format_interval(0.3424, 0.99501), format_interval(0.5, 0.5)
    ('0.99–1.00', '0.34–1.00', '0.50–0.50')
    >>> format_interval(0.0, 0.1135, 0, percent=True)
    '0–12%'

    With ``mark`` (a threshold) more digits are printed where rounding outwards would take
    a bound to or past the threshold the interval itself stays clear of: an interval of
    0.832–0.841 beside a threshold of 0.85 must not read ``0.83–0.85``.

    >>> format_interval(0.8321, 0.8412, mark=0.85), format_interval(0.8321, 0.8412, mark=0.9)
    ('0.832–0.842', '0.83–0.85')
    """
    if percent:
        low, high = low * 100, high * 100
        mark = None if mark is None else mark * 100
    floor, ceil = _outward(low, high, digits)
    while mark is not None and digits < 4 and (high < mark <= ceil or floor <= mark < low):
        digits += 1
        floor, ceil = _outward(low, high, digits)
    return f"{floor:.{digits}f}–{ceil:.{digits}f}{'%' if percent else ''}"


def _outward(low: float, high: float, digits: int) -> tuple[float, float]:
    scale = 10**digits
    # The tolerance keeps a bound already at a printed value (0.34 stored as 0.33999…) there.
    return math.floor(low * scale + 1e-9) / scale, math.ceil(high * scale - 1e-9) / scale
