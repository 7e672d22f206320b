"""The HTML report: one self-contained page that shows why each case passed or failed.

The page is rendered from the JSON report's data — its top-level blocks and its case
records (:func:`~pytest_ragas_gate.reports.json_report.report_cases`) — so
``outputs.html`` at the end of a run and ``rag-gate render REPORT`` on a saved (or
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
import functools
import gzip
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup
from pydantic import ValidationError

from ..atomic_files import write_text_atomic
from ..exceptions import ReportError
from ..gate.baseline import case_deltas, case_drops, pair_cases
from ..gate.case_verdicts import CaseStatus, CaseVerdict
from ..gate.judge_noise import JudgeNoise
from ..gate.judge_outage import ErrorCause, error_cause, outage_cause, outage_remedy
from ..gate.metric_outcome import MetricOutcome
from ..scoring.results import CaseResult, canonical_order
from ..settings.bounds import Bound, Direction
from ..settings.config import GateConfig
from ..stats import percentile
from ..text_safety import LONE_SURROGATE, json_text
from .anchors import case_anchor
from .gate_inputs import gate_inputs_context
from .history import HistoryEntry, entry_from_report, recent_runs, trend_chart
from .json_report import (
    SavedReport,
    baseline_report,
    load_report,
    report_cases,
    saved_case_verdicts,
    saved_stamp,
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

#: Bytes of case JSON above which the page carries the cases gzipped (see ``_packed``).
PACK_OVER = 2_000_000

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
        "baseline_mean",
        "baseline_paired",
        "baseline_passed",
        "newly_failing",
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
        "pairwise",
        "diagnosis",
        "conversations",
        "oracle_gaps",
        "agreement",
        "cases",
        "regated_from",
        "merged_from",
    }
)

#: Case-record keys the page never uses; left out to keep a 1,000-case page small.
_UNUSED_CASE_KEYS = ("metrics", "scoring_s", "verdict")

#: Order of case statuses, worst first.
_STATUS_ORDER = {"error": 0, "fail": 1, "below": 2, "pass": 3}

#: The page's word for each case status the gate decides.
_STATUS_WORDS: dict[CaseStatus, str] = {
    "errored": "error",
    "failed": "fail",
    "below": "below",
    "passed": "pass",
}

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
        return not Bound(threshold, "max" if self.direction == "max" else "min").met_by(score)

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


def _empty(value: Any) -> bool:
    """None, False, an empty mapping or list: what a case record holds by default."""
    return value is None or value is False or (isinstance(value, (dict, list)) and not value)


@dataclass
class _CaseView:
    """One case as the page's script receives it: the report's record plus what it derives."""

    record: dict[str, Any]
    status: str
    misses: list[str]
    worst: float | None
    deltas: dict[str, list[float]] = field(default_factory=dict)

    def as_data(self) -> dict[str, Any]:
        # Empty and default values are left out and scores shortened to six decimals (the
        # page shows three): at 20,000 cases each byte of a record is 20 kB of page.
        data = {
            key: value
            for key, value in self.record.items()
            if key not in _UNUSED_CASE_KEYS and not _empty(value)
        }
        scores = data.get("scores")
        if isinstance(scores, dict):
            data["scores"] = {
                name: round(score, 6) if isinstance(score, float) else score
                for name, score in scores.items()
            }
        data.update(status=self.status, misses=self.misses, worst=self.worst)
        if self.deltas:
            data["deltas"] = self.deltas
        return data


def _case_view(
    result: CaseResult,
    record: dict[str, Any],
    columns: Sequence[_MetricColumn],
    case: CaseVerdict,
) -> _CaseView:
    """The case's status and missed thresholds as the gate decided them, and its worst margin."""
    margins: list[float] = []
    for column in columns:
        score = result.scores.get(column.name)
        if score is None or column.name in result.errors:
            continue
        own = result.thresholds.get(column.name)
        threshold = own if own is not None else column.threshold
        if threshold is not None:
            margins.append(column.margin(score, threshold))
    shown = {column.name for column in columns}
    misses = [metric for metric in case.missed_metrics if metric in shown]
    status = _STATUS_WORDS[case.status]
    record["key"] = result.key
    record["anchor"] = case_anchor(result.key)
    cause = error_cause(result)
    if cause is not None and cause != "error":
        record["cause"] = cause
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
        "total": len(scores),
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
    for column in columns:
        for change in case_deltas(pairs, column.name):
            per_case.setdefault(change.case, {})[column.name] = [change.base, change.new]
    directions: dict[str, Direction] = {
        column.name: "max" if column.direction == "max" else "min" for column in columns
    }
    # Drops of gated metrics first: a metric only reported never crowds them out.
    gated = {column.name for column in columns if column.threshold is not None}
    drops: list[dict[str, Any]] = [
        {
            "case": change.case,
            "anchor": case_anchor(change.case),
            "metric": change.metric,
            "gated": change.metric in gated,
            "base": change.base,
            "new": change.new,
        }
        for change in case_drops(baseline, results, directions, gated)
    ]
    # One line per case, at its largest drop: ten lines naming one case thrice say less.
    listed: set[str] = set()
    largest = []
    for drop in drops:
        if drop["case"] not in listed:
            listed.add(drop["case"])
            largest.append(drop)
    return per_case, largest[:10]


def _claim_verdicts(result: CaseResult) -> list[list[str]]:
    """``[claim, verdict]`` of each faithfulness claim, as the panel names the verdicts."""
    verdicts = []
    for claim in result.details.get("faithfulness") or []:
        text = claim.get("claim")
        if not isinstance(text, str):
            continue
        verdict = claim.get("verdict")
        if not isinstance(verdict, str):
            verdict = "supported" if claim.get("supported") else "not_in_context"
        verdicts.append([text.strip(), verdict])
    return verdicts


def _baseline_changes(
    results: Sequence[CaseResult], baseline: Sequence[CaseResult] | None
) -> dict[str, dict[str, Any]]:
    """What changed in each case since the baseline, for the panel's old-vs-new view.

    Only changed cases are listed, and only what changed is embedded (the old answer when
    it differs, the old claim verdicts when they differ, the old error): the page of a
    large run stays small when most cases are as they were. A case with no baseline pair
    is ``{"new": true}``.
    """
    if baseline is None:
        return {}
    pairs, new_only, _, _ = pair_cases(baseline, results)
    changes: dict[str, dict[str, Any]] = {result.key: {"new": True} for result in new_only}
    for base, new in pairs:
        change: dict[str, Any] = {}
        if (base.answer or "") != (new.answer or ""):
            change["answer"] = base.answer or ""
        old_claims, new_claims = _claim_verdicts(base), _claim_verdicts(new)
        # A case the judge gave no claims for this time was not judged: its old claims are
        # not "no longer claimed".
        if old_claims != new_claims and not (new.errored and not new_claims):
            change["claims"] = old_claims
        # A case the judge alone failed on this time is not a change of the system: only
        # what it was given and answered (and the scores it kept) can have changed.
        unjudged = (
            set(new.errors) & set(new.judge_errors)
            if new.error is None and set(new.errors) <= set(new.judge_errors)
            else set()
        )
        if not unjudged and (
            base.errored != new.errored or (base.error or "") != (new.error or "")
        ):
            change["error"] = (base.error or next(iter(base.errors.values()), "")) or None
            change["errored"] = base.errored
        scores_moved = any(
            (base.scores.get(name) is None) != (new.scores.get(name) is None)
            or abs((base.scores.get(name) or 0.0) - (new.scores.get(name) or 0.0)) > 1e-9
            for name in (set(base.scores) | set(new.scores)) - unjudged
        )
        if change or scores_moved:
            changes[new.key] = change
    return changes


def _confusion(
    views: Sequence[_CaseView], metric: str, threshold: float | None
) -> dict[str, int] | None:
    """Judge pass/fail at the threshold against a binary human label, as four counts."""
    if threshold is None:
        return None
    counts = {"human_pass_judge_pass": 0, "human_pass_judge_fail": 0}
    counts.update({"human_fail_judge_pass": 0, "human_fail_judge_fail": 0})
    for view in views:
        label = (view.record.get("human") or {}).get(metric)
        score = (view.record.get("scores") or {}).get(metric)
        if label not in (0, 1, 0.0, 1.0) or not isinstance(score, (int, float)):
            continue
        # The agreement statistics' own cut: a score at the threshold passes.
        judge = "pass" if score + 1e-9 >= threshold else "fail"
        human = "pass" if label == 1 else "fail"
        counts[f"human_{human}_judge_{judge}"] += 1
    return counts if sum(counts.values()) else None


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
                "threshold": record.get("threshold"),
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


def _with_confusion(
    table: dict[str, Any] | None, views: Sequence[_CaseView]
) -> dict[str, Any] | None:
    """The agreement table with a confusion matrix under each binary metric's row."""
    if table is None:
        return None
    for row in table["rows"]:
        threshold = row.get("threshold")
        row["confusion"] = (
            _confusion(views, row["metric"], float(threshold))
            if row["binary"] and isinstance(threshold, (int, float))
            else None
        )
    return table


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


def _pairwise_view(report: Mapping[str, Any]) -> dict[str, Any] | None:
    """The head-to-head line and the first losses, linked to their case panels."""
    from ..gate.pairwise import PairwiseSummary

    block = report.get("pairwise")
    if not isinstance(block, Mapping):
        return None
    try:
        summary = PairwiseSummary.model_validate(block)
    except ValidationError:
        return None
    losses = [
        {"case": loss.case, "anchor": case_anchor(loss.case)} for loss in summary.worst_losses
    ]
    return {"line": summary.line(), "failed": summary.passed is False, "losses": losses}


def page_context(
    report: Mapping[str, Any],
    results: Sequence[CaseResult],
    *,
    baseline: Sequence[CaseResult] | None = None,
    history: Sequence[HistoryEntry] = (),
    baseline_stamp: Mapping[str, str | None] | None = None,
    cases: Sequence[CaseVerdict] | None = None,
) -> dict[str, Any]:
    """Everything the template shows, from the report's blocks and its case records.

    Args:
        report: The JSON report's top-level blocks (its ``cases`` are not read).
        results: The run's case results, from which the case records are made.
        baseline: The baseline's case results, for per-case deltas; None without one.
        history: The recent runs, this one last, for each gated metric's trend.
        baseline_stamp: The baseline's ``{"commit", "run_url"}``, to name it by them.
        cases: The gate's verdict of each case (default: as the report's config and
            baseline comparison decide them).

    Returns:
        The template's context.
    """
    config = GateConfig.model_validate(report.get("config") or {})
    columns = _columns(report)
    ordered = canonical_order(results)
    verdicts = saved_case_verdicts(report, ordered) if cases is None else cases
    decided = {case.key: case for case in verdicts}
    views = [
        _case_view(result, record, columns, decided[result.key])
        for result, record in zip(ordered, report_cases(ordered, config, verdicts), strict=True)
    ]
    stored = _block(report, "baseline")
    # A metric another judge scored in the baseline has no deltas to show (not compared).
    not_compared = {
        name
        for name, delta in (stored.get("metrics") or {}).items()
        if isinstance(delta, Mapping) and delta.get("compared") is False
    }
    per_case, drops = _baseline_deltas(
        ordered, baseline, [column for column in columns if column.name not in not_compared]
    )
    changes = _baseline_changes(ordered, baseline)
    for view in views:
        view.deltas = per_case.get(str(view.record["key"]), {})
        change = changes.get(str(view.record["key"]))
        if change is not None:
            view.record["base"] = change
    views.sort(key=_worst_first)

    metrics = _block(report, "metrics")
    comparison = _block(report, "baseline") or None
    cards = []
    outcomes: dict[str, MetricOutcome] = {}
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
        shown_apart = {"labelled", "ppi", "outcome"} if ppi else {"labelled", "outcome"}
        outcome = MetricOutcome.from_saved(column.name, aggregate)
        outcomes[column.name] = outcome
        cards.append(
            {
                "name": column.name,
                "direction": column.direction,
                "aggregate": aggregate,
                "chart": _histogram(scores, column),
                "delta": delta,
                "outcome": outcome,
                "status": outcome.status,
                "newly_failing": outcome.newly_failing,
                "noise": _noise_text(aggregate.get("judge_noise")),
                "labelled": aggregate.get("labelled") or 0,
                "ppi": ppi,
                "trend": (
                    trend_chart(column.name, history)
                    if column.threshold is not None and history
                    else None
                ),
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
    data = _packed(data)
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
        "baseline_unchecked": [
            reason
            for reason in report.get("not_evaluated") or []
            if isinstance(reason, str) and reason.startswith("baseline")
        ],
        "newly_failing": [name for name, found in outcomes.items() if found.newly_failing],
        "not_judged": [name for name, found in outcomes.items() if found.status == "not_judged"],
        "baseline_warnings": list((comparison or {}).get("warnings") or []),
        "conversations": len(
            {(result.file, result.conversation) for result in results if result.conversation}
        ),
        "more": {
            key: value
            for key, value in report.items()
            if key not in _KNOWN_BLOCKS and not _nothing(value)
        },
        "usage": _usage_table(report),
        "agreement": _with_confusion(_agreement_table(report), views),
        "changed_count": len(changes),
        "pairwise": _pairwise_view(report),
        "baseline_commit": (baseline_stamp or {}).get("commit"),
        "baseline_run": (baseline_stamp or {}).get("run_url"),
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
        "outage": _outage(
            report, results, any(found.status == "not_judged" for found in outcomes.values())
        ),
        # A conversation run's means count conversations, its histograms count turns.
        "turns": sum(1 for result in results if result.conversation),
        **gate_inputs_context(_block(report, "run"), cache_mode=config.cache),
    }


#: How the page names each cause of an ``error`` verdict in its header.
_CAUSE_TITLES: dict[ErrorCause, str] = {
    "cache miss": "The read-only judge cache had no reply for {n} case(s)",
    "budget": "The judge budget ran out: {n} case(s) left unscored",
    "timeout": "The judge timed out on {n} case(s)",
    "error": "The judge gave no usable answer for {n} case(s)",
}


def _outage(
    report: Mapping[str, Any], results: Sequence[CaseResult], unjudged: bool = False
) -> dict[str, str] | None:
    """What the header says of a judge that gave no usable answer: cause and remedy.

    An ``error`` run decided nothing, so the page shows no quality verdict, hint or
    advice; a failed run with metrics the judge left unscored says which were not judged.
    """
    if report.get("verdict") != "error" and not unjudged:
        return None
    cause = outage_cause(results)
    count = sum(1 for result in results if error_cause(result) == cause)
    return {
        "cause": cause or "error",
        "title": _CAUSE_TITLES[cause or "error"].format(n=count),
        "remedy": outage_remedy(cause, cached=(report.get("config") or {}).get("cache") != "off"),
    }


def _packed(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with its cases gzipped and base64-encoded when they are large.

    Case text compresses several times over, so a 20,000-case page stays in the size of
    an e-mail attachment; the script inflates it with the browser's own
    ``DecompressionStream``. Small pages keep plain JSON, readable in the page source.
    """
    cases = json_text(data["cases"]).encode("utf-8")
    if len(cases) <= PACK_OVER:
        return data
    packed = base64.b64encode(gzip.compress(cases, compresslevel=6, mtime=0)).decode("ascii")
    return {**{key: value for key, value in data.items() if key != "cases"}, "packed": packed}


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


@functools.cache
def _asset(name: str) -> str:
    """The page's script or style as it ships: the code, without comments or indentation.

    Every page carries both, so what only their readers need stays in the package. Only
    whole-line ``//`` comments, ``/* */`` comments of the style, indentation and blank lines
    go, and every line break stays: neither file holds a template literal or a string
    over two lines, the one place those carry meaning (a script that did would ship as
    written). No minifier is used: renaming and joining lines would save little more once
    the page is gzipped, and this one needs no dependency.
    """
    text = (
        resources.files(__package__ or "pytest_ragas_gate.reports") / _TEMPLATES / name
    ).read_text(encoding="utf-8")
    if name.endswith(".css"):
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    elif "`" in text:
        return text
    lines = (line.strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("//")) + "\n"


def _csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def render_html(
    report: Mapping[str, Any],
    results: Sequence[CaseResult],
    *,
    baseline: Sequence[CaseResult] | None = None,
    history: Sequence[HistoryEntry] = (),
    baseline_stamp: Mapping[str, str | None] | None = None,
    cases: Sequence[CaseVerdict] | None = None,
) -> str:
    """The whole page as one string.

    Args:
        report: The JSON report's top-level blocks.
        results: The run's case results.
        baseline: The baseline's case results, for per-case deltas; None without one.
        history: The recent runs, this one last, for each gated metric's trend.
        baseline_stamp: The baseline's ``{"commit", "run_url"}``, to name it by them.
        cases: The gate's verdict of each case (default: as the report decides them).

    Returns:
        A self-contained HTML document.
    """
    script = _asset("report.js")
    style = _asset("report.css")
    context = page_context(
        report,
        results,
        baseline=baseline,
        history=history,
        baseline_stamp=baseline_stamp,
        cases=cases,
    )
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
    history: Sequence[HistoryEntry] = (),
    baseline_stamp: Mapping[str, str | None] | None = None,
    cases: Sequence[CaseVerdict] | None = None,
) -> None:
    """Render the page and write it to ``path`` atomically.

    Args:
        path: The destination file.
        report: The JSON report's top-level blocks.
        results: The run's case results.
        baseline: The baseline's case results, for per-case deltas; None without one.
        history: The recent runs, this one last, for each gated metric's trend.
        baseline_stamp: The baseline's ``{"commit", "run_url"}``, to name it by them.
        cases: The gate's verdict of each case (default: as the report decides them).
    """
    page = render_html(
        report,
        results,
        baseline=baseline,
        history=history,
        baseline_stamp=baseline_stamp,
        cases=cases,
    )
    write_text_atomic(path, page)


def write_saved_report_html(
    report_path: str | Path,
    output: str | Path,
    *,
    baseline: str | None = None,
    history: Sequence[HistoryEntry] = (),
) -> SavedReport:
    """``rag-gate render --format html``: the page of a saved (or merged) JSON report.

    Args:
        report_path: The JSON report.
        output: Where to write the page.
        baseline: A baseline report for per-case deltas (default: the one the report was
            compared with, when that file is still readable).
        history: Recorded runs; the report's run is put last, once, for the trends.

    Returns:
        The report read.

    Raises:
        ReportError: A report cannot be read, or the page cannot be written.
    """
    saved = load_report(report_path)
    head = {key: value for key, value in saved.raw.items() if key != "cases"}
    runs = recent_runs(history, entry_from_report(head)) if history else []
    base = baseline_report(saved, baseline)
    try:
        write_html(
            output,
            head,
            saved.results,
            baseline=None if base is None else base.results,
            history=runs,
            baseline_stamp=None if base is None else saved_stamp(base),
        )
    except OSError as error:
        raise ReportError(f"Cannot write {output}: {error.strerror or error}.") from None
    return saved
