"""Baseline comparison: pairing, the regression rule and how it joins the gate's verdict."""

from __future__ import annotations

import pytest
from gate_runs import METRICS, case, cases

from pytest_ragas_gate.gate.baseline import compare_to_baseline, in_shard, pair_cases, pairing
from pytest_ragas_gate.gate.judge_changes import judge_changes
from pytest_ragas_gate.gate.verdict import RunFacts, evaluate_gate
from pytest_ragas_gate.golden.sharding import Shard
from pytest_ragas_gate.judges.base import NO_JUDGE, JudgeInfo, MetricJudge
from pytest_ragas_gate.scoring.results import CaseResult
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


def _asked(result: CaseResult, **fields: object) -> CaseResult:
    return result.model_copy(update=fields)


def test_a_case_pairs_only_when_its_question_and_reference_match() -> None:
    base = [
        _asked(case("same", 1.0), reference="Paris."),
        _asked(case("spaced", 1.0), question="Where is  the\nLouvre?"),
        _asked(case("asked", 1.0), question="Where is the Louvre?"),
        _asked(case("answered", 1.0), reference="Paris."),
        _asked(case("one-sided", 1.0), reference="Paris."),
    ]
    new = [
        _asked(case("same", 1.0), reference="Paris."),
        _asked(case("spaced", 1.0), question=" Where is the Louvre? "),
        _asked(case("asked", 0.0), question="Where is the Eiffel Tower?"),
        _asked(case("answered", 0.0), reference="Lyon."),
        case("one-sided", 1.0),  # no reference on one side: the question decides
    ]
    found = pairing(base, new)
    assert sorted(new.id for _, new in found.pairs) == ["one-sided", "same", "spaced"]
    assert found.reused == ["answered", "asked"]
    comparison = compare_to_baseline(base, new, METRICS, CONFIG, path="b.json")
    assert comparison.reused_ids == ["answered", "asked"]
    assert comparison.warnings[0] == (
        "2 baseline ids reused for other questions: not paired (answered, asked)"
    )
    assert "golden.jsonl::asked" in comparison.new_cases
    assert "golden.jsonl::asked" in comparison.removed_cases


def test_a_conversation_with_one_turn_asked_otherwise_is_not_paired() -> None:
    def turn(conversation: str, number: int, question: str) -> CaseResult:
        return _asked(
            case(f"{conversation}#{number}", 1.0),
            conversation=conversation,
            turn=number,
            question=question,
        )

    base = [turn("chat", 1, "Hi"), turn("chat", 2, "Refund?"), turn("other", 1, "Hello")]
    new = [turn("chat", 1, "Hi"), turn("chat", 2, "Shipping?"), turn("other", 1, "Hello")]
    found = pairing(base, new)
    assert [new.id for _, new in found.pairs] == ["other#1"]
    assert found.reused == ["chat"]


def test_a_baseline_that_saved_no_question_pairs_by_id_and_says_so() -> None:
    base = [_asked(case(name, 1.0), question="") for name in ("a", "b")]
    new = [case("a", 1.0), case("b", 1.0)]
    comparison = compare_to_baseline(base, new, METRICS, CONFIG, path="old.json")
    assert comparison.paired_cases == 2
    assert comparison.unverified_pairs == 2
    assert comparison.warnings == [
        "2 cases paired by id alone: the baseline saved no question to check them against (a "
        "report written by an older version); re-run the baseline to pair by question"
    ]


def test_a_baseline_that_paired_too_few_has_nothing_regressed_or_newly_failing() -> None:
    config = CONFIG.model_copy(update={"min_paired": 3})
    base = [case("a", 1.0), case("b", 1.0)]
    new = [case("a", 0.0), case("b", 0.0)]
    comparison = compare_to_baseline(base, new, METRICS, config, path="b.json")
    assert comparison.regressed_metrics == []
    assert comparison.metrics["faithfulness"].base_passed is None
    assert comparison.case_misses is None
    verdict = evaluate_gate(new, METRICS, config, RunFacts(baseline=comparison))
    assert verdict.newly_failing == []
    assert all(not case.newly_failing for case in verdict.cases)


def test_judge_changes_name_what_changed() -> None:
    old = JudgeInfo(kind="openai", model="gpt-4.1-mini", prompt_version="6")
    new = old.model_copy(update={"prompt_version": "7"})
    assert judge_changes(old, new, ["faithfulness"]) == {
        "faithfulness": "baseline judged by gpt-4.1-mini prompt v6, this run v7"
    }
    # A report written before versions were kept is not said to differ.
    unknown = old.model_copy(update={"prompt_version": ""})
    assert judge_changes(unknown, new, ["faithfulness"]) == {}
    # A metric that no judge scores is comparable whoever judged the rest.
    free = new.model_copy(update={"metrics": {"mrr": MetricJudge(kind=NO_JUDGE)}})
    assert judge_changes(old, free, ["mrr", "faithfulness"]) == {
        "faithfulness": "baseline judged by gpt-4.1-mini prompt v6, this run v7"
    }


def _outage(results: list[CaseResult]) -> list[CaseResult]:
    """``results`` with every faithfulness judgement lost to the judge."""
    return [
        result.model_copy(
            update={
                "scores": {k: v for k, v in result.scores.items() if k != "faithfulness"},
                "errors": {"faithfulness": "connection refused"},
                "judge_errors": ["faithfulness"],
            }
        )
        for result in results
    ]


def test_a_judge_outage_leaves_the_baseline_check_not_evaluated_not_passed() -> None:
    base = cases([0.9] * 20)
    dead = _outage(cases([0.9] * 20))
    comparison = compare_to_baseline(base, dead, METRICS, CONFIG, path="base.json")
    delta = comparison.metrics["faithfulness"]
    assert delta.base_passed is None and delta.unscored == "this run's judge gave no usable answer"
    assert not comparison.passed
    assert comparison.not_evaluated_reasons == [
        "baseline regression check not evaluated for faithfulness: "
        "this run's judge gave no usable answer"
    ]
    line = comparison.summary_line()
    assert "no regression" not in line
    assert line.endswith(
        "; check not evaluated for faithfulness: this run's judge gave no usable answer"
    )
    verdict = evaluate_gate(dead, METRICS, CONFIG, RunFacts(baseline=comparison))
    assert verdict.metrics["faithfulness"].baseline_passed is None
    assert comparison.not_evaluated_reasons[0] in verdict.not_evaluated
