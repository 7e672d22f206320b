"""Which cases the HTML page of a very large run shows, so it stays a page a browser opens.

Above ``html_max_cases`` cases (default :data:`HTML_MAX_CASES`) a page of every case
would weigh hundreds of megabytes. The page then holds the run's aggregates (from the
report's blocks, over every case) and at most :data:`PAGE_CASES` cases: the gated failures
first, the worst :data:`WORST_PER_METRIC` of each metric, then a seeded sample of the
rest (never more than ``html_max_cases``); it says so at its top. The JSON report
keeps every case.

>>> from pytest_ragas_gate.scoring.results import CaseResult
>>> results = [CaseResult(id=f"c{i}", source=f"g.jsonl:{i}", scores={"m": i / 10})
...            for i in range(10)]
>>> shown = chosen_cases(results, failing=set(), limit=4, worst=2, seed=0)
>>> sorted(key for key in shown if key in {("g.jsonl:0", "c0"), ("g.jsonl:1", "c1")})
[('g.jsonl:0', 'c0'), ('g.jsonl:1', 'c1')]
>>> len(shown)
4
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ..scoring.results import CaseResult

__all__ = [
    "HTML_MAX_CASES",
    "PAGE_CASES",
    "WORST_PER_METRIC",
    "PageCases",
    "chosen_cases",
    "page_cases",
]

#: Up to this many cases the page shows every one.
HTML_MAX_CASES = 20_000
#: How many cases a page of a larger run shows: a page of about 5 MB.
PAGE_CASES = 1_500
#: The lowest-scored cases of each metric the page always shows.
WORST_PER_METRIC = 20

#: A case as the page picks it: (source, id).
CaseRef = tuple[str, str]


@dataclass(frozen=True)
class PageCases:
    """The cases a page shows and the line that says which, when not all."""

    keys: frozenset[CaseRef]
    note: str


def chosen_cases(
    results: Sequence[CaseResult],
    *,
    failing: Collection[CaseRef],
    limit: int,
    worst: int = WORST_PER_METRIC,
    seed: int = 0,
) -> set[CaseRef]:
    """At most ``limit`` cases: the failures, each metric's ``worst``, then a seeded sample.

    Failures beyond the limit are taken in canonical order. The sample is drawn by
    ``random.Random(seed)`` over the rest in canonical order, so the same run always
    shows the same page.
    """
    ordered = sorted(results, key=lambda result: (result.source, result.id))
    chosen: dict[CaseRef, None] = {}
    for result in ordered:
        if len(chosen) >= limit:
            break
        if (result.source, result.id) in failing:
            chosen.setdefault((result.source, result.id), None)
    metrics = list(dict.fromkeys(metric for result in ordered for metric in result.scores))
    for metric in metrics:
        scored = [result for result in ordered if result.scores.get(metric) is not None]
        scored.sort(key=lambda result: result.scores[metric] or 0.0)
        for result in scored[:worst]:
            if len(chosen) >= limit:
                break
            chosen.setdefault((result.source, result.id), None)
    rest = [(r.source, r.id) for r in ordered if (r.source, r.id) not in chosen]
    room = max(0, limit - len(chosen))
    for key in random.Random(seed).sample(rest, min(room, len(rest))):
        chosen[key] = None
    return set(chosen)


def page_cases(
    results: Sequence[CaseResult], *, failing: Collection[CaseRef], max_cases: int
) -> PageCases | None:
    """The cases of a page of a run above ``max_cases`` cases; None to show every case."""
    if len(results) <= max_cases:
        return None
    keys = chosen_cases(results, failing=failing, limit=min(PAGE_CASES, max_cases))
    shown_failing = sum(1 for key in keys if key in failing)
    note = (
        f"This page shows {len(keys):,} of the run's {len(results):,} cases (more than "
        f"{max_cases:,}): {shown_failing:,} of its {len(failing):,} gated failures, the "
        f"{WORST_PER_METRIC} lowest-scored cases of each metric and a seeded sample of the "
        "rest. The metric figures cover every case; the counts and the case table, the "
        "cases shown. The JSON report holds every case."
    )
    return PageCases(keys=frozenset(keys), note=note)
