"""Tool-selection accuracy: did the agent pick the retrieval tool it should.

The README's "Tool selection (agents)" section defines it.

A case names the tool it expects in ``expected_tool`` (one name, or a list of acceptable
names); the tool the system chose comes from the live-mode target's ``tool`` output, or
from a ``tool`` field saved in the golden case, else from the case's ``tools_called``. It
is the single-tool case of ``tool_correctness`` (:mod:`.tool_calls`): one expected call,
by name, which any of the acceptable names meets. No judge is involved.
"""

from __future__ import annotations

from typing import Any

from ..exceptions import CaseError
from ..golden.cases import GoldenCase
from ..golden.tool_calls import ExpectedTool
from ..judges.base import CaseJudge
from .base import Metric, MetricResult, Stage
from .tool_calls import match_calls


class ToolSelection(Metric):
    """1.0 when the chosen tool is (one of) the expected tool(s), else 0.0.

    Not applicable when the system reported no tool at all; a reported ``None`` means
    the system chose no tool, which misses the expected one. Without a ``tool``, the
    case's ``tools_called`` meet the expectation when one of the calls has an expected name.
    """

    name: str = "tool_selection"
    required_fields: tuple[str, ...] = ("expected_tool",)
    judge_requests: tuple[str, ...] | None = ()
    default_threshold: float | None = None
    stage: Stage = "tool call"

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; see the class docstring."""
        expected = _expected_tools(case)
        if "tool" not in case.metadata:
            if case.tools_called is not None:
                return _among_calls(case, expected)
            return MetricResult.not_applicable(
                "the system reported no tool; return 'tool' from the target"
            )
        chosen = case.metadata["tool"]
        if chosen is not None and not isinstance(chosen, str):
            raise CaseError(
                f"Case {case.id!r} ({case.source}) has tool {chosen!r}; expected a tool name."
            )
        chosen_name = chosen.strip() if chosen else None
        matched = chosen_name in expected
        details: list[dict[str, Any]] = [
            {"expected": list(expected), "chosen": chosen_name, "match": matched}
        ]
        wanted = " or ".join(repr(name) for name in expected)
        reason = (
            f"chose {chosen_name!r}, as expected"
            if matched
            else f"chose {chosen_name!r}, expected {wanted}"
            if chosen_name
            else f"chose no tool, expected {wanted}"
        )
        return MetricResult(score=1.0 if matched else 0.0, details=details, reason=reason)


def _among_calls(case: GoldenCase, expected: tuple[str, ...]) -> MetricResult:
    """Whether one of the case's calls is an expected tool: tool_correctness of one call."""
    calls = case.tools_called or []
    called = next(
        (
            index
            for name in expected
            for index in match_calls([ExpectedTool(name=name)], calls)
            if index is not None
        ),
        None,
    )
    wanted = " or ".join(repr(name) for name in expected)
    names = [call.name for call in calls]
    details: list[dict[str, Any]] = [
        {"expected": list(expected), "called": names, "match": called is not None}
    ]
    reason = (
        f"called {names[called]!r}, as expected"
        if called is not None
        else f"called {', '.join(map(repr, names))}, expected {wanted}"
        if names
        else f"called no tool, expected {wanted}"
    )
    return MetricResult(score=0.0 if called is None else 1.0, details=details, reason=reason)


def _expected_tools(case: GoldenCase) -> tuple[str, ...]:
    value = case.metadata.get("expected_tool")
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise CaseError(
            f"Case {case.id!r} ({case.source}) has expected_tool {value!r}; give a tool name "
            "or a list of acceptable tool names."
        )
    return tuple(name.strip() for name in names if name.strip())
