"""The gate's text summary: one renderer, fed plain data, for pytest and ``rag-gate``.

The plugin prints it at the end of a run and ``rag-gate gate`` prints it
for a saved report, so the same report always reads the same in both places.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..gate.diagnosis import DiagnosisSummary
from ..gate.verdict import GateVerdict, MetricAggregate
from ..judges.base import JudgeInfo
from ..live.latency import latency_rows
from ..live.oracle_gap_figures import oracle_gap_lines
from ..scoring.results import CaseResult, canonical_order, conversation_groups
from ..stats import format_interval
from ..usage import Usage
from .judge_noise_view import JUDGE_NOISE_HEADER, has_judge_noise, noise_cell

__all__ = ["broken_turn_lines", "cases_line", "human_label_lines", "summary_lines"]

#: Conversations whose broken turn the summary names; the reports list every one.
MAX_BROKEN_CONVERSATIONS = 5


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _usage_line(usage: Usage) -> str:
    # The provider's prompt cache (priced apart) sits next to the cost it lowers; "cache
    # hits" are the gate's own cached replies, which cost nothing.
    prompt_cache = (
        f" ({usage.cache_read_tokens} input tokens read from the provider's prompt cache, "
        f"{usage.cache_write_tokens} written to it)"
        if usage.cache_read_tokens or usage.cache_write_tokens
        else ""
    )
    return (
        f"{usage.calls} calls, {usage.input_tokens} input + {usage.output_tokens} output "
        f"tokens, ${usage.cost_usd:.4f}{prompt_cache}, {usage.cache_hits} cache hits, "
        f"{usage.retries} retries"
    )


def _threshold_cell(aggregate: MetricAggregate, shown: str) -> str:
    """``0.85`` for a minimum, ``<=0.02`` for a maximum, ``-`` when not gated."""
    if aggregate.threshold is None:
        return "-"
    return f"<={shown}" if aggregate.direction == "max" else shown


def _table(verdict: GateVerdict) -> list[str]:
    confidence = f"{round(verdict.confidence * 100, 6):g}% CI"
    rows: list[tuple[str, ...]] = [
        ("metric", "mean", confidence, "threshold", "rule", "n", "n/a", "errors", "verdict")
    ]
    # Only a run with repeated judgements has the column, so other tables read as before.
    noisy = has_judge_noise(verdict)
    if noisy:
        rows = [(*rows[0], JUDGE_NOISE_HEADER)]
    for name, aggregate in verdict.metrics.items():
        outcome = verdict.outcome(name)
        ci = (
            "-"
            if aggregate.ci_low is None or aggregate.ci_high is None
            else format_interval(aggregate.ci_low, aggregate.ci_high, 3)
        )
        rows.append(
            (
                name,
                outcome.table_text,
                ci,
                _threshold_cell(aggregate, outcome.threshold_text),
                aggregate.rule if aggregate.threshold is not None else "-",
                f"{aggregate.n} of {aggregate.cases}" if aggregate.cases else str(aggregate.n),
                str(aggregate.not_applicable),
                str(aggregate.errors),
                outcome.word,
                *([noise_cell(aggregate.judge_noise)] if noisy else []),
            )
        )
    rows.extend((*row, *([""] if noisy else [])) for row in latency_rows(verdict.latency))
    return _aligned(rows)


def _aligned(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows of cells as text lines, each column as wide as its widest cell."""
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def cases_line(verdict: GateVerdict) -> str:
    """``cases: gated 5 of 5; 1 scored, 4 with no gated metric scored, 0 errored``."""
    unscored = verdict.total_cases - verdict.errored_cases
    scored = unscored if verdict.scored_cases is None else verdict.scored_cases
    nothing = unscored - scored
    empty = f", {nothing} with no gated metric scored" if nothing else ""
    return f"cases: {verdict.coverage}; {scored} scored{empty}, {verdict.errored_cases} errored"


def broken_turn_lines(verdict: GateVerdict, results: Sequence[CaseResult]) -> list[str]:
    """Per failing conversation, the turn that broke it and why, as the gate decided.

    The turn that broke is the first one below its own thresholds or errored (the one the
    HTML report marks), else the first one below the gate's threshold of a gated metric.
    """
    failing = {case.key: case for case in verdict.failing_cases}
    lines: list[str] = []
    for group in conversation_groups(canonical_order(results)):
        if group[0].conversation is None:
            continue
        turns = [(result, failing[result.key]) for result in group if result.key in failing]
        if not turns:
            continue
        result, case = next(
            ((result, case) for result, case in turns if case.status != "below"), turns[0]
        )
        lines.append(
            f"  {group[0].conversation} broke at turn {result.turn} ({result.id}): {case.why}"
        )
    if len(lines) > MAX_BROKEN_CONVERSATIONS:
        more = len(lines) - MAX_BROKEN_CONVERSATIONS
        lines = [
            *lines[:MAX_BROKEN_CONVERSATIONS],
            f"  … and {more} more conversation(s) with a broken turn in the reports",
        ]
    return lines


def diagnosis_lines(diagnosis: DiagnosisSummary | None) -> list[str]:
    """What to fix: cases per component, and the component to fix first with its hint.

    Nothing when every diagnosed case is ``ok``: the table is for a run with failures.
    """
    if diagnosis is None or not diagnosis.failures:
        return []
    names = ["what to fix", *diagnosis.components]
    counts = ["cases", *(str(diagnosis.counts.get(name, 0)) for name in diagnosis.components)]
    return [*_aligned([names, counts]), f"{diagnosis.advice}: {diagnosis.hint}"]


def summary_lines(
    verdict: GateVerdict,
    *,
    judge: JudgeInfo,
    usage_by_metric: Mapping[str, Usage],
    results: Sequence[CaseResult] = (),
) -> list[str]:
    """The per-metric table, usage, cases, failures, the verdict and the recommendation.

    Args:
        verdict: The gate's verdict.
        judge: The judge that scored the run.
        usage_by_metric: Judge usage per metric, summed over the cases.
        results: Every case result of the run, for the turn that broke each failing
            conversation.

    Returns:
        The lines, without trailing newlines; the headline is ``verdict.headline``.
    """
    lines = _table(verdict)
    lines += oracle_gap_lines(verdict.oracle_gaps)
    if verdict.alignment is not None:
        lines.append(verdict.alignment.message)
    if verdict.latency is not None:
        lines.append(verdict.latency.summary)
    total = sum(usage_by_metric.values(), Usage())
    lines += [
        "",
        f"judge: {judge.kind} ({judge.model})"
        + (f" — {judge.selected_by}" if judge.selected_by else ""),
        f"judge usage: {_usage_line(total)}",
    ]
    lines += [
        f"  {metric}: {_usage_line(record)}"
        for metric, record in usage_by_metric.items()
        if record.calls or record.cache_hits
    ]
    if verdict.auto_repeats is not None:
        lines.append(verdict.auto_repeats)
    lines.append(cases_line(verdict))
    if verdict.look_alike_hint is not None:
        lines.append(verdict.look_alike_hint)
    if verdict.conversations is not None:
        lines.append(verdict.conversations)
        lines += broken_turn_lines(verdict, results)
    lines += diagnosis_lines(verdict.diagnosis)
    lines += human_label_lines(verdict)
    if verdict.baseline is not None:
        newly = verdict.newly_failing
        lines.append(
            verdict.baseline.summary_line()
            + (f"; newly failing since the baseline: {', '.join(newly)}" if newly else "")
        )
        # With repeats, say per metric whether a change stands clear of the judge's noise.
        lines += [
            f"  {delta.message}"
            for delta in verdict.baseline.metrics.values()
            if delta.judge_noise is not None
        ]
        lines += [f"baseline warning: {warning}" for warning in verdict.baseline.warnings]
    if verdict.pairwise is not None:
        lines.append(verdict.pairwise.line())
    lines += [check.message for check in verdict.not_evaluated_checks]
    failing = verdict.failed_checks
    if failing:
        lines.append("")
        # A judge that did not answer failed no check of the system: its lines are errors.
        word = "ERROR" if verdict.status == "error" else "FAILED"
        lines.extend(f"{word} {check.message}" for check in failing)
    lines += ["", *verdict.misspelt_keys, verdict.headline, verdict.recommendation]
    lines += [f"  hint ({metric}): {hint}" for metric, hint in verdict.hints.items()]
    return lines


def human_label_lines(verdict: GateVerdict) -> list[str]:
    """The judge–human agreement block: per labelled metric, the agreement and PPI lines."""
    lines: list[str] = []
    for metric, figures in verdict.agreement.items():
        if figures.n == 0:
            lines.append(f"  {metric}: no labelled case scored")
        else:
            shown = [f"bias {figures.bias.text()}", f"MAE {figures.mae.text()}"]
            named = (("spearman", "spearman"), ("AUROC", "auroc"), ("acc", "accuracy"))
            for label, name in (*named, ("κ", "kappa")):
                figure = figures.statistic(name)
                if figure is not None and figure.value is not None:
                    shown.append(f"{label} {figure.text()}")
            lines.append(f"  {metric} (n={figures.n} labelled): " + ", ".join(shown))
        if figures.passed is not None:
            lines.append(f"    {'PASS' if figures.passed else 'FAIL'} {figures.message}")
        aggregate = verdict.metrics.get(metric)
        ppi = None if aggregate is None else aggregate.ppi
        if ppi is not None and aggregate is not None and aggregate.mean is not None:
            lines.append(
                f"    PPI {ppi.estimate:.3f} [{ppi.ci_low:.3f}–{ppi.ci_high:.3f}] on the human "
                f"scale vs judge mean {aggregate.mean:.3f} ({ppi.labelled} labelled, "
                f"{ppi.unlabelled} judged only"
                + (
                    f"; {ppi.left_out} labelled near the threshold left out, not a random sample"
                    if ppi.left_out
                    else ""
                )
                + ")"
            )
            tuned = ppi.power_tuned
            if tuned is not None:
                lines.append(
                    f"    PPI++ {tuned.estimate:.3f} [{tuned.ci_low:.3f}–{tuned.ci_high:.3f}] "
                    f"(judge weight λ={tuned.lam:.2f})"
                )
        elif figures.n:
            lines.append("    PPI: too few randomly sampled labelled cases (trust.ppi.min_labels)")
    if lines:
        confidence = f"{round(verdict.confidence * 100, 6):g}%"
        lines.insert(0, f"judge–human agreement ({confidence} CI in brackets):")
    return lines
