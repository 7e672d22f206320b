"""What a judge of one's own takes from the package: each request's prompt, and the re-ask loop.

A judge for another model service sends :class:`ModelCall` s and hands back
:class:`ModelReply` s; :func:`valid_answer` does the rest as the built-in judges do. The
prompt keeps the untrusted texts (answers, contexts) inside data blocks the judge is told
never to obey; a reply that is not JSON or does not fit the request's schema is asked
again with what was wrong, at most ``max_reasks`` times, then ``JudgeReplyError``; the
usage of every call, rejected ones and failures included, is summed.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .base import Answer, ReplyT
from .prompts import build_prompt
from .reply_validation import Exchange, Followup, ask_until_valid, reask_turns
from .requests import JudgeRequest

__all__ = ["ModelCall", "ModelReply", "valid_answer"]


@dataclass(frozen=True)
class ModelCall:
    """One call to the model service.

    Attributes:
        kind: the request kind (``verify_claims``…).
        messages: the chat so far: the system prompt, the request's user message, then
            each rejected reply and its re-ask (``role`` and ``content``).
        schema: the JSON schema the reply must fit (also spelled out in the prompt).
        schema_name: a name for the schema (``record_verify_claims``).
    """

    kind: str
    messages: list[dict[str, str]]
    schema: dict[str, Any]
    schema_name: str


@dataclass(frozen=True)
class ModelReply:
    """What the model service answered to one call.

    Attributes:
        data: the reply's JSON object, or None when it gave none (say why in ``problem``).
        raw: the reply as text, quoted back in a re-ask; default ``data`` as JSON.
        input_tokens / output_tokens: what the call cost, as the service reports it.
        problem: why there is no ``data`` (a refusal, prose instead of JSON…).
    """

    data: object | None
    raw: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    problem: str | None = None


async def valid_answer(
    request: JudgeRequest[ReplyT],
    send: Callable[[ModelCall], Awaitable[ModelReply]],
    *,
    max_reasks: int = 2,
    describe: str = "judge",
    secrets: Iterable[str | None] = (),
) -> Answer[ReplyT]:
    """Ask through ``send`` until the reply fits ``request``, at most ``max_reasks`` re-asks.

    Args:
        request: the judge request.
        send: one call to the model service; raises ``JudgeError`` when the service fails.
        max_reasks: how often an invalid reply is asked again.
        describe: the service's name in error messages (``the mycorp evaluation service``).
        secrets: strings (keys, tokens) that must not appear in error messages.

    Raises:
        JudgeReplyError: the reply was still invalid after the re-asks.
        JudgeError: as ``send``; its ``usage`` then counts the calls made before.
    """
    prompt = build_prompt(request, channel="one JSON object", schema_in_prompt=True)
    opening = [
        {"role": "system", "content": prompt.system},
        {"role": "user", "content": prompt.user},
    ]

    async def call(followups: Sequence[Followup]) -> Exchange:
        messages = [*opening, *reask_turns(request, followups)]
        reply = await send(ModelCall(request.kind, messages, prompt.schema, prompt.tool_name))
        raw = reply.raw or ("" if reply.data is None else json.dumps(reply.data))
        problem = reply.problem if reply.data is None else None
        return Exchange(reply.data, raw, problem, reply.input_tokens, reply.output_tokens, 0)

    return await ask_until_valid(
        request, call, max_reasks=max_reasks, describe=describe, secrets=secrets
    )
