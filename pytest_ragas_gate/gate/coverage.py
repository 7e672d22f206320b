"""The coverage ledger: every golden case of a run is gated, or accounted for with a reason.

A gate's promise is that it never says "Safe to deploy" about a case it did not score.
This module is the one place that decides which golden cases a run covered. Its input is
the *census* of the run — every golden file found under the run's paths (by the plugin's
discovery rules, before pytest's exclusions) with its cases, and why each case that did
not become a selected test was left out — and the set of cases whose results were
reported. Its output, :class:`CoverageLedger`, puts every case in exactly one place: gated,
not gated (with the reason: ``excluded by --ignore``, ``deselected by -k 'x'``, ``not
reached: --sw stopped``, ``empty file``, ``broken symlink``, ``error`` …) or excluded on
purpose by the gate's own ``exclude:`` setting. Anything not gated makes the run partial;
what ``exclude:`` leaves out does not, since that scope was chosen by the team.

>>> census = Census(files=[
...     CensusFile(path="golden_a.jsonl", cases=[CensusCase(id="a", line=1)]),
...     CensusFile(path="golden_b.jsonl", cases=[CensusCase(id="b", line=1)],
...                reason=NOT_ON_COMMAND_LINE),
... ])
>>> ledger = build_ledger(census, reported={("golden_a.jsonl:1", "a")}, stopped=None)
>>> print(ledger.line)  # doctest: +NORMALIZE_WHITESPACE
gated 1 of 2 golden case(s); not gated: golden_b.jsonl (1 case(s), not selected on the
command line)
>>> ledger.partial
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from ..golden.contents_digest import set_digest
from ..model_defaults import empty_list
from .checks import GateCheck

__all__ = [
    "BROKEN_SYMLINK",
    "EMPTY_FILE",
    "NOT_ON_COMMAND_LINE",
    "SHARD_REASON_PREFIX",
    "UNREADABLE",
    "Census",
    "CensusCase",
    "CensusFile",
    "CoverageLedger",
    "GoldenFileFingerprint",
    "NotGated",
    "build_ledger",
    "content_differences",
    "coverage_check",
    "merge_ledgers",
    "same_case_ids",
]

#: Why a golden file's cases were not gated, when the reason is the file itself.
EMPTY_FILE = "empty file"
BROKEN_SYMLINK = "broken symlink"
UNREADABLE = "error"
NOT_ON_COMMAND_LINE = "not selected on the command line"
#: How the reason of a case left to another shard begins (``not in --rag-gate-shard 1/2``).
SHARD_REASON_PREFIX = "not in --rag-gate-shard "
#: A selected case whose result never arrived, when nothing says why the run stopped.
NO_RESULT = "no result reported"
#: How many groups of not-gated cases the coverage line names before "and N more".
_NAMED = 5


class CensusCase(BaseModel):
    """One case of a golden file that was read; ``reason`` is None when it was selected."""

    model_config = ConfigDict(extra="forbid")

    id: str
    line: int
    reason: str | None = None
    #: The digest of the case's contents (:mod:`..golden.contents_digest`); None for a
    #: case that could not be read.
    contents: str | None = None


class CensusFile(BaseModel):
    """One golden file found under the run's paths.

    ``reason`` says why none of its cases was collected (the whole file was left out);
    ``cases`` is every case of the file when it could be read, so the ledger can count and
    name them. ``by_config`` marks a file left out by the gate's own ``exclude:`` setting.
    """

    model_config = ConfigDict(extra="forbid")

    path: str
    cases: list[CensusCase] = Field(default_factory=empty_list)
    reason: str | None = None
    by_config: bool = False


class Census(BaseModel):
    """Every golden file the run found, in the order found."""

    model_config = ConfigDict(extra="forbid")

    files: list[CensusFile] = Field(default_factory=empty_list)


class NotGated(BaseModel):
    """Cases of one golden file left out of the gate for one reason."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    file: str
    reason: str
    cases: int
    ids: list[str] = Field(default_factory=empty_list)

    def describe(self) -> str:
        """``golden_b.jsonl (4 case(s), excluded by --ignore)``."""
        if self.cases or self.reason not in (EMPTY_FILE, BROKEN_SYMLINK, UNREADABLE):
            return f"{self.file} ({self.cases} case(s), {self.reason})"
        return f"{self.file} ({self.reason})"


class GoldenFileFingerprint(BaseModel):
    """One golden file of the set a run collected: its cases, by id and by contents.

    ``contents_sha256`` digests every case's contents digest, ``case_contents`` holds
    them by case id (sorted), so a merge names the cases two runs hold differently. Both
    are None in a report written before contents were recorded.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    cases: int
    ids_sha256: str
    contents_sha256: str | None = None
    case_contents: dict[str, str] | None = None

    @classmethod
    def of(
        cls, ids: Sequence[str], contents: Mapping[str, str] | None = None
    ) -> GoldenFileFingerprint:
        """The fingerprint of a file holding ``ids`` (in any order) with their ``contents``."""
        digest = hashlib.sha256("\n".join(sorted(ids)).encode("utf-8")).hexdigest()
        if contents is None:
            return cls(cases=len(ids), ids_sha256=digest)
        return cls(
            cases=len(ids),
            ids_sha256=digest,
            contents_sha256=set_digest(contents.items()),
            case_contents=dict(sorted(contents.items())),
        )

    def same_cases(self, other: GoldenFileFingerprint) -> bool:
        """Whether both name the same case ids, whatever their contents."""
        return (self.cases, self.ids_sha256) == (other.cases, other.ids_sha256)


class CoverageLedger(BaseModel):
    """Where each golden case of the run went; saved as ``run.coverage`` in the JSON report.

    ``total_cases`` counts every case in scope (gated or not); cases excluded on purpose
    by ``exclude:`` are listed under ``excluded`` and not counted in it. ``golden_set`` is
    the fingerprint of the golden set in scope, per file: every shard of one split
    records the same one, so ``rag-gate gate`` can tell shards from unrelated runs.
    """

    model_config = ConfigDict(extra="forbid")

    total_cases: int
    gated_cases: int
    not_gated: list[NotGated] = Field(default_factory=empty_list)
    excluded: list[NotGated] = Field(default_factory=empty_list)
    golden_set: dict[str, GoldenFileFingerprint] = Field(default_factory=dict)

    @property
    def partial(self) -> bool:
        """Whether anything in scope was not gated (a file or a case)."""
        return bool(self.not_gated)

    @property
    def reasons(self) -> list[str]:
        """One phrase per group of cases that were not gated."""
        return [group.describe() for group in self.not_gated]

    @property
    def line(self) -> str:
        """``gated N of M …``, saying what was left out and why."""
        if not self.not_gated:
            line = f"gated {self.gated_cases} of {self.total_cases} collected golden case(s)"
        else:
            shown = self.reasons[:_NAMED]
            more = len(self.not_gated) - len(shown)
            line = (
                f"gated {self.gated_cases} of {self.total_cases} golden case(s); not gated: "
                + "; ".join(shown)
                + (f"; and {more} more" if more > 0 else "")
            )
        if self.excluded:
            files = ", ".join(group.file for group in self.excluded[:_NAMED])
            more = len(self.excluded) - _NAMED
            line += f"; excluded by the exclude setting: {files}" + (
                f" and {more} more" if more > 0 else ""
            )
        return line


def build_ledger(
    census: Census,
    reported: Collection[tuple[str, str]],
    stopped: str | None,
    *,
    skipped: Mapping[tuple[str, str], str] | None = None,
) -> CoverageLedger:
    """Account for every case of ``census`` exactly once.

    Args:
        census: The golden files found and why each left-out case was left out.
        reported: ``(source, id)`` of every case whose result was reported.
        stopped: Why a selected case may have gone unreported (``not reached: -x
            stopped``), or None when nothing stopped the run early.
        skipped: ``(source, id)`` of the selected cases a marker or a conftest skipped,
            with the reason (``skipped: backend down``, ``xfailed: known gap``).

    Returns:
        The ledger; its ``gated_cases`` are the census cases found in ``reported``.
    """
    groups: dict[tuple[str, str], NotGated] = {}
    excluded: list[NotGated] = []
    total = gated = 0
    golden_set = {
        found.path: GoldenFileFingerprint.of(
            [case.id for case in found.cases],
            {case.id: case.contents for case in found.cases if case.contents is not None},
        )
        for found in census.files
        if not found.by_config
    }
    for found in census.files:
        if found.by_config:
            excluded.append(
                NotGated(
                    file=found.path,
                    reason=found.reason or "excluded by the exclude setting",
                    cases=len(found.cases),
                    ids=[case.id for case in found.cases],
                )
            )
            continue
        total += len(found.cases)
        if not found.cases and found.reason is None:
            # A file read to no case at all is an empty file: nothing of it was gated.
            _add(groups, found.path, EMPTY_FILE, None)
            continue
        if found.reason is not None:
            group = _add(groups, found.path, found.reason, None)
            for case in found.cases:
                group.cases += 1
                group.ids.append(case.id)
            continue
        for case in found.cases:
            key = (f"{found.path}:{case.line}", case.id)
            if key in reported:
                gated += 1
                continue
            reason = case.reason or (skipped or {}).get(key) or stopped or NO_RESULT
            _add(groups, found.path, reason, case.id)
    return CoverageLedger(
        total_cases=total,
        gated_cases=gated,
        not_gated=list(groups.values()),
        excluded=excluded,
        golden_set=golden_set,
    )


def _add(
    groups: dict[tuple[str, str], NotGated], file: str, reason: str, case_id: str | None
) -> NotGated:
    group = groups.setdefault((file, reason), NotGated(file=file, reason=reason, cases=0))
    if case_id is not None:
        group.cases += 1
        group.ids.append(case_id)
    return group


def merge_ledgers(
    ledgers: Sequence[CoverageLedger | None],
    *,
    different_sets: bool = False,
    gated: Collection[tuple[str, str]] | None = None,
) -> CoverageLedger | None:
    """The ledger of a whole run split into shards (``rag-gate gate``).

    Every shard found the same golden files; a case is gated when some shard gated it,
    and left out only when every shard left it out (under the reason of the shard it
    belonged to). None
    when a shard's report holds no ledger. With ``different_sets`` (reports of different
    golden sets, merged on purpose) the merged run holds every case of every set: what
    one left out stays left out. ``gated`` (``(file, id)`` of every case some shard
    reported) is given when the shards' lists of each other's cases were not kept: a
    case any ledger still lists is then left out unless some shard gated it, which for
    the shards of one split is the same.
    """
    if not ledgers or any(ledger is None for ledger in ledgers):
        return None
    known = [ledger for ledger in ledgers if ledger is not None]
    if different_sets and any(
        not same_case_ids(ledger.golden_set, known[0].golden_set) for ledger in known
    ):
        return _union(known)
    left_out: list[set[tuple[str, str]]] = [
        {(group.file, case_id) for group in ledger.not_gated for case_id in group.ids}
        for ledger in known
    ]
    if gated is None:
        everywhere = set.intersection(*left_out)
    else:
        everywhere = set.union(*left_out).difference(gated)
    whole_files = [
        {(group.file, group.reason) for group in ledger.not_gated if not group.ids}
        for ledger in known
    ]
    reasons = _shard_reasons(known, everywhere)
    groups: dict[tuple[str, str], NotGated] = {}
    # Without the shards' lists of each other's cases, each case is listed by its own shard.
    listing = known[:1] if gated is None else known
    placed: set[tuple[str, str]] = set()
    for group in (group for ledger in listing for group in ledger.not_gated):
        if not group.ids:
            if all((group.file, group.reason) in files for files in whole_files):
                groups[(group.file, group.reason)] = group.model_copy()
            continue
        for case_id in group.ids:
            case = (group.file, case_id)
            if case in everywhere and case not in placed:
                placed.add(case)
                _add(groups, group.file, reasons[case], case_id)
    total = max(ledger.total_cases for ledger in known)
    not_gated = list(groups.values())
    return CoverageLedger(
        total_cases=total,
        gated_cases=total - sum(group.cases for group in not_gated),
        not_gated=not_gated,
        excluded=list(known[0].excluded),
        golden_set=dict(known[0].golden_set),
    )


def same_case_ids(
    first: Mapping[str, GoldenFileFingerprint], second: Mapping[str, GoldenFileFingerprint]
) -> bool:
    """Whether two golden sets hold the same files and case ids, whatever the contents."""
    return first.keys() == second.keys() and all(
        first[path].same_cases(second[path]) for path in first
    )


def content_differences(
    first: Mapping[str, GoldenFileFingerprint], second: Mapping[str, GoldenFileFingerprint]
) -> dict[str, list[str]]:
    """Per golden file both sets hold, the ids of the cases whose contents differ.

    A case only one of them holds is no difference of contents (the ids say that); a
    file either recorded without contents is not compared.
    """
    differing: dict[str, list[str]] = {}
    for path, mine in first.items():
        theirs = second.get(path)
        if theirs is None or mine.contents_sha256 == theirs.contents_sha256:
            continue
        if mine.case_contents is None or theirs.case_contents is None:
            continue
        ids = [
            case_id
            for case_id, digest in mine.case_contents.items()
            if theirs.case_contents.get(case_id, digest) != digest
        ]
        if ids:
            differing[path] = ids
    return differing


def _shard_reasons(
    ledgers: Sequence[CoverageLedger], cases: Collection[tuple[str, str]]
) -> dict[tuple[str, str], str]:
    """Why the shards left each of ``cases`` out: the reason of the shard it belonged to.

    Every other shard left it out only because it was not theirs to score; the shard
    whose case it was says what really happened (``deselected by -k …``, ``not reached:
    -x stopped``). Read in one pass over the ledgers, however many cases were left out.
    """
    found: dict[tuple[str, str], list[str]] = {}
    for ledger in ledgers:
        for group in ledger.not_gated:
            for case_id in group.ids:
                if (group.file, case_id) in cases:
                    found.setdefault((group.file, case_id), []).append(group.reason)
    return {
        key: next((r for r in reasons if not r.startswith(SHARD_REASON_PREFIX)), reasons[0])
        for key, reasons in found.items()
    }


def _union(ledgers: Sequence[CoverageLedger]) -> CoverageLedger:
    """Ledgers of different golden sets as one: each distinct set counted once, whole."""
    distinct: list[CoverageLedger] = []
    for ledger in ledgers:
        if all(not same_case_ids(ledger.golden_set, seen.golden_set) for seen in distinct):
            distinct.append(ledger)
    total = sum(ledger.total_cases for ledger in distinct)
    not_gated = [group.model_copy() for ledger in distinct for group in ledger.not_gated]
    golden_set: dict[str, GoldenFileFingerprint] = {}
    for ledger in distinct:
        for path, fingerprint in ledger.golden_set.items():
            golden_set.setdefault(path, fingerprint)
    return CoverageLedger(
        total_cases=total,
        gated_cases=total - sum(group.cases for group in not_gated),
        not_gated=not_gated,
        excluded=[group for ledger in distinct for group in ledger.excluded],
        golden_set=golden_set,
    )


def coverage_check(line: str, *, partial: bool, gated: int, collected: int | None) -> GateCheck:
    """How much of the golden set was gated, as a check.

    A partial run is no deploy decision: the check is skipped rather than failed (shard
    jobs are partial by design), so no CI view shows it green.

    Args:
        line: The "gated N of M" line.
        partial: Whether fewer golden cases were gated than collected.
        gated: Golden cases gated.
        collected: Golden cases collected, None when not counted.
    """
    return GateCheck(
        name="coverage",
        kind="coverage",
        passed=None if partial else True,
        message=f"partial run: {line}" if partial else line,
        properties={
            "gated_cases": str(gated),
            "collected_cases": "unknown" if collected is None else str(collected),
            "verdict": line,
        },
    )
