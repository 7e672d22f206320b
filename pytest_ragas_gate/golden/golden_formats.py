r"""Read golden files (``.jsonl``, ``.json``, ``.yaml``/``.yml``, ``.csv``) into raw rows.

Each row is one case as the file holds it, with the line where it starts; turning rows into
cases is :mod:`.golden_fields`' job. A file that cannot be read as a whole (bad syntax, not
UTF-8, unknown shape or extension) raises
:class:`~pytest_ragas_gate.exceptions.GoldenFileError`; a row that cannot be read (a JSONL
line that is not JSON, a CSV cell that is not a list) carries its error to validation, so
one bad case never hides the others. An empty file (0 bytes, blank, only YAML comments) holds
no rows, as ``[]`` does.

>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "golden.csv"
>>> _ = path.write_text('question,contexts\n"Q?","[""a"", ""b""]"\n', encoding="utf-8")
>>> [(row.line, row.value) for row in read_rows(path, "golden.csv")]
[(2, {'question': 'Q?', 'contexts': ['a', 'b']})]
"""

from __future__ import annotations

import ast
import bisect
import codecs
import csv
import fnmatch
import io
import json
import os
import re
import tokenize
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from ..exceptions import GoldenFileError
from .golden_fields import (
    RawCase,
    canonical_field,
    is_deepeval_row,
    kind_of,
    nul_message,
    preview,
)

if TYPE_CHECKING:
    import yaml

__all__ = ["SUPPORTED_EXTENSIONS", "matches_golden_globs", "read_rows"]

SUPPORTED_EXTENSIONS: frozenset[str] = frozenset({".jsonl", ".json", ".yaml", ".yml", ".csv"})

_CSV_LIST_FIELDS = frozenset(
    {"contexts", "relevant_context_ids", "tags", "tools_called", "expected_tools"}
)
#: DeepEval CSV columns whose cells hold a JSON object.
_DEEPEVAL_JSON_CELLS = frozenset({"additional_metadata", "custom_column_key_values"})
_CSV_DELIMITERS = ",;\t|"
_JSON_WHITESPACE = re.compile(r"[ \t\n\r]*")
# Python's csv module refuses cells over 128 KiB by default; retrieved contexts of a long
# document easily exceed that, so the limit is lifted while a golden file is read.
_CSV_FIELD_LIMIT = 2**31 - 1

_TOO_DEEP = "the JSON is nested too deeply to be a golden case (over a thousand levels)"
_TOO_DEEP_YAML = "the YAML is nested too deeply to be a golden set (over a thousand levels)"

# A top-level mapping of a JSON/YAML file: each key's items when its value is a list,
# else the kind of value it holds (for messages).
_TopMapping = dict[str, "list[RawCase] | str"]


def read_rows(path: str | os.PathLike[str], shown: str) -> list[RawCase]:
    """Read one golden file into its rows, in file order.

    Args:
        path: The file to read; its extension chooses the format.
        shown: How to name the file in messages.

    Returns:
        One row per case, each with the 1-based line where it starts.

    Raises:
        GoldenFileError: The file cannot be read as a whole: unsupported extension, not
            UTF-8, invalid JSON/YAML/CSV syntax, or a top-level shape that is not
            one of the accepted ones.
    """
    extension = Path(path).suffix.lower()
    if extension not in SUPPORTED_EXTENSIONS:
        supported = ", ".join(sorted(SUPPORTED_EXTENSIONS))
        raise GoldenFileError(
            f"{shown}: unsupported golden file extension {extension or '(none)'!r}; "
            f"use one of {supported}."
        )
    text = _read_text(path, shown)
    if not text.strip():
        # A 0-byte (or blank) file holds no case, as `[]` does: named as an empty file of
        # the run, which is then partial, never a usage error that stops the other files.
        return []
    readers: dict[str, Callable[[str, str], list[RawCase]]] = {
        ".jsonl": _read_jsonl,
        ".json": _read_json,
        ".yaml": _read_yaml,
        ".yml": _read_yaml,
        ".csv": _read_csv,
    }
    return readers[extension](shown, text)


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
    return text


# --- JSON Lines -------------------------------------------------------------------------


def _read_jsonl(shown: str, text: str) -> list[RawCase]:
    raw_cases: list[RawCase] = []
    # Split on "\n" only: JSON strings may hold a raw U+2028, which str.splitlines would cut.
    for index, physical_line in enumerate(text.split("\n")):
        content = physical_line.strip()
        if not content:
            continue
        if "\x00" in physical_line:
            column = physical_line.index("\x00") + 1
            raw_cases.append(RawCase(index + 1, None, [nul_message(f"column {column}")]))
            continue
        try:
            value = json.loads(content)
        except json.JSONDecodeError as error:
            column = error.colno + (len(physical_line) - len(physical_line.lstrip()))
            raw_cases.append(
                RawCase(index + 1, None, [f"invalid JSON at column {column}: {error.msg}"])
            )
            continue
        except ValueError as error:  # an integer past Python's digit limit
            raw_cases.append(RawCase(index + 1, None, [f"invalid JSON: {error}"]))
            continue
        except RecursionError:
            raw_cases.append(RawCase(index + 1, None, [_TOO_DEEP]))
            continue
        raw_cases.append(RawCase(index + 1, value))
    return raw_cases


# --- JSON -------------------------------------------------------------------------------


def _read_json(shown: str, text: str) -> list[RawCase]:
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
        return _numbered(_rows_of(shown, scanner.array(position)[0]))
    if opening == "{":
        return _numbered(_rows_of(shown, scanner.top_mapping(position)))
    kind = kind_of(json.loads(text))
    return _rows_of(shown, kind)


def _numbered(rows: list[RawCase]) -> list[RawCase]:
    """Number the cases that share a line with another (JSON written without indentation).

    ``json.dump`` without ``indent`` puts every case on line 1, where the line alone names
    none of them; their item number in the list does.
    """
    lines = Counter(row.line for row in rows)
    for index, row in enumerate(rows, 1):
        if lines[row.line] > 1:
            row.item = index
    return rows


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

    def array(self, position: int) -> tuple[list[RawCase], int]:
        items: list[RawCase] = []
        position = self.skip(position + 1)
        if self.text[position] == "]":
            return items, position + 1
        while True:
            value, end = self.decoder.raw_decode(self.text, position)
            items.append(RawCase(self.line_of(position), value))
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
                mapping[key] = kind_of(value)
            position = self.skip(end)
            if self.text[position] == "}":
                return mapping
            position = self.skip(position + 1)


# --- YAML -------------------------------------------------------------------------------


def _read_yaml(shown: str, text: str) -> list[RawCase]:
    import yaml  # imported here so that pytest runs without --rag-gate never load it

    loader_class: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return _read_yaml_with(loader_class, shown, text)
    except GoldenFileError as error:
        cause = error.__cause__
        if loader_class is yaml.SafeLoader or not isinstance(cause, yaml.MarkedYAMLError):
            raise
        if cause.problem != _LIBYAML_BAD_ESCAPE:
            raise
    # libyaml rejects the whole file for a "\ud800" escape, a lone surrogate; the
    # pure-Python reader keeps it, so that only the case holding it is reported.
    try:
        return _read_yaml_with(yaml.SafeLoader, shown, text)
    except GoldenFileError as error:
        if isinstance(error.__cause__, _PURE_YAML_BAD_ESCAPE):
            # An escape past U+10FFFF: libyaml's message names it best.
            return _read_yaml_with(loader_class, shown, text)
        raise


#: What libyaml says of a ``\u`` escape naming a surrogate or a code past U+10FFFF.
_LIBYAML_BAD_ESCAPE = "found invalid Unicode character escape code"
#: What the pure-Python reader raises for an escape past U+10FFFF (``chr()`` refuses it).
_PURE_YAML_BAD_ESCAPE = (ValueError, OverflowError)


def _read_yaml_with(loader_class: type[yaml.SafeLoader], shown: str, text: str) -> list[RawCase]:
    import yaml

    from pytest_ragas_gate.yaml_keys import unique_key_loader

    try:
        # The pure-Python reader checks every character as soon as it is built.
        loader = unique_key_loader(loader_class)(text)
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
        except _PURE_YAML_BAD_ESCAPE as error:
            raise GoldenFileError(
                f"{shown}: the file is not valid YAML: an escape names no Unicode character "
                f"({error})."
            ) from error
        if root is None:
            # Only comments: no case, as an empty file.
            return []
        try:
            top = _yaml_top(loader, root, lines, shown)
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
    loader: yaml.SafeLoader, root: yaml.Node, lines: _YamlLines, shown: str
) -> list[RawCase] | _TopMapping | str:
    # Node kinds are compared by their `id` rather than by class: PyYAML's C loader keeps
    # the node classes of its first import, which differ from a re-imported module's.
    if _node_kind(root) == "sequence":
        return [_yaml_case(loader, node, lines) for node in root.value]
    if _node_kind(root) == "mapping":
        mapping: _TopMapping = {}
        first_lines: dict[str, int] = {}
        for key_node, value_node in root.value:
            key = _yaml_key(loader, key_node)
            line = lines.of(key_node.start_mark)
            if key in first_lines:
                raise GoldenFileError(
                    f"{shown}:{line}: {key!r} is written twice at the top of the file "
                    f"({shown}:{first_lines[key]} and {shown}:{line}); YAML would keep only "
                    "the last: keep one."
                )
            first_lines[key] = line
            if _node_kind(value_node) == "sequence":
                mapping[key] = [_yaml_case(loader, node, lines) for node in value_node.value]
            else:
                mapping[key] = kind_of(_yaml_value_or_none(loader, value_node))
        return mapping
    return kind_of(_yaml_value_or_none(loader, root))


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


def _yaml_case(loader: yaml.SafeLoader, node: yaml.Node, lines: _YamlLines) -> RawCase:
    import yaml

    line = lines.of(node.start_mark)
    try:
        return RawCase(line, loader.construct_document(node))
    except yaml.MarkedYAMLError as error:
        problem = error.problem or error.context or "it cannot be constructed"
        mark = error.problem_mark
        where = f" (line {lines.of(mark)}, column {mark.column + 1})" if mark else ""
        return RawCase(line, None, [f"the case cannot be read: {problem}{where}"])
    except yaml.YAMLError as error:
        return RawCase(line, None, [f"the case cannot be read: {error}"])
    except _CONSTRUCTION_ERRORS as error:
        return RawCase(line, None, [f"the case cannot be read: {_construction_problem(error)}"])


#: What PyYAML's constructors raise besides YAMLError for a value they cannot build
#: (``2001-02-30``, ``!!float x``, ``!!bool x``), and what Python raises for an integer past
#: its conversion limits.
_CONSTRUCTION_ERRORS = (ValueError, TypeError, LookupError, AttributeError, ArithmeticError)


def _construction_problem(error: BaseException) -> str:
    detail = str(error).splitlines()[0] if str(error) else type(error).__name__
    return f"a value cannot be built ({preview(detail, 80)})"


def _yaml_value_or_none(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    import yaml

    try:
        return loader.construct_document(node)
    except (yaml.YAMLError, *_CONSTRUCTION_ERRORS):
        return None


# --- shapes shared by JSON and YAML -----------------------------------------------------


def _rows_of(shown: str, top: list[RawCase] | _TopMapping | str) -> list[RawCase]:
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


def _rows_of_columns(shown: str, columns: dict[str, list[RawCase]]) -> list[RawCase]:
    question_columns = [key for key in columns if canonical_field(key) == "question"]
    if not question_columns:
        raise GoldenFileError(
            f"{shown}: the column-oriented cases have no 'question' column (also accepted: "
            f"'user_input', 'query', 'input'); found {_quoted_list(list(columns))}."
        )
    lengths = {key: len(items) for key, items in columns.items()}
    if len(set(lengths.values())) > 1:
        described = ", ".join(f"{key!r} has {length}" for key, length in lengths.items())
        raise GoldenFileError(
            f"{shown}: the column-oriented cases need every column to have the same length, "
            f"but the lengths differ: {described}."
        )
    line_column = columns[question_columns[0]]
    rows: list[RawCase] = []
    for index, anchor in enumerate(line_column):
        value = {key: items[index].value for key, items in columns.items()}
        errors = [
            f"column {key!r}: {error}"
            for key, items in columns.items()
            for error in items[index].errors
        ]
        rows.append(RawCase(anchor.line, value, errors))
    return rows


# --- CSV --------------------------------------------------------------------------------


#: Stands in for NUL while the csv module reads: Python 3.10's reader rejects the whole
#: file at a NUL, where every other format (and later Pythons) report it on its own case.
_NUL_STAND_IN = "\U0010fffe"


def _read_csv(shown: str, text: str) -> list[RawCase]:
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
    rows: list[RawCase] = []
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
    if not any(canonical_field(name) in ("question", "turns") for name in seen):
        raise GoldenFileError(
            f"{shown}:{line}: the CSV file needs a header row with a 'question' column (also "
            "accepted: 'user_input', 'query', 'input'; or 'turns' for conversations); the "
            f"first row is {_quoted_list(list(seen))}."
        )
    return header


def _csv_row(header: list[str | None], cells: list[str], line: int) -> RawCase:
    value: dict[str, Any] = {}
    errors: list[str] = []
    # DeepEval's save_as joins a list cell with '|'; golden_fields splits it again.
    deepeval = is_deepeval_row(name for name in header if name is not None)
    extra = [cell for cell in cells[len(header) :] if cell.strip()]
    if extra:
        errors.append(f"the row has {len(cells)} cells but the header names {len(header)} columns")
    # A row cut short (a lost delimiter, a truncated export) would lose its last fields
    # without a word; an empty cell is how a CSV leaves a field blank.
    missing = [name for name in header[len(cells) :] if name is not None]
    if missing:
        errors.append(
            f"the row has {len(cells)} cells but the header names {len(header)} columns: no "
            f"cell for {_quoted_list(missing)} (write an empty cell to leave it blank)"
        )
    for number, (name, cell) in enumerate(zip(header, cells, strict=False), 1):
        if name is None or not cell:
            continue
        canonical = canonical_field(name)
        # An empty cell leaves a field out (CSV has no null, and the csv module reads a
        # quoted "" as one); an answer of only whitespace was given, and errors its case.
        if not cell.strip() and canonical != "answer":
            continue
        conversation = canonical == "turns" or (
            canonical == "question" and cell.lstrip().startswith("[{")
        )
        if conversation:
            # A conversation's turns (or RAGAS's message list) as a JSON array of objects.
            parsed = _parse_cell(cell, list)
            if parsed is None:
                errors.append(
                    f"field {name!r} (column {number}): expected a JSON array of turns such as "
                    f'[{{"role": "user", "content": "…"}}], got {preview(cell)}'
                )
                continue
            value[name] = parsed
        elif canonical in _CSV_LIST_FIELDS or _is_ground_truths(name):
            if _is_ground_truths(name) and not cell.lstrip().startswith("["):
                value[name] = cell
                continue
            try:
                parsed = _parse_cell(cell, list)
            except _CutShortList:
                errors.append(
                    f"field {name!r} (column {number}): the list was cut short when the file "
                    "was written (numpy prints '...' in place of the middle of a long array); "
                    "write each list in full, e.g. as JSON with json.dumps"
                )
                continue
            if parsed is None and deepeval and name.strip().lower() == "retrieval_context":
                value[name] = cell
                continue
            if parsed is None:
                errors.append(
                    f"field {name!r} (column {number}): expected a JSON array such as "
                    f'["first", "second"], got {preview(cell)}'
                )
                continue
            value[name] = parsed
        elif canonical in ("thresholds", "human"):
            parsed = _parse_cell(cell, dict)
            if parsed is None:
                errors.append(
                    f"field {name!r} (column {number}): expected a JSON object such as "
                    f'{{"faithfulness": 0.9}}, got {preview(cell)}'
                )
                continue
            value[name] = parsed
        elif canonical == "id":
            value[name] = cell.strip()
        elif deepeval and name.strip().lower() in _DEEPEVAL_JSON_CELLS:
            # DeepEval writes its metadata as JSON text.
            parsed = _parse_cell(cell, dict)
            value[name] = cell if parsed is None else parsed
        elif name.strip().lower() == "context" and cell.lstrip().startswith("["):
            # DeepEval's ideal context, when a list: golden_fields decides what it means.
            parsed = _parse_cell(cell, list)
            value[name] = cell if parsed is None else parsed
        else:
            value[name] = cell
    return RawCase(line, value, errors)


def _parse_cell(cell: str, expected: type[list[Any]] | type[dict[str, Any]]) -> Any:
    """The JSON or Python value a list or mapping cell holds, or None if it holds none.

    Raises:
        _CutShortList: The cell holds numpy's summary of a long array, not the array.
    """
    try:
        parsed = json.loads(cell)
    except RecursionError:
        return None
    except ValueError:  # not JSON (or an integer past Python's digit limit)
        # pandas' to_csv writes a list as a Python literal (['a', 'b']), and a numpy array,
        # as RAGAS's to_pandas() holds, as numpy prints it (['a' 'b']).
        source = cell.strip()
        if expected is list and source.startswith("["):
            source = _with_item_commas(source)
        try:
            parsed = ast.literal_eval(source)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    return parsed if isinstance(parsed, expected) else None


class _CutShortList(Exception):
    """A list cell holds numpy's summary (``['a' 'b' ... 'z']``), its middle left out."""


#: Tokens that start a list item; ``-`` signs a number in numpy's ``[ 1 -2  3]``.
_ITEM_START_KINDS = frozenset({tokenize.STRING, tokenize.NUMBER, tokenize.NAME})
_OPENING = frozenset("([{")
_CLOSING = frozenset(")]}")


def _with_item_commas(source: str) -> str:
    r"""``source`` with a comma between list items that only whitespace separates.

    numpy prints an array as its items' reprs separated by spaces and line breaks:
    ``['First chunk.'\n 'Second chunk.']``. Python would read the adjacent string
    literals as one string, silently joining two contexts, so the commas are put back.

    >>> print(_with_item_commas("['a' 'b' \"c's\"]"))
    ['a', 'b', "c's"]
    >>> print(_with_item_commas("[ 1 -2  3]"))
    [ 1, -2,  3]

    Raises:
        _CutShortList: ``source`` holds numpy's ``...`` in place of the middle items.
    """
    line_starts = [0] + [match.end() for match in re.finditer("\n", source)]

    def offset(position: tuple[int, int]) -> int:
        return line_starts[position[0] - 1] + position[1]

    commas: list[int] = []
    open_brackets: list[str] = []
    item_end: int | None = None  # where the last item of a list ended, until a comma
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            text = token.string
            if token.type in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
                continue
            in_list = bool(open_brackets) and open_brackets[-1] == "["
            starts_item = token.type in _ITEM_START_KINDS or text in _OPENING or text == "-"
            if in_list and item_end is not None and starts_item:
                commas.append(item_end)
            if in_list and text == "...":
                raise _CutShortList
            if text in _OPENING:
                open_brackets.append(text)
            elif text in _CLOSING and open_brackets:
                open_brackets.pop()
            ends_item = text in _CLOSING or token.type in _ITEM_START_KINDS
            item_end = offset(token.end) if ends_item else None
    except (tokenize.TokenError, SyntaxError):
        return source  # not a Python literal: literal_eval will say no
    for position in reversed(commas):
        source = source[:position] + "," + source[position:]
    return source


def _is_ground_truths(name: str) -> bool:
    # RAGAS's legacy column holds a list of strings, or a single string in older datasets.
    return name.strip().lower() == "ground_truths"


def _article(kind: str) -> str:
    return f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}"


def _quoted_list(names: list[str]) -> str:
    return ", ".join(repr(name) for name in names) if names else "no columns"


def matches_golden_globs(path: PurePath, patterns: Iterable[str]) -> bool:
    """Whether ``path``'s name matches one of the ``golden.files`` globs.

    The extension matches whatever its case (``golden_c.JSONL``), as the format does.

    >>> matches_golden_globs(Path("data/golden_c.JSONL"), ["golden*.jsonl"])
    True
    >>> matches_golden_globs(Path("data/cases.jsonl"), ["golden*.jsonl"])
    False
    """
    name = path.stem + path.suffix.lower()
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)
