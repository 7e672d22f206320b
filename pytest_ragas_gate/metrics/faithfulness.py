"""Faithfulness: the share of the answer's claims that the retrieved contexts support."""

from __future__ import annotations

from typing import Any

from ..cases import GoldenCase
from ..config import DEFAULT_THRESHOLDS
from ..exceptions import JudgeReplyError
from ..judges.base import CaseJudge
from ..judges.requests import ExtractClaims, VerifyClaims
from ._case_fields import required_contexts, required_text
from .base import MetricResult
from .formulas import share


class Faithfulness:
    """Answer → atomic claims → each supported by the contexts or not; supported / total.

    Two judge requests per case: one to extract the claims, one to verify all of them. An
    answer without factual claims (a greeting, a refusal) is not applicable.
    """

    name: str = "faithfulness"
    required_fields: tuple[str, ...] = ("question", "answer", "contexts")
    default_threshold: float | None = DEFAULT_THRESHOLDS["faithfulness"]

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; see the class docstring."""
        answer = required_text(case, "answer", self.name)
        contexts = required_contexts(case, self.name)
        claims = await extract_claims(case.question, answer, judge)
        if not claims:
            return MetricResult.not_applicable("the answer makes no factual claims")
        reply = await judge.ask(
            VerifyClaims(claims=claims, contexts=[context.text for context in contexts])
        )
        if len(reply.verdicts) != len(claims):
            # Pairing verdicts with claims by position is only sound when the counts match.
            raise JudgeReplyError(
                f"The judge returned {len(reply.verdicts)} verdict(s) for {len(claims)} "
                f"claim(s) in {VerifyClaims.kind} for case {case.id!r} ({case.source}); "
                "every claim needs exactly one verdict, so the reply cannot be scored."
            )
        details: list[dict[str, Any]] = [
            {
                "claim": claim,
                "verdict": verdict.verdict,
                "supported": verdict.supported,
                "reason": verdict.reason,
            }
            for claim, verdict in zip(claims, reply.verdicts, strict=True)
        ]
        supported = sum(1 for verdict in reply.verdicts if verdict.supported)
        return MetricResult(
            score=share(supported, len(claims)),
            details=details,
            reason=f"{supported} of {len(claims)} claims supported",
        )


async def extract_claims(question: str, answer: str, judge: CaseJudge) -> list[str]:
    """The answer's non-blank atomic claims, as the judge extracted them.

    Faithfulness and answer correctness send the identical request, so the judge
    scheduler answers it once per case.

    Args:
        question: The case's question, which gives the claims their context.
        answer: The answer to split.
        judge: The judge of this case.

    Returns:
        The claims, stripped, blanks dropped.
    """
    reply = await judge.ask(ExtractClaims(question=question, answer=answer))
    return [claim.strip() for claim in reply.claims if claim.strip()]
