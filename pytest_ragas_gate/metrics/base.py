"""The metric protocol shared by built-in and third-party metrics, and their result.

Every metric is registered through :mod:`pytest_ragas_gate.metrics.registry`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, get_args, runtime_checkable

from ..golden.cases import GoldenCase, missing_fields_reason
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


#: The pipeline stage a metric measures: what to fix when it fails, and whether gold
#: contexts (``live.oracle``) make it perfect by construction (``retrieval``) or
#: leave it a measure of the generator (``generation``). ``tool call`` is an agent's
#: choice of tools and arguments, made before it retrieves.
Stage = Literal["retrieval", "generation", "end-to-end", "tool call"]
STAGES: tuple[Stage, ...] = get_args(Stage)

#: The hint of a metric that declares none.
GENERIC_HINT = (
    "Open the JSON report and read the lowest-scoring cases' per-item verdicts and reasons "
    "to find the failing stage."
)


@runtime_checkable
class Metric(Protocol):
    """A metric: its name, the case fields it needs, its default threshold, and a scorer.

    ``score`` asks the judge for per-item verdicts and computes the number itself; it
    raises (``JudgeError`` or anything else) to make that case's metric an error.

    ``lower_is_better``, ``stage`` and ``hint`` have defaults: a metric that subclasses
    ``Metric`` inherits them and declares only those that differ. A metric that follows
    the protocol without subclassing it may leave them out, so they are read through
    :meth:`MetricFacts.of`, never one by one.
    """

    name: str
    required_fields: tuple[str, ...]
    default_threshold: float | None
    lower_is_better: bool = False
    stage: Stage = "end-to-end"
    hint: str = GENERIC_HINT
    #: The judge request kinds ``score`` may ask; None when not declared (a metric
    #: written before this fact existed), which the scheduler reads as "any kind".
    judge_requests: tuple[str, ...] | None = None

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case."""
        ...


@dataclass(frozen=True)
class MetricFacts:
    """What the gate and the reports know of a metric besides its scores.

    Attributes:
        name: The metric's name.
        required_fields: The case fields it needs.
        default_threshold: Its threshold unless one is configured.
        lower_is_better: Whether its threshold is a maximum (``contradiction_rate``).
        stage: The pipeline stage it measures.
        hint: One line on what to change when it fails the gate.
        judge_requests: The judge request kinds it may ask (None: not declared). The
            scheduler pairs two metrics' requests that would send the same contexts.
    """

    name: str
    required_fields: tuple[str, ...]
    default_threshold: float | None
    lower_is_better: bool
    stage: Stage
    hint: str
    judge_requests: tuple[str, ...] | None = None

    @classmethod
    def of(cls, metric: Any) -> MetricFacts:
        """The facts ``metric`` (an instance or a class) declares, defaults for the rest.

        Only the name, required fields, default threshold and scorer are checked when a
        metric registers; a custom metric written before the other facts existed has
        none of them, so they are looked up here, once, rather than at each use.

        >>> from pytest_ragas_gate.metrics.faithfulness import ContradictionRate
        >>> facts = MetricFacts.of(ContradictionRate)
        >>> facts.lower_is_better, facts.direction, facts.stage
        (True, 'max', 'generation')
        """
        return cls(
            name=metric.name,
            required_fields=tuple(metric.required_fields),
            default_threshold=metric.default_threshold,
            lower_is_better=bool(getattr(metric, "lower_is_better", Metric.lower_is_better)),
            stage=getattr(metric, "stage", Metric.stage),
            hint=str(getattr(metric, "hint", Metric.hint)),
            judge_requests=_declared_requests(metric),
        )

    @property
    def direction(self) -> Literal["min", "max"]:
        """``max`` when the metric's threshold is a maximum, else ``min``."""
        return "max" if self.lower_is_better else "min"


def _declared_requests(metric: Any) -> tuple[str, ...] | None:
    declared = getattr(metric, "judge_requests", None)
    return None if declared is None else tuple(str(kind) for kind in declared)


def missing_fields(metric: Metric, case: GoldenCase, *, scoring: bool = False) -> list[str]:
    """The metric's required fields that ``case`` lacks; empty when the metric applies.

    A metric may also name fields read out of the case's text (``citations`` in the
    answer) through an ``absent_fields(case)`` method; it is asked only when the declared
    fields are all there. With ``scoring`` (the metric was chosen for the case: selected
    or gated), the fields in its ``scored_when_absent`` do not count: the metric scores
    their absence itself (``citation_recall`` scores an uncited answer 0).
    """
    missing = [field for field in metric.required_fields if not case.has(field)]
    absent_fields = getattr(metric, "absent_fields", None)
    if not missing and callable(absent_fields):
        missing.extend(absent_fields(case))
    if scoring:
        scored = getattr(metric, "scored_when_absent", ())
        missing = [field for field in missing if field not in scored]
    return missing
