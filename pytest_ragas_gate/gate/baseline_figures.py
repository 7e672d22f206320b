"""The shapes of a comparison with a baseline, apart from the code that makes one.

Every verdict carries a ``baseline`` field, set or not, so these load on every run; the
comparison itself (:mod:`.baseline`) loads only for a run given a baseline.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..model_defaults import empty_list
from ..settings.bounds import Direction

__all__ = ["BaselineComparison", "CaseDelta", "MetricDelta"]


class MetricDelta(BaseModel):
    """One metric, new run against baseline, over the cases scored in both."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    metric: str
    n_paired: int
    base_mean: float | None
    new_mean: float | None
    delta: float | None
    ci_low: float | None
    ci_high: float | None
    regressed: bool
    gated: bool = True
    message: str
    # With repeated judgements: the half-width of the band a change of the mean stays in
    # from the judge's own noise alone (at the run's confidence); a drop inside it is noise.
    judge_noise: float | None = None
    # Whether the metric passed this run's threshold in the baseline, over its paired cases
    # (None: not gated, not compared, or a report written before this was recorded).
    base_passed: bool | None = None
    # The baseline scored this metric with another judge, model or prompt version:
    # ``baseline judged by claude-x prompt v6, this run v7`` (None: judged alike).
    judge_change: str | None = None
    # False when that change keeps the metric from being compared (regression and newly
    # failing not evaluated): baseline.allow_judge_change was not set.
    compared: bool = True
    # Why a gated metric had no case scored in both runs (its regression and newly failing
    # checks not evaluated): this run's judge gave no usable answer, or the baseline's.
    unscored: str | None = None


class BaselineComparison(BaseModel):
    """The comparison of a run with its baseline, as stored under ``baseline`` in reports."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    path: str
    max_regression: float
    confidence: float
    paired_cases: int
    paired_by_id_only: int
    new_cases: list[str] = Field(default_factory=empty_list)
    removed_cases: list[str] = Field(default_factory=empty_list)
    metrics: dict[str, MetricDelta] = Field(default_factory=dict)
    regressed_metrics: list[str] = Field(default_factory=empty_list)
    min_paired: int = 1
    # How the baseline was scored differently (judge, model, prompt version, metrics).
    warnings: list[str] = Field(default_factory=empty_list)
    # Per paired case (by this run's key) that missed any, the metrics it missed a
    # threshold of in the baseline, under this run's thresholds: what a case's "newly
    # failing" is measured against (None: a report written before this was recorded).
    case_misses: dict[str, list[str]] | None = None
    # The baseline's ids that name another question (or reference) here: not paired.
    reused_ids: list[str] = Field(default_factory=empty_list)
    # Pairs matched by id alone because the baseline saved no question.
    unverified_pairs: int = 0
    # Whether a metric judged differently in the baseline is compared all the same.
    allow_judge_change: bool = False
    # Set by a re-gate whose settings allow a judge change the stored comparison did not:
    # only comparing again (``--baseline``) can apply it. Not written to reports.
    allow_pending: bool = Field(default=False, exclude=True)

    @property
    def evaluated(self) -> bool:
        """Whether enough cases were paired for the comparison to have checked anything."""
        return self.paired_cases >= self.min_paired

    @property
    def not_compared_metrics(self) -> list[str]:
        """The metrics whose regression and newly failing checks a judge change left out."""
        return [metric for metric, delta in self.metrics.items() if not delta.compared]

    @property
    def not_evaluated_reasons(self) -> list[str]:
        """Why each part of the baseline check says nothing; empty when all was evaluated."""
        if not self.evaluated:
            cases = "case" if self.paired_cases == 1 else "cases"
            return [
                f"baseline check not evaluated: {self.paired_cases} {cases} paired with the "
                f"baseline (min_paired {self.min_paired}); check that {self.path} is a report "
                "of the same golden set"
            ]
        by_change: dict[str, list[str]] = {}
        for metric, delta in self.metrics.items():
            # A metric only reported decides nothing, compared or not.
            if not delta.compared and delta.gated and delta.judge_change is not None:
                by_change.setdefault(delta.judge_change, []).append(metric)
        advice = (
            "pass --baseline to compare again with baseline.allow_judge_change"
            if self.allow_pending
            else "set baseline.allow_judge_change: true to compare anyway"
        )
        return [
            f"baseline regression check not evaluated for {', '.join(metrics)}: {change}; "
            f"a change of judge is not a change of the system ({advice})"
            for change, metrics in by_change.items()
        ] + [f"baseline regression {reason}" for reason in self._unscored_reasons()]

    def _unscored_reasons(self) -> list[str]:
        """One ``check not evaluated for …: cause`` per cause of gated metrics left unscored."""
        by_cause: dict[str, list[str]] = {}
        for metric, delta in self.metrics.items():
            if delta.compared and delta.gated and delta.unscored is not None:
                by_cause.setdefault(delta.unscored, []).append(metric)
        return [
            f"check not evaluated for {', '.join(metrics)}: {cause}"
            for cause, metrics in by_cause.items()
        ]

    @property
    def not_evaluated_reason(self) -> str | None:
        """The first of :attr:`not_evaluated_reasons`, or None when all was evaluated."""
        reasons = self.not_evaluated_reasons
        return reasons[0] if reasons else None

    @property
    def passed(self) -> bool:
        """Whether the comparison was evaluated throughout and no metric regressed."""
        return self.evaluated and not self.regressed_metrics and not self.not_evaluated_reasons

    def summary_line(self) -> str:
        """One line for the terminal and the Markdown summary."""
        if self.regressed_metrics:
            verdict = f"{len(self.regressed_metrics)} metric(s) regressed: " + ", ".join(
                self.regressed_metrics
            )
        elif not self.evaluated:
            verdict = "baseline check not evaluated"
        elif unscored := self._unscored_reasons():
            verdict = "; ".join(unscored)
        elif any(d.compared and d.gated for d in self.metrics.values()):
            verdict = "no regression"
        else:
            # Nothing was compared: "no regression" would claim a comparison never made.
            verdict = "no metric compared"
        unjudged = [m for m, d in self.metrics.items() if not d.compared and d.gated]
        if self.evaluated and unjudged:
            verdict += f"; not compared (judged differently): {', '.join(unjudged)}"
        return (
            f"baseline {self.path}: {self.paired_cases} paired, {len(self.new_cases)} new, "
            f"{len(self.removed_cases)} removed case(s); {verdict}"
        )


class CaseDelta(BaseModel):
    """One paired case's change on one metric."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    case: str
    metric: str
    base: float
    new: float
    # Each repeat's score, when the run judged the case more than once (else empty).
    base_repeats: list[float] = Field(default_factory=empty_list)
    new_repeats: list[float] = Field(default_factory=empty_list)

    @property
    def delta(self) -> float:
        """New minus baseline."""
        return self.new - self.base

    def worsening(self, direction: Direction) -> float:
        """How far the case moved to the worse side: down for a minimum, up for a maximum."""
        return -self.delta if direction == "min" else self.delta
