"""Tool-selection accuracy: did the agent pick the retrieval tool it should.

The README's "Tool selection (agents)" section defines it.

A case names the tool it expects in ``expected_tool`` (one name, or a list of acceptable
names); the tool the system chose comes from the live-mode target's ``tool`` output, or
from a ``tool`` field saved in the golden case. No judge is involved.
"""

from __future__ import annotations

from typing import Any

from ..exceptions import CaseError
from ..golden.cases import GoldenCase
from ..judges.base import CaseJudge
from .base import Metric, MetricResult


class ToolSelection(Metric):
    """1.0 when the chosen tool is (one of) the expected tool(s), else 0.0.

    Not applicable when the system reported no tool at all; a reported ``None`` means
    the system chose no tool, which misses the expected one.
    """

    name: str = "tool_selection"
    required_fields: tuple[str, ...] = ("expected_tool",)
    judge_requests: tuple[str, ...] | None = ()
    default_threshold: float | None = None

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; see the class docstring."""
        expected = _expected_tools(case)
        if "tool" not in case.metadata:
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


def _expected_tools(case: GoldenCase) -> tuple[str, ...]:
    value = case.metadata.get("expected_tool")
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise CaseError(
            f"Case {case.id!r} ({case.source}) has expected_tool {value!r}; give a tool name "
            "or a list of acceptable tool names."
        )
    return tuple(name.strip() for name in names if name.strip())
