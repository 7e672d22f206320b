"""The HTML report: one self-contained page that shows why each case passed or failed.

The page is rendered from the JSON report's data — its top-level blocks and its case
records (:func:`~pytest_ragas_gate.reports.json_report.report_cases`) — so
``--rag-gate-html`` at the end of a run and ``rag-gate html REPORT`` on a saved (or
merged) report write the same page.

One file, nothing fetched: the CSS, the script and the charts are inline, and a Content
Security Policy forbids every network request and every script but the page's own
(allowed by its hash). Every string from golden files, answers and judge replies reaches
the page either through Jinja2's autoescaping or as JSON data that the script puts into
the page with ``textContent``; the JSON is escaped so that no ``</script>`` or ``<!--``
inside a case can end its ``<script>`` element.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from ..atomic_files import write_text_atomic
from ..exceptions import ReportError
from ..gate.baseline import case_deltas, pair_cases
from ..gate.judge_noise import JudgeNoise
from ..scoring.results import CaseResult, canonical_order
from ..settings.bounds import Bound
from ..settings.config import GateConfig
from ..stats import percentile
from ..text_safety import LONE_SURROGATE, json_text
from .gate_inputs import gate_inputs_context
from .json_report import (
    SavedReport,
    baseline_results,
    load_report,
    report_cases,
)
from .judge_noise_view import noise_cell

__all__ = [
    "case_anchor",
    "render_html",
    "script_json",
    "write_html",
    "write_saved_report_html",
]

#: Histogram bins of a metric card's distribution chart, over [0, 1].
BINS = 10

#: Keys of a metric aggregate that the card shows in its own places; any other key (the
#: judge–human agreement or PPI figures of a metric, say) is listed under the card.
_CARD_KEYS = frozenset(
    {
        "mean",
        "n",
        "not_applicable",
        "errors",
        "std",
        "ci_low",
        "ci_high",
        "threshold",
        "rule",
        "passed",
        "message",
        "direction",
        "judge_noise",
    }
)

#: Keys of a metric's agreement record that its row of the agreement table shows; any
#: other key is listed in the row's last cell.
_AGREEMENT_KEYS = frozenset({"n", "binary", "threshold", "floors", "passed", "message"})

#: Statistics of the judge–human agreement table, in order, with their column labels.
_AGREEMENT_COLUMNS = (
    ("judge_mean", "judge mean"),
    ("human_mean", "human mean"),
    ("bias", "bias (judge − human)"),
    ("mae", "MAE"),
    ("spearman", "Spearman"),
    ("auroc", "AUROC"),
    ("accuracy", "accuracy"),
    ("kappa", "Cohen's κ"),
)

#: Top-level report blocks the page shows in sections of their own; the rest of the
#: blocks it knows nothing about are listed generically under "More figures".
_KNOWN_BLOCKS = frozenset(
    {
        "schema_version",
        "verdict",
        "generated_at",
        "incomplete",
        "partial",
        "coverage",
        "run",
        "judge",
        "config",
        "metrics",
        "tags",
        "error_rate",
        "failures",
        "checks",
        "failing_metrics",
        "recommendation",
        "hints",
        "latency",
        "alignment",
        "usage",
        "timing",
        "shard",
        "baseline",
        "diagnosis",
        "oracle_gaps",
        "agreement",
        "cases",
        "regated_from",
        "merged_from",
    }
)

#: Case-record keys the page never uses; left out to keep a 1,000-case page small.
_UNUSED_CASE_KEYS = ("metrics", "scoring_s")

#: Order of case statuses, worst first.
_STATUS_ORDER = {"error": 0, "fail": 1, "below": 2, "pass": 3}

# Characters that could end a <script> element or open an HTML comment inside it, or
# end a JavaScript string (U+2028/9 in older engines); JSON escapes keep their meaning.
_SCRIPT_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}

_TEMPLATES = "templates"


def script_json(data: Any) -> Markup:
    r"""``data`` as JSON that is safe to place inside a ``<script>`` element.

    ``<``, ``>`` and ``&`` are written as ``\u`` escapes, so no ``</script>`` or
    ``<!--`` can appear in the text, and ``JSON.parse`` still reads the same strings.

    >>> str(script_json({"answer": "</script><!--"}))
    '{"answer": "\\u003c/script\\u003e\\u003c!--"}'
    """
    text = json_text(data)
    for character, escape in _SCRIPT_ESCAPES.items():
        text = text.replace(character, escape)
    return Markup(text)


def case_anchor(key: str) -> str:
    """The URL fragment that opens a case's panel: ``case=`` and its percent-encoded key.

    >>> case_anchor("golden/qa.jsonl::refund <1>")
    'case=golden%2Fqa.jsonl%3A%3Arefund%20%3C1%3E'
    """
    return "case=" + quote(key, safe="")


@dataclass(frozen=True)
class _MetricColumn:
    """What the case table and the cards need to know of one metric."""

    name: str
    direction: str
    threshold: float | None

    def misses(self, score: float, threshold: float | None) -> bool:
        """Whether ``score`` is on the failing side of ``threshold``."""
        if threshold is None:
            return False
        # The gate's own float slack: a score equal to its threshold on paper passes.
        if self.direction == "max":
            return score - 1e-9 > threshold
        return score + 1e-9 < threshold

    def margin(self, score: float, threshold: float) -> float:
        """How far ``score`` is on the passing side of ``threshold`` (negative: failing)."""
        return threshold - score if self.direction == "max" else score - threshold


def _columns(report: Mapping[str, Any]) -> list[_MetricColumn]:
    columns = []
    metrics = report.get("metrics")
    for name, aggregate in (metrics if isinstance(metrics, Mapping) else {}).items():
        aggregate = aggregate if isinstance(aggregate, Mapping) else {}
        threshold = aggregate.get("threshold")
        columns.append(
            _MetricColumn(
                name=str(name),
                direction="max" if aggregate.get("direction") == "max" else "min",
                threshold=float(threshold) if isinstance(threshold, (int, float)) else None,
            )
        )
    return columns


def _utf16_offset(text: str, index: int) -> int:
    """The position of ``text[index]`` in UTF-16 code units, as JavaScript counts."""
    return index + sum(1 for character in text[:index] if ord(character) > 0xFFFF)


def claim_segments(answer: str, claims: Sequence[Mapping[str, Any]]) -> list[list[int]]:
    """Where each claim stands verbatim in the answer: ``[start, end, claim index]``.

    Offsets are in UTF-16 code units, as the page's script slices strings. A claim that
    the judge rephrased is not found and is only listed below the answer. Claims are
    looked for in order, each after the previous one found, so repeated text is matched
    once.

    >>> claim_segments("Paris is big. It is old.", [{"claim": "It is old."}, {"claim": "x"}])
    [[14, 24, 0]]
    """
    found: list[tuple[int, int, int]] = []
    cursor = 0
    for index, claim in enumerate(claims):
        text = claim.get("claim")
        if not isinstance(text, str) or not text.strip():
            continue
        text = text.strip()
        start = answer.find(text, cursor)
        if start < 0:
            # The judge may list claims out of the answer's order.
            start = answer.find(text)
        if start < 0:
            continue
        found.append((start, start + len(text), index))
        cursor = max(cursor, start + len(text))
    # Keep segments disjoint: a claim found inside an earlier one is listed, not nested.
    disjoint: list[tuple[int, int, int]] = []
    for start, end, index in sorted(found):
        if not disjoint or start >= disjoint[-1][1]:
            disjoint.append((start, end, index))
    return [
        [_utf16_offset(answer, start), _utf16_offset(answer, end), index]
        for start, end, index in disjoint
    ]


@dataclass
class _CaseView:
    """One case as the page's script receives it: the report's record plus what it derives."""

    record: dict[str, Any]
    status: str
    misses: list[str]
    worst: float | None
    deltas: dict[str, list[float]] = field(default_factory=dict)

    def as_data(self) -> dict[str, Any]:
        data = {key: value for key, value in self.record.items() if key not in _UNUSED_CASE_KEYS}
        data.update(status=self.status, misses=self.misses, worst=self.worst)
        if self.deltas:
            data["deltas"] = self.deltas
        return data


def _case_view(
    result: CaseResult,
    record: dict[str, Any],
    columns: Sequence[_MetricColumn],
    bounds: Mapping[str, Bound],
) -> _CaseView:
    """Status, missed thresholds and worst margin of one case."""
    misses: list[str] = []
    margins: list[float] = []
    own_failure = False
    for column in columns:
        score = result.scores.get(column.name)
        if score is None or column.name in result.errors:
            continue
        own = result.thresholds.get(column.name)
        threshold = own if own is not None else column.threshold
        if threshold is not None:
            margins.append(column.margin(score, threshold))
            if column.misses(score, threshold):
                misses.append(column.name)
                own_failure = own_failure or own is not None
    status = (
        "error"
        if result.errored
        else "fail"
        if own_failure or result.case_threshold_failures(bounds)
        else "below"
        if misses
        else "pass"
    )
    record["key"] = result.key
    record["anchor"] = case_anchor(result.key)
    claims = record.get("details", {}).get("faithfulness")
    if isinstance(result.answer, str) and isinstance(claims, list) and claims:
        record["segments"] = claim_segments(result.answer, claims)
    return _CaseView(
        record=record,
        status=status,
        misses=misses,
        worst=round(min(margins), 6) if margins else None,
    )


def _worst_first(view: _CaseView) -> tuple[int, float, str, str]:
    return (
        _STATUS_ORDER[view.status],
        view.worst if view.worst is not None else float("inf"),
        str(view.record.get("source", "")),
        str(view.record.get("id", "")),
    )


def _histogram(scores: Sequence[float], column: _MetricColumn) -> dict[str, Any]:
    """The numbers of a card's SVG: bars over [0, 1], the threshold and the mean."""
    counts = [0] * BINS
    for score in scores:
        counts[min(BINS - 1, max(0, int(score * BINS)))] += 1
    tallest = max(counts) or 1
    width, height = 200.0, 44.0
    step = width / BINS
    bars = []
    for index, count in enumerate(counts):
        middle = (index + 0.5) / BINS
        bar_height = round(height * count / tallest, 2)
        bars.append(
            {
                "x": round(index * step + 1, 2),
                "y": round(height - bar_height, 2),
                "width": round(step - 2, 2),
                "height": bar_height,
                "count": count,
                "low": round(index / BINS, 2),
                "high": round((index + 1) / BINS, 2),
                "misses": column.misses(middle, column.threshold),
            }
        )
    return {
        "width": width,
        "height": height,
        "bars": bars,
        "threshold_x": (None if column.threshold is None else round(column.threshold * width, 2)),
    }


def _percentiles(report: Mapping[str, Any], latencies: Sequence[float]) -> dict[str, Any] | None:
    """p50/p95/max of the live target's latency: the report's own, else from the cases."""
    stored = report.get("latency")
    if isinstance(stored, Mapping) and stored.get("n"):
        return dict(stored)
    if not latencies:
        return None
    return {
        "n": len(latencies),
        "p50": percentile(latencies, 50),
        "p95": percentile(latencies, 95),
        "max": max(latencies),
    }


def _baseline_deltas(
    results: Sequence[CaseResult],
    baseline: Sequence[CaseResult] | None,
    columns: Sequence[_MetricColumn],
) -> tuple[dict[str, dict[str, list[float]]], list[dict[str, Any]]]:
    """Per-case ``{metric: [base, new]}`` and the largest drops, worst first."""
    if baseline is None:
        return {}, []
    pairs, _, _, _ = pair_cases(baseline, results)
    per_case: dict[str, dict[str, list[float]]] = {}
    drops: list[dict[str, Any]] = []
    for column in columns:
        for change in case_deltas(pairs, column.name):
            per_case.setdefault(change.case, {})[column.name] = [change.base, change.new]
            worse = -change.delta if column.direction == "min" else change.delta
            if worse > 1e-9:
                drops.append(
                    {
                        "case": change.case,
                        "anchor": case_anchor(change.case),
                        "metric": column.name,
                        "base": change.base,
                        "new": change.new,
                        "worse": worse,
                    }
                )
    drops.sort(key=lambda drop: (-drop["worse"], drop["case"], drop["metric"]))
    # One line per case, at its largest drop: ten lines naming one case thrice say less.
    listed: set[str] = set()
    largest = []
    for drop in drops:
        if drop["case"] not in listed:
            listed.add(drop["case"])
            largest.append(drop)
    return per_case, largest[:10]


def _figure_text(value: Any) -> str:
    """A statistic as text: ``0.78 [0.56–0.95]`` with its interval, ``–`` when absent."""
    if isinstance(value, Mapping):
        point = value.get("value")
        if not isinstance(point, (int, float)) or isinstance(point, bool):
            return "–"
        low, high = value.get("ci_low"), value.get("ci_high")
        if isinstance(low, (int, float)) and isinstance(high, (int, float)):
            return f"{point:.2f} [{low:.2f}–{high:.2f}]"
        return f"{point:.2f}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:.2f}"
    return "–"


def _agreement_table(report: Mapping[str, Any]) -> dict[str, Any] | None:
    """The judge–human agreement as metric × statistic, each with its interval."""
    agreement = _block(report, "agreement")
    if not agreement:
        return None
    present = [
        (key, label)
        for key, label in _AGREEMENT_COLUMNS
        if any(
            _figure_text(record.get(key)) != "–"
            for record in agreement.values()
            if isinstance(record, Mapping)
        )
    ]
    rows = []
    for metric, record in agreement.items():
        if not isinstance(record, Mapping):
            continue
        floors = record.get("floors")
        rows.append(
            {
                "metric": str(metric),
                "n": record.get("n", 0),
                "binary": bool(record.get("binary")),
                "cells": {key: _figure_text(record.get(key)) for key, _ in present},
                "passed": record.get("passed"),
                "floors": dict(floors) if isinstance(floors, Mapping) else {},
                "message": str(record.get("message") or ""),
                "more": {
                    key: value
                    for key, value in record.items()
                    if key not in _AGREEMENT_KEYS
                    and key not in dict(_AGREEMENT_COLUMNS)
                    and not _nothing(value)
                },
            }
        )
    return {"columns": present, "rows": rows, "more": any(row["more"] for row in rows)}


def _ppi_view(aggregate: Mapping[str, Any]) -> dict[str, str] | None:
    """A metric's prediction-powered estimate as short lines of text, or None."""
    ppi = aggregate.get("ppi")
    if not isinstance(ppi, Mapping) or not isinstance(ppi.get("estimate"), (int, float)):
        return None
    low, high = ppi.get("ci_low"), ppi.get("ci_high")
    interval = (
        f"{low:.3f}–{high:.3f}"
        if isinstance(low, (int, float)) and isinstance(high, (int, float))
        else "–"
    )
    return {
        "estimate": f"{ppi['estimate']:.3f}",
        "interval": interval,
        "labels": f"{ppi.get('labelled', 0)} labelled, {ppi.get('unlabelled', 0)} unlabelled",
        "judge": _figure_text(ppi.get("judge_mean")),
        "human": _figure_text(ppi.get("human_mean")),
        "rectifier": (
            f"{ppi['rectifier']:+.3f}" if isinstance(ppi.get("rectifier"), (int, float)) else "–"
        ),
    }


def _nothing(value: Any) -> bool:
    """Whether a figure says nothing: null, empty, or a count of zero (no labels yet)."""
    if isinstance(value, bool):
        return False
    return value is None or value == 0 or (isinstance(value, (Mapping, list)) and not value)


def _block(parent: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """``parent[key]`` when it is an object, else an empty one (absent or null blocks)."""
    value = parent.get(key)
    return value if isinstance(value, Mapping) else {}


def _usage_table(report: Mapping[str, Any]) -> dict[str, Any]:
    """Judge usage, in total then per metric, over every counter the report holds.

    Counters added to the usage records later (cache read and write tokens, say) get a
    column of their own without a change here.
    """
    usage = _block(report, "usage")
    by_metric = _block(usage, "by_metric")
    records = [("all metrics", usage), *by_metric.items()]
    columns: list[str] = []
    for _, record in records:
        for key, value in record.items() if isinstance(record, Mapping) else ():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                if key not in columns:
                    columns.append(key)
    rows = []
    for name, record in records:
        values = {}
        for column in columns:
            value = record.get(column) if isinstance(record, Mapping) else None
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                values[column] = f"${value:,.4f}" if column.startswith("cost") else f"{value:,}"
        rows.append({"name": str(name), "cells": values})
    return {"columns": columns, "rows": rows}


def page_context(
    report: Mapping[str, Any],
    results: Sequence[CaseResult],
    *,
    baseline: Sequence[CaseResult] | None = None,
) -> dict[str, Any]:
    """Everything the template shows, from the report's blocks and its case records.

    Args:
        report: The JSON report's top-level blocks (its ``cases`` are not read).
        results: The run's case results, from which the case records are made.
        baseline: The baseline's case results, for per-case deltas; None without one.

    Returns:
        The template's context.
    """
    config = GateConfig.model_validate(report.get("config") or {})
    columns = _columns(report)
    ordered = canonical_order(results)
    bounds = config.bounds()
    views = [
        _case_view(result, record, columns, bounds)
        for result, record in zip(ordered, report_cases(ordered, config), strict=True)
    ]
    per_case, drops = _baseline_deltas(ordered, baseline, columns)
    for view in views:
        view.deltas = per_case.get(str(view.record["key"]), {})
    views.sort(key=_worst_first)

    metrics = _block(report, "metrics")
    comparison = _block(report, "baseline") or None
    cards = []
    for column in columns:
        aggregate = dict(metrics.get(column.name) or {})
        scores = [
            float(score)
            for view in views
            if isinstance(score := view.record.get("scores", {}).get(column.name), (int, float))
        ]
        delta = None
        if comparison is not None:
            delta = (comparison.get("metrics") or {}).get(column.name)
        ppi = _ppi_view(aggregate)
        shown_apart = {"labelled", "ppi"} if ppi else {"labelled"}
        cards.append(
            {
                "name": column.name,
                "direction": column.direction,
                "aggregate": aggregate,
                "chart": _histogram(scores, column),
                "delta": delta,
                "noise": _noise_text(aggregate.get("judge_noise")),
                "labelled": aggregate.get("labelled") or 0,
                "ppi": ppi,
                "extra": {
                    key: value
                    for key, value in aggregate.items()
                    if key not in _CARD_KEYS and key not in shown_apart and not _nothing(value)
                },
            }
        )

    latencies = [
        float(view.record["latency_s"])
        for view in views
        if isinstance(view.record.get("latency_s"), (int, float))
    ]
    tags = sorted({str(tag) for view in views for tag in view.record.get("tags") or []})
    data = {
        "metrics": [
            {"name": c.name, "direction": c.direction, "threshold": c.threshold} for c in columns
        ],
        "tags": tags,
        "cases": [view.as_data() for view in views],
        "baseline": comparison is not None or baseline is not None,
    }
    counts = {status: 0 for status in _STATUS_ORDER}
    for view in views:
        counts[view.status] += 1
    return {
        "report": report,
        "judge": report.get("judge") if isinstance(report.get("judge"), Mapping) else {},
        "cards": cards,
        "counts": counts,
        "latency": _percentiles(report, latencies),
        "drops": drops,
        "comparison": comparison,
        "more": {
            key: value
            for key, value in report.items()
            if key not in _KNOWN_BLOCKS and not _nothing(value)
        },
        "usage": _usage_table(report),
        "agreement": _agreement_table(report),
        # Only a metric some case can be below is worth a filter entry: a gated one, or
        # one that a case's own threshold gates.
        "missable": [
            column.name
            for column in columns
            if column.threshold is not None or any(column.name in view.misses for view in views)
        ],
        "tags": tags,
        "data": script_json(data),
        "case_count": len(views),
        **gate_inputs_context(_block(report, "run"), cache_mode=config.cache),
    }


def _environment() -> Environment:
    environment = Environment(
        loader=PackageLoader("pytest_ragas_gate", f"reports/{_TEMPLATES}"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters["score"] = _score_text
    environment.filters["signed"] = _signed_text
    environment.filters["percent"] = _percent_text
    environment.filters["seconds"] = _seconds_text
    environment.globals["anchor"] = case_anchor
    return environment


def _noise_text(noise: Any) -> str | None:
    """The card's judge-noise line, from the report's ``judge_noise`` of the metric."""
    if not isinstance(noise, Mapping):
        return None
    try:
        return noise_cell(JudgeNoise.model_validate(noise))
    except ValueError:
        return None


def _score_text(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, (int, float)) else "–"


def _signed_text(value: Any) -> str:
    return f"{value:+.3f}" if isinstance(value, (int, float)) else "–"


def _percent_text(value: Any) -> str:
    return f"{value:.0%}" if isinstance(value, (int, float)) else "–"


def _seconds_text(value: Any) -> str:
    return f"{value:.2f} s" if isinstance(value, (int, float)) else "–"


def _asset(name: str) -> str:
    return (
        resources.files(__package__ or "pytest_ragas_gate.reports") / _TEMPLATES / name
    ).read_text(encoding="utf-8")


def _csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def render_html(
    report: Mapping[str, Any],
    results: Sequence[CaseResult],
    *,
    baseline: Sequence[CaseResult] | None = None,
) -> str:
    """The whole page as one string.

    Args:
        report: The JSON report's top-level blocks.
        results: The run's case results.
        baseline: The baseline's case results, for per-case deltas; None without one.

    Returns:
        A self-contained HTML document.
    """
    script = _asset("report.js")
    style = _asset("report.css")
    context = page_context(report, results, baseline=baseline)
    page = (
        _environment()
        .get_template("report.html.j2")
        .render(
            **context,
            script=Markup(script),
            style=Markup(style),
            script_hash=_csp_hash(script),
        )
    )
    # Text from a judge or a live target may hold a lone surrogate, which no encoder
    # writes; the page shows the replacement character instead.
    return LONE_SURROGATE.sub("\ufffd", page)


def write_html(
    path: str | Path,
    report: Mapping[str, Any],
    results: Sequence[CaseResult],
    *,
    baseline: Sequence[CaseResult] | None = None,
) -> None:
    """Render the page and write it to ``path`` atomically.

    Args:
        path: The destination file.
        report: The JSON report's top-level blocks.
        results: The run's case results.
        baseline: The baseline's case results, for per-case deltas; None without one.
    """
    write_text_atomic(path, render_html(report, results, baseline=baseline))


def write_saved_report_html(
    report_path: str | Path, output: str | Path, *, baseline: str | None = None
) -> SavedReport:
    """``rag-gate html``: the page of a saved (or merged) JSON report.

    Args:
        report_path: The JSON report.
        output: Where to write the page.
        baseline: A baseline report for per-case deltas (default: the one the report was
            compared with, when that file is still readable).

    Returns:
        The report read.

    Raises:
        ReportError: A report cannot be read, or the page cannot be written.
    """
    saved = load_report(report_path)
    head = {key: value for key, value in saved.raw.items() if key != "cases"}
    try:
        write_html(output, head, saved.results, baseline=baseline_results(saved, baseline))
    except OSError as error:
        raise ReportError(f"Cannot write {output}: {error.strerror or error}.") from None
    return saved
