r"""Human labels kept beside the golden set: a labels file keyed by case id.

A case can carry its labels inline (``human: {faithfulness: 1}``, read by
:mod:`.golden_fields`), or a separate file given by ``trust.labels``
holds them, one row per case, in any golden format (``.jsonl``, ``.json``, ``.yaml``,
``.csv``). A row names its case by ``id`` (optionally with the golden ``file`` it belongs
to, when ids repeat across files) and gives labels as ``human_<metric>`` columns or as a
``human`` mapping; other columns (the question, the judge's score …) are context for the
person labelling and are ignored. An empty cell or null is "not labelled". A
``sampled_by`` column keeps how ``rag-gate label export`` picked the case (``random`` or
``near_threshold``), so that prediction-powered inference can use the random part only.

Labels from the file win over inline ones, metric by metric. Every malformed row is
reported at once, each as ``path:line: field '...': ...``.

>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "labels.csv"
>>> _ = path.write_text("id,human_faithfulness\nrefunds,1\nshipping,\n", encoding="utf-8")
>>> read_labels(path, "labels.csv").rows
[LabelRow(line=2, case_id='refunds', file=None, labels={'faithfulness': 1.0}, sampled_by=None)]
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..exceptions import GoldenFileError
from ..golden.cases import LABEL_SAMPLINGS, GoldenCase, LabelSampling
from ..golden.golden_fields import LABEL_RULE, RawCase, human_labels, kind_of, label_value, preview
from ..golden.golden_formats import SUPPORTED_EXTENSIONS, read_rows
from ..golden.loading import LoadedFile
from ..metrics.registry import unknown_metric_message
from ..scoring.results import CaseResult

__all__ = [
    "LABEL_PREFIX",
    "LabelRow",
    "LabelSet",
    "apply_labels",
    "label_results",
    "read_labels",
]

#: Columns named ``human_<metric>`` hold the label of ``<metric>``.
LABEL_PREFIX = "human_"

_ID_KEYS = ("id", "case_id")


@dataclass(frozen=True)
class LabelRow:
    """One row of a labels file: the labels of one case."""

    line: int
    case_id: str
    file: str | None
    labels: dict[str, float]
    sampled_by: LabelSampling | None = None


@dataclass(frozen=True)
class LabelSet:
    """A labels file, read and checked: its rows by case."""

    path: str
    rows: list[LabelRow] = field(default_factory=list)

    def labels_for(self, file: str, case_id: str) -> dict[str, float]:
        """The labels of the case ``case_id`` of golden ``file`` (empty when none)."""
        found: dict[str, float] = {}
        for row in self.rows:
            if row.case_id == case_id and (row.file is None or row.file == file):
                found.update(row.labels)
        return found

    def sampled_by_for(self, file: str, case_id: str) -> LabelSampling | None:
        """How the labelled case was picked for labelling, when its rows say so."""
        found: LabelSampling | None = None
        for row in self.rows:
            if row.case_id == case_id and (row.file is None or row.file == file):
                found = row.sampled_by or found
        return found

    @property
    def metrics(self) -> list[str]:
        """The metrics labelled anywhere in the file, in first-seen order."""
        return list(dict.fromkeys(metric for row in self.rows for metric in row.labels))


def read_labels(
    path: str | os.PathLike[str], shown: str, *, metrics: Collection[str] | None = None
) -> LabelSet:
    """Read a labels file.

    Args:
        path: The file; its extension chooses the format.
        shown: How to name it in messages.
        metrics: The known metric names; a label of any other metric is an error (with
            the closest name). None accepts any name.

    Returns:
        The rows that carry at least one label.

    Raises:
        GoldenFileError: The file cannot be read, or rows are malformed; the message names
            every bad row as ``path:line: field '...': ...``.
    """
    extension = Path(path).suffix.lower()
    if extension == ".csv":
        raw_rows = _read_csv(path, shown)
    elif extension in SUPPORTED_EXTENSIONS:
        raw_rows = read_rows(path, shown)
    else:
        supported = ", ".join(sorted(SUPPORTED_EXTENSIONS))
        raise GoldenFileError(
            f"{shown}: unsupported labels file extension {extension or '(none)'!r}; "
            f"use one of {supported}."
        )
    rows: list[LabelRow] = []
    problems: list[str] = []
    first_line: dict[tuple[str | None, str], int] = {}
    for raw in raw_rows:
        errors = list(raw.errors)
        row = _label_row(raw, errors, metrics)
        if row is not None and not errors:
            key = (row.file, row.case_id)
            if key in first_line:
                errors.append(
                    f"field 'id': a second row for case {row.case_id!r} (first at "
                    f"{shown}:{first_line[key]}); keep one row per case"
                )
            else:
                first_line[key] = raw.line
        if errors:
            problems.append(f"{shown}:{raw.line}: " + "; ".join(errors))
        elif row is not None and row.labels:
            rows.append(row)
    if problems:
        shown_problems = problems[:20]
        more = len(problems) - len(shown_problems)
        raise GoldenFileError(
            f"{shown}: {len(problems)} label row(s) are malformed:\n"
            + "\n".join(shown_problems)
            + (f"\n… and {more} more" if more else "")
        )
    return LabelSet(shown, rows)


def _label_row(raw: RawCase, errors: list[str], metrics: Collection[str] | None) -> LabelRow | None:
    value = raw.value
    if value is None:
        return None
    if not isinstance(value, Mapping):
        errors.append(f"expected an object with an 'id' and labels, got {kind_of(value)}")
        return None
    fields = {str(key).strip(): item for key, item in value.items()}
    id_key = next((key for key in fields if key.lower() in _ID_KEYS), None)
    case_id = fields.get(id_key) if id_key is not None else None
    if isinstance(case_id, (int, float)) and not isinstance(case_id, bool):
        case_id = str(case_id)
    if not isinstance(case_id, str) or not case_id.strip():
        errors.append(
            "field 'id': expected the id of a golden case (a non-empty string), got "
            + ("nothing" if case_id is None else preview(str(case_id)))
        )
        return None
    file = fields.get("file")
    if file == "":
        file = None  # an empty CSV cell: the id alone names the case
    if file is not None and (not isinstance(file, str) or not file.strip()):
        errors.append(f"field 'file': expected a golden file's path, got {kind_of(file)}")
        return None
    labels: dict[str, float] = {}
    if "human" in fields:
        labels.update(human_labels("human", _parsed_mapping(fields["human"]), errors))
    for key, item in fields.items():
        if not key.lower().startswith(LABEL_PREFIX):
            continue
        metric = key[len(LABEL_PREFIX) :]
        parsed = _label_value(key, item, errors)
        if parsed is not None:
            labels[metric] = parsed
    if metrics is not None:
        for metric in labels:
            if metric not in metrics:
                errors.append(
                    f"field '{LABEL_PREFIX}{metric}': "
                    + unknown_metric_message(metric, sorted(metrics))
                )
    file_name = file.strip() if isinstance(file, str) else None
    sampled_by = _sampled_by(fields.get("sampled_by"), errors)
    return LabelRow(raw.line, case_id.strip(), file_name, labels, sampled_by)


def _sampled_by(value: Any, errors: list[str]) -> LabelSampling | None:
    """The ``sampled_by`` cell: ``random``, ``near_threshold``, or empty for not said."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    text = value.strip().lower() if isinstance(value, str) else None
    if text == "random":
        return "random"
    if text == "near_threshold":
        return "near_threshold"
    errors.append(
        f"field 'sampled_by': expected one of {', '.join(LABEL_SAMPLINGS)} (how the case was "
        f"picked for labelling) or an empty cell, got {preview(str(value))}"
    )
    return None


def _parsed_mapping(value: Any) -> Any:
    """A ``human`` cell of a CSV file holds the mapping as JSON text."""
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _label_value(name: str, value: Any, errors: list[str]) -> float | None:
    """One ``human_<metric>`` value: a label, or empty for "not labelled"."""
    try:
        return label_value(value)
    except ValueError:
        shown = preview(value) if isinstance(value, str) else kind_of(value)
        if isinstance(value, (int, float)):
            shown = str(value)
        errors.append(
            f"field {name!r}: expected a label from 0 to 1 ({LABEL_RULE}), or an empty cell "
            f"for not labelled, got {shown}"
        )
        return None


def _read_csv(path: str | os.PathLike[str], shown: str) -> list[RawCase]:
    """A CSV labels file: a header, then one row per case, each with its starting line."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as error:
        raise GoldenFileError(
            f"{shown}: the labels file cannot be read: {error.strerror or error}."
        ) from None
    except UnicodeDecodeError as error:
        raise GoldenFileError(
            f"{shown}: the labels file is not valid UTF-8 ({error.reason}); save it as UTF-8."
        ) from None
    header_line = next((line for line in text.splitlines() if line.strip()), "")
    delimiter = max(",;\t", key=header_line.count) if header_line else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    header: list[str] | None = None
    rows: list[RawCase] = []
    row_start = 1
    try:
        for cells in reader:
            line, row_start = row_start, reader.line_num + 1
            if not any(cell.strip() for cell in cells):
                continue
            if header is None:
                header = [cell.strip() for cell in cells]
                continue
            value = {name: cell for name, cell in zip(header, cells, strict=False) if name}
            rows.append(RawCase(line, value))
    except csv.Error as error:
        raise GoldenFileError(
            f"{shown}:{reader.line_num}: the labels file is not valid CSV: {error}."
        ) from None
    if header is None:
        raise GoldenFileError(f"{shown}: the labels file is empty; it needs a header row.")
    if not any(name.lower() in _ID_KEYS for name in header):
        raise GoldenFileError(
            f"{shown}:1: the labels file needs an 'id' column naming each golden case; "
            f"the header is {', '.join(repr(name) for name in header)}."
        )
    return rows


# --- applying labels --------------------------------------------------------------------


def apply_labels(loaded: LoadedFile, labels: LabelSet | None) -> LoadedFile:
    """The golden file's cases with the labels file's labels laid over their own."""
    if labels is None or not labels.rows:
        return loaded
    cases: list[GoldenCase] = []
    changed = False
    for case in loaded.cases:
        extra = labels.labels_for(case.file, case.id)
        if extra:
            update: dict[str, Any] = {"human": {**case.human, **extra}}
            sampled_by = labels.sampled_by_for(case.file, case.id)
            if sampled_by is not None:
                update["metadata"] = {**case.metadata, "sampled_by": sampled_by}
            case = case.model_copy(update=update)
            changed = True
        cases.append(case)
    return replace(loaded, cases=cases) if changed else loaded


def label_results(results: Sequence[CaseResult], labels: LabelSet) -> list[CaseResult]:
    """Saved case results with the labels file's labels laid over their own."""
    labelled: list[CaseResult] = []
    for result in results:
        extra = labels.labels_for(result.file, result.id)
        if not extra:
            labelled.append(result)
            continue
        sampled_by = labels.sampled_by_for(result.file, result.id) or result.sampled_by
        labelled.append(
            result.model_copy(update={"human": {**result.human, **extra}, "sampled_by": sampled_by})
        )
    return labelled


def unmatched_rows(labels: LabelSet, keys: Iterable[tuple[str, str]]) -> list[LabelRow]:
    """The rows that label no case of ``keys`` ((file, id) pairs): a typo or a stale id."""
    known = set(keys)
    ids = {case_id for _, case_id in known}
    return [
        row
        for row in labels.rows
        if (row.file is None and row.case_id not in ids)
        or (row.file is not None and (row.file, row.case_id) not in known)
    ]
