"""A run its judge could not decide: errors that are the judge's, told apart from the rest.

A judge that did not answer (an outage, a reply still invalid after the re-asks, a spent
``max_calls`` / ``max_cost`` budget, a replay miss) says nothing about the system under
test. When such errors are all that keeps a run from passing, the gate's verdict is
``error`` — "Judge unavailable, no deploy decision" — so a pipeline can retry instead of
reading a quality failure. Any other error (a malformed case, a failing live target, a
metric's own bug, an interruption) is the system's or the golden set's, and a run with
one stays ``failed``.

>>> from pytest_ragas_gate.scoring.results import CaseResult
>>> outage = CaseResult(id="a", source="g.jsonl:1", errors={"faithfulness": "HTTP 503"},
...                     judge_errors=["faithfulness"])
>>> broken = CaseResult(id="b", source="g.jsonl:2", error="field 'question': missing")
>>> only_judge_errors([outage]), only_judge_errors([outage, broken])
(True, False)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Literal

from ..scoring.results import CaseResult
from .checks import GateCheck

__all__ = [
    "JUDGE_UNAVAILABLE",
    "ErrorCause",
    "error_cause",
    "judge_errored",
    "judge_undecided",
    "only_judge_errors",
    "outage_cause",
    "outage_remedy",
]

#: Why a case errored, as the reports name it: a miss of a read-only judge cache, a spent
#: budget, a request that timed out, or any other error.
ErrorCause = Literal["cache miss", "budget", "timeout", "error"]

#: How the recommendation of an ``error`` verdict opens, in every report.
JUDGE_UNAVAILABLE = "Judge unavailable, no deploy decision"


def judge_errored(result: CaseResult) -> bool:
    """Whether the case errored, and only because its judge gave no usable answer."""
    if result.error is not None:
        # A whole-case error is the judge's only when the budget stopped the case.
        return result.budget_spent
    return bool(result.errors) and set(result.errors) <= set(result.judge_errors)


def only_judge_errors(results: Sequence[CaseResult]) -> bool:
    """Whether some case errored and every errored case errored because of its judge."""
    errored = [result for result in results if result.errored]
    return bool(errored) and all(judge_errored(result) for result in errored)


def judge_undecided(checks: Sequence[GateCheck], results: Sequence[CaseResult]) -> bool:
    """Whether every failing check is the judge's not answering: the verdict ``error``.

    The errored cases must all be the judge's, and each failing check one the judge's
    silence alone explains (the error rate, or a metric or tag minimum left without enough
    scored cases by those errors). A metric measured below its threshold is a quality
    failure, and then the run is ``failed`` whatever else the judge did.
    """
    failing = [check for check in checks if check.passed is False]
    return (
        bool(failing)
        and only_judge_errors(results)
        and all(check.judge_unavailable for check in failing)
    )


def error_cause(result: CaseResult) -> ErrorCause | None:
    """Why ``result`` errored, None when it did not.

    >>> from pytest_ragas_gate.scoring.results import CaseResult
    >>> error_cause(CaseResult(id="a", source="g.jsonl:1",
    ...     errors={"faithfulness": "cache miss in read mode for claims (judge openai)"}))
    'cache miss'
    """
    if not result.errored:
        return None
    if result.budget_spent:
        return "budget"
    texts = [result.error or "", *result.errors.values()]
    for needle, cause in _CAUSE_WORDS:
        if any(re.search(needle, text) for text in texts):
            return cause
    return "error"


#: Words of the judge's own error messages that name each cause, first match wins. A
#: timeout is "timed out" or a word "timeout": every retryable failure's advice names the
#: setting ``judge.timeout_s``, which says nothing of what happened.
_CAUSE_WORDS: tuple[tuple[str, ErrorCause], ...] = (
    ("cache miss in read mode", "cache miss"),
    ("failed verification", "cache miss"),
    ("budget is spent", "budget"),
    ("timed out", "timeout"),
    (r"\btimeout\b(?!_s)", "timeout"),
)


def outage_cause(results: Sequence[CaseResult]) -> ErrorCause | None:
    """The cause shared by most of the errored cases of a run, None when none errored."""
    causes = Counter(cause for result in results if (cause := error_cause(result)) is not None)
    return causes.most_common(1)[0][0] if causes else None


def outage_remedy(cause: ErrorCause | None, *, cached: bool = True) -> str:
    """What makes an ``error`` run of this cause decidable; a rerun alone is not always it.

    ``cached`` says whether the run kept the judge's replies (cache mode not ``off``): only
    then does a rerun replay what was already received.
    """
    if cause == "cache miss":
        return (
            "the read-only judge cache lacks these replies, so running again cannot pass: "
            "refresh the cache on the default branch (a run with cache.mode readwrite and a "
            "judge key), or run this one with --rag-gate-set cache.mode=readwrite"
        )
    if cause == "budget":
        return (
            "the judge budget was spent before every case was scored: raise max_cost (or "
            "max_calls), or replay a recorded cache"
        )
    if not cached:
        return "run the gate again once the judge answers"
    return (
        "run the gate again once the judge answers (replies already received are replayed "
        "from the cache)"
    )
