"""Saved reports read one case at a time, so merging and re-gating stay in bounded memory.

``rag-gate gate`` over the reports of a twenty-runner matrix would hold every case of
every shard, answers, contexts and per-claim details included, if it loaded them whole
(``json.loads`` builds the document, then pydantic the results: several times the file's
size). Here each report is parsed incrementally with ijson: its top level (everything but
``cases``) is built as a dict, and its cases are read one at a time and kept in the form
the gate needs (:func:`compact_case`): scores, errors, ids, tags, thresholds, usage and
the texts that pair a baseline (question, reference), with the per-claim details left out
and the answer and contexts replaced by a digest, which is all the gate compares them by.
The gate itself runs unchanged on these results, so its verdict, means and intervals are
the in-memory path's to the last digit.

The merged report is then written case by case (:func:`full_results`): each shard's cases
are read again, whole, and merged in canonical order (every report is written in it).
"""

from __future__ import annotations

import hashlib
import heapq
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import ijson

from ..exceptions import ReportError
from ..gate.coverage import SHARD_REASON_PREFIX
from ..scoring.results import CaseResult
from .json_report import DERIVED_CASE_KEYS, SavedReport, case_result, checked_head, load_report

__all__ = [
    "DIGEST_PREFIX",
    "StreamedReport",
    "compact_case",
    "full_results",
    "read_head",
    "read_streamed",
    "slim_coverage",
]

#: How a digest that stands in for an answer or the contexts begins.
DIGEST_PREFIX = "sha256:"
_CASES = "cases"


@dataclass(frozen=True)
class StreamedReport:
    """A report read as a stream: the saved report with compact results, and their order.

    ``ordered`` says whether its cases were in canonical order, (source, id), as every
    report the gate writes is; a merge writes them back in one pass only then.
    """

    saved: SavedReport
    ordered: bool


def _open(source: Path) -> IO[bytes]:
    try:
        return source.open("rb")
    except OSError as exc:
        raise ReportError(f"Cannot read the report {source}: {exc.strerror or exc}.") from exc


class _Unstreamable(ReportError):
    """A report Python's JSON parser reads but ijson does not: loaded whole instead."""


def _not_json(source: Path, error: Exception) -> ReportError:
    """The error for a report ijson cannot parse, with the line the standard parser names.

    The file is read whole only now that it is known to be broken.
    """
    try:
        json.loads(source.read_text(encoding="utf-8"))
        # Python's parser reads what ijson refuses (NaN, Infinity): load_report names it.
        return _Unstreamable()
    except json.JSONDecodeError as precise:
        return ReportError(
            f"The report {source} is not JSON: line {precise.lineno}, column {precise.colno}: "
            f"{precise.msg}. Pass a file written by --rag-gate-output json=PATH."
        )
    except UnicodeDecodeError as exc:
        return ReportError(f"The report {source} is not UTF-8 text: {exc.reason}.")
    except (OSError, MemoryError):
        pass
    return ReportError(
        f"The report {source} is not JSON ({error}). "
        "Pass a file written by --rag-gate-output json=PATH."
    )


def _value(events: Iterator[tuple[str, str, Any]], first: tuple[str, str, Any]) -> Any:
    """The JSON value whose first event is ``first``, built from ``events``."""
    builder = ijson.ObjectBuilder()
    depth = 0
    event, value = first[1], first[2]
    while True:
        builder.event(event, value)
        if event in ("start_map", "start_array"):
            depth += 1
        elif event in ("end_map", "end_array"):
            depth -= 1
        if depth == 0:
            return builder.value
        _, event, value = next(events)


def read_head(source: Path) -> dict[str, Any]:
    """Every top-level key of a report but its cases (``cases`` is an empty list).

    The cases are skipped, not built; a report that is no JSON object is named as such.

    Raises:
        ReportError: The file cannot be read, is not JSON or is not an object.
    """
    head: dict[str, Any] = {}
    with _open(source) as handle:
        events = iter(ijson.parse(handle, use_float=True))
        try:
            first = next(events, None)
            if first is None or first[1] != "start_map":
                kind = "nothing" if first is None else f"a JSON {_kind(first[1])}"
                raise ReportError(
                    f"The report {source} holds {kind}, not an object; "
                    "pass a file written by --rag-gate-output json=PATH."
                )
            for prefix, event, value in events:
                if prefix != "" or event != "map_key":
                    continue
                opening = next(events)
                if value == _CASES and opening[1] == "start_array":
                    _skip_array(events)
                    head[_CASES] = []
                else:
                    head[value] = _value(events, opening)
        except ijson.JSONError as exc:
            raise _not_json(source, exc) from None
    if _CASES not in head:
        head[_CASES] = None
    return head


def _kind(event: str) -> str:
    return {"start_array": "list", "string": "str", "number": "number"}.get(event, event)


def _skip_array(events: Iterator[tuple[str, str, Any]]) -> None:
    depth = 1
    for _, event, _ in events:
        if event in ("start_map", "start_array"):
            depth += 1
        elif event in ("end_map", "end_array"):
            depth -= 1
            if depth == 0:
                return


def _cases(source: Path) -> Iterator[Any]:
    with _open(source) as handle:
        try:
            yield from ijson.items(handle, "cases.item", use_float=True)
        except ijson.JSONError as exc:
            raise _not_json(source, exc) from None


def _digest(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return DIGEST_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def compact_case(item: Any) -> Any:
    """A saved case as the gate needs it: no per-claim details, texts it only compares digested.

    The gate reads the scores, errors, reasons, usage, tags and thresholds of a case, its
    question and reference to pair it with a baseline's, and its answer and contexts only
    to tell whether they changed; a case judged pairwise keeps its answer, which the
    report quotes beside the baseline's.
    """
    if not isinstance(item, dict):
        return item
    kept = {key: value for key, value in item.items() if key not in DERIVED_CASE_KEYS}
    kept["details"] = {}
    if kept.get("pairwise") is None and isinstance(kept.get("answer"), str):
        kept["answer"] = _digest(kept["answer"])
    if isinstance(kept.get("contexts"), list):
        kept["contexts"] = [_digest(kept["contexts"])]
    return kept


def slim_coverage(head: dict[str, Any], *, shard_groups: bool, contents: bool = True) -> None:
    """Leave out of a report's coverage ledger what grows with the whole golden set.

    Each shard's ledger lists every case of the other shards (``not in --rag-gate-shard
    K/N``) and the golden-set fingerprint holds a digest per case: twenty shards of a
    million cases would hold twenty million of each. The per-case digests are read again
    from the file only when two reports' contents differ (to name the cases); with
    ``shard_groups`` the other shards' cases are dropped, since in a merge of every shard
    each is gated, or left out under its own shard's reason, by the shard it belongs to.
    """
    run = head.get("run")
    coverage = run.get("coverage") if isinstance(run, dict) else None
    if not isinstance(coverage, dict):
        return
    for found in (coverage.get("golden_set") or {}).values() if contents else ():
        if isinstance(found, dict):
            found.pop("case_contents", None)
    groups = coverage.get("not_gated")
    if shard_groups and isinstance(groups, list):
        coverage["not_gated"] = [
            group
            for group in groups
            if not (
                isinstance(group, dict)
                and str(group.get("reason", "")).startswith(SHARD_REASON_PREFIX)
                and group.get("ids")
            )
        ]


def read_streamed(path: str | Path, *, shard_groups: bool = False) -> StreamedReport:
    """A report read one case at a time, or whole when ijson cannot read it (NaN).

    Raises:
        ReportError: As :func:`~pytest_ragas_gate.reports.json_report.load_report` does.
    """
    try:
        return _read_streamed(Path(path), shard_groups=shard_groups)
    except _Unstreamable:
        return StreamedReport(saved=load_report(path), ordered=False)


def _read_streamed(path: Path, *, shard_groups: bool) -> StreamedReport:
    """A report read one case at a time into compact results (see :func:`compact_case`).

    Its coverage ledger is read slim (:func:`slim_coverage`); ``shard_groups`` drops the
    other shards' cases from it, for a merge of every shard of a split.

    Raises:
        ReportError: As :func:`~pytest_ragas_gate.reports.json_report.load_report` does.
    """
    source = Path(path)
    head = read_head(source)
    # A merge drops the per-case content digests; one report re-gated keeps them.
    slim_coverage(
        head,
        shard_groups=shard_groups and isinstance(head.get("shard"), dict),
        contents=shard_groups,
    )
    config, judge, facts = checked_head(source, head)
    results: list[CaseResult] = []
    ordered = True
    previous: tuple[str, str] | None = None
    for index, item in enumerate(_cases(source)):
        result = case_result(source, index, compact_case(item))
        order = (result.source, result.id)
        if previous is not None and order < previous:
            ordered = False
        previous = order
        results.append(result)
    saved = SavedReport(
        path=source,
        results=results,
        config=config,
        metrics=list(head["metrics"]),
        judge=judge,
        facts=facts,
        raw=head,
    )
    return StreamedReport(saved=saved, ordered=ordered)


def full_results(paths: Sequence[Path]) -> Iterator[CaseResult]:
    """Every case of ``paths``, whole, in canonical order: each report's own order merged.

    Only one case of each report is held at a time.
    """
    streams = [
        (case_result(path, index, item) for index, item in enumerate(_cases(path)))
        for path in paths
    ]
    return heapq.merge(*streams, key=lambda result: (result.source, result.id))
