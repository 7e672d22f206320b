"""The prediction-powered estimate: exact figures on small vectors, and its coverage."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest

from pytest_ragas_gate.trust.ppi import normal_interval, ppi_mean, variance

Z95 = 1.959963984540054


def load_benchmark() -> ModuleType:
    path = Path(__file__).parent.parent / "benchmarks" / "ppi_coverage.py"
    spec = importlib.util.spec_from_file_location("ppi_coverage", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while defining
    spec.loader.exec_module(module)
    return module


def test_a_judge_reading_high_is_corrected_by_its_error_on_the_labelled_cases() -> None:
    result = ppi_mean([0.9, 0.7, 0.8, 0.8], [1.0, 0.6], [0.9, 0.5])

    assert result.estimate == pytest.approx(0.7)
    assert result.rectifier == pytest.approx(0.1)
    assert result.judge_mean == pytest.approx(0.8)
    assert result.human_mean == pytest.approx(0.7)
    # Var(unlabelled judge)/N = (0.02/3)/4; the errors are constant, so their term is 0.
    half = Z95 * math.sqrt(0.02 / 3 / 4)
    assert (result.ci_low, result.ci_high) == pytest.approx((0.7 - half, 0.7 + half))
    assert (result.labelled, result.unlabelled) == (2, 4)


def test_the_interval_adds_the_variance_of_both_terms() -> None:
    # unlabelled judge mean 1/2, variance 1/3 over N=4; errors [0, 0, 1]: mean 1/3,
    # variance 1/3 over n=3.
    result = ppi_mean([1.0, 1.0, 0.0, 0.0], [1.0, 0.0, 1.0], [1.0, 0.0, 0.0])

    assert result.estimate == pytest.approx(1 / 6)
    assert result.standard_error == pytest.approx(math.sqrt(1 / 12 + 1 / 9))
    # 1/6 ± 0.86 reaches past 0 and 1; the mean of labels in [0, 1] cannot.
    assert (result.ci_low, result.ci_high) == (0.0, 1.0)


def test_power_tuning_weighs_the_judge_by_its_covariance_with_people() -> None:
    # Var(all judge scores) = 2/7, Cov(human, judge) = 1/6 on n=3 of N=4:
    # lam = (1/6) / ((1 + 3/4) * 2/7) = 1/3; estimate = 1/3 * 1/2 + mean(h - j/3) = 5/18.
    result = ppi_mean([1.0, 1.0, 0.0, 0.0], [1.0, 0.0, 1.0], [1.0, 0.0, 0.0], power_tuning=True)

    assert result.power_tuned is not None
    assert result.power_tuned.lam == pytest.approx(1 / 3)
    assert result.power_tuned.estimate == pytest.approx(5 / 18)
    residual_variance = variance([1 - 1 / 3, 0.0, -1 / 3])
    assert result.power_tuned.standard_error == pytest.approx(
        math.sqrt(residual_variance / 3 + (1 / 9) * (1 / 3) / 4)
    )
    # The classical figure is always there, unchanged by the option.
    assert result.estimate == pytest.approx(1 / 6)


def test_power_tuning_stays_between_the_labels_alone_and_the_classical_estimator() -> None:
    # A judge that runs against people: no weight at all rather than a negative one.
    result = ppi_mean([0.2, 0.8], [1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], power_tuning=True)

    assert result.power_tuned is not None
    assert result.power_tuned.lam == 0.0
    assert result.power_tuned.estimate == pytest.approx(0.5)


def test_with_every_case_labelled_the_estimate_is_the_labels_mean() -> None:
    result = ppi_mean([], [0.8, 0.6], [1.0, 0.0])

    assert result.estimate == 0.5
    assert result.unlabelled == 0
    assert result.standard_error == pytest.approx(math.sqrt(0.5 / 2))


def test_the_estimate_does_not_depend_on_the_order_of_the_cases() -> None:
    unlabelled = [0.1 * index for index in range(10)]
    first = ppi_mean(unlabelled, [0.3, 0.9, 0.6], [0.0, 1.0, 1.0])
    second = ppi_mean(unlabelled[::-1], [0.6, 0.3, 0.9], [1.0, 0.0, 1.0])

    assert first == second


def test_no_labels_is_an_error_not_a_number() -> None:
    with pytest.raises(ValueError, match="at least one labelled case"):
        ppi_mean([0.5], [], [])
    with pytest.raises(ValueError, match="2 judge scores but 1 human labels"):
        ppi_mean([0.5], [0.1, 0.2], [0.0])


def test_normal_interval_uses_the_two_sided_quantile() -> None:
    low, high = normal_interval(0.0, 1.0, 0.90)

    assert (low, high) == pytest.approx((-1.6448536, 1.6448536))


@pytest.mark.slow
def test_ppi_keeps_its_coverage_where_the_judges_mean_loses_it() -> None:
    """N=1000 cases, n=100 labelled, a judge 0.15 low with noise; 500 seeded repetitions."""
    rows = {row.name: row for row in load_benchmark().simulate()}

    assert 0.93 <= rows["PPI"].coverage <= 0.97
    assert rows["judge mean"].coverage < 0.5
    assert rows["PPI"].width < rows["human only"].width
    assert 0.90 <= rows["PPI++"].coverage <= 0.97


def test_estimates_and_intervals_stay_within_0_1_and_ordered() -> None:
    # A targeted sample: the judge scores every labelled case 1 where people say 0, and
    # every unlabelled case 0. The rectifier (1) exceeds the judge's mean (0): before, the
    # estimate read -1.000 with the inverted interval [0.000–-1.000].
    result = ppi_mean([0.0] * 10, [1.0] * 6, [0.0] * 6, power_tuning=True)
    assert result.estimate == 0.0
    assert (result.ci_low, result.ci_high) == (0.0, 0.0)
    assert result.power_tuned is not None
    assert 0.0 <= result.power_tuned.ci_low <= result.power_tuned.estimate
    assert result.power_tuned.estimate <= result.power_tuned.ci_high <= 1.0
    high = ppi_mean([1.0] * 10, [0.0, 0.0, 0.0], [1.0, 1.0, 0.0])
    assert high.estimate == 1.0 and high.ci_low <= high.ci_high == 1.0


def test_random_inputs_never_give_an_estimate_outside_0_1_or_an_inverted_interval() -> None:
    import random

    rng = random.Random(23)
    for _ in range(500):
        unlabelled = [rng.random() ** 3 for _ in range(rng.randint(0, 30))]
        labelled = rng.randint(1, 20)
        judged = [rng.random() for _ in range(labelled)]
        labels = [float(rng.random() < 0.2) for _ in range(labelled)]
        result = ppi_mean(unlabelled, judged, labels, power_tuning=True)
        assert 0.0 <= result.ci_low <= result.estimate <= result.ci_high <= 1.0
        tuned = result.power_tuned
        assert tuned is not None
        assert 0.0 <= tuned.ci_low <= tuned.estimate <= tuned.ci_high <= 1.0
