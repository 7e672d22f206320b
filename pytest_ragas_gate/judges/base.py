"""The judge protocol every judge implements, and the usage it reports per request."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from pydantic import BaseModel

from .requests import JudgeRequest

ReplyT = TypeVar("ReplyT", bound=BaseModel)


@dataclass(frozen=True)
class Usage:
    """What answering requests cost: calls sent, tokens, retries, cache hits, dollars."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    retries: int = 0
    cache_hits: int = 0
    cost_usd: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            retries=self.retries + other.retries,
            cache_hits=self.cache_hits + other.cache_hits,
            cost_usd=self.cost_usd + other.cost_usd,
        )


#: Where usage spent outside a judge request (embeddings) is charged. The scheduler points
#: it at the metric being scored, so that per-case, per-metric and run totals include it.
usage_sink: ContextVar[Callable[[Usage], None] | None] = ContextVar(
    "rag_gate_usage_sink", default=None
)


def charge(usage: Usage) -> None:
    """Charge ``usage`` to the metric being scored in this task, if any."""
    sink = usage_sink.get()
    if sink is not None:
        sink(usage)


@dataclass(frozen=True)
class Answer(Generic[ReplyT]):
    """A validated reply and what obtaining it cost."""

    reply: ReplyT
    usage: Usage


class Judge(Protocol):
    """Answers judge requests with validated replies.

    Implementations raise ``JudgeError`` (never return a partial or default reply) when a
    request cannot be answered after their retries and re-asks.
    """

    @property
    def kind(self) -> str:
        """``offline``, ``anthropic`` or ``openai``."""
        ...

    @property
    def model(self) -> str:
        """The model name (``heuristic-v1`` for the offline judge)."""
        ...

    async def ask(self, request: JudgeRequest[ReplyT]) -> Answer[ReplyT]:
        """Answer one request."""
        ...

    async def aclose(self) -> None:
        """Release connections; the judge is not used afterwards."""
        ...


class CaseJudge(Protocol):
    """What a metric sees: ask a request, get the reply (usage is accounted for it)."""

    async def ask(self, request: JudgeRequest[ReplyT]) -> ReplyT:
        """Answer one request for the metric that holds this object."""
        ...
