from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from pytest_ragas_gate.gate.hints import HINTS
from pytest_ragas_gate.gate.verdict import (
    RunFacts,
    aggregate_metric,
    canonical_order,
    evaluate_gate,
)
from pytest_ragas_gate.scoring.results import CaseResult
from pytest_ragas_gate.settings.config import GateConfig

RAGAS = ["faithfulness", "answer_relevancy", "context_recall", "context_precision"]


def case(index: int, source: str = "golden/qa.jsonl", **fields: Any) -> CaseResult:
    fields.setdefault("metrics", list(fields.get("scores", {})))
    return CaseResult(id=f"q{index:03d}", source=f"{source}:{index + 1}", **fields)


def run(scores_per_metric: Mapping[str, Sequence[float | None]]) -> list[CaseResult]:
    count = len(next(iter(scores_per_metric.values())))
    return [
        case(i, scores={metric: values[i] for metric, values in scores_per_metric.items()})
        for i in range(count)
    ]


def config(**settings: Any) -> GateConfig:
    settings.setdefault("bootstrap_resamples", 500)
    return GateConfig(**settings)


def test_a_failing_example_blocks_deployment_naming_the_failures() -> None:
    results = run(
        {
            "faithfulness": [0.9, 0.7, 0.8, 0.8],  # mean 0.80 < 0.85
            "answer_relevancy": [0.9, 0.8, 0.8, 0.9],  # 0.85 ≥ 0.75
            "context_recall": [0.5, 1.0, 0.5, 0.5],  # 0.625 < 0.80
            "context_precision": [1.0, 0.5833, 1.0, 0.7556],  # 0.83 ≥ 0.70
        }
    )
    verdict = evaluate_gate(results, RAGAS, config())
    assert not verdict.passed
    assert verdict.failing_metrics == ["faithfulness", "context_recall"]
    assert verdict.recommendation == (
        "Block deployment — 2 metric(s) below threshold: faithfulness, context_recall; "
        "1 retrieval failure, 1 generation failure, 2 retrieval+generation failures: "
        "fix the retriever first"
    )
    assert list(verdict.metrics) == RAGAS
    assert verdict.failures == [
        verdict.metrics["faithfulness"].message,
        verdict.metrics["context_recall"].message,
    ]
    assert verdict.hints == {
        "faithfulness": HINTS["faithfulness"],
        "context_recall": HINTS["context_recall"],
    }
    assert verdict.metrics["answer_relevancy"].passed is True


def test_passing_run_judged_by_an_llm_is_safe_to_deploy() -> None:
    facts = RunFacts(scored_by={"faithfulness": "anthropic"})
    scores: list[float | None] = [0.9, 1.0, 0.95] * 14
    verdict = evaluate_gate(run({"faithfulness": scores}), ["faithfulness"], config(), facts)
    assert verdict.passed
    assert verdict.deploy_decision
    assert verdict.recommendation == "Safe to deploy"
    assert verdict.failures == []
    assert verdict.hints == {}


def test_mean_rule_messages_exact_format() -> None:
    results = run({"faithfulness": [0.8] * 20 + [0.82] * 20})
    agg = aggregate_metric(results, "faithfulness", config())
    assert agg.n == 40
    assert agg.mean == pytest.approx(0.81)
    assert agg.passed is False
    assert agg.message == ("faithfulness mean 0.81 < 0.85 (n=40, 95% CI 0.80–0.82)")
    assert agg.ci_low is not None and agg.ci_high is not None and agg.mean is not None
    assert agg.ci_low <= agg.mean <= agg.ci_high

    scores: list[float | None] = [0.9, 0.92] * 20
    passing = aggregate_metric(run({"faithfulness": scores}), "faithfulness", config())
    # A narrow interval is printed outwards, never as zero-width.
    assert passing.message == "faithfulness mean 0.91 ≥ 0.85 (n=40, 95% CI 0.90–0.92)"
    assert passing.passed is True

    # 40 identical scores leave room for cases the sample did not draw: the interval
    # reaches past the threshold, and the message says on how little the pass rests.
    uniform = aggregate_metric(run({"faithfulness": [0.91] * 40}), "faithfulness", config())
    assert uniform.passed is True
    assert uniform.message == (
        "faithfulness mean 0.91 ≥ 0.85 on 40 cases; the 95% interval reaches 0.83"
    )


def test_mean_equal_to_threshold_passes_despite_float_noise() -> None:
    # A mean equal to its threshold reaches it (the rule is mean ≥ threshold).
    agg = aggregate_metric(run({"faithfulness": [0.8, 0.9]}), "faithfulness", config())
    assert agg.passed is True


def test_a_near_miss_is_not_printed_as_equal() -> None:
    agg = aggregate_metric(run({"faithfulness": [0.849] * 3}), "faithfulness", config())
    assert agg.passed is False
    assert agg.message.startswith("faithfulness mean 0.8490 < 0.8500 ")


def test_ci_lower_rule_is_strict() -> None:
    scores: list[float | None] = [1.0, 0.6] * 20  # mean 0.80, CI roughly 0.74–0.86
    cfg = config(thresholds={"faithfulness": 0.78}, rules={"faithfulness": "ci_lower"})
    agg = aggregate_metric(run({"faithfulness": scores}), "faithfulness", cfg)
    assert agg.rule == "ci_lower"
    assert agg.mean == pytest.approx(0.8)
    assert agg.ci_low is not None and agg.ci_low < 0.78
    assert agg.passed is False
    assert agg.message == (
        f"faithfulness 95% CI lower bound {agg.ci_low:.2f} < 0.78 (mean 0.80, n=40)"
    )
    # The same data passes the mean rule.
    by_mean = aggregate_metric(
        run({"faithfulness": scores}), "faithfulness", config(thresholds={"faithfulness": 0.78})
    )
    assert by_mean.passed is True


def test_ci_upper_rule_is_lenient() -> None:
    scores: list[float | None] = [1.0, 0.6] * 20  # mean 0.80
    cfg = config(thresholds={"faithfulness": 0.82}, rule="ci_upper")
    agg = aggregate_metric(run({"faithfulness": scores}), "faithfulness", cfg)
    assert agg.ci_high is not None and agg.ci_high >= 0.82
    assert agg.passed is True  # below on average, but not confidently below
    # A pass on the interval alone, with the mean below: the line says so.
    assert agg.message == (
        f"faithfulness mean 0.80 < 0.82 but its 95% interval reaches {agg.ci_high:.2f} "
        "(rule ci_upper)"
    )

    confidently_low = aggregate_metric(
        run({"faithfulness": [0.78] * 40}), "faithfulness", config(rule="ci_upper")
    )
    assert confidently_low.passed is False
    # Identical scores: cases not drawn could sit higher, but not by 0.07 at 40 cases.
    assert confidently_low.message == (
        "faithfulness 95% CI upper bound 0.80 < 0.85 (mean 0.78, n=40)"
    )


def test_confidence_level_shows_in_messages() -> None:
    agg = aggregate_metric(
        run({"faithfulness": [0.9, 0.95] * 20}), "faithfulness", config(confidence=0.9)
    )
    assert "90% CI" in agg.message
    few = aggregate_metric(
        run({"faithfulness": [0.9, 0.95]}), "faithfulness", config(confidence=0.9)
    )
    assert "the 90% interval reaches" in few.message


def test_empty_aggregate_fails_the_gate() -> None:
    results = [
        case(0, scores={"faithfulness": None}),
        case(1, scores={"faithfulness": None}),
        case(2, scores={"faithfulness": None}),
        case(3, metrics=["faithfulness"], errors={"faithfulness": "timeout"}),
        case(4, metrics=["faithfulness"], error="target raised ValueError"),
    ]
    agg = aggregate_metric(results, "faithfulness", config())
    assert (agg.n, agg.not_applicable, agg.errors) == (0, 3, 2)
    assert agg.mean is None and agg.ci_low is None and agg.std is None
    assert agg.passed is False
    assert agg.message == (
        "faithfulness has no scored cases (n=0, 3 not applicable, 2 errors); "
        "an empty aggregate fails the gate"
    )
    verdict = evaluate_gate(results, ["faithfulness"], config(max_error_rate=1.0))
    assert not verdict.passed
    assert verdict.failing_metrics == ["faithfulness"]


def test_not_applicable_is_not_counted_as_zero() -> None:
    results = run({"faithfulness": [0.9, None, 1.0, None]})
    agg = aggregate_metric(results, "faithfulness", config())
    assert agg.n == 2
    assert agg.not_applicable == 2
    assert agg.mean == pytest.approx(0.95)
    assert agg.passed is True


def test_metric_without_threshold_is_reported_not_gated() -> None:
    results = run({"faithfulness": [0.9, 0.9], "context_relevance": [0.1, 0.2]})
    verdict = evaluate_gate(results, ["faithfulness", "context_relevance"], config())
    relevance = verdict.metrics["context_relevance"]
    assert relevance.threshold is None
    assert relevance.passed is None
    assert relevance.message.endswith("; not gated")
    assert verdict.passed


def test_null_threshold_removes_a_default() -> None:
    results = run({"faithfulness": [0.1, 0.2]})
    verdict = evaluate_gate(results, ["faithfulness"], config(thresholds={"faithfulness": None}))
    assert verdict.metrics["faithfulness"].passed is None
    assert verdict.passed


def test_errors_fail_closed_by_default() -> None:
    results = [case(i, scores={"faithfulness": 0.95}) for i in range(37)]
    results += [
        case(37, metrics=["faithfulness"], errors={"faithfulness": "JudgeReplyError"}),
        case(38, metrics=["faithfulness"], error="BudgetExceeded: max_calls"),
        case(
            39,
            scores={"answer_relevancy": 0.9},
            metrics=["faithfulness", "answer_relevancy"],
            errors={"faithfulness": "429", "context_recall": "timeout"},
        ),
    ]
    verdict = evaluate_gate(results, ["faithfulness"], config())
    assert verdict.metrics["faithfulness"].passed is True
    assert verdict.metrics["faithfulness"].errors == 3
    assert (verdict.total_cases, verdict.errored_cases) == (40, 3)
    assert verdict.error_rate == pytest.approx(0.075)
    assert not verdict.passed
    assert not verdict.error_rate_passed
    assert verdict.failures == [
        "judge unreliable: 3 of 40 case(s) errored (7.5% > max_error_rate 0%)"
    ]
    assert verdict.recommendation == "Block deployment — 3 case(s) errored"
    assert verdict.failing_metrics == []


def test_errors_within_a_configured_rate_pass() -> None:
    results = [case(i, scores={"faithfulness": 0.95}) for i in range(19)]
    results.append(case(19, metrics=["faithfulness"], errors={"faithfulness": "timeout"}))
    verdict = evaluate_gate(results, ["faithfulness"], config(max_error_rate=0.05))
    assert verdict.passed
    assert verdict.error_rate_passed
    assert verdict.error_rate_message == "1 of 20 case(s) errored (5% ≤ max_error_rate 5%)"


def test_whole_case_error_counts_for_every_metric_when_none_were_selected() -> None:
    errored = CaseResult(id="bad", source="g.jsonl:9", error="malformed case: no question")
    agg = aggregate_metric([errored], "context_recall", config())
    assert agg.errors == 1
    other = CaseResult(id="x", source="g.jsonl:3", metrics=["faithfulness"], error="boom")
    assert aggregate_metric([other], "context_recall", config()).errors == 0


def test_no_cases_fail_the_gate() -> None:
    verdict = evaluate_gate([], ["faithfulness"], config())
    assert not verdict.passed
    assert verdict.total_cases == 0
    assert verdict.failures[0] == "no golden cases were scored"
    assert verdict.recommendation.startswith("Block deployment — no golden cases were scored")


def test_tag_thresholds() -> None:
    results = [
        case(0, scores={"faithfulness": 0.95}, tags=["en"]),
        case(1, scores={"faithfulness": 0.97}, tags=["en"]),
        case(2, scores={"faithfulness": 0.70}, tags=["zh"]),
        case(3, scores={"faithfulness": 0.80}, tags=["zh", "hard"]),
    ]
    cfg = config(
        thresholds={"faithfulness": 0.8},
        tag_thresholds={"zh": {"faithfulness": 0.8}, "en": {"faithfulness": 0.9}, "fr": {}},
    )
    verdict = evaluate_gate(results, ["faithfulness"], cfg)
    assert verdict.metrics["faithfulness"].passed is True  # overall mean 0.855
    by_tag = {(v.tag, v.metric): v for v in verdict.tags}
    assert set(by_tag) == {("zh", "faithfulness"), ("en", "faithfulness")}
    zh = by_tag["zh", "faithfulness"]
    assert (zh.n, zh.passed) == (2, False)
    assert zh.mean == pytest.approx(0.75)
    assert zh.message == "tag 'zh' faithfulness mean 0.75 < 0.80 (n=2, 95% CI 0.18–1.00)"
    assert by_tag["en", "faithfulness"].passed
    assert not verdict.passed
    assert verdict.failures == [zh.message]
    assert verdict.recommendation == (
        "Block deployment — tag 'zh' below threshold; 1 generation failure: fix the generator first"
    )
    assert verdict.hints == {"faithfulness": HINTS["faithfulness"]}


def test_tag_without_scored_cases_fails() -> None:
    results = run({"faithfulness": [0.9, 0.95]})
    verdict = evaluate_gate(
        results, ["faithfulness"], config(tag_thresholds={"zh": {"faithfulness": 0.5}})
    )
    assert not verdict.passed
    assert verdict.tags[0].n == 0
    assert "has no scored cases" in verdict.tags[0].message
    # Nothing was measured: the recommendation says so, and offers no advice on quality.
    assert "tag 'zh' has no scored cases" in verdict.recommendation
    assert "below threshold" not in verdict.recommendation
    assert verdict.hints == {}


def test_combined_causes_in_recommendation() -> None:
    results = [case(i, scores={"faithfulness": 0.5}, tags=["zh"]) for i in range(4)]
    results.append(case(4, metrics=["faithfulness"], error="boom", tags=["zh"]))
    cfg = config(tag_thresholds={"zh": {"faithfulness": 0.6}})
    verdict = evaluate_gate(results, ["faithfulness"], cfg)
    assert verdict.recommendation == (
        "Block deployment — 1 metric(s) below threshold: faithfulness; "
        "1 case(s) errored; tag 'zh' below threshold; 4 generation failures: "
        "fix the generator first"
    )
    assert len(verdict.failures) == 3


def test_unknown_metric_gets_the_generic_hint() -> None:
    results = run({"my_metric": [0.1, 0.2]})
    verdict = evaluate_gate(results, ["my_metric"], config(thresholds={"my_metric": 0.5}))
    assert verdict.failing_metrics == ["my_metric"]
    assert verdict.hints["my_metric"].startswith("Open the JSON report")


def test_order_independence_gives_identical_verdict_json() -> None:
    rng = random.Random(42)
    results = [
        case(
            i,
            source=f"golden/part{i % 3}.jsonl",
            scores={
                "faithfulness": rng.choice([None, rng.random()]),
                "context_recall": rng.random(),
            },
            tags=["zh"] if i % 2 else ["en"],
        )
        for i in range(60)
    ]
    cfg = config(tag_thresholds={"zh": {"context_recall": 0.3}}, bootstrap_resamples=1000)
    metrics = ["faithfulness", "context_recall"]
    expected = evaluate_gate(results, metrics, cfg).model_dump_json()
    for seed in range(5):
        shuffled = list(results)
        random.Random(seed).shuffle(shuffled)
        assert evaluate_gate(shuffled, metrics, cfg).model_dump_json() == expected
    # Split into "worker" shards and concatenated in another order, as xdist would.
    shards = [results[1::3], results[2::3], results[0::3]]
    merged = [r for shard in shards for r in shard]
    assert evaluate_gate(merged, metrics, cfg).model_dump_json() == expected


def test_seed_changes_the_interval_but_is_reproducible() -> None:
    # Skewed scores: the percentile bootstrap is the widest part on top, so its seed shows.
    results = run({"faithfulness": [random.Random(i).random() ** 3 for i in range(100)]})
    first = aggregate_metric(results, "faithfulness", config(seed=1))
    again = aggregate_metric(results, "faithfulness", config(seed=1))
    others = [aggregate_metric(results, "faithfulness", config(seed=seed)) for seed in (2, 3, 4)]
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)
    assert any((first.ci_low, first.ci_high) != (o.ci_low, o.ci_high) for o in others)


def test_canonical_order_sorts_by_source_then_id() -> None:
    b = CaseResult(id="a", source="b.jsonl:1")
    a2 = CaseResult(id="z", source="a.jsonl:1")
    a1 = CaseResult(id="a", source="a.jsonl:1")
    assert canonical_order([b, a2, a1]) == [a1, a2, b]


def test_gate_module_imports_neither_pytest_nor_sdks() -> None:
    import ast
    from pathlib import Path

    import pytest_ragas_gate.gate.verdict as gate
    import pytest_ragas_gate.stats as stats

    for module in (gate, stats):
        tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {
            (node.module or "").split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and not node.level
        }
        assert not imported & {"pytest", "_pytest", "anthropic", "openai", "numpy"}


# --- a judge that did not answer: "error", apart from a quality "failed" -----------------


def judge_error(index: int, *metrics: str) -> CaseResult:
    """A case whose judge never answered for ``metrics``."""
    return case(
        index,
        metrics=list(metrics),
        errors={metric: "HTTP 503 after 7 attempts" for metric in metrics},
        judge_errors=list(metrics),
    )


def test_judge_errors_alone_leave_no_deploy_decision() -> None:
    results = [case(i, scores={"faithfulness": 0.95}) for i in range(9)]
    results.append(judge_error(9, "faithfulness"))
    verdict = evaluate_gate(results, ["faithfulness"], config())
    assert (verdict.status, verdict.passed, verdict.headline) == ("error", False, "RAG gate: ERROR")
    assert verdict.recommendation.startswith(
        "Judge unavailable, no deploy decision — judge unreliable: 1 of 10 case(s) errored"
    )


def test_a_judge_that_answered_nothing_is_error_though_no_metric_was_computed() -> None:
    results = [
        judge_error(i, "faithfulness", "context_recall").model_copy(update={"tags": ["billing"]})
        for i in range(4)
    ]
    verdict = evaluate_gate(
        results,
        ["faithfulness", "context_recall"],
        config(tag_thresholds={"billing": {"faithfulness": 0.9}}),
    )
    assert verdict.failing_metrics == ["faithfulness", "context_recall"]
    assert verdict.status == "error"


@pytest.mark.parametrize(
    "other",
    [
        pytest.param(case(9, scores={"faithfulness": 0.1}), id="quality below threshold"),
        pytest.param(case(9, error="field 'question': missing"), id="malformed case"),
        pytest.param(
            case(9, metrics=["faithfulness"], errors={"faithfulness": "ValueError: bug"}),
            id="a metric's own error",
        ),
        pytest.param(
            case(9, scores={"faithfulness": 0.95}, thresholds={"faithfulness": 0.99}),
            id="case below its own threshold",
        ),
    ],
)
def test_any_other_failure_with_judge_errors_is_failed(other: CaseResult) -> None:
    results = [case(i, scores={"faithfulness": 0.9}) for i in range(7)]
    results += [judge_error(7, "faithfulness"), judge_error(8, "faithfulness"), other]
    verdict = evaluate_gate(results, ["faithfulness"], config())
    assert verdict.status == "failed"
    assert verdict.recommendation.startswith("Block deployment — ")


def test_a_report_from_before_judge_errors_were_recorded_regates_as_failed() -> None:
    results = [case(i, scores={"faithfulness": 0.95}) for i in range(3)]
    results.append(case(3, metrics=["faithfulness"], errors={"faithfulness": "HTTP 503"}))
    assert evaluate_gate(results, ["faithfulness"], config()).status == "failed"
