"""What a run knew beyond its case results, and the scope of golden cases it gated.

The facts are saved under ``run`` in the JSON report, so the plugin, ``rag-gate gate``,
``merge`` and ``summary`` reach the very same verdict from the same inputs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from ..judges.cache_integrity import CacheIntegrity
from ..model_defaults import empty_list
from .baseline_figures import BaselineComparison
from .coverage import CoverageLedger
from .gate_change_list import GateChanges

__all__ = ["RunFacts", "fold_golden_files", "gate_scope", "named", "nothing_gated"]

#: How many case ids or test ids a failure line names before it says "and N more".
_NAMED = 5


class RunFacts(BaseModel):
    """What a run knew beyond its case results; saved under ``run`` in the JSON report.

    ``golden_files`` maps each golden file found to the number of cases collected from it
    (malformed cases included), or None when the file was found but not collected (``--lf``
    skips files without a previous failure). ``counted`` is False for reports written
    before these facts were saved: then nothing is known of what was collected.
    """

    model_config = ConfigDict(extra="forbid")

    counted: bool = False
    case_files: list[str] = Field(default_factory=empty_list)
    # Files under the run's paths that read as golden sets but match no golden.files glob.
    look_alike_files: list[str] = Field(default_factory=empty_list)
    golden_files: dict[str, int | None] = Field(default_factory=dict)
    unreadable_files: list[str] = Field(default_factory=empty_list)
    selection: list[str] = Field(default_factory=empty_list)
    shard: str | None = None
    other_failures: list[str] = Field(default_factory=empty_list)
    baseline: BaselineComparison | None = None
    # Where every golden case went (gated, or why not); None in reports written before it.
    coverage: CoverageLedger | None = None
    # What the judge cache verified, rejected and signed; None when it neither signs nor
    # verifies (no signing key, no cache_public_key).
    cache_integrity: CacheIntegrity | None = None
    # What the change under test does to the gate's own inputs, against the base branch.
    gate_changes: GateChanges | None = None
    # Per metric that ran, the kind of judge that scored it ("offline", "anthropic", …), or
    # None for a metric computed without a judge: whether a pass is a deploy decision.
    # Reports written before it was saved get the report's judge for every judged metric.
    scored_by: dict[str, str | None] = Field(default_factory=dict)

    @property
    def collected_cases(self) -> int | None:
        """Golden cases collected, before any selection; None when not counted."""
        if not self.counted:
            return None
        return sum(count for count in self.golden_files.values() if count is not None)

    @property
    def skipped_files(self) -> list[str]:
        """Golden files found but never collected."""
        return [path for path, count in self.golden_files.items() if count is None]


def fold_golden_files(into: dict[str, int | None], other: Mapping[str, int | None]) -> None:
    """Fold another process's golden-file counts into ``into``, in place.

    Every xdist worker and every shard collects the same golden files, so a count (the
    file was read) wins over None (found but not collected), and the larger count wins.
    """
    for path, count in other.items():
        known = into.get(path)
        if known is None or (count is not None and count > known):
            into[path] = count


def named(names: Sequence[str]) -> str:
    """``a, b, c`` — or the first few and how many more."""
    shown = ", ".join(names[:_NAMED])
    return shown if len(names) <= _NAMED else f"{shown} and {len(names) - _NAMED} more"


def gate_scope(gated: int, facts: RunFacts) -> tuple[str, list[str]]:
    """The "gated N of M" line and, for a partial run, why fewer cases were gated."""
    ledger = facts.coverage
    if ledger is not None:
        accounted = list(ledger.reasons)
        if facts.shard and not accounted:
            # A shard is partial by design, even when the hash gives it every case.
            accounted.append(f"--rag-gate-shard {facts.shard}")
            return f"{ledger.line} (--rag-gate-shard {facts.shard})", accounted
        return ledger.line, accounted
    collected = facts.collected_cases
    if collected is None:
        return f"gated {gated} golden case(s)", []
    reasons: list[str] = []
    skipped = facts.skipped_files
    if gated < collected or skipped or facts.shard:
        reasons = list(facts.selection)
        if facts.shard:
            reasons.append(f"--rag-gate-shard {facts.shard}")
        if skipped:
            reasons.append(f"{len(skipped)} golden file(s) not collected: {named(skipped)}")
        if not reasons:
            reasons.append(f"{collected - gated} collected case(s) reported no result")
    line = f"gated {gated} of {collected} collected golden case(s)"
    return (f"{line} ({'; '.join(reasons)})" if reasons else line), reasons


def nothing_gated(facts: RunFacts) -> str:
    """Why a run has no case to gate, as precisely as the facts tell."""
    if not facts.counted:
        return "no golden cases were scored"
    ledger = facts.coverage
    if ledger is not None and ledger.total_cases and ledger.not_gated:
        return "no golden cases were scored: " + named(ledger.reasons)
    readable = {path: count for path, count in facts.golden_files.items() if count is not None}
    if facts.collected_cases:
        return (
            "no golden cases were scored: all "
            f"{facts.collected_cases} collected case(s) were deselected"
            + (f" ({'; '.join(facts.selection)})" if facts.selection else "")
        )
    if readable:
        return (
            f"no golden cases were scored: {named(list(readable))} hold(s) no cases; "
            "add cases to the golden file(s)"
        )
    if facts.unreadable_files:
        return "no golden cases were scored: no golden file could be read"
    patterns = ", ".join(facts.case_files) or "the configured golden.files"
    return (
        "no golden cases were scored: no golden file was collected (under directories, "
        f"golden files match {patterns}; name a file on the command line to use any other "
        "name, or set golden.files)"
    )


def look_alike_hint(facts: RunFacts) -> str | None:
    """One line naming the files that look like golden sets but were not collected.

    >>> print(look_alike_hint(RunFacts(look_alike_files=["data/cases.jsonl"])))
    ... # doctest: +NORMALIZE_WHITESPACE
    hint: 1 file(s) look like golden sets but match no golden.files glob, so their cases
    were not gated: data/cases.jsonl; add a glob to golden.files or name the file on the
    command line
    """
    if not facts.look_alike_files:
        return None
    return (
        f"hint: {len(facts.look_alike_files)} file(s) look like golden sets but match no "
        f"golden.files glob, so their cases were not gated: {named(facts.look_alike_files)}; "
        "add a glob to golden.files or name the file on the command line"
    )
