"""Checks of golden input that need the run's context, which the loaders do not have.

A per-case threshold names a metric; a misspelt name would otherwise be ignored without a
word and the case would never be held to it. Such a case becomes a problem of its file
(an errored item naming the file, line and field) and the other cases still run.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from ..golden.loading import CaseProblem, LoadedFile
from ..metrics.registry import unknown_metric_message
from ..settings.bounds import Bound, Direction
from ..settings.config_checks import not_selected_message

__all__ = ["check_threshold_metrics", "is_threshold_usage_problem"]


#: How a case's problem says its thresholds ask for what the run cannot gate (a metric left
#: out of the run, a direction against the metric's): a usage error of the run, exit 4.
_ASKED_WRONGLY = ("which is not among the run's metrics", "but for ")


def is_threshold_usage_problem(message: str | None) -> bool:
    """Whether a case's error says its thresholds ask what the run cannot gate.

    >>> is_threshold_usage_problem("g.jsonl:2: field 'thresholds': a threshold for 'x', "
    ...                            "which is not among the run's metrics (y): add it …")
    True
    """
    return (
        message is not None
        and "field 'thresholds': " in message
        and any(phrase in message for phrase in _ASKED_WRONGLY)
    )


def check_threshold_metrics(
    loaded: LoadedFile,
    known: Collection[str],
    selected: Collection[str] | None = None,
    direction_of: Callable[[str], Direction] | None = None,
) -> LoadedFile:
    """Move the cases whose ``thresholds`` name an unknown metric to the file's problems.

    With ``selected`` (the run's ``metrics:``), a threshold on a metric the run leaves out
    is a problem too: it would gate nothing. With ``direction_of`` (each metric's
    direction), so is a threshold whose ``>=``/``<=`` contradicts its metric's.

    >>> from pytest_ragas_gate.golden.cases import GoldenCase
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
        # Human labels name metrics too; a misspelt one would never be compared.
        faults = [
            f"field {field!r}: "
            + "; ".join(unknown_metric_message(metric, sorted(known)) for metric in unknown)
            for field, named in (("thresholds", case.thresholds), ("human", case.human))
            if (unknown := [metric for metric in named if metric not in known])
        ]
        if direction_of is not None:
            for metric, value in case.thresholds.items():
                if metric not in known:
                    continue
                try:
                    Bound.parse(metric, value, direction_of(metric))
                except ValueError as error:
                    faults.append(f"field 'thresholds': {error}")
        if selected is not None:
            faults += [
                f"field 'thresholds': {not_selected_message(metric, list(selected))}"
                for metric in case.thresholds
                if metric in known and metric not in selected
            ]
        if not faults:
            cases.append(case)
            continue
        problems.append(
            CaseProblem(
                loaded.path,
                case.line,
                case.id,
                f"{loaded.path}:{case.line}: " + "; ".join(faults),
            )
        )
    if len(problems) == len(loaded.problems):
        return loaded
    problems.sort(key=lambda problem: problem.line)
    return LoadedFile(loaded.path, cases, problems)
