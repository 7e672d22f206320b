"""The OpenAI-compatible judge: Chat Completions through the official ``openai`` SDK.

Any endpoint that speaks the Chat Completions API works through ``base_url`` (or
``OPENAI_BASE_URL``): OpenAI, Azure, vLLM, Ollama, the llama.cpp server, a LiteLLM proxy.
Structured output is chosen per server (:mod:`.structured_output`): on OpenAI's own API
``response_format={"type": "json_object"}`` with the request's own reply schema at the end
of its prompt, since a per-kind ``json_schema`` format would break prompt caching (OpenAI
renders the schema before the system message, so requests of different kinds would share
no prefix); on a local server the mode that constrains decoding to the schema, sent with
the lengths the request knows (:mod:`.reply_bounds`: one verdict per claim). A server
that refuses the mode in use (any 4xx or 5xx naming ``response_format`` or ``tools``) is
stepped to the next one at once, without a retry; the reply is validated with pydantic and
the message content is parsed as JSON either way (a tool call is accepted too).
``temperature=0`` is sent except to OpenAI reasoning models, which reject it.

OpenAI caches prompt prefixes of 1,024 tokens and more by itself; the layout of
:mod:`.prompts` (shared rules, then the case's contexts) makes them match, and
``usage.prompt_tokens_details.cached_tokens`` is counted as cache reads.

``openai`` is an optional extra, imported on the first call (a run whose every reply
comes from the cache never loads it); :func:`require_openai` checks it is installed.

Batch mode (:meth:`OpenAIJudge.use_batches`): every chat call, re-asks included, goes
through the Batch API at half price (see :mod:`.batching`); embeddings stay direct.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..exceptions import JudgeError, UsageError
from ..long_lived import import_module_paused
from ..usage import Usage
from .base import NO_CONTEXT, Answer, AskContext, Embedded, JudgeCapabilities, ReplyT
from .batching import (
    BatchApi,
    Batcher,
    BatchRequestError,
    batch_custom_id,
)
from .prefix_order import PrefixOrder
from .prompts import Prompt, build_prompt
from .reply_bounds import bounded_reply_schema
from .reply_validation import Exchange, Followup, parse_json_text, reask_turns
from .requests import JudgeRequest
from .sdk_judge import SdkJudge
from .structured_output import (
    StructuredOutputMode,
    format_arguments,
    names_refused_format,
    next_mode,
)
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
    import openai

#: The default judge model: small, cheap, and good at following a JSON schema.
DEFAULT_OPENAI_MODEL = "gpt-4.1-mini"

#: The default embedding model (reverse-questions answer relevancy).
DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small"

#: Model families that reject ``temperature`` (OpenAI reasoning models).
_NO_TEMPERATURE_PREFIXES: tuple[str, ...] = ("o1", "o3", "o4", "gpt-5")

_CHANNEL = "one JSON object (no prose, no code fence)"

#: Modes that send no schema with the request: it is in the prompt only.
_PROMPT_SCHEMA_MODES: frozenset[StructuredOutputMode] = frozenset({"json_object", "none"})


def require_openai() -> None:
    """Raise ``UsageError`` unless the ``openai`` package is installed (without importing it)."""
    if importlib.util.find_spec("openai") is None:
        raise UsageError(
            "The openai judge needs the openai package: install pytest-ragas-gate[openai]."
        )


def classify_openai_error(exc: BaseException) -> Failure | None:
    """Map an ``openai`` SDK exception to a transport :class:`Failure`."""
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return Failure("the request timed out", retryable=True)
    if isinstance(exc, openai.APIConnectionError):
        return Failure("the connection failed", retryable=True)
    if isinstance(exc, openai.APIResponseValidationError):
        return Failure(f"HTTP {exc.status_code} with a malformed response body", retryable=True)
    if isinstance(exc, openai.APIStatusError):
        return Failure(
            f"HTTP {exc.status_code}: {exc.message}",
            retryable=is_retryable_status(exc.status_code),
            status=exc.status_code,
            retry_after_s=retry_after_from_headers(exc.response.headers),
        )
    if isinstance(exc, StructuredOutputWarning):
        # Raised only when warnings are errors: the same refusal comes back on a retry.
        return Failure(str(exc), retryable=False)
    if isinstance(exc, ValueError):
        # The SDK raises a bare ValueError / JSONDecodeError on a body that is not JSON.
        return Failure("a malformed response body", retryable=True)
    return classify_network_error(exc)


def _status_error() -> type[openai.APIStatusError]:
    import openai

    return openai.APIStatusError


class StructuredOutputWarning(UserWarning):
    """The server refused the structured-output mode in use; the judge stepped down."""


class OpenAIJudge(SdkJudge):
    """Answers judge requests through an OpenAI-compatible Chat Completions endpoint.

    Args:
        model: the chat model.
        api_key: the API key; None lets the SDK read ``OPENAI_API_KEY``.
        base_url: the endpoint; None lets the SDK read ``OPENAI_BASE_URL``.
        embedding_model: the model of :meth:`embed`.
        timeout_s: the per-request timeout.
        max_retries: transport retries per request (429, 5xx, timeouts, connection errors).
        max_reasks: how often an invalid reply is re-asked.
        limiter: the concurrency limiter; by default a private one of 32 slots.
        rate_limiter: optional requests-per-minute spacing.
        retry_policy: backoff settings; overrides ``max_retries`` when given.
        temperature: the sampling temperature; None sends 0 where the model accepts it.
        seed: seeds the backoff jitter.
        structured_output: the structured-output mode to start with (``auto`` is resolved
            by :func:`.structured_output.choose_structured_output` before).
        structured_output_note: why that mode, for the reports' judge line.
    """

    kind = "openai"

    def __init__(
        self,
        model: str = DEFAULT_OPENAI_MODEL,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        embedding_model: str | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 6,
        max_reasks: int = 2,
        limiter: AdaptiveLimiter | None = None,
        rate_limiter: RateLimiter | None = None,
        retry_policy: RetryPolicy | None = None,
        temperature: float | None = None,
        seed: int | None = None,
        structured_output: StructuredOutputMode = "json_object",
        structured_output_note: str = "",
    ) -> None:
        self.structured_output_note = structured_output_note
        self.embedding_model = embedding_model or DEFAULT_EMBEDDING_MODEL
        self.max_reasks = max_reasks
        if temperature is None and not model.startswith(_NO_TEMPERATURE_PREFIXES):
            temperature = 0.0
        self.temperature = temperature
        #: The structured-output mode requests are sent with now.
        self.response_format: StructuredOutputMode = structured_output
        self._refused: set[StructuredOutputMode] = set()
        require_openai()
        self._api_key = api_key
        transport = judge_transport(
            "openai",
            model,
            classify=classify_openai_error,
            api_key=api_key,
            retry_policy=retry_policy,
            max_retries=max_retries,
            limiter=limiter,
            rate_limiter=rate_limiter,
            seed=seed,
        )
        self._connect(model, base_url=base_url, timeout_s=timeout_s, transport=transport)

    def _batch_api(self) -> BatchApi:
        from .batch_apis import OpenAIBatches

        return OpenAIBatches(lambda: self._client, self.transport)

    @functools.cached_property
    def _client(self) -> openai.AsyncOpenAI:
        import_module_paused("openai")
        import openai

        return openai.AsyncOpenAI(
            api_key=self._api_key,
            base_url=self._base_url,
            timeout=self._timeout_s,
            max_retries=0,
        )

    @property
    def model(self) -> str:
        """The chat model name."""
        return self._model

    @property
    def capabilities(self) -> JudgeCapabilities:
        """Batches once switched on, prompt-prefix order, its structured-output mode, embeddings."""
        return JudgeCapabilities(
            batch=self.batch_mode,
            prompt_caching=True,
            structured_output=(self.response_format,),
            structured_output_note=self.structured_output_note,
            pairs_requests=True,
            embeddings=True,
            embedding_model=self.embedding_model,
        )

    def request_params(
        self,
        request: JudgeRequest[Any],
        followups: Sequence[Followup] = (),
        *,
        prompt: Prompt | None = None,
    ) -> dict[str, Any]:
        """The Chat Completions parameters of ``request`` (and its re-asks so far)."""
        if prompt is None:
            prompt = build_prompt(request, channel=_CHANNEL, schema_in_prompt=True)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": prompt.user},
        ]
        messages += reask_turns(request, followups)
        arguments: dict[str, Any] = {"model": self._model, "messages": messages}
        if self.temperature is not None:
            arguments["temperature"] = self.temperature
        mode = self.response_format
        # json_object keeps the schema in the prompt only (OpenAI's prompt cache); the
        # modes that send a schema send the request's bounded one (one verdict per claim,
        # capped reasons), which a constraining server turns into its grammar.
        schema = prompt.schema if mode in _PROMPT_SCHEMA_MODES else bounded_reply_schema(request)
        arguments.update(format_arguments(mode, prompt.tool_name, schema))
        return arguments

    async def ask(
        self, request: JudgeRequest[ReplyT], *, context: AskContext = NO_CONTEXT
    ) -> Answer[ReplyT]:
        """Answer one request; raises ``JudgeError`` / ``JudgeReplyError`` on failure."""
        prompt = build_prompt(request, channel=_CHANNEL, schema_in_prompt=True)
        prefix_key = PrefixOrder.key(prompt.prefix) if prompt.prefix else None

        async def attempt(followups: Sequence[Followup]) -> Any:
            client = self._client
            while True:
                mode = self.response_format
                try:
                    return await client.chat.completions.create(
                        **self.request_params(request, followups, prompt=prompt)
                    )
                except _status_error() as exc:
                    # A refused format is no transient failure, whatever its status: the
                    # request goes again at once in the next mode, and no retry is spent.
                    if not self._step_down_format(str(exc), mode, status=exc.status_code):
                        raise

        async def batched(followups: Sequence[Followup], batcher: Batcher) -> Exchange:
            custom_id = batch_custom_id(
                self.kind, self._model, request, followups, repeat=context.repeat
            )
            while True:
                mode = self.response_format
                arguments = self.request_params(request, followups, prompt=prompt)
                try:
                    completion = await batcher.send(custom_id, arguments, what=request.kind)
                except BatchRequestError as error:
                    if not self._step_down_format(error.problem, mode, status=400):
                        raise
                    continue
                return self._exchange(completion, 0)

        return await self._ask_through(
            request,
            context=context,
            prefix_keys=(prefix_key,),
            attempt=attempt,
            batched=batched,
            exchange=self._exchange,
        )

    def _step_down_format(
        self, problem: str, mode: StructuredOutputMode, *, status: int | None
    ) -> bool:
        """After the server refused ``mode``, use the next one from now on.

        Returns False when ``problem`` is about something else or no mode is left. A
        request that was sent in a mode another request already stepped down from is
        simply sent again in the current one.
        """
        if not names_refused_format(status, problem, mode):
            return False
        if mode != self.response_format:
            return True
        following = next_mode(mode, frozenset({*self._refused, mode}))
        if following is None:
            return False
        base_url = self._base_url or "the OpenAI API"
        refused = f"The {self.transport.describe} at {base_url} refused structured output {mode}"
        try:
            warnings.warn(
                StructuredOutputWarning(
                    f"{refused} (HTTP {status}); the judge uses {following} from now on. "
                    f"Set structured_output: {following} to start there."
                ),
                stacklevel=2,
            )
        except StructuredOutputWarning:
            # Warnings are errors in this run (-W error): the judge keeps its mode, and
            # each request the server refuses errors its case with this message.
            raise StructuredOutputWarning(
                f"{refused} (HTTP {status}), and warnings are errors in this run, so the "
                f"judge does not switch to {following}. Set structured_output: {following}."
            ) from None
        self._refused.add(mode)
        self.response_format = following
        return True

    @staticmethod
    def _exchange(completion: Any, retries: int) -> Exchange:
        usage = getattr(completion, "usage", None)
        details = getattr(usage, "prompt_tokens_details", None)
        tokens = {
            "input_tokens": int(getattr(usage, "prompt_tokens", 0) or 0),
            "output_tokens": int(getattr(usage, "completion_tokens", 0) or 0),
            "retries": retries,
            "cache_read_tokens": int(getattr(details, "cached_tokens", 0) or 0),
        }
        choices = getattr(completion, "choices", None) or []
        if not choices:
            return Exchange(None, "", "the response had no choices", **tokens)
        message = choices[0].message
        raw = message.content or ""
        data = parse_json_text(raw) if raw else None
        if data is None:
            for tool_call in getattr(message, "tool_calls", None) or []:
                function = getattr(tool_call, "function", None)
                arguments = getattr(function, "arguments", None)
                if isinstance(arguments, str):
                    raw = arguments
                    data = parse_json_text(arguments)
                    break
        if data is not None:
            problem = None
        elif getattr(message, "refusal", None):
            # A fixed phrase: the refusal text is the model's and may quote the fenced data,
            # and the problem is sent back in the re-ask outside any data block.
            problem = "the model refused to answer"
        elif choices[0].finish_reason == "length":
            problem = "it was cut off at the token limit"
        else:
            problem = "its content is not a JSON object"
        raw_reply = json.dumps(data, ensure_ascii=False) if data else raw
        return Exchange(data, raw_reply, problem, **tokens)

    async def embed_with_usage(self, texts: Sequence[str]) -> tuple[list[list[float]], Usage]:
        """Embed ``texts`` with the embedding model; returns the vectors and the usage."""
        if not texts:
            return [], Usage()

        async def attempt() -> Any:
            # Floats, not the SDK's base64 default, which not every compatible server speaks.
            return await self._client.embeddings.create(
                model=self.embedding_model, input=list(texts), encoding_format="float"
            )

        response, retries = await self.transport.send(attempt, what="embed")
        vectors = [
            [float(value) for value in item.embedding]
            for item in sorted(response.data, key=lambda item: item.index)
        ]
        if len(vectors) != len(texts):
            raise JudgeError(
                f"The {self.transport.describe} returned {len(vectors)} embeddings for "
                f"{len(texts)} texts; check the embedding_model setting."
            )
        tokens = int(getattr(getattr(response, "usage", None), "prompt_tokens", 0) or 0)
        return vectors, Usage(calls=1, input_tokens=tokens, retries=retries)

    async def embed(self, texts: Sequence[str], *, context: AskContext = NO_CONTEXT) -> Embedded:
        """Embed ``texts`` (reverse-questions answer relevancy), with what it cost."""
        vectors, usage = await self.embed_with_usage(texts)
        return Embedded(vectors, usage)
