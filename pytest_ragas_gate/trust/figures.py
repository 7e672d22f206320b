"""The trust figures a verdict carries: judge-human agreement and the PPI estimate.

Apart from their statistics (``agreement``, ``ppi``), which only a run with labels or
agreement floors computes; every verdict has the fields, most of them empty.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Figure", "MetricAgreement", "PowerTunedEstimate", "PpiEstimate"]


class Figure(BaseModel):
    """One agreement statistic and its bootstrap interval; None where undefined."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None

    def text(self, digits: int = 2) -> str:
        """``0.82 [0.71–0.90]``, or ``n/a`` when undefined."""
        if self.value is None:
            return "n/a"
        shown = f"{self.value:.{digits}f}"
        if self.ci_low is None or self.ci_high is None:
            return shown
        return f"{shown} [{self.ci_low:.{digits}f}–{self.ci_high:.{digits}f}]"


class MetricAgreement(BaseModel):
    """Agreement of one metric's judge scores with human labels, and its floors.

    ``passed`` is None when the metric has no floor: agreement is reported, not gated.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    metric: str
    n: int
    binary: bool = False
    threshold: float | None = None
    judge_mean: float | None = None
    human_mean: float | None = None
    bias: Figure = Field(default_factory=lambda: Figure(value=None))
    mae: Figure = Field(default_factory=lambda: Figure(value=None))
    spearman: Figure = Field(default_factory=lambda: Figure(value=None))
    auroc: Figure | None = None
    accuracy: Figure | None = None
    kappa: Figure | None = None
    floors: dict[str, float] = Field(default_factory=dict)
    passed: bool | None = None
    message: str = ""

    def statistic(self, name: str) -> Figure | None:
        """The figure of a floor's statistic (``auroc``, ``kappa`` …), None if not measured."""
        figure = getattr(self, name, None)
        return figure if isinstance(figure, Figure) else None


class PowerTunedEstimate(BaseModel):
    """The PPI++ figure: the classical estimator with the judge weighed by ``lam``."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    lam: float
    estimate: float
    ci_low: float
    ci_high: float
    standard_error: float


class PpiEstimate(BaseModel):
    """The prediction-powered estimate of a metric's mean on the human scale.

    Attributes:
        labelled: n, the cases with both a judge score and a human label.
        unlabelled: N, the cases with a judge score and no label.
        estimate: The classical PPI estimate of the human-scale mean.
        ci_low: The lower bound of its normal-approximation interval, at least 0.
        ci_high: The upper bound, at most 1.
        standard_error: The estimate's standard error (the interval's half-width over z).
        judge_mean: The judge's mean over the unlabelled cases (over the labelled ones
            when every case is labelled).
        rectifier: The judge's mean error (judge − human) over the labelled cases.
        human_mean: The labels' own mean, the human-only estimate.
        power_tuned: The PPI++ figure, when asked for.
        left_out: Labelled cases left out of the estimate because they were picked for
            labelling near the threshold (``sampled_by: near_threshold``), not at random:
            PPI is valid for a random sample only. Their judge scores count as unlabelled.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    labelled: int
    unlabelled: int
    estimate: float
    ci_low: float
    ci_high: float
    standard_error: float
    judge_mean: float
    rectifier: float
    human_mean: float
    power_tuned: PowerTunedEstimate | None = None
    left_out: int = 0
