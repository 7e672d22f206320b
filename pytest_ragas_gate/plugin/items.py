"""Golden files become pytest collectors and each golden case a pytest item."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest
from _pytest._code.code import (
    ExceptionChainRepr,
    ReprEntryNative,
    ReprFileLocation,
    ReprTraceback,
    TerminalRepr,
)

from ..exceptions import GoldenFileError
from ..gate.case_verdicts import own_threshold_misses
from ..golden.cases import GoldenCase
from ..golden.loading import CaseProblem, LoadedFile
from ..golden.sharding import Shard
from ..scoring.results import CaseResult
from ..settings.bounds import Bound

#: The attribute of a pytest report that carries its case's result: the result itself in
#: a serial run, JSON text on an xdist worker, so that it reaches the controller.
RESULT_ATTRIBUTE = "rag_gate_case"


class CaseSource(Protocol):
    """What golden files and case items need from the run: cases in, results out."""

    def load(self, path: Path) -> LoadedFile:
        """Read one golden file (raises ``GoldenFileError`` when it cannot be read)."""

    def result_for(self, item: CaseItem) -> CaseResult:
        """The precomputed result of ``item``'s case."""

    def bounds(self) -> dict[str, Bound]:
        """The gate's thresholds, whose directions a case's own thresholds take."""


class GoldenFile(pytest.File):
    """A golden set file; yields one item per case and one errored item per bad case."""

    def __init__(self, *, run: CaseSource, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run

    def collect(self) -> Iterator[pytest.Item]:
        """Load the file; malformed cases become items that error with their message."""
        loaded = self.run.load(self.path)
        names: set[str] = set()
        for case in loaded.cases:
            name = _unique_name(item_name(case.id), case.line, names)
            yield CaseItem.from_parent(self, name=name, case=case)
        for problem in loaded.problems:
            name = _unique_name(item_name(problem.label), problem.line, names)
            yield BadCaseItem.from_parent(self, name=name, problem=problem)

    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> str:
        """A golden file that cannot be read is reported by its message, no traceback.

        So is a warning that the warnings filter (``-W error``) raised while the file was
        read: its message names the file and line, a traceback would name the plugin's.
        """
        if isinstance(excinfo.value, GoldenFileError):
            return str(excinfo.value)
        if isinstance(excinfo.value, Warning):
            kind = type(excinfo.value).__name__
            return f"{self.path.name}: {kind} raised as an error (-W error): {excinfo.value}"
        return str(super().repr_failure(excinfo))


class CaseFailure(Exception):
    """A case scored below its own thresholds; the first line is the verdict."""


class CaseItem(pytest.Item):
    """One golden case; its scores are computed before the run and reported here."""

    def __init__(self, *, case: GoldenCase, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.result: CaseResult | None = None
        # Tags become keywords, so `-k zh` selects; markers would warn as unregistered.
        self.extra_keyword_matches.update(case.tags)

    @property
    def run(self) -> CaseSource:
        """The active gate run."""
        parent = self.parent
        assert isinstance(parent, GoldenFile)
        return parent.run

    def setup(self) -> None:
        """Fetch the precomputed result; a judge or pipeline error makes the item an error."""
        result = self.run.result_for(self)
        self.result = result
        for metric, score in result.scores.items():
            self.user_properties.append((f"rag_gate.{metric}", "n/a" if score is None else score))
        if result.errored:
            pytest.fail(error_text(result), pytrace=False)

    def runtest(self) -> None:
        """Fail when the case misses its own per-case thresholds."""
        assert self.result is not None
        failures = own_threshold_misses(self.result, self.run.bounds())
        if failures:
            raise CaseFailure("\n".join(failures))

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        """The verdict first, then the question, a trimmed answer and the judge's reasons."""
        if isinstance(excinfo.value, CaseFailure) and self.result is not None:
            verdict = str(excinfo.value)
            return failure_repr(verdict, failure_text(verdict, self.result), self.reportinfo())
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Any, int | None, str]:
        """Point at the case's line in the golden file."""
        return self.path, self.case.line - 1, f"rag case: {self.case.id}"


class BadCaseItem(pytest.Item):
    """A malformed case: it errors with its message and counts as an errored case."""

    def __init__(self, *, problem: CaseProblem, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problem = problem

    def setup(self) -> None:
        """Report the problem as an error of this case, without a traceback."""
        pytest.fail(self.problem.message, pytrace=False)

    def runtest(self) -> None:
        """Never reached: setup always fails."""

    def reportinfo(self) -> tuple[Any, int | None, str]:
        """Point at the malformed case's line."""
        return self.path, self.problem.line - 1, f"rag case (invalid): line {self.problem.line}"


def item_name(case_id: str) -> str:
    r"""A pytest-safe item name, distinct for distinct case ids; ordinary ids are unchanged.

    ``::`` would split the node id, and control characters would garble terminals and
    reports, so they are percent-escaped as in a URL (``%`` itself first, which keeps the
    mapping one-to-one: ``urllib.parse.unquote`` gives the id back).

    >>> [item_name(case_id) for case_id in ("refund-01", "a::b", "a:%3Ab", "tab\there")]
    ['refund-01', 'a:%3Ab', 'a:%253Ab', 'tab%09here']
    """
    escaped = _NODE_ID_UNSAFE.sub(_percent_escaped, case_id)
    return escaped.replace("::", ":%3A") or "case"


def _unique_name(name: str, line: int, taken: set[str]) -> str:
    """``name``, or ``name@line-N`` when an earlier item of the file has it.

    A case repeating an earlier id is an error of its own; it needs a node id of its own
    so that its result does not overwrite the first case's in the reports.
    """
    if name in taken:
        name = f"{name}@line-{line}"
    taken.add(name)
    return name


#: ``%`` and what must not reach a node id raw: C0/C1 controls, DEL, line separators.
_NODE_ID_UNSAFE = re.compile("[%\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _percent_escaped(match: re.Match[str]) -> str:
    return "".join(f"%{byte:02X}" for byte in match.group().encode("utf-8"))


def error_text(result: CaseResult) -> str:
    """Why a case errored: the case-level error or each metric's, first line a summary."""
    lines = []
    if result.error:
        lines.append(result.error)
    for metric, message in sorted(result.errors.items()):
        if result.error != message:
            lines.append(f"{metric} errored: {message}")
    for metric in sorted(result.errors):
        for detail in result.details.get(metric, []):
            trace = detail.get("traceback")
            if isinstance(trace, str):
                lines.append(f"\n{metric} traceback:\n{trace.rstrip()}")
    return "\n".join(lines)


def failure_repr(
    verdict: str, text: str, location: tuple[Any, int | None, str]
) -> ExceptionChainRepr:
    """The failure text, with the verdict as the message of the short summary's line.

    Every supported pytest shows a failure's ``reprcrash`` message after its node id (only
    pytest 9 also reads a plain-text failure's first line), and pytest-xdist carries this
    structure, not an arbitrary object, from a worker to the controller.
    """
    path, line, _ = location
    body = ReprTraceback([ReprEntryNative([text.rstrip("\n") + "\n"])], None, "native")
    crash = ReprFileLocation(str(path), (line or 0) + 1, verdict)
    return ExceptionChainRepr([(body, crash, None)])


def failure_text(verdict: str, result: CaseResult) -> str:
    """Verdict lines first (they become the short summary and the JUnit message)."""
    lines = [verdict, "", f"question: {result.question}"]
    if result.answer is not None:
        lines.append(f"answer: {textwrap.shorten(result.answer, width=300, placeholder=' …')}")
    for metric, score in result.scores.items():
        shown = "n/a" if score is None else f"{score:.2f}"
        reason = result.reasons.get(metric, "")
        lines.append(f"{metric}: {shown}" + (f" — {reason}" if reason else ""))
    unsupported = [
        detail
        for detail in result.details.get("faithfulness", [])
        if detail.get("supported") is False
    ]
    if unsupported:
        lines.append("unsupported claims:")
        for detail in unsupported:
            reason = detail.get("reason") or ""
            lines.append(f"  - {detail.get('claim', '')}" + (f" ({reason})" if reason else ""))
    return "\n".join(lines)


def attach_result(item: pytest.Item, report: pytest.TestReport, *, as_json: bool) -> None:
    """Put the case's result on the report that carries its outcome.

    That is the call report, or the setup report when the case errored before running.
    An xdist worker attaches it as JSON text, which survives the report's serialisation;
    a serial run attaches the result itself, so no second copy of every case is made.
    """
    if not (report.when == "call" or (report.when == "setup" and report.failed)):
        return
    result: CaseResult | None = None
    if isinstance(item, CaseItem):
        result = item.result
    elif isinstance(item, BadCaseItem):
        problem = item.problem
        result = CaseResult.of_problem(
            problem.file, problem.line, problem.label, problem.message, problem.salvaged
        )
    if result is not None:
        setattr(report, RESULT_ATTRIBUTE, result.to_json() if as_json else result)


#: The report attribute that names a skipped case: ``source\tid\treason`` text, which
#: survives an xdist worker's serialisation of the report.
SKIP_ATTRIBUTE = "rag_gate_skipped"


def attach_skip(item: pytest.Item, report: pytest.TestReport) -> None:
    """Say which case a skipped (or xfailed) report is about, and why it did not run.

    A case a conftest or a marker skips is never scored into the gate; the coverage line
    then names it ``skipped: <reason>`` rather than an unexplained missing result.
    """
    if not (report.skipped and isinstance(item, CaseItem)):
        return
    reason = getattr(report, "wasxfail", None)
    if reason is not None:
        # pytest before 8 writes an imperative xfail's reason as "reason: …", as its own
        # terminal report strips; an xfail(run=False) is "[NOTRUN] …" on every version.
        reason = str(reason).removeprefix("reason: ").removeprefix("[NOTRUN]").strip()
        why = f"xfailed: {reason}" if reason else "xfailed"
    else:
        longrepr = report.longrepr
        text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr or "")
        text = text.removeprefix("Skipped: ").strip()
        why = f"skipped: {text}" if text else "skipped"
    why = " ".join(why.split())
    setattr(report, SKIP_ATTRIBUTE, "\t".join((item.case.source, item.case.id, why)))


def skipped_case(report: pytest.TestReport) -> tuple[tuple[str, str], str] | None:
    """``((source, id), reason)`` of a case a skipped report names (see :func:`attach_skip`)."""
    note = getattr(report, SKIP_ATTRIBUTE, None)
    if not isinstance(note, str):
        return None
    source, case_id, reason = note.split("\t", 2)
    return (source, case_id), reason


def attached_result(report: pytest.TestReport) -> CaseResult | None:
    """The case result a report carries (see :func:`attach_result`), or None."""
    payload = getattr(report, RESULT_ATTRIBUTE, None)
    if isinstance(payload, CaseResult):
        return payload
    if isinstance(payload, str):
        return CaseResult.from_json(payload)
    return None


def _case_key(item: pytest.Item) -> tuple[str, str] | None:
    """(golden file, id) of a golden-case item; None for any other item.

    A conversation's turn is keyed by its conversation, so its turns share a shard and
    each shard gates whole conversations.
    """
    if isinstance(item, CaseItem):
        return item.case.file, item.case.conversation or item.case.id
    if isinstance(item, BadCaseItem):
        problem = item.problem
        return problem.file, problem.label
    return None


def select_shard(config: pytest.Config, items: list[pytest.Item], shard: Shard | None) -> None:
    """Deselect the golden cases of other shards, in place, as ``-k`` does.

    Items that are not golden cases (ordinary tests collected alongside) stay in every
    shard: they are cheap, and dropping them would hide their failures in some jobs.

    Args:
        config: The pytest config, whose hook announces the deselected items.
        items: The collected items.
        shard: This job's shard, or None to keep everything.
    """
    if shard is None or shard.count == 1:
        return
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        key = _case_key(item)
        (kept if key is None or shard.holds(*key) else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
