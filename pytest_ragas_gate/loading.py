r"""Read golden files (``.jsonl``, ``.json``, ``.yaml``/``.yml``, ``.csv``) into golden cases.

A file that cannot be read as a whole (bad syntax, not UTF-8, empty, unknown shape or
extension) raises :class:`~pytest_ragas_gate.exceptions.GoldenFileError`. A file that can be
read yields a :class:`LoadedFile`: the valid cases, and one :class:`CaseProblem` per malformed
case, so one bad case never hides the others. Every message starts with ``path:line:``.

Accepted shapes:

- ``.jsonl``: one JSON object per line; blank lines are skipped.
- ``.json`` and ``.yaml``: a list of cases, an object ``{"cases": [...]}``, or the
  column-oriented form ``{"question": [...], "answer": [...], ...}`` whose lists all have the
  same length.
- ``.csv``: a header row, then one case per row; the delimiter (``, ; tab |``) is sniffed
  from the header; list fields are JSON arrays, ``thresholds`` a JSON object, and an empty
  cell means the field is absent.

Field names people already use are accepted as aliases (matched ignoring case): ``question``
/ ``user_input`` / ``query``, ``answer`` / ``response``, ``contexts`` / ``retrieved_contexts``,
``reference`` / ``ground_truth`` / ``ground_truths``, ``relevant_context_ids`` /
``reference_context_ids``. Other fields are kept in ``GoldenCase.metadata``.

>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "golden.jsonl").write_text(
...     '{"user_input": "Who founded Apple?", "response": "Steve Jobs"}\n'
...     '{"question": "", "answer": "nobody"}\n',
...     encoding="utf-8",
... )
>>> loaded = load_golden_file(folder / "golden.jsonl", display_path="golden.jsonl")
>>> [(case.id, case.source) for case in loaded.cases]
[('q-b3f475fb53', 'golden.jsonl:1')]
>>> print(loaded.problems[0].message)
golden.jsonl:2: field 'question': expected a non-empty string, got an empty string
"""

from __future__ import annotations

import ast
import bisect
import codecs
import csv
import io
import json
import math
import os
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from .cases import Context, GoldenCase, stable_case_id
from .exceptions import CaseError, GoldenFileError

if TYPE_CHECKING:
    import yaml

__all__ = ["SUPPORTED_EXTENSIONS", "CaseProblem", "LoadedFile", "load_golden_file"]

SUPPORTED_EXTENSIONS: frozenset[str] = frozenset({".jsonl", ".json", ".yaml", ".yml", ".csv"})

_ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("id",),
    "question": ("question", "user_input", "query"),
    "answer": ("answer", "response"),
    "contexts": ("contexts", "retrieved_contexts"),
    "reference": ("reference", "ground_truth", "ground_truths"),
    "relevant_context_ids": ("relevant_context_ids", "reference_context_ids"),
    "tags": ("tags",),
    "thresholds": ("thresholds",),
}
_FIELD_OF_NAME: dict[str, str] = {
    alias: name for name, aliases in _ALIASES.items() for alias in aliases
}
_CSV_LIST_FIELDS = frozenset({"contexts", "relevant_context_ids", "tags"})
_CSV_DELIMITERS = ",;\t|"
_CONTEXT_TEXT_KEYS = ("text", "content", "page_content")
_JSON_WHITESPACE = re.compile(r"[ \t\n\r]*")
# Python's csv module refuses cells over 128 KiB by default; retrieved contexts of a long
# document easily exceed that, so the limit is lifted while a golden file is read.
_CSV_FIELD_LIMIT = 2**31 - 1


@dataclass(frozen=True)
class CaseProblem:
    """One malformed case; the other cases of its file still load.

    Attributes:
        file: The file's path as displayed in messages.
        line: The 1-based line where the case starts.
        case_id: The case's id when it could be determined, else None.
        message: A full sentence starting with ``path:line:`` that names the field at fault
            and what was expected.
    """

    file: str
    line: int
    case_id: str | None
    message: str

    def __str__(self) -> str:
        return self.message

    def as_error(self) -> CaseError:
        """The problem as the exception an errored case item raises."""
        return CaseError(self.message)


@dataclass(frozen=True)
class LoadedFile:
    """What one golden file holds.

    Attributes:
        path: The file's path as displayed in messages and case sources.
        cases: The valid cases in file order, each with ``file`` and ``line`` set.
        problems: The malformed cases in file order.
    """

    path: str
    cases: list[GoldenCase]
    problems: list[CaseProblem]


@dataclass
class _RawCase:
    """A case as read from the file, before validation.

    ``errors`` holds problems already found while reading (a JSONL line that is not JSON,
    a CSV cell that is not a JSON array); they are reported with the field checks.
    """

    line: int
    value: Any
    errors: list[str] = field(default_factory=list)


# A top-level mapping of a JSON/YAML file: each key's items when its value is a list,
# else the kind of value it holds (for messages).
_TopMapping = dict[str, "list[_RawCase] | str"]


def load_golden_file(
    path: str | os.PathLike[str], *, display_path: str | None = None
) -> LoadedFile:
    """Read one golden file.

    Args:
        path: The file to read; its extension chooses the format.
        display_path: How to name the file in messages and in ``GoldenCase.file``
            (default: ``path`` as given).

    Returns:
        The valid cases and the problems of the malformed ones, both in file order.

    Raises:
        GoldenFileError: The file cannot be read as a whole: unsupported extension, not
            UTF-8, empty, invalid JSON/YAML/CSV syntax, or a top-level shape that is not
            one of the accepted ones.
    """
    shown = display_path if display_path is not None else os.fspath(path)
    extension = Path(path).suffix.lower()
    if extension not in SUPPORTED_EXTENSIONS:
        supported = ", ".join(sorted(SUPPORTED_EXTENSIONS))
        raise GoldenFileError(
            f"{shown}: unsupported golden file extension {extension or '(none)'!r}; "
            f"use one of {supported}."
        )
    text = _read_text(path, shown)
    readers: dict[str, Callable[[str, str], list[_RawCase]]] = {
        ".jsonl": _read_jsonl,
        ".json": _read_json,
        ".yaml": _read_yaml,
        ".yml": _read_yaml,
        ".csv": _read_csv,
    }
    raw_cases = readers[extension](shown, text)
    return _validate_all(shown, raw_cases)


def _read_text(path: str | os.PathLike[str], shown: str) -> str:
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        reason = error.strerror or str(error)
        raise GoldenFileError(f"{shown}: the golden file cannot be read: {reason}.") from error
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise GoldenFileError(
            f"{shown}: the file is encoded as UTF-16 (it starts with a UTF-16 byte order "
            "mark); save it as UTF-8."
        )
    bom = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        text = data[bom:].decode("utf-8")
    except UnicodeDecodeError as error:
        offset = bom + error.start
        line = data.count(b"\n", 0, offset) + 1
        raise GoldenFileError(
            f"{shown}:{line}: the file is not valid UTF-8: byte 0x{data[offset]:02x} at byte "
            f"offset {offset} cannot be decoded; save the file as UTF-8."
        ) from error
    if not text.strip():
        raise GoldenFileError(
            f"{shown}: the golden file is empty; it needs at least one case with a 'question'."
        )
    return text


# --- JSON Lines -------------------------------------------------------------------------


def _read_jsonl(shown: str, text: str) -> list[_RawCase]:
    raw_cases: list[_RawCase] = []
    # Split on "\n" only: JSON strings may hold a raw U+2028, which str.splitlines would cut.
    for index, physical_line in enumerate(text.split("\n")):
        content = physical_line.strip()
        if not content:
            continue
        if "\x00" in physical_line:
            column = physical_line.index("\x00") + 1
            raw_cases.append(_RawCase(index + 1, None, [_nul_message(f"column {column}")]))
            continue
        try:
            value = json.loads(content)
        except json.JSONDecodeError as error:
            column = error.colno + (len(physical_line) - len(physical_line.lstrip()))
            raw_cases.append(
                _RawCase(index + 1, None, [f"invalid JSON at column {column}: {error.msg}"])
            )
            continue
        except ValueError as error:  # an integer past Python's digit limit
            raw_cases.append(_RawCase(index + 1, None, [f"invalid JSON: {error}"]))
            continue
        except RecursionError:
            raw_cases.append(_RawCase(index + 1, None, [_TOO_DEEP]))
            continue
        raw_cases.append(_RawCase(index + 1, value))
    return raw_cases


# --- JSON -------------------------------------------------------------------------------


def _read_json(shown: str, text: str) -> list[_RawCase]:
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        raise GoldenFileError(
            f"{shown}:{error.lineno}:{error.colno}: the file is not valid JSON: {error.msg} "
            f"(line {error.lineno}, column {error.colno})."
        ) from error
    except ValueError as error:  # an integer past Python's digit limit
        raise GoldenFileError(f"{shown}: the file is not valid JSON: {error}.") from None
    except RecursionError:
        raise GoldenFileError(f"{shown}: {_TOO_DEEP}.") from None
    # The document is valid, so it is walked a second time, decoding each case on its own
    # to learn the offset (hence the line) where it starts.
    scanner = _JsonScanner(text)
    position = scanner.skip(0)
    opening = text[position]
    if opening == "[":
        return _rows_of(shown, scanner.array(position)[0])
    if opening == "{":
        return _rows_of(shown, scanner.top_mapping(position))
    kind = _kind(json.loads(text))
    return _rows_of(shown, kind)


class _JsonScanner:
    """Walks a valid JSON document's top level, recording where each case starts."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.decoder = json.JSONDecoder()
        self.newlines = [match.start() for match in re.finditer("\n", text)]

    def skip(self, position: int) -> int:
        match = _JSON_WHITESPACE.match(self.text, position)
        return match.end() if match else position

    def line_of(self, position: int) -> int:
        return bisect.bisect_left(self.newlines, position) + 1

    def array(self, position: int) -> tuple[list[_RawCase], int]:
        items: list[_RawCase] = []
        position = self.skip(position + 1)
        if self.text[position] == "]":
            return items, position + 1
        while True:
            value, end = self.decoder.raw_decode(self.text, position)
            items.append(_RawCase(self.line_of(position), value))
            position = self.skip(end)
            if self.text[position] == "]":
                return items, position + 1
            position = self.skip(position + 1)

    def top_mapping(self, position: int) -> _TopMapping:
        mapping: _TopMapping = {}
        position = self.skip(position + 1)
        if self.text[position] == "}":
            return mapping
        while True:
            key, end = self.decoder.raw_decode(self.text, position)
            position = self.skip(self.skip(end) + 1)
            if self.text[position] == "[":
                items, end = self.array(position)
                mapping[key] = items
            else:
                value, end = self.decoder.raw_decode(self.text, position)
                mapping[key] = _kind(value)
            position = self.skip(end)
            if self.text[position] == "}":
                return mapping
            position = self.skip(position + 1)


# --- YAML -------------------------------------------------------------------------------


def _read_yaml(shown: str, text: str) -> list[_RawCase]:
    import yaml  # imported here so that pytest runs without --rag-gate never load it

    loader_class: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        # The pure-Python reader checks every character as soon as it is built.
        loader = loader_class(text)
    except yaml.reader.ReaderError as error:
        raise _yaml_reader_error(shown, text, error) from error
    lines = _YamlLines(text)
    try:
        try:
            root = loader.get_single_node()
        except yaml.MarkedYAMLError as error:
            mark = error.problem_mark or error.context_mark
            where = f"{shown}:{lines.of(mark)}:{mark.column + 1}" if mark else shown
            problem = error.problem or error.context or "syntax error"
            raise GoldenFileError(f"{where}: the file is not valid YAML: {problem}.") from error
        except yaml.reader.ReaderError as error:
            raise _yaml_reader_error(shown, text, error) from error
        except yaml.YAMLError as error:
            raise GoldenFileError(f"{shown}: the file is not valid YAML: {error}.") from error
        except RecursionError:
            raise GoldenFileError(f"{shown}: {_TOO_DEEP_YAML}.") from None
        if root is None:
            raise GoldenFileError(
                f"{shown}: the golden file is empty (it holds no YAML document); it needs "
                "at least one case with a 'question'."
            )
        try:
            top = _yaml_top(loader, root, lines)
        except RecursionError:
            raise GoldenFileError(f"{shown}: {_TOO_DEEP_YAML}.") from None
        return _rows_of(shown, top)
    finally:
        loader.dispose()


#: Characters YAML counts as line breaks and editors, grep -n and the other formats do not.
_YAML_ONLY_BREAKS = ("\x85", "\u2028", "\u2029")


class _YamlLines:
    """Line numbers of YAML marks counted in newlines only, as every other format reports."""

    def __init__(self, text: str) -> None:
        self._newlines: list[int] | None = None
        if any(character in text for character in _YAML_ONLY_BREAKS):
            self._newlines = [index for index, character in enumerate(text) if character == "\n"]

    def of(self, mark: Any) -> int:
        """The 1-based line of ``mark``."""
        if self._newlines is None:
            return int(mark.line) + 1
        return bisect.bisect_left(self._newlines, int(mark.index)) + 1


def _yaml_reader_error(shown: str, text: str, error: yaml.reader.ReaderError) -> GoldenFileError:
    # Raised for characters YAML forbids (NUL, other control characters): no mark, a position.
    line = text.count("\n", 0, error.position) + 1
    code = error.character if isinstance(error.character, int) else ord(error.character)
    return GoldenFileError(
        f"{shown}:{line}: the file is not valid YAML: character #x{code:04x} at offset "
        f"{error.position} is not allowed in YAML (control characters such as NUL mean a "
        "corrupt or non-UTF-8 file)."
    )


def _yaml_top(
    loader: yaml.SafeLoader, root: yaml.Node, lines: _YamlLines
) -> list[_RawCase] | _TopMapping | str:
    # Node kinds are compared by their `id` rather than by class: PyYAML's C loader keeps
    # the node classes of its first import, which differ from a re-imported module's.
    if _node_kind(root) == "sequence":
        return [_yaml_case(loader, node, lines) for node in root.value]
    if _node_kind(root) == "mapping":
        mapping: _TopMapping = {}
        for key_node, value_node in root.value:
            key = _yaml_key(loader, key_node)
            if _node_kind(value_node) == "sequence":
                mapping[key] = [_yaml_case(loader, node, lines) for node in value_node.value]
            else:
                mapping[key] = _kind(_yaml_value_or_none(loader, value_node))
        return mapping
    return _kind(_yaml_value_or_none(loader, root))


def _yaml_key(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    import yaml

    # A key that cannot be built (an unknown tag, a bare merge key) or printed (an integer
    # past Python's digit limit) is still a column name the user recognises by its text.
    try:
        value = loader.construct_document(node)
        return str(value)
    except (yaml.YAMLError, *_CONSTRUCTION_ERRORS):
        return str(getattr(node, "value", ""))


def _node_kind(node: yaml.Node) -> str:
    return str(getattr(node, "id", ""))


def _yaml_case(loader: yaml.SafeLoader, node: yaml.Node, lines: _YamlLines) -> _RawCase:
    import yaml

    line = lines.of(node.start_mark)
    try:
        return _RawCase(line, loader.construct_document(node))
    except yaml.MarkedYAMLError as error:
        problem = error.problem or error.context or "it cannot be constructed"
        mark = error.problem_mark
        where = f" (line {lines.of(mark)}, column {mark.column + 1})" if mark else ""
        return _RawCase(line, None, [f"the case cannot be read: {problem}{where}"])
    except yaml.YAMLError as error:
        return _RawCase(line, None, [f"the case cannot be read: {error}"])
    except _CONSTRUCTION_ERRORS as error:
        return _RawCase(line, None, [f"the case cannot be read: {_construction_problem(error)}"])


#: What PyYAML's constructors raise besides YAMLError for a value they cannot build
#: (``2001-02-30``, ``!!float x``, ``!!bool x``), and what Python raises for an integer past
#: its conversion limits.
_CONSTRUCTION_ERRORS = (ValueError, TypeError, LookupError, AttributeError, ArithmeticError)


def _construction_problem(error: BaseException) -> str:
    detail = str(error).splitlines()[0] if str(error) else type(error).__name__
    return f"a value cannot be built ({_preview(detail, 80)})"


def _yaml_value_or_none(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    import yaml

    try:
        return loader.construct_document(node)
    except (yaml.YAMLError, *_CONSTRUCTION_ERRORS):
        return None


# --- shapes shared by JSON and YAML -----------------------------------------------------


def _rows_of(shown: str, top: list[_RawCase] | _TopMapping | str) -> list[_RawCase]:
    if isinstance(top, list):
        return top
    expected = (
        "a list of cases, an object with a 'cases' list, or columns "
        "{'question': [...], 'answer': [...], ...}"
    )
    if isinstance(top, str):
        raise GoldenFileError(
            f"{shown}: the top level of the file is {_article(top)}; expected {expected}."
        )
    if "cases" in top:
        cases = top["cases"]
        if isinstance(cases, str):
            raise GoldenFileError(
                f"{shown}: 'cases' holds {_article(cases)}; expected a list of cases."
            )
        return cases
    not_lists = [key for key, items in top.items() if isinstance(items, str)]
    if not top or not_lists:
        detail = (
            "it is empty"
            if not top
            else f"key {not_lists[0]!r} holds {_article(str(top[not_lists[0]]))}, not a list"
        )
        raise GoldenFileError(
            f"{shown}: the top-level object is not a recognised shape ({detail}); "
            f"expected {expected}."
        )
    columns = {key: items for key, items in top.items() if not isinstance(items, str)}
    return _rows_of_columns(shown, columns)


def _rows_of_columns(shown: str, columns: dict[str, list[_RawCase]]) -> list[_RawCase]:
    question_columns = [key for key in columns if _FIELD_OF_NAME.get(_key(key)) == "question"]
    if not question_columns:
        raise GoldenFileError(
            f"{shown}: the column-oriented cases have no 'question' column (also accepted: "
            f"'user_input', 'query'); found {_quoted_list(list(columns))}."
        )
    lengths = {key: len(items) for key, items in columns.items()}
    if len(set(lengths.values())) > 1:
        described = ", ".join(f"{key!r} has {length}" for key, length in lengths.items())
        raise GoldenFileError(
            f"{shown}: the column-oriented cases need every column to have the same length, "
            f"but the lengths differ: {described}."
        )
    line_column = columns[question_columns[0]]
    rows: list[_RawCase] = []
    for index, anchor in enumerate(line_column):
        value = {key: items[index].value for key, items in columns.items()}
        errors = [
            f"column {key!r}: {error}"
            for key, items in columns.items()
            for error in items[index].errors
        ]
        rows.append(_RawCase(anchor.line, value, errors))
    return rows


# --- CSV --------------------------------------------------------------------------------


#: Stands in for NUL while the csv module reads: Python 3.10's reader rejects the whole
#: file at a NUL, where every other format (and later Pythons) report it on its own case.
_NUL_STAND_IN = "\U0010fffe"


def _read_csv(shown: str, text: str) -> list[_RawCase]:
    has_nul = "\x00" in text
    if has_nul:
        text = text.replace("\x00", _NUL_STAND_IN)
    reader = csv.reader(
        io.StringIO(text, newline=""),
        delimiter=_sniff_delimiter(text),
        quotechar='"',
        doublequote=True,
        # Strict mode turns an unclosed or stray quote into an error instead of silently
        # swallowing the rest of the file into one cell.
        strict=True,
    )
    header: list[str | None] | None = None
    rows: list[_RawCase] = []
    row_start = 1
    with _lifted_csv_field_limit():
        try:
            for cells in reader:
                line = row_start
                row_start = reader.line_num + 1
                if not any(cell.strip() for cell in cells):
                    continue
                if has_nul:
                    cells = [cell.replace(_NUL_STAND_IN, "\x00") for cell in cells]
                if header is None:
                    header = _csv_header(shown, line, cells)
                    continue
                rows.append(_csv_row(header, cells, line))
        except csv.Error as error:
            hint = ""
            if "expected after" in str(error) or "end of data" in str(error):
                hint = '; a double quote inside a quoted cell must be written twice ("")'
            raise GoldenFileError(
                f"{shown}:{reader.line_num}: the file is not valid CSV: {error} (in the row "
                f"starting on line {row_start}){hint}."
            ) from error
    if header is None:
        raise GoldenFileError(f"{shown}: the CSV file has no header row.")
    return rows


def _sniff_delimiter(text: str) -> str:
    # Only the header is sniffed: data cells hold JSON arrays and prose full of commas and
    # quotes, which mislead the sniffer, while column names rarely contain a delimiter.
    header = next((line for line in io.StringIO(text, newline="") if line.strip()), "")
    try:
        return csv.Sniffer().sniff(header, delimiters=_CSV_DELIMITERS).delimiter
    except csv.Error:
        counts = {delimiter: header.count(delimiter) for delimiter in _CSV_DELIMITERS}
        best = max(counts, key=lambda delimiter: counts[delimiter])
        return best if counts[best] else ","


@contextmanager
def _lifted_csv_field_limit() -> Iterator[None]:
    previous = csv.field_size_limit(_CSV_FIELD_LIMIT)
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def _csv_header(shown: str, line: int, cells: list[str]) -> list[str | None]:
    # A column without a name (such as the index column pandas writes) is ignored.
    header: list[str | None] = [cell.strip() or None for cell in cells]
    seen: dict[str, int] = {}
    for number, name in enumerate(header, 1):
        if name is None:
            continue
        if name in seen:
            raise GoldenFileError(
                f"{shown}:{line}: the CSV header names column {name!r} twice (columns "
                f"{seen[name]} and {number}); rename one of them."
            )
        seen[name] = number
    if not any(_FIELD_OF_NAME.get(_key(name)) == "question" for name in seen):
        raise GoldenFileError(
            f"{shown}:{line}: the CSV file needs a header row with a 'question' column (also "
            f"accepted: 'user_input', 'query'); the first row is {_quoted_list(list(seen))}."
        )
    return header


def _csv_row(header: list[str | None], cells: list[str], line: int) -> _RawCase:
    value: dict[str, Any] = {}
    errors: list[str] = []
    extra = [cell for cell in cells[len(header) :] if cell.strip()]
    if extra:
        errors.append(f"the row has {len(cells)} cells but the header names {len(header)} columns")
    for number, (name, cell) in enumerate(zip(header, cells, strict=False), 1):
        if name is None or not cell.strip():
            continue
        canonical = _FIELD_OF_NAME.get(_key(name))
        if canonical in _CSV_LIST_FIELDS or _key(name) == "ground_truths":
            if _key(name) == "ground_truths" and not cell.lstrip().startswith("["):
                value[name] = cell
                continue
            parsed = _parse_cell(cell, list)
            if parsed is None:
                errors.append(
                    f"field {name!r} (column {number}): expected a JSON array such as "
                    f'["first", "second"], got {_preview(cell)}'
                )
                continue
            value[name] = parsed
        elif canonical == "thresholds":
            parsed = _parse_cell(cell, dict)
            if parsed is None:
                errors.append(
                    f"field {name!r} (column {number}): expected a JSON object such as "
                    f'{{"faithfulness": 0.9}}, got {_preview(cell)}'
                )
                continue
            value[name] = parsed
        elif canonical == "id":
            value[name] = cell.strip()
        else:
            value[name] = cell
    return _RawCase(line, value, errors)


def _parse_cell(cell: str, expected: type[list[Any]] | type[dict[str, Any]]) -> Any:
    try:
        parsed = json.loads(cell)
    except RecursionError:
        return None
    except ValueError:  # not JSON (or an integer past Python's digit limit)
        # pandas' to_csv writes lists as Python literals (['a', 'b']); accept those too.
        try:
            parsed = ast.literal_eval(cell.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    return parsed if isinstance(parsed, expected) else None


# --- validation -------------------------------------------------------------------------


def _validate_all(shown: str, raw_cases: list[_RawCase]) -> LoadedFile:
    cases: list[GoldenCase] = []
    problems: list[CaseProblem] = []
    first_line_of_id: dict[str, int] = {}
    for raw in raw_cases:
        errors = list(raw.errors)
        built, case_id, derived = _build_case(shown, raw, errors)
        if case_id is not None:
            if case_id in first_line_of_id:
                origin = " derived from the question" if derived else ""
                advice = (
                    "; two cases ask the same question, so give them distinct 'id's"
                    if derived
                    else "; ids must be unique within a file"
                )
                errors.append(
                    f"field 'id': duplicate id {case_id!r}{origin} "
                    f"(first at {shown}:{first_line_of_id[case_id]}){advice}"
                )
            else:
                first_line_of_id[case_id] = raw.line
        if errors or built is None:
            message = f"{shown}:{raw.line}: " + "; ".join(errors)
            problems.append(CaseProblem(shown, raw.line, case_id, message))
        else:
            cases.append(built)
    return LoadedFile(shown, cases, problems)


def _build_case(
    shown: str, raw: _RawCase, errors: list[str]
) -> tuple[GoldenCase | None, str | None, bool]:
    """Validate one raw case, appending what is wrong to ``errors``.

    Returns:
        The case (None when it is invalid), its id when known, and whether that id was
        derived from the question.
    """
    if raw.value is None and errors:
        return None, None, False
    if not isinstance(raw.value, Mapping):
        errors.append(f"expected an object with a 'question' field, got {_kind(raw.value)}")
        return None, None, False
    given: dict[str, tuple[str, Any]] = {}
    metadata: dict[str, Any] = {}
    for key, value in raw.value.items():
        name = str(key)
        canonical = _FIELD_OF_NAME.get(_key(name))
        if canonical is None:
            if name == "metadata" and isinstance(value, Mapping):
                metadata.update({str(inner): item for inner, item in value.items()})
            else:
                metadata[name] = value
            continue
        if value is None:
            continue
        if canonical in given:
            errors.append(
                f"field {canonical!r}: given twice, as {given[canonical][0]!r} and {name!r}; "
                "keep one of them"
            )
            continue
        given[canonical] = (name, value)

    def convert(canonical: str, converter: Callable[[str, Any, list[str]], Any]) -> Any:
        name, value = given.get(canonical, (canonical, None))
        if _holds_nul(value):
            errors.append(f"field {name!r}: {_nul_message('its text')}")
            return None
        longest = _longest_text(value)
        if longest > MAX_FIELD_CHARS:
            errors.append(
                f"field {name!r}: a text of {longest:,} characters, over the limit of "
                f"{MAX_FIELD_CHARS:,} per field; no judge reads that much in one request, so "
                "trim it to the part the RAG system actually produced or retrieved"
            )
            return None
        return converter(name, value, errors)

    question = convert("question", _question)
    explicit_id = convert("id", _case_id)
    case_id: str | None = explicit_id
    derived = False
    if "id" not in given and question is not None:
        case_id, derived = stable_case_id(question), True
    fields = {
        "answer": convert("answer", _text),
        "contexts": convert("contexts", _contexts),
        "reference": convert("reference", _reference),
        "relevant_context_ids": convert("relevant_context_ids", _id_list),
        "tags": convert("tags", _tags),
        "thresholds": convert("thresholds", _thresholds),
    }
    if errors or question is None or case_id is None:
        return None, case_id, derived
    try:
        case = GoldenCase(
            id=case_id,
            question=question,
            metadata=metadata,
            file=shown,
            line=raw.line,
            **fields,
        )
    except ValidationError as error:
        errors.append(f"the case is invalid: {error}")
        return None, case_id, derived
    return case, case_id, derived


#: The longest text a golden field may hold (a question, an answer, one context …).
MAX_FIELD_CHARS = 1_000_000

_TOO_DEEP = "the JSON is nested too deeply to be a golden case (over a thousand levels)"
_TOO_DEEP_YAML = "the YAML is nested too deeply to be a golden set (over a thousand levels)"


def _nul_message(where: str) -> str:
    return (
        f"a NUL byte (\\x00) in {where}; the file is corrupt or not UTF-8 text, so remove "
        "the byte or save the file as UTF-8"
    )


def _texts_in(value: Any) -> Iterator[str]:
    # A stack rather than recursion: YAML lets a value nest deeper than Python's stack, and
    # its aliases can make a list contain itself.
    pending = [value]
    seen: set[int] = set()
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            yield item
            continue
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, Mapping):
            pending.extend(item.values())


def _longest_text(value: Any) -> int:
    return max((len(text) for text in _texts_in(value)), default=0)


def _holds_nul(value: Any) -> bool:
    return any("\x00" in text for text in _texts_in(value))


def _question(name: str, value: Any, errors: list[str]) -> str | None:
    if value is None:
        errors.append(
            "field 'question' is required (a non-empty string; also accepted as "
            "'user_input' or 'query')"
        )
        return None
    if not isinstance(value, str):
        errors.append(f"field {name!r}: expected a non-empty string, got {_kind(value)}")
        return None
    if not value.strip():
        errors.append(f"field {name!r}: expected a non-empty string, got an empty string")
        return None
    return value


def _case_id(name: str, value: Any, errors: list[str]) -> str | None:
    if value is None:
        return None
    if _is_number(value):
        return str(value)
    if not isinstance(value, str):
        errors.append(f"field {name!r}: expected a string or a number, got {_describe(value)}")
        return None
    if not value.strip():
        errors.append(f"field {name!r}: expected a non-empty id, got an empty string")
        return None
    return value.strip()


def _text(name: str, value: Any, errors: list[str]) -> str | None:
    if value is None or isinstance(value, str):
        return value
    errors.append(f"field {name!r}: expected a string, got {_kind(value)}")
    return None


def _contexts(name: str, value: Any, errors: list[str]) -> list[Context] | None:
    if value is None:
        return None
    expected = "expected a list of strings or {id, text} objects"
    if not isinstance(value, list):
        errors.append(f"field {name!r}: {expected}, got {_kind(value)}")
        return None
    contexts: list[Context] = []
    for number, item in enumerate(value, 1):
        if isinstance(item, str):
            contexts.append(Context(text=item))
            continue
        if not isinstance(item, Mapping):
            errors.append(f"field {name!r}: {expected}, got {_kind(item)} as item {number}")
            return None
        text_keys = [key for key in _CONTEXT_TEXT_KEYS if item.get(key) is not None]
        if len(text_keys) != 1:
            found = "none" if not text_keys else " and ".join(repr(key) for key in text_keys)
            errors.append(
                f"field {name!r}: item {number} needs exactly one of 'text', 'content' or "
                f"'page_content', found {found}"
            )
            return None
        text = item[text_keys[0]]
        if not isinstance(text, str):
            errors.append(
                f"field {name!r}: item {number}: {text_keys[0]!r} expected a string, "
                f"got {_kind(text)}"
            )
            return None
        context_id = item.get("id")
        if context_id is not None and not _is_number(context_id):
            if not isinstance(context_id, str) or not context_id.strip():
                errors.append(
                    f"field {name!r}: item {number}: 'id' expected a non-empty string or a "
                    f"number, got {_describe(context_id)}"
                )
                return None
        contexts.append(Context(id=None if context_id is None else str(context_id), text=text))
    return contexts


def _reference(name: str, value: Any, errors: list[str]) -> str | None:
    if value is None or isinstance(value, str):
        return value
    expected = "expected a string or a list of strings"
    if not isinstance(value, list):
        errors.append(f"field {name!r}: {expected}, got {_kind(value)}")
        return None
    for number, item in enumerate(value, 1):
        if not isinstance(item, str):
            errors.append(f"field {name!r}: {expected}, got {_kind(item)} as item {number}")
            return None
    return "\n".join(value) if value else None


def _id_list(name: str, value: Any, errors: list[str]) -> list[str] | None:
    if value is None:
        return None
    expected = "expected a list of context ids (non-empty strings or numbers)"
    if not isinstance(value, list):
        errors.append(f"field {name!r}: {expected}, got {_kind(value)}")
        return None
    for number, item in enumerate(value, 1):
        if not (_is_number(item) or (isinstance(item, str) and item.strip())):
            errors.append(f"field {name!r}: {expected}, got {_describe(item)} as item {number}")
            return None
    return [str(item) for item in value]


def _tags(name: str, value: Any, errors: list[str]) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    expected = "expected a string or a list of strings"
    if not isinstance(value, list):
        errors.append(f"field {name!r}: {expected}, got {_kind(value)}")
        return []
    for number, item in enumerate(value, 1):
        if not isinstance(item, str):
            errors.append(f"field {name!r}: {expected}, got {_kind(item)} as item {number}")
            return []
    return list(value)


def _thresholds(name: str, value: Any, errors: list[str]) -> dict[str, float]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        errors.append(
            f"field {name!r}: expected a mapping of metric name to a number between 0 and 1, "
            f"got {_kind(value)}"
        )
        return {}
    thresholds: dict[str, float] = {}
    for metric, minimum in value.items():
        # Compared before float(): an integer such as 10**400 does not fit in a float.
        if not _is_number(minimum) or not 0 <= minimum <= 1:
            errors.append(
                f"field {name!r}: the threshold of {str(metric)!r} must be a number between "
                f"0 and 1, got {_describe(minimum)}"
            )
            continue
        thresholds[str(metric)] = float(minimum)
    return thresholds


# --- small helpers ----------------------------------------------------------------------


def _key(name: str) -> str:
    return name.strip().lower()


def _is_number(value: Any) -> bool:
    # bool is an int subclass, but True is no id or threshold; an integer past Python's
    # int-to-str digit limit (YAML hex is exempt from it on reading) cannot even be shown.
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and not (isinstance(value, float) and not math.isfinite(value))
        and not (isinstance(value, int) and value.bit_length() > _LONGEST_INT_BITS)
    )


_LONGEST_INT_BITS = 13_000  # about 3,900 digits, under Python's default limit of 4,300


_KIND_NAMES: dict[type, str] = {dict: "object", list: "list", type(None): "null"}


def _kind(value: Any) -> str:
    return _KIND_NAMES.get(type(value), type(value).__name__)


def _describe(value: Any) -> str:
    """The kind of a wrong value, with the value itself when it is short enough to find."""
    if isinstance(value, str):
        return f"{_preview(value)} (str)" if value.strip() else "an empty string"
    if isinstance(value, int) and not isinstance(value, bool) and not _is_number(value):
        return "an integer too long to use"
    if _is_number(value):
        text = str(value)
        return text if len(text) <= 40 else f"{text[:12]}… (a {len(text)}-digit number)"
    return _kind(value)


def _preview(text: str, limit: int = 40) -> str:
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    return repr(shown)


def _article(kind: str) -> str:
    return f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}"


def _quoted_list(names: list[str]) -> str:
    return ", ".join(repr(name) for name in names) if names else "no columns"
