"""Each case's verdict: errored, below its own thresholds or the gate's, and by how much.

The gate decides this once per case (:func:`case_verdict`) and every report reads it: the
terminal, JUnit, the JSON and HTML reports, the Markdown step summary, the annotations and
the PR comment name the same failing cases with the same shortfalls.

A case's *own* thresholds (``thresholds:`` in its golden row) are checked against its
scores and fail the gate on their own. A case below the *gate's* threshold of a gated
metric does not fail the gate by itself (the gate judges the metric's mean), but it is a
case pulling the mean down, and the reports list it as failing. A metric with an own
threshold in the case is judged by that threshold only.

Against a baseline, a case *newly fails* a metric it met (own or gate threshold) in the
baseline, and *newly passes* one it missed there; the baseline side is recorded at
comparison time (:attr:`~.baseline.BaselineComparison.case_misses`), so a re-gated report
reaches the same words.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from ..golden.cases import is_missing_fields_reason
from ..model_defaults import empty_list
from ..scoring.results import CaseResult
from ..settings.bounds import Bound, Direction, own_bound

__all__ = [
    "CaseStatus",
    "CaseVerdict",
    "MetricMiss",
    "case_misses",
    "case_verdict",
    "case_verdicts",
    "own_threshold_misses",
]

#: ``failed``: it measurably misses a threshold of its own (whatever else errored);
#: ``errored``: the case or a metric of it errored; ``below``: it is below the gate's
#: threshold of a gated metric; else ``passed``.
CaseStatus = Literal["passed", "below", "failed", "errored"]


class MetricMiss(BaseModel):
    """One metric on the failing side of a threshold: the case's own, or the gate's."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    metric: str
    score: float
    threshold: float
    direction: Direction = "min"
    own: bool = False

    @computed_field  # type: ignore[prop-decorator]
    @property
    def shortfall(self) -> float:
        """How far the score is on the failing side of the threshold (positive)."""
        return abs(self.threshold - self.score)

    @property
    def relation(self) -> str:
        """``<`` for a missed minimum, ``>`` for an exceeded maximum."""
        return Bound(self.threshold, self.direction).broken

    @property
    def line(self) -> str:
        """``faithfulness 0.62 < 0.85`` (with `` (case min)`` for a case's own threshold).

        >>> MetricMiss(metric="faithfulness", score=0.62, threshold=0.8, own=True).line
        'faithfulness 0.62 < 0.80 (case min)'
        """
        text = f"{self.metric} {self.score:.2f} {self.relation} {self.threshold:.2f}"
        return text + (f" (case {self.direction})" if self.own else "")


class CaseVerdict(BaseModel):
    """What the gate decided about one case; the reports only read it."""

    model_config = ConfigDict(extra="forbid")

    id: str
    key: str
    source: str
    status: CaseStatus
    # The first line of the case's error, and the metric it came from (None: the whole case).
    error: str | None = None
    error_metric: str | None = None
    # Every threshold the case misses, worst (largest shortfall) first.
    misses: list[MetricMiss] = Field(default_factory=empty_list)
    # The case's own thresholds it misses or could not check, as verdict lines.
    own_misses: list[str] = Field(default_factory=empty_list)
    # Against the baseline: metrics this case misses now and met there, and the reverse.
    newly_failing: list[str] = Field(default_factory=empty_list)
    newly_passing: list[str] = Field(default_factory=empty_list)

    @property
    def failing(self) -> bool:
        """Whether the reports list the case as failing (errored, or any threshold missed)."""
        return self.status != "passed"

    @property
    def worst(self) -> MetricMiss | None:
        """The miss with the largest shortfall, or None."""
        return self.misses[0] if self.misses else None

    @property
    def rank(self) -> tuple[int, float, str, str]:
        """Where every report lists the case among failing ones: the worst first.

        Errored cases first, then those below their own thresholds, then the largest
        shortfall; cases at the same shortfall by their worst metric's name, then by key,
        so the Markdown summary, the pull-request comment and the annotations list ties
        alike.
        """
        worst = self.worst
        # Rounded: two shortfalls equal on paper must not part on a subtraction's last bits.
        shortfall = 0.0 if worst is None else round(worst.shortfall, 9)
        return (
            _RANKS.get(self.status, 3),
            -shortfall,
            "" if worst is None else worst.metric,
            self.key,
        )

    @property
    def gate_misses(self) -> list[MetricMiss]:
        """The misses of the gate's thresholds (not the case's own), worst first."""
        return [miss for miss in self.misses if not miss.own]

    @property
    def missed_metrics(self) -> list[str]:
        """The metrics this case misses a threshold of, worst first."""
        return [miss.metric for miss in self.misses]

    @property
    def why(self) -> str:
        """One line saying why the case fails: its error, own misses, else its worst miss."""
        if self.error is not None:
            return (
                f"error: {self.error}"
                if self.error_metric is None
                else (f"{self.error_metric} error: {self.error}")
            )
        if self.own_misses:
            return "; ".join(self.own_misses)
        return self.misses[0].line if self.misses else ""


#: The order of the case statuses among failing cases: errors, own misses, then the gate's.
_RANKS = {"errored": 0, "failed": 1, "below": 2}


def _first_line(message: str) -> str:
    lines = message.strip().splitlines()
    return lines[0] if lines else ""


def case_misses(result: CaseResult, bounds: Mapping[str, Bound]) -> list[MetricMiss]:
    """Every threshold ``result`` misses, worst first: its own where it has one, else the gate's.

    Args:
        result: A case result.
        bounds: The gate's thresholds of the metrics it gates.
    """
    found: list[MetricMiss] = []
    for metric, score in result.scores.items():
        if score is None or metric in result.errors:
            continue
        own = result.thresholds.get(metric)
        bound = own_bound(metric, own, bounds) if own is not None else bounds.get(metric)
        if bound is None or bound.met_by(score):
            continue
        found.append(
            MetricMiss(
                metric=metric,
                score=score,
                threshold=bound.value,
                direction=bound.direction,
                own=own is not None,
            )
        )
    found.sort(key=lambda miss: -miss.shortfall)
    return found


def own_threshold_misses(result: CaseResult, bounds: Mapping[str, Bound]) -> list[str]:
    """The case's own thresholds it misses, as verdict lines (``faithfulness 0.62 < 0.80``).

    A case threshold takes its metric's direction as the gate's ``bounds`` read it: a
    minimum, or a maximum for a lower-is-better metric such as ``contradiction_rate`` or a
    custom metric that declares ``lower_is_better``. A threshold on a metric the case lacks
    the fields for is not met either: it could not be checked.
    """
    return _own_lines(result, bounds, case_misses(result, bounds))


def _own_lines(
    result: CaseResult, bounds: Mapping[str, Bound], misses: Iterable[MetricMiss]
) -> list[str]:
    missed = {miss.metric: miss for miss in misses if miss.own}
    lines: list[str] = []
    for metric, value in result.thresholds.items():
        miss = missed.get(metric)
        if miss is not None:
            lines.append(miss.line)
            continue
        reason = result.reasons.get(metric, "")
        unscored = metric in result.scores and result.scores[metric] is None
        if unscored and is_missing_fields_reason(reason):
            direction = own_bound(metric, value, bounds).direction
            lines.append(f"{metric} n/a: {reason} (case {direction} {value:.2f} unchecked)")
    return lines


def case_verdict(
    result: CaseResult,
    bounds: Mapping[str, Bound],
    baseline_misses: Mapping[str, list[str]] | None = None,
    unpaired: Collection[str] = (),
    not_compared: Collection[str] = (),
) -> CaseVerdict:
    """The gate's verdict on one case.

    Args:
        result: The case result.
        bounds: The gate's thresholds of the metrics it gates.
        baseline_misses: Per paired case key, the metrics it missed in the baseline (a
            paired case absent from it missed none); None without a baseline.
        unpaired: The keys of the cases new to the baseline: nothing is newly failing or
            passing on them.
        not_compared: The metrics another judge scored in the baseline: nothing is newly
            failing or passing on them.
    """
    error: str | None = None
    error_metric: str | None = None
    if result.error is not None:
        error = _first_line(result.error)
    elif result.errors:
        # A gated metric's error is the one that matters to the verdict: it is named first.
        error_metric, message = min(
            result.errors.items(), key=lambda item: (item[0] not in bounds, item[0])
        )
        error = _first_line(message)
    misses = case_misses(result, bounds)
    own = _own_lines(result, bounds, misses)
    # A threshold of its own the case measurably missed is a failure whatever else errored:
    # the gate names it, so every report counts it as failed, not as errored only.
    status: CaseStatus = (
        "failed"
        if any(miss.own for miss in misses)
        else "errored"
        if result.errored
        else "failed"
        if own or any(miss.own for miss in misses)
        else "below"
        if misses
        else "passed"
    )
    newly_failing: list[str] = []
    newly_passing: list[str] = []
    if baseline_misses is not None and result.key not in unpaired:
        before = baseline_misses.get(result.key, [])
        now = {miss.metric for miss in misses}
        scored = {metric for metric, score in result.scores.items() if score is not None}
        newly_failing = [
            miss.metric
            for miss in misses
            if miss.metric not in before and miss.metric not in not_compared
        ]
        newly_passing = [
            metric
            for metric in before
            if metric in scored and metric not in now and metric not in not_compared
        ]
    return CaseVerdict(
        id=result.id,
        key=result.key,
        source=result.source,
        status=status,
        error=error,
        error_metric=error_metric,
        misses=misses,
        own_misses=own,
        newly_failing=newly_failing,
        newly_passing=newly_passing,
    )


def case_verdicts(
    results: Iterable[CaseResult],
    bounds: Mapping[str, Bound],
    baseline_misses: Mapping[str, list[str]] | None = None,
    unpaired: Collection[str] = (),
    not_compared: Collection[str] = (),
) -> list[CaseVerdict]:
    """:func:`case_verdict` of each result, in the order given."""
    new, left_out = frozenset(unpaired), frozenset(not_compared)
    return [case_verdict(result, bounds, baseline_misses, new, left_out) for result in results]
