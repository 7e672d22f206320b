"""The Markdown summary, for ``$GITHUB_STEP_SUMMARY`` and pull-request comments."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from ..gate.baseline import BaselineComparison
from ..gate.diagnosis import DiagnosisSummary
from ..gate.metric_outcome import MetricOutcome
from ..gate.verdict import CaseVerdict, GateVerdict, MetricAggregate
from ..live.latency import latency_rows
from ..live.oracle_gap_figures import oracle_gap_lines
from ..scoring.results import CaseResult, canonical_order, conversation_groups
from ..stats import format_interval, interval_text
from ..trust.figures import Figure
from ..usage import Usage
from .gate_inputs import threshold_change_note
from .json_report import JudgeInfo
from .judge_noise_view import has_judge_noise
from .long_lists import error_groups, error_table, is_error_row

__all__ = ["MAX_FAILING_CASES", "render_markdown"]

#: Failing cases listed in the summary; the HTML and JSON reports have them all.
MAX_FAILING_CASES = 20

OFFLINE_WARNING = (
    "Scored by the offline heuristic judge, not an LLM: these numbers are a smoke test, "
    "not a quality measurement. Set `ANTHROPIC_API_KEY` (or choose `--rag-gate-judge`) "
    "to gate with an LLM judge."
)


def _cell(text: str) -> str:
    """Make ``text`` safe inside one table cell."""
    return " ".join(text.replace("|", "\\|").split())


def _prose(text: str) -> str:
    """Untrusted text (an answer, an error quoting a row) as plain text: never HTML."""
    for character, escape in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;")):
        text = text.replace(character, escape)
    return text


def plain_cell(text: str) -> str:
    """Untrusted text as a table cell's plain text: never HTML, never a new cell."""
    return _cell(_prose(text))


def code_span(text: str) -> str:
    r"""``text`` as an inline code span inside a table cell: never markup, never a new cell.

    The fence is longer than any run of backticks in ``text``, so a backtick in a case id
    cannot close the span early and let the rest of the id be read as Markdown or HTML.

    >>> print(code_span("a|b`c"))
    ``a\|b`c``
    """
    flat = _cell(text)
    fence = "`"
    while fence in flat:
        fence += "`"
    padding = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{padding}{flat}{padding}{fence}"


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _verdict_cell(passed: bool | None) -> str:
    if passed is None:
        return "reported"
    return "✅ pass" if passed else "❌ fail"


def _diagnosis_section(diagnosis: DiagnosisSummary | None) -> list[str]:
    """What to fix: cases per component and the component to fix first."""
    if diagnosis is None or not diagnosis.failures:
        return []
    return [
        "### What to fix",
        "",
        "| " + " | ".join(diagnosis.components) + " |",
        "|" + "---|" * len(diagnosis.components),
        "| "
        + " | ".join(str(diagnosis.counts.get(name, 0)) for name in diagnosis.components)
        + " |",
        "",
        f"**{_cell(diagnosis.advice.capitalize())}:** {_cell(diagnosis.hint)}",
        "",
    ]


def _agreement_section(verdict: GateVerdict) -> list[str]:
    """Judge vs people: agreement per labelled metric and the PPI estimate beside the mean."""
    if not verdict.agreement:
        return []

    def figure(value: Figure | None) -> str:
        return "—" if value is None or value.value is None else value.text()

    lines = [
        "### Judge vs human labels",
        "",
        "| metric | labelled | bias | MAE | Spearman | AUROC | κ | judge mean | PPI (human scale) "
        "| floors |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for metric, figures in verdict.agreement.items():
        aggregate = verdict.metrics.get(metric)
        ppi = None if aggregate is None else aggregate.ppi
        cells = [
            code_span(metric),
            str(figures.n),
            figure(figures.bias),
            figure(figures.mae),
            figure(figures.spearman),
            figure(figures.auroc),
            figure(figures.kappa),
            _number(None if aggregate is None else aggregate.mean),
            "—" if ppi is None else f"{ppi.estimate:.2f} [{ppi.ci_low:.2f}–{ppi.ci_high:.2f}]",
            _verdict_cell(figures.passed) if figures.passed is not None else "—",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return [*lines, ""]


#: A gated metric's verdict cell in a run the judge could not decide: no quality verdict.
NOT_JUDGED = "⚪ not judged"


def _metric_row(
    aggregate: MetricAggregate,
    changed: Mapping[str, tuple[str, str]],
    outcome: MetricOutcome,
) -> str:
    if aggregate.ci_low is None or aggregate.ci_high is None:
        interval = "—"
    else:
        interval = format_interval(aggregate.ci_low, aggregate.ci_high, mark=aggregate.threshold)
    threshold = outcome.threshold_text if aggregate.threshold is not None else "—"
    cells = [
        code_span(aggregate.metric),
        outcome.value_text,
        interval,
        ("≤ " if aggregate.threshold is not None and aggregate.direction == "max" else "")
        + threshold,
        aggregate.rule if aggregate.threshold is not None else "—",
        f"{aggregate.n} of {aggregate.cases}" if aggregate.cases else str(aggregate.n),
        str(aggregate.not_applicable),
        str(aggregate.errors),
        outcome.mark + threshold_change_note(aggregate.metric, changed),
    ]
    return "| " + " | ".join(cells) + " |"


def _why(case: CaseVerdict, gated: Collection[str] | None = None) -> str:
    """What the case's verdict says is wrong with it: its error, else its worst miss.

    With ``gated``, a miss of a gated metric comes before an error of a metric only reported.
    """
    reported_error = gated is not None and case.error_metric not in (None, *gated)
    if case.error is not None and not (reported_error and case.worst is not None):
        if case.error_metric is None:
            return f"error: {_prose(case.error)}"
        return f"{code_span(case.error_metric)} error: {_prose(case.error)}"
    worst = case.worst
    if worst is None:
        return "; ".join(case.own_misses)
    return f"`{worst.metric}` {worst.score:.2f} {worst.relation} {worst.threshold:.2f}"


def _on_gated(case: CaseVerdict, gated: Collection[str]) -> bool:
    """Whether the gate's outcome lists the case for a gated metric, not a reported one.

    A case fails a gated metric when it misses a threshold (its own thresholds fail the
    gate by themselves) or errors as a whole or on a gated metric; a case that only
    errored on a metric the gate reports is listed apart, below them.
    """
    return bool(case.misses or case.own_misses) or (
        case.error is not None and (case.error_metric is None or case.error_metric in gated)
    )


def _case_rows(ranked: Sequence[CaseVerdict], gated: Collection[str], more_in: str) -> list[str]:
    lines = ["| case | source | worst metric |", "|---|---|---|"]
    for case in ranked[:MAX_FAILING_CASES]:
        why = _why(case, gated)
        lines.append(f"| {code_span(case.id)} | {code_span(case.source)} | {_cell(why)} |")
    if len(ranked) > MAX_FAILING_CASES:
        lines += ["", f"… and {len(ranked) - MAX_FAILING_CASES} more in the {more_in}."]
    return lines


def _gated(verdict: GateVerdict) -> set[str]:
    """The metrics the gate's outcomes call gated."""
    return {outcome.metric for outcome in verdict.outcomes if outcome.gated}


def _failing_cases(verdict: GateVerdict, more_in: str) -> list[str]:
    """Failing cases of gated metrics, worst first; those of reported metrics folded below.

    Cases below the threshold of a metric that did not fail are no failing cases: they
    are folded apart as below a threshold, report only.
    """
    gated = _gated(verdict)
    # Cases listed for an error of a gated metric alone are grouped by cause, below the
    # cases that miss a threshold; errors of metrics only reported stay folded below.
    grouped = [
        case for case in verdict.failing_cases if is_error_row(case) and _on_gated(case, gated)
    ]
    errors = error_table(error_groups(grouped), case=code_span, text=plain_cell)
    failing = [case for case in verdict.failing_cases if case not in grouped]
    below = verdict.below_report_only
    lines: list[str] = []
    if failing:
        # One order in every report: worst first, ties by metric and case (CaseVerdict.rank).
        ranked = sorted(failing, key=lambda case: case.rank)
        on_gated = [case for case in ranked if _on_gated(case, gated)]
        reported = [case for case in ranked if not _on_gated(case, gated)]
        lines = [f"### Failing cases ({len(failing)})", ""]
        if on_gated:
            lines += _case_rows(on_gated, gated, more_in)
        if reported:
            count = len(reported)
            lines += [
                "",
                f"<details><summary>{count} failing case{'' if count == 1 else 's'} of "
                "metrics reported, not gated</summary>",
                "",
                *_case_rows(reported, gated, more_in),
                "",
                "</details>",
            ]
    if below:
        count = len(below)
        lines += [
            *([""] if lines else []),
            f"<details><summary>{count} case{'' if count == 1 else 's'} "
            f"{BELOW_REPORT_ONLY}</summary>",
            "",
            *_case_rows(below, gated, more_in),
            "",
            "</details>",
        ]
    return lines + (["", *errors] if errors else [])


#: How the reports call cases below the threshold of a metric that did not fail.
BELOW_REPORT_ONLY = "below a threshold (report only)"


def _baseline_cell(outcome: MetricOutcome | None, *, paired: int) -> str:
    """The baseline verdict of a metric, as its outcome says it."""
    if outcome is None:
        return "—"
    if outcome.status == "not_judged":
        return outcome.mark
    if not paired:
        # Nothing paired: nothing was compared, so nothing is "ok" either.
        return "—"
    if outcome.regressed:
        return "❌ regressed"
    if outcome.dropped:
        return "⚠️ regressed (not gated)"
    if outcome.newly_failing:
        return "❌ newly failing since the baseline"
    return "✅ ok"


def _baseline_section(
    comparison: BaselineComparison,
    newly_failing: Sequence[str],
    outcomes: Mapping[str, MetricOutcome] | None = None,
) -> list[str]:
    outcomes = outcomes or {}
    confidence = f"{round(comparison.confidence * 100, 6):g}%"
    lines = [
        f"### Baseline {code_span(comparison.path)}",
        "",
        f"{comparison.paired_cases} paired case(s) · {len(comparison.new_cases)} new · "
        f"{len(comparison.removed_cases)} removed · max regression "
        f"{comparison.max_regression:.2f}",
        "",
        *(f"> ⚠️ {_cell(warning)}" for warning in comparison.warnings),
        *([""] if comparison.warnings else []),
        f"| metric | baseline (paired cases) | new | Δ | {confidence} CI of Δ | n paired "
        "| verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for delta in comparison.metrics.values():
        interval = (
            "—"
            if delta.ci_low is None or delta.ci_high is None
            else interval_text(delta.ci_low, delta.ci_high, "+.2f")
        )
        change = "—" if delta.delta is None else f"{delta.delta:+.2f}"
        if delta.judge_noise is not None:
            change += f" (judge noise ±{delta.judge_noise:.2f})"
        cells = [
            code_span(delta.metric),
            _number(delta.base_mean),
            _number(delta.new_mean),
            change,
            interval,
            str(delta.n_paired),
            _baseline_cell(outcomes.get(delta.metric), paired=delta.n_paired),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _judge_noise_section(verdict: GateVerdict) -> list[str]:
    """Per metric, how much the judge disagreed with itself (runs with repeats only)."""
    if not has_judge_noise(verdict):
        return []
    lines = [
        "### Judge noise",
        "",
        "| metric | judge agreement | within-case SD | cases × repeats |",
        "|---|---|---|---|",
    ]
    for aggregate in verdict.metrics.values():
        noise = aggregate.judge_noise
        if noise is None:
            continue
        cells = [
            code_span(aggregate.metric),
            _number(noise.agreement),
            _number(noise.sd),
            f"{noise.cases} × {noise.repeats}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return [*lines, ""]


def _latency_rows(verdict: GateVerdict) -> list[str]:
    """Table rows (same columns as the metrics) for the latency budget checks."""
    rows = []
    for name, value, _, limit, _, n, _, _, word in latency_rows(verdict.latency):
        mark = {"PASS": _verdict_cell(True), "FAIL": _verdict_cell(False)}.get(word, "reported")
        limit_cell = "—" if limit == "-" else limit
        rows.append(f"| `{name}` | {value} | — | {limit_cell} | — | {n} | — | — | {mark} |")
    return rows


#: How many conversations the Markdown summary shows as a chat; the rest are in the reports.
MAX_CHATS = 3
#: How much of a turn's text a chat line quotes.
_CHAT_TEXT = 160


def _short(text: str | None) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= _CHAT_TEXT else flat[: _CHAT_TEXT - 1] + "…"


def _conversation_chats(
    results: Sequence[CaseResult], verdict: GateVerdict, more_in: str
) -> list[str]:
    """The conversations with a broken turn, as chats: each turn with its scores.

    A turn that fails (below a threshold, or errored) is marked ❌ with its worst metric,
    so the reader sees where the conversation went wrong and why.
    """
    failing = {case.key: case for case in verdict.failing_cases}
    broken = [
        group
        for group in conversation_groups(canonical_order(results))
        if group[0].conversation is not None and any(result.key in failing for result in group)
    ]
    if not broken:
        return []
    lines = [f"### Conversations with a broken turn ({len(broken)})", ""]
    for group in broken[:MAX_CHATS]:
        lines += [
            f"**{code_span(group[0].conversation or '')}** · {code_span(group[0].source)}",
            "",
        ]
        for result in group:
            case = failing.get(result.key)
            scores = " · ".join(
                f"{metric} {'n/a' if score is None else f'{score:.2f}'}"
                for metric, score in result.scores.items()
            )
            mark = f"❌ {_cell(_why(case))}" if case is not None else "✅"
            lines += [
                f"> 🧑 **{result.turn}.** {plain_cell(_short(result.question))}",
                ">",
                f"> 🤖 {plain_cell(_short(result.answer))}",
                ">",
                f"> {mark} — {_cell(scores) or 'no scores'}",
                "",
            ]
    if len(broken) > MAX_CHATS:
        lines += [f"… and {len(broken) - MAX_CHATS} more in the {more_in}.", ""]
    return lines


def render_markdown(
    verdict: GateVerdict,
    *,
    results: Sequence[CaseResult],
    judge: JudgeInfo,
    usage: Usage,
    lead: Sequence[str] = (),
    changed_thresholds: Mapping[str, tuple[str, str]] | None = None,
    html_report: bool = False,
) -> str:
    """The gate's summary as GitHub-flavoured Markdown, the decision first.

    The verdict, its reason and the failing checks open the summary, then ``lead`` (what
    the change does to the gate itself), then the tables.

    Args:
        verdict: The gate's verdict (with its baseline comparison, if any).
        results: Every case result of the run.
        judge: The judge that scored the run.
        usage: Judge usage over the whole run.
        lead: Markdown lines right after the decision (the gate's changed inputs).
        changed_thresholds: Per metric, the threshold before and after this change,
            shown beside the metric's verdict.
        html_report: Whether the run wrote an HTML report: a list cut short points to it
            (else to the JSON report).

    Returns:
        The Markdown text, ending in a newline.
    """
    mark = {"passed": "✅", "failed": "❌", "error": "🛑", "partial": "⚠️", "ungated": "⚠️"}[
        verdict.status
    ]
    lines = [f"## {mark} {verdict.headline}", "", f"**{_cell(verdict.recommendation)}**", ""]
    if verdict.failed_checks:
        lines += [*(f"- {_cell(check.message)}" for check in verdict.failed_checks), ""]
    if verdict.misspelt_keys:
        lines += [*(f"> ⚠️ {_cell(line)}" for line in verdict.misspelt_keys), ""]
    if lead:
        lines += [*(lead[1:] if lead and not lead[0] else lead), ""]
    if judge.kind == "offline":
        lines += [f"> ⚠️ {OFFLINE_WARNING}", ""]
    judge_line = f"Judge: {code_span(judge.kind)} · model {code_span(judge.model)}"
    if judge.selected_by:
        judge_line += f" · {_cell(judge.selected_by)}"
    lines += [judge_line, ""]

    confidence = f"{round(verdict.confidence * 100, 6):g}%"
    lines += [
        f"| metric | mean | {confidence} CI | threshold | rule | n | n/a | errors | verdict |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        _metric_row(aggregate, changed_thresholds or {}, verdict.outcome(aggregate.metric))
        for aggregate in verdict.metrics.values()
    ]
    lines += _latency_rows(verdict)
    lines.append("")
    gaps = oracle_gap_lines(verdict.oracle_gaps)
    if gaps:
        lines += [*(f"- {_cell(gap)}" for gap in gaps), ""]
    if verdict.alignment is not None:
        mark = "⚠️" if verdict.alignment.alarm else "✅"
        lines += [f"{mark} Alignment: {_cell(verdict.alignment.message)}", ""]

    if verdict.tags:
        lines += ["| tag | metric | mean | threshold | n | verdict |", "|---|---|---|---|---|---|"]
        for tag in verdict.tags:
            cells = [
                code_span(tag.tag),
                code_span(tag.metric),
                _number(tag.mean),
                _number(tag.threshold),
                str(tag.n),
                _verdict_cell(tag.passed),
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")

    mark = "✅" if verdict.error_rate_passed else "❌"
    lines += [f"{mark} Errors: {_cell(verdict.error_rate_message)}", ""]
    mark = "⚠️" if verdict.partial_coverage else "✅"
    lines += [f"{mark} Cases: {_cell(verdict.coverage)}", ""]
    if verdict.auto_repeats is not None:
        lines += [f"🔁 {_cell(verdict.auto_repeats)}", ""]
    unchecked = verdict.not_evaluated_checks
    lines += [f"⚠️ Not evaluated: {_cell(check.message)}" for check in unchecked]
    if unchecked:
        lines.append("")

    if verdict.baseline is not None:
        lines += [
            *_baseline_section(
                verdict.baseline,
                verdict.newly_failing,
                {outcome.metric: outcome for outcome in verdict.outcomes},
            ),
            "",
        ]
    lines += _judge_noise_section(verdict)
    if verdict.pairwise is not None:
        mark = "❌" if verdict.pairwise.passed is False else "🆚"
        lines += [f"{mark} {_cell(verdict.pairwise.line())}", ""]

    lines += _diagnosis_section(verdict.diagnosis)
    lines += _agreement_section(verdict)
    more_in = "HTML report" if html_report else "JSON report"
    failing = _failing_cases(verdict, more_in)
    if failing:
        lines += [*failing, ""]
    lines += _conversation_chats(results, verdict, more_in)

    lines += [
        "### Judge usage",
        "",
        f"{usage.calls:,} calls · {usage.input_tokens:,} input + {usage.output_tokens:,} output "
        f"tokens · ${usage.cost_usd:.4f} estimated · {usage.cache_hits:,} cache hits · "
        f"{usage.retries:,} retries",
    ]
    if verdict.hints and verdict.status != "error":
        lines += ["", "### Hints", ""]
        lines += [f"- {code_span(metric)}: {_cell(hint)}" for metric, hint in verdict.hints.items()]
    return "\n".join(lines) + "\n"
