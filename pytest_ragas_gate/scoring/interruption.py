"""Runs that stop early: a spent budget, or Ctrl-C while the cases are being scored.

Nothing is lost. The cases scored before the stop keep their results; every other selected
case becomes an explicit error, marked ``incomplete``, so the JSON report still lists every
case of the golden files, says ``"incomplete": true``, and the gate fails closed. The judge
requests that were answered before the stop are in the cache, so a re-run judges only what
is missing.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping, Sequence

from ..golden.cases import GoldenCase
from .results import CaseResult

INTERRUPTED_MESSAGE = (
    "Scoring was interrupted before this case was scored; run the gate again to score it "
    "(judge replies received before the interruption are replayed from the cache)."
)


def worker_crashed(worker_id: str) -> str:
    """The error of a case whose xdist worker died before its result was reported."""
    return (
        f"worker crashed: the xdist worker {worker_id} that scored this case died (killed, "
        "or out of memory) before reporting its result; run the gate again to score it "
        "(judge replies it received are replayed from the cache)."
    )


def unscored(case: GoldenCase, message: str) -> CaseResult:
    """The result of a case the run stopped short of: an error, marked incomplete."""
    return CaseResult.of_case(case, error=message, incomplete=True)


def fill_unscored(
    cases: Sequence[GoldenCase],
    results: MutableMapping[str, CaseResult],
    message: str = INTERRUPTED_MESSAGE,
) -> None:
    """Give every case without a result an ``unscored`` one, in place."""
    for case in cases:
        results.setdefault(case.key, unscored(case, message))


def is_incomplete(results: Iterable[CaseResult]) -> bool:
    """Whether the run stopped short of any case (the report's ``incomplete`` flag)."""
    return any(result.incomplete for result in results)
