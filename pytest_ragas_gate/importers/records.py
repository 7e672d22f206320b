"""What every importer shares: records read from a source file, and the rows they become.

A reader turns one source file into a stream of outcomes, in file order:

* :class:`Imported` — a golden case (without its final id, which the command assigns);
* :class:`Skipped` — a record that is well-formed but is not a case (an archived item,
  a trace with no retriever span, an errored run), with the reason;
* :class:`Malformed` — a record that should be a case but a field is wrong, naming the
  field and what was expected;
* :class:`Notice` — what the summary must tell besides its counts (data left out of a
  case, a mapped path that missed some records).
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..exceptions import CommandError

__all__ = [
    "Imported",
    "Invalid",
    "Malformed",
    "Notice",
    "own_id",
    "Outcome",
    "Place",
    "Skipped",
    "csv_rows",
    "pick_text",
    "text_list",
]


@dataclass(frozen=True)
class Place:
    """Where a record is: its file and its line (JSONL), row (CSV), item (JSON) or trace."""

    file: str
    unit: str
    number: int | str

    def __str__(self) -> str:
        """``g.jsonl:3``, ``d.csv row 2``, ``d.json item 4``, ``s.jsonl trace ab``."""
        if self.unit == "line":
            return f"{self.file}:{self.number}"
        return f"{self.file} {self.unit} {self.number}"

    def provenance(self, format_name: str) -> dict[str, Any]:
        """The ``metadata.import`` entry of the case read here."""
        return {"format": format_name, "file": self.file, self.unit: self.number}


@dataclass
class Imported:
    """A golden case read from ``place``; ``source_id`` is the source's own id, if any."""

    place: Place
    fields: dict[str, Any]
    source_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    #: When the source recorded it (a trace's start, an item's creation), for --since/--until.
    timestamp: object = None
    #: What of the record was not taken as data, and why: a sentence each, for the summary.
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Skipped:
    """A well-formed record that is not a case, and why.

    ``kind`` is the reason without what names this record (``error status`` for ``error
    status on span 5b…``), by which the summary counts the skipped records.
    """

    place: Place
    reason: str
    kind: str = ""

    @property
    def tally(self) -> str:
        """The reason the summary counts this record under."""
        return self.kind or self.reason


@dataclass(frozen=True)
class Malformed:
    """A record whose ``field`` is not what was ``expected``."""

    place: Place
    field: str
    expected: str

    def __str__(self) -> str:
        """``data.json item 3: field 'input': expected non-empty text, got null``."""
        if not self.field:
            return f"{self.place}: {self.expected}"
        return f"{self.place}: field '{self.field}': {self.expected}"


@dataclass(frozen=True)
class Notice:
    """A warning the import summary prints: it names the record or the path it is about."""

    text: str


Outcome = Imported | Skipped | Malformed | Notice


class Invalid(Exception):
    """A field of the record being read is wrong (caught by the reader, never escapes)."""

    def __init__(self, field_name: str, expected: str) -> None:
        super().__init__(f"field '{field_name}': {expected}")
        self.field = field_name
        self.expected = expected


def own_id(record: Mapping[str, Any]) -> str | None:
    """The source's own id of a record (its ``id``), or None where it has none."""
    value = record.get("id")
    return None if value in (None, "") else str(value)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "text", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


def pick_text(value: object, field_name: str, *, required: bool = False) -> str | None:
    """``value`` as stripped text; None (or :class:`Invalid` when ``required``) if absent.

    >>> pick_text("  Who? ", "input")
    'Who?'
    >>> pick_text(3, "input")
    Traceback (most recent call last):
    ...
    pytest_ragas_gate.importers.records.Invalid: field 'input': expected text, got int
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise Invalid(field_name, f"expected non-empty text, got {_kind(value) or 'nothing'}")
        return None
    if not isinstance(value, str):
        raise Invalid(field_name, f"expected text, got {_kind(value)}")
    return value.strip()


def _document_text(item: object) -> object:
    """The text of a document object (LangChain ``page_content``, ``content``, ``text``)."""
    if isinstance(item, Mapping):
        for key in ("page_content", "content", "text", "document.content"):
            if key in item:
                return item[key]
        document = item.get("document")
        if isinstance(document, Mapping):
            return document.get("content")
    return item


def text_list(value: object, field_name: str) -> list[str]:
    """A list of chunks: strings or document objects; None or ``[]`` gives ``[]``.

    >>> text_list(["a", {"page_content": "b"}], "retrieval_context")
    ['a', 'b']
    """
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if not isinstance(value, list):
        raise Invalid(field_name, f"expected a list of texts, got {_kind(value)}")
    texts: list[str] = []
    for index, item in enumerate(value):
        text = _document_text(item)
        if not isinstance(text, str):
            raise Invalid(
                f"{field_name}[{index}]", f"expected text or a document, got {_kind(item)}"
            )
        texts.append(text)
    return texts


def csv_rows(path: Path) -> Iterator[tuple[Place, dict[str, str]] | Malformed]:
    """The rows of a CSV file with a header; row 1 is the first row after the header.

    A row with fewer or more cells than the header has columns is :class:`Malformed`: its
    cells no longer line up with their columns, and reading it would lose or shift fields.

    Raises:
        CommandError: the file cannot be read, or is not valid CSV (an unclosed or stray
            quote, which would otherwise swallow the rest of the file into one cell).
    """
    row_start = 1
    try:
        with path.open(encoding="utf-8-sig", newline="") as source:
            reader = csv.DictReader(source, strict=True)
            columns = len(reader.fieldnames or [])
            row_start = reader.line_num + 1
            for number, row in enumerate(reader, start=1):
                row_start = reader.line_num + 1
                place = Place(str(path), "row", number)
                extra = row.get(None)
                missing = [str(key) for key, value in row.items() if value is None]
                if extra or missing:
                    cells = columns + len(extra or []) - len(missing)
                    shape = f"the row has {cells} cells but the header names {columns} columns"
                    if missing:
                        yield Malformed(
                            place,
                            missing[0],
                            f"no cell; {shape} (write an empty cell to leave it blank)",
                        )
                    else:
                        yield Malformed(place, "", shape)
                    continue
                yield (place, {str(key): value or "" for key, value in row.items()})
    except OSError as error:
        raise CommandError(f"Cannot read {path}: {error.strerror or error}.") from None
    except csv.Error as error:
        raise CommandError(
            f"{path}:{row_start}: the file is not valid CSV: {error} (in the row starting on "
            f"line {row_start}); a double quote inside a "
            'quoted cell must be written twice ("").'
        ) from None
    except UnicodeDecodeError as error:
        raise CommandError(f"{path} is not a readable UTF-8 CSV file ({error}).") from None
