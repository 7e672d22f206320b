"""Repeated judgements of one case: one score from K, and how alike the K verdicts were.

With ``repeats: K`` every metric of a case is scored K times, each time on its own judge
replies (separate requests, separate cache entries). The case's score is the mean over the
repeats that scored it; the repeats' scores and the agreement of their per-item verdicts
ride on the case result, so the judge's noise is measured from saved reports alone
(:mod:`pytest_ragas_gate.gate.judge_noise`).

An item verdict is one entry of a metric's details (a claim with its verdict, a chunk with
its relevance, a reference statement with its attribution, a rating) without the judge's
free-text explanation. Two repeats agree on an item when both hold the identical entry;
entries are matched as multisets, so a repeat that extracted other claims disagrees on
them rather than shifting every later comparison.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..metrics.base import MetricResult
from ..stats import mean

__all__ = ["AutoRepeat", "ItemAgreement", "combine_repeats", "item_agreement"]

#: Detail fields that explain a verdict in words: two repeats that reach the same verdict
#: for another reason still agree.
_EXPLANATIONS = frozenset({"reason", "traceback"})


class ItemAgreement(BaseModel):
    """Of a case's item verdicts for one metric, how many every repeat gave alike.

    ``items`` is the largest number of items a single repeat judged; ``identical`` how
    many of them every repeat holds, verdict included.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    identical: int = Field(ge=0)
    items: int = Field(ge=0)


class AutoRepeat(BaseModel):
    """Why ``repeats: auto`` judged a case again, and the judge calls that took."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    reason: str
    extra_calls: int = Field(default=0, ge=0)


def _verdict_of(detail: dict[str, Any]) -> str:
    kept = {key: value for key, value in detail.items() if key not in _EXPLANATIONS}
    return json.dumps(kept, sort_keys=True, default=str, ensure_ascii=False)


def item_agreement(repeats: Sequence[Sequence[dict[str, Any]]]) -> ItemAgreement:
    """How many item verdicts all ``repeats`` (each a metric's details) hold alike.

    >>> supported = {"claim": "a", "verdict": "supported", "reason": "in chunk 1"}
    >>> unsupported = {"claim": "a", "verdict": "not_in_context", "reason": "absent"}
    >>> other = {"claim": "b", "verdict": "supported", "reason": "x"}
    >>> item_agreement([[supported, other], [{**supported, "reason": "so"}, other]])
    ItemAgreement(identical=2, items=2)
    >>> item_agreement([[supported, other], [unsupported, other], [supported, other]])
    ItemAgreement(identical=1, items=2)
    """
    counted = [Counter(_verdict_of(detail) for detail in details) for details in repeats]
    if not counted:
        return ItemAgreement(identical=0, items=0)
    common = counted[0]
    for other in counted[1:]:
        common = common & other
    return ItemAgreement(
        identical=sum(common.values()), items=max(sum(count.values()) for count in counted)
    )


def combine_repeats(results: Sequence[MetricResult]) -> MetricResult:
    """One case's result from the results of its repeats (at least one).

    The score is the mean over the repeats that scored the case; when none did, the case
    is not applicable for the first repeat's reason. The details and reason shown are the
    first scored repeat's, with the repeats' scores added to the reason.

    >>> combined = combine_repeats([MetricResult(0.5, reason="1 of 2"), MetricResult(1.0)])
    >>> combined.score, combined.reason
    (0.75, '1 of 2; mean of 2 repeats: 0.50, 1.00')
    """
    scored = [result for result in results if result.score is not None]
    if not scored:
        return results[0]
    shown = scored[0]
    scores = ", ".join(
        "n/a" if result.score is None else f"{result.score:.2f}" for result in results
    )
    summary = f"mean of {len(results)} repeats: {scores}"
    return MetricResult(
        score=mean([result.score for result in scored if result.score is not None]),
        details=list(shown.details),
        reason=f"{shown.reason}; {summary}" if shown.reason else summary,
    )
