"""What to fix: each case's failure put down to tool calls, retriever, generator or ranking.

A per-metric table says *that* quality dropped; a team needs to know *which component*
to fix. Each scored case gets one diagnosis from the metrics already computed:

- ``tool call``: an agent called a wrong tool, missed one, or called too many before it
  retrieved — ``tool_selection``, ``tool_correctness``, ``tool_order`` or ``max_steps``
  below 1 (or below its threshold), or ``tool_call_precision`` below its threshold where
  one is set; it comes ahead of retrieval and generation, whose failures a wrong call
  upstream explains;
- ``retrieval``: the facts the answer needs were not retrieved — ``context_recall`` or
  ``id_recall`` below its threshold;
- ``generation``: retrieval was fine but the answer is not — ``faithfulness`` or
  ``answer_relevancy`` below its threshold, or ``contradiction_rate`` above its maximum;
- ``both``: retrieval and generation checks both fail;
- ``ranking``: recall and generation are fine, but the needed chunk ranked low or the
  top-ranked one was ignored — ``context_precision`` or ``mrr`` below its threshold, or
  ``top_doc_usage`` 0 (the answer did not use the top-ranked chunk);
- ``ok``: every check that could be made passed.

Each check uses the case's own threshold, else the gate's, else a fallback: the built-in
defaults (recall 0.80, faithfulness 0.85, relevancy 0.75, precision 0.70), recall's for
``id_recall``, and 0.5 for ``mrr`` (the first relevant chunk below rank 2). A case that
errored, or has none of these metrics, is not diagnosed. The run's dominant component is
the one to fix first: the tool calls when their failures are at least as many as either
other kind, else the retriever when retrieval (with ``both``) failures are at least as
many as generation ones, since a generator cannot be judged on missing facts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..model_defaults import empty_list
from ..scoring.results import CaseResult
from ..settings.bounds import Bound, own_bound
from ..settings.config import DEFAULT_THRESHOLDS
from .case_verdicts import MetricMiss, case_misses
from .hints import hint_for

__all__ = [
    "COMPONENTS",
    "Component",
    "Diagnosis",
    "DiagnosisSummary",
    "diagnose",
    "summarise_diagnoses",
]

Component = Literal["tool call", "retrieval", "generation", "both", "ranking", "ok"]

#: Display order of the components.
COMPONENTS: tuple[Component, ...] = (
    "tool call",
    "retrieval",
    "generation",
    "both",
    "ranking",
    "ok",
)

#: Components every table shows; ``tool call`` only in a run that has such failures.
_ALWAYS_SHOWN = frozenset(COMPONENTS) - {"tool call"}

_TOOL_CALL = (
    "tool_selection",
    "tool_correctness",
    "tool_order",
    "max_steps",
    "tool_call_precision",
)
_RETRIEVAL = ("context_recall", "id_recall")
_GENERATION = ("faithfulness", "answer_relevancy", "contradiction_rate")
_RANKING = ("context_precision", "mrr")

_FALLBACK: dict[str, float] = {
    **DEFAULT_THRESHOLDS,
    "id_recall": DEFAULT_THRESHOLDS["context_recall"],
    "mrr": 0.5,
    # Deterministic checks of the agent's calls: any miss is a wrong or missing call.
    "tool_selection": 1.0,
    "tool_correctness": 1.0,
    "tool_order": 1.0,
    "max_steps": 1.0,
}

#: What to fix first, by dominant component, and the metric whose hint says how.
_ADVICE: dict[str, tuple[str, str]] = {
    "tool call": ("fix the tool calls first", "tool_correctness"),
    "retrieval": ("fix the retriever first", "context_recall"),
    "generation": ("fix the generator first", "faithfulness"),
    "ranking": ("fix the ranking first", "context_precision"),
}


class Diagnosis(BaseModel):
    """One case's component verdict and the checks that decided it."""

    model_config = ConfigDict(extra="forbid")

    component: Component
    reasons: list[str] = Field(default_factory=empty_list)


class DiagnosisSummary(BaseModel):
    """Diagnoses counted over the run, with the component to fix first."""

    model_config = ConfigDict(extra="forbid")

    counts: dict[str, int]
    diagnosed: int
    dominant: Literal["tool call", "retrieval", "generation", "ranking"] | None
    advice: str
    hint: str

    @property
    def components(self) -> tuple[Component, ...]:
        """The components a table shows: ``tool call`` only when some case failed there."""
        return tuple(name for name in COMPONENTS if name in self.counts)

    @property
    def failures(self) -> str:
        """``7 retrieval failures, 2 generation failures``, empty when none.

        >>> summarise_diagnoses([Diagnosis(component="retrieval")]).failures
        '1 retrieval failure'
        """
        parts = []
        for component in COMPONENTS[:-1]:
            count = self.counts.get(component, 0)
            if count:
                noun = "failure" if count == 1 else "failures"
                label = "retrieval+generation" if component == "both" else component
                parts.append(f"{count} {label} {noun}")
        return ", ".join(parts)


def _with_fallbacks(bounds: Mapping[str, Bound]) -> dict[str, Bound]:
    """The gate's thresholds, and a fallback for each diagnosed metric it does not gate."""
    # Each fallback in its metric's direction, as the gate's bounds read it.
    fallbacks = {metric: own_bound(metric, value, bounds) for metric, value in _FALLBACK.items()}
    return {**fallbacks, **bounds}


def _misses(
    metrics: Iterable[str],
    result: CaseResult,
    misses: Mapping[str, MetricMiss],
    bounds: Mapping[str, Bound],
) -> tuple[list[str], bool]:
    """The failed checks among ``metrics``, and whether any check could be made.

    A check is made where the metric has a score and a threshold: the case's own, else
    ``bounds`` (the gate's, with the fallbacks).
    """
    failed: list[str] = []
    checked = False
    for metric in metrics:
        if result.scores.get(metric) is None:
            continue
        if metric not in result.thresholds and metric not in bounds:
            continue
        checked = True
        miss = misses.get(metric)
        if miss is not None:
            failed.append(f"{metric} {miss.score:.2f} {miss.relation} {miss.threshold:.2f}")
    return failed, checked


def diagnose(result: CaseResult, bounds: Mapping[str, Bound]) -> Diagnosis | None:
    """The component a case's scores point at; None when it cannot be told.

    Args:
        result: A case result.
        bounds: The gate's thresholds (``GateConfig.bounds()``).

    >>> case = CaseResult(id="c", source="g.jsonl:1", question="q",
    ...                   scores={"context_recall": 0.5, "faithfulness": 1.0})
    >>> diagnose(case, {}).component, diagnose(case, {}).reasons
    ('retrieval', ['context_recall 0.50 < 0.80'])
    """
    if result.errored:
        return None
    # The case's misses as the gate decides them, with a fallback threshold for each
    # diagnosed metric the gate does not gate.
    effective = _with_fallbacks(bounds)
    misses = {miss.metric: miss for miss in case_misses(result, effective)}
    tool, tool_checked = _misses(_TOOL_CALL, result, misses, effective)
    retrieval, retrieval_checked = _misses(_RETRIEVAL, result, misses, effective)
    generation, generation_checked = _misses(_GENERATION, result, misses, effective)
    ranking, ranking_checked = _misses(_RANKING, result, misses, effective)
    top = result.scores.get("top_doc_usage")
    if top is not None:
        ranking_checked = True
        if top == 0.0:
            ranking.append("top-ranked chunk not used by the answer")
    if not (tool_checked or retrieval_checked or generation_checked or ranking_checked):
        return None
    if tool:
        return Diagnosis(component="tool call", reasons=tool + retrieval + generation)
    if retrieval and generation:
        return Diagnosis(component="both", reasons=retrieval + generation)
    if retrieval:
        return Diagnosis(component="retrieval", reasons=retrieval)
    if generation:
        return Diagnosis(component="generation", reasons=generation)
    if ranking:
        return Diagnosis(component="ranking", reasons=ranking)
    return Diagnosis(component="ok")


def summarise_diagnoses(diagnoses: Iterable[Diagnosis | None]) -> DiagnosisSummary:
    """Count the diagnoses and name the component to fix first.

    >>> found = [Diagnosis(component=c) for c in ("retrieval", "both", "generation", "ok")]
    >>> summary = summarise_diagnoses(found)
    >>> summary.failures
    '1 retrieval failure, 1 generation failure, 1 retrieval+generation failure'
    >>> summary.advice
    'fix the retriever first'
    """
    counter = Counter(diagnosis.component for diagnosis in diagnoses if diagnosis is not None)
    # ``tool call`` is counted only in a run that has such failures, so the counts of a
    # run without tools read as they always have.
    counts: dict[str, int] = {
        component: counter.get(component, 0)
        for component in COMPONENTS
        if component in _ALWAYS_SHOWN or counter.get(component, 0)
    }
    tools = counts.get("tool call", 0)
    retriever = counts["retrieval"] + counts["both"]
    generator = counts["generation"] + counts["both"]
    dominant: Literal["tool call", "retrieval", "generation", "ranking"] | None
    if tools and tools >= max(retriever, generator):
        dominant = "tool call"
    elif retriever and retriever >= generator:
        dominant = "retrieval"
    elif generator:
        dominant = "generation"
    elif counts["ranking"]:
        dominant = "ranking"
    else:
        dominant = None
    advice, metric = _ADVICE.get(dominant or "", ("", ""))
    return DiagnosisSummary(
        counts=counts,
        diagnosed=sum(counts.values()),
        dominant=dominant,
        advice=advice,
        hint=hint_for(metric) if metric else "",
    )
