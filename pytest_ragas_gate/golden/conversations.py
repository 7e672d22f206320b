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
from .tool_calls import ExpectedTool, ToolCall, expected_tool_list, tool_call_list

__all__ = [
    "TurnRow",
    "derived_conversation_id",
    "is_conversation",
    "read_turns",
    "split_conversation",
    "tool_levels_problem",
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
    """One turn as read: its index in the file's list, role, text, contexts and reference.

    An assistant turn may also carry the tool calls made for it (``tools_called``; None
    when not recorded), the calls it should make and its budget of calls.
    """

    index: int
    role: str
    content: str
    contexts: list[Context] | None = None
    reference: str | None = None
    tools_called: list[ToolCall] | None = None
    expected_tools: list[ExpectedTool] | None = None
    max_steps: int | None = None
    #: RAGAS's shape (``type``-keyed messages): the message list is the whole record, so an
    #: ``ai`` message without ``tool_calls`` called nothing.
    messages: bool = False
    #: An ``ai`` message that only calls tools (no text): its calls go to the next reply.
    calls_only: bool = False


#: A turn's keys holding tool calls: DeepEval's ``Turn.tools_called``, RAGAS's
#: ``AIMessage.tool_calls``.
_CALL_KEYS = ("tools_called", "tool_calls")
#: DeepEval's ``Turn`` fields of MCP calls, which no tool metric scores.
_MCP_KEYS = ("mcp_tools_called", "mcp_resources_called", "mcp_prompts_called")


def read_turns(
    name: str,
    value: Any,
    errors: list[str],
    *,
    contexts: Converter,
    reference: Converter,
    steps: Converter,
) -> list[TurnRow] | None:
    """The turns of a conversation, checked; None (with ``errors``) when malformed.

    Each problem names the field as ``turns[i].field`` (``i`` from 0, as in the file).
    ``steps`` reads a turn's ``max_steps``.
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
        turn = TurnRow(index, role, "", messages=role_key == "type")
        if not _read_tools(where, item, turn, errors, steps):
            return None
        content = item.get("content")
        calls_tools = bool(turn.tools_called)
        if not isinstance(content, str) or (not content.strip() and not calls_tools):
            got = "an empty string" if isinstance(content, str) else _kind(content)
            errors.append(f"field '{where}.content': expected a non-empty string, got {got}")
            return None
        turn.content = content
        turn.calls_only = calls_tools and not content.strip()
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
        turns.append(turn)
    return _ordered(name, turns, errors)


def _read_tools(
    where: str, item: Mapping[str, Any], turn: TurnRow, errors: list[str], steps: Converter
) -> bool:
    """A turn's tool calls, expected calls and budget into ``turn``; False when malformed.

    The expected calls may also sit in the turn's ``metadata`` (where DeepEval's ``Turn``,
    which has no field for them, saves them). MCP calls are not scored, so a turn holding
    any is an error rather than calls left unseen.
    """
    for key in _MCP_KEYS:
        if item.get(key) not in (None, []):
            errors.append(
                f"field '{where}.{key}': MCP calls are not scored by the tool metrics; give "
                f"the calls to check as '{where}.tools_called' ({{name, input_parameters}}) "
                "or leave the MCP calls out"
            )
            return False
    given = [key for key in _CALL_KEYS if item.get(key) is not None]
    if len(given) > 1:
        errors.append(
            f"field '{where}.{given[1]}': the tool calls are given twice, as "
            f"'{where}.{given[0]}' and '{where}.{given[1]}'; keep one"
        )
        return False
    metadata = item.get("metadata")
    expected: tuple[str, Any] | None = None
    if item.get("expected_tools") is not None:
        expected = (f"{where}.expected_tools", item["expected_tools"])
    if isinstance(metadata, Mapping) and metadata.get("expected_tools") is not None:
        if expected is not None:
            errors.append(
                f"field '{where}.metadata.expected_tools': the expected calls are given twice, "
                f"as '{where}.expected_tools' and '{where}.metadata.expected_tools'; keep one"
            )
            return False
        expected = (f"{where}.metadata.expected_tools", metadata["expected_tools"])
    budget = item.get("max_steps")
    fields = [
        *(f"{where}.{key}" for key in given),
        *([expected[0]] if expected else []),
        *([f"{where}.max_steps"] if budget is not None else []),
    ]
    if fields and turn.role != "assistant":
        errors.append(
            f"field '{fields[0]}': only an assistant turn calls tools; a {turn.role} turn "
            "cannot carry tool calls, expected calls or max_steps"
        )
        return False
    problems = len(errors)
    if given:
        turn.tools_called = tool_call_list(f"{where}.{given[0]}", item[given[0]], errors)
    if expected is not None:
        turn.expected_tools = expected_tool_list(expected[0], expected[1], errors)
    if budget is not None:
        turn.max_steps = steps(f"{where}.max_steps", budget, errors)
    return len(errors) == problems


def _ordered(name: str, turns: list[TurnRow], errors: list[str]) -> list[TurnRow] | None:
    """Fold tool messages and tool-only ``ai`` messages into the next reply; check the order.

    A tool message's content is a retrieved context of the next reply, and the calls of an
    ``ai`` message without text are that reply's calls, made before it. Calls or tool
    results with no reply after them end the conversation without its last answer, which
    is an error: the reply is what the exchange scores.
    """
    folded: list[TurnRow] = []
    retrieved: list[Context] = []
    calls: list[ToolCall] = []
    pending: TurnRow | None = None
    for turn in turns:
        if turn.role == "tool" or turn.calls_only:
            if turn.role == "tool":
                retrieved.append(Context(text=turn.content))
            else:
                calls += turn.tools_called or []
            pending = pending or turn
            continue
        if turn.role == "user" and calls and pending is not None:
            errors.append(_no_reply(name, pending, f"before the user turn {name}[{turn.index}]"))
            return None
        if turn.role == "assistant" and (retrieved or calls):
            turn.contexts = [*(turn.contexts or []), *retrieved]
            if calls:
                turn.tools_called = [*calls, *(turn.tools_called or [])]
            retrieved, calls, pending = [], [], None
        elif turn.role == "assistant":
            pending = None
        folded.append(turn)
    if pending is not None:
        errors.append(_no_reply(name, pending, "at the end of the conversation"))
        return None
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


def _no_reply(name: str, pending: TurnRow, where: str) -> str:
    what = "tool message" if pending.role == "tool" else "tool calls"
    return (
        f"field '{name}[{pending.index}]': the {what} at {name}[{pending.index}] get no "
        f"assistant reply {where}; the reply after them is the answer the exchange scores"
    )


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
    expected_tools: list[ExpectedTool] | None = None,
    max_steps: int | None = None,
) -> list[GoldenCase]:
    """One case per exchange of ``turns`` (already checked by :func:`read_turns`).

    Two user turns in a row are one question, joined by a line break. ``shared_contexts``
    (a DeepEval conversational golden's ``context``) follow each reply's own contexts.

    Tool calls are scored as each shape states its expectations. Expected calls or a
    ``max_steps`` given per assistant turn are that exchange's, against its own calls.
    Given for the whole conversation (``expected_tools`` / RAGAS ``reference_tool_calls``,
    ``max_steps`` of the row), they are compared, as RAGAS's ``ToolCallAccuracy`` does,
    with every call of the conversation in order, on its last exchange (as the
    conversation's ``reference`` is). Once any turn records calls, a reply that records
    none called nothing; so does a RAGAS ``ai`` message without ``tool_calls``.
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
    replies = [turn for turn in turns if turn.role == "assistant"]
    whole = expected_tools is not None or max_steps is not None
    recorded = any(turn.tools_called is not None for turn in replies) or (
        whole and any(turn.messages for turn in turns)
    )
    cases = []
    for number, (question, reply, before) in enumerate(exchanges, 1):
        last = number == len(exchanges)
        own_reference = reply.reference if reply is not None else None
        tools = _exchange_tools(reply, replies, recorded, whole, last, expected_tools, max_steps)
        fields = {**common, **tools}
        if tools.get("max_steps") is not None:
            # A step budget is a case threshold of the max_steps metric, as on a single case.
            fields["thresholds"] = {"max_steps": 1.0, **common.get("thresholds", {})}
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
                **fields,
            )
        )
    return cases


def _exchange_tools(
    reply: TurnRow | None,
    replies: list[TurnRow],
    recorded: bool,
    whole: bool,
    last: bool,
    expected_tools: list[ExpectedTool] | None,
    max_steps: int | None,
) -> dict[str, Any]:
    """The tool fields of one exchange (see :func:`split_conversation`)."""
    if whole:
        if not last:
            # Its calls are scored with the conversation's, on the last exchange.
            return {}
        calls = [call for turn in replies for call in turn.tools_called or []]
        return {
            "tools_called": calls if recorded else None,
            "expected_tools": expected_tools,
            "max_steps": max_steps,
            "calls_of_conversation": True,
        }
    if reply is None:
        return {}
    own = reply.tools_called if reply.tools_called is not None or not recorded else []
    return {
        "tools_called": own,
        "expected_tools": reply.expected_tools,
        "max_steps": reply.max_steps,
    }


def tool_levels_problem(name: str, turns: list[TurnRow], whole: str | None) -> str | None:
    """Expectations given both per turn and for the conversation, which cannot both hold.

    ``whole`` names the row's field of conversation-level expectations, if any.
    """
    per_turn = next(
        (turn for turn in turns if turn.expected_tools is not None or turn.max_steps is not None),
        None,
    )
    if whole is None or per_turn is None:
        return None
    field = "expected_tools" if per_turn.expected_tools is not None else "max_steps"
    return (
        f"field {whole!r}: the conversation's expected tool calls are given for the whole "
        f"conversation and per turn ('{name}[{per_turn.index}].{field}'); give them one "
        "way: per assistant turn (scored turn by turn) or for the conversation (scored "
        "against all of its calls in order)"
    )


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
