r"""Read golden files (``.jsonl``, ``.json``, ``.yaml``/``.yml``, ``.csv``) into golden cases.

A file that cannot be read as a whole (bad syntax, not UTF-8, empty, unknown shape or
extension) raises :class:`~pytest_ragas_gate.exceptions.GoldenFileError`. A file that can be
read yields a :class:`LoadedFile`: the valid cases, and one :class:`CaseProblem` per malformed
case, so one bad case never hides the others. Every message starts with ``path:line:``.

Two modules do the work: :mod:`.golden_formats` reads each format into raw rows with the
line where each starts, and :mod:`.golden_fields` maps the rows' fields into cases.

Accepted shapes:

- ``.jsonl``: one JSON object per line; blank lines are skipped.
- ``.json`` and ``.yaml``: a list of cases, an object ``{"cases": [...]}``, or the
  column-oriented form ``{"question": [...], "answer": [...], ...}`` whose lists all have the
  same length.
- ``.csv``: a header row, then one case per row; the delimiter (``, ; tab |``) is sniffed
  from the header; list fields are JSON arrays or Python lists (numpy's printed form
  ``['a' 'b']`` included), ``thresholds`` a JSON object, and an empty cell means the field
  is absent.

Field names people already use are accepted as aliases (matched ignoring case): ``question``
/ ``user_input`` / ``query`` / ``input``, ``answer`` / ``response`` / ``actual_output``,
``contexts`` / ``retrieved_contexts`` / ``retrieval_context``, ``reference`` /
``ground_truth`` / ``ground_truths`` / ``expected_output``, ``relevant_context_ids`` /
``reference_context_ids``. A DeepEval row (one that uses DeepEval's names) also gives its
``context`` as ``reference_contexts`` and merges ``additional_metadata`` into the metadata.
Other fields are kept in ``GoldenCase.metadata``.

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

import os
from collections.abc import Sequence
from dataclasses import dataclass

from ..exceptions import GoldenFileError
from ..text_safety import LONE_SURROGATE, printable
from .cases import GoldenCase
from .golden_fields import CaseProblem, canonical_field, validate_rows
from .golden_formats import SUPPORTED_EXTENSIONS, read_rows

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "CaseProblem",
    "LoadedFile",
    "load_golden_file",
    "pending_review",
    "skip_rejected",
]


@dataclass(frozen=True)
class LoadedFile:
    """What one golden file holds.

    Attributes:
        path: The file's path as displayed in messages and case sources.
        cases: The valid cases in file order, each with ``file`` and ``line`` set.
        problems: The malformed cases in file order.
        row_keys: Each row's line and top-level keys as written (for the unknown-key check).
        turn_keys: Each conversation turn's line, place (``turns[1]``) and keys as written
            (for the unknown-key check).
    """

    path: str
    cases: list[GoldenCase]
    problems: list[CaseProblem]
    row_keys: tuple[tuple[int, tuple[str, ...]], ...] = ()
    turn_keys: tuple[tuple[int, str, tuple[str, ...]], ...] = ()


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
    if LONE_SURROGATE.search(shown):
        # Python holds each byte of a file name that is not UTF-8 as a lone surrogate; the
        # name would reach every case's source and no report could be written.
        raise GoldenFileError(
            f"{printable(shown)}: the file name is not valid UTF-8, so no report could name "
            "it; rename the file."
        )
    rows = read_rows(path, shown)
    cases, problems = validate_rows(shown, rows)
    keys = tuple(
        (raw.line, tuple(str(key) for key in raw.value))
        for raw in rows
        if isinstance(raw.value, dict)
    )
    turn_keys = tuple(
        (raw.line, f"{name}[{index}]", tuple(str(key) for key in turn))
        for raw in rows
        if isinstance(raw.value, dict)
        for name, value in raw.value.items()
        if canonical_field(str(name)) in ("turns", "question") and isinstance(value, list)
        for index, turn in enumerate(value)
        if isinstance(turn, dict)
    )
    return LoadedFile(shown, cases, problems, row_keys=keys, turn_keys=turn_keys)


def skip_rejected(loaded: LoadedFile) -> LoadedFile:
    """``loaded`` without the cases a reviewer rejected (``review: rejected``)."""
    kept = [case for case in loaded.cases if case.metadata.get("review") != "rejected"]
    if len(kept) == len(loaded.cases):
        return loaded
    return LoadedFile(loaded.path, kept, loaded.problems)


def pending_review(cases: Sequence[GoldenCase]) -> int:
    """How many of ``cases`` were generated and not yet reviewed (``review: pending``)."""
    return sum(1 for case in cases if case.metadata.get("review") == "pending")
