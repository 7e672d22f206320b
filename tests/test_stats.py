from __future__ import annotations

import math
import random
import statistics

import pytest

from pytest_ragas_gate import stats
from pytest_ragas_gate.stats import (
    bootstrap_ci,
    mean,
    paired_bootstrap_ci,
    percentile,
    sample_std,
    two_level_bootstrap_ci,
    two_level_paired_bootstrap_ci,
)


def test_mean_known_values() -> None:
    assert mean([1 / 3, 2 / 3]) == 0.5
    assert mean([0.5833333333333333]) == 0.5833333333333333


def test_mean_is_order_independent() -> None:
    values = [random.Random(seed).random() for seed in range(200)]
    shuffled = list(values)
    random.Random(1).shuffle(shuffled)
    assert mean(values) == mean(shuffled)


def test_mean_of_nothing_is_an_error_not_zero() -> None:
    with pytest.raises(ValueError, match="no values"):
        mean([])


def test_sample_std_uses_ddof_1() -> None:
    assert sample_std([0.0, 1.0]) == pytest.approx(math.sqrt(0.5))
    assert sample_std([0.3, 0.3, 0.3]) == 0.0
    assert sample_std([]) is None
    assert sample_std([0.9]) is None


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [
        ([1.0, 2.0, 3.0, 4.0], 0, 1.0),
        ([1.0, 2.0, 3.0, 4.0], 100, 4.0),
        ([1.0, 2.0, 3.0, 4.0], 25, 1.75),
        ([4.0, 1.0, 3.0, 2.0], 50, 2.5),
        ([10.0, 20.0], 95, 19.5),
        ([7.0], 50, 7.0),
    ],
)
def test_percentile_linear_interpolation(values: list[float], q: float, expected: float) -> None:
    assert percentile(values, q) == pytest.approx(expected)


def test_percentile_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1.0], 101)


def test_bootstrap_is_deterministic_for_a_seed() -> None:
    values = [0.2, 0.5, 0.9, 1.0, 0.0, 0.66, 0.75]
    first = bootstrap_ci(values, confidence=0.95, resamples=2000, seed=7)
    assert first == bootstrap_ci(values, confidence=0.95, resamples=2000, seed=7)
    assert first != bootstrap_ci(values, confidence=0.95, resamples=2000, seed=8)


def test_bootstrap_brackets_the_mean_and_narrows_with_confidence() -> None:
    values = [random.Random(i).random() for i in range(60)]
    low95, high95 = bootstrap_ci(values, confidence=0.95, resamples=3000, seed=0)
    low80, high80 = bootstrap_ci(values, confidence=0.80, resamples=3000, seed=0)
    assert low95 <= low80 < mean(values) < high80 <= high95
    # The percentile bootstrap approximates the normal interval for a large-ish sample.
    half_width = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    assert (high95 - low95) / 2 == pytest.approx(half_width, rel=0.15)


def test_bootstrap_of_one_value_and_of_constant_values() -> None:
    assert bootstrap_ci([0.4], confidence=0.95, resamples=100, seed=0) == (0.4, 0.4)
    assert bootstrap_ci([1.0] * 5, confidence=0.95, resamples=100, seed=0) == (1.0, 1.0)


def test_bootstrap_bounds_stay_in_the_data_range() -> None:
    low, high = bootstrap_ci([0.0, 1.0, 1.0], confidence=0.99, resamples=500, seed=1)
    assert 0.0 <= low <= high <= 1.0


@pytest.mark.parametrize(
    "kwargs",
    [{"confidence": 1.0}, {"confidence": 0.0}, {"resamples": 0}],
)
def test_bootstrap_rejects_bad_parameters(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        bootstrap_ci([0.1, 0.2], **kwargs)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        bootstrap_ci([])


def test_paired_bootstrap_detects_a_consistent_drop() -> None:
    deltas = [-0.1 + 0.02 * ((i % 5) - 2) for i in range(30)]
    low, high = paired_bootstrap_ci(deltas, confidence=0.95, resamples=2000, seed=0)
    assert low < high < 0.0


def test_paired_bootstrap_straddles_zero_for_noise() -> None:
    deltas = [0.3, -0.3, 0.2, -0.2, 0.1, -0.1, 0.0]
    low, high = paired_bootstrap_ci(deltas, confidence=0.95, resamples=2000, seed=0)
    assert low < 0.0 < high


@pytest.mark.slow
def test_large_runs_resample_by_counts_with_the_same_interval() -> None:
    """From 1,000 values on, the counted bootstrap matches value-by-value resampling."""
    rng = random.Random(7)
    values = [rng.choice([0.0, 1 / 3, 0.5, 2 / 3, 1.0, 1.0]) for _ in range(4000)]
    counted = bootstrap_ci(values, resamples=2000, seed=0)
    assert len(set(values)) <= stats.COUNTED_RESAMPLING_MAX_DISTINCT
    assert len(values) >= stats.COUNTED_RESAMPLING_FROM
    # The same statistic by picking values one by one (what smaller runs do).
    picker = random.Random(0)
    means = sorted(sum(picker.choices(values, k=len(values))) / len(values) for _ in range(2000))
    direct = (means[49], means[1949])
    assert counted[0] == pytest.approx(direct[0], abs=0.004)
    assert counted[1] == pytest.approx(direct[1], abs=0.004)
    assert counted[0] < sum(values) / len(values) < counted[1]
    assert bootstrap_ci(values, resamples=2000, seed=0) == counted
    assert bootstrap_ci(list(reversed(sorted(values))), resamples=2000, seed=0) == counted


def test_the_two_level_bootstrap_of_many_cases_is_its_normal_limit() -> None:
    rng = random.Random(11)
    groups = [[float(rng.random() < 0.8) for _ in range(3)] for _ in range(1200)]
    pairs = [(group, [float(rng.random() < 0.75) for _ in range(3)]) for group in groups]
    limit = two_level_bootstrap_ci(groups)
    drawn = two_level_bootstrap_ci(groups, resamples=400, normal_from=10**9)
    assert limit == pytest.approx(drawn, abs=0.006)
    paired_limit = two_level_paired_bootstrap_ci(pairs)
    paired_drawn = two_level_paired_bootstrap_ci(pairs, resamples=400, normal_from=10**9)
    assert paired_limit == pytest.approx(paired_drawn, abs=0.008)
