"""The providers' batch APIs behind :class:`~.batching.BatchApi`, through the official SDKs.

- :class:`AnthropicBatches`: the Message Batches API (``client.messages.batches``):
  ``create(requests=[{custom_id, params}])``, ``retrieve``, ``results`` (JSON Lines of
  ``succeeded`` / ``errored`` / ``expired`` / ``canceled``), ``cancel``.
- :class:`OpenAIBatches`: the Batch API: the requests uploaded as a JSON Lines file
  (``client.files.create(purpose="batch")``), ``client.batches.create`` for
  ``/v1/chat/completions`` with the 24-hour window, ``retrieve``, ``cancel``, and the
  output and error files read with ``client.files.content``.

Every API call goes through the judge's transport (retries with backoff, the shared
concurrency limit, errors with the key redacted), except the cancellation, which is one
best-effort attempt while an interrupted run stops.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from .batching import BatchOutcome, BatchState
from .transport import Transport

#: Why a request has no result when its batch never processed it.
_EXPIRED = "it expired before the batch processed it (batches end after 24 hours)"
_CANCELED = "the batch was canceled before it was processed"

#: OpenAI batch error codes of requests the batch never processed.
_OPENAI_UNPROCESSED = {"batch_expired": _EXPIRED, "batch_cancelled": _CANCELED}
_OPENAI_ENDED = frozenset({"completed", "failed", "expired", "cancelled"})


class AnthropicBatches:
    """The Anthropic Message Batches API.

    Args:
        client: returns the judge's ``AsyncAnthropic`` client (made on first use).
        transport: the judge's transport.
    """

    label = "Anthropic Message Batches API"

    def __init__(self, client: Callable[[], Any], transport: Transport) -> None:
        self._client = client
        self._transport = transport

    async def submit(self, entries: Sequence[tuple[str, dict[str, Any]]]) -> str:
        """Create the batch job; returns its ``msgbatch_…`` id."""
        requests = [{"custom_id": custom_id, "params": params} for custom_id, params in entries]
        batch, _ = await self._transport.send(
            lambda: self._client().messages.batches.create(requests=requests),
            what="batch create",
        )
        return str(batch.id)

    async def poll(self, batch_id: str) -> BatchState:
        """The job's processing status; requests count as done once no longer processing."""
        batch, _ = await self._transport.send(
            lambda: self._client().messages.batches.retrieve(batch_id), what="batch status"
        )
        # The other counts stay 0 until the whole batch has ended.
        processing = int(getattr(batch.request_counts, "processing", 0) or 0)
        return BatchState(
            ended=batch.processing_status == "ended",
            remaining=processing,
            status=str(batch.processing_status),
            detail=batch,
        )

    async def results(
        self, batch_id: str, state: BatchState, custom_ids: Sequence[str]
    ) -> dict[str, BatchOutcome]:
        """Each request's message, or why it has none."""

        async def fetch() -> list[Any]:
            decoder = await self._client().messages.batches.results(batch_id)
            return [line async for line in decoder]

        lines, _ = await self._transport.send(fetch, what="batch results")
        outcomes: dict[str, BatchOutcome] = {}
        for line in lines:
            result = line.result
            kind = getattr(result, "type", None)
            if kind == "succeeded":
                outcomes[line.custom_id] = BatchOutcome(result.message)
            elif kind == "errored":
                error = getattr(getattr(result, "error", None), "error", None)
                error_type = getattr(error, "type", "error")
                message = getattr(error, "message", "") or "no message"
                outcomes[line.custom_id] = BatchOutcome(None, f"{error_type}: {message}")
            elif kind == "expired":
                outcomes[line.custom_id] = BatchOutcome(None, _EXPIRED)
            else:
                outcomes[line.custom_id] = BatchOutcome(None, _CANCELED)
        return outcomes

    async def cancel(self, batch_id: str) -> None:
        """Ask the API to stop the job (one attempt)."""
        await self._client().messages.batches.cancel(batch_id)


class OpenAIBatches:
    """The OpenAI Batch API for Chat Completions.

    Args:
        client: returns the judge's ``AsyncOpenAI`` client (made on first use).
        transport: the judge's transport.
    """

    label = "OpenAI Batch API"

    def __init__(self, client: Callable[[], Any], transport: Transport) -> None:
        self._client = client
        self._transport = transport

    async def submit(self, entries: Sequence[tuple[str, dict[str, Any]]]) -> str:
        """Upload the requests as a JSON Lines file and create the batch job on it."""
        lines = (
            json.dumps(
                {
                    "custom_id": custom_id,
                    "method": "POST",
                    "url": "/v1/chat/completions",
                    "body": params,
                },
                ensure_ascii=False,
            )
            + "\n"
            for custom_id, params in entries
        )
        data = "".join(lines).encode("utf-8", "surrogatepass")
        upload, _ = await self._transport.send(
            lambda: self._client().files.create(
                file=("rag-gate-batch.jsonl", data, "application/jsonl"), purpose="batch"
            ),
            what="batch upload",
        )
        batch, _ = await self._transport.send(
            lambda: self._client().batches.create(
                input_file_id=upload.id,
                endpoint="/v1/chat/completions",
                completion_window="24h",
            ),
            what="batch create",
        )
        return str(batch.id)

    async def poll(self, batch_id: str) -> BatchState:
        """The job's status and request counts."""
        batch, _ = await self._transport.send(
            lambda: self._client().batches.retrieve(batch_id), what="batch status"
        )
        counts = batch.request_counts
        total = int(getattr(counts, "total", 0) or 0)
        done = int(getattr(counts, "completed", 0) or 0) + int(getattr(counts, "failed", 0) or 0)
        return BatchState(
            ended=batch.status in _OPENAI_ENDED,
            # While the input file is validated the counts are all 0.
            remaining=total - done if total else None,
            status=str(batch.status),
            detail=batch,
        )

    async def results(
        self, batch_id: str, state: BatchState, custom_ids: Sequence[str]
    ) -> dict[str, BatchOutcome]:
        """Each request's completion from the output file, or its error from the error file."""
        batch = state.detail
        outcomes: dict[str, BatchOutcome] = {}
        if batch is not None and batch.status == "failed":
            errors = getattr(getattr(batch, "errors", None), "data", None) or []
            reason = "; ".join(str(getattr(error, "message", "")) for error in errors)
            failed = f"the batch failed validation ({reason or 'no reason given'})"
            return {custom_id: BatchOutcome(None, failed) for custom_id in custom_ids}
        for file_id in (
            getattr(batch, "output_file_id", None),
            getattr(batch, "error_file_id", None),
        ):
            if not file_id:
                continue
            text = await self._file_text(str(file_id))
            for line in text.splitlines():
                if line.strip():
                    custom_id, outcome = _openai_outcome(json.loads(line))
                    outcomes.setdefault(custom_id, outcome)
        return outcomes

    async def _file_text(self, file_id: str) -> str:
        async def fetch() -> str:
            content = await self._client().files.content(file_id)
            return str(content.text)

        text, _ = await self._transport.send(fetch, what="batch results")
        return str(text)

    async def cancel(self, batch_id: str) -> None:
        """Ask the API to stop the job (one attempt)."""
        await self._client().batches.cancel(batch_id)


def _openai_outcome(line: dict[str, Any]) -> tuple[str, BatchOutcome]:
    from openai.types.chat import ChatCompletion

    custom_id = str(line.get("custom_id", ""))
    response = line.get("response") or {}
    error = line.get("error") or {}
    status = response.get("status_code")
    body = response.get("body")
    if status == 200 and isinstance(body, dict):
        try:
            return custom_id, BatchOutcome(ChatCompletion.model_validate(body))
        except ValueError:
            return custom_id, BatchOutcome(None, "its result is not a chat completion")
    code = str(error.get("code") or "")
    if code in _OPENAI_UNPROCESSED:
        return custom_id, BatchOutcome(None, _OPENAI_UNPROCESSED[code])
    message = error.get("message")
    if not message and isinstance(body, dict):
        message = (body.get("error") or {}).get("message")
    where = f"HTTP {status}: " if status else ""
    return custom_id, BatchOutcome(None, f"{where}{message or code or 'an error'}")
