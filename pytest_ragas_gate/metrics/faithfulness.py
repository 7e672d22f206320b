"""Faithfulness and contradiction rate, from one verification of the answer's claims.

Faithfulness is the share of the answer's claims the retrieved contexts support;
contradiction rate the share they contradict (another number, date or name than the
contexts state), which is worse than a claim the contexts merely do not mention. Both
send the identical two requests, which the judge scheduler answers once per case.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..exceptions import JudgeReplyError
from ..golden.cases import GoldenCase, Message
from ..judges.base import CaseJudge
from ..judges.requests import ClaimVerdict, ExtractClaims, VerifyClaims
from ._case_fields import required_contexts, required_text
from .base import Metric, MetricResult, Stage
from .formulas import share


class Faithfulness(Metric):
    """Answer → atomic claims → each supported by the contexts or not; supported / total.

    Two judge requests per case: one to extract the claims, one to verify all of them. An
    answer without factual claims (a greeting, a refusal) is not applicable.
    """

    name: str = "faithfulness"
    required_fields: tuple[str, ...] = ("question", "answer", "contexts")
    judge_requests: tuple[str, ...] | None = ("extract_claims", "verify_claims")
    default_threshold: float | None = 0.85
    stage: Stage = "generation"
    hint: str = (
        "Tighten the generation prompt to answer only from the retrieved context, add "
        "citations to the sources, and try a model that follows the context more closely."
    )

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; see the class docstring."""
        verified = await verify_answer_claims(case, judge, self.name)
        if not verified:
            return MetricResult.not_applicable("the answer makes no factual claims")
        supported = sum(1 for _, verdict in verified if verdict.supported)
        return MetricResult(
            score=share(supported, len(verified)),
            details=claim_details(verified),
            reason=f"{supported} of {len(verified)} claims supported",
        )


class ContradictionRate(Metric):
    """Answer → atomic claims → the share the contexts contradict; lower is better.

    Gated with a maximum (``contradiction_rate<=0.02``). The same two requests as
    faithfulness, so scoring both costs no extra call.

    >>> ContradictionRate.lower_is_better
    True
    """

    name: str = "contradiction_rate"
    required_fields: tuple[str, ...] = ("question", "answer", "contexts")
    judge_requests: tuple[str, ...] | None = ("extract_claims", "verify_claims")
    default_threshold: float | None = None
    stage: Stage = "generation"
    lower_is_better: bool = True

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; see the class docstring."""
        verified = await verify_answer_claims(case, judge, self.name)
        if not verified:
            return MetricResult.not_applicable("the answer makes no factual claims")
        contradicted = [(claim, verdict) for claim, verdict in verified if verdict.contradicted]
        return MetricResult(
            score=share(len(contradicted), len(verified)),
            details=claim_details(contradicted),
            reason=f"{len(contradicted)} of {len(verified)} claims contradicted by the contexts",
        )


async def verify_answer_claims(
    case: GoldenCase, judge: CaseJudge, metric: str
) -> list[tuple[str, ClaimVerdict]]:
    """The answer's claims, each with the judge's verdict against the contexts.

    Raises:
        JudgeReplyError: When the judge gave a verdict count other than the claim count.
    """
    answer = required_text(case, "answer", metric)
    contexts = required_contexts(case, metric)
    claims = await extract_claims(case.question, answer, judge, history=case.history)
    if not claims:
        return []
    reply = await judge.ask(
        VerifyClaims(
            claims=claims,
            contexts=[context.text for context in contexts],
            history=case.history,
        )
    )
    if len(reply.verdicts) != len(claims):
        # Pairing verdicts with claims by position is only sound when the counts match.
        raise JudgeReplyError(
            f"The judge returned {len(reply.verdicts)} verdict(s) for {len(claims)} "
            f"claim(s) in {VerifyClaims.kind} for case {case.id!r} ({case.source}); "
            "every claim needs exactly one verdict, so the reply cannot be scored."
        )
    return list(zip(claims, reply.verdicts, strict=True))


def claim_details(verified: list[tuple[str, ClaimVerdict]]) -> list[dict[str, Any]]:
    """Per claim: its text, verdict, whether supported, and the judge's reason."""
    return [
        {
            "claim": claim,
            "verdict": verdict.verdict,
            "supported": verdict.supported,
            "reason": verdict.reason,
        }
        for claim, verdict in verified
    ]


async def extract_claims(
    question: str, answer: str, judge: CaseJudge, *, history: Sequence[Message] = ()
) -> list[str]:
    """The answer's non-blank atomic claims, as the judge extracted them.

    Faithfulness and answer correctness send the identical request, so the judge
    scheduler answers it once per case.

    Args:
        question: The case's question, which gives the claims their context.
        answer: The answer to split.
        judge: The judge of this case.
        history: A conversation's earlier turns, which resolve "it" in the claims.

    Returns:
        The claims, stripped, blanks dropped.
    """
    reply = await judge.ask(ExtractClaims(question=question, answer=answer, history=list(history)))
    return [claim.strip() for claim in reply.claims if claim.strip()]
