"""The retrieval gap a verdict carries for ``live.oracle: both`` runs, and its summary lines.

Apart from measuring it (``oracle_gaps``): every verdict has the field, empty unless the
run scored oracle metrics.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

__all__ = ["ORACLE_PREFIX", "OracleGap", "oracle_gap_lines"]

#: Oracle metrics are named ``oracle_<metric>``.
ORACLE_PREFIX = "oracle_"


class OracleGap(BaseModel):
    """One generation metric, scored with the retriever and with gold contexts on ``n`` cases."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    metric: str
    retriever: float
    oracle: float
    gap: float
    n: int


def oracle_gap_lines(gaps: Sequence[OracleGap]) -> list[str]:
    """One summary line per gap, saying on how many cases it was measured.

    >>> gap = OracleGap(metric="faithfulness", retriever=0.71, oracle=0.93, gap=0.22, n=4)
    >>> print(oracle_gap_lines([gap])[0])  # doctest: +NORMALIZE_WHITESPACE
    faithfulness 0.71 with your retriever, 0.93 with gold contexts: retrieval costs 0.22
    (n=4 cases scored both ways)
    """
    return [
        f"{gap.metric} {gap.retriever:.2f} with your retriever, {gap.oracle:.2f} with gold "
        f"contexts: retrieval costs {gap.gap:.2f} (n={gap.n} cases scored both ways)"
        for gap in gaps
    ]
