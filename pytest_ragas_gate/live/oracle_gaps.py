"""What retrieval costs: each generation metric with the system's retriever and with gold contexts.

In ``live.oracle: both`` mode a case is answered twice, and its generation metrics
are scored on both answers (the oracle ones as ``oracle_<metric>``). The gap of a metric
is computed on the cases scored *both* ways only: a case scored on one side (its other
side errored, did not apply, or had no gold contexts) would compare different sets of
cases and report a gap where the answers on the common cases are identical.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..scoring.results import CaseResult, canonical_order
from ..settings.bounds import default_direction
from ..stats import mean
from .oracle_gap_figures import ORACLE_PREFIX, OracleGap, oracle_gap_lines

__all__ = ["ORACLE_PREFIX", "OracleGap", "oracle_gap_lines", "paired_oracle_gaps"]


def _number(result: CaseResult, metric: str) -> float | None:
    """A metric's score in a case, or None when n/a, errored or absent."""
    if result.error is not None or metric in result.errors:
        return None
    return result.scores.get(metric)


def paired_oracle_gaps(results: Sequence[CaseResult], metrics: Sequence[str]) -> list[OracleGap]:
    """Per generation metric with an oracle twin, its gap over the cases scored both ways.

    Args:
        results: Every case result of the run.
        metrics: The metrics that ran.

    Returns:
        One gap per metric scored both ways on at least one case, in ``metrics`` order.

    >>> from pytest_ragas_gate.scoring.results import CaseResult
    >>> cases = [
    ...     CaseResult(id="a", source="g.jsonl:1",
    ...                scores={"faithfulness": 0.5, "oracle_faithfulness": 1.0}),
    ...     CaseResult(id="b", source="g.jsonl:2",
    ...                scores={"faithfulness": 0.0, "oracle_faithfulness": None}),
    ... ]
    >>> paired_oracle_gaps(cases, ["faithfulness", "oracle_faithfulness"])
    [OracleGap(metric='faithfulness', retriever=0.5, oracle=1.0, gap=0.5, n=1)]
    """
    ordered = canonical_order(results)
    gaps: list[OracleGap] = []
    for metric in metrics:
        twin = ORACLE_PREFIX + metric
        if metric.startswith(ORACLE_PREFIX) or twin not in metrics:
            continue
        pairs = [
            (retrieved, oracle)
            for result in ordered
            if (retrieved := _number(result, metric)) is not None
            and (oracle := _number(result, twin)) is not None
        ]
        if not pairs:
            continue
        retriever_mean = mean([retrieved for retrieved, _ in pairs])
        oracle_mean = mean([oracle for _, oracle in pairs])
        # Where lower is better, retrieval costs an increase.
        cost = (
            retriever_mean - oracle_mean
            if default_direction(metric) == "max"
            else oracle_mean - retriever_mean
        )
        gaps.append(
            OracleGap(
                metric=metric,
                retriever=retriever_mean,
                oracle=oracle_mean,
                gap=round(cost, 12),
                n=len(pairs),
            )
        )
    return gaps
