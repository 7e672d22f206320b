"""The labelling loop: ``rag-gate label agreement``, ``label export`` and ``label import``.

- ``agreement REPORT [--labels PATH]`` prints how far the judge of a saved report is from
  the human labels (those saved with its cases, overlaid with a labels file), and the PPI
  estimates; it exits 1 when a ``min_agreement`` floor fails.
- ``label export REPORT -o to_label.csv`` writes the cases worth labelling first: a
  sample stratified over the judge's scores (equal-sized strata and equal counts per
  stratum, so every case is equally likely to be picked and the labels stay a fair sample
  for PPI), plus the cases nearest the threshold, where the judge's verdict is least sure.
  Each row carries how it was picked (``sampled_by``: ``random`` or ``near_threshold``),
  the question, answer, contexts, the judge's score, per-item verdicts and reasons, and an
  empty ``human_<metric>`` column to fill in with 1 (good), 0 (bad) or a value in between.
- ``label import to_label.csv --into TARGET`` merges the filled-in labels into a labels
  file (created when missing) or into a ``.jsonl`` golden file as each case's ``human``
  field, keeping ``sampled_by`` (PPI uses only the random rows); every other line of a
  golden file is left byte for byte as it was.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..atomic_files import write_text_atomic
from ..command_line import EXIT_FAILED, EXIT_PASSED
from ..exceptions import UsageError
from ..gate.verdict import evaluate_gate
from ..golden.cases import LabelSampling, stable_case_id
from ..golden.golden_fields import canonical_field
from ..reports.json_report import load_report
from ..reports.summary import human_label_lines
from ..scoring.results import CaseResult
from ..settings.config import GateConfig
from ..trust.label_checks import normalise_files
from ..trust.labels import (
    LABEL_PREFIX,
    LabelRow,
    LabelSet,
    label_results,
    read_labels,
    unmatched_rows,
)

__all__ = ["register_commands"]


#: Judge-score strata of ``label export``: equal-sized, each sampled equally.
STRATA = 5

# How many of the per-item verdicts a row of the export shows.
_SHOWN_ITEMS = 20


def register_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``label`` (and the old ``agreement``) to the ``rag-gate`` parser, with handlers."""
    # No help: ``agreement`` is an old name, hidden from the list (rag-gate label agreement).
    agreement = commands.add_parser("agreement", description=_AGREEMENT)
    _agreement_arguments(agreement)

    label = commands.add_parser(
        "label",
        help="export cases to label, import the labels, measure judge-human agreement",
        description="The labelling loop: export the cases worth labelling from a report, "
        "fill in the human_<metric> columns, import them back, and see how far the judge "
        "agrees with them.",
    )
    steps = label.add_subparsers(dest="label_command", metavar="STEP", required=True)
    _agreement_arguments(
        steps.add_parser(
            "agreement",
            help="judge-human agreement and PPI estimates of a saved report",
            description=_AGREEMENT,
        )
    )
    export = steps.add_parser(
        "export",
        help="write the cases worth labelling first",
        description="Write a CSV of the report's unlabelled cases worth labelling first: a "
        "sample stratified over the judge's scores, then the cases nearest the threshold.",
    )
    export.add_argument("report", metavar="REPORT", help="a JSON report")
    export.add_argument("-o", "--output", required=True, metavar="OUT", help="the CSV to write")
    export.add_argument(
        "--metric",
        action="append",
        dest="metrics",
        metavar="NAME",
        help="a metric to label; repeatable (default: the report's gated metrics)",
    )
    export.add_argument(
        "-n", "--count", type=int, default=100, metavar="N", help="rows to write (default: 100)"
    )
    export.add_argument(
        "--near-threshold",
        type=float,
        default=0.2,
        metavar="SHARE",
        help="share of the rows taken nearest the threshold rather than at random; 0 keeps "
        "the labels a fair sample for PPI (default: 0.2)",
    )
    imported = steps.add_parser(
        "import",
        help="merge labels into a labels file or a .jsonl golden file",
        description="Merge the human_<metric> labels of a labels file (such as a filled-in "
        "export) into a labels file or a .jsonl golden file.",
    )
    imported.add_argument("labels", metavar="LABELS", help="the filled-in labels file")
    imported.add_argument(
        "--into",
        required=True,
        metavar="TARGET",
        help="a labels file (.csv or .jsonl, created when missing) or a .jsonl golden file",
    )
    agreement.set_defaults(handler=_agreement)
    label.set_defaults(handler=_label)


# --- agreement --------------------------------------------------------------------------


def _agreement(arguments: argparse.Namespace) -> int:
    report = load_report(arguments.report)
    results = report.results
    if arguments.labels:
        labels = _read_labels_file(arguments.labels, report.metrics)
        results = label_results(results, labels)
        stale = unmatched_rows(labels, ((result.file, result.id) for result in results))
        for row in stale[:10]:
            print(
                f"rag-gate label agreement: warning: {labels.path}:{row.line}: no case "
                f"{row.case_id!r} in {arguments.report}",
                file=sys.stderr,
            )
    verdict = evaluate_gate(results, report.metrics, report.config, report.facts)
    lines = human_label_lines(verdict)
    if not lines:
        print(
            f"{arguments.report}: no case carries a human label for {', '.join(report.metrics)}; "
            "label some with `rag-gate label export` and `rag-gate label import`."
        )
        return EXIT_PASSED
    print("\n".join(lines))
    failing = [metric for metric, figures in verdict.agreement.items() if figures.passed is False]
    return EXIT_FAILED if failing else EXIT_PASSED


def _read_labels_file(path: str, metrics: Sequence[str] | None) -> LabelSet:
    if not Path(path).is_file():
        raise UsageError(f"Labels file {path} does not exist.")
    labels = read_labels(path, path, metrics=metrics)
    # Golden files are named as pytest named them, relative to where the gate ran: here.
    return normalise_files(labels, rootdir=Path.cwd(), invocation_dir=Path.cwd())


# --- label export -----------------------------------------------------------------------


def _label(arguments: argparse.Namespace) -> int:
    if arguments.label_command == "export":
        return _export(arguments)
    if arguments.label_command == "agreement":
        return _agreement(arguments)
    return _import(arguments)


_AGREEMENT = (
    "Print how far the judge is from the human labels of a saved report (bias, MAE, "
    "Spearman, AUROC, accuracy and Cohen's kappa, with bootstrap intervals) and the "
    "prediction-powered estimate of each metric. Exits 1 when a trust.agreement.human "
    "floor fails."
)


def _agreement_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("report", metavar="REPORT", help="a JSON report")
    parser.add_argument(
        "--labels", metavar="PATH", help="a labels file laid over the report's own labels"
    )


def _export(arguments: argparse.Namespace) -> int:
    report = load_report(arguments.report)
    if arguments.count < 1:
        raise UsageError(f"--count must be at least 1, got {arguments.count}.")
    if not 0.0 <= arguments.near_threshold <= 1.0:
        raise UsageError(f"--near-threshold must be from 0 to 1, got {arguments.near_threshold}.")
    metrics = arguments.metrics or _gated_metrics(report.config, report.metrics)
    unknown = [metric for metric in metrics if metric not in report.metrics]
    if unknown:
        raise UsageError(
            f"{arguments.report} has no metric {unknown[0]!r} (it has {', '.join(report.metrics)})."
        )
    chosen = select_cases(
        report.results,
        metrics[0],
        count=arguments.count,
        threshold=report.config.effective_thresholds().get(metrics[0]),
        near_threshold=arguments.near_threshold,
        seed=report.config.seed,
    )
    write_text_atomic(arguments.output, _export_csv(chosen, metrics))
    print(
        f"wrote {len(chosen)} case(s) to label to {arguments.output}: fill in the "
        + ", ".join(f"{LABEL_PREFIX}{metric}" for metric in metrics)
        + f" column(s), then `rag-gate label import {arguments.output} --into LABELS_FILE`"
    )
    return EXIT_PASSED


def _gated_metrics(config: GateConfig, metrics: Sequence[str]) -> list[str]:
    gated = [metric for metric in metrics if metric in config.effective_thresholds()]
    return gated or list(metrics)


def select_cases(
    results: Sequence[CaseResult],
    metric: str,
    *,
    count: int,
    threshold: float | None,
    near_threshold: float,
    seed: int,
) -> list[tuple[CaseResult, str]]:
    """The unlabelled scored cases worth labelling first, each with why it was picked.

    The cases are sorted by the judge's score and cut into :data:`STRATA` strata of equal
    size; the random part of the sample takes the same number from each, at random within
    it, so every case has the same chance and the labelled set stays a fair sample. Then
    ``near_threshold`` of the rows go to the cases whose score is nearest the threshold.

    Args:
        results: The report's case results.
        metric: The metric whose score stratifies the cases.
        count: How many cases to pick.
        threshold: The metric's threshold (no near-threshold rows without one).
        near_threshold: The share of rows taken nearest the threshold.
        seed: The seed of the random picks.

    Returns:
        ``(result, reason)`` pairs, the random sample first.
    """
    pool = sorted(
        (
            result
            for result in results
            if result.scores.get(metric) is not None and metric not in result.human
        ),
        key=lambda result: (result.scores[metric], result.source, result.id),
    )
    near = round(count * near_threshold) if threshold is not None else 0
    rng = random.Random(seed)
    random_part = min(count - near, len(pool))
    strata = [
        pool[len(pool) * index // STRATA : len(pool) * (index + 1) // STRATA]
        for index in range(STRATA)
    ]
    for stratum in strata:
        rng.shuffle(stratum)
    picked: list[tuple[CaseResult, str]] = []
    taken: set[str] = set()
    depth = 0
    while len(picked) < random_part:
        for number, stratum in enumerate(strata, 1):
            if depth < len(stratum) and len(picked) < random_part:
                picked.append((stratum[depth], f"random, judge-score stratum {number} of {STRATA}"))
                taken.add(stratum[depth].key)
        depth += 1
    if near and threshold is not None:
        nearest = sorted(
            (result for result in pool if result.key not in taken),
            key=lambda result: (abs(_score(result, metric) - threshold), result.source, result.id),
        )
        picked += [
            (result, f"near the threshold {threshold:.2f}: the judge's least certain verdicts")
            for result in nearest[: count - len(picked)]
        ]
    return picked


def sampled_by(why: str) -> LabelSampling:
    """How :func:`select_cases` picked a row, from the reason it gave."""
    return "random" if why.startswith("random") else "near_threshold"


def _score(result: CaseResult, metric: str) -> float:
    score = result.scores.get(metric)
    return 0.0 if score is None else score


def _verdicts(result: CaseResult, metric: str) -> str:
    """The judge's per-item verdicts and reasons, one per line, for the person labelling."""
    items = result.details.get(metric, [])
    lines = []
    for item in items[:_SHOWN_ITEMS]:
        subject = next(
            (item[key] for key in ("claim", "statement", "chunk", "question") if key in item), ""
        )
        verdict = item.get("verdict", item.get("supported", item.get("relevant", "")))
        reason = item.get("reason", "")
        lines.append(f"[{verdict}] {subject}" + (f" — {reason}" if reason else ""))
    if len(items) > _SHOWN_ITEMS:
        lines.append(f"… and {len(items) - _SHOWN_ITEMS} more")
    summary = result.reasons.get(metric)
    return "\n".join([summary, *lines] if summary else lines)


def _export_csv(chosen: Sequence[tuple[CaseResult, str]], metrics: Sequence[str]) -> str:
    header = ["id", "file", "sampled_by", "why", "question", "answer", "contexts"]
    for metric in metrics:
        header += [f"judge_{metric}", f"judge_{metric}_verdicts", f"{LABEL_PREFIX}{metric}"]
    header.append("notes")
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for result, why in chosen:
        row = [
            result.id,
            result.file,
            sampled_by(why),
            why,
            result.question,
            result.answer or "",
            json.dumps(result.contexts or [], ensure_ascii=False),
        ]
        for metric in metrics:
            score = result.scores.get(metric)
            row += ["" if score is None else f"{score:.4f}", _verdicts(result, metric), ""]
        row.append("")
        writer.writerow(row)
    return buffer.getvalue()


# --- label import -----------------------------------------------------------------------


def _import(arguments: argparse.Namespace) -> int:
    incoming = _read_labels_file(arguments.labels, None)
    target = Path(arguments.into)
    if not incoming.rows:
        print(f"{arguments.labels}: no labels filled in; nothing to import.")
        return EXIT_PASSED
    if target.suffix.lower() == ".jsonl" and target.is_file() and _is_golden_jsonl(target):
        merged, missing = merge_into_golden_jsonl(target, incoming.rows)
        print(f"merged labels of {merged} case(s) into {arguments.into}")
        for row in missing[:10]:
            print(
                f"rag-gate label import: warning: {incoming.path}:{row.line}: no case "
                f"{row.case_id!r} in {arguments.into}",
                file=sys.stderr,
            )
        return EXIT_PASSED
    if target.suffix.lower() not in (".csv", ".jsonl"):
        raise UsageError(
            f"{arguments.into}: labels merge into a .csv or .jsonl labels file, or into a "
            ".jsonl golden file; YAML and JSON golden files would lose their comments and "
            "layout, so keep their labels in a labels file (trust.labels)."
        )
    existing = read_labels(target, arguments.into).rows if target.is_file() else []
    rows = merge_rows(existing, incoming.rows)
    write_text_atomic(target, _labels_text(rows, csv_format=target.suffix.lower() == ".csv"))
    print(
        f"{arguments.into}: {len(rows)} labelled case(s) ({len(incoming.rows)} imported); "
        f"use it with --rag-gate-set trust.labels={arguments.into}"
    )
    return EXIT_PASSED


def merge_rows(existing: Sequence[LabelRow], incoming: Sequence[LabelRow]) -> list[LabelRow]:
    """Existing rows updated metric by metric, new cases appended, order kept."""
    merged: dict[tuple[str | None, str], LabelRow] = {
        (row.file, row.case_id): row for row in existing
    }
    for row in incoming:
        key = (row.file, row.case_id)
        known = merged.get(key)
        labels = {**known.labels, **row.labels} if known is not None else dict(row.labels)
        sampling = row.sampled_by or (known.sampled_by if known is not None else None)
        merged[key] = LabelRow(row.line, row.case_id, row.file, labels, sampling)
    return list(merged.values())


def _labels_text(rows: Sequence[LabelRow], *, csv_format: bool) -> str:
    metrics = list(dict.fromkeys(metric for row in rows for metric in row.labels))
    with_file = any(row.file is not None for row in rows)
    with_sampling = any(row.sampled_by is not None for row in rows)
    if not csv_format:
        records = []
        for row in rows:
            record: dict[str, Any] = {"id": row.case_id}
            if row.file is not None:
                record["file"] = row.file
            if row.sampled_by is not None:
                record["sampled_by"] = row.sampled_by
            record.update({f"{LABEL_PREFIX}{metric}": row.labels[metric] for metric in row.labels})
            records.append(json.dumps(record, ensure_ascii=False))
        return "\n".join(records) + "\n"
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        [
            "id",
            *(["file"] if with_file else []),
            *(["sampled_by"] if with_sampling else []),
            *(LABEL_PREFIX + m for m in metrics),
        ]
    )
    for row in rows:
        cells = [row.case_id, *([row.file or ""] if with_file else [])]
        cells += [row.sampled_by or ""] if with_sampling else []
        cells += [_label_text(row.labels.get(metric)) for metric in metrics]
        writer.writerow(cells)
    return buffer.getvalue()


def _label_text(label: float | None) -> str:
    if label is None:
        return ""
    return str(int(label)) if label in (0.0, 1.0) else f"{label:g}"


def _is_golden_jsonl(path: Path) -> bool:
    """Whether a .jsonl file holds golden cases (a question field), not only labels."""
    for line in path.read_text(encoding="utf-8-sig").split("\n"):
        if line.strip():
            try:
                value = json.loads(line)
            except ValueError:
                return False
            return isinstance(value, dict) and any(
                canonical_field(str(key)) == "question" for key in value
            )
    return False


def merge_into_golden_jsonl(path: Path, rows: Sequence[LabelRow]) -> tuple[int, list[LabelRow]]:
    """Set each labelled case's ``human`` field in a ``.jsonl`` golden file, in place.

    Only the lines of labelled cases are rewritten (their keys keep their order, ``human``
    merged or added last); every other line stays byte for byte as it was.

    Returns:
        How many cases got labels, and the rows that matched no case of the file.
    """
    text = path.read_text(encoding="utf-8-sig")
    lines = text.split("\n")
    wanted = [row for row in rows if row.file is None or Path(row.file).name == path.name]
    by_id: Mapping[str, LabelRow] = {row.case_id: row for row in wanted}
    used: set[str] = set()
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except ValueError:
            continue  # the gate reports a broken line itself, with its line number
        if not isinstance(case, dict):
            continue
        case_id = _case_id_of(case)
        row = by_id.get(case_id) if case_id is not None else None
        if row is None:
            continue
        human_key = next((key for key in case if canonical_field(str(key)) == "human"), "human")
        current = case.get(human_key)
        case[human_key] = {**(current if isinstance(current, dict) else {}), **row.labels}
        if row.sampled_by is not None:
            case["sampled_by"] = row.sampled_by
        lines[index] = json.dumps(case, ensure_ascii=False)
        used.add(row.case_id)
    write_text_atomic(path, "\n".join(lines))
    return len(used), [row for row in wanted if row.case_id not in used]


def _case_id_of(case: Mapping[str, Any]) -> str | None:
    """A golden row's id: its ``id`` field, else the id derived from its question."""
    for key, value in case.items():
        field = canonical_field(str(key))
        if field == "id" and value is not None:
            return str(value).strip()
    for key, value in case.items():
        if canonical_field(str(key)) == "question" and isinstance(value, str):
            return stable_case_id(value)
    return None
