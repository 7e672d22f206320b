"""An agent's tool calls and the tool calls a case expects, in DeepEval's shapes.

A golden case may carry ``tools_called`` (the calls the system made, in order) and
``expected_tools`` (the calls it should make). Both are lists of DeepEval ``ToolCall``
objects — ``name``, ``input_parameters`` (saved as ``inputParameters``), ``output``,
``description``, ``reasoning``, ``type`` — so a dataset DeepEval saved loads as it is; a
bare string is a call by name. An expected
tool may also say how its ``input_parameters`` are compared (``match``: ``exact``, the
default, or ``subset``) and its place in the expected order (``order``).

>>> errors = []
>>> calls = tool_call_list("tools_called", [
...     "search", {"name": "fetch", "arguments": '{"id": 7}', "output": "..."}], errors)
>>> [(call.name, call.input_parameters) for call in calls], errors
([('search', None), ('fetch', {'id': 7})], [])
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "ArgumentMatch",
    "ExpectedTool",
    "ToolCall",
    "arguments_match",
    "expected_tool_list",
    "tool_call_list",
]

#: How an expected tool's ``input_parameters`` are compared with a call's: ``exact``
#: (the same mapping, as DeepEval's ToolCorrectness compares them) or ``subset`` (each
#: expected parameter is in the call with the same value; others may be there too).
ArgumentMatch = Literal["exact", "subset"]
ARGUMENT_MATCHES: tuple[str, ...] = ("exact", "subset")


class ToolCall(BaseModel):
    """One tool call, as DeepEval's ``ToolCall`` holds it.

    ``input_parameters`` is None when the call's arguments were not recorded.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str
    input_parameters: dict[str, Any] | None = None
    output: Any = None
    description: str | None = None
    reasoning: str | None = None
    # DeepEval's kind of tool (``FUNCTION`` …); kept, never compared.
    type: str | None = None


class ExpectedTool(ToolCall):
    """A call the case expects: a name, arguments where given, and how to compare them.

    ``order`` places the call in the expected order; when no expected tool of a case
    has one, the list's order is the expected order.
    """

    match: ArgumentMatch = "exact"
    order: int | None = None

    def matched_by(self, call: ToolCall) -> bool:
        """Whether ``call`` is this expected call: the same name and matching arguments.

        >>> ExpectedTool(name="search", input_parameters={"q": "x"}, match="subset").matched_by(
        ...     ToolCall(name="search", input_parameters={"q": "x", "k": 5}))
        True
        """
        if call.name != self.name:
            return False
        if self.input_parameters is None:
            return True
        return arguments_match(self.input_parameters, call.input_parameters or {}, self.match)


def arguments_match(expected: Mapping[str, Any], given: Mapping[str, Any], match: str) -> bool:
    """Whether ``given`` arguments meet ``expected`` ones under ``match``.

    >>> arguments_match({"q": "x"}, {"q": "x", "k": 5}, "exact")
    False
    >>> arguments_match({"q": "x"}, {"q": "x", "k": 5}, "subset")
    True
    """
    if match == "subset":
        return all(key in given and given[key] == value for key, value in expected.items())
    return dict(given) == dict(expected)


#: The names a call's arguments are accepted under: DeepEval's field, its JSON alias, the
#: ``arguments`` of OpenAI-style tool calls and the ``args`` of RAGAS's (and LangChain's).
_ARGUMENT_KEYS = ("input_parameters", "inputParameters", "arguments", "args")
_CALL_KEYS = frozenset({"name", "output", "description", "reasoning", "type", *_ARGUMENT_KEYS})
_EXPECTED_KEYS = _CALL_KEYS | {"match", "order"}


def tool_call_list(name: str, value: Any, errors: list[str]) -> list[ToolCall] | None:
    """A golden row's ``tools_called``: a list of tool calls; what is wrong goes to ``errors``.

    Args:
        name: The field's name as given, for messages.
        value: The field's value (None: not reported).
        errors: Where a problem is appended, naming the field and item.

    Returns:
        The calls in order, or None when absent or malformed.
    """
    items = _items(name, value, errors, _CALL_KEYS)
    if items is None:
        return None
    return [ToolCall(**item) for item in items]


def expected_tool_list(
    name: str, value: Any, errors: list[str], *, default_match: ArgumentMatch = "exact"
) -> list[ExpectedTool] | None:
    """A golden row's ``expected_tools``, as :func:`tool_call_list` reads ``tools_called``.

    ``default_match`` is how a call's arguments are compared when it does not say:
    RAGAS's ``reference_tool_calls`` are compared as RAGAS does, argument by argument
    (``subset``: the call may have more).

    >>> errors = []
    >>> expected_tool_list("expected_tools", [{"name": "a", "match": "some"}], errors)
    >>> errors
    ["field 'expected_tools': item 1: 'match' expected exact or subset, got 'some'"]
    """
    items = _items(name, value, errors, _EXPECTED_KEYS)
    if items is None:
        return None
    prefix = f"field {name!r}"
    for number, item in enumerate(items, 1):
        match = item.setdefault("match", default_match)
        if match not in ARGUMENT_MATCHES:
            errors.append(
                f"{prefix}: item {number}: 'match' expected {' or '.join(ARGUMENT_MATCHES)}, "
                f"got {match!r}"
            )
            return None
        order = item.get("order")
        if order is not None and (isinstance(order, bool) or not isinstance(order, int)):
            errors.append(
                f"{prefix}: item {number}: 'order' expected a whole number (the call's place "
                f"in the expected order), got {order!r}"
            )
            return None
    return [ExpectedTool(**item) for item in items]


def _items(
    name: str, value: Any, errors: list[str], known: frozenset[str]
) -> list[dict[str, Any]] | None:
    """The list's items as keyword arguments of a call, or None with the problem noted."""
    if value is None:
        return None
    prefix = f"field {name!r}"
    shape = "a list of tool names or {name, input_parameters, output} objects"
    if not isinstance(value, list):
        errors.append(f"{prefix}: expected {shape}, got {type(value).__name__}")
        return None
    items: list[dict[str, Any]] = []
    for number, item in enumerate(value, 1):
        if isinstance(item, str):
            item = {"name": item}
        if not isinstance(item, Mapping):
            errors.append(f"{prefix}: expected {shape}, got {type(item).__name__} as item {number}")
            return None
        problem = _call_problem(item, known)
        if problem is not None:
            errors.append(f"{prefix}: item {number}: {problem}")
            return None
        items.append(_call_fields(item))
    return items


def _call_problem(item: Mapping[str, Any], known: frozenset[str]) -> str | None:
    unknown = sorted(str(key) for key in item if key not in known)
    if unknown:
        keys = ", ".join(sorted(known - {"inputParameters"}))
        return f"unknown key {unknown[0]!r}; a tool call has {keys}"
    tool_name = item.get("name")
    if not isinstance(tool_name, str) or not tool_name.strip():
        return f"'name' expected the tool's name, got {tool_name!r}"
    given = [key for key in _ARGUMENT_KEYS if item.get(key) is not None]
    if len(given) > 1:
        return f"the arguments are given twice, as {given[0]!r} and {given[1]!r}; keep one"
    if given:
        arguments = _arguments(item[given[0]])
        if arguments is None:
            return f"{given[0]!r} expected an object of argument names and values"
    for key in ("description", "reasoning", "type"):
        if item.get(key) is not None and not isinstance(item[key], str):
            return f"{key!r} expected a string, got {type(item[key]).__name__}"
    return None


def _arguments(value: Any) -> dict[str, Any] | None:
    """A call's arguments as a mapping; OpenAI-style tool calls carry them as JSON text."""
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except json.JSONDecodeError:
            return None
    if isinstance(value, Mapping):
        return {str(key): item for key, item in value.items()}
    return None


def _call_fields(item: Mapping[str, Any]) -> dict[str, Any]:
    fields = {key: item[key] for key in _EXPECTED_KEYS - set(_ARGUMENT_KEYS) if key in item}
    fields["name"] = str(item["name"]).strip()
    for key in ("match", "order"):
        if fields.get(key) is None:
            fields.pop(key, None)
    given = next((key for key in _ARGUMENT_KEYS if item.get(key) is not None), None)
    if given is not None:
        fields["input_parameters"] = _arguments(item[given])
    return fields
