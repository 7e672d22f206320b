"""From a judge's reply to a valid reply: parsing, validating and re-asking.

:func:`ask_until_valid` sits above the transport (:mod:`~.transport`, which gets each call
through): a reply that is not JSON, lacks the tool call or fails the reply model is
re-asked with the error, at most ``max_reasks`` times, then ``JudgeReplyError``. No default
is ever substituted. A schema error is described by field location and message only, never
by the values that failed, since those may quote the untrusted text under evaluation (see
:func:`~.prompts.describe_validation_error`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..exceptions import JudgeError, JudgeReplyError
from ..usage import Usage
from .base import Answer
from .prompts import describe_validation_error, reask_message
from .requests import JudgeRequest, ReplyMismatch
from .transport import Secrets, redact

ReplyT = TypeVar("ReplyT", bound=BaseModel)


@dataclass(frozen=True)
class Exchange:
    """One model call: the reply as parsed data (or why it could not be) and its cost.

    Attributes:
        data: the reply's structured content, or None when there was none to parse.
        raw: the reply as text, quoted back to the model in a re-ask.
        problem: why ``data`` is None (no tool call, not JSON, refusal …).
        input_tokens / output_tokens: the call's token usage; input tokens count every
            prompt token, those read from or written to the provider's prompt cache too.
        retries: transport retries the call took.
        cache_read_tokens / cache_write_tokens: the input tokens the provider read from
            its prompt cache, and those it wrote to it.
    """

    data: object | None
    raw: str
    problem: str | None
    input_tokens: int
    output_tokens: int
    retries: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


#: A re-ask appended to the conversation: the invalid reply and what was wrong with it.
Followup = tuple[str, str]


def reask_turns(request: JudgeRequest[Any], followups: Sequence[Followup]) -> list[dict[str, str]]:
    """The conversation turns after the first message: each invalid reply and its re-ask."""
    turns: list[dict[str, str]] = []
    for invalid_reply, problem in followups:
        turns.append({"role": "assistant", "content": invalid_reply or "(empty)"})
        turns.append({"role": "user", "content": reask_message(request, problem)})
    return turns


def parse_json_text(text: str) -> object | None:
    r"""The JSON object in a text reply (bare, or inside a ```json fence), or None.

    >>> parse_json_text('```json\n{"claims": []}\n```')
    {'claims': []}
    >>> parse_json_text("no json here") is None
    True
    """
    candidate = text.strip()
    if candidate.startswith("```"):
        candidate = candidate.strip("`")
        if candidate.lower().startswith("json"):
            candidate = candidate[4:]
    start, end = candidate.find("{"), candidate.rfind("}")
    if start == -1 or end <= start:
        return None
    try:
        data: object = json.loads(candidate[start : end + 1])
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _short(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def ask_until_valid(
    request: JudgeRequest[ReplyT],
    call: Callable[[Sequence[Followup]], Awaitable[Exchange]],
    *,
    max_reasks: int,
    describe: str,
    secrets: Iterable[str | None] = (),
) -> Answer[ReplyT]:
    """Call the model until its reply validates, re-asking at most ``max_reasks`` times.

    Args:
        request: the judge request; its ``parse_reply`` validates each reply.
        call: sends the conversation with the given follow-ups appended.
        max_reasks: how many times an invalid reply is re-asked.
        describe: the judge's name in error messages.
        secrets: strings that must not appear in error messages.

    Returns:
        The validated reply and the summed usage of every call.

    Raises:
        JudgeReplyError: the reply was still invalid after the re-asks.
    """
    # Rebound so that this frame, if a traceback shows its locals, holds no readable key.
    secrets = Secrets(secret for secret in secrets if secret)
    followups: list[Followup] = []
    usage = Usage()
    while True:
        try:
            exchange = await call(followups)
        except JudgeError as error:
            # The rejected replies before this failure were sent and paid for too.
            error.usage = usage + (error.usage or Usage())
            raise
        usage = usage + Usage(
            calls=1,
            input_tokens=exchange.input_tokens,
            output_tokens=exchange.output_tokens,
            retries=exchange.retries,
            cache_read_tokens=exchange.cache_read_tokens,
            cache_write_tokens=exchange.cache_write_tokens,
        )
        if exchange.data is not None:
            try:
                reply = request.parse_reply(exchange.data)
            except ReplyMismatch as exc:
                # Our own words about counts and indexes: safe to send back.
                problem = f"it does not fit the request: {exc}"
            except ValidationError as exc:
                # str(exc) would quote the failing values, which may carry injected text
                # from the data blocks into the re-ask, outside any block.
                errors = describe_validation_error(exc, request.reply_type)
                problem = f"it does not match the schema: {errors}"
            else:
                return Answer(reply=reply, usage=usage)
        else:
            problem = exchange.problem or "it held no structured reply"
        if len(followups) >= max_reasks:
            attempts = len(followups) + 1
            raise JudgeReplyError(
                redact(
                    f"The {describe} gave no valid reply to the {request.kind} request in "
                    f"{attempts} attempt{'s' if attempts != 1 else ''}; the last reply was "
                    f"rejected because {problem}. Raise max_reasks or try a stronger model.",
                    secrets,
                ),
                usage=usage,
            )
        followups.append((_short(exchange.raw, 4000), problem))
