"""Records of large exports read one at a time, so memory does not grow with the file.

JSON Lines is read line by line. A ``.json`` file is parsed incrementally with ijson (the
maintained iterative JSON parser; ``json.load`` would hold the whole document, several
times the file's size, in memory). A ``.parquet`` file (Phoenix's
``get_spans_dataframe().to_parquet()``) is read in record batches with pyarrow, when it is
installed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import ijson

from ..exceptions import CommandError
from .records import Place

__all__ = ["first_character", "stream_items", "stream_records"]

_BOM = b"\xef\xbb\xbf"
_BATCH_ROWS = 2048


def _open(path: Path) -> IO[bytes]:
    try:
        handle = path.open("rb")
    except OSError as error:
        raise CommandError(f"Cannot read {path}: {error.strerror or error}.") from None
    if handle.read(3) != _BOM:
        handle.seek(0)
    return handle


def first_character(path: Path) -> str:
    """The first character of a file that is not whitespace (after a BOM)."""
    with _open(path) as handle:
        while chunk := handle.read(4096):
            stripped = chunk.lstrip()
            if stripped:
                return chr(stripped[0])
    return ""


def _list_key(path: Path, list_keys: tuple[str, ...]) -> str | None:
    """The first top-level key among ``list_keys`` that holds a list, read as a stream."""
    with _open(path) as handle:
        for prefix, event, _ in ijson.parse(handle):
            if event == "start_array" and prefix in list_keys:
                return str(prefix)
    return None


def _invalid(path: Path, error: Exception) -> CommandError:
    """The error for a JSON file ijson cannot parse, naming the line where it breaks.

    ijson does not say where; the standard parser, run only now that the file is known to
    be broken, does.
    """
    try:
        json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as precise:
        return CommandError(
            f"{path}:{precise.lineno} is not valid JSON ({precise}); fix or remove that line."
        )
    except (OSError, UnicodeDecodeError, MemoryError):
        pass
    return CommandError(f"{path} is not valid JSON ({error}).")


def stream_items(path: Path, prefix: str) -> Iterator[Any]:
    """The values at ijson ``prefix`` (``item``, ``spans.item`` …) of a JSON file.

    Raises:
        CommandError: the file is not readable JSON.
    """
    try:
        with _open(path) as handle:
            yield from ijson.items(handle, prefix, use_float=True)
    except ijson.JSONError as error:
        raise _invalid(path, error) from None
    except UnicodeDecodeError as error:
        raise CommandError(f"{path} is not UTF-8 text ({error.reason}).") from None


def stream_records(path: Path, list_keys: tuple[str, ...] = ()) -> Iterator[tuple[Place, Any]]:
    """The records of a JSON Lines, JSON or (with pyarrow) Parquet file, one at a time.

    A JSON file holds a list of records, or an object with the list under one of
    ``list_keys``.

    Raises:
        CommandError: the file cannot be read, is not valid JSON, holds no list of records,
            or is Parquet without pyarrow installed.
    """
    name = str(path)
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        yield from _parquet_rows(path)
        return
    if suffix == ".jsonl":
        try:
            with path.open(encoding="utf-8-sig") as lines:
                for number, line in enumerate(lines, start=1):
                    if not line.strip():
                        continue
                    try:
                        record = json.loads(line)
                    except json.JSONDecodeError as error:
                        raise CommandError(
                            f"{path}:{number} is not valid JSON ({error}); fix or remove that line."
                        ) from None
                    yield Place(name, "line", number), record
        except OSError as error:
            raise CommandError(f"Cannot read {path}: {error.strerror or error}.") from None
        except UnicodeDecodeError as error:
            raise CommandError(f"{path} is not UTF-8 text ({error.reason}).") from None
        return
    first = first_character(path)
    if first == "[":
        prefix = "item"
    else:
        try:
            key = _list_key(path, list_keys) if first == "{" else None
        except ijson.JSONError as error:
            raise _invalid(path, error) from None
        except UnicodeDecodeError as error:
            raise CommandError(f"{path} is not UTF-8 text ({error.reason}).") from None
        if key is None:
            if first not in ("{", '"', ""):
                _refuse_if_not_json(path)
            keys = " or ".join(f"'{key}'" for key in list_keys)
            holder = f", or an object with a list under {keys}" if keys else ""
            held = {"{": "an object", '"': "text", "": "nothing"}.get(first, "a single value")
            raise CommandError(f"{path} holds {held}; expected a list of records{holder}.")
        prefix = f"{key}.item"
    for index, record in enumerate(stream_items(path, prefix), start=1):
        yield Place(name, "item", index), record


def _refuse_if_not_json(path: Path) -> None:
    """Name the line where a file that is not JSON at all (a CSV, a text) stops being JSON.

    Its first character would otherwise read as the start of some single value.
    """
    try:
        json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as precise:
        hint = ""
        if path.suffix.lower() in (".csv", ".tsv"):
            hint = "; a CSV golden file needs no import: pytest --rag-gate reads it as it is"
        raise CommandError(
            f"{path}:{precise.lineno} is not valid JSON ({precise}){hint}."
        ) from None
    except (OSError, UnicodeDecodeError, MemoryError):
        pass


def _parquet_rows(path: Path) -> Iterator[tuple[Place, Any]]:
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        raise CommandError(
            f"{path} is Parquet, which needs pyarrow: pip install 'pytest-ragas-gate[parquet]'."
        ) from None
    try:
        source = parquet.ParquetFile(path)
        row = 0
        for batch in source.iter_batches(batch_size=_BATCH_ROWS):
            for record in batch.to_pylist():
                row += 1
                yield Place(str(path), "row", row), record
    except (OSError, ValueError) as error:
        raise CommandError(f"Cannot read {path} as Parquet: {error}.") from None
