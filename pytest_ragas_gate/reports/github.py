"""GitHub Actions output: the step summary and workflow-command annotations.

When ``GITHUB_STEP_SUMMARY`` names a file, the Markdown summary is appended to it (GitHub
shows it on the run's page). When ``GITHUB_ACTIONS`` is ``true``, ``::error`` and
``::warning`` workflow commands annotate the run: one per gate failure, one warning when
the offline judge scored the run, and one per failing case, pinned to its golden file and
line so it shows in the pull request's diff.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ..gate.gate_change_list import GateChanges
from ..gate.verdict import CaseVerdict, GateVerdict
from ..judges.base import JudgeInfo
from ..scoring.results import CaseResult, split_source
from ..usage import Usage
from .gate_inputs import changed_thresholds

__all__ = [
    "MAX_CASE_ANNOTATIONS",
    "annotation_lines",
    "escape_data",
    "escape_property",
    "publish_annotations",
    "summary_markdown",
    "write_step_summary",
]

TITLE = "RAG gate"

#: GitHub shows only the first few annotations of a step; the rest are noise in the log.
MAX_CASE_ANNOTATIONS = 20


def escape_data(text: str) -> str:
    r"""Escape a workflow command's message, as the Actions toolkit does.

    >>> escape_data("100% done\nnext")
    '100%25 done%0Anext'
    """
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow command's property value (``file=``, ``title=``).

    >>> escape_property("a,b:c")
    'a%2Cb%3Ac'
    """
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(kind: str, message: str, **properties: str) -> str:
    props = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    head = f"::{kind} {props}" if props else f"::{kind}"
    return f"{head}::{escape_data(message)}"


def _repo_path(file: str, rootdir: Path | None, workspace: str | None) -> str:
    """The golden file relative to the checkout, which is what annotations resolve against."""
    if rootdir is None or not workspace:
        return file
    absolute = Path(file) if Path(file).is_absolute() else rootdir / file
    try:
        return Path(os.path.relpath(absolute.resolve(), Path(workspace).resolve())).as_posix()
    except ValueError:  # another drive on Windows
        return file


def _case_problem(case: CaseVerdict, verdict: GateVerdict) -> str | None:
    """Why a case deserves an annotation: an error, a case minimum, a failing metric."""
    if case.error is not None:
        if case.error_metric is None:
            return f"errored: {case.error}"
        return f"{case.error_metric} errored: {case.error}"
    if case.own_misses:
        return "; ".join(case.own_misses)
    if verdict.passed:
        return None
    failing = set(verdict.failing_metrics)
    return "; ".join(miss.line for miss in case.gate_misses if miss.metric in failing) or None


def annotation_lines(
    verdict: GateVerdict,
    *,
    results: Sequence[CaseResult],
    judge: JudgeInfo,
    rootdir: Path | None = None,
    workspace: str | None = None,
) -> list[str]:
    """The workflow commands for a gate run.

    Args:
        verdict: The gate's verdict (baseline regressions included).
        results: Every case result of the run.
        judge: The judge that scored the run.
        rootdir: The directory case sources are relative to.
        workspace: ``GITHUB_WORKSPACE``, the checkout annotations are relative to.

    Returns:
        One ``::error``/``::warning`` line per annotation.
    """
    lines = [_command("error", check.message, title=TITLE) for check in verdict.failed_checks]
    if not verdict.passed:
        lines.append(_command("error", verdict.recommendation, title=TITLE))
    # GitHub shows the first ten error annotations of a step: the worst cases come first
    # (errored, below their own thresholds, then by how far below the gate's threshold).
    problems = sorted(
        (
            (case, problem)
            for case in verdict.failing_cases
            if (problem := _case_problem(case, verdict)) is not None
        ),
        key=lambda item: item[0].rank,
    )
    for case, problem in problems[:MAX_CASE_ANNOTATIONS]:
        file, line = split_source(case.source)
        properties = {"file": _repo_path(file, rootdir, workspace)}
        if line is not None:
            properties["line"] = str(line)
        properties["title"] = f"RAG case {case.id}"
        lines.append(_command("error", f"{case.id}: {problem}", **properties))
    if len(problems) > MAX_CASE_ANNOTATIONS:
        lines.append(
            _command(
                "error",
                f"{len(problems) - MAX_CASE_ANNOTATIONS} more failing case(s) in the reports.",
                title=TITLE,
            )
        )
    if judge.kind == "offline":
        lines.append(
            _command(
                "warning",
                "Scored by the offline heuristic judge, not an LLM: a smoke test, not a "
                "quality measurement. Set ANTHROPIC_API_KEY to gate with an LLM judge.",
                title=TITLE,
            )
        )
    return lines


def summary_markdown(
    verdict: GateVerdict,
    *,
    results: Sequence[CaseResult],
    judge: JudgeInfo,
    usage: Usage,
    extra: Sequence[str] = (),
    gate_changes: GateChanges | None = None,
    html_report: bool = False,
) -> str:
    """The Markdown summary of a run, as the step summary and ``outputs.markdown`` hold it."""
    # The renderer loads only for a run that writes Markdown (step summary or file).
    from .markdown import render_markdown

    return render_markdown(
        verdict,
        results=results,
        judge=judge,
        usage=usage,
        lead=extra,
        changed_thresholds=changed_thresholds(gate_changes),
        html_report=html_report,
    )


def write_step_summary(
    verdict: GateVerdict,
    *,
    results: Sequence[CaseResult],
    judge: JudgeInfo,
    usage: Usage,
    env: Mapping[str, str],
    extra: Sequence[str] = (),
    gate_changes: GateChanges | None = None,
    html_report: bool = False,
) -> bool:
    """Append the Markdown summary to ``$GITHUB_STEP_SUMMARY`` when it is set.

    Args:
        verdict: The gate's verdict.
        results: Every case result of the run.
        judge: The judge that scored the run.
        usage: Judge usage over the run.
        env: The run's environment variables.
        extra: Markdown lines right after the decision (the gate's changed inputs, the
            cache's verification).
        gate_changes: The changes to the gate's inputs, for the thresholds this change moved.
        html_report: Whether the run writes an HTML report, which a cut list points to.

    Returns:
        Whether a summary was written.
    """
    target = env.get("GITHUB_STEP_SUMMARY")
    if not target:
        return False
    text = summary_markdown(
        verdict,
        results=results,
        judge=judge,
        usage=usage,
        extra=extra,
        gate_changes=gate_changes,
        html_report=html_report,
    )
    try:
        with open(target, "a", encoding="utf-8", errors="backslashreplace") as summary:
            summary.write(text + "\n")
    except OSError:
        # A summary is a courtesy; a read-only or vanished file must not change the verdict.
        return False
    return True


def publish_annotations(
    verdict: GateVerdict,
    *,
    results: Sequence[CaseResult],
    judge: JudgeInfo,
    rootdir: Path,
    write_line: Callable[[str], object],
    env: Mapping[str, str],
) -> None:
    """Print the run's annotations through ``write_line`` when under GitHub Actions.

    Args:
        verdict: The gate's verdict.
        results: Every case result of the run.
        judge: The judge that scored the run.
        rootdir: The directory case sources are relative to.
        write_line: The terminal reporter's ``write_line``.
        env: The run's environment variables.
    """
    if env.get("GITHUB_ACTIONS") != "true":
        return
    for line in annotation_lines(
        verdict,
        results=results,
        judge=judge,
        rootdir=rootdir,
        workspace=env.get("GITHUB_WORKSPACE"),
    ):
        write_line(line)
