"""The retriever–generator alignment signal: the ignored-top-ranked rate.

``top_doc_usage`` scores 1.0 when an answer draws on the top-ranked chunk; one minus its
mean is the share of cases whose generator ignored what the retriever ranked first.
Above :data:`IGNORED_TOP_RANKED_ALARM` the two disagree about what is relevant. The alarm
is reported, not gated: gate on ``top_doc_usage`` with a threshold like any metric.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["IGNORED_TOP_RANKED_ALARM", "IgnoredTopRanked", "ignored_top_ranked"]

#: A retriever whose top-ranked document is ignored this often is misaligned (the README's
#: "Retriever–generator alignment" alarm).
IGNORED_TOP_RANKED_ALARM = 0.30


class IgnoredTopRanked(BaseModel):
    """The ignored-top-ranked rate over the scored cases, and whether it sounds the alarm."""

    model_config = ConfigDict(extra="forbid")

    rate: float
    n: int
    alarm_above: float
    alarm: bool
    message: str


def ignored_top_ranked(top_doc_usage_mean: float | None, n: int) -> IgnoredTopRanked | None:
    """The rate from ``top_doc_usage``'s mean over ``n`` scored cases (None when unscored).

    Args:
        top_doc_usage_mean: The metric's mean, or None when no case was scored.
        n: The number of scored cases.

    Returns:
        The rate and alarm, or None.

    >>> ignored_top_ranked(0.6, 10).message
    'ignored top-ranked document: 40% of cases (alarm above 30%) — ALARM: retriever and generator disagree'
    >>> ignored_top_ranked(0.9, 10).alarm
    False
    """  # noqa: E501
    if top_doc_usage_mean is None:
        return None
    rate = 1.0 - top_doc_usage_mean
    alarm = rate > IGNORED_TOP_RANKED_ALARM
    suffix = " — ALARM: retriever and generator disagree" if alarm else ""
    return IgnoredTopRanked(
        rate=rate,
        n=n,
        alarm_above=IGNORED_TOP_RANKED_ALARM,
        alarm=alarm,
        message=(
            f"ignored top-ranked document: {rate:.0%} of cases "
            f"(alarm above {IGNORED_TOP_RANKED_ALARM:.0%}){suffix}"
        ),
    )
