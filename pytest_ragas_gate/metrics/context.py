"""Retrieval quality judged by the LLM: context precision, recall and relevance."""

from __future__ import annotations

from typing import Any, Literal

from ..exceptions import JudgeReplyError
from ..golden.cases import Context, GoldenCase
from ..judges.base import CaseJudge
from ..judges.requests import ChunkVerdict, JudgeChunks, ReviewContexts
from ._case_fields import required_contexts, required_text
from .base import Metric, MetricResult, Stage
from .formulas import average_precision, share


class ContextPrecision(Metric):
    """Are the relevant chunks ranked first: average precision of the chunk verdicts.

    Relevance is judged against the reference answer when the case has one (in the request
    context recall shares), else against the question (in the request context relevance
    shares). A ranking where no chunk is relevant scores 0.0.
    """

    name: str = "context_precision"
    required_fields: tuple[str, ...] = ("question", "contexts")
    judge_requests: tuple[str, ...] | None = ("review_contexts", "judge_chunks")
    default_threshold: float | None = 0.70
    stage: Stage = "retrieval"
    hint: str = (
        "Improve the ranking of retrieved chunks, retrieve in stages (coarse then fine), "
        "and add a cross-encoder reranker."
    )

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; see the class docstring."""
        contexts = required_contexts(case, self.name)
        against: Literal["reference", "question"]
        if case.has("reference"):
            against = "reference"
            review = await judge.ask(review_request(case, contexts, self.name))
            details = chunk_details(case, contexts, review.chunks, ReviewContexts.kind)
        else:
            against = "question"
            details = await judge_chunks(case, contexts, case.question, against, judge)
        relevance = [bool(detail["relevant"]) for detail in details]
        relevant = sum(relevance)
        return MetricResult(
            score=average_precision(relevance),
            details=details,
            reason=(
                f"{relevant} of {len(relevance)} chunks relevant to the {against}"
                + (f", first at rank {relevance.index(True) + 1}" if relevant else "")
            ),
        )


class ContextRecall(Metric):
    """Does the retrieval cover the reference: attributable statements / all statements.

    A reference that yields no statements is not applicable.
    """

    name: str = "context_recall"
    required_fields: tuple[str, ...] = ("question", "reference", "contexts")
    judge_requests: tuple[str, ...] | None = ("review_contexts",)
    default_threshold: float | None = 0.80
    stage: Stage = "retrieval"
    hint: str = (
        "Use hybrid retrieval (keyword + vector), chunk documents so each chunk keeps its "
        "meaning intact, and try a stronger embedding model."
    )

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; see the class docstring."""
        contexts = required_contexts(case, self.name)
        review = await judge.ask(review_request(case, contexts, self.name))
        verdicts = review.statements
        if not verdicts:
            return MetricResult.not_applicable("the reference has no statements to attribute")
        details: list[dict[str, Any]] = [
            {
                "statement": verdict.statement,
                "attributed": verdict.attributed,
                "reason": verdict.reason,
            }
            for verdict in verdicts
        ]
        attributed = sum(1 for verdict in verdicts if verdict.attributed)
        return MetricResult(
            score=share(attributed, len(verdicts)),
            details=details,
            reason=(
                f"{attributed} of {len(verdicts)} reference statements attributable to the contexts"
            ),
        )


class ContextRelevance(Metric):
    """The share of retrieved chunks relevant to the question; needs no reference."""

    name: str = "context_relevance"
    required_fields: tuple[str, ...] = ("question", "contexts")
    judge_requests: tuple[str, ...] | None = ("judge_chunks",)
    default_threshold: float | None = None
    stage: Stage = "retrieval"
    hint: str = (
        "Retrieve fewer, more focused chunks: raise the similarity cut-off, rerank before "
        "truncating, and split long chunks that mix topics."
    )

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; see the class docstring."""
        contexts = required_contexts(case, self.name)
        details = await judge_chunks(case, contexts, case.question, "question", judge)
        relevant = sum(1 for detail in details if detail["relevant"])
        return MetricResult(
            score=share(relevant, len(details)),
            details=details,
            reason=f"{relevant} of {len(details)} chunks relevant to the question",
        )


def review_request(case: GoldenCase, contexts: list[Context], metric: str) -> ReviewContexts:
    """The request context precision and context recall share for one case."""
    return ReviewContexts(
        question=case.question,
        reference=required_text(case, "reference", metric),
        contexts=[context.text for context in contexts],
    )


async def judge_chunks(
    case: GoldenCase,
    contexts: list[Context],
    target: str,
    against: Literal["reference", "question"],
    judge: CaseJudge,
) -> list[dict[str, Any]]:
    """Ask for one relevance verdict per chunk and return them in rank order.

    Context precision without a reference and context relevance send the identical
    request, so the judge scheduler answers it once per case.

    Args:
        case: The case being scored, for error messages.
        contexts: The retrieved chunks in rank order.
        target: The text relevance is judged against.
        against: Whether ``target`` is the reference or the question.
        judge: The judge of this case.

    Returns:
        Per chunk, in rank order: ``index``, ``id``, ``chunk``, ``relevant``, ``reason``.

    Raises:
        JudgeReplyError: When the verdicts do not cover every chunk index exactly once.
    """
    request = JudgeChunks(
        question=case.question,
        target=target,
        against=against,
        chunks=[context.text for context in contexts],
        history=case.history if against == "question" else [],
    )
    reply = await judge.ask(request)
    return chunk_details(case, contexts, reply.verdicts, JudgeChunks.kind)


def chunk_details(
    case: GoldenCase, contexts: list[Context], verdicts: list[ChunkVerdict], kind: str
) -> list[dict[str, Any]]:
    """Per chunk, in rank order: ``index``, ``id``, ``relevant``, ``reason``.

    The chunk's text is the case's context at ``index``; the case result keeps the
    contexts once, so the details do not repeat them.

    Raises:
        JudgeReplyError: When the verdicts do not cover every chunk index exactly once.
    """
    by_index = _verdicts_by_index(verdicts, len(contexts), case, kind)
    return [
        {
            "index": index,
            "id": context.id,
            "relevant": by_index[index].relevant,
            "reason": by_index[index].reason,
        }
        for index, context in enumerate(contexts)
    ]


def _verdicts_by_index(
    verdicts: list[ChunkVerdict], chunk_count: int, case: GoldenCase, kind: str
) -> dict[int, ChunkVerdict]:
    by_index: dict[int, ChunkVerdict] = {}
    duplicated: set[int] = set()
    for verdict in verdicts:
        if verdict.index in by_index:
            duplicated.add(verdict.index)
        by_index[verdict.index] = verdict
    missing = sorted(set(range(chunk_count)) - by_index.keys())
    out_of_range = sorted(index for index in by_index if index >= chunk_count)
    if missing or duplicated or out_of_range:
        problems = [
            f"{label} {', '.join(map(str, indexes))}"
            for label, indexes in (
                ("missing chunk index(es)", missing),
                ("duplicated index(es)", sorted(duplicated)),
                ("out-of-range index(es)", out_of_range),
            )
            if indexes
        ]
        raise JudgeReplyError(
            f"The judge's {kind} reply for case {case.id!r} ({case.source}) has "
            f"{'; '.join(problems)} for {chunk_count} chunk(s); every chunk needs exactly "
            "one verdict, so the reply cannot be scored."
        )
    return by_index
