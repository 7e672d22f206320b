"""Checks of a labels file against the golden set it labels.

A labels file names its cases by id, and by golden file when ids repeat. Three mistakes
leave labels silently unused or ambiguous: a row whose id (or file and id) names no
golden case (a typo, a renamed case, a stale file), a ``file`` written differently from
how the gate names the golden file (``./golden.jsonl``, an absolute path), and two rows
that give one case different labels. The first is found here; the second is undone by
:func:`normalise_files` before anything is matched; the third is found here too. The gate
run warns about each, and stops with a usage error under ``strict_labels: true``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Sequence
from dataclasses import replace
from pathlib import Path

from .labels import LABEL_PREFIX, LabelRow, LabelSet, unmatched_rows

__all__ = ["label_problems", "normalise_files"]


def _normal_file(file: str, rootdir: Path, invocation_dir: Path) -> str:
    """A golden file as the gate names it: relative to the rootdir, in POSIX form.

    ``./golden.jsonl``, ``golden.jsonl``, ``sub/../golden.jsonl`` and the absolute path of
    the same file all become ``golden.jsonl``. A relative path is looked up from where
    pytest was invoked first, then from the rootdir.
    """
    given = Path(file)
    candidates = [given] if given.is_absolute() else [invocation_dir / given, rootdir / given]
    root = rootdir.resolve()
    relative: list[str] = []
    for candidate in candidates:
        try:
            inside = candidate.resolve().relative_to(root).as_posix()
        except ValueError:
            continue
        if candidate.is_file():
            return inside
        relative.append(inside)
    if relative:
        return relative[0]
    return posixpath.normpath(file.replace("\\", "/"))


def normalise_files(labels: LabelSet, *, rootdir: Path, invocation_dir: Path) -> LabelSet:
    """The labels with every row's ``file`` written as the gate names golden files.

    Args:
        labels: The labels file as read.
        rootdir: pytest's rootdir, which golden file names are relative to.
        invocation_dir: Where pytest was invoked.

    Returns:
        The same rows, their files normalised.
    """
    rows = [
        row
        if row.file is None
        else replace(row, file=_normal_file(row.file, rootdir, invocation_dir))
        for row in labels.rows
    ]
    return LabelSet(labels.path, rows)


def _label_text(value: float) -> str:
    return f"{value:g}"


def _conflicts(labels: LabelSet, keys: Collection[tuple[str, str]]) -> list[str]:
    """One problem per case that two rows give different labels of one metric."""
    problems: list[str] = []
    for file, case_id in sorted(keys):
        rows: Sequence[LabelRow] = [
            row
            for row in labels.rows
            if row.case_id == case_id and (row.file is None or row.file == file)
        ]
        if len(rows) < 2:
            continue
        for metric in dict.fromkeys(metric for row in rows for metric in row.labels):
            given = [(row, row.labels[metric]) for row in rows if metric in row.labels]
            if len({value for _, value in given}) < 2:
                continue
            (first, first_value), (last, last_value) = given[0], given[-1]
            problems.append(
                f"{labels.path}:{first.line} and {labels.path}:{last.line}: field "
                f"'{LABEL_PREFIX}{metric}': conflicting labels for case {case_id!r} of "
                f"{file} ({_label_text(first_value)} and {_label_text(last_value)}); keep "
                f"one row per case (line {last.line} wins)"
            )
    return problems


def label_problems(labels: LabelSet, keys: Collection[tuple[str, str]]) -> list[str]:
    """What in a labels file labels no golden case, or labels one two ways.

    Args:
        labels: The labels file, its files normalised (:func:`normalise_files`).
        keys: The (golden file, id) of every collected golden case.

    Returns:
        One message per problem, each naming the labels file and line; empty when none.
    """
    problems: list[str] = []
    files = {file for file, _ in keys}
    for row in unmatched_rows(labels, keys):
        if row.file is not None and row.file not in files:
            where = (
                f"field 'file': no golden file {row.file!r} was collected (golden files: "
                f"{', '.join(sorted(files)) or 'none'})"
            )
        else:
            within = f" in {row.file}" if row.file is not None else ""
            where = f"field 'id': no golden case {row.case_id!r}{within}"
        problems.append(f"{labels.path}:{row.line}: {where}; its labels are not used")
    return problems + _conflicts(labels, keys)
