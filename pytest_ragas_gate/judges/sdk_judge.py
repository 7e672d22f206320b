"""What the two LLM judges share: their transport, the re-ask loop, batch mode, closing.

:class:`~.anthropic_judge.AnthropicJudge` and :class:`~.openai_judge.OpenAIJudge` differ
in how they build a request and read a reply; sending it (directly in prompt-prefix order,
or through the provider's batch API), re-asking an invalid reply and closing the SDK
client are the same, and live here.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ..exceptions import JudgeError
from .base import Answer, AskContext, ReplyT
from .batching import Batcher, BatchSwitch
from .prefix_order import PrefixOrder
from .reply_validation import Exchange, Followup, ask_until_valid
from .requests import JudgeRequest
from .transport import Transport

__all__ = ["SdkJudge"]


class SdkJudge(BatchSwitch):
    """An LLM judge on a provider SDK; the subclass provides ``_client`` and ``_batch_api``."""

    max_reasks: int
    _timeout_s: float
    _secrets: tuple[str, ...]
    _order: PrefixOrder

    def _connect(
        self, model: str, *, base_url: str | None, timeout_s: float, transport: Transport
    ) -> None:
        """Keep the endpoint and transport.

        The SDK client (a second to import) waits for the first request, so a run whose
        every reply comes from the cache never loads it.
        """
        self._model = model
        self._base_url = base_url
        self._timeout_s = timeout_s
        self.transport = transport
        self._secrets = transport.secrets
        self._order = PrefixOrder()

    async def _ask_through(
        self,
        request: JudgeRequest[ReplyT],
        *,
        context: AskContext,
        prefix_keys: tuple[str | None, ...],
        attempt: Callable[[Sequence[Followup]], Awaitable[Any]],
        batched: Callable[[Sequence[Followup], Batcher], Awaitable[Exchange]],
        exchange: Callable[[Any, int], Exchange],
    ) -> Answer[ReplyT]:
        """Ask until the reply validates: in batch mode through the batcher, else directly.

        Args:
            request: The judge request.
            context: What the scheduler knows of it; no call starts past its deadline.
            prefix_keys: The prompt prefixes a direct call waits its turn for, outermost
                first (so the provider's prompt cache holds each before the next request
                that shares it); None where nothing is worth caching.
            attempt: One direct call with the given follow-ups; returns the SDK's reply.
            batched: One call through the batcher; returns the exchange.
            exchange: The exchange of a direct reply and the retries it took.
        """

        async def call(followups: Sequence[Followup]) -> Exchange:
            if context.deadline is not None and time.monotonic() >= context.deadline:
                raise JudgeError(
                    f"The {request.kind} request reached its deadline before the "
                    f"{self.transport.describe} answered it; nothing more was sent."
                )
            # A batch job answers its requests in no set order, so holding one back until
            # another of its case is answered would only cost a batch round trip.
            if self._batcher is not None:
                return await batched(followups, self._batcher)
            async with contextlib.AsyncExitStack() as turns:
                for key in prefix_keys:
                    await turns.enter_async_context(self._order.turn(key))
                reply, retries = await self.transport.send(
                    lambda: attempt(followups), what=request.kind
                )
            return exchange(reply, retries)

        return await ask_until_valid(
            request,
            call,
            max_reasks=self.max_reasks,
            describe=self.transport.describe,
            secrets=self._secrets,
        )

    def __repr__(self) -> str:
        # Names the endpoint, never the key.
        base_url = self._base_url or "the SDK default"
        return f"{type(self).__name__}(model={self._model!r}, base_url={base_url!r})"

    async def aclose(self) -> None:
        """Cancel a running batch (an interrupted run), then close the SDK client.

        The client is a cached property made on the first request; a judge that never
        sent one has none to close.
        """
        if self._batcher is not None:
            await self._batcher.aclose()
        client = self.__dict__.get("_client")
        if client is not None:
            await client.close()
