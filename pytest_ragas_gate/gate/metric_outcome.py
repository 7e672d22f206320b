"""What each metric's figures mean, decided once: a :class:`MetricOutcome` per metric.

Every report shows a metric's status, its value beside its threshold, whether it is newly
failing since the baseline and what to do about it. Those words are decided here, from
the metric's aggregate and the gate's checks, and the reports only print them: a renderer
that painted a metric red, called it newly failing or rounded its mean on its own would
be a second verdict, and on the paths the tests do not walk it would disagree with the
first.

``status`` is one of

- ``passed`` — gated and its rule is met;
- ``failed`` — gated and measured on the failing side (``failures`` says how: below its
  threshold, too small a coverage, cases below their own thresholds on it, or a blocking
  case check such as ``max_steps``);
- ``not_judged`` — gated, but the judge gave no usable answer for it (an outage, a spent
  budget): there is no score to judge, so no quality word is true of it;
- ``not_evaluated`` — gated, but the gate could not decide it (too few cases, or a check
  about it that evaluated nothing); ``reason`` says why;
- ``report_only`` — no threshold: reported, never gated.

>>> shown_value(0.7472, 0.75, "min")
('0.747', '0.75')
>>> shown_value(0.8, 0.75, "min")
('0.80', '0.75')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..model_defaults import empty_list
from ..settings.bounds import Direction, threshold_text
from .aggregates import MetricAggregate
from .baseline_figures import BaselineComparison
from .checks import GateCheck
from .hints import hint_for

__all__ = [
    "FailureKind",
    "MetricOutcome",
    "MetricStatus",
    "STATUS_LABELS",
    "STATUS_MARKS",
    "STATUS_WORDS",
    "metric_outcome",
    "shown_value",
]

MetricStatus = Literal["passed", "failed", "not_judged", "not_evaluated", "report_only"]

#: Why a failed metric failed, in the order the outcome lists them.
FailureKind = Literal["below_threshold", "coverage", "own_case_misses", "blocking_check"]

#: Each status in words, as every report prints it.
STATUS_LABELS: dict[MetricStatus, str] = {
    "passed": "pass",
    "failed": "fail",
    "not_judged": "not judged",
    "not_evaluated": "not evaluated",
    "report_only": "reported",
}

#: What to do about a metric the judge could not score: never a quality hint.
NOT_JUDGED_REMEDY = (
    "retry once the judge answers, and check the judge (key, endpoint, rate limits, budget): "
    "this says nothing about the system's quality"
)

#: Each status as a table cell, with its one mark: the same in every Markdown report.
STATUS_MARKS: dict[MetricStatus, str] = {
    "passed": "✅ pass",
    "failed": "❌ fail",
    "not_judged": "⚪ not judged",
    "not_evaluated": "⚪ not evaluated",
    "report_only": "reported",
}

#: Each status as one word of a plain-text table (the terminal, pytest-html).
STATUS_WORDS: dict[MetricStatus, str] = {
    "passed": "PASS",
    "failed": "FAIL",
    "not_judged": "NOT-JUDGED",
    "not_evaluated": "NOT-EVALUATED",
    "report_only": "report",
}

_TONES: dict[MetricStatus, str] = {
    "passed": "pass",
    "failed": "fail",
    "not_judged": "undecided",
    "not_evaluated": "undecided",
    "report_only": "report",
}

_MAX_DIGITS = 6


def _rounded(value: float, digits: int) -> float:
    return float(f"{value:.{digits}f}")


def shown_value(
    value: float, threshold: float, direction: Direction, digits: int = 2
) -> tuple[str, str]:
    """``value`` and ``threshold`` as text that compares the way the numbers do.

    Two decimals, and as many more for the value as it takes for a value on the failing
    side never to print as meeting its threshold (``0.747 < 0.75``, not ``0.75 ≥ 0.75``),
    nor a met threshold as missed.
    """
    limit = threshold_text(threshold)
    bound = float(limit)
    met = value >= threshold if direction == "min" else value <= threshold
    for places in range(digits, _MAX_DIGITS + 1):
        shown = _rounded(value, places)
        shown_met = shown >= bound if direction == "min" else shown <= bound
        if shown_met == met and (met or shown != bound):
            return f"{value:.{places}f}", limit
    return f"{value:.{_MAX_DIGITS}f}", limit


class MetricOutcome(BaseModel):
    """What the gate decided about one metric; every report prints it as it is."""

    model_config = ConfigDict(extra="forbid")

    metric: str
    status: MetricStatus
    # Whether the metric could keep the run from passing: a threshold, a case's own
    # threshold on it, or a blocking case check (``max_steps``).
    gated: bool
    # Why a failed metric failed, first cause first (empty unless ``failed``).
    failures: list[FailureKind] = Field(default_factory=empty_list)
    # Why a metric is not judged or not evaluated: the gate's own line.
    reason: str | None = None
    # The verdict line of the metric's check, as the failure list quotes it.
    message: str
    # What to do about it: a quality hint only for a metric measured failing.
    remedy: str | None = None
    direction: Direction = "min"
    threshold: float | None = None
    # The mean and threshold as printed: digits enough that they compare as the numbers do.
    value_text: str = "—"
    threshold_text: str = "—"
    # The same mean with three places at least, for the plain-text tables (terminal,
    # pytest-html), ``-`` when nothing was scored.
    table_text: str = "-"
    # ``≥``/``≤`` when the mean meets the threshold, ``<``/``>`` when it does not.
    relation: str | None = None
    # Against a baseline: the paired baseline mean, whether the drop is a regression the
    # verdict counts (gated metrics only), newly failing (both runs judged), and how the
    # baseline was scored differently (deltas then mix judge changes with system changes).
    baseline_mean: float | None = None
    baseline_text: str | None = None
    regressed: bool = False
    # A drop the paired test finds material, gated or not (only a gated one regresses).
    dropped: bool = False
    newly_failing: bool = False
    baseline_warning: str | None = None
    # The cases the metric was computed over, with their unit (conversations count once).
    n: int = 0
    unit: str = "cases"

    @classmethod
    def from_saved(cls, metric: str, aggregate: Mapping[str, Any]) -> MetricOutcome:
        """The outcome a JSON report saved with the metric.

        A report written before outcomes were saved has the one its ``passed`` and
        ``newly_failing`` fields imply.
        """
        saved = aggregate.get("outcome")
        if isinstance(saved, Mapping):
            return cls.model_validate({**saved, "metric": metric})
        passed = aggregate.get("passed")
        return cls(
            metric=metric,
            status="passed" if passed is True else "failed" if passed is False else "report_only",
            gated=aggregate.get("threshold") is not None,
            message=str(aggregate.get("message") or ""),
            newly_failing=aggregate.get("newly_failing") is True,
        )

    @property
    def label(self) -> str:
        """The status in words: ``pass``, ``fail``, ``not judged`` and so on."""
        return STATUS_LABELS[self.status]

    @property
    def tone(self) -> str:
        """How a page colours it: ``pass``, ``fail``, ``undecided`` (no score) or ``report``."""
        return _TONES[self.status]

    @property
    def word(self) -> str:
        """The status as one word of a plain-text table: ``PASS``, ``NOT-JUDGED`` and so on."""
        return STATUS_WORDS[self.status]

    @property
    def mark(self) -> str:
        """The status as a table cell: ``✅ pass``, ``❌ fail``, ``⚪ not judged`` and so on."""
        return STATUS_MARKS[self.status]

    @property
    def failing(self) -> bool:
        """Whether the metric keeps the run from passing as a quality failure."""
        return self.status == "failed"

    @property
    def comparison(self) -> str:
        """``0.747 < 0.75``; the value alone when not gated; ``—`` when nothing was scored."""
        if self.relation is None:
            return self.value_text
        return f"{self.value_text} {self.relation} {self.threshold_text}"


def _checks_of(checks: Sequence[GateCheck], metric: str) -> list[GateCheck]:
    return [check for check in checks if (check.subject or check.name) == metric]


def metric_outcome(
    aggregate: MetricAggregate,
    checks: Sequence[GateCheck],
    *,
    own_missed: Mapping[str, int],
    baseline: BaselineComparison | None,
    run_error: bool,
    outage_remedy: str | None,
    conversations: bool = False,
) -> MetricOutcome:
    """The outcome of one metric, from its aggregate and the gate's checks about it.

    Args:
        aggregate: The metric's aggregate (with its baseline facts).
        checks: Every check of the gate.
        own_missed: Per metric, how many cases miss a threshold of their own on it.
        baseline: The baseline comparison, if any.
        run_error: Whether the run's verdict is ``error`` (the judge could not decide it).
        outage_remedy: What makes an outage run decidable, for a metric not judged.
        conversations: Whether the run's cases are conversations (counted once each).
    """
    metric = aggregate.metric
    mine = _checks_of(checks, metric)
    own = own_missed.get(metric, 0)
    blocking = metric in _BLOCKING
    gated = aggregate.threshold is not None or own > 0
    metric_checks = [check for check in mine if check.name == metric]
    check = metric_checks[0] if metric_checks else None
    unevaluated = [c for c in mine if c.kind == "not_evaluated"]
    failures: list[FailureKind] = []
    reason: str | None = None
    status: MetricStatus
    unjudged = check is not None and check.passed is False and check.judge_unavailable
    if unjudged or (run_error and aggregate.errors and (aggregate.threshold is not None or own)):
        status = "not_judged"
        reason = (
            f"the judge gave no usable answer for {aggregate.errors} of {aggregate.cases} "
            f"case(s), so {metric} has {'no score' if aggregate.n == 0 else 'too few scores'} "
            "to judge"
        )
    else:
        if check is not None and check.passed is False:
            # Scored on too few of its cases (min_cases, min_coverage): it fails closed.
            undecided = check.kind in ("min_cases", "min_coverage")
            failures.append("coverage" if undecided else "below_threshold")
            if undecided:
                reason = check.message
        if own:
            failures.append("blocking_check" if blocking else "own_case_misses")
        if failures:
            status = "failed"
        elif unevaluated and gated:
            status, reason = "not_evaluated", "; ".join(c.message for c in unevaluated)
        elif gated:
            status = "passed"
        else:
            status = "report_only"
    delta = None if baseline is None else baseline.metrics.get(metric)
    regressed = (
        baseline is not None
        and metric in baseline.regressed_metrics
        and status not in ("not_judged", "report_only")
    )
    if regressed and status == "passed":
        status = "failed"
    judged = status not in ("not_judged", "not_evaluated")
    value_text, limit_text, table_text, relation = "—", "—", "-", None
    if aggregate.threshold is not None:
        # Kept when nothing was scored: a metric not judged still has the threshold it missed.
        limit_text = threshold_text(aggregate.threshold)
    if aggregate.mean is not None:
        table_text = f"{aggregate.mean:.3f}"
        if aggregate.threshold is not None:
            value_text, limit_text = shown_value(
                aggregate.mean, aggregate.threshold, aggregate.direction
            )
            table_text = shown_value(
                aggregate.mean, aggregate.threshold, aggregate.direction, digits=3
            )[0]
            met = (
                aggregate.mean >= aggregate.threshold
                if aggregate.direction == "min"
                else aggregate.mean <= aggregate.threshold
            )
            relation = (
                ("≥" if met else "<") if aggregate.direction == "min" else ("≤" if met else ">")
            )
        else:
            value_text = f"{aggregate.mean:.2f}"
    remedy: str | None = None
    if status == "not_judged":
        remedy = outage_remedy or NOT_JUDGED_REMEDY
    elif status == "not_evaluated":
        remedy = reason
    elif status == "failed":
        remedy = next((c.hint for c in mine if c.passed is False and c.hint), None)
        if remedy is None and "below_threshold" in failures:
            remedy = hint_for(metric)
        if remedy is None and "coverage" in failures:
            remedy = (
                "give the cases the fields it needs, lower min_coverage, or set its "
                "threshold to null"
            )
    warning = (
        "; ".join(baseline.warnings)
        if baseline is not None and baseline.warnings and delta is not None
        else None
    )
    return MetricOutcome(
        metric=metric,
        status=status,
        gated=gated,
        failures=failures,
        reason=reason,
        message=aggregate.message if check is None else check.message,
        remedy=remedy,
        direction=aggregate.direction,
        threshold=aggregate.threshold,
        value_text=value_text,
        threshold_text=limit_text,
        table_text=table_text,
        relation=relation,
        baseline_mean=None if delta is None else delta.base_mean,
        baseline_text=None
        if delta is None or delta.base_mean is None
        else f"{delta.base_mean:.2f}",
        regressed=regressed and gated,
        dropped=delta is not None and delta.regressed,
        newly_failing=aggregate.newly_failing and judged and status == "failed",
        baseline_warning=warning,
        n=aggregate.n,
        unit="conversations" if conversations else "cases",
    )


#: Metrics whose case-level check blocks a run by itself (a step budget is a hard limit).
_BLOCKING = frozenset({"max_steps"})
