"""The judge's noise per metric as every report shows it: one wording for all renderers.

Runs without repeated judgements have no figure, and their tables stay as they were.
"""

from __future__ import annotations

from ..gate.judge_noise import JudgeNoise
from ..gate.verdict import GateVerdict

__all__ = ["JUDGE_NOISE_HEADER", "has_judge_noise", "noise_cell"]

#: The column the terminal table and the HTML page add for the figure.
JUDGE_NOISE_HEADER = "judge agreement"


def has_judge_noise(verdict: GateVerdict) -> bool:
    """Whether any metric of the run was judged more than once per case."""
    return any(aggregate.judge_noise is not None for aggregate in verdict.metrics.values())


def noise_cell(noise: JudgeNoise | None) -> str:
    """``0.933 (sd 0.041, 20×3)``: agreement, within-case SD, cases × repeats.

    >>> noise_cell(JudgeNoise(agreement=0.9333, sd=0.0412, cases=20, repeats=3, items=60))
    '0.933 (sd 0.041, 20×3)'
    >>> noise_cell(None)
    '-'
    """
    if noise is None:
        return "-"
    agreement = "-" if noise.agreement is None else f"{noise.agreement:.3f}"
    spread = "-" if noise.sd is None else f"{noise.sd:.3f}"
    return f"{agreement} (sd {spread}, {noise.cases}×{noise.repeats})"
