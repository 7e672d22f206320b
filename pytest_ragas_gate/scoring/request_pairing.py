"""One request where two metrics of a case would send the same contexts.

Faithfulness verifies the answer's claims against the retrieved contexts
(:class:`VerifyClaims`); context precision and recall review the same contexts against the
reference (:class:`ReviewContexts`). The contexts are most of a case's tokens, so when a
case asks both, they go out together as one :class:`ReviewCase` whose reply is split back
into the two replies the metrics asked for.

The context review is asked at once, the claim verification only after the claims are
extracted, so the review is held until the case's claim-verifying metrics have asked
(then both go as one) or have finished without asking (no claims, an error: then the
review goes alone). Holding costs no wall time with the core metrics: the verification
waits for the extraction anyway, and the pair is answered in one round trip.

Which metrics verify claims comes from their declared ``judge_requests``; a metric that
declares none is never waited for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..golden.cases import GoldenCase
from ..judges.requests import (
    ClaimVerdicts,
    ContextReview,
    JudgeRequest,
    ReviewCase,
    ReviewContexts,
    VerifyClaims,
)
from ..metrics.base import Metric, MetricFacts, missing_fields
from ..text_safety import json_text

#: Request kinds that send the case's retrieved contexts.
CONTEXT_KINDS = frozenset(
    {
        VerifyClaims.kind,
        ReviewContexts.kind,
        ReviewCase.kind,
        "judge_chunks",
        "attribute_answer",
        "verify_citations",
    }
)

#: Sends a request for a metric: ``send(request, metric, repeat)``.
# A string: subscripting the request model at run time would build a pydantic class.
Send = Callable[["JudgeRequest[Any]", str, int], Awaitable[Any]]


@dataclass(frozen=True)
class CasePlan:
    """What a case's metrics will ask, as far as they declare it.

    Attributes:
        verifiers: the metrics that may ask the claim verification.
        pairs: whether a context review and a claim verification may both be asked.
        contexts_sent_again: whether the contexts may be sent by more than one request
            (several kinds, several repeats, or a metric that declares nothing).
    """

    verifiers: frozenset[str] = frozenset()
    pairs: bool = False
    contexts_sent_again: bool = True

    @classmethod
    def of(
        cls,
        case: GoldenCase,
        metric_names: Sequence[str],
        metrics: Mapping[str, Metric],
        repeats: int = 1,
    ) -> CasePlan:
        """The plan of ``case`` scored on ``metric_names``, each ``repeats`` times."""
        undeclared = False
        kinds_by_metric: dict[str, frozenset[str]] = {}
        for name in metric_names:
            metric = metrics[name]
            if missing_fields(metric, case, scoring=True):
                continue  # not scored, asks nothing
            declared = MetricFacts.of(metric).judge_requests
            if declared is None:
                undeclared = True
                continue
            kinds = set(declared)
            # Context precision reviews the contexts against the reference when the case
            # has one, and judges the chunks against the question only when it has none.
            if ReviewContexts.kind in kinds and "judge_chunks" in kinds:
                kinds.discard("judge_chunks" if case.has("reference") else ReviewContexts.kind)
            kinds_by_metric[name] = frozenset(kinds)
        verifiers = frozenset(
            name for name, kinds in kinds_by_metric.items() if VerifyClaims.kind in kinds
        )
        asked = set().union(*kinds_by_metric.values()) if kinds_by_metric else set()
        pairs = bool(verifiers) and ReviewContexts.kind in asked
        context_kinds = asked & CONTEXT_KINDS
        if pairs:
            context_kinds -= {VerifyClaims.kind, ReviewContexts.kind}
            context_kinds.add(ReviewCase.kind)
        sent_again = undeclared or repeats > 1 or len(context_kinds) > 1
        return cls(verifiers=verifiers, pairs=pairs, contexts_sent_again=sent_again)


@dataclass
class _Held:
    request: ReviewContexts
    metric: str
    reply: asyncio.Future[ContextReview]


@dataclass
class RequestPairing:
    """Holds a case's context review for its claim verification (see the module docstring).

    ``send`` sends one request for a metric and returns its reply.
    """

    plan: CasePlan
    send: Send
    _unfinished: dict[int, set[str]] = field(default_factory=dict)
    _held: dict[tuple[int, str], _Held] = field(default_factory=dict)
    # The loop keeps only weak references to tasks: a released review must not vanish.
    _sending: set[asyncio.Task[None]] = field(default_factory=set)

    async def review(self, request: ReviewContexts, metric: str, repeat: int) -> ContextReview:
        """The context review's reply, sent together with the claim verification if one comes."""
        waiting_for = self._waiting_for(repeat) - {metric}
        if not (self.plan.pairs and waiting_for):
            reply: ContextReview = await self.send(request, metric, repeat)
            return reply
        held = _Held(request, metric, asyncio.get_running_loop().create_future())
        self._held[(repeat, _contexts_key(request.contexts))] = held
        return await held.reply

    async def verify(self, request: VerifyClaims, metric: str, repeat: int) -> ClaimVerdicts:
        """The claim verification's reply; a held review of its contexts goes along."""
        self._waiting_for(repeat).discard(metric)
        held = self._held.pop((repeat, _contexts_key(request.contexts)), None)
        if held is None:
            reply: ClaimVerdicts = await self.send(request, metric, repeat)
            self._release(repeat)
            return reply
        self._release(repeat)
        try:
            # Charged to the review's metric, which asked first, as shared requests are.
            both: Any = await self.send(ReviewCase.of(request, held.request), held.metric, repeat)
        except BaseException as error:
            _settle(held.reply, error=error)
            raise
        _settle(held.reply, result=both.context_review())
        verdicts: ClaimVerdicts = both.claim_verdicts()
        return verdicts

    def sending(self) -> list[asyncio.Task[None]]:
        """The held reviews sent on their own and not yet answered."""
        return list(self._sending)

    def finished(self, metric: str, repeats: Collection[int]) -> None:
        """``metric`` has finished: reviews that only waited for it go alone."""
        for repeat in repeats:
            self._waiting_for(repeat).discard(metric)
            self._release(repeat)

    def _waiting_for(self, repeat: int) -> set[str]:
        return self._unfinished.setdefault(repeat, set(self.plan.verifiers))

    def _release(self, repeat: int) -> None:
        if self._waiting_for(repeat):
            return
        for key in [key for key in self._held if key[0] == repeat]:
            task = asyncio.ensure_future(self._send_alone(self._held.pop(key), repeat))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _send_alone(self, held: _Held, repeat: int) -> None:
        try:
            reply = await self.send(held.request, held.metric, repeat)
        except BaseException as error:
            _settle(held.reply, error=error)
            if not isinstance(error, Exception):
                raise
            return
        _settle(held.reply, result=reply)


def _settle(
    future: asyncio.Future[ContextReview],
    *,
    result: ContextReview | None = None,
    error: BaseException | None = None,
) -> None:
    if future.done():
        return  # the waiting metric was cancelled
    if error is not None:
        future.set_exception(error)
    elif result is not None:
        future.set_result(result)


def _contexts_key(contexts: list[str]) -> str:
    return json_text(contexts)
