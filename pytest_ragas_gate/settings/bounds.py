"""Which way a threshold points: a minimum for most metrics, a maximum for the rest.

Most metrics are better when higher (faithfulness, recall), and their threshold is a
minimum. A few are better when lower — ``contradiction_rate`` is the share of claims the
contexts contradict — and their threshold is a maximum. The direction is a fact of the
metric (a built-in's facts, a custom metric's ``lower_is_better``, the ``lower_is_better``
setting), read in one place, :meth:`Bounds.direction_of`: every threshold of the metric —
command line, config, tag, case — takes it. An operator (``contradiction_rate<=0.02``,
``faithfulness>=0.85``) may restate it; one that contradicts it is an error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from ..config_values import read_threshold
from ..metrics.registry import BUILTIN_FACTS, RESERVED_PREFIX

__all__ = [
    "LOWER_IS_BETTER",
    "Bound",
    "Bounds",
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
    """A per-case or per-tag threshold of ``metric``, in the metric's direction.

    ``bounds`` (the config's :class:`Bounds`) knows the direction of every metric, gated
    or report-only; a plain mapping falls back on the gate's threshold, then the default.

    >>> own_bound("error_share", 0.1, Bounds({}, lower_is_better=["error_share"]))
    Bound(value=0.1, direction='max')
    >>> own_bound("oracle_contradiction_rate", 0.1, {})
    Bound(value=0.1, direction='max')
    """
    if isinstance(bounds, Bounds):
        return Bound(value, bounds.direction_of(metric))
    gate = bounds.get(metric)
    return Bound(value, default_direction(metric) if gate is None else gate.direction)


def direction_words(direction: Direction) -> str:
    """``"higher is better: its threshold is a minimum"`` or the lower-is-better line."""
    if direction == "min":
        return "higher is better: its threshold is a minimum (>=)"
    return "lower is better: its threshold is a maximum (<=)"


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

    @property
    def side(self) -> str:
        """Where a failing score lies: ``below`` a minimum, ``above`` a maximum."""
        return "below" if self.direction == "min" else "above"

    def written(self, metric: str) -> str:
        """``faithfulness>=0.85`` / ``contradiction_rate<=0.02`` (``>=0.7501`` as given)."""
        return f"{metric}{self.symbol}{threshold_text(self.value)}"

    @classmethod
    def parse(cls, metric: str, raw: float | str, direction: Direction | None = None) -> Bound:
        """A threshold as written anywhere, in the direction of ``metric``.

        ``direction`` is the metric's (default: a built-in's own); an operator that
        contradicts it is an error naming the metric's direction.

        Raises:
            ValueError: naming the metric and what was expected.

        >>> Bound.parse("contradiction_rate", 0.02)
        Bound(value=0.02, direction='max')
        >>> Bound.parse("faithfulness", "<=0.3")
        Traceback (most recent call last):
        ...
        ValueError: threshold for 'faithfulness' is '<=0.3', a maximum, but for faithfulness higher is better: its threshold is a minimum (>=); write 0.3 or >=0.3
        """  # noqa: E501
        direction = direction or default_direction(metric)
        value, stated = read_threshold(metric, raw)
        if stated is not None and stated != direction:
            kind = "a minimum" if stated == "min" else "a maximum"
            symbol = ">=" if direction == "min" else "<="
            raise ValueError(
                f"threshold for {metric!r} is {raw!r}, {kind}, but for {metric} "
                f"{direction_words(direction)}; write {value:g} or {symbol}{value:g}"
            )
        return cls(value, direction)


class Bounds(dict[str, Bound]):
    """The thresholds in force, and the direction of every metric, gated or not.

    >>> bounds = Bounds({"faithfulness": Bound(0.85)}, lower_is_better=["error_share"])
    >>> bounds.direction_of("error_share"), bounds.direction_of("faithfulness")
    ('max', 'min')
    """

    def __init__(
        self, bounds: Mapping[str, Bound] | None = None, *, lower_is_better: Iterable[str] = ()
    ) -> None:
        super().__init__(bounds or {})
        self.lower_is_better = frozenset(lower_is_better)

    def direction_of(self, metric: str) -> Direction:
        """The direction of ``metric``: the one place it is read."""
        gate = self.get(metric)
        if gate is not None:
            return gate.direction
        if metric in self.lower_is_better:
            return "max"
        return default_direction(metric)


def parse_bound(metric: str, raw: float | str) -> Bound:
    """A threshold as configured: a number, or a string ``<=X`` / ``>=X`` / ``X``.

    Raises:
        ValueError: with a message naming the metric and what was expected.

    >>> parse_bound("contradiction_rate", 0.02)
    Bound(value=0.02, direction='max')
    """
    return Bound.parse(metric, raw)


def threshold_text(value: float) -> str:
    """A threshold as printed: two places, or the digits it was given (``0.7501``).

    >>> threshold_text(0.75), threshold_text(0.7501), threshold_text(0.0)
    ('0.75', '0.7501', '0.00')
    """
    text = f"{value:.2f}"
    if float(text) != value:
        text = f"{value:.6f}".rstrip("0")
    return text
