"""The gate's verdict in pytest-html's summary section.

pytest-html counts items: a run whose cases all passed but whose gate blocked the deploy
reads "0 Failed, 20 Passed". Its summary section gets the gate's headline and
recommendation first (above those counts), then the per-metric table, the failure lines
and the hints, so the page never looks green for a blocked deploy.
"""

from __future__ import annotations

from markupsafe import Markup

from ..gate.metric_outcome import MetricOutcome
from ..gate.verdict import GateVerdict, MetricAggregate
from ..stats import format_interval

__all__ = ["verdict_prefix", "verdict_summary"]

#: The headline's colour per verdict, as pytest-html's own outcome colours.
_COLOURS = {
    "passed": "green",
    "failed": "red",
    "error": "darkred",
    "partial": "darkorange",
    "ungated": "darkorange",
}


def verdict_prefix(verdict: GateVerdict) -> str:
    """The headline and recommendation, shown above pytest-html's counts.

    >>> from pytest_ragas_gate.settings.config import GateConfig
    >>> from pytest_ragas_gate.gate.verdict import evaluate_gate
    >>> print(verdict_prefix(evaluate_gate([], [], GateConfig())))  # doctest: +ELLIPSIS
    <p class="rag-gate-verdict rag-gate-failed"><strong style="color: red">RAG gate: FAILED</strong> — Block deployment — no golden cases were scored</p>
    """  # noqa: E501
    colour = _COLOURS.get(verdict.status, "black")
    return str(
        Markup(
            '<p class="rag-gate-verdict rag-gate-{}"><strong style="color: {}">{}</strong> — {}</p>'
        ).format(verdict.status, colour, verdict.headline, verdict.recommendation)
    )


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _row(aggregate: MetricAggregate, outcome: MetricOutcome) -> Markup:
    threshold = "-" if aggregate.threshold is None else f"{aggregate.threshold:.2f}"
    value = outcome.table_text
    if aggregate.threshold is not None and aggregate.direction == "max":
        threshold = f"<={threshold}"
    ci = (
        "-"
        if aggregate.ci_low is None or aggregate.ci_high is None
        else format_interval(aggregate.ci_low, aggregate.ci_high, 3)
    )
    word = outcome.word
    cells = [
        aggregate.metric,
        value,
        ci,
        threshold,
        aggregate.rule if aggregate.threshold is not None else "-",
        str(aggregate.n),
        str(aggregate.not_applicable),
        str(aggregate.errors),
        word,
    ]
    verdict_style = {
        "PASS": "color: green",
        "FAIL": "color: red; font-weight: bold",
        "NOT-JUDGED": "color: gray",
        "NOT-EVALUATED": "color: gray",
    }
    styles = [_CELL] * (len(cells) - 1) + [f"{_CELL}; {verdict_style.get(word, '')}"]
    return Markup("<tr>{}</tr>").format(
        Markup("").join(
            Markup('<td style="{}">{}</td>').format(style, cell)
            for style, cell in zip(styles, cells, strict=True)
        )
    )


# pytest-html styles its own tables only: without padding and rules the columns run together.
_CELL = "padding: 3px 12px; border-bottom: 1px solid #e6e6e6; text-align: left"


def verdict_summary(verdict: GateVerdict) -> list[str]:
    """The per-metric table, the coverage line, the failure lines and the hints."""
    header = ("metric", "mean", "CI", "threshold", "rule", "n", "n/a", "errors", "verdict")
    # On a phone the table scrolls in its own box instead of widening the page.
    table = Markup(
        '<div style="overflow-x: auto; max-width: 100vw">'
        '<table class="rag-gate-metrics" style="border-collapse: collapse; margin: 8px 0">'
        "<tr>{}</tr>{}</table></div>"
    ).format(
        Markup("").join(Markup('<th style="{}">{}</th>').format(_CELL, name) for name in header),
        Markup("").join(
            _row(aggregate, verdict.outcome(aggregate.metric))
            for aggregate in verdict.metrics.values()
        ),
    )
    parts = [str(table), str(Markup("<p>cases: {}</p>").format(verdict.coverage))]
    failing = verdict.failed_checks
    if failing:
        items = Markup("").join(Markup("<li>{}</li>").format(check.message) for check in failing)
        parts.append(str(Markup('<ul class="rag-gate-failures">{}</ul>').format(items)))
    for metric, hint in verdict.hints.items():
        parts.append(str(Markup("<p>hint ({}): {}</p>").format(metric, hint)))
    return parts
