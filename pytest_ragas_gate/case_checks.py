"""Checks of golden input that need the run's context, which the loaders do not have.

A per-case threshold names a metric; a misspelt name would otherwise be ignored without a
word and the case would never be held to it. Such a case becomes a problem of its file
(an errored item naming the file, line and field) and the other cases still run.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from .loading import CaseProblem, LoadedFile

if TYPE_CHECKING:
    from .gate import GateVerdict


def check_threshold_metrics(loaded: LoadedFile, known: Collection[str]) -> LoadedFile:
    """Move the cases whose ``thresholds`` name an unknown metric to the file's problems.

    >>> from pytest_ragas_gate.cases import GoldenCase
    >>> case = GoldenCase(id="a", question="Q?", thresholds={"faithfulnes": 0.8},
    ...                   file="golden.jsonl", line=3)
    >>> checked = check_threshold_metrics(LoadedFile("golden.jsonl", [case], []),
    ...                                   ["faithfulness"])
    >>> print(checked.problems[0].message)
    golden.jsonl:3: field 'thresholds': unknown metric 'faithfulnes'; did you mean 'faithfulness'?
    """
    cases = []
    problems = list(loaded.problems)
    for case in loaded.cases:
        unknown = [metric for metric in case.thresholds if metric not in known]
        if not unknown:
            cases.append(case)
            continue
        message = "; ".join(_unknown_metric(metric, known) for metric in unknown)
        problems.append(
            CaseProblem(
                loaded.path,
                case.line,
                case.id,
                f"{loaded.path}:{case.line}: field 'thresholds': {message}",
            )
        )
    if len(problems) == len(loaded.problems):
        return loaded
    problems.sort(key=lambda problem: problem.line)
    return LoadedFile(loaded.path, cases, problems)


def _unknown_metric(name: str, known: Collection[str]) -> str:
    matches = difflib.get_close_matches(name, list(known), n=1)
    if matches:
        return f"unknown metric {name!r}; did you mean {matches[0]!r}?"
    return f"unknown metric {name!r}; known metrics: {', '.join(sorted(known))}"


def explain_no_golden_files(verdict: GateVerdict, case_files: Sequence[str]) -> GateVerdict:
    """Say why a run that collected nothing has no cases, in the verdict that fails it.

    Such a run exits 4 (a usage error, not pytest's 5); the verdict names the file patterns
    that were looked for, so a misnamed golden file is found fast.
    """
    if verdict.total_cases:
        return verdict
    message = (
        "no golden cases were scored: no golden file was collected (under directories, "
        f"golden files match {', '.join(case_files)}; name a file on the command line to "
        "use any other name, or set case_files), or -k / -m deselected every case"
    )
    old = verdict.error_rate_message
    return verdict.model_copy(
        update={
            "error_rate_message": message,
            "failures": [message if failure == old else failure for failure in verdict.failures],
        }
    )


def fail_for_unreadable_files(verdict: GateVerdict, problems: Sequence[str]) -> GateVerdict:
    """Fail the verdict when golden files could not be read: their cases were never scored.

    Without this, ``--continue-on-collection-errors`` or an xdist run (which scores the
    readable files) would gate only what it could read and could say "Safe to deploy".
    """
    if not problems:
        return verdict
    message = (
        f"{len(problems)} golden file(s) could not be read, so their cases were not scored: "
        + "; ".join(problem.splitlines()[0] for problem in problems)
    )
    cause = f"{len(problems)} golden file(s) unreadable"
    recommendation = (
        f"Block deployment — {cause}" if verdict.passed else f"{verdict.recommendation}; {cause}"
    )
    return verdict.model_copy(
        update={
            "passed": False,
            "failures": [message, *verdict.failures],
            "recommendation": recommendation,
        }
    )
