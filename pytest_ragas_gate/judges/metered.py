"""The judge as the gate uses it: cache, budgets, cost and running totals around a real judge.

:class:`MeteredJudge` implements the ``Judge`` protocol over another judge:

- **cache**: a request already answered (same judge kind, model, prompt version,
  request and repeat) is replayed from disk with ``Usage(cache_hits=1)`` and no call; in ``read``
  mode a miss raises ``JudgeError`` instead of calling.
- **budgets**: once ``max_calls`` calls are sent (or reserved by requests in flight) or
  ``max_cost`` dollars are spent, further requests raise ``BudgetExceeded`` without
  sending anything. Cache hits are free.
- **cost**: each answer's tokens are priced with the :class:`PriceTable`, input read from
  or written to the provider's prompt cache at its own price, batch jobs at theirs.
- **totals**: ``calls``, ``retries``, ``errors``, tokens and cost so far, for the progress
  line and the report, overall and per request kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..exceptions import BudgetExceeded, JudgeError
from ..usage import Usage
from .base import (
    NO_CONTEXT,
    Answer,
    AskContext,
    Embedded,
    Judge,
    JudgeCapabilities,
    ReplyT,
    no_embeddings,
)
from .cache import JudgeCache, cache_key
from .pricing import PriceTable
from .requests import JudgeRequest

if TYPE_CHECKING:
    from .transport import TransportStats

#: What an answer that sent nothing and hit no cache costs.
_FREE = Usage()


class MeteredJudge:
    """Wraps a judge with the cache, the budgets, pricing and running totals.

    Args:
        inner: the judge that actually answers.
        cache: the reply cache, or None for no caching.
        pricing: the price table used for ``cost_usd``.
        max_calls: the most calls this judge may send, or None.
        max_cost: the most US dollars it may spend, or None.
        transport_stats: the inner judge's live transport counters (retries of requests
            that failed included), when it has a transport.
        concurrency: how many requests the inner judge's transport keeps in flight at
            most, when it limits them.
    """

    def __init__(
        self,
        inner: Judge,
        *,
        cache: JudgeCache | None = None,
        pricing: PriceTable | None = None,
        max_calls: int | None = None,
        max_cost: float | None = None,
        transport_stats: TransportStats | None = None,
        concurrency: int | None = None,
    ) -> None:
        self.inner = inner
        self.transport_stats = transport_stats
        self.concurrency = concurrency
        self.cache = cache
        self.pricing = pricing or PriceTable()
        self.max_calls = max_calls
        self.max_cost = max_cost
        self.totals = Usage()
        self.by_kind: dict[str, Usage] = {}
        self.errors = 0
        self.budget_refusals = 0
        self._reserved = 0

    def __repr__(self) -> str:
        cache = self.cache.directory if self.cache is not None else None
        return f"MeteredJudge({self.inner!r}, cache={str(cache)!r}, max_calls={self.max_calls})"

    @property
    def kind(self) -> str:
        """The inner judge's kind."""
        return self.inner.kind

    @property
    def model(self) -> str:
        """The inner judge's model."""
        return self.inner.model

    @property
    def capabilities(self) -> JudgeCapabilities:
        """The inner judge's capabilities."""
        return self.inner.capabilities

    @property
    def priced(self) -> bool:
        """Whether the model has a known price (otherwise ``cost_usd`` stays 0.0)."""
        return self.kind == "offline" or self.pricing.is_priced(self.model)

    @property
    def pairs_requests(self) -> bool:
        """Whether a case's claim verification and context review go as one request.

        Only for an LLM judge sending directly. A batch job answers its requests in no set
        order, and a failed batch would strand a held review in a batch of its own, so batch
        mode keeps them apart; the offline judge sends nothing to save on.
        """
        capabilities = self.inner.capabilities
        return capabilities.pairs_requests and not capabilities.batch

    @property
    def replay_only(self) -> bool:
        """True when the judge has no key and can only replay a read-mode cache."""
        return self.inner.capabilities.replay_only

    @property
    def calls(self) -> int:
        """Calls sent so far (re-asks included; retries and cache hits not)."""
        return self.totals.calls

    @property
    def retries(self) -> int:
        """Transport retries so far, including those of requests that failed."""
        stats = self.transport_stats
        return stats.retries if stats is not None else self.totals.retries

    @property
    def cache_hits(self) -> int:
        """Requests answered from the cache."""
        return self.totals.cache_hits

    @property
    def input_tokens(self) -> int:
        """Input tokens so far."""
        return self.totals.input_tokens

    @property
    def output_tokens(self) -> int:
        """Output tokens so far."""
        return self.totals.output_tokens

    @property
    def cost_usd(self) -> float:
        """Estimated spend so far."""
        return self.totals.cost_usd

    @property
    def supports_embeddings(self) -> bool:
        """Whether :meth:`embed` works with this judge (the OpenAI-compatible one)."""
        return self.inner.capabilities.embeddings

    async def ask(
        self, request: JudgeRequest[ReplyT], *, context: AskContext = NO_CONTEXT
    ) -> Answer[ReplyT]:
        """Answer from the cache, or from the inner judge within the budgets."""
        # The request is serialised only for a cache key, never for the offline judge.
        key = (
            self._key(request.kind, request.model_dump(mode="json"), context.repeat)
            if self._caches
            else None
        )
        if key is not None and self.cache is not None:
            entry = self.cache.load(key)
            if entry is not None:
                try:
                    reply = request.parse_reply(entry.reply)
                except ValueError:
                    self.cache.discard()
                else:
                    return self._account(request.kind, Answer(reply, Usage(cache_hits=1)))
            if self.cache.mode == "read":
                self.errors += 1
                raise JudgeError(self._miss_message(request.kind, key))
        answer = await self._call(request.kind, lambda: self.inner.ask(request, context=context))
        if key is not None and self.cache is not None:
            self.cache.store(
                key,
                reply=answer.reply.model_dump(mode="json"),
                usage=answer.usage.model_dump(),
                about=self._about(request.kind),
            )
        return answer

    async def embed(self, texts: Sequence[str], *, context: AskContext = NO_CONTEXT) -> Embedded:
        """Embed ``texts`` through the inner judge, cached and metered like requests.

        A failure's usage (priced) rides on its ``JudgeError``, as a request's does.
        """
        capabilities = self.inner.capabilities
        if not capabilities.embeddings:
            raise no_embeddings(self.kind)
        model = capabilities.embedding_model or self.model
        # Embeddings are keyed as the first repeat's: the vectors of a text never vary.
        key = self._key("embed", {"model": model, "texts": list(texts)}, 0)
        if key is not None and self.cache is not None:
            entry = self.cache.load(key)
            if entry is not None and _is_vectors(entry.reply, len(texts)):
                vectors = [[float(value) for value in vector] for vector in entry.reply]
                hit: Answer[Any] = Answer(vectors, Usage(cache_hits=1))
                return Embedded(vectors, self._account("embed", hit).usage)
            if entry is not None:
                self.cache.discard()
            if self.cache.mode == "read":
                self.errors += 1
                raise JudgeError(self._miss_message("embed", key))

        async def send() -> Answer[Any]:
            embedded = await self.inner.embed(texts, context=context)
            return Answer(embedded.vectors, embedded.usage)

        answer = await self._call("embed", send, model=model)
        if key is not None and self.cache is not None:
            self.cache.store(
                key, reply=answer.reply, usage=answer.usage.model_dump(), about=self._about("embed")
            )
        return Embedded(answer.reply, answer.usage)

    async def aclose(self) -> None:
        """Close the inner judge."""
        await self.inner.aclose()

    @property
    def _caches(self) -> bool:
        # The offline judge is deterministic and free: nothing to gain from caching it.
        return self.cache is not None and self.cache.reads and self.kind != "offline"

    def _key(self, kind: str, payload: Any, repeat: int) -> str | None:
        if not self._caches:
            return None
        # The prompts load only for a judge that sends them, never for the offline judge.
        from .prompts import PROMPT_VERSION

        return cache_key(
            judge_kind=self.kind,
            model=self.model,
            prompt_version=PROMPT_VERSION,
            kind=kind,
            payload=payload,
            repeat=repeat,
        )

    def _about(self, kind: str) -> dict[str, Any]:
        from .prompts import PROMPT_VERSION

        return {
            "judge": self.kind,
            "model": self.model,
            "prompt_version": PROMPT_VERSION,
            "request_kind": kind,
        }

    def _miss_message(self, kind: str, key: str) -> str:
        directory = self.cache.directory if self.cache is not None else "?"
        rejected = self.cache.rejected.get(key) if self.cache is not None else None
        if rejected is not None:
            return (
                f"cache entry for {kind} failed verification: {rejected} (judge "
                f"{self.kind}, model {self.model}, key {key[:12]}…, cache {directory}); it "
                "is not replayed. Record it again in readwrite mode by a run with "
                "RAG_GATE_SIGNING_KEY set, the key whose public half is cache.public_key."
            )
        return (
            f"cache miss in read mode for {kind} (judge {self.kind}, model {self.model}, "
            f"key {key[:12]}…, cache {directory}) — run once with a key in readwrite mode "
            "to record this request, or check that the judge, model and cases match the "
            "recording."
        )

    def _check_budget(self, kind: str) -> None:
        if self.max_calls is not None and self.calls + self._reserved >= self.max_calls:
            self.budget_refusals += 1
            # Requests still awaiting their reply were sent too: count them, or a budget
            # spent by concurrent requests reads "0 calls were sent".
            sent = self.calls + self._reserved
            waiting = f" ({self._reserved} still awaiting a reply)" if self._reserved else ""
            raise BudgetExceeded(
                f"The judge call budget is spent: max_calls={self.max_calls} and "
                f"{sent} calls were sent{waiting}, so the {kind} request was not sent. "
                "Raise max_calls, or record the cache and replay it."
            )
        if self.max_cost is not None and self.cost_usd >= self.max_cost:
            self.budget_refusals += 1
            raise BudgetExceeded(
                f"The judge cost budget is spent: max_cost=${self.max_cost:.4f} and "
                f"${self.cost_usd:.4f} was spent, so the {kind} request was not sent. "
                "Raise max_cost, or record the cache and replay it."
            )

    async def _call(self, kind: str, send: Any, *, model: str | None = None) -> Answer[Any]:
        self._check_budget(kind)
        self._reserved += 1
        try:
            answer: Answer[Any] = await send()
        except Exception as error:
            self.errors += 1
            if isinstance(error, JudgeError) and error.usage is not None:
                # A failed request still spent calls (and tokens on rejected replies):
                # they count towards the totals and the budgets like any other.
                error.usage = self._priced(error.usage, model)
                self._account(kind, Answer(None, error.usage))
            raise
        finally:
            self._reserved -= 1
        usage = self._priced(answer.usage, model)
        return self._account(kind, Answer(answer.reply, usage))

    def _priced(self, usage: Usage, model: str | None) -> Usage:
        tokens = (
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
        )
        if not any(tokens):
            # Zero tokens cost zero on any model (every answer of the offline judge).
            return usage
        # Requests of a judge in batch mode go through the batch API at its discount;
        # embeddings (model given) are always sent directly.
        batch = model is None and self.inner.capabilities.batch
        cost = self.pricing.cost(
            model or self.model,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
            batch=batch,
        )
        return usage.model_copy(update={"cost_usd": usage.cost_usd + cost.usd})

    def _account(self, kind: str, answer: Answer[Any]) -> Answer[Any]:
        if answer.usage == _FREE:
            # Adding nothing: the sums stay, and the kind is still listed as asked.
            self.by_kind.setdefault(kind, _FREE)
            return answer
        self.totals = self.totals + answer.usage
        self.by_kind[kind] = self.by_kind.get(kind, Usage()) + answer.usage
        return answer


def _is_vectors(data: Any, count: int) -> bool:
    return (
        isinstance(data, list)
        and len(data) == count
        and all(isinstance(vector, list) and vector for vector in data)
    )
