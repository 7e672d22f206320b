"""Checks a run asked for that evaluated nothing, which keep the run from PASSED.

A gate promises never to say "Safe to deploy" about what it did not check. Two settings
can leave a check empty while every metric passes: a baseline none of whose cases pair
with this run's (fewer than ``min_paired``) or whose metrics another judge scored, and
oracle-only mode, which answers every
case from its gold contexts, so the system's own retrieval is never exercised. Each makes
the run ``partial`` (not a deploy decision) and says why.
"""

from __future__ import annotations

from ..settings.config import GateConfig
from .baseline_figures import BaselineComparison
from .checks import GateCheck

__all__ = [
    "JUDGE_AGREEMENT_NOT_EVALUATED",
    "RETRIEVAL_NOT_EVALUATED",
    "not_evaluated_checks",
]

RETRIEVAL_NOT_EVALUATED = (
    "retrieval not evaluated: live.oracle only answers every case from its gold "
    "contexts, so the system's own retriever was not run; gate it in a run without "
    "oracle retrieval, or with live.oracle: both"
)


#: Why a ``min_judge_agreement`` floor checked nothing.
JUDGE_AGREEMENT_NOT_EVALUATED = (
    "judge agreement not evaluated: trust.agreement.self is set but no case was judged "
    "more than once; set judge.repeats to 2 or more (--rag-gate-set judge.repeats=2)"
)


def _reasons(
    config: GateConfig, baseline: BaselineComparison | None, *, repeated: bool = True
) -> list[str]:
    """Why each check the run asked for says nothing; empty when every one was evaluated.

    Args:
        config: The run's settings (``oracle``, ``min_judge_agreement``).
        baseline: The baseline comparison, if the run had a baseline.
        repeated: Whether any metric was judged more than once per case.

    Returns:
        One line per check not evaluated.
    """
    reasons: list[str] = []
    if baseline is not None:
        reasons.extend(baseline.not_evaluated_reasons)
    if config.oracle == "only":
        reasons.append(RETRIEVAL_NOT_EVALUATED)
    if config.min_judge_agreement is not None and not repeated:
        reasons.append(JUDGE_AGREEMENT_NOT_EVALUATED)
    return reasons


def not_evaluated_checks(
    config: GateConfig, baseline: BaselineComparison | None, *, repeated: bool
) -> list[GateCheck]:
    """One skipped check per check the run asked for that evaluated nothing."""
    return [
        GateCheck(
            name=f"not_evaluated:{reason.split(' not evaluated')[0]}",
            kind="not_evaluated",
            passed=None,
            message=reason,
        )
        for reason in _reasons(config, baseline, repeated=repeated)
    ]
