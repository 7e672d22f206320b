"""Answer correctness: the F1 of the answer's claims against the reference, as in RAGAS."""

from __future__ import annotations

from typing import Any

from ..golden.cases import GoldenCase
from ..judges.base import CaseJudge
from ..judges.offline.refusal import declines
from ..judges.requests import ClassifyCorrectness
from ._case_fields import required_text
from .base import Metric, MetricResult, Stage
from .faithfulness import extract_claims
from .formulas import f1_from_counts


class AnswerCorrectness(Metric):
    """TP / FP / FN classification of answer claims and reference statements → F1.

    Reuses faithfulness's claim extraction (the same request, answered once per case),
    then one classification request. An answer without claims still scores: every
    reference statement it misses is a false negative. When nothing at all is classified
    the metric is not applicable.

    An unanswerable case — ``reference_contexts: []``, or a reference that says the
    documents do not tell — has one right answer: to decline. A refusal has no claims (on
    every judge), so an answer without claims scores 1.0 there, and an answer that claims
    anything scores 0.0: every claim is a false positive, with nothing to compare it to.
    """

    name: str = "answer_correctness"
    required_fields: tuple[str, ...] = ("question", "answer", "reference")
    judge_requests: tuple[str, ...] | None = ("extract_claims", "classify_correctness")
    default_threshold: float | None = None
    stage: Stage = "generation"
    hint: str = (
        "Check retrieval first (context recall), then prompt the generator to state every "
        "fact the context supports and nothing it does not; compare against a stronger model."
    )

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; see the class docstring."""
        answer = required_text(case, "answer", self.name)
        reference = required_text(case, "reference", self.name)
        claims = await extract_claims(case.question, answer, judge, history=case.history)
        if unanswerable(case, reference):
            return _score_unanswerable(claims)
        reply = await judge.ask(
            ClassifyCorrectness(question=case.question, answer_claims=claims, reference=reference)
        )
        details: list[dict[str, Any]] = [
            {"statement": item.statement, "classification": label, "reason": item.reason}
            for label, items in (("TP", reply.tp), ("FP", reply.fp), ("FN", reply.fn))
            for item in items
        ]
        counts = len(reply.tp), len(reply.fp), len(reply.fn)
        if sum(counts) == 0:
            return MetricResult.not_applicable(
                "neither the answer nor the reference has a statement to compare"
            )
        return MetricResult(
            score=f1_from_counts(*counts),
            details=details,
            reason="F1 of {} TP, {} FP, {} FN".format(*counts),
        )


def unanswerable(case: GoldenCase, reference: str) -> bool:
    """Whether the case has no answer in the documents, so declining is right.

    >>> from pytest_ragas_gate.golden.cases import GoldenCase
    >>> case = GoldenCase(id="u", question="Who?", reference="Ada.")
    >>> unanswerable(case, "Ada."), unanswerable(case, "The documents do not say.")
    (False, True)
    >>> unanswerable(case.model_copy(update={"metadata": {"reference_contexts": []}}), "Ada.")
    True
    """
    # An explicit empty list, as `rag-gate synth` writes for its unanswerable kind; an
    # absent field says nothing.
    return case.metadata.get("reference_contexts") == [] or declines(reference)


def _score_unanswerable(claims: list[str]) -> MetricResult:
    if not claims:
        return MetricResult(
            score=1.0,
            details=[],
            reason="the answer declines, which is right: the documents do not answer this",
        )
    return MetricResult(
        score=0.0,
        details=[
            {
                "statement": claim,
                "classification": "FP",
                "reason": "the documents do not answer this question, so no claim can be right",
            }
            for claim in claims
        ],
        reason=f"the documents do not answer this, but the answer makes {len(claims)} claim(s)",
    )
