"""What a pull request changes in the gate's own inputs, named for the reviewer.

A verdict can be talked round without touching the RAG system: lower a threshold, delete
the case that fails, add cache entries that say "supported", change a ``conftest.py``
metric. Each is a line in a diff a reviewer may skim past. This module compares the
commit under test with the base branch (``GITHUB_BASE_REF`` in a pull request, or
``--base-ref``) through ``git`` and lists every such change in words:

- settings in ``rag_gate.yaml`` / ``[tool.rag_gate]``, thresholds as before → after
  (``threshold faithfulness 0.85 → 0.50``), the defaults counted;
- a changed ``cache_public_key`` (it decides which cache entries are trusted);
- golden files: cases added, removed and edited, a removed case that failed in the
  baseline called out;
- judge-cache entries added, changed or removed (when the cache is committed);
- ``conftest.py`` files, and the custom-metric entry points of ``pyproject.toml``;
- the lines that run the gate in workflows and in pytest's ``addopts`` (``pytest.ini``,
  ``tox.ini``, ``setup.cfg``, ``[tool.pytest.ini_options]``): command-line options and the
  Action's inputs override every config file.

The comparison is between the merge base and ``HEAD``, the commits a reviewer sees; files
the run writes (reports, a restored cache) are not part of it. Nothing here changes the
verdict: it says what to look at.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath

from ..golden.golden_formats import matches_golden_globs
from ..golden.loading import SUPPORTED_EXTENSIONS
from ..settings.config import GateConfig
from ..settings.run_environment import GitError, GitReader
from .gate_change_details import (
    failing_cases,
    golden_change,
    invocation_change,
    settings_changes,
)
from .gate_change_list import BASE_REF_ENV, ChangeKind, GateChange, GateChanges

__all__ = ["BASE_REF_ENV", "GateChange", "GateChanges", "failing_cases", "find_gate_changes"]

CONFIG_FILE_NAMES = ("rag_gate.yaml", "rag_gate.yml")

#: Files where pytest options live (``addopts`` can pass ``--rag-gate-threshold``).
PYTEST_CONFIG_NAMES = ("pytest.ini", "tox.ini", "setup.cfg")

_KIND_ORDER: tuple[ChangeKind, ...] = (
    "public_key",
    "config",
    "invocation",
    "golden",
    "cache",
    "conftest",
    "entry_points",
)


def _resolve(git: GitReader, root: Path, ref: str) -> str:
    """The commit of ``ref``, or of ``origin/<ref>`` (a CI checkout has only the remote one)."""
    for candidate in (ref, f"origin/{ref}", f"refs/remotes/origin/{ref}"):
        try:
            return git.run(
                root, "rev-parse", "--verify", "--quiet", f"{candidate}^{{commit}}"
            ).strip()
        except GitError:
            continue
    raise GitError(
        f"the base ref {ref!r} is not in this checkout (fetch it, e.g. actions/checkout with "
        "fetch-depth: 0)"
    )


def _show(git: GitReader, root: Path, commit: str, path: str) -> str | None:
    try:
        return git.run(root, "show", f"{commit}:{path}")
    except GitError:
        return None


def find_gate_changes(
    rootdir: Path,
    base_ref: str,
    *,
    config: GateConfig,
    golden_files: Sequence[str] = (),
    config_file: str | None = None,
    failing_in_base: Mapping[str, str] | None = None,
    git: GitReader,
) -> GateChanges:
    """The changes to the gate's inputs between ``base_ref`` and ``HEAD``.

    Args:
        rootdir: the gate's rootdir (inside a git work tree).
        base_ref: the branch (or any ref) the change is compared with.
        config: the run's settings (``case_files``, ``cache_dir``).
        golden_files: the run's golden files, relative to ``rootdir``.
        config_file: the config file the run read, if named (``--rag-gate-config``).
        failing_in_base: case id → why it failed in the baseline, to call out its removal.
        git: the run environment's git reader, the one way this reads the repository.

    Returns:
        The changes; ``problem`` set when git could not compare.
    """
    try:
        top = Path(git.run(rootdir, "rev-parse", "--show-toplevel").strip())
        base = _resolve(git, top, base_ref)
        head = git.run(top, "rev-parse", "HEAD").strip()
        merge_base = git.run(top, "merge-base", base, head).strip() or base
        listing = git.run(top, "diff", "--name-status", "--no-renames", "-z", merge_base, head)
    except GitError as error:
        return GateChanges(base_ref=base_ref, problem=str(error))
    fields = listing.split("\0")
    changed = [(fields[index], fields[index + 1]) for index in range(0, len(fields) - 1, 2)]
    scope = _Scope(top, rootdir, config, golden_files, config_file)
    changes: list[GateChange] = []
    cache_counts: dict[str, int] = {}
    for status, path in changed:
        kind = scope.kind_of(path)
        if kind is None:
            continue
        if kind == "cache":
            label = {"A": "added", "D": "removed"}.get(status[:1], "changed")
            cache_counts[label] = cache_counts.get(label, 0) + 1
        elif kind == "conftest":
            changes.append(GateChange(kind="conftest", path=path, detail=_conftest(status)))
        elif kind == "golden":
            before, after = _show(git, top, merge_base, path), _show(git, top, head, path)
            detail = golden_change(path, before, after, status, failing_in_base or {})
            changes.append(GateChange(kind="golden", path=path, detail=detail))
        elif kind == "invocation":
            before, after = _show(git, top, merge_base, path), _show(git, top, head, path)
            invocation = invocation_change(before, after)
            if invocation is not None:
                changes.append(GateChange(kind="invocation", path=path, detail=invocation))
        else:
            before, after = _show(git, top, merge_base, path), _show(git, top, head, path)
            changes.extend(
                GateChange(kind=change_kind, path=path, detail=detail)
                for change_kind, detail in settings_changes(path, before, after)
            )
    if cache_counts:
        counts = ", ".join(f"{count} {label}" for label, count in sorted(cache_counts.items()))
        entries = "entry" if sum(cache_counts.values()) == 1 else "entries"
        changes.append(
            GateChange(
                kind="cache",
                path=scope.cache_dir,
                detail=f"judge-cache {entries} {counts}: replies the gate replays instead of "
                "asking the judge",
            )
        )
    # The rules of the verdict first, then what it is measured on, then the code around it.
    changes.sort(key=lambda change: _KIND_ORDER.index(change.kind))
    return GateChanges(base_ref=base_ref, changes=changes)


class _Scope:
    """Which repository paths are inputs of the gate, and of which kind."""

    def __init__(
        self,
        top: Path,
        rootdir: Path,
        config: GateConfig,
        golden_files: Sequence[str],
        config_file: str | None,
    ) -> None:
        self.config = config
        cache_dir = Path(config.cache_dir)
        self.cache_dir = _relative(
            cache_dir if cache_dir.is_absolute() else rootdir / cache_dir, top
        )
        self.golden = {_relative(rootdir / path, top) for path in golden_files}
        self.config_file = None if config_file is None else _relative(Path(config_file), top)

    def kind_of(self, path: str) -> ChangeKind | None:
        pure = PurePosixPath(path)
        if self.cache_dir and path.startswith(self.cache_dir.rstrip("/") + "/"):
            # Batch jobs in progress live there too; only replies are replayed.
            return "cache" if pure.suffix == ".json" and "batches" not in pure.parts else None
        if pure.name == "conftest.py":
            return "conftest"
        if pure.name in CONFIG_FILE_NAMES or path == self.config_file:
            return "config"
        if pure.name == "pyproject.toml":
            return "config"
        workflow = path.startswith(".github/workflows/") and pure.suffix in (".yml", ".yaml")
        if workflow or pure.name in PYTEST_CONFIG_NAMES:
            # Options given on the command line (the Action's inputs) or in addopts
            # override every config file.
            return "invocation"
        if path in self.golden:
            return "golden"
        if pure.suffix.lower() in SUPPORTED_EXTENSIONS and matches_golden_globs(
            pure, self.config.case_files
        ):
            return "golden"
        return None


def _relative(path: Path, top: Path) -> str:
    try:
        relative = path.resolve().relative_to(top.resolve()).as_posix()
    except ValueError:
        return ""
    return "" if relative == "." else relative


def _conftest(status: str) -> str:
    verb = {"A": "added", "D": "removed"}.get(status[:1], "changed")
    return (
        f"conftest.py {verb}: code that runs inside the gate (custom metrics, live targets, "
        "hooks) — review it as code that can change any score"
    )
