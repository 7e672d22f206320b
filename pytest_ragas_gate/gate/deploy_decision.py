"""Whether a passing run is a deploy decision: only an LLM judge's scores make one.

The offline heuristic judge is a smoke test. A run it scored may pass every check, and the
gate still says ``passed`` (pytest exits 0), but its recommendation reads
:data:`SMOKE_CHECK` instead of "Safe to deploy", and ``deploy_decision`` is false. A run is
a deploy decision when it passed, every gated metric that asks a judge was scored by an
LLM judge, and no case errored on a gated metric (errors ``max_error_rate`` allows still
leave cases unjudged); a metric computed without a judge (``tool_correctness``, ``max_steps``) rests
on no judge and counts for neither side. Which judge scored which metric is a run fact
(:attr:`~.run_facts.RunFacts.scored_by`), saved in the report, so a re-gate decides the
same; a metric whose judge is not recorded is no deploy decision either.

>>> scored = {"faithfulness": "offline", "tool_correctness": None}
>>> judged_by_heuristic(["faithfulness", "tool_correctness"], scored)
['faithfulness']
>>> passed_recommendation(["faithfulness"], ["faithfulness"], [])
'Smoke check passed — scored by the offline heuristic, not a deploy decision'
>>> passed_recommendation([], ["faithfulness"], [])
'Safe to deploy'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..metrics.base import MetricFacts
from ..metrics.registry import BUILTIN_FACTS, RESERVED_PREFIX

__all__ = [
    "HEURISTIC_JUDGES",
    "SAFE_TO_DEPLOY",
    "SMOKE_CHECK",
    "judged_by_heuristic",
    "passed_recommendation",
    "scored_by",
    "unchecked_recommendation",
    "unrecorded_judges",
]

#: Judge kinds whose scores are heuristics, not an LLM's judgement.
HEURISTIC_JUDGES = frozenset({"offline"})

#: The recommendation of a run that passed on LLM-judged evidence.
SAFE_TO_DEPLOY = "Safe to deploy"

#: The recommendation of a run that passed on the offline heuristic's scores.
SMOKE_CHECK = "Smoke check passed — scored by the offline heuristic, not a deploy decision"


def scored_by(
    names: Iterable[str], judge_kind: str, metrics: Mapping[str, Any] | None = None
) -> dict[str, str | None]:
    """Per metric, the kind of judge that scored it: ``judge_kind``, or None without one.

    A metric that declares it asks no judge request is computed without a judge. Its
    declaration is read off ``metrics`` (the run's metric objects), else off the built-in
    metric of that name (an ``oracle_`` metric is its base metric run on other contexts);
    a metric not known either way asks the judge.

    >>> scored_by(["faithfulness", "oracle_faithfulness", "tool_correctness"], "offline")
    {'faithfulness': 'offline', 'oracle_faithfulness': 'offline', 'tool_correctness': None}
    """
    known = metrics or {}
    recorded: dict[str, str | None] = {}
    for name in names:
        if name in known:
            requests = MetricFacts.of(known[name]).judge_requests
        else:
            builtin = BUILTIN_FACTS.get(name) or BUILTIN_FACTS.get(
                name.removeprefix(RESERVED_PREFIX)
            )
            requests = None if builtin is None else builtin.judge_requests
        recorded[name] = None if requests == () else judge_kind
    return recorded


def judged_by_heuristic(gated: Sequence[str], scored_by: Mapping[str, str | None]) -> list[str]:
    """The gated metrics a heuristic judge scored, in the order given."""
    return [metric for metric in gated if scored_by.get(metric) in HEURISTIC_JUDGES]


def unrecorded_judges(gated: Sequence[str], scored_by: Mapping[str, str | None]) -> list[str]:
    """The gated metrics for which no judge (nor the absence of one) is recorded."""
    return [metric for metric in gated if metric not in scored_by]


def passed_recommendation(
    heuristic: Sequence[str],
    judged: Sequence[str],
    unrecorded: Sequence[str],
    *,
    errored: int = 0,
) -> str:
    """What a run that passed every check recommends.

    Args:
        heuristic: The gated metrics the offline heuristic scored.
        judged: The gated metrics a judge of any kind scored.
        unrecorded: The gated metrics whose judge is not recorded.
        errored: The cases that errored on a gated metric (allowed by max_error_rate):
            the judge did not score every gated case, so the pass decides no deploy.

    >>> passed_recommendation([], ["faithfulness"], [], errored=13).split(" — ")
    ['Passed with 13 case(s) errored on a gated metric, allowed by max_error_rate', \
'not a deploy decision']
    """
    if heuristic:
        if len(heuristic) == len(judged):
            return SMOKE_CHECK
        # Some metrics had an LLM judge, these did not: name them.
        return (
            f"Smoke check passed — {', '.join(heuristic)} scored by the offline heuristic, "
            "not a deploy decision"
        )
    if errored:
        return (
            f"Passed with {errored} case(s) errored on a gated metric, allowed by "
            "max_error_rate — "
            "not a deploy decision"
        )
    if unrecorded:
        return (
            "Passed, not a deploy decision — the judge that scored "
            f"{', '.join(unrecorded)} is not recorded; re-run the gate to record it"
        )
    return SAFE_TO_DEPLOY


def unchecked_recommendation(unchecked: Sequence[str]) -> str:
    """A passing run's recommendation when cases carry checks the gate cannot run.

    Each line is ``case-id: what was not checked``; the first few are named.

    >>> unchecked_recommendation(["pf-1: promptfoo assert[0] javascript: runs JavaScript code"])
    'Passed, not a deploy decision — 1 assert(s) not checked by the gate: \
pf-1: promptfoo assert[0] javascript: runs JavaScript code'
    """
    shown = "; ".join(unchecked[:5])
    more = f"; and {len(unchecked) - 5} more" if len(unchecked) > 5 else ""
    return (
        f"Passed, not a deploy decision — {len(unchecked)} assert(s) not checked by the gate: "
        f"{shown}{more}"
    )
