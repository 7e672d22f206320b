"""Baseline comparison: pairing, the regression rule and how it joins the gate's verdict."""

from __future__ import annotations

import pytest
from gate_runs import METRICS, case, cases

from pytest_ragas_gate.gate.baseline import compare_to_baseline, in_shard, pair_cases
from pytest_ragas_gate.gate.verdict import RunFacts, evaluate_gate
from pytest_ragas_gate.golden.sharding import Shard
from pytest_ragas_gate.settings.config import GateConfig

CONFIG = GateConfig(bootstrap_resamples=500, thresholds={"faithfulness": 0.5})


def test_pairs_by_file_and_id_then_by_id_when_the_file_moved() -> None:
    base = [case("a", 1.0), case("b", 1.0), case("gone", 1.0), case("twin", 1.0, file="x.jsonl")]
    new = [
        case("a", 1.0, line=7),  # same file, moved line: still paired
        case("b", 1.0, file="moved/golden.jsonl"),  # moved file: paired by id
        case("fresh", 1.0),
        case("twin", 1.0, file="y.jsonl"),
        case("twin", 1.0, file="z.jsonl"),  # ambiguous id: not paired by id alone
    ]
    pairs, new_only, base_only, by_id = pair_cases(base, new)
    assert sorted(new.id for _, new in pairs) == ["a", "b"]
    assert by_id == 1
    assert sorted(result.source for result in new_only) == [
        "golden.jsonl:1",
        "y.jsonl:1",
        "z.jsonl:1",
    ]
    assert sorted(result.id for result in base_only) == ["gone", "twin"]


def test_a_real_material_drop_regresses_and_blocks_deployment() -> None:
    base = cases([0.9] * 20)
    new = cases([0.8 + 0.01 * (index % 3) for index in range(20)])
    comparison = compare_to_baseline(base, new, METRICS, CONFIG, path="base.json")
    delta = comparison.metrics["faithfulness"]
    assert delta.regressed and delta.n_paired == 20
    assert delta.message.startswith(
        "faithfulness regressed: mean 0.81 vs baseline 0.90 (Δ -0.09, 95% CI "
    )
    assert delta.message.endswith("n=20 paired)")
    assert comparison.regressed_metrics == ["faithfulness"]
    assert not comparison.metrics["context_recall"].regressed

    assert evaluate_gate(new, METRICS, CONFIG).passed
    gated = evaluate_gate(new, METRICS, CONFIG, RunFacts(baseline=comparison))
    assert not gated.passed
    assert gated.recommendation == "Block deployment — 1 metric(s) regressed: faithfulness"
    assert gated.failures[-1] == delta.message
    assert "faithfulness" in gated.hints


def test_a_noisy_drop_or_a_small_drop_does_not_regress() -> None:
    base = cases([0.9] * 6)
    noisy = cases([0.0, 1.0, 1.0, 1.0, 1.0, 1.0])  # mean -0.07, carried by one case
    comparison = compare_to_baseline(base, noisy, METRICS, CONFIG, path="b")
    delta = comparison.metrics["faithfulness"]
    assert delta.delta is not None and delta.delta < -0.05
    assert delta.ci_high is not None and delta.ci_high > 0
    assert not delta.regressed
    assert "dropped, within noise" in delta.message
    # Real but within max_regression 0.05 (on enough cases for the interval to show it).
    small = cases([0.87, 0.86, 0.88] * 10)
    comparison = compare_to_baseline(cases([0.9] * 30), small, METRICS, CONFIG, path="b")
    assert comparison.metrics["faithfulness"].ci_high < 0
    assert not comparison.metrics["faithfulness"].regressed
    assert "no regression" in comparison.metrics["faithfulness"].message


def test_failing_verdict_names_both_causes() -> None:
    base = cases([0.9] * 10)
    new = cases([0.3] * 10)
    comparison = compare_to_baseline(base, new, METRICS, CONFIG, path="b")
    gated = evaluate_gate(new, METRICS, CONFIG, RunFacts(baseline=comparison))
    assert gated.recommendation.startswith(
        "Block deployment — 1 metric(s) below threshold: faithfulness"
    )
    assert "; 1 metric(s) regressed: faithfulness;" in gated.recommendation


def test_unscored_cases_are_not_paired_deltas_and_new_cases_are_listed() -> None:
    base = [case("a", 0.9), case("b", None), case("c", 0.9)]
    new = [case("a", 0.9), case("b", 0.1), case("d", 0.1)]
    comparison = compare_to_baseline(base, new, METRICS, CONFIG, path="b")
    assert comparison.metrics["faithfulness"].n_paired == 1
    assert comparison.new_cases == ["golden.jsonl::d"]
    assert comparison.removed_cases == ["golden.jsonl::c"]
    assert "1 new, 1 removed" in comparison.summary_line()


def test_no_paired_case_is_not_evaluated_and_cannot_pass() -> None:
    comparison = compare_to_baseline([case("a", 0.9)], [case("b", 0.1)], METRICS, CONFIG, path="b")
    assert not comparison.evaluated and not comparison.passed
    assert comparison.regressed_metrics == []
    assert comparison.not_evaluated_reason is not None
    assert comparison.not_evaluated_reason.startswith(
        "baseline check not evaluated: 0 cases paired with the baseline (min_paired 1)"
    )
    assert (
        comparison.metrics["faithfulness"].message
        == "faithfulness: no case scored in both runs; not compared"
    )


@pytest.mark.parametrize("count", [2, 3])
def test_shards_partition_the_baseline(count: int) -> None:
    results = cases([0.5] * 30)
    parts = [in_shard(results, Shard(index, count)) for index in range(1, count + 1)]
    assert sorted(r.id for part in parts for r in part) == sorted(r.id for r in results)
    assert all(parts)
