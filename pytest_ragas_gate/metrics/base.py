"""The metric protocol shared by built-in and third-party metrics, and their result.

Every metric is registered through :mod:`pytest_ragas_gate.metrics.registry`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..cases import GoldenCase, missing_fields_reason
from ..judges.base import CaseJudge


@dataclass(frozen=True)
class MetricResult:
    """A metric's outcome for one case.

    ``score`` is in [0, 1], or None when the metric does not apply to the case (say, an
    answer with no factual claims); ``not_applicable_reason`` then says why. ``details``
    are the per-item verdicts the score was computed from, for the reports.
    """

    score: float | None
    details: list[dict[str, Any]] = field(default_factory=list)
    reason: str = ""

    @classmethod
    def not_applicable(cls, reason: str) -> MetricResult:
        """A result that is counted as not applicable, never as 0 or 1."""
        return cls(score=None, reason=reason)

    @classmethod
    def lacking(cls, fields: Sequence[str]) -> MetricResult:
        """Not applicable because the case lacks ``fields``."""
        return cls.not_applicable(missing_fields_reason(list(fields)))


@runtime_checkable
class Metric(Protocol):
    """A metric: its name, the case fields it needs, its default threshold, and a scorer.

    ``score`` asks the judge for per-item verdicts and computes the number itself; it
    raises (``JudgeError`` or anything else) to make that case's metric an error.
    """

    name: str
    required_fields: tuple[str, ...]
    default_threshold: float | None

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case."""
        ...


def missing_fields(metric: Metric, case: GoldenCase) -> list[str]:
    """The metric's required fields that ``case`` lacks; empty when the metric applies."""
    return [field for field in metric.required_fields if not case.has(field)]
