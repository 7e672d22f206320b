"""Intervals that know scores are bounded: honest on small and uniform samples.

The acceptance vectors of the gate's interval, its properties on random samples, its
coverage on simulated scores, and what a run on a 2-case set says under each rule.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from gate_runs import gate_run, good_rows, write_jsonl
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_ragas_gate.gate.deploy_decision import SMOKE_CHECK
from pytest_ragas_gate.gate.verdict import RunFacts, evaluate_gate
from pytest_ragas_gate.scoring.results import CaseResult
from pytest_ragas_gate.settings.config import GateConfig
from pytest_ragas_gate.stats import (
    bootstrap_ci,
    bounded_interval,
    bounded_mean_ci,
    format_interval,
)


def test_two_of_two_at_the_top_reaches_below_035() -> None:
    low, high = bounded_mean_ci([1.0, 1.0])
    assert low <= 0.35
    assert high == 1.0


def test_twenty_of_twenty_at_the_top_reaches_between_080_and_092() -> None:
    low, high = bounded_mean_ci([1.0] * 20)
    assert 0.80 <= low <= 0.92
    assert high == 1.0


def test_one_case_is_at_least_half_wide() -> None:
    low, high = bounded_mean_ci([0.5])
    assert high - low >= 0.5
    assert low < 0.5 < high


def test_a_uniform_sample_inside_the_range_is_not_zero_width() -> None:
    low, high = bounded_mean_ci([0.8] * 12)
    assert low < 0.8 < high
    # Unseen cases may sit at either bound: the interval leans the way there is room.
    assert 0.8 - low > high - 0.8


def test_a_rate_of_all_ties_is_not_degenerate() -> None:
    low, high = bounded_mean_ci([1.0] * 12)
    assert high == 1.0
    assert low < 0.8


def test_unchanged_paired_deltas_leave_room_both_ways() -> None:
    low, high = bounded_mean_ci([0.0] * 30, low=-1.0)
    assert low < 0.0 < high
    assert low == pytest.approx(-high)
    assert high < 0.15


def _faithfulness_like(draw: random.Random) -> float:
    if draw.random() < 0.6:
        return 1.0
    return 0.0 if draw.random() < 0.15 else round(draw.random(), 2)


def _relevancy_like(draw: random.Random) -> float:
    return round(min(1.0, max(0.0, draw.gauss(0.85, 0.08))), 3)


def _precision_like(draw: random.Random) -> float:
    return draw.choice([1.0, 1.0, 0.5, 0.83, 0.33, 0.0, 1.0, 0.92])


def _tight(draw: random.Random) -> float:
    return round(min(1.0, max(0.0, draw.gauss(0.9, 0.04))), 3)


@pytest.mark.parametrize(
    "sampler", [_faithfulness_like, _relevancy_like, _precision_like, _tight, random.Random.random]
)
@pytest.mark.parametrize("size", [30, 100, 500])
def test_large_samples_with_spread_keep_the_bootstraps_bounds(
    sampler: Callable[[random.Random], float], size: int
) -> None:
    for seed in range(3):
        draw = random.Random(seed)
        values = [sampler(draw) for _ in range(size)]
        low, high = bounded_mean_ci(values)
        old_low, old_high = bootstrap_ci(values)
        assert abs(low - old_low) <= 0.02
        assert abs(high - old_high) <= 0.02


def test_large_paired_changes_keep_the_bootstraps_bounds() -> None:
    draw = random.Random(4)
    for size in (30, 100, 500):
        deltas = [
            0.0 if draw.random() < 0.6 else round(draw.gauss(-0.05, 0.2), 2) for _ in range(size)
        ]
        low, high = bounded_mean_ci(deltas, low=-1.0)
        old_low, old_high = bootstrap_ci(deltas)
        assert abs(low - old_low) <= 0.02
        assert abs(high - old_high) <= 0.02


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 0.5, 1.0])),
        min_size=1,
        max_size=200,
    ),
    st.integers(0, 3),
)
def test_the_interval_holds_the_mean_and_is_never_zero_width(
    values: list[float], seed: int
) -> None:
    low, high = bounded_mean_ci(values, resamples=200, seed=seed)
    centre = sum(values) / len(values)
    assert 0.0 <= low <= centre + 1e-12
    assert centre - 1e-12 <= high <= 1.0
    assert high - low > 0.0


def _beta(alpha: float, beta: float) -> tuple[Callable[[random.Random], float], float]:
    return (lambda draw: draw.betavariate(alpha, beta)), alpha / (alpha + beta)


def _bernoulli(share: float) -> tuple[Callable[[random.Random], float], float]:
    return (lambda draw: 1.0 if draw.random() < share else 0.0), share


SIMULATED = {
    "beta(2,2)": _beta(2, 2),
    "beta(5,2)": _beta(5, 2),
    "beta(8,1)": _beta(8, 1),
    "beta(1,5)": _beta(1, 5),
    "beta(0.5,0.5)": _beta(0.5, 0.5),
    "bernoulli(0.5)": _bernoulli(0.5),
    "bernoulli(0.8)": _bernoulli(0.8),
    "bernoulli(0.9)": _bernoulli(0.9),
    "bernoulli(0.97)": _bernoulli(0.97),
}


@pytest.mark.parametrize("size", [5, 10, 30])
@pytest.mark.parametrize("name", list(SIMULATED))
def test_the_interval_covers_the_true_mean(name: str, size: int) -> None:
    # The bounded part alone: the gate's interval is its hull with the bootstrap, so it
    # covers at least as often; without resampling the test stays fast.
    sampler, truth = SIMULATED[name]
    draw = random.Random(1)
    trials = 2000
    covered = 0
    for _ in range(trials):
        low, high = bounded_interval([sampler(draw) for _ in range(size)])
        covered += low <= truth <= high
    assert covered / trials >= 0.93


# --- what a run says ----------------------------------------------------------------------


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_two_perfect_cases_fail_ci_lower(pytester: pytest.Pytester, workers: tuple[str]) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    outcome = gate_run(pytester, *workers, set=["rules.default=ci_lower"], tracebacks=False)
    assert outcome.result.ret == pytest.ExitCode.TESTS_FAILED
    outcome.result.stdout.fnmatch_lines(
        [
            "faithfulness*1.000*0.342–1.000*0.85*ci_lower*2 of 2*FAIL*",
            "FAILED faithfulness 95% CI lower bound 0.34 < 0.85 (mean 1.00, n=2)",
            "RAG gate: FAILED",
        ]
    )
    metric = outcome.report["metrics"]["faithfulness"]
    assert metric["ci_low"] == pytest.approx(0.3424, abs=1e-4)
    assert metric["passed"] is False


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_two_perfect_cases_pass_the_mean_saying_how_little_it_rests_on(
    pytester: pytest.Pytester, workers: tuple[str]
) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    outcome = gate_run(pytester, *workers, tracebacks=False)
    assert outcome.result.ret == pytest.ExitCode.OK
    note = "faithfulness mean 1.00 ≥ 0.85 on 2 cases; the 95% interval reaches 0.34"
    outcome.result.stdout.fnmatch_lines(
        [
            "faithfulness*1.000*0.342–1.000*0.85*mean*2 of 2*PASS*",
            "RAG gate: PASSED",
            SMOKE_CHECK,
        ]
    )
    # The offline heuristic makes no deploy decision to qualify: its smoke-check line stands,
    # and the metric's own message still says how little the pass rests on.
    assert outcome.report["recommendation"] == SMOKE_CHECK
    assert outcome.report["metrics"]["faithfulness"]["message"] == note


def test_an_llm_judged_pass_on_two_cases_says_how_little_it_rests_on() -> None:
    results = [
        CaseResult(
            id=f"case-{index}",
            source=f"golden.jsonl:{index + 1}",
            metrics=["faithfulness"],
            scores={"faithfulness": 1.0},
        )
        for index in range(2)
    ]
    facts = RunFacts(scored_by={"faithfulness": "anthropic"})
    verdict = evaluate_gate(results, ["faithfulness"], GateConfig(), facts)
    assert verdict.status == "passed"
    assert verdict.recommendation.startswith("Passed on thin evidence — ")
    assert "faithfulness mean 1.00 ≥ 0.85 on 2 cases; the 95% interval reaches 0.34" in (
        verdict.recommendation
    )


def _cases(metric: str, scores: list[float], tags: list[str] | None = None) -> list[CaseResult]:
    return [
        CaseResult(
            id=f"case-{index}",
            source=f"golden.jsonl:{index + 1}",
            metrics=[metric],
            scores={metric: score},
            tags=tags or [],
        )
        for index, score in enumerate(scores)
    ]


def test_ci_upper_passing_below_the_threshold_is_thin_evidence_not_safe_to_deploy() -> None:
    config = GateConfig(
        rules={"answer_relevancy": "ci_upper"}, thresholds={"answer_relevancy": 0.95}
    )
    facts = RunFacts(scored_by={"answer_relevancy": "anthropic"})
    results = _cases("answer_relevancy", [1.0, 0.75])
    verdict = evaluate_gate(results, ["answer_relevancy"], config, facts)
    assert verdict.status == "passed"
    note = "answer_relevancy mean 0.88 < 0.95 but its 95% interval reaches 1.00 (rule ci_upper)"
    assert verdict.recommendation == f"Passed on thin evidence — {note}"
    assert verdict.metrics["answer_relevancy"].message == note


def test_ci_upper_passing_above_the_threshold_on_little_is_thin_evidence() -> None:
    config = GateConfig(rules={"faithfulness": "ci_upper"})
    facts = RunFacts(scored_by={"faithfulness": "anthropic"})
    verdict = evaluate_gate(_cases("faithfulness", [1.0, 1.0]), ["faithfulness"], config, facts)
    assert verdict.recommendation == (
        "Passed on thin evidence — faithfulness mean 1.00 ≥ 0.85 on 2 cases; "
        "the 95% interval reaches 0.34 (rule ci_upper)"
    )


def test_ci_upper_on_a_lower_is_better_metric_is_thin_evidence() -> None:
    config = GateConfig(
        rules={"contradiction_rate": "ci_upper"}, thresholds={"contradiction_rate": 0.1}
    )
    facts = RunFacts(scored_by={"contradiction_rate": "anthropic"})
    results = _cases("contradiction_rate", [0.0, 0.3])
    verdict = evaluate_gate(results, ["contradiction_rate"], config, facts)
    assert verdict.status == "passed"
    assert verdict.recommendation == (
        "Passed on thin evidence — contradiction_rate mean 0.15 > 0.10 but its 95% interval "
        "reaches 0.00 (rule ci_upper)"
    )


def test_ci_upper_passing_clear_of_the_threshold_is_safe_to_deploy() -> None:
    config = GateConfig(rules={"faithfulness": "ci_upper"}, thresholds={"faithfulness": 0.5})
    facts = RunFacts(scored_by={"faithfulness": "anthropic"})
    verdict = evaluate_gate(_cases("faithfulness", [1.0] * 30), ["faithfulness"], config, facts)
    assert verdict.recommendation == "Safe to deploy"


def test_a_tag_on_two_cases_passes_on_thin_evidence_and_carries_its_interval() -> None:
    config = GateConfig(tag_thresholds={"billing": {"faithfulness": 0.9}})
    facts = RunFacts(scored_by={"faithfulness": "anthropic"})
    results = _cases("faithfulness", [1.0, 1.0], tags=["billing"])
    verdict = evaluate_gate(results, ["faithfulness"], config, facts)
    tag = verdict.tags[0]
    assert tag.ci_low == pytest.approx(0.3424, abs=1e-4) and tag.ci_high == 1.0
    assert tag.passed is True
    # The metric and the tag both rest on little; the recommendation names both.
    assert verdict.recommendation.startswith("Passed on thin evidence — ")
    assert "tag 'billing' faithfulness" in verdict.recommendation
    assert verdict.model_dump(mode="json")["tags"][0]["ci_low"] == tag.ci_low


def test_a_tag_on_two_cases_fails_ci_lower() -> None:
    config = GateConfig(
        tag_thresholds={"billing": {"faithfulness": 0.9}},
        thresholds={"faithfulness": 0.3},
        rules={"faithfulness": "ci_lower"},
    )
    facts = RunFacts(scored_by={"faithfulness": "anthropic"})
    results = _cases("faithfulness", [1.0, 1.0], tags=["billing"])
    verdict = evaluate_gate(results, ["faithfulness"], config, facts)
    assert verdict.status == "failed"
    assert verdict.tags[0].passed is False
    assert verdict.tags[0].message == (
        "tag 'billing' faithfulness 95% CI lower bound 0.34 < 0.90 (mean 1.00, n=2)"
    )


def test_a_narrow_interval_never_prints_as_zero_width() -> None:
    results = _cases("faithfulness", [1.0] * 2000)
    facts = RunFacts(scored_by={"faithfulness": "anthropic"})
    verdict = evaluate_gate(results, ["faithfulness"], GateConfig(), facts)
    aggregate = verdict.metrics["faithfulness"]
    assert aggregate.ci_low is not None and 0.99 < aggregate.ci_low < 1.0
    assert "95% CI 0.99–1.00" in aggregate.message
    # Every report prints intervals with the one formatter: bounds rounded outwards.
    assert format_interval(0.9971, 1.0) == "0.99–1.00"
    assert format_interval(0.99994, 1.0, 3) == "0.999–1.000"
    assert format_interval(0.0, 0.1135, 0, percent=True) == "0–12%"


def test_an_interval_clear_of_the_threshold_never_prints_as_reaching_it() -> None:
    # 0.830–0.845 rounded outwards to two digits would read 0.83–0.85 beside a threshold
    # of 0.85, as if the interval reached it; more digits keep it on its side.
    results = _cases("faithfulness", [1.0] * 8370 + [0.0] * 1630)
    facts = RunFacts(scored_by={"faithfulness": "anthropic"})
    verdict = evaluate_gate(results, ["faithfulness"], GateConfig(), facts)
    aggregate = verdict.metrics["faithfulness"]
    assert aggregate.ci_high is not None and aggregate.ci_high < 0.85
    shown = format_interval(aggregate.ci_low or 0.0, aggregate.ci_high, mark=0.85)
    assert not shown.endswith("0.85") and len(shown.split("–")[1]) == 5
    assert f"95% CI {shown})" in aggregate.message
