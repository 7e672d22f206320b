"""Whether two runs' scores of a metric came from the same judge, and the line that says not.

A delta between two runs scored by different judges, models or prompt versions measures the
judge as much as the system: the baseline's regression and newly-failing checks of such a
metric are not evaluated unless ``baseline.allow_judge_change`` is set, and a history row or
a shard judged differently is named.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..judges.base import NO_JUDGE, JudgeInfo, MetricJudge

__all__ = ["judge_changes", "judged_differently", "judged_line"]


def judged_differently(before: MetricJudge, now: MetricJudge) -> bool:
    """Whether ``before`` and ``now`` could score the same answer differently.

    A metric computed without a judge now is comparable with anything: a report written
    before the per-metric record says the run's judge for every metric, this one included.
    An empty prompt version is a report written before versions were kept: unknown, not
    different.

    >>> a = MetricJudge(kind="anthropic", model="m", prompt_version="6")
    >>> judged_differently(a, a.model_copy(update={"prompt_version": "7"}))
    True
    >>> judged_differently(a, a.model_copy(update={"prompt_version": ""}))
    False
    """
    if now.kind == NO_JUDGE:
        return False
    if before.kind != now.kind or before.model != now.model:
        return True
    return bool(before.prompt_version and now.prompt_version) and (
        before.prompt_version != now.prompt_version
    )


def judged_line(subject: str, before: MetricJudge, now: MetricJudge) -> str:
    """``baseline judged by claude-x prompt v6, this run v7`` (only what changed, for this run).

    >>> old = MetricJudge(kind="anthropic", model="claude-x", prompt_version="6")
    >>> judged_line("baseline", old, old.model_copy(update={"prompt_version": "7"}))
    'baseline judged by claude-x prompt v6, this run v7'
    >>> judged_line("baseline", old, MetricJudge(kind="offline", model="heuristic-v1"))
    'baseline judged by claude-x prompt v6, this run by the offline heuristic (heuristic-v1)'
    """
    if (before.kind, before.model) == (now.kind, now.model) and now.prompt_version:
        return f"{subject} judged by {before.describe()}, this run v{now.prompt_version}"
    return f"{subject} judged by {before.describe()}, this run by {now.describe()}"


def judge_changes(
    before: JudgeInfo, now: JudgeInfo, metrics: Iterable[str], *, subject: str = "baseline"
) -> dict[str, str]:
    """Per metric of ``metrics`` judged differently in ``before`` than ``now``, the line saying so.

    Args:
        before: The judge of the earlier run (the baseline, a shard, a history row).
        now: The judge of this run.
        metrics: The metrics compared.
        subject: How the lines name the earlier run.
    """
    found: dict[str, str] = {}
    for metric in metrics:
        old, new = before.of_metric(metric), now.of_metric(metric)
        if judged_differently(old, new):
            found[metric] = judged_line(subject, old, new)
    return found
