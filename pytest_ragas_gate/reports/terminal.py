"""What the gate prints: the header, per-case verbose lines and the verdict summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from ..latency import latency_rows
from ..results import CaseResult

if TYPE_CHECKING:
    from ..session import GateRun

RESULT_ATTRIBUTE = "rag_gate_case"


def header_lines(run: GateRun) -> list[str]:
    """The effective judge, model, thresholds, cache mode and config source."""
    config, judge = run.config, run.judge_info
    thresholds = " ".join(
        f"{metric}>={value:.2f}" for metric, value in config.effective_thresholds().items()
    )
    lines = [
        f"rag-gate: judge {judge.kind} ({judge.model}) — {judge.selected_by}",
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
    return lines


def attach_result(item: pytest.Item, report: pytest.TestReport) -> None:
    """Put the case's result on the report that carries its outcome.

    That is the call report, or the setup report when the case errored before running.
    Extra report attributes survive pytest-xdist's report serialisation.
    """
    from ..items import BadCaseItem, CaseItem

    if not (report.when == "call" or (report.when == "setup" and report.failed)):
        return
    result: CaseResult | None = None
    if isinstance(item, CaseItem):
        result = item.result
    elif isinstance(item, BadCaseItem):
        problem = item.problem
        result = CaseResult(
            id=problem.case_id or f"line-{problem.line}",
            source=f"{problem.file}:{problem.line}",
            error=problem.message,
        )
    if result is not None:
        setattr(report, RESULT_ATTRIBUTE, result.model_dump_json())


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
    payload = getattr(report, RESULT_ATTRIBUTE, None)
    if not isinstance(payload, str) or report.when != "call" or not report.passed:
        return None
    scores = format_scores(CaseResult.model_validate_json(payload))
    return "passed", ".", (f"PASSED {scores}", {"green": True})


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def summary_lines(run: GateRun) -> list[str]:
    """The per-metric table, usage, failures, the verdict and the recommendation."""
    verdict = run.verdict
    if verdict is None:
        return []
    rows = [("metric", "mean", "95% CI", "threshold", "rule", "n", "n/a", "errors", "verdict")]
    for name, aggregate in verdict.metrics.items():
        ci = (
            "-"
            if aggregate.ci_low is None or aggregate.ci_high is None
            else f"{aggregate.ci_low:.3f}–{aggregate.ci_high:.3f}"
        )
        status = {True: "PASS", False: "FAIL", None: "report"}[aggregate.passed]
        rows.append(
            (
                name,
                _fmt(aggregate.mean),
                ci,
                _fmt(aggregate.threshold, 2),
                aggregate.rule if aggregate.threshold is not None else "-",
                str(aggregate.n),
                str(aggregate.not_applicable),
                str(aggregate.errors),
                status,
            )
        )
    rows.extend(latency_rows(verdict.latency))
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    if verdict.alignment is not None:
        lines.append(verdict.alignment.message)
    if verdict.latency is not None:
        lines.append(verdict.latency.summary)
    usage = run.total_usage()
    judge = run.judge_info
    lines.append("")
    lines.append(f"judge: {judge.kind} ({judge.model}) — {judge.selected_by}")
    lines.append(
        f"judge usage: {usage.calls} calls, {usage.input_tokens} input + "
        f"{usage.output_tokens} output tokens, ${usage.cost_usd:.4f}, "
        f"{usage.cache_hits} cache hits, {usage.retries} retries"
    )
    for metric, record in run.usage_by_metric().items():
        if record.calls or record.cache_hits:
            lines.append(
                f"  {metric}: {record.calls} calls, {record.input_tokens} input + "
                f"{record.output_tokens} output tokens, ${record.cost_usd:.4f}, "
                f"{record.cache_hits} cache hits, {record.retries} retries"
            )
    scored = verdict.total_cases - verdict.errored_cases
    lines.append(f"cases: {scored} scored, {verdict.errored_cases} errored")
    if run.baseline_comparison is not None:
        lines.append(run.baseline_comparison.summary_line())
    if verdict.failures:
        lines.append("")
        lines.extend(f"FAILED {failure}" for failure in verdict.failures)
    lines.append("")
    lines.append(f"RAG gate: {'PASSED' if verdict.passed else 'FAILED'}")
    lines.append(verdict.recommendation)
    for metric, hint in verdict.hints.items():
        lines.append(f"  hint ({metric}): {hint}")
    return lines


def write_summary(run: GateRun, terminal: Any) -> None:
    """Write the gate's section at the end of the pytest run."""
    lines = summary_lines(run)
    if not lines:
        return
    verdict = run.verdict
    assert verdict is not None
    terminal.write_sep("=", "RAG gate", green=verdict.passed, red=not verdict.passed, bold=True)
    for line in lines:
        if line.startswith("RAG gate:"):
            terminal.write_line(line, green=verdict.passed, red=not verdict.passed, bold=True)
        else:
            terminal.write_line(line)
    from .github import publish_annotations

    publish_annotations(run, terminal.write_line)
