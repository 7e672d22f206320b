"""Conversation metrics: knowledge retention and the worst turn's faithfulness.

Both read the verdicts of the one claim verification every turn already sends (the
turn's claims against its own contexts, with the conversation's history in the request),
so they cost no judge request of their own. A conversation's score of a turn metric is
the mean over its turns, except ``turn_faithfulness_min``, which is its worst turn's
(:data:`~pytest_ragas_gate.scoring.results.WORST_TURN_METRICS`).
"""

from __future__ import annotations

from ..golden.cases import GoldenCase
from ..judges.base import CaseJudge
from .base import Metric, MetricResult, Stage
from .faithfulness import Faithfulness, claim_details, verify_answer_claims


class KnowledgeRetention(Metric):
    """1 for a turn none of whose claims contradicts what an earlier assistant turn stated.

    Over a conversation, the share of its later assistant turns (those with an earlier
    one to contradict) that keep to what was said before (DeepEval's knowledge retention,
    judged from the turn's own claims). The first turn is not applicable.
    """

    name: str = "knowledge_retention"
    required_fields: tuple[str, ...] = ("question", "answer", "contexts", "conversation")
    judge_requests: tuple[str, ...] | None = ("extract_claims", "verify_claims")
    default_threshold: float | None = None
    stage: Stage = "generation"
    hint: str = (
        "Give the generator the whole conversation, not only the last question, and keep "
        "earlier answers in its context window."
    )

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one turn; see the class docstring."""
        if not any(turn.role == "assistant" for turn in case.history):
            return MetricResult.not_applicable("the first turn has nothing to retain")
        verified = await verify_answer_claims(case, judge, self.name)
        if not verified:
            return MetricResult.not_applicable("the answer makes no factual claims")
        broken = [(claim, verdict) for claim, verdict in verified if verdict.contradicts_history]
        details = [
            {**detail, "contradicts_history": verdict.contradicts_history}
            for detail, (_, verdict) in zip(claim_details(verified), verified, strict=True)
        ]
        if broken:
            return MetricResult(
                score=0.0,
                details=details,
                reason=f"{len(broken)} claim(s) contradict an earlier turn: {broken[0][0]}",
            )
        return MetricResult(score=1.0, details=details, reason="keeps to the earlier turns")


class TurnFaithfulnessMin(Faithfulness):
    """Each turn's faithfulness; a conversation scores its worst turn, not the mean."""

    name: str = "turn_faithfulness_min"
    required_fields: tuple[str, ...] = ("question", "answer", "contexts", "conversation")
    default_threshold: float | None = None
