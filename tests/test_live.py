"""Live-mode building blocks: reading target outputs, handing over the case, latency."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel

from pytest_ragas_gate.exceptions import CaseError, ConfigError
from pytest_ragas_gate.golden.cases import Context, GoldenCase
from pytest_ragas_gate.judges.base import NO_CONTEXT, AskContext
from pytest_ragas_gate.judges.offline.judge import OfflineJudge
from pytest_ragas_gate.live import targets as live
from pytest_ragas_gate.live.latency import evaluate_latency
from pytest_ragas_gate.live.targets import LiveTarget, check_target, normalize_output
from pytest_ragas_gate.metrics.faithfulness import ContradictionRate, Faithfulness
from pytest_ragas_gate.metrics.tool_selection import ToolSelection
from pytest_ragas_gate.scoring.results import CaseResult
from pytest_ragas_gate.scoring.scheduler import score_cases
from pytest_ragas_gate.settings.config import LatencyBudget

CASE = GoldenCase(id="c1", question="Q?", file="golden.jsonl", line=4)


class PydanticOutput(BaseModel):
    response: str
    retrieved_contexts: list[str]


@dataclass
class DataclassOutput:
    answer: str
    source_documents: list[Any]


@dataclass
class Document:
    page_content: str
    metadata: dict[str, Any]


class AIMessage:
    content = "From a chat model."


def texts(contexts: list[Context] | None) -> list[tuple[str | None, str]]:
    return [(context.id, context.text) for context in contexts or []]


@pytest.mark.parametrize(
    ("value", "answer", "contexts"),
    [
        ("Just text.", "Just text.", []),
        (("A.", ["one", "two"]), "A.", [(None, "one"), (None, "two")]),
        ({"response": "A.", "retrieved_contexts": [{"id": 7, "text": "x"}]}, "A.", [("7", "x")]),
        (PydanticOutput(response="A.", retrieved_contexts=["x"]), "A.", [(None, "x")]),
        (
            DataclassOutput("A.", [Document("x", {"source": "faq.md"})]),
            "A.",
            [("faq.md", "x")],
        ),
        ({"output": AIMessage(), "context": []}, "From a chat model.", []),
        ({"answer": None, "contexts": None}, None, []),
    ],
)
def test_output_shapes_are_read(value: Any, answer: str | None, contexts: list[Any]) -> None:
    output = normalize_output(value, CASE)
    assert output.answer == answer
    assert texts(output.contexts) == contexts
    assert not output.tool_reported


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (("A.", ["x"], "tool"), "tuple of 3 items"),
        ({"answer": 42}, "is a int, not text"),
        ({"answer": "A.", "contexts": "one chunk"}, "are a str; return them as a list"),
        ({"answer": "A.", "contexts": [object()]}, "rank 1 .* with no text"),
        (42, "returned a int .* with no answer"),
        ({"answer": "A.", "tool": 3}, "tool for case 'c1'"),
    ],
)
def test_unreadable_outputs_name_the_case(value: Any, message: str) -> None:
    with pytest.raises(CaseError, match=message) as raised:
        normalize_output(value, CASE)
    assert "golden.jsonl:4" in str(raised.value)


def test_tool_is_reported_even_when_none() -> None:
    assert normalize_output({"answer": "A.", "tool": None}, CASE).tool_reported
    filled = normalize_output({"answer": "A.", "tool": "sql"}, CASE).fill(
        CASE.model_copy(update={"metadata": {"tool": "stale", "expected_tool": "sql"}})
    )
    assert filled.metadata == {"expected_tool": "sql", "tool": "sql"}
    assert "tool" not in normalize_output("A.", CASE).fill(filled).metadata


def call(target: Any) -> tuple[Any, float]:
    live = LiveTarget(target, name="t")
    try:
        return asyncio.run(live.call(CASE))
    finally:
        live.close()


def test_the_case_is_handed_over_only_when_asked_for() -> None:
    seen: list[Any] = []

    def question_only(question: str, top_k: int = 5) -> str:
        seen.append((question, top_k))
        return "A."

    def positional(question: str, case: Any) -> str:
        seen.append(case.id)
        return "A."

    async def keyword(question: str, *, case: Any) -> str:
        seen.append(("kw", case.id))
        return "A."

    for target in (question_only, positional, keyword):
        output, latency = call(target)
        assert output.answer == "A." and latency >= 0
    assert seen == [("Q?", 5), "c1", ("kw", "c1")]


def test_sync_target_returning_an_awaitable_is_awaited() -> None:
    async def later() -> str:
        return "A."

    output, _ = call(lambda question: later())
    assert output.answer == "A."


def test_answer_fills_in_the_case_and_a_target_failure_is_the_case_error() -> None:
    def answer(question: str) -> dict[str, Any]:
        return {"answer": "A.", "contexts": ["one"], "tool": "sql"}

    def broken(question: str) -> str:
        raise ValueError("the index is offline")

    filled, seconds = asyncio.run(LiveTarget(answer, name="m:answer").answer(CASE))
    assert (filled.answer, filled.context_texts, filled.metadata) == (
        "A.",
        ["one"],
        {"tool": "sql"},
    )
    assert seconds >= 0
    with pytest.raises(CaseError) as raised:
        asyncio.run(LiveTarget(broken, name="m:broken").answer(CASE))
    message = str(raised.value)
    assert message.startswith(
        f"target m:broken raised ValueError: the index is offline (case 'c1', {CASE.source})"
    )
    assert "in broken" in message and live.__file__ not in message
    with pytest.raises(CaseError, match="tuple of 3 items for case 'c1'"):
        asyncio.run(LiveTarget(lambda question: (1, 2, 3), name="m:t").answer(CASE))


class ScriptedTarget:
    """A system under test as the scheduler sees it, without the live-mode adapter."""

    def __init__(self) -> None:
        self.closed = False

    async def answer(self, case: GoldenCase) -> tuple[GoldenCase, float]:
        if case.id == "down":
            raise CaseError("the system is down")
        return case.model_copy(
            update={"answer": "Paris.", "contexts": [Context(text="Paris.")]}
        ), 1.5

    def close(self) -> None:
        self.closed = True


def test_the_scheduler_scores_whatever_the_target_answered() -> None:
    cases = [
        GoldenCase(id=case_id, question="What is the capital of France?", file="g.jsonl", line=n)
        for n, case_id in enumerate(["up", "down"], start=1)
    ]
    target = ScriptedTarget()
    results = asyncio.run(
        score_cases(
            cases,
            lambda case: ["faithfulness"] if case.answer else [],
            {"faithfulness": Faithfulness()},
            OfflineJudge(),
            max_cases_in_flight=2,
            target=target,
        )
    )
    by_id = {result.id: result for result in results.values()}
    up, down = by_id["up"], by_id["down"]
    assert up.answer == "Paris." and up.latency_s == 1.5 and up.scores["faithfulness"] == 1.0
    assert down.error == "the system is down" and down.latency_s is None and not down.scores
    assert target.closed


class CountingJudge(OfflineJudge):
    def __init__(self) -> None:
        super().__init__()
        self.kinds: list[str] = []

    async def ask(self, request: Any, *, context: AskContext = NO_CONTEXT) -> Any:
        self.kinds.append(request.kind)
        return await super().ask(request, context=context)


def test_an_answer_holding_a_lone_surrogate_is_scored_and_its_requests_shared() -> None:
    # A live target's output can hold half a surrogate pair, which pydantic's JSON writer
    # refuses: identical requests are still told apart and asked once.
    class HalfPair(ScriptedTarget):
        async def answer(self, case: GoldenCase) -> tuple[GoldenCase, float]:
            update = {"answer": "Paris \ud83d.", "contexts": [Context(text="Paris.")]}
            return case.model_copy(update=update), 0.5

    case = GoldenCase(id="q", question="What is the capital of France?", file="g.jsonl", line=1)
    judge = CountingJudge()
    results = asyncio.run(
        score_cases(
            [case],
            lambda case: ["faithfulness", "contradiction_rate"] if case.answer else [],
            {"faithfulness": Faithfulness(), "contradiction_rate": ContradictionRate()},
            judge,
            max_cases_in_flight=1,
            target=HalfPair(),
        )
    )
    (result,) = results.values()
    assert result.answer == "Paris \ud83d." and not result.errors
    assert set(result.scores) == {"faithfulness", "contradiction_rate"}
    assert judge.kinds.count("extract_claims") == 1


def test_classes_and_plain_values_are_not_targets() -> None:
    with pytest.raises(ConfigError, match="is the class DataclassOutput"):
        check_target(DataclassOutput, "'m:DataclassOutput'")
    with pytest.raises(ConfigError, match="is a int, which cannot be called"):
        check_target(3, "'m:N'")


def test_tool_selection_metric() -> None:
    metric = ToolSelection()

    def score(**metadata: Any) -> Any:
        case = CASE.model_copy(update={"metadata": metadata})
        return asyncio.run(metric.score(case, judge=None))  # type: ignore[arg-type]

    assert score(expected_tool="a", tool="a").score == 1.0
    assert score(expected_tool=["a", "b"], tool=" b ").score == 1.0
    assert score(expected_tool="a", tool=None).reason == "chose no tool, expected 'a'"
    assert score(expected_tool="a").score is None
    with pytest.raises(CaseError, match="expected_tool 3"):
        score(expected_tool=3, tool="a")


def test_latency_verdict() -> None:
    results = [
        CaseResult(id=str(index), source="g:1", latency_s=seconds)
        for index, seconds in enumerate([0.5, 1.0, 1.5, 2.0, 4.0])
    ]
    results.append(CaseResult(id="raised", source="g:2", error="target raised"))
    verdict = evaluate_latency(results, LatencyBudget(p50=1.5, p95=3.0, max=5.0))
    assert verdict is not None
    assert verdict.n == 5 and verdict.p50 == 1.5 and verdict.max == 4.0
    assert verdict.failures == ["latency p95 3.60s > 3.00s (n=5)"]
    assert [check.passed for check in verdict.checks] == [True, False, True]
    assert evaluate_latency(results[-1:], None) is None
    unbudgeted = evaluate_latency(results, None)
    assert unbudgeted is not None and unbudgeted.passed is None and not unbudgeted.checks
