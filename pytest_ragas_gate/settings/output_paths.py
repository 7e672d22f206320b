"""Where reports go, checked before any work: a bad path is a usage error, not a lost run.

A report path that is a directory, sits under a file, or is not writable used to fail
with a traceback after the whole (paid) judge run. The plugin checks every output path
(JSON report, JUnit, HTML, the Markdown summary) before the first judge call, and the
``rag-gate`` commands check their ``-o`` the same way before they compute anything.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["output_path_problem", "output_paths_problems", "written_reports_line"]


def output_path_problem(path: Path, shown: str) -> str | None:
    """Why a file cannot be written at ``path``, or None when it can be.

    Missing parent directories are fine (the writers create them); the nearest existing
    ancestor must then be a writable directory.

    Args:
        path: The absolute destination.
        shown: How the user wrote it, for the message.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> print(output_path_problem(folder, "reports/"))
    reports/ is a directory; give a file name, e.g. reports/rag-gate-report.json
    >>> output_path_problem(folder / "new" / "report.json", "new/report.json") is None
    True
    """
    if path.is_dir():
        example = (Path(shown) / "rag-gate-report.json").as_posix()
        return f"{shown} is a directory; give a file name, e.g. {example}"
    if path.exists():
        if not os.access(path, os.W_OK):
            return f"{shown} is not writable (permission denied)"
        return None
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"{shown} cannot be created: {ancestor} is a file, not a directory"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"{shown} cannot be created: {ancestor} is not writable (permission denied)"
    return None


def output_paths_problems(paths: Mapping[str, str | None], root: Path) -> list[str]:
    """One message per unwritable output, each naming its option and path.

    Args:
        paths: The setting (``outputs.json``) → the path given, or None when unset.
        root: The directory relative paths are written from.
    """
    problems = []
    for option, given in paths.items():
        if not given:
            continue
        problem = output_path_problem(root / given, given)
        if problem is not None:
            problems.append(f"{option}: {problem}")
    return problems


def written_reports_line(paths: Mapping[str, str | None]) -> str | None:
    """``reports: JSON rag-gate-report.json, JUnit …``: the reports this run wrote.

    Paths are shown as given, relative to the directory pytest was started in.

    >>> written_reports_line({"JSON": "r.json", "JUnit": None})
    'reports: JSON r.json'
    """
    written = [f"{kind} {path}" for kind, path in paths.items() if path]
    return "reports: " + ", ".join(written) if written else None
