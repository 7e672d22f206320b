"""Which way a threshold points: a minimum for most metrics, a maximum for the rest.

Most metrics are better when higher (faithfulness, recall), and their threshold is a
minimum. A few are better when lower — ``contradiction_rate`` is the share of claims the
contexts contradict — and their threshold is a maximum. A threshold written with an
operator (``contradiction_rate<=0.02``, ``faithfulness>=0.85``) says its direction
itself, so a custom lower-is-better metric is gated with ``<=``; a bare number takes the
metric's own direction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from ..metrics.registry import BUILTIN_FACTS, RESERVED_PREFIX

__all__ = [
    "LOWER_IS_BETTER",
    "Bound",
    "Direction",
    "default_direction",
    "own_bound",
    "parse_bound",
]

Direction = Literal["min", "max"]

#: Built-in metrics whose threshold is a maximum, and their gold-context twins
#: (``oracle_contradiction_rate``), which have the direction of the metric they score.
LOWER_IS_BETTER: frozenset[str] = frozenset(
    name
    for builtin, facts in BUILTIN_FACTS.items()
    if facts.lower_is_better
    for name in (builtin, RESERVED_PREFIX + builtin)
)

# Scores are ratios of small integers; a mean that equals its threshold on paper can land
# a few ulps beyond it in floating point, and must still pass.
_TOLERANCE = 1e-9


def default_direction(metric: str) -> Direction:
    """The direction of a bare-number threshold of ``metric``.

    A custom metric's own direction reaches the gate as its threshold, written with
    ``<=`` (:func:`pytest_ragas_gate.plugin.custom_metrics.with_metric_defaults`).

    >>> default_direction("faithfulness"), default_direction("oracle_contradiction_rate")
    ('min', 'max')
    """
    return "max" if metric in LOWER_IS_BETTER else "min"


def own_bound(metric: str, value: float, bounds: Mapping[str, Bound]) -> Bound:
    """A per-case or per-tag threshold of ``metric``, in the direction the gate reads it.

    The gate's own threshold says the direction (so a custom lower-is-better metric,
    whose threshold reads ``<=X``, gets a maximum); a metric the gate does not threshold
    takes its default direction.

    >>> own_bound("error_rate", 0.1, {"error_rate": Bound(0.2, "max")})
    Bound(value=0.1, direction='max')
    >>> own_bound("oracle_contradiction_rate", 0.1, {})
    Bound(value=0.1, direction='max')
    """
    gate = bounds.get(metric)
    return Bound(value, default_direction(metric) if gate is None else gate.direction)


@dataclass(frozen=True)
class Bound:
    """A threshold and its direction: ``min`` (score ≥ value) or ``max`` (score ≤ value)."""

    value: float
    direction: Direction = "min"

    @property
    def symbol(self) -> str:
        """``>=`` or ``<=``, as thresholds are written."""
        return ">=" if self.direction == "min" else "<="

    @property
    def kept(self) -> str:
        """The relation a passing score has to the threshold (``≥``/``≤``)."""
        return "≥" if self.direction == "min" else "≤"

    @property
    def broken(self) -> str:
        """The relation a failing score has to the threshold (``<``/``>``)."""
        return "<" if self.direction == "min" else ">"

    def met_by(self, score: float) -> bool:
        """Whether ``score`` is on the passing side of the threshold.

        >>> Bound(0.85).met_by(0.85), Bound(0.02, "max").met_by(0.05)
        (True, False)
        """
        if self.direction == "min":
            return score + _TOLERANCE >= self.value
        return score - _TOLERANCE <= self.value

    def interval_side(self, low: float, high: float, *, strict: bool) -> tuple[str, float]:
        """The side of an interval a CI rule checks: ``("lower", low)`` or ``("upper", high)``.

        The strict rule (``ci_lower``, ``ppi_lower``) checks the side nearer to failing:
        the lower bound of a minimum, the upper bound of a maximum; the lenient rule the
        other side.

        >>> Bound(0.85).interval_side(0.8, 0.9, strict=True)
        ('lower', 0.8)
        >>> Bound(0.02, "max").interval_side(0.01, 0.03, strict=True)
        ('upper', 0.03)
        """
        if strict == (self.direction == "min"):
            return "lower", low
        return "upper", high

    def written(self, metric: str) -> str:
        """``faithfulness>=0.85`` / ``contradiction_rate<=0.02``."""
        return f"{metric}{self.symbol}{self.value:.2f}"


def parse_bound(metric: str, raw: float | str) -> Bound:
    """A threshold as configured: a number, or a string ``<=X`` / ``>=X`` / ``X``.

    Raises:
        ValueError: with a message naming the metric and what was expected.

    >>> parse_bound("contradiction_rate", 0.02)
    Bound(value=0.02, direction='max')
    >>> parse_bound("faithfulness", "<=0.3")
    Bound(value=0.3, direction='max')
    """
    direction = default_direction(metric)
    text = raw
    if isinstance(raw, str):
        text = raw.strip()
        for operator, named in ((">=", "min"), ("<=", "max")):
            if text.startswith(operator):
                direction = "min" if named == "min" else "max"
                text = text[len(operator) :].strip()
                break
    try:
        value = float(text)
    except ValueError:
        raise ValueError(
            f"threshold for {metric!r} is {raw!r}; expected a number from 0 to 1, "
            "optionally written as >=X (a minimum) or <=X (a maximum)"
        ) from None
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"threshold for {metric!r} is {value}; expected a number from 0 to 1")
    return Bound(value, direction)
