"""Judge noise as the gate computes it: from the repeats each case result carries.

Pure functions on plain case results, as ``rag-gate regate`` and ``merge`` call them; the
runs that produce the repeats are in ``test_plugin_repeats.py``.
"""

from __future__ import annotations

from gate_runs import case

from pytest_ragas_gate.gate.baseline import compare_to_baseline
from pytest_ragas_gate.gate.verdict import aggregate_metric, evaluate_gate
from pytest_ragas_gate.scoring.repeats import ItemAgreement
from pytest_ragas_gate.scoring.results import CaseResult
from pytest_ragas_gate.settings.config import GateConfig

CONFIG = GateConfig(bootstrap_resamples=500, thresholds={"faithfulness": 0.5})


def repeated(case_id: str, scores: list[float], identical: int = 3, items: int = 3) -> CaseResult:
    """A case judged once per score, its faithfulness the mean of them."""
    result = case(case_id, sum(scores) / len(scores))
    result.repeat_scores = {"faithfulness": list(scores)}
    result.repeat_agreement = {"faithfulness": ItemAgreement(identical=identical, items=items)}
    return result


def test_repeats_widen_the_interval_by_the_judge_noise_within_cases() -> None:
    steady = [repeated(f"c{i}", [0.6, 0.6, 0.6]) for i in range(5)] + [
        repeated(f"d{i}", [0.9, 0.9, 0.9]) for i in range(5)
    ]
    jittery = [repeated(f"c{i}", [0.3, 0.6, 0.9], identical=1) for i in range(5)] + [
        repeated(f"d{i}", [0.8, 0.9, 1.0], identical=1) for i in range(5)
    ]
    calm = aggregate_metric(steady, "faithfulness", CONFIG)
    noisy = aggregate_metric(jittery, "faithfulness", CONFIG)
    assert calm.mean is not None and noisy.mean is not None
    assert calm.judge_noise is not None and calm.judge_noise.agreement == 1.0
    assert calm.judge_noise.sd == 0.0 and calm.judge_noise.cases == 10
    assert noisy.judge_noise is not None and noisy.judge_noise.agreement == 1 / 3
    assert noisy.ci_low is not None and noisy.ci_high is not None
    assert calm.ci_low is not None and calm.ci_high is not None
    # The same case means in both, so only the within-case noise can widen the interval.
    assert round(calm.mean, 9) == round(noisy.mean, 9)
    assert noisy.ci_high - noisy.ci_low > calm.ci_high - calm.ci_low
    assert aggregate_metric([case("x", 0.7)], "faithfulness", CONFIG).judge_noise is None


def test_a_drop_within_the_judge_noise_is_no_regression() -> None:
    base = [repeated(f"c{i}", [1.0, 0.5, 1.0]) for i in range(6)]
    new = [repeated(f"c{i}", [0.5, 1.0, 0.5]) for i in range(6)]
    delta = compare_to_baseline(base, new, ["faithfulness"], CONFIG, path="b").metrics[
        "faithfulness"
    ]
    # Every case's mean dropped by a sixth: a bootstrap of the case means alone would
    # call it certain, yet one flipped verdict per case and run explains all of it.
    assert delta.delta is not None and round(delta.delta, 6) == round(-1 / 6, 6)
    assert not delta.regressed
    assert delta.judge_noise is not None and delta.judge_noise > abs(delta.delta)
    assert delta.message.startswith("faithfulness dropped, within the judge's noise: ")
    assert f"judge noise ±{delta.judge_noise:.2f}" in delta.message


def test_a_drop_that_stands_clear_of_the_judge_noise_regresses() -> None:
    base = [repeated(f"c{i}", [1.0, 0.9, 1.0]) for i in range(20)]
    new = [repeated(f"c{i}", [0.5, 0.6, 0.5]) for i in range(20)]
    comparison = compare_to_baseline(base, new, ["faithfulness"], CONFIG, path="b")
    delta = comparison.metrics["faithfulness"]
    assert delta.regressed and comparison.regressed_metrics == ["faithfulness"]
    assert delta.judge_noise is not None and delta.judge_noise < 0.1


def test_a_run_judged_once_against_a_repeated_baseline_borrows_its_noise() -> None:
    base = [repeated(f"c{i}", [1.0, 0.5, 1.0]) for i in range(12)]
    new = [case(f"c{i}", 0.7) for i in range(12)]  # a drop of 0.13 on every case
    delta = compare_to_baseline(base, new, ["faithfulness"], CONFIG, path="b").metrics[
        "faithfulness"
    ]
    assert delta.judge_noise is not None and not delta.regressed


def test_min_judge_agreement_fails_a_gated_metric_only() -> None:
    results = [repeated(f"c{i}", [1.0, 0.5, 1.0], identical=2) for i in range(4)]
    config = CONFIG.model_copy(update={"min_judge_agreement": 0.9})
    verdict = evaluate_gate(results, ["faithfulness"], config)
    assert not verdict.passed and verdict.status == "failed"
    line = (
        "faithfulness judge too noisy for this metric: agreement 0.67 < trust.agreement.self "
        "0.90 (8 of 12 item verdicts identical across 3 repeats of 4 cases)"
    )
    assert verdict.failures == [line]
    assert verdict.run_checks == {"judge_noise:faithfulness": line}
    (noisy,) = [check for check in verdict.checks if check.kind == "judge_noise"]
    assert (noisy.name, noisy.passed, noisy.subject) == (
        "judge_noise:faithfulness",
        False,
        "faithfulness",
    )
    assert noisy.properties["judge_agreement"] == "0.6667"
    assert "judge too noisy for this metric: faithfulness" in verdict.recommendation
    ungated = config.model_copy(update={"thresholds": {"faithfulness": None}})
    assert evaluate_gate(results, ["faithfulness"], ungated).failures == []
    enough = config.model_copy(update={"min_judge_agreement": 0.6})
    assert evaluate_gate(results, ["faithfulness"], enough).passed
