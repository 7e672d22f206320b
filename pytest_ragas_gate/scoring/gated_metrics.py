"""Which metrics a run gates, and which metrics each case is scored on.

A metric is *gated* when it is selected for the run (``metrics:``, or every registered
metric when that is null) and has a threshold in force or a decision rule of its own.
A gated metric is scored on every case, also on one that lacks its fields (then it is
not applicable, with the missing fields as the reason), so the gate can see how many
cases it was computed on and fail closed under ``min_cases``. Metrics without a threshold
run only on the cases that have their fields: they are reported, not gated.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from ..golden.cases import GoldenCase
from ..metrics.base import Metric
from ..metrics.registry import applicable_metrics
from ..settings.bounds import Bound
from ..settings.config import GateConfig
from .results import CaseResult

__all__ = [
    "gated_metric_names",
    "metrics_for_case",
    "metrics_to_gate",
    "not_applicable_reasons",
    "thresholds_in_force",
    "too_few_cases",
]


def thresholds_in_force(config: GateConfig, metrics: Collection[str]) -> dict[str, Bound]:
    """The thresholds that can gate this run: those of selected, registered metrics.

    >>> config = GateConfig(metrics=["answer_correctness"])
    >>> thresholds_in_force(config, ["faithfulness", "answer_correctness"])
    {}
    >>> sorted(thresholds_in_force(GateConfig(), ["faithfulness", "mrr"]))
    ['faithfulness']
    """
    selected = config.metrics
    return {
        metric: bound
        for metric, bound in config.bounds().items()
        if metric in metrics and (selected is None or metric in selected)
    }


def gated_metric_names(config: GateConfig, metrics: Sequence[str]) -> list[str]:
    """The selected metrics with a threshold in force or a rule of their own, in ``metrics`` order.

    >>> gated_metric_names(GateConfig(thresholds={"faithfulness": None},
    ...                               rules={"mrr": "ci_lower"}), ["faithfulness", "mrr"])
    ['mrr']
    """
    bounds = thresholds_in_force(config, metrics)
    selected = config.metrics
    return [
        name
        for name in metrics
        if (selected is None or name in selected) and (name in bounds or name in config.rules)
    ]


def metrics_for_case(
    case: GoldenCase,
    metrics: Mapping[str, Metric],
    config: GateConfig,
    *,
    gated: Collection[str] | None = None,
) -> list[str]:
    """The metrics ``case`` is scored on, in registry order.

    The selected metrics when ``metrics:`` names them; otherwise every metric whose fields
    the case has, plus every gated metric and every metric of the case's own thresholds
    (which then record why they are not applicable). ``gated`` is
    :func:`gated_metric_names`, when the caller worked it out once for all its cases.
    """
    if config.metrics is not None:
        return list(config.metrics)
    if gated is None:
        gated = gated_metric_names(config, list(metrics))
    wanted = set(applicable_metrics(case, metrics)) | set(gated)
    # A case's own thresholds gate it too: their metrics say why when they cannot run.
    wanted |= set(case.thresholds)
    return [name for name in metrics if name in wanted]


def metrics_to_gate(
    config: GateConfig, metrics: Sequence[str], scored: Collection[str]
) -> list[str]:
    """The metrics the gate aggregates: the selected ones, or those scored plus the gated ones.

    A gated metric no case was scored on still gets its row (n = 0), and fails.
    """
    if config.metrics is not None:
        return list(config.metrics)
    gated = set(gated_metric_names(config, metrics))
    return [name for name in metrics if name in scored or name in gated]


def not_applicable_reasons(results: Sequence[CaseResult], metric: str) -> str:
    """Why ``metric`` was not applicable, most frequent reason first: ``2 no contexts``.

    Empty when no case gave a reason.

    >>> from pytest_ragas_gate.scoring.results import CaseResult
    >>> lacking = CaseResult(id="a", source="g.jsonl:1", scores={"faithfulness": None},
    ...                      reasons={"faithfulness": "no contexts"})
    >>> not_applicable_reasons([lacking, lacking], "faithfulness")
    '2 no contexts'
    """
    counts: dict[str, int] = {}
    for result in results:
        reason = result.reasons.get(metric)
        if metric in result.scores and result.scores[metric] is None and reason:
            counts[reason] = counts.get(reason, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: -item[1])
    return "; ".join(f"{count} {reason}" for reason, count in ranked)


def too_few_cases(metric: str, scored: int, min_cases: int, reasons: str) -> str:
    """The verdict line of a gated metric computed on fewer than ``min_cases`` cases.

    >>> print(too_few_cases("context_recall", 2, 5, "3 no reference"))
    context_recall was computed on 2 case(s), fewer than min_cases 5 (not applicable: 3 no reference); too few to gate on: give the cases the fields it needs, lower min_cases, or set its threshold to null
    """  # noqa: E501
    why = f" (not applicable: {reasons})" if reasons else ""
    return (
        f"{metric} was computed on {scored} case(s), fewer than min_cases {min_cases}{why}; "
        "too few to gate on: give the cases the fields it needs, lower min_cases, or set "
        "its threshold to null"
    )
