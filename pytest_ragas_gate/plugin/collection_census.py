"""The census of a run's golden files: what was found, collected, left out, and why.

The coverage ledger (:mod:`.coverage`) needs every golden file under the run's paths, found
by the plugin's own discovery rules *before* pytest's exclusions, and for each case that
did not become a selected test the reason it was left out. pytest only tells a plugin
about what it collects, so :class:`CensusTaker` also walks the run's paths itself (never
into virtualenvs, hidden or build directories, as pytest's own defaults skip them) and
asks, for each golden file pytest never offered, which of pytest's exclusions removed it:
``--ignore``, ``--ignore-glob``, ``norecursedirs``, or a conftest's ``collect_ignore`` /
``collect_ignore_glob``.

Under pytest-xdist each worker takes the census of its own collection (all workers collect
the same files) and hands it to the controller with its ``workeroutput``.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import ModuleType

import pytest

# pytest's own rules for what a collection never walks into; reused so the census skips
# exactly the virtualenvs pytest skips, and matches norecursedirs exactly as pytest does.
from _pytest.main import _in_venv
from _pytest.pathlib import fnmatch_ex

from ..exceptions import GoldenFileError
from ..gate.coverage import (
    BROKEN_SYMLINK,
    NOT_ON_COMMAND_LINE,
    UNREADABLE,
    Census,
    CensusCase,
    CensusFile,
)
from ..golden.golden_formats import SUPPORTED_EXTENSIONS
from ..golden.loading import load_golden_file, skip_rejected
from .items import BadCaseItem, CaseItem

#: Directory names no census walks into: pytest's default ``norecursedirs`` (hidden
#: directories are skipped by their leading dot). A team's own norecursedirs is an
#: exclusion the census reports instead.
#: Why a case of a collected file was left out when node ids were named instead.
NOT_A_NAMED_NODE = "not selected: node ids named on the command line"

_NEVER_WALKED = ("*.egg", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}")

#: A case's place in the census: (golden file as displayed, line, id or label).
CaseKey = tuple[str, int, str]


def case_key(item: pytest.Item) -> CaseKey | None:
    """The census key of a golden-case item; None for any other test."""
    if isinstance(item, CaseItem):
        return item.case.file, item.case.line, item.case.id
    if isinstance(item, BadCaseItem):
        return item.problem.file, item.problem.line, item.problem.label
    return None


class CensusTaker:
    """Notes what the collection did with golden files, then takes the census."""

    def __init__(
        self,
        config: pytest.Config,
        *,
        is_golden: Callable[[Path], bool],
        excluded_by: Callable[[Path], str | None],
        display: Callable[[Path], str],
    ) -> None:
        self._config = config
        self._is_golden = is_golden
        self._excluded_by = excluded_by
        self._display = display
        self._claimed: dict[str, Path] = {}
        self._loaded: dict[str, list[CensusCase]] = {}
        self._unreadable: set[str] = set()
        self._deselected: dict[CaseKey, str] = {}
        #: The reason given to items deselected right now (the shard split sets it).
        self.deselect_reason: str | None = None

    def claimed(self, path: Path) -> None:
        """A golden file pytest offered (it may still never collect it)."""
        self._claimed.setdefault(self._display(path), path)

    def loaded(self, display: str, cases: Iterable[tuple[str, int]]) -> None:
        """A golden file was read: its cases, by id (or label) and line."""
        self._loaded[display] = [CensusCase(id=case_id, line=line) for case_id, line in cases]

    def unreadable(self, display: str) -> None:
        """A golden file could not be read."""
        self._unreadable.add(display)

    def deselected(self, items: Sequence[pytest.Item]) -> None:
        """Items some option deselected: say which."""
        reason = self.deselect_reason or deselection_reason(self._config)
        for item in items:
            key = case_key(item)
            if key is not None:
                self._deselected.setdefault(key, reason)

    def take(self, selected: Sequence[pytest.Item]) -> Census:
        """Every golden file found, each case selected or with the reason it was not."""
        chosen = {key for key in map(case_key, selected) if key is not None}
        files: list[CensusFile] = []
        seen: set[Path] = set()
        for display, path in self._candidates():
            real = _real(path)
            if real in seen:
                continue
            seen.add(real)
            files.append(self._census_file(display, path, chosen))
        return Census(files=files)

    def _candidates(self) -> Iterator[tuple[str, Path]]:
        # Files pytest offered come first, so a file seen under two names keeps the name
        # its cases were collected under.
        yield from self._claimed.items()
        for path in walk_golden_files(self._roots(), self._is_golden):
            yield self._display(path), path

    def _census_file(self, display: str, path: Path, chosen: set[CaseKey]) -> CensusFile:
        if display in self._loaded:
            cases = [
                case.model_copy(update={"reason": self._case_reason(display, case, chosen)})
                for case in self._loaded[display]
            ]
            return CensusFile(path=display, cases=cases)
        if display in self._unreadable:
            return CensusFile(path=display, reason=UNREADABLE)
        if path.is_symlink() and not path.exists():
            return CensusFile(path=display, reason=BROKEN_SYMLINK)
        pattern = self._excluded_by(path)
        if pattern is not None:
            return CensusFile(
                path=display,
                cases=_quiet_cases(path, display),
                reason=f"excluded by exclude: {pattern}",
                by_config=True,
            )
        return CensusFile(
            path=display, cases=_quiet_cases(path, display), reason=self._file_reason(path)
        )

    def _case_reason(self, display: str, case: CensusCase, chosen: set[CaseKey]) -> str | None:
        key = (display, case.line, case.id)
        if key in chosen:
            return None
        if key in self._deselected:
            return self._deselected[key]
        # Neither selected nor deselected: --lf keeps only the failed items of a file, and
        # node ids on the command line match only themselves.
        if self._config.getoption("lf", False):
            return "not run: --lf"
        if any("::" in arg for arg in self._config.args):
            return NOT_A_NAMED_NODE
        return "not collected"

    def _file_reason(self, path: Path) -> str:
        """Why pytest never collected a golden file under (or beside) the run's paths."""
        root = next((arg for arg in self._arg_paths() if _within(path, arg)), None)
        if root is None:
            return NOT_ON_COMMAND_LINE
        excluded = pytest_exclusion(path, root, self._config)
        if excluded is not None:
            return excluded
        if self._config.getoption("lf", False):
            return "not run: --lf"
        return "not collected"

    def _arg_paths(self) -> list[Path]:
        base = self._config.invocation_params.dir
        return [Path(os.path.abspath(base / arg.split("::")[0])) for arg in self._config.args]

    def look_alikes(self) -> list[str]:
        """Files under the run's paths that read as golden sets but match no glob.

        A known extension and at least one case read from the file: a golden set named
        ``cases.jsonl`` beside ``golden.jsonl`` is then named in a hint, not skipped unseen.
        Files ``exclude:`` names are left out on purpose and not named, and so are files
        under a folder with a ``rag_gate.yaml`` of its own: another gate's project.
        """
        roots = self._roots()
        tops = [root for root, _ in roots]

        def looks_golden(path: Path) -> bool:
            if self._is_golden(path) or self._excluded_by(path) is not None:
                return False
            return not _in_another_project(path, tops) and reads_as_golden(path)

        return sorted({self._display(path) for path in walk_golden_files(roots, looks_golden)})

    def _roots(self) -> list[tuple[Path, bool]]:
        """Where to look: each directory argument, and the directory of each file named."""
        roots: list[tuple[Path, bool]] = []
        for path in self._arg_paths():
            if path.is_dir():
                roots.append((path, True))
            else:
                roots.append((path.parent, False))
        return roots


def walk_golden_files(
    roots: Sequence[tuple[Path, bool]], is_golden: Callable[[Path], bool]
) -> Iterator[Path]:
    """Golden files under each ``(directory, recursive)`` root, broken symlinks included.

    Symlinked directories are not followed (pytest's collection reaches what they hold
    under the first path it finds; a symlink loop would not end).
    """
    for root, recursive in roots:
        for directory, names, files in os.walk(root):
            names[:] = sorted(
                name for name in names if recursive and _walked(Path(directory) / name)
            )
            for name in sorted(files):
                path = Path(directory) / name
                if is_golden(path):
                    yield path


#: The largest file read to see whether it looks like a golden set: a bigger data file
#: beside the golden files is not worth reading for a hint.
_LOOK_ALIKE_BYTES = 2_000_000


def _in_another_project(path: Path, tops: Sequence[Path]) -> bool:
    """Whether a folder between the run's root and ``path`` has its own ``rag_gate.yaml``."""
    top = next((top for top in tops if _within(path, top)), None)
    folder = path.parent
    while top is not None and folder != top and _within(folder, top):
        if (folder / "rag_gate.yaml").exists():
            return True
        folder = folder.parent
    return False


def reads_as_golden(path: Path) -> bool:
    """Whether ``path`` has a golden file's extension and at least one case reads from it."""
    if path.suffix.lower() not in SUPPORTED_EXTENSIONS:
        return False
    try:
        if not path.is_file() or path.stat().st_size > _LOOK_ALIKE_BYTES:
            return False
        return bool(load_golden_file(path).cases)
    except (GoldenFileError, OSError, ValueError, UnicodeError):
        return False


def _walked(directory: Path) -> bool:
    name = directory.name
    if name.startswith(".") or name == "__pycache__" or directory.is_symlink():
        return False
    if any(fnmatch.fnmatch(name, pattern) for pattern in _NEVER_WALKED):
        return False
    return not _in_venv(directory)


def pytest_exclusion(path: Path, root: Path, config: pytest.Config) -> str | None:
    """Which of pytest's exclusions removed ``path`` (or a directory above it) from ``root``."""
    ignored = [Path(os.path.abspath(entry)) for entry in config.getoption("ignore") or []]
    ignored_globs = [os.path.abspath(entry) for entry in config.getoption("ignore_glob") or []]
    norecurse: list[str] = config.getini("norecursedirs")
    conftests = _conftest_modules(config)
    for candidate in [*reversed(path.relative_to(root).parents), path.relative_to(root)]:
        absolute = root / candidate
        if absolute == root:
            continue
        if absolute in ignored:
            return "excluded by --ignore"
        if any(fnmatch.fnmatch(str(absolute), pattern) for pattern in ignored_globs):
            return "excluded by --ignore-glob"
        for folder, module in conftests:
            if not _within(absolute.parent, folder):
                continue
            listed = [folder / entry for entry in getattr(module, "collect_ignore", None) or []]
            if absolute in listed:
                return "excluded by collect_ignore"
            globs = getattr(module, "collect_ignore_glob", None) or []
            if any(fnmatch.fnmatch(str(absolute), str(folder / glob)) for glob in globs):
                return "excluded by collect_ignore_glob"
        if absolute.is_dir() and any(fnmatch_ex(pattern, absolute) for pattern in norecurse):
            return "excluded by norecursedirs"
    return None


def deselecting_options(config: pytest.Config) -> list[str]:
    """The options of this run that deselect collected tests (-k, -m, --deselect)."""
    option = config.option
    chosen: list[str] = []
    if option.keyword:
        chosen.append(f"-k {option.keyword!r}")
    if option.markexpr:
        chosen.append(f"-m {option.markexpr!r}")
    if getattr(option, "deselect", None):
        chosen.append("--deselect " + " ".join(option.deselect))
    return chosen


def deselection_reason(config: pytest.Config) -> str:
    """The options that deselect tests in this run, as one reason."""
    option = config.option
    chosen = deselecting_options(config)
    if chosen:
        return "deselected by " + " / ".join(chosen)
    if getattr(option, "lf", False):
        return "not run: --lf"
    if getattr(option, "stepwise", False) or getattr(option, "stepwise_skip", False):
        return "not run: --sw skipped it (passed before)"
    return "deselected"


def stop_reason(config: pytest.Config, session: pytest.Session, interrupted: bool) -> str | None:
    """Why selected cases may not have run, or None when nothing stopped the run early."""
    option = config.option
    stepwise = getattr(option, "stepwise", False) or getattr(option, "stepwise_skip", False)
    if stepwise and (session.shouldstop or interrupted):
        return "not reached: --sw stopped"
    if option.maxfail and (session.shouldfail or session.testsfailed >= option.maxfail):
        return (
            "not reached: -x stopped"
            if option.maxfail == 1
            else (f"not reached: --maxfail {option.maxfail} stopped")
        )
    if interrupted or session.shouldstop:
        return "not reached: the run was interrupted"
    return None


def _conftest_modules(config: pytest.Config) -> list[tuple[Path, ModuleType]]:
    found = []
    for plugin in config.pluginmanager.get_plugins():
        location = getattr(plugin, "__file__", None)
        if isinstance(plugin, ModuleType) and location and Path(location).name == "conftest.py":
            found.append((Path(location).parent, plugin))
    return found


def _quiet_cases(path: Path, display: str) -> list[CensusCase]:
    """A left-out file's cases, to count and name them; none when it cannot be read."""
    if path.suffix.lower() not in SUPPORTED_EXTENSIONS:
        return []
    try:
        loaded = skip_rejected(load_golden_file(path, display_path=display))
    except (GoldenFileError, OSError):
        return []
    return [CensusCase(id=case.id, line=case.line) for case in loaded.cases] + [
        CensusCase(id=problem.label, line=problem.line) for problem in loaded.problems
    ]


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path
