"""Built-in metrics, their arithmetic and the metric registry.

The judge here is a scripted test double: it returns the verdicts a test gives it, so these
tests pin down how each metric turns per-item verdicts into a score. The real judges are
tested in their own modules.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Sequence
from importlib.metadata import EntryPoint
from typing import Any

import pytest
from gate_runs import builtin_metrics
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from pytest_ragas_gate.exceptions import CaseError, ConfigError, JudgeError, JudgeReplyError
from pytest_ragas_gate.golden.cases import Context, GoldenCase
from pytest_ragas_gate.golden.tool_calls import ExpectedTool
from pytest_ragas_gate.judges.requests import (
    AttributeAnswer,
    ClassifyCorrectness,
    ExtractClaims,
    GenerateQuestions,
    JudgeChunks,
    JudgeRequest,
    RateRelevancy,
    ReviewContexts,
    VerifyClaims,
)
from pytest_ragas_gate.metrics import registry
from pytest_ragas_gate.metrics.alignment import TopDocUsage
from pytest_ragas_gate.metrics.base import Metric, MetricResult
from pytest_ragas_gate.metrics.context import ContextPrecision, ContextRecall, ContextRelevance
from pytest_ragas_gate.metrics.correctness import AnswerCorrectness
from pytest_ragas_gate.metrics.faithfulness import Faithfulness
from pytest_ragas_gate.metrics.formulas import (
    average_precision,
    cosine_similarity,
    f1_from_counts,
    id_precision,
    id_recall,
    mean_reciprocal_rank,
    normalised_rating,
    reciprocal_rank,
    share,
)
from pytest_ragas_gate.metrics.registry import (
    BUILTIN_METRIC_NAMES,
    ENTRY_POINT_GROUP,
    HOOK,
    MetricRegistry,
    applicable_metrics,
    unknown_metric_error,
)
from pytest_ragas_gate.metrics.relevancy import AnswerRelevancy
from pytest_ragas_gate.metrics.retrieval_ids import IdPrecision, IdRecall, MeanReciprocalRank
from pytest_ragas_gate.settings.config import DEFAULT_THRESHOLDS

# --- test double ---------------------------------------------------------------------------


class ScriptedJudge:
    """Answers each request kind with the raw reply scripted for it, checked against its schema.

    A real judge also refuses (and re-asks) a reply that does not fit its request; this one
    hands such a reply over, so that each metric's own guard behind it is tested.
    """

    def __init__(self, **replies: object) -> None:
        self.replies = replies
        self.asked: list[JudgeRequest[Any]] = []

    async def ask(self, request: JudgeRequest[Any]) -> Any:
        self.asked.append(request)
        if request.kind not in self.replies:
            raise AssertionError(f"unexpected request {request.kind}: {request!r}")
        return request.reply_type.model_validate(self.replies[request.kind])

    def kinds(self) -> list[str]:
        return [request.kind for request in self.asked]


def make_case(**fields: Any) -> GoldenCase:
    fields.setdefault("id", "case-1")
    fields.setdefault("question", "Who founded Apple?")
    if "contexts" in fields:
        fields["contexts"] = [
            context if isinstance(context, Context) else Context(text=context)
            for context in fields["contexts"]
        ]
    return GoldenCase(file="golden.jsonl", line=3, **fields)


def run(metric: Metric, case: GoldenCase, judge: ScriptedJudge | None = None) -> MetricResult:
    return asyncio.run(metric.score(case, judge or ScriptedJudge()))


def chunk_verdicts(relevance: Sequence[int]) -> dict[str, Any]:
    return {
        "verdicts": [
            {"index": index, "relevant": bool(relevant), "reason": f"chunk {index}"}
            for index, relevant in enumerate(relevance)
        ]
    }


APPLE_CASE = make_case(
    question="Who founded Apple?",
    answer="Apple was founded by Steve Jobs, Steve Wozniak and Bill Gates in 1976.",
    contexts=["Apple was founded by Steve Jobs, Steve Wozniak and Ronald Wayne."],
    reference="Steve Jobs, Steve Wozniak and Ronald Wayne founded Apple in 1976.",
)
APPLE_CLAIMS = [
    "Apple was founded by Steve Jobs.",
    "Apple was founded by Bill Gates.",
    "Apple was founded in 1976.",
]

# --- formulas --------------------------------------------------------------------------------


# Worked examples often round 0.5833 to 0.585 and print 0.7567 for 0.7556; the exact values
# of the formula are asserted here.
@pytest.mark.parametrize(
    ("relevance", "expected"),
    [
        ([0, 1, 1], 0.58333),
        ([1, 0, 1, 0, 1], 0.75556),
        ([0, 0, 0, 1, 1], 0.325),
        ([1, 1, 1, 0, 0], 1.0),
        ([0, 0], 0.0),
    ],
)
def test_average_precision_worked_examples(relevance: list[int], expected: float) -> None:
    assert average_precision(relevance) == pytest.approx(expected, abs=1e-4)


def test_normalised_rating_worked_examples() -> None:
    assert [normalised_rating(rating) for rating in (5, 3, 2, 1)] == [1.0, 0.5, 0.25, 0.0]


@pytest.mark.parametrize(
    "call",
    [
        lambda: share(1, 0),
        lambda: share(3, 2),
        lambda: average_precision([]),
        lambda: f1_from_counts(0, 0, 0),
        lambda: f1_from_counts(-1, 1, 1),
        lambda: normalised_rating(6),
        lambda: cosine_similarity([1.0], [1.0, 0.0]),
        lambda: cosine_similarity([0.0, 0.0], [1.0, 0.0]),
        lambda: reciprocal_rank([]),
        lambda: mean_reciprocal_rank([]),
        lambda: id_recall(["A"], []),
        lambda: id_precision([], ["A"]),
    ],
)
def test_formulas_refuse_inputs_without_a_score(call: Any) -> None:
    with pytest.raises(ValueError):
        call()


def test_id_formulas_worked_examples() -> None:
    gold = ["A", "B", "C", "D", "E"]
    assert id_recall(["A", "C", "E"], gold) == pytest.approx(0.6)
    assert id_precision(["A", "B", "X", "Y", "Z"], gold) == pytest.approx(0.4)
    assert reciprocal_rank([0, 1, 0]) == 0.5
    assert mean_reciprocal_rank([[1], [0, 1]]) == 0.75


relevance_lists = st.lists(st.booleans(), min_size=1, max_size=30)
id_lists = st.lists(st.sampled_from("ABCDEFGHIJ"), min_size=1, max_size=12)


@given(relevance_lists)
def test_average_precision_and_reciprocal_rank_lie_in_unit_interval(
    relevance: list[bool],
) -> None:
    assert 0.0 <= average_precision(relevance) <= 1.0
    assert 0.0 <= reciprocal_rank(relevance) <= 1.0


@given(st.integers(0, 1000), st.integers(0, 1000), st.integers(0, 1000))
def test_f1_lies_in_unit_interval(tp: int, fp: int, fn: int) -> None:
    if tp + fp + fn == 0:
        with pytest.raises(ValueError):
            f1_from_counts(tp, fp, fn)
    else:
        assert 0.0 <= f1_from_counts(tp, fp, fn) <= 1.0


@given(id_lists, id_lists)
def test_id_metrics_lie_in_unit_interval(retrieved: list[str], gold: list[str]) -> None:
    assert 0.0 <= id_recall(retrieved, gold) <= 1.0
    assert 0.0 <= id_precision(retrieved, gold) <= 1.0


@given(
    st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=2),
    st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=2),
)
def test_cosine_similarity_lies_in_its_range(left: list[float], right: list[float]) -> None:
    if math.hypot(*left) == 0.0 or math.hypot(*right) == 0.0:
        return
    assert -1.0 <= cosine_similarity(left, right) <= 1.0


# --- faithfulness ----------------------------------------------------------------------------


def test_faithfulness_one_of_three_apple_claims_supported() -> None:
    judge = ScriptedJudge(
        extract_claims={"claims": APPLE_CLAIMS},
        verify_claims={
            "verdicts": [
                {"claim": APPLE_CLAIMS[0], "supported": True, "reason": "named in context"},
                {"claim": APPLE_CLAIMS[1], "verdict": "contradicted", "reason": "Ronald Wayne"},
                {"claim": APPLE_CLAIMS[2], "verdict": "not_in_context", "reason": "no year"},
            ]
        },
    )
    result = run(Faithfulness(), APPLE_CASE, judge)
    assert result.score == pytest.approx(1 / 3)
    assert round(result.score or 0, 3) == 0.333
    assert result.reason == "1 of 3 claims supported"
    assert result.details[1] == {
        "claim": APPLE_CLAIMS[1],
        "verdict": "contradicted",
        "supported": False,
        "reason": "Ronald Wayne",
    }
    assert judge.kinds() == ["extract_claims", "verify_claims"]
    verify = judge.asked[1]
    assert isinstance(verify, VerifyClaims)
    assert verify.claims == APPLE_CLAIMS
    assert verify.contexts == APPLE_CASE.context_texts


def test_faithfulness_two_of_three_einstein_claims() -> None:
    claims = ["Einstein was born in Germany.", "He was born in 1879.", "He won two Nobels."]
    judge = ScriptedJudge(
        extract_claims={"claims": claims},
        verify_claims={
            "verdicts": [
                {"claim": claim, "supported": supported}
                for claim, supported in zip(claims, (True, True, False), strict=True)
            ]
        },
    )
    case = make_case(question="Einstein?", answer="...", contexts=["Einstein bio"])
    result = run(Faithfulness(), case, judge)
    assert round(result.score or 0, 3) == 0.667


def test_faithfulness_without_claims_is_not_applicable() -> None:
    judge = ScriptedJudge(extract_claims={"claims": ["  ", ""]})
    result = run(Faithfulness(), APPLE_CASE, judge)
    assert result.score is None
    assert "no factual claims" in result.reason
    assert judge.kinds() == ["extract_claims"]


def test_faithfulness_rejects_a_verdict_count_that_differs_from_the_claims() -> None:
    judge = ScriptedJudge(
        extract_claims={"claims": APPLE_CLAIMS},
        verify_claims={"verdicts": [{"claim": APPLE_CLAIMS[0], "supported": True}]},
    )
    with pytest.raises(JudgeReplyError, match=r"1 verdict\(s\) for 3 claim\(s\)"):
        run(Faithfulness(), APPLE_CASE, judge)


def test_a_missing_required_field_is_a_case_error_not_a_score() -> None:
    case = make_case(answer=None, contexts=["x"])
    with pytest.raises(CaseError, match="'answer'"):
        run(Faithfulness(), case)


# --- answer relevancy ------------------------------------------------------------------------


@pytest.mark.parametrize(("rating", "expected"), [(5, 1.0), (3, 0.5), (2, 0.25), (1, 0.0)])
def test_answer_relevancy_rubric_ratings(rating: int, expected: float) -> None:
    judge = ScriptedJudge(rate_relevancy={"rating": rating, "reason": "r"})
    case = make_case(answer="Jobs and Wozniak.")
    result = run(AnswerRelevancy(), case, judge)
    assert result.score == expected
    assert result.details == [{"rating": rating, "noncommittal": False, "reason": "r"}]
    request = judge.asked[0]
    assert isinstance(request, RateRelevancy)
    assert (request.question, request.answer) == (case.question, case.answer)


def test_answer_relevancy_noncommittal_answer_scores_zero() -> None:
    judge = ScriptedJudge(rate_relevancy={"rating": 4, "noncommittal": True})
    result = run(AnswerRelevancy(), make_case(answer="I don't know."), judge)
    assert result.score == 0.0
    assert "noncommittal" in result.reason


def unit_vector_at(similarity: float) -> list[float]:
    """A 2-D unit vector whose cosine with [1, 0] is ``similarity``."""
    return [similarity, math.sqrt(1 - similarity**2)]


def fixed_embedder(vectors: list[list[float]]) -> Any:
    seen: list[list[str]] = []

    async def embed(texts: list[str]) -> list[list[float]]:
        seen.append(texts)
        return vectors

    embed.seen = seen  # type: ignore[attr-defined]
    return embed


def test_answer_relevancy_reverse_questions_worked_example() -> None:
    embedder = fixed_embedder([[1.0, 0.0], *(unit_vector_at(s) for s in (0.95, 0.82, 0.78))])
    questions = ["What is a vector database?", "What does it store?", "How does it query?"]
    judge = ScriptedJudge(generate_questions={"questions": questions})
    case = make_case(question="What is a vector database?", answer="A database of vectors.")
    result = run(AnswerRelevancy("reverse_questions", embedder), case, judge)
    assert result.score == pytest.approx(0.85)
    assert [detail["similarity"] for detail in result.details] == pytest.approx([0.95, 0.82, 0.78])
    assert embedder.seen == [[case.question, *questions]]
    request = judge.asked[0]
    assert isinstance(request, GenerateQuestions)
    assert request.count == 3


def test_answer_relevancy_reverse_questions_noncommittal_is_zero() -> None:
    embedder = fixed_embedder([])
    judge = ScriptedJudge(generate_questions={"questions": ["?"], "noncommittal": True})
    result = run(
        AnswerRelevancy("reverse_questions", embedder), make_case(answer="No idea."), judge
    )
    assert result.score == 0.0
    assert embedder.seen == []


def test_answer_relevancy_reverse_questions_clamps_negative_similarity_to_zero() -> None:
    embedder = fixed_embedder([[1.0, 0.0], [-1.0, 0.0]])
    judge = ScriptedJudge(generate_questions={"questions": ["Unrelated?"]})
    result = run(AnswerRelevancy("reverse_questions", embedder), make_case(answer="a"), judge)
    assert result.score == 0.0


def test_answer_relevancy_reverse_questions_rejects_a_short_embedding_batch() -> None:
    embedder = fixed_embedder([[1.0, 0.0]])
    judge = ScriptedJudge(generate_questions={"questions": ["q1", "q2"]})
    with pytest.raises(JudgeError, match="1 vector"):
        run(AnswerRelevancy("reverse_questions", embedder), make_case(answer="a"), judge)


def test_answer_relevancy_reverse_questions_without_questions_is_a_reply_error() -> None:
    judge = ScriptedJudge(generate_questions={"questions": []})
    metric = AnswerRelevancy("reverse_questions", fixed_embedder([]))
    with pytest.raises(JudgeReplyError, match="no questions"):
        run(metric, make_case(answer="a"), judge)


def test_answer_relevancy_configuration_errors() -> None:
    with pytest.raises(ConfigError, match="embedder"):
        AnswerRelevancy("reverse_questions")
    with pytest.raises(ConfigError, match="'cosine'"):
        AnswerRelevancy("cosine")
    with pytest.raises(ConfigError, match="embedder"):
        builtin_metrics(answer_relevancy_strategy="reverse_questions")


# --- context precision / relevance / recall --------------------------------------------------


# Worked examples often round 0.5833 to 0.585 and print 0.7567 for 0.7556.
@pytest.mark.parametrize(
    ("relevance", "expected"),
    [
        ([0, 1, 1], 0.5833),
        ([1, 0, 1, 0, 1], 0.7556),
        ([0, 0, 0, 1, 1], 0.325),
        ([1, 1, 1, 0, 0], 1.0),
        ([0, 0, 0], 0.0),
    ],
)
def test_context_precision_worked_examples(relevance: list[int], expected: float) -> None:
    case = make_case(
        contexts=[f"chunk {index}" for index in range(len(relevance))], reference="ref"
    )
    review = {"chunks": chunk_verdicts(relevance)["verdicts"], "statements": []}
    judge = ScriptedJudge(review_contexts=review)
    result = run(ContextPrecision(), case, judge)
    assert result.score == pytest.approx(expected, abs=1e-4)
    assert [detail["relevant"] for detail in result.details] == [bool(r) for r in relevance]


def test_context_precision_and_recall_share_one_request_when_a_reference_exists() -> None:
    review = {
        "chunks": chunk_verdicts([1])["verdicts"],
        "statements": [{"statement": "s", "attributed": True}],
    }
    case = make_case(contexts=["c"], reference="The reference.")
    precision_judge = ScriptedJudge(review_contexts=review)
    recall_judge = ScriptedJudge(review_contexts=review)
    run(ContextPrecision(), case, precision_judge)
    run(ContextRecall(), case, recall_judge)
    assert precision_judge.asked == recall_judge.asked
    request = precision_judge.asked[0]
    assert isinstance(request, ReviewContexts)
    assert (request.reference, request.contexts) == ("The reference.", ["c"])


def test_context_precision_without_reference_matches_context_relevance_request() -> None:
    case = make_case(contexts=["A", "B"])
    precision_judge = ScriptedJudge(judge_chunks=chunk_verdicts([1, 0]))
    relevance_judge = ScriptedJudge(judge_chunks=chunk_verdicts([1, 0]))
    run(ContextPrecision(), case, precision_judge)
    run(ContextRelevance(), case, relevance_judge)
    assert precision_judge.asked == relevance_judge.asked
    request = precision_judge.asked[0]
    assert isinstance(request, JudgeChunks)
    assert (request.target, request.against) == (case.question, "question")


def test_context_precision_orders_verdicts_by_chunk_index() -> None:
    shuffled = {
        "verdicts": [
            {"index": 2, "relevant": True},
            {"index": 0, "relevant": False},
            {"index": 1, "relevant": True},
        ]
    }
    result = run(
        ContextPrecision(),
        make_case(contexts=["a", "b", "c"]),
        ScriptedJudge(judge_chunks=shuffled),
    )
    assert result.score == pytest.approx(0.5833, abs=1e-4)


@pytest.mark.parametrize(
    ("indexes", "problem"),
    [
        ([0, 1], "missing chunk index"),
        ([0, 1, 1, 2], "duplicated index"),
        ([0, 1, 2, 3], "out-of-range index"),
    ],
)
@pytest.mark.parametrize("metric", [ContextPrecision(), ContextRelevance()])
@pytest.mark.parametrize("reference", [None, "r"])
def test_chunk_verdicts_must_cover_every_index_once(
    indexes: list[int], problem: str, metric: Metric, reference: str | None
) -> None:
    verdicts = [{"index": index, "relevant": True} for index in indexes]
    judge = ScriptedJudge(
        judge_chunks={"verdicts": verdicts},
        review_contexts={"chunks": verdicts, "statements": []},
    )
    with pytest.raises(JudgeReplyError, match=problem):
        run(metric, make_case(contexts=["a", "b", "c"], reference=reference), judge)


def test_context_relevance_one_of_two_resources() -> None:
    case = make_case(contexts=[Context(id="A", text="A"), Context(id="B", text="B")])
    result = run(ContextRelevance(), case, ScriptedJudge(judge_chunks=chunk_verdicts([1, 0])))
    assert result.score == 0.5
    assert result.details[0]["id"] == "A"
    assert result.reason == "1 of 2 chunks relevant to the question"


@pytest.mark.parametrize(
    ("attributed", "expected"),
    [((True, False), 0.5), ((False, False), 0.0)],
    ids=["france", "nike"],
)
def test_context_recall_worked_examples(attributed: tuple[bool, ...], expected: float) -> None:
    reply = {
        "chunks": chunk_verdicts([1])["verdicts"],
        "statements": [
            {"statement": f"s{index}", "attributed": flag} for index, flag in enumerate(attributed)
        ],
    }
    case = make_case(contexts=["c"], reference="r")
    judge = ScriptedJudge(review_contexts=reply)
    result = run(ContextRecall(), case, judge)
    assert result.score == expected
    request = judge.asked[0]
    assert isinstance(request, ReviewContexts)
    assert request.reference == "r"


def test_context_recall_without_statements_is_not_applicable() -> None:
    reply = {"chunks": chunk_verdicts([1])["verdicts"], "statements": []}
    judge = ScriptedJudge(review_contexts=reply)
    result = run(ContextRecall(), make_case(contexts=["c"], reference="r"), judge)
    assert result.score is None


# --- answer correctness ----------------------------------------------------------------------


def item(statement: str) -> dict[str, str]:
    return {"statement": statement, "reason": "because"}


def test_answer_correctness_is_f1_of_the_classification() -> None:
    judge = ScriptedJudge(
        extract_claims={"claims": APPLE_CLAIMS},
        classify_correctness={
            "tp": [item(APPLE_CLAIMS[0]), item(APPLE_CLAIMS[2])],
            "fp": [item(APPLE_CLAIMS[1])],
            "fn": [item("Ronald Wayne co-founded Apple.")],
        },
    )
    result = run(AnswerCorrectness(), APPLE_CASE, judge)
    assert result.score == pytest.approx(2 / 3)
    assert [detail["classification"] for detail in result.details] == ["TP", "TP", "FP", "FN"]
    assert result.reason == "F1 of 2 TP, 1 FP, 1 FN"
    extract, classify = judge.asked
    # The same request faithfulness sends, so the scheduler can answer it once per case.
    assert extract == ExtractClaims(question=APPLE_CASE.question, answer=APPLE_CASE.answer or "")
    assert isinstance(classify, ClassifyCorrectness)
    assert classify.answer_claims == APPLE_CLAIMS


def test_answer_correctness_with_nothing_classified_is_not_applicable() -> None:
    judge = ScriptedJudge(extract_claims={"claims": []}, classify_correctness={})
    result = run(AnswerCorrectness(), APPLE_CASE, judge)
    assert result.score is None


def test_answer_correctness_without_claims_still_counts_missed_statements() -> None:
    judge = ScriptedJudge(
        extract_claims={"claims": []}, classify_correctness={"fn": [item("fact")]}
    )
    assert run(AnswerCorrectness(), APPLE_CASE, judge).score == 0.0


# --- id-based retrieval metrics --------------------------------------------------------------


def id_case(retrieved: Sequence[str | None], gold: Sequence[str]) -> GoldenCase:
    return make_case(
        contexts=[Context(id=context_id, text=f"text {context_id}") for context_id in retrieved],
        relevant_context_ids=list(gold),
    )


GOLD = ["A", "B", "C", "D", "E"]


def test_id_recall_worked_example() -> None:
    result = run(IdRecall(), id_case(["A", "C", "E"], GOLD))
    assert result.score == pytest.approx(0.6)
    assert result.reason == "3 of 5 relevant ids retrieved"
    assert {"id": "B", "retrieved": False} in result.details


def test_id_precision_worked_example() -> None:
    result = run(IdPrecision(), id_case(["A", "B", "X", "Y", "Z"], GOLD))
    assert result.score == pytest.approx(0.4)
    assert result.details[2] == {"rank": 3, "id": "X", "relevant": False}


@pytest.mark.parametrize(
    ("retrieved", "expected"),
    [(["X", "Y", "C"], 1 / 3), (["A"], 1.0), (["X", "Y"], 0.0), ([None, "X", "B"], 0.5)],
)
def test_mrr_is_reciprocal_rank_of_the_first_relevant_id(
    retrieved: list[str | None], expected: float
) -> None:
    assert run(MeanReciprocalRank(), id_case(retrieved, GOLD)).score == pytest.approx(expected)


def test_id_metrics_ignore_contexts_without_ids_and_count_duplicates_once() -> None:
    case = id_case([None, "A", "A", "X"], GOLD)
    assert run(IdPrecision(), case).score == 0.5
    assert run(IdRecall(), case).score == pytest.approx(0.2)


@pytest.mark.parametrize("metric", [IdRecall(), IdPrecision(), MeanReciprocalRank()])
def test_id_metrics_without_any_context_id_are_not_applicable(metric: Metric) -> None:
    result = run(metric, id_case([None, None], GOLD))
    assert result.score is None
    assert result.reason == "no retrieved context has an id"


# --- top document usage ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("used", "expected", "phrase"),
    [
        ([0, 2], 1.0, "uses the top-ranked chunk"),
        ([1], 0.0, "ignores the top-ranked chunk"),
        ([], 0.0, "uses none of the retrieved chunks"),
    ],
)
def test_top_doc_usage(used: list[int], expected: float, phrase: str) -> None:
    judge = ScriptedJudge(attribute_answer={"used_documents": used, "reason": "cites doc"})
    case = make_case(answer="a", contexts=["d0", "d1", "d2"])
    result = run(TopDocUsage(), case, judge)
    assert result.score == expected
    assert phrase in result.reason
    assert [detail["used"] for detail in result.details] == [i in used for i in range(3)]
    assert isinstance(judge.asked[0], AttributeAnswer)


def test_top_doc_usage_rejects_an_index_beyond_the_contexts() -> None:
    judge = ScriptedJudge(attribute_answer={"used_documents": [5]})
    with pytest.raises(JudgeReplyError, match="5"):
        run(TopDocUsage(), make_case(answer="a", contexts=["d0"]), judge)


# --- registry --------------------------------------------------------------------------------


def test_builtin_metrics_follow_the_display_order_and_the_protocol() -> None:
    metrics = builtin_metrics()
    assert tuple(metrics) == BUILTIN_METRIC_NAMES
    for name, metric in metrics.items():
        assert isinstance(metric, Metric)
        assert metric.name == name
        assert metric.default_threshold == DEFAULT_THRESHOLDS.get(name)
        assert "question" in metric.required_fields or name.startswith(
            ("id_", "mrr", "top", "tool", "max_steps")
        )


def test_a_metric_declaring_facts_of_the_wrong_kind_is_refused() -> None:
    class Odd(WordCount):
        lower_is_better = "yes"
        stage = "output"
        hint = None

    with pytest.raises(ConfigError) as raised:
        MetricRegistry().register(Odd(), HOOK)
    assert (
        "its lower_is_better must be True or False; its stage must be one of retrieval, "
        "generation, end-to-end, tool call; its hint must be a string." in str(raised.value)
    )


def test_builtin_metrics_pass_the_relevancy_strategy_through() -> None:
    metric = builtin_metrics(
        answer_relevancy_strategy="reverse_questions", embedder=fixed_embedder([])
    )["answer_relevancy"]
    assert isinstance(metric, AnswerRelevancy)
    assert metric.strategy == "reverse_questions"


def test_required_fields_decide_the_applicable_metrics() -> None:
    metrics = builtin_metrics()
    question_only = make_case()
    assert applicable_metrics(question_only, metrics) == []
    static = make_case(answer="a", contexts=["c"])
    assert applicable_metrics(static, metrics) == [
        "faithfulness",
        "contradiction_rate",
        "answer_relevancy",
        "context_precision",
        "context_relevance",
        "top_doc_usage",
    ]
    full = make_case(
        answer="a [1]",
        contexts=[Context(id="A", text="c")],
        reference="r",
        relevant_context_ids=["A"],
        metadata={"expected_tool": "search"},
        conversation="chat",
        expected_tools=[ExpectedTool(name="search")],
        max_steps=2,
    )
    assert applicable_metrics(full, metrics) == list(BUILTIN_METRIC_NAMES)
    blank = make_case(answer="  ", contexts=[], reference="r")
    assert applicable_metrics(blank, metrics) == []


def test_unknown_metric_suggests_the_closest_name() -> None:
    error = unknown_metric_error("faithfulnes", BUILTIN_METRIC_NAMES)
    assert isinstance(error, ConfigError)
    assert str(error) == "unknown metric 'faithfulnes'; did you mean 'faithfulness'?"
    assert "did you mean 'context_recall'" in str(
        unknown_metric_error("context_recal", BUILTIN_METRIC_NAMES)
    )
    assert "known metrics: faithfulness, contradiction_rate, answer_relevancy" in str(
        unknown_metric_error("bleu", BUILTIN_METRIC_NAMES)
    )


# --- entry-point metrics ---------------------------------------------------------------------


class WordCount:
    name = "word_count"
    required_fields = ("answer",)
    default_threshold = None

    async def score(self, case: GoldenCase, judge: Any) -> MetricResult:
        return MetricResult(score=min(1.0, len((case.answer or "").split()) / 10))


def make_word_count() -> WordCount:
    return WordCount()


WORD_COUNT = WordCount()


class SyncScore:
    name = "sync_score"
    required_fields = ("answer",)
    default_threshold = None

    def score(self, case: GoldenCase, judge: Any) -> MetricResult:
        return MetricResult(score=1.0)


class NeedsArguments(WordCount):
    def __init__(self, weight: float) -> None:
        self.weight = weight


class Builtin(WordCount):
    name = "faithfulness"


class ToolChoice(WordCount):
    name = "tool_selection"


class BadThreshold(WordCount):
    default_threshold = 80  # type: ignore[assignment]


def make_nothing() -> object:
    return object()


class NotAMetric(BaseModel):
    value: int = 0


def install_entry_points(monkeypatch: pytest.MonkeyPatch, **targets: str) -> None:
    points = [
        EntryPoint(name=name, value=f"{__name__}:{target}", group=ENTRY_POINT_GROUP)
        for name, target in targets.items()
    ]

    def fake_entry_points(*, group: str) -> list[EntryPoint]:
        assert group == ENTRY_POINT_GROUP
        return points

    monkeypatch.setattr(registry, "entry_points", fake_entry_points)


def load_entry_point_metrics() -> dict[str, Metric]:
    """The metrics installed packages add to the built-in ones, in registration order."""
    metrics = MetricRegistry.installed().metrics
    assert tuple(metrics)[: len(BUILTIN_METRIC_NAMES)] == BUILTIN_METRIC_NAMES
    return {name: metric for name, metric in metrics.items() if name not in BUILTIN_METRIC_NAMES}


@pytest.mark.parametrize("target", ["WordCount", "make_word_count", "WORD_COUNT"])
def test_entry_points_load_instances_classes_and_factories(
    monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    install_entry_points(monkeypatch, word_count=target)
    metrics = load_entry_point_metrics()
    assert list(metrics) == ["word_count"]
    assert isinstance(metrics["word_count"], WordCount)
    case = make_case(answer="one two three four five")
    assert run(metrics["word_count"], case).score == 0.5


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("NotAMetric", "is not a metric"),
        ("SyncScore", "is not a metric"),
        ("NeedsArguments", "could not be loaded"),
        ("does_not_exist", "could not be loaded"),
        ("Builtin", "gave metric 'faithfulness', but a built-in metric of that name"),
        ("ToolChoice", "gave metric 'tool_selection', but a built-in metric of that name"),
        ("BadThreshold", "its default_threshold must be None or a number from 0 to 1"),
        ("make_nothing", "which is not a metric: it has no name, required_fields, default_thr"),
    ],
)
def test_bad_entry_points_are_config_errors_naming_the_entry_point(
    monkeypatch: pytest.MonkeyPatch, target: str, message: str
) -> None:
    install_entry_points(monkeypatch, broken=target)
    with pytest.raises(ConfigError, match=message) as raised:
        load_entry_point_metrics()
    assert f"broken = {__name__}:{target}" in str(raised.value)


def test_two_entry_points_with_one_metric_name_are_a_config_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install_entry_points(monkeypatch, first="WordCount", second="make_word_count")
    with pytest.raises(ConfigError) as raised:
        load_entry_point_metrics()
    assert str(raised.value) == (
        f"Entry point 'second = {__name__}:make_word_count' in group 'pytest_ragas_gate.metrics' "
        "gave metric 'word_count', but a metric from entry point "
        f"'first = {__name__}:WordCount' in group 'pytest_ragas_gate.metrics' of that name is "
        "already registered; give the metric a name of its own, or uninstall the package that "
        "provides it."
    )


def test_packages_and_conftests_get_the_same_checks_and_messages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install_entry_points(monkeypatch, broken="SyncScore")
    with pytest.raises(ConfigError) as from_package:
        load_entry_point_metrics()
    with pytest.raises(ConfigError) as from_conftest:
        MetricRegistry().register_all([SyncScore()], HOOK)
    sources = {
        f"Entry point 'broken = {__name__}:SyncScore' in group 'pytest_ragas_gate.metrics'": (
            from_package
        ),
        "The pytest_rag_gate_metrics hook": from_conftest,
    }
    for source, raised in sources.items():
        message = str(raised.value)
        assert message.startswith(f"{source} gave <{__name__}.SyncScore object at ")
        assert message.endswith(
            ", which is not a metric: its score(case, judge) must be an async method. "
            "See the Metric protocol (pytest_ragas_gate.Metric)."
        )


def test_summary_order_is_built_ins_then_packages_by_entry_point_name_then_conftests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Short(WordCount):
        name = "short"

    install_entry_points(monkeypatch, zz_words="WordCount", aa_sync="ToolChoice")
    monkeypatch.setattr(ToolChoice, "name", "a_tool")
    registry = MetricRegistry.installed()
    registry.register_all([Short()], HOOK)
    registry.register_all(None, HOOK)
    assert list(registry.metrics) == [*BUILTIN_METRIC_NAMES, "a_tool", "word_count", "short"]
    with pytest.raises(ConfigError, match="hook returned a dict; return a list of metrics"):
        registry.register_all({"short": Short()}, HOOK)


def test_no_entry_points_means_no_extra_metrics(monkeypatch: pytest.MonkeyPatch) -> None:
    install_entry_points(monkeypatch)
    assert load_entry_point_metrics() == {}


def test_scores_are_awaitable_coroutines() -> None:
    coroutine = Faithfulness().score(APPLE_CASE, ScriptedJudge())
    assert isinstance(coroutine, Awaitable)
    coroutine.close()
