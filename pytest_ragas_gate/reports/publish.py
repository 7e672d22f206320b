"""What follows a verdict, in one order for ``pytest --rag-gate`` and ``rag-gate gate``.

The summary (per-metric table, verdict, recommendation), the changed gate inputs, the cache's
integrity, the Markdown step summary and, under GitHub Actions, the annotations: each reads
the one outcome :func:`~pytest_ragas_gate.gate.verdict.evaluate_gate` returned. The plugin
writes the lines through pytest's terminal (with colours), the command prints them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..gate.verdict import GateVerdict, RunFacts
from ..judges.base import JudgeInfo
from ..scoring.results import CaseResult
from ..usage import Usage
from .integrity import cache_integrity_lines
from .summary import summary_lines

__all__ = ["LineStyle", "Outputs", "publish"]

#: How a line wants to be shown: the verdict's headline, a warning, an alarm, or plain.
LineStyle = Literal["plain", "headline", "warning", "alarm"]


@dataclass(frozen=True)
class Outputs:
    """Where an outcome is published, and what of the run the outputs show besides it.

    Args:
        write: Shows one line in a style (the terminal, or standard output).
        results: Every case result of the run.
        judge: The judge that scored the run.
        usage_by_metric: Judge usage per metric.
        facts: The run facts the verdict was reached with (gate inputs, cache integrity).
        cache_mode: The judge cache's mode, which the integrity lines speak of.
        rootdir: The directory case sources are relative to (for annotations).
        environ: The run's environment variables: ``GITHUB_STEP_SUMMARY``,
            ``GITHUB_ACTIONS``, ``GITHUB_WORKSPACE``.
        html_report: Whether the run writes an HTML report, which the step summary's cut
            lists point to.
    """

    write: Callable[[str, LineStyle], object]
    results: Sequence[CaseResult]
    judge: JudgeInfo
    usage_by_metric: Mapping[str, Usage]
    facts: RunFacts
    cache_mode: str
    rootdir: Path
    environ: Mapping[str, str]
    html_report: bool = False


def publish(outcome: GateVerdict, outputs: Outputs) -> None:
    """Show the outcome and hand it to GitHub: the one sequence after every verdict.

    Args:
        outcome: The gate's verdict.
        outputs: Where it goes.
    """
    write, facts, usage = outputs.write, outputs.facts, outputs.usage_by_metric
    lines = summary_lines(
        outcome, judge=outputs.judge, usage_by_metric=usage, results=outputs.results
    )
    for line in lines:
        write(line, "headline" if line == outcome.headline else "plain")
    if facts.gate_changes is not None:
        from .gate_inputs import gate_inputs_text

        for line in gate_inputs_text(facts.gate_changes):
            write(line, "warning")
    for line in cache_integrity_lines(facts.cache_integrity, cache_mode=outputs.cache_mode):
        write(line, "alarm" if "failed verification" in line else "plain")
    in_actions = outputs.environ.get("GITHUB_ACTIONS") == "true"
    step_summary = bool(outputs.environ.get("GITHUB_STEP_SUMMARY"))
    if not (step_summary or in_actions):
        return  # no Markdown and no annotations: their writers need not load
    from .gate_inputs import gate_inputs_markdown
    from .github import annotation_lines, write_step_summary

    extra = gate_inputs_markdown(
        facts.gate_changes, facts.cache_integrity, cache_mode=outputs.cache_mode
    )
    total = sum(usage.values(), Usage())
    write_step_summary(
        outcome,
        results=outputs.results,
        judge=outputs.judge,
        usage=total,
        env=outputs.environ,
        extra=extra,
        gate_changes=facts.gate_changes,
        html_report=outputs.html_report,
    )
    if not in_actions:
        return
    for line in annotation_lines(
        outcome,
        results=outputs.results,
        judge=outputs.judge,
        rootdir=outputs.rootdir,
        workspace=outputs.environ.get("GITHUB_WORKSPACE"),
    ):
        write(line, "plain")
