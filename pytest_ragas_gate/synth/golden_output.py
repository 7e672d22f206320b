"""Kept questions as golden cases in a JSON Lines file the gate reads as it is.

Each case::

    {"id": "synth-3f9c0a12bd", "question": "…", "reference": "…",
     "relevant_context_ids": ["billing.md#2-a1b2c3"], "reference_contexts": ["…"],
     "tags": ["synth", "single", "billing.md"], "review": "pending"}

The id is a hash of the kind, the chunk ids and the question, so the same documents and
replies give the same ids. Cases are written in document order. A file that already holds
reviewed cases (``accepted`` or ``rejected``) keeps those decisions, edits included, for
every case generated again with the same id; :func:`check_overwrite` refuses to drop the
others.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..atomic_files import write_lines_atomic
from ..exceptions import UsageError
from .chunking import Chunk
from .pipeline import Kept
from .requests import KINDS

__all__ = [
    "REVIEWED",
    "case_id",
    "case_rows",
    "check_overwrite",
    "read_rows",
    "write_jsonl",
]

#: Review states a person decided (``pending`` is the machine's).
REVIEWED = frozenset({"accepted", "rejected"})


def case_id(kind: str, chunk_ids: Iterable[str], question: str) -> str:
    """The stable id of a generated case.

    >>> case_id("single", ["plans.md#0-a4a2ec"], "What is the Team plan?")
    'synth-da4845488b'
    """
    payload = "\x00".join([kind, *chunk_ids, " ".join(question.split())])
    return "synth-" + hashlib.sha256(payload.encode("utf-8")).hexdigest()[:10]


def case_rows(kept: Sequence[Kept], chunks: Sequence[Chunk]) -> list[dict[str, Any]]:
    """The golden rows of ``kept``, in document order then kind order."""
    position = {chunk.id: index for index, chunk in enumerate(chunks)}
    rows: list[tuple[tuple[int, int, str], dict[str, Any]]] = []
    for item in kept:
        question = item.question
        relevant = item.relevant
        row: dict[str, Any] = {
            "id": case_id(question.kind, [chunk.id for chunk in item.chunks], question.question),
            "question": question.question,
            "reference": question.reference,
            "relevant_context_ids": [chunk.id for chunk in relevant],
            "reference_contexts": [chunk.text for chunk in relevant],
            "tags": ["synth", question.kind, *item.documents],
            "review": "pending",
        }
        order = (position.get(item.chunks[0].id, 0), KINDS.index(question.kind), row["id"])
        rows.append((order, row))
    return [row for _, row in sorted(rows, key=lambda pair: pair[0])]


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON Lines golden file; a line that is not an object is an error."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text.") from None
    except OSError as error:
        raise UsageError(f"{path}: cannot be read ({error.strerror or error}).") from None
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise UsageError(f"{path}:{number}: not a JSON object ({error.msg}).") from None
        if not isinstance(row, dict):
            raise UsageError(f"{path}:{number}: expected a JSON object, got {type(row).__name__}.")
        rows.append(row)
    return rows


def check_overwrite(
    previous: Sequence[Mapping[str, Any]], rows: list[dict[str, Any]], *, path: Path, force: bool
) -> int:
    """Carry reviewed decisions of ``previous`` over to ``rows`` (same id); count them.

    Raises:
        UsageError: reviewed cases of ``previous`` are not generated again and would be
            lost, and ``force`` is not set.
    """
    reviewed = {str(row.get("id")): row for row in previous if row.get("review") in REVIEWED}
    carried = 0
    for index, row in enumerate(rows):
        old = reviewed.pop(str(row["id"]), None)
        if old is not None:
            rows[index] = dict(old)
            carried += 1
    if reviewed and not force:
        raise UsageError(
            f"{path} holds {len(reviewed)} reviewed case(s) that this run does not generate "
            "again (other documents, --n or --mix); write to another file with -o, or pass "
            "--force to drop them."
        )
    return carried


def write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    """Write ``rows`` as JSON Lines, atomically (a reader never sees half a file)."""
    write_lines_atomic(path, (json.dumps(row, ensure_ascii=False) + "\n" for row in rows))


def chunk_rows(chunks: Sequence[Chunk]) -> list[dict[str, Any]]:
    """The chunks as ``{id, text, document, title}`` rows, for indexing them in a RAG system."""
    return [
        {"id": chunk.id, "text": chunk.text, "document": chunk.document, "title": chunk.title}
        for chunk in chunks
    ]
