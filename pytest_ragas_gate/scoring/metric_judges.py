"""Who scored each metric of a run, recorded in its report beside the run's judge.

A baseline, a history row or a shard is comparable metric by metric only with the runs
whose judge scored that metric alike; a metric computed from the case alone (``mrr``, the
tool metrics) is comparable whatever judge the run had.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..judges.base import NO_JUDGE, JudgeInfo, MetricJudge
from ..metrics.base import Metric, MetricFacts
from ..metrics.registry import RESERVED_PREFIX

__all__ = ["with_metric_judges"]


def with_metric_judges(
    judge: JudgeInfo, metrics: Mapping[str, Metric], names: Iterable[str]
) -> JudgeInfo:
    """``judge`` with who scored each of ``names`` (an ``oracle_`` score as its metric).

    Args:
        judge: The run's judge.
        metrics: The run's metrics by name.
        names: The metric names the run's results hold.
    """
    run_judge = judge.run_judge
    recorded: dict[str, MetricJudge] = {}
    for name in names:
        metric = metrics.get(name)
        if metric is None and name.startswith(RESERVED_PREFIX):
            metric = metrics.get(name.removeprefix(RESERVED_PREFIX))
        # Declared without judge requests: its scores come from the case alone.
        if metric is not None and MetricFacts.of(metric).judge_requests == ():
            recorded[name] = MetricJudge(kind=NO_JUDGE)
        else:
            recorded[name] = run_judge
    return judge.model_copy(update={"metrics": recorded})
