"""The run history: one compact JSON line per run, so a team sees how each metric moves.

A plain JSON Lines file, written by ``--rag-gate-output history=PATH`` (setting
``outputs.history``) at the end of every run, or by ``rag-gate gate REPORT --history
history.jsonl`` from saved reports;
a team commits it or keeps it as a CI artifact, no server involved. Each line holds the
run's time, commit, verdict and per-metric mean, interval and n::

    {"rag_gate_history": 1, "time": "2026-05-01T12:00:00+00:00", "commit": "0123abc…",
     "verdict": "passed", "cases": 62, "metrics": {"faithfulness": {"mean": 0.91, …}}}

The HTML report draws each gated metric's trend from it and the pull-request comment gives
one line per metric. A line that is not JSON, or JSON that is not an entry of ours (a file
shared with other tools), is skipped with a warning naming the line: the history informs,
it never decides, so a damaged line must not stop a run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ..exceptions import ReportError
from ..gate.judge_changes import judged_differently, judged_line
from ..gate.metric_outcome import shown_value
from ..judges.base import JudgeInfo, MetricJudge
from ..text_safety import json_text

__all__ = [
    "HISTORY_VERSION",
    "HistoryEntry",
    "HistoryMetric",
    "append_history",
    "entry_from_report",
    "judge_change_note",
    "read_history",
    "recent_runs",
    "trend_chart",
    "trend_line",
]

#: The value of an entry's ``rag_gate_history`` key, which tells our lines from others'.
HISTORY_VERSION = 1

#: Runs a trend shows, the current one included.
TREND_RUNS = 20


class HistoryMetric(BaseModel):
    """One metric of one run: its mean and interval, the threshold then in force."""

    model_config = ConfigDict(extra="ignore")

    mean: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int = 0
    threshold: float | None = None
    direction: str = "min"
    passed: bool | None = None
    # Who scored the metric in that run (None: an entry written before it was kept).
    judge: MetricJudge | None = None


class HistoryEntry(BaseModel):
    """One run of the history file."""

    model_config = ConfigDict(extra="ignore")

    rag_gate_history: int = HISTORY_VERSION
    time: str
    commit: str | None = None
    run_url: str | None = None
    verdict: str
    cases: int | None = None
    metrics: dict[str, HistoryMetric]

    @property
    def identity(self) -> tuple[str, str | None]:
        """Time and commit: the same run added twice is one run."""
        return self.time, self.commit

    def line(self) -> str:
        """The entry as one compact JSON line, without a newline."""
        return json_text(self.model_dump(mode="json", exclude_none=True), separators=(",", ":"))


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def entry_from_report(report: Mapping[str, Any]) -> HistoryEntry:
    """The history entry of a JSON report (as written, or as :func:`build_report` builds it).

    >>> entry = entry_from_report({"generated_at": "2026-05-01T12:00:00+00:00",
    ...     "verdict": "passed", "run": {"commit": "abc"},
    ...     "metrics": {"faithfulness": {"mean": 0.9, "n": 3, "threshold": 0.8}}})
    >>> entry.line()  # doctest: +NORMALIZE_WHITESPACE
    '{"rag_gate_history":1,"time":"2026-05-01T12:00:00+00:00","commit":"abc","verdict":"passed","metrics":{"faithfulness":{"mean":0.9,"n":3,"threshold":0.8,"direction":"min"}}}'
    """
    run = report.get("run")
    run = run if isinstance(run, Mapping) else {}
    metrics: dict[str, HistoryMetric] = {}
    judge = _judge(report.get("judge"))
    stored = report.get("metrics")
    for name, aggregate in (stored if isinstance(stored, Mapping) else {}).items():
        aggregate = aggregate if isinstance(aggregate, Mapping) else {}
        passed = aggregate.get("passed")
        n = aggregate.get("n")
        outcome = aggregate.get("outcome")
        status = outcome.get("status") if isinstance(outcome, Mapping) else None
        # A run its judge could not decide measured nothing: it adds no point to a trend.
        unjudged = report.get("verdict") == "error" or status == "not_judged"
        metrics[str(name)] = HistoryMetric(
            mean=None if unjudged else _number(aggregate.get("mean")),
            ci_low=_number(aggregate.get("ci_low")),
            ci_high=_number(aggregate.get("ci_high")),
            n=n if isinstance(n, int) else 0,
            threshold=_number(aggregate.get("threshold")),
            direction="max" if aggregate.get("direction") == "max" else "min",
            passed=passed if isinstance(passed, bool) else None,
            judge=None if judge is None else judge.of_metric(str(name)),
        )
    gated = run.get("gated_cases")
    commit, run_url = run.get("commit"), run.get("run_url")
    return HistoryEntry(
        time=str(report.get("generated_at") or ""),
        commit=commit if isinstance(commit, str) else None,
        run_url=run_url if isinstance(run_url, str) else None,
        verdict=str(report.get("verdict") or "unknown"),
        cases=gated if isinstance(gated, int) else None,
        metrics=metrics,
    )


def _judge(stored: Any) -> JudgeInfo | None:
    """The judge block of a report, or None when it does not read as one."""
    try:
        return JudgeInfo.model_validate(stored)
    except ValidationError:
        return None


def judge_change_note(metric: str, runs: Sequence[HistoryEntry]) -> str | None:
    """``3 earlier runs judged by claude-x prompt v6, this run v7``, or None when alike.

    The last run is this one; an earlier run whose judge was not recorded is not counted.
    """
    if not runs or metric not in runs[-1].metrics:
        return None
    now = runs[-1].metrics[metric].judge
    if now is None:
        return None
    others = [
        figures.judge
        for entry in runs[:-1]
        if (figures := entry.metrics.get(metric)) is not None
        and figures.mean is not None
        and figures.judge is not None
        and judged_differently(figures.judge, now)
    ]
    if not others:
        return None
    count = len(others)
    subject = f"{count} earlier run{'' if count == 1 else 's'}"
    return judged_line(subject, others[-1], now)


def _first_problem(error: ValidationError) -> str:
    problem = error.errors()[0]
    where = ".".join(str(part) for part in problem["loc"]) or "entry"
    return f"{where}: {problem['msg']}"


def read_history(path: str | Path) -> tuple[list[HistoryEntry], list[str]]:
    """The entries of a history file, and a warning for each line skipped.

    A missing file is an empty history: the first run creates it.

    Raises:
        ReportError: The file exists but cannot be read.
    """
    source = Path(path)
    if not source.exists():
        return [], []
    try:
        text = source.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise ReportError(f"Cannot read the history {source}: {error.strerror or error}.") from None
    entries: list[HistoryEntry] = []
    warnings: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as error:
            warnings.append(f"{source} line {number}: not JSON ({error.msg}); skipped")
            continue
        if not isinstance(raw, dict) or raw.get("rag_gate_history") != HISTORY_VERSION:
            warnings.append(
                f"{source} line {number}: not a pytest-ragas-gate history entry (expected an "
                f'object with "rag_gate_history": {HISTORY_VERSION}); skipped'
            )
            continue
        try:
            entries.append(HistoryEntry.model_validate(raw))
        except ValidationError as error:
            warnings.append(
                f"{source} line {number}: invalid entry, {_first_problem(error)}; skipped"
            )
    return entries, warnings


def append_history(path: str | Path, entries: Iterable[HistoryEntry]) -> int:
    """Append the entries not already in the file (same time and commit); returns how many.

    Raises:
        ReportError: The file cannot be written.
    """
    target = Path(path)
    existing, _ = read_history(target)
    known = {entry.identity for entry in existing}
    lines = []
    for entry in entries:
        if entry.identity not in known:
            known.add(entry.identity)
            lines.append(entry.line() + "\n")
    if not lines:
        return 0
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # A file that does not end its last line (edited by hand) gets one first.
        needs_newline = (
            target.exists()
            and target.stat().st_size > 0
            and (not target.read_bytes().endswith(b"\n"))
        )
        with target.open("a", encoding="utf-8") as handle:
            handle.write(("\n" if needs_newline else "") + "".join(lines))
    except OSError as error:
        raise ReportError(
            f"Cannot write the history {target}: {error.strerror or error}."
        ) from None
    return len(lines)


def recent_runs(
    entries: Sequence[HistoryEntry], current: HistoryEntry, limit: int = TREND_RUNS
) -> list[HistoryEntry]:
    """The last ``limit`` runs ending with ``current`` (once, however it was recorded)."""
    earlier = [entry for entry in entries if entry.identity != current.identity]
    earlier.sort(key=lambda entry: entry.time)
    return [*earlier[-(limit - 1) :], current] if limit > 1 else [current]


_BLOCKS = "▁▂▃▄▅▆▇█"


def trend_line(metric: str, runs: Sequence[HistoryEntry]) -> str | None:
    """One line on a metric's course: a sparkline, the first and last means, the threshold.

    Every sparkline shares the 0–1 scale, so a flat 0.91 reads high and a flat 0.30 low,
    and two metrics' lines compare at a glance. A threshold that changed over the runs is
    shown as it was and as it is.

    >>> runs = [HistoryEntry(time=str(i), verdict="passed", metrics={"f": HistoryMetric(
    ...     mean=m, threshold=0.8)}) for i, m in enumerate([0.9, 0.85, 0.3])]
    >>> trend_line("f", runs)
    '`f` ▇▇▃ 0.90 → 0.30 over 3 runs (threshold ≥ 0.80)'
    """
    means = [
        (entry.metrics[metric].mean, entry.metrics[metric])
        for entry in runs
        if metric in entry.metrics and entry.metrics[metric].mean is not None
    ]
    if len(means) < 2:
        return None
    values = [float(mean) for mean, _ in means if mean is not None]
    # The last point is this run's only when this run measured the metric.
    current = runs[-1].metrics.get(metric) if runs else None
    unjudged = current is None or current.mean is None
    top = len(_BLOCKS) - 1
    spark = "".join(_BLOCKS[min(top, max(0, round(value * top)))] for value in values)
    last = means[-1][1]
    threshold = ""
    if last.threshold is not None:
        sign = "≤" if last.direction == "max" else "≥"
        first = next((f.threshold for _, f in means if f.threshold is not None), None)
        was = f"{first:.2f} → " if first is not None and abs(first - last.threshold) > 1e-9 else ""
        threshold = f" (threshold {sign} {was}{last.threshold:.2f})"
    change = judge_change_note(metric, runs)
    judged = "" if change is None else f" · ⚠️ {change}: not comparable"
    end = f"{values[-1]:.2f}"
    if last.threshold is not None:
        end = shown_value(values[-1], last.threshold, "max" if last.direction == "max" else "min")[
            0
        ]
    suffix = " — this run not judged, its last judged runs shown" if unjudged else ""
    return (
        f"`{metric}` {spark} {values[0]:.2f} → {end} over {len(values)} runs"
        f"{threshold}{suffix}{judged}"
    )


def trend_chart(metric: str, runs: Sequence[HistoryEntry]) -> dict[str, Any] | None:
    """The numbers of a metric card's trend SVG: one point per run, the threshold, the last.

    The vertical scale spans the means, their intervals and the threshold, with a margin, so
    a drift of a few hundredths is visible and the threshold line is always in the chart.
    """
    points = [
        (index, entry, entry.metrics[metric])
        for index, entry in enumerate(runs)
        if metric in entry.metrics and entry.metrics[metric].mean is not None
    ]
    if len(points) < 2:
        return None
    threshold = points[-1][2].threshold
    thresholds = [figures.threshold for _, _, figures in points]
    values = [
        value
        for _, _, figures in points
        for value in (figures.mean, figures.ci_low, figures.ci_high)
        if value is not None
    ]
    values += [value for value in thresholds if value is not None]
    low, high = min(values), max(values)
    margin = max(0.02, (high - low) * 0.1)
    low, high = max(0.0, low - margin), min(1.0, high + margin) if high <= 1.0 else high + margin
    if high - low < 1e-9:
        high = low + 0.1
    width, height = 200.0, 50.0
    step = width / max(1, len(points) - 1)

    def y(value: float) -> float:
        return round(height - (value - low) / (high - low) * height, 2)

    drawn = []
    for index, (_, entry, figures) in enumerate(points):
        mean = float(figures.mean or 0.0)
        drawn.append(
            {
                "x": round(index * step, 2),
                "y": y(mean),
                "mean": mean,
                "label": (
                    f"{entry.time[:16].replace('T', ' ')}"
                    + (f" {entry.commit[:7]}" if entry.commit else "")
                    + f": {mean:.3f} ({entry.verdict})"
                ),
                "failed": figures.passed is False,
                # Only the point of the run the page is about is ringed as "this run".
                "current": points[index][0] == len(runs) - 1,
            }
        )
    xs = [round(index * step, 2) for index in range(len(points))]
    threshold_y = None if threshold is None else y(threshold)
    # The last mean and the threshold are labelled at the right end; kept 10 units apart.
    value_label_y: float = y(float(points[-1][2].mean or 0.0)) + 3
    threshold_label_y = None if threshold_y is None else threshold_y + 3
    if threshold_label_y is not None and abs(value_label_y - threshold_label_y) < 10:
        shift = (10 - abs(value_label_y - threshold_label_y)) / 2
        if value_label_y <= threshold_label_y:
            value_label_y, threshold_label_y = value_label_y - shift, threshold_label_y + shift
        else:
            value_label_y, threshold_label_y = value_label_y + shift, threshold_label_y - shift
    return {
        "width": width,
        "height": height,
        "points": drawn,
        # Each run's own threshold, as steps half-way between runs: an earlier run that
        # failed at 0.85 is drawn against 0.85, not against today's 0.80.
        "threshold_path": _threshold_steps(
            [(x, None if t is None else y(t)) for x, t in zip(xs, thresholds, strict=True)],
            step,
        ),
        "threshold_changed": len({t for t in thresholds if t is not None}) > 1,
        "value_label_y": round(value_label_y, 2),
        "threshold_label_y": None if threshold_label_y is None else round(threshold_label_y, 2),
        "path": " ".join(
            f"{'M' if index == 0 else 'L'}{point['x']} {point['y']}"
            for index, point in enumerate(drawn)
        ),
        "current": drawn[-1],
        "this_run_judged": bool(drawn[-1]["current"]),
        "threshold": threshold,
        "threshold_y": threshold_y,
        "runs": len(drawn),
        "judge_change": judge_change_note(metric, runs),
        "low": round(low, 2),
        "high": round(high, 2),
    }


def _threshold_steps(points: Sequence[tuple[float, float | None]], step: float) -> str:
    """An SVG path through each run's threshold, stepping half-way between two runs.

    >>> _threshold_steps([(0.0, 10.0), (100.0, 10.0), (200.0, 20.0)], 100.0)
    'M0.0 10.0 H50.0 H150.0 V20.0 H200.0'
    """
    parts: list[str] = []
    previous: float | None = None
    for index, (x, y) in enumerate(points):
        left = max(0.0, x - step / 2) if index else 0.0
        right = x + step / 2 if index < len(points) - 1 else x
        if y is None:
            previous = None
            continue
        if previous is None:
            parts.append(f"M{round(left, 2)} {y}")
        elif previous != y:
            parts.append(f"V{y}")
        parts.append(f"H{round(right, 2)}")
        previous = y
    return " ".join(parts)
