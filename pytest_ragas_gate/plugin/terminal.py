"""What the gate prints: the header, per-case verbose lines and the verdict summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from ..golden.cases import is_missing_fields_reason
from ..reports.integrity import cache_signing_line
from ..reports.publish import LineStyle, Outputs, publish
from ..scoring.gated_metrics import thresholds_in_force
from ..scoring.results import CaseResult
from ..settings.output_paths import written_reports_line
from .items import attached_result

if TYPE_CHECKING:
    from .session import GateRun


def header_lines(run: GateRun) -> list[str]:
    """The effective judge, model, thresholds, cache mode and config source."""
    config, judge = run.config, run.judge_info
    in_force = thresholds_in_force(config, run.metrics)
    thresholds = (
        " ".join(bound.written(metric) for metric, bound in in_force.items())
        + f" (rule {config.rule})"
        if in_force
        else "none in force — report only, not a deploy decision"
    )
    batch = " — batch mode: requests go through the provider's batch API" if config.batch else ""
    lines = [
        f"rag-gate: judge {judge.kind} ({judge.model}) — {judge.selected_by}{batch}",
        f"rag-gate: thresholds {thresholds}; "
        f"cache {config.cache} ({config.cache_dir}); config {run.loaded.source}",
    ]
    if judge.structured_output:
        lines.append(f"rag-gate: {judge.structured_output}")
    shard = run.pytest_config.option.rag_gate_shard
    if shard is not None or config.baseline:
        parts = [f"shard {shard}"] if shard is not None else []
        if config.baseline:
            parts.append(f"baseline {config.baseline} (max regression {config.max_regression:.2f})")
        lines.append("rag-gate: " + "; ".join(parts))
    if config.repeats == "auto" and run.target is not None:
        lines.append(
            "rag-gate: repeats auto — live mode: every case judged 3 times (about 3x the "
            "judge calls), since the target answers each case once"
        )
    elif config.repeats == "auto":
        lines.append(
            "rag-gate: repeats auto — every case judged once; a seeded sample, the cases "
            "within the judge's measured noise of a threshold and the cases changed against "
            "the baseline judged 3 times (the summary says which and what it cost)"
        )
    elif config.repeats > 1:
        floor = config.min_judge_agreement
        lines.append(
            f"rag-gate: repeats {config.repeats} — every judge request asked "
            f"{config.repeats} times, each case scored by the mean (about {config.repeats}x "
            "the judge calls of a single run)"
            + ("" if floor is None else f"; min judge agreement {floor:.2f}")
        )
    if run.target is not None:
        lines.append(f"rag-gate: live mode — target {run.target.describe()}")
    if config.exclude:
        lines.append("rag-gate: exclude " + " ".join(config.exclude) + " (golden files left out)")
    signing = cache_signing_line(run.judge.cache)
    if signing is not None:
        lines.append(f"rag-gate: {signing}")
    return lines


def format_scores(result: CaseResult) -> str:
    """``faithfulness=0.67 context_recall=n/a`` in the case's metric order."""
    parts = []
    for metric in result.metrics:
        if metric in result.errors:
            parts.append(f"{metric}=error")
        elif metric in result.scores:
            score = result.scores[metric]
            if score is not None:
                parts.append(f"{metric}={score:.2f}")
            elif is_missing_fields_reason(result.reasons.get(metric, "")):
                # A case missing a metric's fields says which, so a misspelt key shows.
                parts.append(f"{metric}=n/a: {result.reasons[metric]}")
            else:
                parts.append(f"{metric}=n/a")
    return " ".join(parts)


# pytest 8 reads a (word, markup) pair wherever it shows the verbose word; pytest 7 reads it
# on the verbose line only and prints the pair's repr in the short summary (-rA), so there the
# word is plain text, green by pytest's own default for a pass.
_WORD_TAKES_MARKUP = hasattr(pytest.TestReport, "_get_verbose_word_with_markup")


def teststatus(
    report: pytest.TestReport,
) -> tuple[str, str, str | tuple[str, dict[str, bool]]] | None:
    """The verbose status word of a passing case item, followed by its scores.

    Failures keep pytest's own word: it is reused in the short summary, whose line must
    lead with the verdict, and the failure text lists the scores anyway.
    """
    if report.when != "call" or not report.passed:
        return None
    result = attached_result(report)
    if result is None:
        return None
    word = f"PASSED {format_scores(result)}"
    return "passed", ".", (word, {"green": True}) if _WORD_TAKES_MARKUP else word


_COLOURS = {
    "passed": {"green": True},
    "failed": {"red": True},
    "error": {"red": True},
    "partial": {"yellow": True},
    "ungated": {"yellow": True},
}


#: The part the gate adds to pytest's last line, per status, and its colour.
_LAST_LINE_PARTS = {
    "passed": ("rag-gate passed", "green"),
    "failed": ("rag-gate FAILED", "red"),
    "error": ("rag-gate ERROR", "red"),
    "partial": ("rag-gate PARTIAL", "yellow"),
    "ungated": ("rag-gate UNGATED", "yellow"),
}


def mark_last_line(terminal: Any, status: str, *, passed: bool, exit_ok: bool = False) -> None:
    """Make pytest's last line (``32 passed, rag-gate FAILED in 1.2s``) carry the gate.

    A gate that fails an otherwise green run must not end on a green line. pytest builds
    that line in ``build_summary_stats_line`` from ``terminalreporter.stats``, but a stats
    key always prints with a count ("1 rag-gate FAILED") and in yellow, the colour pytest
    gives every category it does not know. So the reporter's own builder is wrapped:
    pytest's parts stay as they are, the gate's part follows them, and a gate that did
    not pass turns the whole line red, as a failed test does. PARTIAL and UNGATED (no
    deploy decision, exit 0) turn a green line yellow. A passed gate whose run exits 0
    although pytest counted failed items (golden cases errored within ``max_error_rate``)
    turns pytest's red line yellow: red says the run failed, and it did not; nor is it a
    deploy decision, so not green either.
    """
    word, colour = _LAST_LINE_PARTS[status]
    build = terminal.build_summary_stats_line

    def with_gate() -> tuple[list[tuple[str, dict[str, bool]]], str]:
        parts, main = build()
        tone = colour
        if not passed:
            main = "red"
        elif colour == "yellow" and main == "green":
            main = "yellow"
        elif main == "red" and exit_ok:
            main = tone = "yellow"
        # pytest makes bold the parts in the line's colour: the same rule, after the change.
        ours = [(text, _bold_if(markup, main)) for text, markup in parts]
        return [*ours, (word, {tone: True, "bold": tone == main})], main

    terminal.build_summary_stats_line = with_gate


def _bold_if(markup: dict[str, bool], main: str) -> dict[str, bool]:
    colours = [name for name, on in markup.items() if on and name != "bold"]
    return {**markup, "bold": main in colours}


def write_summary(run: GateRun, terminal: Any) -> None:
    """Write the gate's section at the end of the pytest run, and publish the outcome."""
    verdict = run.verdict
    if verdict is None:
        return
    mark_last_line(terminal, verdict.status, passed=verdict.passed, exit_ok=run.exit_code == 0)
    # Like pytest's "generated xml file" line: outside the gate's section, which reads the
    # same here as in `rag-gate gate`.
    written = written_reports_line(run.report_paths())
    if written is not None:
        terminal.write_sep("-", f"rag-gate {written}")
    colour = _COLOURS[verdict.status]
    terminal.write_sep("=", "RAG gate", bold=True, **colour)
    markup: dict[LineStyle, dict[str, bool]] = {
        "plain": {},
        "headline": {"bold": True, **colour},
        "warning": {"yellow": True},
        "alarm": {"red": True},
    }
    publish(
        verdict,
        Outputs(
            write=lambda line, style: terminal.write_line(line, **markup[style]),
            results=run.collected,
            judge=run.judge_info,
            usage_by_metric=run.usage_by_metric(),
            facts=run.run_facts,
            cache_mode=run.config.cache,
            rootdir=run.pytest_config.rootpath,
            environ=run.environment.variables,
            html_report=bool(run.config.html),
        ),
    )
