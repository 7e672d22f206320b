"""Judge–human agreement: exact figures on small vectors, intervals and floors."""

from __future__ import annotations

import math

import pytest

from pytest_ragas_gate.trust.agreement import (
    accuracy_at,
    auroc,
    check_floors,
    cohen_kappa,
    measure_agreement,
    no_labels,
    spearman,
)

JUDGE = [0.9, 0.8, 0.3, 0.8]
HUMAN = [1.0, 1.0, 0.0, 0.0]


def test_binary_labels_get_every_figure_at_the_metrics_threshold() -> None:
    result = measure_agreement("faithfulness", JUDGE, HUMAN, threshold=0.85, seed=1)

    assert result.n == 4
    assert result.binary
    assert result.judge_mean == pytest.approx(0.7)
    assert result.human_mean == 0.5
    assert result.bias.value == pytest.approx(0.2)  # judge - human: (-0.1 - 0.2 + 0.3 + 0.8)/4
    assert result.mae.value == pytest.approx(0.35)
    assert result.spearman.value == pytest.approx(3 / math.sqrt(18))
    assert result.auroc is not None and result.auroc.value == 0.875
    assert result.accuracy is not None and result.accuracy.value == 0.75
    assert result.kappa is not None and result.kappa.value == pytest.approx(0.5)


def test_every_figure_lies_in_its_own_seeded_interval() -> None:
    judge = [0.1 * (index % 10) for index in range(40)]
    human = [1.0 if index % 10 >= 4 else 0.0 for index in range(40)]
    human[3], human[17] = 1.0, 0.0
    first = measure_agreement("faithfulness", judge, human, threshold=0.5, seed=3)
    again = measure_agreement("faithfulness", judge, human, threshold=0.5, seed=3)

    assert first == again
    for name in ("bias", "mae", "spearman", "auroc", "accuracy", "kappa"):
        figure = first.statistic(name)
        assert figure is not None and figure.value is not None
        assert figure.ci_low is not None and figure.ci_high is not None
        assert figure.ci_low - 1e-12 <= figure.value <= figure.ci_high + 1e-12, name


def test_graded_labels_get_bias_mae_and_rank_correlation_only() -> None:
    result = measure_agreement(
        "answer_relevancy", [0.1, 0.4, 0.3, 0.9], [0.0, 0.5, 0.5, 1.0], threshold=0.75
    )

    assert not result.binary
    assert result.spearman.value == pytest.approx(0.9486832980505138)
    assert result.auroc is None and result.accuracy is None and result.kappa is None


def test_undefined_statistics_are_none_not_numbers() -> None:
    assert auroc([0.9, 0.1], [1.0, 1.0]) is None
    assert spearman([0.5, 0.5, 0.5], [0.0, 1.0, 1.0]) is None
    assert spearman([0.5], [1.0]) is None
    # Both the judge (all above) and people (all 1) give one class: chance agreement is 1.
    assert cohen_kappa([0.9, 0.95], [1.0, 1.0], 0.5) is None
    result = measure_agreement("faithfulness", [0.9, 0.95], [1.0, 1.0], threshold=0.5)
    assert result.auroc is not None and result.auroc.value is None
    assert result.auroc.ci_low is None


def test_ties_in_auroc_count_half_and_accuracy_uses_score_at_least_threshold() -> None:
    assert auroc([0.5, 0.5], [1.0, 0.0]) == 0.5
    assert accuracy_at([0.85, 0.84], [1.0, 0.0], 0.85) == 1.0


def test_a_floor_below_its_figure_passes_and_one_above_fails_with_the_figures() -> None:
    measured = measure_agreement("faithfulness", JUDGE, HUMAN, threshold=0.85)

    passing = check_floors(measured, {"auroc": 0.75})
    failing = check_floors(measured, {"auroc": 0.75, "kappa": 0.6})

    assert passing.passed is True
    assert failing.passed is False
    assert failing.message == (
        "faithfulness judge–human agreement: auroc 0.88 ≥ 0.75, kappa 0.50 < 0.60 (n=4 labelled)"
    )


def test_a_floor_that_cannot_be_measured_fails_closed_and_says_why() -> None:
    graded = measure_agreement("faithfulness", [0.2, 0.9], [0.5, 1.0], threshold=0.85)

    assert "auroc unmeasured (needs binary labels, 0 or 1)" in (
        check_floors(graded, {"auroc": 0.7}).message
    )
    unlabelled = check_floors(no_labels("faithfulness"), {"kappa": 0.4})
    assert unlabelled.passed is False
    assert "kappa unmeasured (no labelled case scored)" in unlabelled.message


def test_without_floors_agreement_is_reported_not_gated() -> None:
    measured = check_floors(measure_agreement("faithfulness", JUDGE, HUMAN, threshold=0.85), {})

    assert measured.passed is None
    assert measured.message.startswith("faithfulness judge–human agreement (n=4 labelled): ")
    assert "auroc 0.88 [" in measured.message
