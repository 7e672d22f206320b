"""``json``: any JSON or JSON Lines records, their fields named with ``--map FIELD=PATH``.

Each record (a line of a ``.jsonl`` file, an item of a ``.json`` list, or of the list
under ``data``, ``items``, ``records`` or ``examples``) is one case. ``FIELD`` is a golden
field — ``question``, ``answer``, ``contexts``, ``reference``, ``id``, ``tags`` — or
``timestamp`` (for ``--since``/``--until``) or ``metadata.NAME``; ``PATH`` is a dotted path
with ``[N]`` and ``[*]`` (see :mod:`.paths`). A field not mapped is read from the record's
key of the same name. A record whose question path leads nowhere is malformed, named by
its line or item and the path. A mapped path that leads nowhere in every record is an
error naming the keys found where it stopped (a misspelt path must not read as "no
contexts"); one that misses some records is counted in the summary.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path as FilePath
from typing import Any

from ..exceptions import CommandError
from .paths import MISSING, DeadEnd, Path, dead_end, parse_path, resolve, show_path
from .records import (
    Imported,
    Invalid,
    Malformed,
    Notice,
    Outcome,
    own_id,
    pick_text,
    text_list,
)
from .streaming import stream_records

__all__ = ["MAPPABLE", "parse_mapping", "read_mapped"]

#: The fields ``--map`` may name besides ``metadata.NAME``.
MAPPABLE = ("id", "question", "answer", "contexts", "reference", "tags", "timestamp")
_LIST_KEYS = ("data", "items", "records", "examples")


def parse_mapping(entries: list[str]) -> dict[str, tuple[str, Path]]:
    """``FIELD=PATH`` entries as field → (path as written, steps).

    >>> parse_mapping(["question=request.query", "metadata.user=user.id"])["question"]
    ('request.query', ('request', 'query'))

    Raises:
        ValueError: an entry is no ``FIELD=PATH``, names an unknown field or a bad path.
    """
    mapping: dict[str, tuple[str, Path]] = {}
    for entry in entries:
        name, equals, text = entry.partition("=")
        name = name.strip()
        if not equals or not text.strip():
            raise ValueError(f"--map {entry!r}: expected FIELD=PATH")
        if name not in MAPPABLE and not (name.startswith("metadata.") and len(name) > 9):
            raise ValueError(
                f"--map {entry!r}: FIELD is one of {', '.join(MAPPABLE)} or metadata.NAME"
            )
        try:
            mapping[name] = (text.strip(), parse_path(text.strip()))
        except ValueError as error:
            raise ValueError(f"--map {entry!r}: {error}") from None
    return mapping


def read_mapped(path: FilePath, mapping: Mapping[str, tuple[str, Path]]) -> Iterator[Outcome]:
    """One case per record, its fields where ``mapping`` says.

    Raises:
        CommandError: a mapped path leads nowhere in any record of the file.
    """
    misses = {name: _Misses() for name in mapping}
    for place, record in stream_records(path, _LIST_KEYS):
        if not isinstance(record, Mapping):
            yield Malformed(place, "(record)", "expected an object")
            continue
        for name, (_, steps) in mapping.items():
            misses[name].count(str(place), dead_end(record, steps))

        def get(name: str, record: Mapping[str, Any] = record) -> tuple[str, Any]:
            shown, steps = mapping.get(name, (name, (name,)))
            found = resolve(record, steps)
            return shown, None if found is MISSING else found

        try:
            shown, question = get("question")
            fields: dict[str, Any] = {"question": pick_text(question, shown, required=True)}
            shown, answer = get("answer")
            if answer is not None:
                fields["answer"] = pick_text(answer, shown)
            shown, contexts = get("contexts")
            if contexts is not None:
                fields["contexts"] = text_list(contexts, shown)
            shown, reference = get("reference")
            if reference is not None:
                fields["reference"] = pick_text(reference, shown)
            shown, tags = get("tags")
            if tags is not None:
                fields["tags"] = [tags] if isinstance(tags, str) else text_list(tags, shown)
        except Invalid as invalid:
            yield Malformed(place, invalid.field, invalid.expected)
            continue
        metadata = {
            name.removeprefix("metadata."): value
            for name in mapping
            if name.startswith("metadata.") and (value := get(name)[1]) is not None
        }
        identifier = get("id")[1] if "id" in mapping else own_id(record)
        yield Imported(
            place,
            {key: value for key, value in fields.items() if value not in (None, [])},
            source_id=None if identifier in (None, "") else str(identifier),
            metadata=metadata,
            timestamp=get("timestamp")[1],
        )
    for name, (shown, steps) in mapping.items():
        notice = misses[name].verdict(path, f"{name}={shown}", steps)
        if notice is not None:
            yield notice


@dataclass
class _Misses:
    """How often one mapped path led nowhere, and where it stopped the first time."""

    records: int = 0
    missed: int = 0
    first: tuple[str, DeadEnd] | None = None

    def count(self, place: str, end: DeadEnd | None) -> None:
        self.records += 1
        if end is not None:
            self.missed += 1
            if self.first is None:
                self.first = (place, end)

    def verdict(self, path: FilePath, entry: str, steps: Path) -> Notice | None:
        """Nothing when the path always led somewhere; a notice when only sometimes.

        Raises:
            CommandError: it never led anywhere: a misspelt path must not pass as "no data".
        """
        if self.first is None:
            return None
        place, end = self.first
        if self.missed < self.records:
            return Notice(
                f"--map {entry} matched nothing in {self.missed} of {self.records} record(s) "
                f"(first {place}); those cases have no {entry.partition('=')[0]}"
            )
        raise CommandError(
            f"--map {entry} matches nothing in any of the {self.records} record(s) of "
            f"{path}: {_where_it_stops(steps, end)}. Fix the path."
        )


def _where_it_stops(steps: Path, end: DeadEnd) -> str:
    """The key the path wanted, the keys found there, and the nearest of them."""
    at = show_path(end.reached)
    wanted = steps[len(end.reached)] if len(end.reached) < len(steps) else None
    if isinstance(wanted, int) or wanted is None:
        return f"{at} holds no list with an item {show_path((wanted,))}"
    if not end.keys:
        return f"no key {wanted!r}: {at} holds no object"
    found = ", ".join(repr(key) for key in end.keys[:_KEYS_SHOWN])
    more = f" and {len(end.keys) - _KEYS_SHOWN} more" if len(end.keys) > _KEYS_SHOWN else ""
    where = f"under {at}" if end.reached else "at the top"
    text = f"no key {wanted!r} {where}; the keys found there are {found}{more}"
    if isinstance(wanted, str):
        close = difflib.get_close_matches(wanted, end.keys, n=1, cutoff=0.6)
        if close:
            nearest = show_path((*end.reached, close[0], *steps[len(end.reached) + 1 :]))
            text += f" — did you mean {nearest!r}?"
    return text


_KEYS_SHOWN = 10
