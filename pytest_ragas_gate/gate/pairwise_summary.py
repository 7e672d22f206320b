"""The head-to-head figures a verdict carries (``pairwise: true``).

Apart from computing them (``pairwise``): every verdict has the field, empty without a
baseline to compare with.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..model_defaults import empty_list
from ..stats import format_interval

__all__ = ["PairwiseLoss", "PairwiseSummary"]


class PairwiseLoss(BaseModel):
    """One case whose new answer lost to the baseline's, as the reports show it."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    case: str
    question: str
    new_answer: str
    baseline_answer: str
    reasons: list[str] = Field(default_factory=empty_list)


class PairwiseSummary(BaseModel):
    """Win, loss, tie and undecided rates of the new answers against the baseline's.

    A comparison is *decided* when both positions gave the same judgement (an unchanged
    answer is a tie decided without a call); the win, loss and tie rates are shares of the
    decided cases, the undecided rate a share of the compared ones.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    compared: int
    changed: int
    wins: int
    losses: int
    # Both positions said neither answer is better (or the answer did not change).
    ties: int
    # Kept for the readers of earlier reports, where it counted the ties of a flip: the
    # same count as ``undecided``.
    position_ties: int
    win_rate: float | None
    loss_rate: float | None
    tie_rate: float | None
    win_ci: tuple[float, float] | None = None
    loss_ci: tuple[float, float] | None = None
    tie_ci: tuple[float, float] | None = None
    # The judgement changed when the answers swapped places: the judge decided nothing.
    undecided: int = 0
    decided: int = 0
    undecided_rate: float | None = None
    undecided_ci: tuple[float, float] | None = None
    # Share of the changed cases judged alike in both positions; None with none changed.
    position_consistency: float | None = None
    # ``pairwise_min_consistency``; None in reports written before the rule.
    min_consistency: float | None = None
    min_cases: int = 1
    # Why the loss-rate rule checked nothing (too few compared or decided cases, a judge
    # below ``pairwise_min_consistency``); None when it was evaluated.
    not_evaluated_reason: str | None = None
    # Changed cases the judge could not compare (each named with its error).
    errors: dict[str, str] = Field(default_factory=dict)
    # Judgements asked (two per changed case), and what they cost.
    comparisons: int = 0
    calls: int = 0
    cache_hits: int = 0
    confidence: float = 0.95
    max_loss_rate: float | None = None
    # The rule the loss rate is decided by: ``ci_lower`` (strict) gates the interval's upper
    # bound, the others the rate itself.
    rule: str = "mean"
    min_paired: int = 1
    worst_losses: list[PairwiseLoss] = Field(default_factory=empty_list)

    @model_validator(mode="before")
    @classmethod
    def _earlier_report(cls, data: Any) -> Any:
        # Before ``undecided``, a flip was counted among the ties (as ``position_ties``).
        if isinstance(data, dict) and "undecided" not in data and "position_ties" in data:
            flips = int(data["position_ties"])
            return {
                **data,
                "ties": int(data.get("ties", 0)) - flips,
                "undecided": flips,
                "decided": int(data.get("compared", 0)) - flips,
            }
        return data

    @property
    def evaluated(self) -> bool:
        """Whether the loss rate rests on enough decided comparisons to have checked anything."""
        return self.not_evaluated_reason is None and self.compared >= max(1, self.min_paired)

    @property
    def passed(self) -> bool | None:
        """False above the maximum loss rate or with a case not compared; None: no rule."""
        if self.errors:
            return False
        if self.max_loss_rate is None or self.loss_rate is None or not self.evaluated:
            return None
        if self.rule == "ci_lower" and self.loss_ci is not None:
            return self.loss_ci[1] <= self.max_loss_rate + 1e-9
        return self.loss_rate <= self.max_loss_rate + 1e-9

    @property
    def thin_evidence(self) -> bool:
        """Passed on the rate while its interval's upper bound exceeds the maximum."""
        return (
            self.passed is True
            and self.max_loss_rate is not None
            and self.loss_ci is not None
            and self.loss_ci[1] > self.max_loss_rate + 1e-9
        )

    def _consistency(self) -> str:
        if self.position_consistency is None:
            return ""
        floor = (
            ""
            if self.min_consistency is None
            else f" (pairwise_min_consistency {self.min_consistency:.0%})"
        )
        return f"; judge position-consistency {self.position_consistency:.0%}{floor}"

    def line(self) -> str:
        """``pairwise: the new answers lose to the baseline's on 9 of 40 …``, with its costs."""
        if not self.compared:
            return "pairwise: no case compared with the baseline"

        def rate(value: float | None, ci: tuple[float, float] | None, label: str = "") -> str:
            shown = "n/a" if value is None else f"{value:.0%}"
            if ci is None:
                return shown
            return f"{shown}, {label}CI {format_interval(*ci, 0, percent=True)}"

        percent = f"{round(self.confidence * 100)}% "
        return (
            f"pairwise: the new answers lose to the baseline's on {self.losses} of "
            f"{self.decided} decided case(s) ({rate(self.loss_rate, self.loss_ci, percent)}), "
            f"win on {self.wins} ({rate(self.win_rate, self.win_ci)}), tie on {self.ties} "
            f"({rate(self.tie_rate, self.tie_ci)}), undecided on {self.undecided} "
            f"({rate(self.undecided_rate, self.undecided_ci)}: the judgement changed with the "
            f"position); {self.compared} compared, {self.changed} changed{self._consistency()}; "
            f"{self.comparisons} comparison(s), at most 2 per changed case: {self.calls} judge "
            f"call(s), {self.cache_hits} cache hit(s)"
        )

    def short(self) -> str:
        """The loss rate alone: ``10 of 30 decided case(s) (33%, 95% CI 17–50%)``."""
        interval = (
            ""
            if self.loss_ci is None
            else f", {round(self.confidence * 100)}% CI "
            + format_interval(*self.loss_ci, 0, percent=True)
        )
        shown = "n/a" if self.loss_rate is None else f"{self.loss_rate:.0%}"
        return f"{self.losses} of {self.decided} decided case(s) ({shown}{interval})"
