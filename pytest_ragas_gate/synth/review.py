r"""Reviewing generated cases one by one: accept, edit, reject — and write each decision back.

The review reads its answers line by line from a text stream (standard input), so it
works in a terminal, in a script (``printf 'a\nr\n' | rag-gate synth review FILE``) and
in tests alike. After every decision the file is rewritten atomically, so quitting (``q``
or end of input) keeps what was decided.

Answers: ``a`` accept, ``e`` edit (a new question, then a new reference; an empty line
keeps the old text; the case is then accepted), ``r`` reject, ``s`` skip (stays pending),
``q`` quit.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any, TextIO

from ..exceptions import UsageError
from .golden_output import read_rows, write_jsonl
from .requests import KINDS

__all__ = ["review_file"]

_CHUNK_PREVIEW = 500
_CHOICES = "accept (a), edit (e), reject (r), skip (s), quit (q)? "


def _read(answers: TextIO, out: TextIO, prompt: str) -> str | None:
    out.write(prompt)
    out.flush()
    line = answers.readline()
    if not line:
        out.write("\n")
        return None
    return line.rstrip("\r\n")


def _show(row: dict[str, Any], number: int, total: int, out: TextIO) -> None:
    tags = [str(tag) for tag in row.get("tags") or []]
    kind = next((tag for tag in tags if tag in KINDS), "?")
    documents = [tag for tag in tags if tag not in KINDS and tag != "synth"]
    out.write(
        f"\n[{number}/{total}] {row.get('id')}  {kind} · {', '.join(documents) or '-'}"
        f"  (review: {row.get('review', 'pending')})\n"
    )
    out.write(f"question:  {row.get('question', '')}\n")
    out.write(f"reference: {row.get('reference', '')}\n")
    ids = row.get("relevant_context_ids") or []
    texts = row.get("reference_contexts") or []
    if not ids:
        out.write("chunks:    none (the documents should not answer this question)\n")
    for chunk_id, text in zip(ids, texts, strict=False):
        out.write(f"chunk {chunk_id}:\n")
        preview = textwrap.shorten(str(text), width=_CHUNK_PREVIEW, placeholder=" …")
        out.write(textwrap.indent(textwrap.fill(preview, width=96), "  ") + "\n")


def review_file(path: Path, answers: TextIO, out: TextIO, *, every: bool = False) -> int:
    """Review the pending cases of ``path`` (every case with ``every``); exit status 0.

    Raises:
        UsageError: the file is missing or not JSON Lines.
    """
    if not path.is_file():
        raise UsageError(f"{path}: no such file.")
    rows = read_rows(path)
    todo = [
        index
        for index, row in enumerate(rows)
        if every or row.get("review", "pending") == "pending"
    ]
    decided = {"accepted": 0, "rejected": 0, "edited": 0}
    if not todo:
        out.write(f"{path}: no pending case to review.\n")
    for number, index in enumerate(todo, 1):
        row = rows[index]
        _show(row, number, len(todo), out)
        while True:
            choice = _read(answers, out, _CHOICES)
            if choice is None or choice.strip().lower() in ("q", "quit"):
                return _finish(path, rows, decided, out)
            choice = choice.strip().lower()[:1]
            if choice in ("a", "r", "e", "s"):
                break
            out.write("please answer a, e, r, s or q\n")
        if choice == "s":
            continue
        if choice == "e":
            question = _read(answers, out, "new question (empty keeps it): ")
            reference = _read(answers, out, "new reference (empty keeps it): ")
            edited = False
            if question and question.strip():
                row["question"], edited = question.strip(), True
            if reference and reference.strip():
                row["reference"], edited = reference.strip(), True
            if edited:
                row["edited"] = True
                decided["edited"] += 1
            choice = "a"
        row["review"] = "accepted" if choice == "a" else "rejected"
        decided[row["review"]] += 1
        write_jsonl(path, rows)
    return _finish(path, rows, decided, out)


def _finish(path: Path, rows: list[dict[str, Any]], decided: dict[str, int], out: TextIO) -> int:
    pending = sum(1 for row in rows if row.get("review", "pending") == "pending")
    edited = f" ({decided['edited']} edited)" if decided["edited"] else ""
    out.write(
        f"{path}: {decided['accepted']} accepted{edited}, {decided['rejected']} rejected; "
        f"{pending} still pending.\n"
    )
    return 0
