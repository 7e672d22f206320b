"""Checks a run asked for that evaluated nothing, which keep the run from PASSED.

A gate promises never to say "Safe to deploy" about what it did not check. Two settings
can leave a check empty while every metric passes: a baseline none of whose cases pair
with this run's (fewer than ``min_paired``), and oracle-only mode, which answers every
case from its gold contexts, so the system's own retrieval is never exercised. Each makes
the run ``partial`` (not a deploy decision) and says why.
"""

from __future__ import annotations

from ..settings.config import GateConfig
from .baseline import BaselineComparison

__all__ = ["RETRIEVAL_NOT_EVALUATED", "checks_not_evaluated"]

RETRIEVAL_NOT_EVALUATED = (
    "retrieval not evaluated: --rag-gate-oracle only answers every case from its gold "
    "contexts, so the system's own retriever was not run; gate it in a run without "
    "oracle retrieval, or with --rag-gate-oracle both"
)


def checks_not_evaluated(config: GateConfig, baseline: BaselineComparison | None) -> list[str]:
    """Why each check the run asked for says nothing; empty when every one was evaluated.

    Args:
        config: The run's settings (``oracle``).
        baseline: The baseline comparison, if the run had a baseline.

    Returns:
        One line per check not evaluated.
    """
    reasons: list[str] = []
    if baseline is not None and baseline.not_evaluated_reason is not None:
        reasons.append(baseline.not_evaluated_reason)
    if config.oracle == "only":
        reasons.append(RETRIEVAL_NOT_EVALUATED)
    return reasons
