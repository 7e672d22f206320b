"""Retriever-generator alignment: does the answer use the top-ranked chunk.

The README's "Retriever–generator alignment" section defines it and its alarm.

Production RAG systems often rank the right document first and then answer from a
lower-ranked one; the gate reports ``1 - mean`` of this metric as the ignored-top-ranked
rate.
"""

from __future__ import annotations

from typing import Any

from ..exceptions import JudgeReplyError
from ..golden.cases import GoldenCase
from ..judges.base import CaseJudge
from ..judges.requests import AttributeAnswer
from ._case_fields import required_contexts, required_text
from .base import Metric, MetricResult, Stage


class TopDocUsage(Metric):
    """1.0 when the answer draws on the top-ranked chunk, else 0.0.

    An answer that uses none of the retrieved chunks scores 0.0: the top-ranked chunk was
    ignored all the same.
    """

    name: str = "top_doc_usage"
    required_fields: tuple[str, ...] = ("answer", "contexts")
    judge_requests: tuple[str, ...] | None = ("attribute_answer",)
    default_threshold: float | None = None
    stage: Stage = "retrieval"
    hint: str = (
        "The generator ignores the top-ranked chunk: review the chunk size, the embedding "
        "model and the reranker's calibration so retrieval rank matches what the answer uses."
    )

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; see the class docstring."""
        answer = required_text(case, "answer", self.name)
        contexts = required_contexts(case, self.name)
        reply = await judge.ask(
            AttributeAnswer(answer=answer, contexts=[context.text for context in contexts])
        )
        used = set(reply.used_documents)
        out_of_range = sorted(index for index in used if not 0 <= index < len(contexts))
        if out_of_range:
            raise JudgeReplyError(
                f"The judge's {AttributeAnswer.kind} reply for case {case.id!r} "
                f"({case.source}) names document index(es) "
                f"{', '.join(map(str, out_of_range))} but only {len(contexts)} were "
                "retrieved (0-based); the reply cannot be scored."
            )
        details: list[dict[str, Any]] = [
            {"rank": index + 1, "id": context.id, "used": index in used}
            for index, context in enumerate(contexts)
        ]
        used_ranks = ", ".join(str(index + 1) for index in sorted(used))
        if not used:
            summary = "the answer uses none of the retrieved chunks"
        elif 0 in used:
            summary = f"the answer uses the top-ranked chunk (ranks used: {used_ranks})"
        else:
            summary = f"the answer ignores the top-ranked chunk (ranks used: {used_ranks})"
        judge_reason = " ".join(reply.reason.split())
        return MetricResult(
            score=1.0 if 0 in used else 0.0,
            details=details,
            reason=f"{summary}: {judge_reason}" if judge_reason else summary,
        )
