"""The judge protocol every judge implements, the usage it reports, and the judge's report card.

``Usage`` lives in :mod:`pytest_ragas_gate.usage`, below both the judges and the results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..exceptions import JudgeError
from ..usage import Usage
from .requests import JudgeRequest

__all__ = [
    "Answer",
    "AskContext",
    "Embedded",
    "CaseJudge",
    "Judge",
    "JudgeCapabilities",
    "JudgeInfo",
    "MetricJudge",
    "NO_CONTEXT",
    "NO_JUDGE",
    "ReplyT",
    "Vectors",
    "no_embeddings",
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


@dataclass(frozen=True)
class JudgeCapabilities:
    """What a judge can do beyond answering one request; the gate reads this, never probes.

    Attributes:
        batch: requests go through the provider's batch API (priced at its share, and a
            case's requests are never paired, since a batch answers in no set order).
        prompt_caching: shared prompt prefixes are marked for the provider's prompt cache.
        structured_output: the structured-output modes the judge asks for replies in, the
            one in use first (``tool_use``, ``json_schema``, ``json_object``…).
        structured_output_note: which mode and why, said once in the reports' judge line.
        pairs_requests: a case's claim verification and context review may go as one
            request (worth it for a judge that pays per call).
        embeddings: :meth:`Judge.embed` works (the ``reverse_questions`` strategy).
        embedding_model: the model :meth:`Judge.embed` uses, for cache keys and prices.
        replay_only: the judge sends nothing (no key); only a read-mode cache answers.
    """

    batch: bool = False
    prompt_caching: bool = False
    structured_output: tuple[str, ...] = ()
    structured_output_note: str = ""
    pairs_requests: bool = False
    embeddings: bool = False
    embedding_model: str = ""
    replay_only: bool = False


@dataclass(frozen=True)
class AskContext:
    """What the scheduler knows about one request that the request itself does not say.

    Attributes:
        repeat: which repeat of a repeated judgement (``repeats: K``) it belongs to, from
            0; the cache keys each repeat apart.
        contexts_sent_again: whether another request of the case sends the same retrieved
            contexts. A provider cache write costs more than a plain send (Anthropic:
            1.25x), so a judge marks the contexts for caching only when a later request
            can read them.
        deadline: the ``time.monotonic()`` by which the reply is wanted, or None for no
            deadline beyond the judge's own timeout; a judge refuses to send after it.
    """

    repeat: int = 0
    contexts_sent_again: bool = True
    deadline: float | None = None


#: The context of a request asked on its own (a test, a benchmark, one-off use).
NO_CONTEXT = AskContext()

#: Embedding vectors, one per text, in order.
Vectors = list[list[float]]


@dataclass(frozen=True)
class Answer(Generic[ReplyT]):
    """A validated reply and what obtaining it cost."""

    reply: ReplyT
    usage: Usage


@dataclass(frozen=True)
class Embedded:
    """Embedding vectors, one per text in order, and what obtaining them cost."""

    vectors: Vectors
    usage: Usage


class Judge(Protocol):
    """Answers judge requests with validated replies: the one interface every judge implements.

    Implementations raise ``JudgeError`` (never return a partial or default reply) when a
    request cannot be answered after their retries and re-asks.
    """

    @property
    def kind(self) -> str:
        """The name it is selected by: ``offline``, ``anthropic``, ``openai`` or a custom one."""
        ...

    @property
    def model(self) -> str:
        """The model name (``heuristic-v1`` for the offline judge)."""
        ...

    @property
    def capabilities(self) -> JudgeCapabilities:
        """What it can do beyond :meth:`ask`."""
        ...

    async def ask(self, request: JudgeRequest[ReplyT], *, context: AskContext) -> Answer[ReplyT]:
        """Answer one request."""
        ...

    async def embed(self, texts: Sequence[str], *, context: AskContext) -> Embedded:
        """One vector per text, in order; a judge without embeddings raises ``JudgeError``."""
        ...

    async def aclose(self) -> None:
        """Release connections; the judge is not used afterwards."""
        ...


def no_embeddings(kind: str) -> JudgeError:
    """The error of :meth:`Judge.embed` for a judge that has no embeddings API."""
    return JudgeError(
        f"The {kind} judge has no embeddings API, which the reverse_questions answer "
        "relevancy strategy needs; use answer_relevancy_strategy: judge, or the openai judge."
    )


class CaseJudge(Protocol):
    """What a metric sees: ask a request, get the reply (usage is accounted for it)."""

    async def ask(self, request: JudgeRequest[ReplyT]) -> ReplyT:
        """Answer one request for the metric that holds this object."""
        ...

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts`` through the run's judge (usage is accounted for the metric)."""
        ...
