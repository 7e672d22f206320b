"""The verdict as a list of checks: one :class:`GateCheck` per thing the gate decided.

Every report renders the same list — JUnit writes one ``rag-gate`` test case per check,
the terminal, Markdown, HTML and PR comment list the failing checks' messages and hints,
the JSON report saves it under ``checks`` — so a new kind of check is added in one place
and shows everywhere. The list is in the order JUnit shows it; failure lines and the
causes named by the recommendation come in orders of their own (:data:`FAILURE_ORDER`,
:data:`CAUSE_ORDER`), the orders the reports have always printed them in.

>>> checks = [
...     GateCheck(name="faithfulness", kind="metric", passed=False, subject="faithfulness",
...               message="faithfulness mean 0.50 < 0.80", cause="metric(s) below threshold"),
...     GateCheck(name="context_recall", kind="metric", passed=False, subject="context_recall",
...               message="context_recall mean 0.60 < 0.70", cause="metric(s) below threshold"),
... ]
>>> recommendation_causes(checks)
['2 metric(s) below threshold: faithfulness, context_recall']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CAUSE_ORDER",
    "FAILURE_ORDER",
    "CheckKind",
    "GateCheck",
    "failed_checks",
    "hints_of",
    "recommendation_causes",
]

#: What a check is about. ``min_cases`` is a gated metric computed on too few cases (never
#: measured, so not "below" its threshold); ``min_coverage`` one scored on too small a
#: share of the cases it was meant to judge; ``no_cases`` is the error-rate check of a run
#: that scored no case at all; ``not_evaluated`` a check the run asked for that checked
#: nothing; ``alignment`` the ignored-top-ranked alarm, which never fails the gate.
CheckKind = Literal[
    "metric",
    "min_cases",
    "min_coverage",
    "error_rate",
    "no_cases",
    "coverage",
    "gated_metrics",
    "not_evaluated",
    "unreadable_files",
    "incomplete",
    "case_thresholds",
    "baseline",
    "other_tests",
    "latency",
    "alignment",
    "tag",
    "agreement",
    "judge_noise",
    "pairwise",
]

#: The order of the failure lines.
FAILURE_ORDER: tuple[CheckKind, ...] = (
    "unreadable_files",
    "incomplete",
    "no_cases",
    "metric",
    "min_cases",
    "min_coverage",
    "case_thresholds",
    "tag",
    "latency",
    "error_rate",
    "baseline",
    "pairwise",
    "agreement",
    "judge_noise",
    "other_tests",
)

#: The order in which the recommendation names the causes of a failed gate.
CAUSE_ORDER: tuple[CheckKind, ...] = (
    "unreadable_files",
    "incomplete",
    "no_cases",
    "metric",
    "min_cases",
    "min_coverage",
    "case_thresholds",
    "error_rate",
    "tag",
    "latency",
    "baseline",
    "pairwise",
    "agreement",
    "judge_noise",
    "other_tests",
)

#: Causes the recommendation counts and names: "2 metric(s) below threshold: a, b".
_COUNTED: frozenset[CheckKind] = frozenset({"metric", "min_cases", "min_coverage", "baseline"})
#: Causes the recommendation names without a count: "latency over budget: p95, max".
_LISTED: frozenset[CheckKind] = frozenset({"latency", "agreement", "judge_noise"})


class GateCheck(BaseModel):
    """One thing the gate decided, as every report shows it.

    ``passed`` is None when the check decided nothing: a metric with no threshold, a
    partial run's coverage, a check that evaluated nothing, a run with no threshold at all.
    ``cause`` is the clause the recommendation names a failing check by (checks of one
    cause are named together); ``hint`` how to fix it; ``subject`` the metric (or latency
    statistic) the check is about; ``properties`` its figures, as JUnit properties.
    ``judge_unavailable`` marks a failure the judge's silence alone explains: when every
    failing check is one, the verdict is ``error`` (retry), not ``failed``.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    kind: CheckKind
    passed: bool | None
    message: str
    cause: str | None = None
    hint: str | None = None
    subject: str | None = None
    properties: dict[str, str] = Field(default_factory=dict)
    judge_unavailable: bool = False


def _in_order(checks: Iterable[GateCheck], order: Sequence[CheckKind]) -> list[GateCheck]:
    rank = {kind: index for index, kind in enumerate(order)}
    failing = [check for check in checks if check.passed is False]
    return sorted(failing, key=lambda check: rank[check.kind])


def failed_checks(checks: Iterable[GateCheck]) -> list[GateCheck]:
    """The failing checks, in the order the reports list their failure lines."""
    return _in_order(checks, FAILURE_ORDER)


def recommendation_causes(checks: Iterable[GateCheck]) -> list[str]:
    """The causes a failed gate's recommendation names, checks of one cause together."""
    groups: dict[str, list[GateCheck]] = {}
    for check in _in_order(checks, CAUSE_ORDER):
        groups.setdefault(check.cause or check.message, []).append(check)
    causes: list[str] = []
    for cause, group in groups.items():
        kind = group[0].kind
        subjects = ", ".join(dict.fromkeys(check.subject or check.name for check in group))
        if kind in _COUNTED:
            causes.append(f"{len(group)} {cause}: {subjects}")
        elif kind in _LISTED:
            causes.append(f"{cause}: {subjects}")
        else:
            causes.append(cause)
    return causes


def hints_of(checks: Iterable[GateCheck]) -> dict[str, str]:
    """Per metric (or ``latency``), the hint of its failing checks, first failure first."""
    hints: dict[str, str] = {}
    for check in failed_checks(checks):
        if check.hint is not None:
            key = "latency" if check.kind == "latency" else check.subject or check.name
            hints.setdefault(key, check.hint)
    return hints
