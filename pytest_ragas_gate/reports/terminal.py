"""What the gate prints: the header, per-case verbose lines and the verdict summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from ..items import attached_result
from ..results import CaseResult
from .github import publish_annotations
from .summary import summary_lines

if TYPE_CHECKING:
    from ..session import GateRun


def header_lines(run: GateRun) -> list[str]:
    """The effective judge, model, thresholds, cache mode and config source."""
    config, judge = run.config, run.judge_info
    thresholds = " ".join(bound.written(metric) for metric, bound in config.bounds().items())
    batch = " — batch mode: requests go through the provider's batch API" if config.batch else ""
    lines = [
        f"rag-gate: judge {judge.kind} ({judge.model}) — {judge.selected_by}{batch}",
        f"rag-gate: thresholds {thresholds} (rule {config.rule}); "
        f"cache {config.cache} ({config.cache_dir}); config {run.loaded.source}",
    ]
    shard = run.pytest_config.option.rag_gate_shard
    if shard is not None or config.baseline:
        parts = [f"shard {shard}"] if shard is not None else []
        if config.baseline:
            parts.append(f"baseline {config.baseline} (max regression {config.max_regression:.2f})")
        lines.append("rag-gate: " + "; ".join(parts))
    if run.target is not None:
        lines.append(f"rag-gate: live mode — target {run.target.describe()}")
    if config.exclude:
        lines.append("rag-gate: exclude " + " ".join(config.exclude) + " (golden files left out)")
    return lines


def format_scores(result: CaseResult) -> str:
    """``faithfulness=0.67 context_recall=n/a`` in the case's metric order."""
    parts = []
    for metric in result.metrics:
        if metric in result.errors:
            parts.append(f"{metric}=error")
        elif metric in result.scores:
            score = result.scores[metric]
            parts.append(f"{metric}={'n/a' if score is None else f'{score:.2f}'}")
    return " ".join(parts)


def teststatus(report: pytest.TestReport) -> tuple[str, str, tuple[str, dict[str, bool]]] | None:
    """The verbose status word of a passing case item, followed by its scores.

    Failures keep pytest's own word: it is reused in the short summary, whose line must
    lead with the verdict, and the failure text lists the scores anyway.
    """
    if report.when != "call" or not report.passed:
        return None
    result = attached_result(report)
    if result is None:
        return None
    scores = format_scores(result)
    return "passed", ".", (f"PASSED {scores}", {"green": True})


_COLOURS = {"passed": {"green": True}, "failed": {"red": True}, "partial": {"yellow": True}}


def write_summary(run: GateRun, terminal: Any) -> None:
    """Write the gate's section at the end of the pytest run."""
    verdict = run.verdict
    if verdict is None:
        return
    lines = summary_lines(verdict, judge=run.judge_info, usage_by_metric=run.usage_by_metric())
    passed = verdict.status == "passed"
    failed = verdict.status == "failed"
    terminal.write_sep(
        "=", "RAG gate", green=passed, red=failed, yellow=verdict.partial and not failed, bold=True
    )
    for line in lines:
        if line == verdict.headline:
            terminal.write_line(
                line, green=passed, red=failed, yellow=verdict.partial and not failed, bold=True
            )
        else:
            terminal.write_line(line)
    publish_annotations(
        verdict,
        results=run.collected,
        judge=run.judge_info,
        rootdir=run.pytest_config.rootpath,
        write_line=terminal.write_line,
    )
