"""``json``: any JSON or JSON Lines records, their fields named with ``--map FIELD=PATH``.

Each record (a line of a ``.jsonl`` file, an item of a ``.json`` list, or of the list
under ``data``, ``items``, ``records`` or ``examples``) is one case. ``FIELD`` is a golden
field — ``question``, ``answer``, ``contexts``, ``reference``, ``id``, ``tags`` — or
``timestamp`` (for ``--since``/``--until``) or ``metadata.NAME``; ``PATH`` is a dotted path
with ``[N]`` and ``[*]`` (see :mod:`.paths`). A field not mapped is read from the record's
key of the same name. A record whose question path leads nowhere is malformed, named by
its line or item and the path.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path as FilePath
from typing import Any

from .paths import MISSING, Path, parse_path, resolve
from .records import Imported, Invalid, Malformed, Outcome, own_id, pick_text, text_list
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
    """One case per record, its fields where ``mapping`` says."""
    for place, record in stream_records(path, _LIST_KEYS):
        if not isinstance(record, Mapping):
            yield Malformed(place, "(record)", "expected an object")
            continue

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
