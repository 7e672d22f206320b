"""Deterministic metrics of an agent's tool calls: which, with what arguments, in what order.

A case's ``expected_tools`` says which calls the system should make (name, and the
arguments where given, compared exactly or as a subset); ``tools_called`` holds the calls
it made, in order, from the golden file, a live target or a trace's TOOL spans. No judge
is asked: a comparison decides each of these.

- ``tool_correctness``: the share of expected calls that were made (each call stands for
  one expected call at most), as DeepEval's ToolCorrectness scores it;
- ``tool_order``: the share of the expected calls that were made in the expected order
  (the longest run of them, in that order, among the calls);
- ``tool_call_precision``: the share of the calls made that were expected;
- ``max_steps``: 1 when the system made no more calls than the case's ``max_steps``, else
  0; a case with ``max_steps`` gates on it as a case threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..golden.cases import GoldenCase
from ..golden.tool_calls import ExpectedTool, ToolCall
from ..judges.base import CaseJudge
from .base import Metric, MetricResult, Stage

__all__ = [
    "MaxSteps",
    "ToolCallPrecision",
    "ToolCorrectness",
    "ToolOrder",
    "match_calls",
    "ordered_expectations",
]


def _no_calls() -> MetricResult:
    """A case whose system reported no calls lacks a field, as one without an answer does.

    A case threshold on such a metric (``max_steps``) is then unchecked, which fails the
    case rather than passing it unseen.
    """
    return MetricResult.lacking(["tools_called"])


_HINT = (
    "Check the agent's tool descriptions and routing prompt against the expected tools "
    "and arguments listed in the case's details; a wrong or missing call upstream also "
    "explains retrieval and answer failures downstream."
)


def match_calls(expected: Sequence[ExpectedTool], calls: Sequence[ToolCall]) -> list[int | None]:
    """For each expected call, the index of the call that stands for it, or None.

    A call stands for one expected call at most, and the pairing matches as many expected
    calls as can be matched (a maximum bipartite matching), so a general expectation
    never takes the only call a more specific one could use.

    >>> expected = [ExpectedTool(name="search"), ExpectedTool(name="search",
    ...             input_parameters={"q": "refunds"})]
    >>> calls = [ToolCall(name="search", input_parameters={"q": "refunds"}),
    ...          ToolCall(name="search", input_parameters={"q": "x"})]
    >>> match_calls(expected, calls)
    [1, 0]
    """
    owner: dict[int, int] = {}

    def place(item: int, seen: set[int]) -> bool:
        for index, call in enumerate(calls):
            if index in seen or not expected[item].matched_by(call):
                continue
            seen.add(index)
            if index not in owner or place(owner[index], seen):
                owner[index] = item
                return True
        return False

    for item in range(len(expected)):
        place(item, set())
    paired: list[int | None] = [None] * len(expected)
    for index, item in owner.items():
        paired[item] = index
    return paired


def ordered_expectations(expected: Sequence[ExpectedTool]) -> list[ExpectedTool]:
    """The expected calls whose order is checked, in that order.

    Those with an ``order``, sorted by it; when none has one, all of them in list order.

    >>> expected = [ExpectedTool(name="b", order=2), ExpectedTool(name="x"),
    ...             ExpectedTool(name="a", order=1)]
    >>> [tool.name for tool in ordered_expectations(expected)]
    ['a', 'b']
    """
    placed = [tool for tool in expected if tool.order is not None]
    if not placed:
        return list(expected)
    return sorted(placed, key=lambda tool: tool.order or 0)


def kept_in_order(expected: Sequence[ExpectedTool], calls: Sequence[ToolCall]) -> list[int]:
    """The indexes into ``expected`` of the longest run of them made in that order.

    A longest common subsequence in which an expected call and a call are alike when the
    call matches it.

    >>> names = [ExpectedTool(name=name) for name in "abc"]
    >>> kept_in_order(names, [ToolCall(name=name) for name in "bca"])
    [1, 2]
    """
    rows, columns = len(expected), len(calls)
    table = [[0] * (columns + 1) for _ in range(rows + 1)]
    for row in range(rows - 1, -1, -1):
        for column in range(columns - 1, -1, -1):
            if expected[row].matched_by(calls[column]):
                table[row][column] = table[row + 1][column + 1] + 1
            else:
                table[row][column] = max(table[row + 1][column], table[row][column + 1])
    kept: list[int] = []
    row = column = 0
    while row < rows and column < columns:
        if expected[row].matched_by(calls[column]):
            kept.append(row)
            row, column = row + 1, column + 1
        elif table[row + 1][column] >= table[row][column + 1]:
            row += 1
        else:
            column += 1
    return kept


def _shown(tool: ToolCall) -> str:
    """``search(q='refunds')``, or ``search`` when the arguments are not given."""
    if tool.input_parameters is None:
        return tool.name
    arguments = ", ".join(f"{key}={value!r}" for key, value in tool.input_parameters.items())
    return f"{tool.name}({arguments})"


def _listed(tools: Sequence[ToolCall]) -> str:
    return ", ".join(_shown(tool) for tool in tools) or "none"


class _ToolMetric:
    """What the tool-call metrics share: no judge, the tool stage, the calls reported."""

    required_fields: tuple[str, ...] = ("expected_tools",)
    judge_requests: tuple[str, ...] | None = ()
    default_threshold: float | None = None
    lower_is_better: bool = False
    stage: Stage = "tool call"
    hint: str = _HINT

    @staticmethod
    def _calls(case: GoldenCase) -> list[ToolCall] | None:
        return None if case.tools_called is None else list(case.tools_called)


class ToolCorrectness(_ToolMetric, Metric):
    """The share of the expected calls the system made, with their arguments where given."""

    name: str = "tool_correctness"

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; see the class docstring."""
        calls = self._calls(case)
        if calls is None:
            return _no_calls()
        expected = list(case.expected_tools or [])
        paired = match_calls(expected, calls)
        details: list[dict[str, Any]] = []
        for tool, index in zip(expected, paired, strict=True):
            detail: dict[str, Any] = {
                "expected": tool.name,
                "called": index is not None,
                "call": None if index is None else index + 1,
            }
            if tool.input_parameters is not None:
                detail["input_parameters"] = tool.input_parameters
                detail["match"] = tool.match
            if index is None:
                detail["why"] = _why_missed(tool, calls)
            details.append(detail)
        made = sum(index is not None for index in paired)
        missed = [
            f"{_shown(tool)} ({detail['why']})"
            for tool, detail in zip(expected, details, strict=True)
            if not detail["called"]
        ]
        reason = f"{made} of {len(expected)} expected tool calls made"
        if missed:
            reason += "; missing " + "; ".join(missed)
        return MetricResult(score=made / len(expected), details=details, reason=reason)


def _why_missed(tool: ExpectedTool, calls: Sequence[ToolCall]) -> str:
    same_name = [call for call in calls if call.name == tool.name]
    if not same_name:
        return "not called"
    shown = "; ".join(repr(call.input_parameters or {}) for call in same_name)
    return f"called with other arguments: {shown}"


class ToolOrder(_ToolMetric, Metric):
    """The share of the expected calls made in the expected order.

    Not applicable when fewer than two expected calls have an order to keep.
    """

    name: str = "tool_order"

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; see the class docstring."""
        calls = self._calls(case)
        if calls is None:
            return _no_calls()
        expected = ordered_expectations(case.expected_tools or [])
        if len(expected) < 2:
            return MetricResult.not_applicable("fewer than two expected tools to order")
        kept = set(kept_in_order(expected, calls))
        details = [
            {"position": position, "expected": tool.name, "in_order": position - 1 in kept}
            for position, tool in enumerate(expected, 1)
        ]
        reason = (
            f"{len(kept)} of {len(expected)} expected tool calls in order "
            f"(expected {_listed(expected)}; called {_listed(calls)})"
        )
        return MetricResult(score=len(kept) / len(expected), details=details, reason=reason)


class ToolCallPrecision(_ToolMetric, Metric):
    """The share of the system's calls that were expected; a repeated call counts once.

    Not applicable when the system made no call.
    """

    name: str = "tool_call_precision"

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; see the class docstring."""
        calls = self._calls(case)
        if calls is None:
            return _no_calls()
        if not calls:
            return MetricResult.not_applicable("no tool calls made")
        paired = match_calls(case.expected_tools or [], calls)
        used = {index for index in paired if index is not None}
        details = [
            {"call": index + 1, "name": call.name, "expected": index in used}
            for index, call in enumerate(calls)
        ]
        extra = [calls[index] for index in range(len(calls)) if index not in used]
        reason = f"{len(used)} of {len(calls)} tool calls expected"
        if extra:
            reason += f"; not expected: {_listed(extra)}"
        return MetricResult(score=len(used) / len(calls), details=details, reason=reason)


class MaxSteps(_ToolMetric, Metric):
    """1.0 when the system made at most the case's ``max_steps`` tool calls, else 0.0."""

    name: str = "max_steps"
    required_fields: tuple[str, ...] = ("max_steps",)
    hint: str = (
        "The agent made more tool calls than the case allows: check for repeated or "
        "looping calls in the case's tools_called, and for a stopping rule in the agent."
    )

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; see the class docstring."""
        calls = self._calls(case)
        if calls is None:
            return _no_calls()
        limit = case.max_steps if case.max_steps is not None else 0
        within = len(calls) <= limit
        details: list[dict[str, Any]] = [{"steps": len(calls), "max_steps": limit}]
        reason = f"{len(calls)} tool calls, {'within' if within else 'over'} max_steps {limit}"
        return MetricResult(score=1.0 if within else 0.0, details=details, reason=reason)
