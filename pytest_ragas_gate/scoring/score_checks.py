"""The one check every score passes before anything gates on it.

A score is a finite number from 0 to 1, or None for "not applicable". Scores reach the
gate from the built-in metrics, custom metrics (a conftest hook or an installed package),
oracle metrics, and saved reports read back by ``rag-gate`` (regate, merge, compare,
summary, html, a baseline). Each road calls :func:`score_problem`, so 12.0, -0.2, NaN or a
string can never be averaged into a verdict: while scoring it is an error of that case's
metric, in a saved report the report is refused.
"""

from __future__ import annotations

import math
from typing import Any

from ..exceptions import InvalidMetricResult
from ..metrics.base import MetricResult

__all__ = ["InvalidMetricResult", "checked_result", "invalid_score_message", "score_problem"]

#: How a message states what a score must be.
EXPECTED_SCORE = "expected a finite number from 0 to 1, or None for not applicable"


def score_problem(value: object) -> str | None:
    """Why ``value`` is not a score, or None when it is one (None itself is n/a).

    Example:
        >>> score_problem(0.5) is None, score_problem(None) is None
        (True, True)
        >>> score_problem(12.0)
        'outside 0 to 1'
        >>> score_problem(float("nan"))
        'not a finite number'
        >>> score_problem("0.9")
        'a str, not a number'
    """
    if value is None:
        return None
    # bool is an int subclass, but True as a score is a bug in the metric, not 1.0.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"a {type(value).__name__}, not a number"
    if not math.isfinite(value):
        return "not a finite number"
    if not 0.0 <= value <= 1.0:
        return "outside 0 to 1"
    return None


def invalid_score_message(metric: str, value: object, problem: str) -> str:
    """``score 12.0 of metric 'odd' is outside 0 to 1; expected ...`` (no final stop)."""
    return f"score {_shown(value)} of metric {metric!r} is {problem}; {EXPECTED_SCORE}"


def checked_result(metric: str, outcome: Any) -> MetricResult:
    """``outcome`` as the metric's result, or :class:`InvalidMetricResult` naming it.

    Args:
        metric: The metric's name, for the message.
        outcome: What its ``score(case, judge)`` returned.

    Returns:
        The result, its score a float (an int score such as 1 becomes 1.0).

    Raises:
        InvalidMetricResult: ``outcome`` is not a ``MetricResult`` (say, a bare float) or
            its score is not a finite number from 0 to 1 (or None).
    """
    if not isinstance(outcome, MetricResult):
        raise InvalidMetricResult(
            f"metric {metric!r} returned {_shown(outcome)} ({type(outcome).__name__}); "
            "score(case, judge) must return MetricResult(score=...) or "
            "MetricResult.not_applicable(reason)."
        )
    problem = score_problem(outcome.score)
    if problem is not None:
        raise InvalidMetricResult(invalid_score_message(metric, outcome.score, problem) + ".")
    if outcome.score is None or isinstance(outcome.score, float):
        return outcome
    return MetricResult(score=float(outcome.score), details=outcome.details, reason=outcome.reason)


def _shown(value: object) -> str:
    """``value``'s repr, cut short: a metric may return a whole document by mistake."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
