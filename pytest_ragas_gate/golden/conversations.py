"""Conversation rows: a golden case holding ``turns`` becomes one case per exchange.

Two shapes are read, as their tools write them:

- DeepEval's ``ConversationalTestCase``: ``turns`` is a list of ``{role: user|assistant,
  content}``; an assistant turn may carry ``contexts`` (or ``retrieval_context`` /
  ``retrieved_contexts``) and its own ``reference`` (or ``expected_output``).
- RAGAS's ``MultiTurnSample``: ``user_input`` is a list of ``{type: human|ai|tool,
  content}`` messages and ``reference`` is the expected outcome of the whole conversation.
  A ``tool`` message's content is a retrieved context of the next ``ai`` reply (RAGAS
  agents retrieve through tools); an ``ai`` message with tool calls and no text only
  calls the tools; the conversation's ``reference`` is given to its last exchange.

Each user turn and the assistant reply after it form an *exchange*, a case of its own with
id ``conversation#n`` (n from 1): its question is the user turn, its answer the reply (None
for a trailing user turn, which a live target answers), and its history the turns before
it. The conversation's tags, thresholds, labels and metadata apply to every exchange.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .cases import Context, GoldenCase, Message, conversation_case_id, turn_id

__all__ = [
    "TurnRow",
    "derived_conversation_id",
    "is_conversation",
    "read_turns",
    "split_conversation",
]

#: A turn's role and the names each shape gives it.
_ROLES: dict[str, str] = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "tool": "tool",
}
_CONTEXT_KEYS = ("contexts", "retrieval_context", "retrieved_contexts")


def _did_you_mean(raw_role: object) -> str:
    """`` — did you mean 'assistant'?`` for a role one or two edits from a known one."""
    if not isinstance(raw_role, str):
        return ""
    close = difflib.get_close_matches(raw_role.strip().lower(), list(_ROLES), n=1, cutoff=0.75)
    return f" — did you mean {close[0]!r}?" if close else ""


_REFERENCE_KEYS = ("reference", "expected_output")

#: Converts one field's value, appending what is wrong: ``(name, value, errors)``.
Converter = Callable[[str, Any, list[str]], Any]


def is_conversation(given: Mapping[str, tuple[str, Any]]) -> bool:
    """Whether a row's golden fields make it a conversation (``turns``, or a message list)."""
    question = given.get("question", ("", None))[1]
    messages = isinstance(question, list) and bool(question) and isinstance(question[0], Mapping)
    return "turns" in given or messages


@dataclass
class TurnRow:
    """One turn as read: its index in the file's list, role, text, contexts and reference."""

    index: int
    role: str
    content: str
    contexts: list[Context] | None = None
    reference: str | None = None


def read_turns(
    name: str,
    value: Any,
    errors: list[str],
    *,
    contexts: Converter,
    reference: Converter,
) -> list[TurnRow] | None:
    """The turns of a conversation, checked; None (with ``errors``) when malformed.

    Each problem names the field as ``turns[i].field`` (``i`` from 0, as in the file).
    """
    if not isinstance(value, list) or not value:
        errors.append(f"field {name!r}: expected a non-empty list of turns, got {_kind(value)}")
        return None
    turns: list[TurnRow] = []
    for index, item in enumerate(value):
        where = f"{name}[{index}]"
        if not isinstance(item, Mapping):
            errors.append(
                f"field {where!r}: expected an object {{role, content}}, got {_kind(item)}"
            )
            return None
        role_key = "role" if "role" in item else "type"
        raw_role = item.get(role_key)
        role = _ROLES.get(raw_role.strip().lower()) if isinstance(raw_role, str) else None
        if role is None:
            expected = (
                "human, ai or tool"
                if role_key == "type"
                else "user or assistant (RAGAS: human, ai or tool)"
            )
            errors.append(
                f"field '{where}.{role_key}': expected {expected}, got {raw_role!r}"
                + _did_you_mean(raw_role)
            )
            return None
        content = item.get("content")
        calls_tools = role == "assistant" and bool(item.get("tool_calls"))
        if not isinstance(content, str) or (not content.strip() and not calls_tools):
            got = "an empty string" if isinstance(content, str) else _kind(content)
            errors.append(f"field '{where}.content': expected a non-empty string, got {got}")
            return None
        turn = TurnRow(index, role, content)
        for key in _CONTEXT_KEYS:
            if item.get(key) not in (None, []):
                if role != "assistant":
                    errors.append(
                        f"field '{where}.{key}': only an assistant turn carries the contexts "
                        "retrieved for its answer"
                    )
                    return None
                turn.contexts = contexts(f"{where}.{key}", item[key], errors)
                if turn.contexts is None:
                    return None
        for key in _REFERENCE_KEYS:
            if item.get(key) is not None:
                turn.reference = reference(f"{where}.{key}", item[key], errors)
        if role == "assistant" and calls_tools and not content.strip():
            continue
        turns.append(turn)
    return _ordered(name, turns, errors)


def _ordered(name: str, turns: list[TurnRow], errors: list[str]) -> list[TurnRow] | None:
    """Fold tool messages into the next reply's contexts and check the turn order."""
    folded: list[TurnRow] = []
    retrieved: list[Context] = []
    for turn in turns:
        if turn.role == "tool":
            retrieved.append(Context(text=turn.content))
            continue
        if turn.role == "assistant" and retrieved:
            turn.contexts = [*(turn.contexts or []), *retrieved]
            retrieved = []
        folded.append(turn)
    first = folded[0] if folded else None
    if first is None or first.role != "user":
        index = first.index if first is not None else 0
        errors.append(
            f"field '{name}[{index}].role': a conversation starts with a user turn, got "
            f"{first.role if first is not None else 'none'}"
        )
        return None
    for previous, turn in zip(folded, folded[1:], strict=False):
        if previous.role == turn.role == "assistant":
            errors.append(
                f"field '{name}[{turn.index}].role': two assistant turns in a row "
                f"({name}[{previous.index}] and {name}[{turn.index}]); a user turn goes "
                "between them"
            )
            return None
    return folded


def derived_conversation_id(value: list[Mapping[str, Any]]) -> str:
    """The id of a conversation without one, from every turn :func:`read_turns` accepted.

    Each turn counts with its role (named as either tool names it) and its text, tool
    messages included, so two conversations that open alike still differ.
    """
    return conversation_case_id(
        (_ROLES[str(item.get("role", item.get("type"))).strip().lower()], str(item["content"]))
        for item in value
    )


def split_conversation(
    conversation: str,
    turns: list[TurnRow],
    *,
    reference: str | None,
    common: dict[str, Any],
    shared_contexts: list[Context] | None = None,
) -> list[GoldenCase]:
    """One case per exchange of ``turns`` (already checked by :func:`read_turns`).

    Two user turns in a row are one question, joined by a line break. ``shared_contexts``
    (a DeepEval conversational golden's ``context``) follow each reply's own contexts.
    """
    exchanges: list[tuple[str, TurnRow | None, list[Message]]] = []
    history: list[Message] = []
    asked: list[str] = []
    for turn in turns:
        if turn.role == "user":
            asked.append(turn.content)
            continue
        question = "\n".join(asked)
        exchanges.append((question, turn, list(history)))
        history += [
            Message(role="user", content=question),
            Message(role="assistant", content=turn.content),
        ]
        asked = []
    if asked:
        exchanges.append(("\n".join(asked), None, list(history)))
    cases = []
    for number, (question, reply, before) in enumerate(exchanges, 1):
        last = number == len(exchanges)
        own_reference = reply.reference if reply is not None else None
        cases.append(
            GoldenCase(
                id=turn_id(conversation, number),
                question=question,
                answer=reply.content if reply is not None else None,
                contexts=_with_shared(reply.contexts, shared_contexts) if reply else None,
                reference=own_reference if own_reference is not None or not last else reference,
                conversation=conversation,
                turn=number,
                history=before,
                **common,
            )
        )
    return cases


def _with_shared(own: list[Context] | None, shared: list[Context] | None) -> list[Context] | None:
    """A reply's own contexts, then the conversation's shared ones it does not already have."""
    if not shared:
        return own
    texts = {context.text for context in own or []}
    return [*(own or []), *(context for context in shared if context.text not in texts)]


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, list):
        return "an empty list" if not value else "a list"
    return type(value).__name__
