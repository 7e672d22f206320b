"""The section "This change touches the gate itself", and the cache verification lines.

Rendered for the step summary, the pull-request comment and the terminal.

Paths and case ids come from the pull request, so every piece of them is escaped: no
markup, no HTML, no @-mention, no table cell of their own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..exceptions import ReportError
from ..gate.gate_change_list import GateChanges
from ..judges.cache_integrity import CacheIntegrity
from ..settings.run_environment import GitReader
from .integrity import cache_integrity_lines

if TYPE_CHECKING:
    from .json_report import SavedReport

__all__ = [
    "changed_thresholds",
    "threshold_change_note",
    "SECTION_TITLE",
    "changes_in_report_scope",
    "gate_inputs_context",
    "gate_inputs_markdown",
    "gate_inputs_text",
]

SECTION_TITLE = "This change touches the gate itself"


def _plain(text: str) -> str:
    r"""Text for a Markdown line: no HTML, no mention, no emphasis or links.

    >>> _plain("<b>@team</b> *x* [a](b)")
    '&lt;b&gt;@\u200dteam&lt;/b&gt; \\*x\\* \\[a\\](b)'
    """
    flat = " ".join(text.split())
    for character, escape in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;")):
        flat = flat.replace(character, escape)
    for character in "\\`*_[]|~#":
        flat = flat.replace(character, "\\" + character)
    return flat.replace("@", "@\u200d")


def _code(text: str) -> str:
    flat = " ".join(text.split())
    fence = "`"
    while fence in flat:
        fence += "`"
    padding = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{padding}{flat}{padding}{fence}"


# The change detail "threshold faithfulness 0.85 → 0.80" is written by
# gate.gate_change_details in this one shape; it is read back here rather than saved twice.
_THRESHOLD_CHANGE = re.compile(r"threshold (?P<metric>\S+) (?P<before>.+?) → (?P<after>.+)")


def changed_thresholds(changes: GateChanges | None) -> dict[str, tuple[str, str]]:
    """Each metric whose threshold this change moved, as ``(before, after)`` text.

    >>> from pytest_ragas_gate.gate.gate_changes import GateChange
    >>> changed_thresholds(GateChanges(base_ref="main", changes=[GateChange(
    ...     kind="config", path="rag_gate.yaml", detail="threshold faithfulness 0.85 → 0.80")]))
    {'faithfulness': ('0.85', '0.80')}
    """
    found: dict[str, tuple[str, str]] = {}
    for change in changes.changes if changes is not None else []:
        match = _THRESHOLD_CHANGE.fullmatch(change.detail)
        if change.kind == "config" and match:
            found[match["metric"]] = (match["before"], match["after"])
    return found


def threshold_change_note(metric: str, changed: Mapping[str, tuple[str, str]]) -> str:
    """`` · threshold 0.85 → 0.80 in this change`` beside a verdict, or nothing."""
    if metric not in changed:
        return ""
    before, after = changed[metric]
    return f" · ⚠️ threshold {before} → {after} in this change"


def gate_inputs_markdown(
    changes: GateChanges | None,
    integrity: CacheIntegrity | None = None,
    *,
    cache_mode: str = "readwrite",
) -> list[str]:
    """Markdown lines (starting with a blank line), or none when there is nothing to say."""
    lines: list[str] = []
    if changes is not None and changes.problem is not None:
        lines += [
            "",
            f"> ⚠️ Could not compare the gate's inputs with {_code(changes.base_ref)}: "
            f"{_plain(changes.problem)}",
        ]
    elif changes is not None and changes.changes:
        lines += [
            "",
            f"### ⚠️ {SECTION_TITLE}",
            "",
            f"Compared with {_code(changes.base_ref)}. These change what the gate checks or how "
            "it decides, not the RAG system; review them as such.",
            "",
        ]
        lines += [f"- {_code(change.path)}: {_plain(change.detail)}" for change in changes.changes]
    integrity_lines = cache_integrity_lines(integrity, cache_mode=cache_mode)
    if integrity_lines:
        lines += ["", *(f"> {_plain(line)}" for line in integrity_lines)]
    return lines


def gate_inputs_text(changes: GateChanges | None) -> list[str]:
    """The same section as terminal lines."""
    if changes is None:
        return []
    if changes.problem is not None:
        return [
            f"rag-gate: could not compare the gate's inputs with {changes.base_ref}: "
            f"{changes.problem}"
        ]
    if not changes.changes:
        return []
    return [
        f"{SECTION_TITLE} (compared with {changes.base_ref}):",
        *(f"  {change.path}: {change.detail}" for change in changes.changes),
    ]


def changes_in_report_scope(
    report: SavedReport, base_ref: str, rootdir: Path, git: GitReader
) -> GateChanges:
    """The gate's changed inputs against ``base_ref``, for a saved report's settings and files.

    ``rootdir`` is where the report's golden-file paths are relative to (the directory
    pytest ran in); a removed case is called out when the report's baseline failed it.
    ``git`` is the run environment's git reader.
    """
    # git and the config history load only for a pull request's comparison.
    from ..gate.gate_changes import failing_cases, find_gate_changes

    baseline = _baseline_report(report)
    return find_gate_changes(
        rootdir,
        base_ref,
        config=report.config,
        golden_files=list(report.facts.golden_files),
        # "Failed" by the baseline's own thresholds, not the ones the change may have lowered.
        failing_in_base=None
        if baseline is None
        else failing_cases(baseline.results, baseline.config),
        git=git,
    )


def _baseline_report(report: SavedReport) -> SavedReport | None:
    """The baseline a report was compared with, where pytest ran or beside the report."""
    stored = report.config.baseline
    if not stored or report.facts.baseline is None:
        return None
    from .json_report import load_report

    for path in (Path(stored), report.path.parent / stored):
        if path.is_file():
            try:
                return load_report(path)
            except ReportError:
                return None
    return None


def gate_inputs_context(run: Mapping[str, Any], *, cache_mode: str) -> dict[str, Any]:
    """What the HTML page shows of a report's ``run`` block: the changes and the cache lines.

    A block that does not read back (a report edited by hand) shows nothing here; loading
    the report is what validates it.
    """
    try:
        changes = (
            None
            if run.get("gate_changes") is None
            else GateChanges.model_validate(run["gate_changes"])
        )
        integrity = (
            None
            if run.get("cache_integrity") is None
            else CacheIntegrity.model_validate(run["cache_integrity"])
        )
    except ValidationError:
        changes, integrity = None, None
    return {
        "gate_changes": changes,
        "gate_changes_title": SECTION_TITLE,
        "cache_lines": cache_integrity_lines(integrity, cache_mode=cache_mode),
    }
