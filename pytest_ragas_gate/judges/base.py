"""The judge protocol every judge implements, the usage it reports, and the judge's report card.

``Usage`` lives in :mod:`pytest_ragas_gate.usage`, below both the judges and the results.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..usage import Usage
from .requests import JudgeRequest

__all__ = [
    "Answer",
    "CaseJudge",
    "Judge",
    "JudgeInfo",
    "MetricJudge",
    "NO_JUDGE",
    "ReplyT",
    "charge",
    "contexts_sent_again",
    "judge_repeat",
    "usage_sink",
]

ReplyT = TypeVar("ReplyT", bound=BaseModel)


class MetricJudge(BaseModel):
    """Who scored one metric: a judge's kind, model and prompt version, or no judge at all.

    ``kind`` is ``none`` for a metric computed from the case alone (``mrr``, the tool
    metrics), whose scores no judge can move.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str
    model: str = ""
    # Empty for the offline judge and a metric without a judge, and when not known.
    prompt_version: str = ""

    @field_validator("prompt_version", mode="before")
    @classmethod
    def _bare_version(cls, value: object) -> object:
        # "v6" and "6" are one version; kept bare so lines read "prompt v6", never "vv6".
        return bare_version(value) if isinstance(value, str) else value

    def describe(self) -> str:
        """``claude-sonnet-4-5 prompt v7``, ``the offline heuristic (heuristic-v1)``, ``no judge``.

        >>> MetricJudge(kind="anthropic", model="claude-sonnet-4-5", prompt_version="7").describe()
        'claude-sonnet-4-5 prompt v7'
        """
        if self.kind == NO_JUDGE:
            return "no judge"
        if self.kind == "offline":
            return (
                f"the offline heuristic ({self.model})" if self.model else "the offline heuristic"
            )
        version = f" prompt v{self.prompt_version}" if self.prompt_version else ""
        return f"{self.model or self.kind}{version}"


def bare_version(version: str) -> str:
    """A prompt version without its leading ``v``.

    >>> bare_version(" v6 "), bare_version("7"), bare_version("vision")
    ('6', '7', 'vision')
    """
    version = version.strip()
    if version[:1] in ("v", "V") and version[1:2].isdigit():
        return version[1:]
    return version


#: The ``kind`` of a metric computed without a judge.
NO_JUDGE = "none"


class JudgeInfo(BaseModel):
    """Which judge scored the run, and why that one (announced in every report).

    ``metrics`` says who scored each metric of the run; a report written before it was
    kept has none, and every metric reads as scored by the run's judge.
    """

    model_config = ConfigDict(extra="forbid")

    kind: str
    model: str
    selected_by: str = ""
    # Empty for the offline judge (no prompts) and in reports written before it was kept.
    prompt_version: str = ""

    @field_validator("prompt_version", mode="before")
    @classmethod
    def _bare_version(cls, value: object) -> object:
        # "v6" and "6" are one version; kept bare so lines read "prompt v6", never "vv6".
        return bare_version(value) if isinstance(value, str) else value

    # The openai judge's structured-output mode and why (``structured output json_schema
    # (auto: …)``); empty for the other judges.
    structured_output: str = ""
    metrics: dict[str, MetricJudge] = Field(default_factory=dict)

    @property
    def run_judge(self) -> MetricJudge:
        """The run's judge, as a metric it scored records it."""
        return MetricJudge(kind=self.kind, model=self.model, prompt_version=self.prompt_version)

    def of_metric(self, metric: str) -> MetricJudge:
        """Who scored ``metric``: as recorded, else the run's judge."""
        recorded = self.metrics.get(metric)
        return self.run_judge if recorded is None else recorded


#: Where usage spent outside a judge request (embeddings) is charged. The scheduler points
#: it at the metric being scored, so that per-case, per-metric and run totals include it.
usage_sink: ContextVar[Callable[[Usage], None] | None] = ContextVar(
    "rag_gate_usage_sink", default=None
)


#: Which repeat of a repeated judgement (``repeats: K``) the request being asked belongs
#: to, from 0. The scheduler sets it per request; the cache keys each repeat apart.
judge_repeat: ContextVar[int] = ContextVar("rag_gate_judge_repeat", default=0)


#: Whether another request of the case being scored will send the same retrieved contexts.
#: A provider cache write costs more than a plain send (Anthropic: 1.25x), so a judge
#: marks the contexts for caching only when a later request can read them. The scheduler
#: sets it per request from what the case's metrics declare they ask; unset, it is True.
contexts_sent_again: ContextVar[bool] = ContextVar("rag_gate_contexts_sent_again", default=True)


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
