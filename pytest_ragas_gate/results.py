"""What scoring produces per case; the unit that reports, re-gating and merging share."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .usage import Usage

#: Judge usage as stored in reports: the judges' own :class:`~pytest_ragas_gate.usage.Usage`,
#: under the name reports and earlier releases import.
UsageRecord = Usage


class CaseResult(BaseModel):
    """One case's scores, per-item verdicts, errors and usage.

    ``scores`` holds a number per scored metric and None per not-applicable one; a metric
    that errored is absent from ``scores`` and present in ``errors``. ``error`` is set when
    the whole case failed (malformed case, target exception, budget stop) — then no metric
    was scored and every selected metric counts it as an error. ``incomplete`` marks a case
    the run stopped short of (budget spent, interrupted), which makes the report incomplete.
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    source: str
    tags: list[str] = Field(default_factory=list)
    question: str = ""
    answer: str | None = None
    contexts: list[str] | None = None
    thresholds: dict[str, float] = Field(default_factory=dict)
    metrics: list[str] = Field(default_factory=list)
    scores: dict[str, float | None] = Field(default_factory=dict)
    reasons: dict[str, str] = Field(default_factory=dict)
    details: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    errors: dict[str, str] = Field(default_factory=dict)
    error: str | None = None
    incomplete: bool = False
    usage: dict[str, UsageRecord] = Field(default_factory=dict)
    latency_s: float | None = None
    scoring_s: float = 0.0

    @property
    def errored(self) -> bool:
        """Whether the case or any of its metrics errored."""
        return self.error is not None or bool(self.errors)

    def case_threshold_failures(self) -> list[str]:
        """The case's own minimums it misses, as verdict lines (``faithfulness 0.62 < 0.80``)."""
        failures = []
        for metric, minimum in self.thresholds.items():
            score = self.scores.get(metric)
            if score is not None and score < minimum:
                failures.append(f"{metric} {score:.2f} < {minimum:.2f} (case min)")
        return failures
