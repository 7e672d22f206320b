"""The Anthropic judge: Claude through the official ``anthropic`` SDK and the Messages API.

Structured output is tool use: every request offers one tool per request kind (the same
list each time, so the tool definitions, which the API renders first, never break the
cached prefix) and names its kind's tool in the prompt; the reply is that ``tool_use``
block's input, validated with pydantic. A tool call is forced with
``tool_choice={"type": "any"}`` where the model accepts that (one choice for every kind: a
change of ``tool_choice`` would invalidate the cached messages). Some current models
(Claude Sonnet 5.5) answer a forced tool choice with HTTP 400; for those the tools are
offered with ``tool_choice={"type": "auto"}`` and the prompt demands the call, and a model
not known in advance that rejects forced tool choice is switched over after its first
400. A reply without the tool call but with a JSON text block is accepted too; anything
else is re-asked.

Prompt caching: ``cache_control`` breakpoints sit on the shared system block and after
the case's contexts (see :mod:`.prompts`); ``usage.cache_read_input_tokens`` and
``cache_creation_input_tokens`` are counted as cache reads and writes.

No sampling parameters are sent: the API version that SDK 2.x speaks rejects
``temperature`` (even 0) for every model. Run-to-run stability comes from the cache, which
replays the recorded replies.

The SDK's own retries are off (``max_retries=0``): :mod:`.transport` retries, so every retry
is counted and every 429 narrows the shared concurrency limit.

Batch mode (:meth:`AnthropicJudge.use_batches`): every call, re-asks included, goes
through the Message Batches API at half price (see :mod:`.batching`); the reply takes the
same path as a direct one.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..long_lived import import_module_paused
from .base import NO_CONTEXT, Answer, AskContext, Embedded, JudgeCapabilities, ReplyT, no_embeddings
from .batching import (
    BatchApi,
    Batcher,
    BatchRequestError,
    batch_custom_id,
)
from .prefix_order import PrefixOrder
from .prompts import build_prompt, tool_definitions, tool_name
from .reply_validation import Exchange, Followup, parse_json_text, reask_turns
from .requests import JudgeRequest
from .sdk_judge import SdkJudge
from .transport import (
    AdaptiveLimiter,
    Failure,
    RateLimiter,
    RetryPolicy,
    classify_network_error,
    is_retryable_status,
    judge_transport,
    retry_after_from_headers,
)

if TYPE_CHECKING:
    import anthropic

#: The default judge model: a current Claude model with a good cost/quality balance.
DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-5-5"

#: A prompt-cache breakpoint with the default five-minute lifetime.
_EPHEMERAL: dict[str, str] = {"type": "ephemeral"}

#: Models documented to answer a forced ``tool_choice`` with HTTP 400.
_NO_FORCED_TOOL_PREFIXES: tuple[str, ...] = ("claude-sonnet-5-5",)


def classify_anthropic_error(exc: BaseException) -> Failure | None:
    """Map an ``anthropic`` SDK exception to a transport :class:`Failure`."""
    import anthropic

    if isinstance(exc, anthropic.APITimeoutError):
        return Failure("the request timed out", retryable=True)
    if isinstance(exc, anthropic.APIConnectionError):
        return Failure("the connection failed", retryable=True)
    if isinstance(exc, anthropic.APIResponseValidationError):
        return Failure(
            f"HTTP {exc.status_code} with a malformed response body",
            retryable=True,
            status=None,
        )
    if isinstance(exc, anthropic.APIStatusError):
        detail = _api_message(exc) or exc.message
        return Failure(
            f"HTTP {exc.status_code}: {detail}",
            retryable=is_retryable_status(exc.status_code),
            status=exc.status_code,
            retry_after_s=retry_after_from_headers(exc.response.headers),
        )
    if isinstance(exc, ValueError):
        # The SDK raises a bare ValueError / JSONDecodeError on a body that is not JSON.
        return Failure("a malformed response body", retryable=True)
    return classify_network_error(exc)


def _api_message(exc: anthropic.APIStatusError) -> str | None:
    """The provider's own explanation: ``api_message`` from SDK 2.x, else the error body's."""
    message = getattr(exc, "api_message", None)
    if isinstance(message, str):
        return message
    error = exc.body.get("error") if isinstance(exc.body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) else None


def _bad_request_error() -> type[anthropic.BadRequestError]:
    import anthropic

    return anthropic.BadRequestError


class AnthropicJudge(SdkJudge):
    """Answers judge requests with Claude.

    Args:
        model: the Claude model.
        api_key: the API key; None lets the SDK find one (``ANTHROPIC_API_KEY``).
        base_url: the API base URL; None lets the SDK decide (``ANTHROPIC_BASE_URL``).
        timeout_s: the per-request timeout.
        max_retries: transport retries per request (429, 5xx, timeouts, connection errors).
        max_reasks: how often an invalid reply is re-asked.
        limiter: the concurrency limiter; by default a private one of 32 slots.
        rate_limiter: optional requests-per-minute spacing.
        retry_policy: backoff settings; overrides ``max_retries`` when given.
        max_tokens: the output token cap of each call.
        force_tool: force the tool call; None decides from the model name.
        seed: seeds the backoff jitter.
    """

    kind = "anthropic"

    def __init__(
        self,
        model: str = DEFAULT_ANTHROPIC_MODEL,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 6,
        max_reasks: int = 2,
        limiter: AdaptiveLimiter | None = None,
        rate_limiter: RateLimiter | None = None,
        retry_policy: RetryPolicy | None = None,
        max_tokens: int = 8192,
        force_tool: bool | None = None,
        seed: int | None = None,
    ) -> None:
        self.max_reasks = max_reasks
        self.max_tokens = max_tokens
        self.force_tool = (
            not model.startswith(_NO_FORCED_TOOL_PREFIXES) if force_tool is None else force_tool
        )
        transport = judge_transport(
            "anthropic",
            model,
            classify=classify_anthropic_error,
            api_key=api_key,
            retry_policy=retry_policy,
            max_retries=max_retries,
            limiter=limiter,
            rate_limiter=rate_limiter,
            seed=seed,
        )
        self._connect(model, base_url=base_url, timeout_s=timeout_s, transport=transport)

    def _batch_api(self) -> BatchApi:
        from .batch_apis import AnthropicBatches

        return AnthropicBatches(lambda: self._client, self.transport)

    @functools.cached_property
    def _client(self) -> anthropic.AsyncAnthropic:
        import_module_paused("anthropic")
        import anthropic

        return anthropic.AsyncAnthropic(
            api_key=self._secrets[0] if self._secrets else None,
            base_url=self._base_url,
            timeout=self._timeout_s,
            max_retries=0,
        )

    @property
    def model(self) -> str:
        """The Claude model name."""
        return self._model

    @property
    def capabilities(self) -> JudgeCapabilities:
        """Batches once switched on, prompt caching, tool-use replies, paired requests."""
        return JudgeCapabilities(
            batch=self.batch_mode,
            prompt_caching=True,
            structured_output=("tool_use",),
            pairs_requests=True,
        )

    def request_params(
        self,
        request: JudgeRequest[Any],
        followups: Sequence[Followup] = (),
        *,
        context: AskContext = NO_CONTEXT,
    ) -> dict[str, Any]:
        """The Messages API parameters of ``request`` (and its re-asks so far).

        Every request offers the same tools and system block, and the user message opens
        with the case's contexts; ``cache_control`` breakpoints on the system block and
        after the contexts let the API cache both (see :mod:`.prompts`).
        """
        # The tasks stay in the shared system block: with the tools that open every
        # request they reach the 1,024 tokens Anthropic caches at least, read at 0.1x,
        # where each request's own task at its end would be paid in full (and the tools
        # and rules alone fall below the minimum). The schemas are the tools.
        prompt = build_prompt(request, schema_in_prompt=False, tasks_in_system=True)
        content: list[dict[str, Any]] = []
        if prompt.prefix:
            block: dict[str, Any] = {"type": "text", "text": prompt.prefix}
            if context.contexts_sent_again:
                # A write costs 1.25x: worth it only when another request reads it.
                block["cache_control"] = _EPHEMERAL
            content.append(block)
        content.append({"type": "text", "text": prompt.rest})
        messages: list[dict[str, Any]] = [{"role": "user", "content": content}]
        messages += reask_turns(request, followups)
        return {
            "model": self._model,
            "max_tokens": self.max_tokens,
            "system": [{"type": "text", "text": prompt.system, "cache_control": _EPHEMERAL}],
            "messages": messages,
            "tools": list(prompt.tools or tool_definitions()),
            # The same choice for every kind: a change of tool_choice invalidates the
            # cached messages, so a kind's own tool is named in the prompt instead.
            "tool_choice": {"type": "any"} if self.force_tool else {"type": "auto"},
        }

    async def ask(
        self, request: JudgeRequest[ReplyT], *, context: AskContext = NO_CONTEXT
    ) -> Answer[ReplyT]:
        """Answer one request; raises ``JudgeError`` / ``JudgeReplyError`` on failure."""
        tool = tool_name(request)
        first = self.request_params(request, context=context)
        prefix = first["messages"][0]["content"][0]
        prefix_key = PrefixOrder.key(prefix["text"]) if "cache_control" in prefix else None
        # The tools and system block open every request: the run's first request writes
        # them to the cache while the others wait, instead of every request of the first
        # wave paying the write.
        # A tool's name stands for its definition (one fixed schema per request kind), so
        # the names are hashed, not the definitions serialised again on every request.
        shared_key = PrefixOrder.key(
            *(tool["name"] for tool in first["tools"]), first["system"][0]["text"]
        )

        def params(followups: Sequence[Followup]) -> dict[str, Any]:
            return self.request_params(request, followups, context=context) if followups else first

        async def attempt(followups: Sequence[Followup]) -> Any:
            client = self._client
            try:
                return await client.messages.create(**params(followups))
            except _bad_request_error() as exc:
                if not self._stop_forcing_tool(str(exc), first):
                    raise
                return await client.messages.create(**params(followups))

        async def batched(followups: Sequence[Followup], batcher: Batcher) -> Exchange:
            custom_id = batch_custom_id(
                self.kind, self._model, request, followups, repeat=context.repeat
            )
            try:
                message = await batcher.send(custom_id, params(followups), what=request.kind)
            except BatchRequestError as error:
                if not self._stop_forcing_tool(error.problem, first):
                    raise
                message = await batcher.send(custom_id, params(followups), what=request.kind)
            return self._exchange(message, tool, 0)

        return await self._ask_through(
            request,
            context=context,
            prefix_keys=(shared_key, prefix_key),
            attempt=attempt,
            batched=batched,
            exchange=lambda message, retries: self._exchange(message, tool, retries),
        )

    async def embed(self, texts: Sequence[str], *, context: AskContext) -> Embedded:
        """The Messages API has no embeddings."""
        raise no_embeddings(self.kind)

    def _stop_forcing_tool(self, problem: str, params: dict[str, Any]) -> bool:
        """After a 400 naming ``tool_choice``, offer the tools instead of forcing one.

        Applies from now on and to ``params``, the request about to be sent again; returns
        False when ``problem`` is about something else or no tool was being forced.
        """
        if not (self.force_tool and "tool_choice" in problem):
            return False
        # This model rejects forced tool choice.
        self.force_tool = False
        params["tool_choice"] = {"type": "auto"}
        return True

    @staticmethod
    def _exchange(message: Any, tool_name: str, retries: int) -> Exchange:
        usage = getattr(message, "usage", None)
        uncached = int(getattr(usage, "input_tokens", 0) or 0)
        read = int(getattr(usage, "cache_read_input_tokens", 0) or 0)
        written = int(getattr(usage, "cache_creation_input_tokens", 0) or 0)
        tokens = {
            # The API's input_tokens leaves out the cached ones; the gate counts them all.
            "input_tokens": uncached + read + written,
            "output_tokens": int(getattr(usage, "output_tokens", 0) or 0),
            "retries": retries,
            "cache_read_tokens": read,
            "cache_write_tokens": written,
        }
        texts: list[str] = []
        for block in getattr(message, "content", None) or []:
            block_type = getattr(block, "type", None)
            if block_type == "tool_use" and getattr(block, "name", None) == tool_name:
                data = block.input
                return Exchange(
                    data=data, raw=json.dumps(data, ensure_ascii=False), problem=None, **tokens
                )
            if block_type == "text":
                texts.append(block.text)
        raw = "\n".join(texts)
        data = parse_json_text(raw) if raw else None
        stop_reason = getattr(message, "stop_reason", None)
        if data is not None:
            problem = None
        elif stop_reason == "max_tokens":
            problem = "it was cut off at max_tokens before the tool call was complete"
        elif stop_reason == "refusal":
            problem = "the model refused to answer"
        else:
            problem = f"it did not call the {tool_name} tool"
        return Exchange(data=data, raw=raw, problem=problem, **tokens)
