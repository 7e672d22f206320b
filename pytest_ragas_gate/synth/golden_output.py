"""Kept questions as golden cases in a JSON Lines file the gate reads as it is.

Each case::

    {"id": "synth-3f9c0a12bd", "question": "…", "reference": "…",
     "relevant_context_ids": ["billing.md#2-a1b2c3"], "reference_contexts": ["…"],
     "tags": ["synth", "single", "billing.md"], "review": "pending"}

A ``conversation`` case holds ``turns`` instead of ``question`` and ``reference`` (the
golden conversation shape): each user turn, then an assistant turn whose ``content`` and
``reference`` are the reference answer and whose ``contexts`` are its chunks as ``{id,
text}``; ``relevant_context_ids`` lists the chunks of every turn.

The id is a hash of the kind, the chunk ids and the question, so the same documents and
replies give the same ids. Cases are written in document order.

A file that already holds reviewed cases (``accepted`` or ``rejected``) keeps them
(:func:`carry_reviewed`): a case whose chunks are unchanged keeps its decision and edits,
its chunk ids updated when the chunks moved; a case whose chunk was edited goes back to
``pending`` on the chunk now at its place; only a case whose chunk is gone cannot be kept
(the command refuses to drop it without ``--force``). Accepted cases count towards
``--n``; rejected ones stay in the file (the gate skips them) and new cases replace them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..atomic_files import write_lines_atomic
from ..exceptions import UsageError
from .chunking import Chunk
from .pipeline import Kept
from .requests import KINDS

__all__ = [
    "REVIEWED",
    "Carried",
    "carry_reviewed",
    "case_id",
    "case_rows",
    "conversation_fields",
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
        identifier = case_id(question.kind, [chunk.id for chunk in item.chunks], question.question)
        row: dict[str, Any]
        if question.kind == "conversation":
            row = {"id": identifier, **conversation_fields(item)}
        else:
            row = {
                "id": identifier,
                "question": question.question,
                "reference": question.reference,
                "relevant_context_ids": [chunk.id for chunk in relevant],
                "reference_contexts": [chunk.text for chunk in relevant],
            }
        row |= {"tags": ["synth", question.kind, *item.documents], "review": "pending"}
        order = (position.get(item.chunks[0].id, 0), KINDS.index(question.kind), row["id"])
        rows.append((order, row))
    return [row for _, row in sorted(rows, key=lambda pair: pair[0])]


def conversation_fields(item: Kept) -> dict[str, Any]:
    """The ``turns`` of a generated conversation, and the ids of every turn's chunks."""
    question = item.question
    turns: list[dict[str, Any]] = []
    used: list[str] = []
    asked = [(question.question, question.reference, question.chunks)]
    asked += [(turn.question, turn.reference, turn.chunks) for turn in question.follow_ups]
    for text, reference, cited in asked:
        chunks = [item.chunks[index] for index in dict.fromkeys(cited)]
        used += [chunk.id for chunk in chunks]
        turns.append({"role": "user", "content": text})
        turns.append(
            {
                "role": "assistant",
                "content": reference,
                "reference": reference,
                "contexts": [{"id": chunk.id, "text": chunk.text} for chunk in chunks],
            }
        )
    return {"turns": turns, "relevant_context_ids": list(dict.fromkeys(used))}


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


def write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    """Write ``rows`` as JSON Lines, atomically (a reader never sees half a file)."""
    write_lines_atomic(path, (json.dumps(row, ensure_ascii=False) + "\n" for row in rows))


def chunk_rows(chunks: Sequence[Chunk]) -> list[dict[str, Any]]:
    """The chunks as ``{id, text, document, title}`` rows, for indexing them in a RAG system."""
    return [
        {"id": chunk.id, "text": chunk.text, "document": chunk.document, "title": chunk.title}
        for chunk in chunks
    ]


@dataclass
class Carried:
    """Reviewed cases of a previous golden file, matched to the current chunks.

    Attributes:
        rows: cases kept as they were decided (chunk ids updated when their chunks moved).
        stale: reviewed cases whose chunk text changed: back to ``pending`` on the chunk
            now at the same place.
        lost: ids of reviewed cases whose chunks no longer exist.
        moved: how many kept cases got new chunk ids.
    """

    rows: list[dict[str, Any]] = field(default_factory=list)
    stale: list[dict[str, Any]] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    moved: int = 0

    def count(self, kind: str, review: str) -> int:
        """Carried cases of ``kind`` with ``review`` state (stale ones count as pending)."""
        return sum(
            1
            for row in [*self.rows, *self.stale]
            if kind_of(row) == kind and row.get("review", "pending") == review
        )


def kind_of(row: Mapping[str, Any]) -> str:
    """A case's kind, from its tags."""
    return next((str(tag) for tag in row.get("tags") or [] if tag in KINDS), "single")


def _split_id(chunk_id: str) -> tuple[str, str, str] | None:
    document, _, rest = chunk_id.rpartition("#")
    position, _, digest = rest.partition("-")
    if not document or not position.isdigit() or not digest:
        return None
    return document, position, digest


def _retarget_turns(row: dict[str, Any], chunks: Mapping[str, Chunk]) -> None:
    """Point a conversation's turn contexts at ``chunks`` (old id → the chunk now there)."""
    turns = row.get("turns")
    if not isinstance(turns, list):
        return
    for turn in turns:
        contexts = turn.get("contexts") if isinstance(turn, dict) else None
        if not isinstance(contexts, list):
            continue
        for index, context in enumerate(contexts):
            if isinstance(context, dict) and str(context.get("id")) in chunks:
                chunk = chunks[str(context.get("id"))]
                contexts[index] = {"id": chunk.id, "text": chunk.text}


def carry_reviewed(previous: Sequence[Mapping[str, Any]], chunks: Sequence[Chunk]) -> Carried:
    """Match the reviewed cases of ``previous`` to ``chunks`` (see the module docstring)."""
    by_text = {(chunk.document, chunk.id.rsplit("-", 1)[1]): chunk for chunk in chunks}
    by_place = {(chunk.document, str(chunk.position)): chunk for chunk in chunks}
    carried = Carried()
    for old in previous:
        if old.get("review") not in REVIEWED:
            continue
        row = dict(old)
        ids = [str(chunk_id) for chunk_id in row.get("relevant_context_ids") or []]
        same: list[Chunk] = []
        placed: list[Chunk] = []
        for chunk_id in ids:
            parts = _split_id(chunk_id)
            if parts is None:
                break
            document, position, digest = parts
            if (document, digest) in by_text:
                same.append(by_text[(document, digest)])
            if (document, position) in by_place:
                placed.append(by_place[(document, position)])
        if len(same) == len(ids):
            new_ids = [chunk.id for chunk in same]
            if new_ids != ids:
                carried.moved += 1
                row["relevant_context_ids"] = new_ids
                _retarget_turns(row, dict(zip(ids, same, strict=True)))
            carried.rows.append(row)
        elif len(placed) == len(ids):
            row["relevant_context_ids"] = [chunk.id for chunk in placed]
            if "turns" in row:
                _retarget_turns(row, dict(zip(ids, placed, strict=True)))
            else:
                row["reference_contexts"] = [chunk.text for chunk in placed]
            row["review"] = "pending"
            carried.stale.append(row)
        else:
            carried.lost.append(str(row.get("id")))
    return carried
