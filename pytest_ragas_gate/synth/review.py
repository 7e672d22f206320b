r"""Reviewing generated cases one by one: accept, edit, reject — and write each decision back.

The review reads its answers line by line from a text stream (standard input), so it
works in a terminal, in a script (``printf 'a\nr\n' | rag-gate synth review FILE``) and
in tests alike. After every decision the file is rewritten atomically, so quitting (``q``
or end of input) keeps what was decided.

Answers: ``a`` accept, ``e`` edit (a new question, reference, kind and chunk ids in turn;
an empty line keeps each; the case is then accepted), ``r`` reject, ``s`` skip (stays
pending), ``f`` show the chunks in full, ``q`` quit.

An edit is checked against its chunks before it is kept: every sentence of the reference
must be supported by the chunks it names (offline, as the offline judge checks support),
``multi`` needs two chunks, ``unanswerable`` none. Chunk ids may be any of the case's own,
or any chunk of the ``--chunks`` file (``rag-gate synth --chunks-out``).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any, TextIO

from ..exceptions import UsageError
from ..judges.offline.judge import Evidence, check_support
from ..judges.offline.text import is_noncommittal, split_sentences
from .golden_output import read_rows, write_jsonl
from .requests import KINDS

__all__ = ["review_file"]

_CHUNK_PREVIEW = 500
_CHOICES = "accept (a), edit (e), reject (r), skip (s), full chunks (f), quit (q)? "


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
    if isinstance(row.get("turns"), list):
        _show_chat(row["turns"], out)
    else:
        out.write(f"question:  {row.get('question', '')}\n")
        out.write(f"reference: {row.get('reference', '')}\n")
    ids, texts = _case_chunks(row)
    if not ids:
        out.write("chunks:    none (the documents should not answer this question)\n")
    for chunk_id, text in zip(ids, texts, strict=False):
        out.write(f"chunk {chunk_id}:\n")
        preview = textwrap.shorten(str(text), width=_CHUNK_PREVIEW, placeholder=" …")
        out.write(textwrap.indent(textwrap.fill(preview, width=96), "  ") + "\n")


def _show_chat(turns: list[Any], out: TextIO) -> None:
    """A conversation as a chat: each user turn, then the reference reply and its chunks."""
    number = 0
    for turn in turns:
        if not isinstance(turn, dict):
            continue
        if turn.get("role") == "user":
            number += 1
            out.write(f"turn {number} user:      {turn.get('content', '')}\n")
            continue
        cited = [str(c.get("id")) for c in turn.get("contexts") or [] if isinstance(c, dict)]
        out.write(f"       reference: {turn.get('reference') or turn.get('content', '')}\n")
        out.write(f"       chunks:    {', '.join(cited) or 'none'}\n")


def _case_chunks(row: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The chunk ids and texts of a case (a conversation's from its turns' contexts)."""
    if not isinstance(row.get("turns"), list):
        return list(row.get("relevant_context_ids") or []), list(
            row.get("reference_contexts") or []
        )
    chunks: dict[str, str] = {}
    for turn in row["turns"]:
        for context in turn.get("contexts") or [] if isinstance(turn, dict) else []:
            if isinstance(context, dict):
                chunks.setdefault(str(context.get("id")), str(context.get("text", "")))
    return list(chunks), list(chunks.values())


def _show_full(row: dict[str, Any], out: TextIO) -> None:
    ids, texts = _case_chunks(row)
    if not ids:
        out.write("no chunks: the documents should not answer this question\n")
    for chunk_id, text in zip(ids, texts, strict=False):
        out.write(f"chunk {chunk_id} (full):\n{textwrap.indent(str(text), '  ')}\n")


def edit_problem(kind: str, reference: str, chunks: list[str]) -> str | None:
    """Why an edited case does not hold against its chunks, or None when it does."""
    if kind not in KINDS:
        return f"kind must be one of {', '.join(KINDS)}, got {kind!r}"
    if kind == "unanswerable":
        if chunks:
            return "an unanswerable case names no chunk (give '-' as chunk ids)"
        if not is_noncommittal(reference):
            return "an unanswerable case's reference says the documents do not say it"
        return None
    if not chunks:
        return f"a {kind} case needs the chunk(s) that answer it"
    if kind == "multi" and len(chunks) < 2:
        return "a multi case needs two chunks"
    evidence = Evidence.of(chunks)
    for sentence in split_sentences(reference) or [reference]:
        support = check_support(sentence, evidence)
        if not support.supported:
            return f"the reference is not supported by its chunks ({support.reason}): {sentence!r}"
    return None


def _edit(
    row: dict[str, Any],
    answers: TextIO,
    out: TextIO,
    known: dict[str, str],
) -> str | None:
    """Ask for the new question, reference, kind and chunk ids.

    Returns ``changed``, ``unchanged``, ``refused`` (the edit does not hold; the row is left
    as it was) or None at the end of input.
    """
    question = _read(answers, out, "new question (empty keeps it): ")
    reference = _read(answers, out, "new reference (empty keeps it): ")
    tags = [str(tag) for tag in row.get("tags") or []]
    old_kind = next((tag for tag in tags if tag in KINDS), "single")
    kind = _read(answers, out, f"kind ({'/'.join(KINDS)}; empty keeps {old_kind}): ")
    old_ids = [str(chunk_id) for chunk_id in row.get("relevant_context_ids") or []]
    ids_text = _read(answers, out, "chunk ids, comma-separated ('-' for none; empty keeps): ")
    if ids_text is None:
        return None
    new_kind = (kind or "").strip().lower() or old_kind
    new_reference = (reference or "").strip() or str(row.get("reference", ""))
    if ids_text.strip() == "-":
        new_ids: list[str] = []
    elif ids_text.strip():
        new_ids = [part.strip() for part in ids_text.split(",") if part.strip()]
    else:
        new_ids = old_ids
    texts = dict(zip(old_ids, [str(t) for t in row.get("reference_contexts") or []], strict=False))
    unknown = [chunk_id for chunk_id in new_ids if chunk_id not in texts and chunk_id not in known]
    if unknown:
        out.write(
            f"edit not kept: unknown chunk id(s) {', '.join(unknown)} (pass the chunks file "
            "with --chunks to use other chunks)\n"
        )
        return "refused"
    chunks = [texts.get(chunk_id) or known[chunk_id] for chunk_id in new_ids]
    problem = edit_problem(new_kind, new_reference, chunks)
    if problem is not None:
        out.write(f"edit not kept: {problem}\n")
        return "refused"
    changed = False
    if question and question.strip() and question.strip() != row.get("question"):
        row["question"], changed = question.strip(), True
    if new_reference != row.get("reference"):
        row["reference"], changed = new_reference, True
    if new_kind != old_kind:
        row["tags"] = [new_kind if tag == old_kind else tag for tag in tags]
        changed = True
    if new_ids != old_ids:
        row["relevant_context_ids"], row["reference_contexts"] = new_ids, chunks
        changed = True
    return "changed" if changed else "unchanged"


def _known_chunks(path: Path | None) -> dict[str, str]:
    if path is None:
        return {}
    if not path.is_file():
        raise UsageError(f"--chunks {path}: no such file.")
    known = {}
    for number, row in enumerate(read_rows(path), 1):
        if not isinstance(row.get("id"), str) or not isinstance(row.get("text"), str):
            raise UsageError(f"{path}:{number}: expected {{id, text, …}} as --chunks-out writes.")
        known[row["id"]] = row["text"]
    return known


def review_file(
    path: Path,
    answers: TextIO,
    out: TextIO,
    *,
    every: bool = False,
    chunks: Path | None = None,
) -> int:
    """Review the pending cases of ``path`` (every case with ``every``); exit status 0.

    Raises:
        UsageError: the file is missing or not JSON Lines.
    """
    if not path.is_file():
        raise UsageError(f"{path}: no such file.")
    known = _known_chunks(chunks)
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
            if choice == "f":
                _show_full(row, out)
                continue
            if choice == "e" and isinstance(row.get("turns"), list):
                out.write(
                    "a conversation is edited in the file itself (its turns); accept or "
                    "reject it here\n"
                )
                continue
            if choice == "e":
                outcome = _edit(row, answers, out, known)
                if outcome is None:
                    return _finish(path, rows, decided, out)
                if outcome == "refused":
                    continue
                if outcome == "changed":
                    row["edited"] = True
                    decided["edited"] += 1
                choice = "a"
                break
            if choice in ("a", "r", "s"):
                break
            out.write("please answer a, e, r, s, f or q\n")
        if choice == "s":
            continue
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
