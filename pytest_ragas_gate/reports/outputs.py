"""The one write path: a gated run's JSON, JUnit, HTML, Markdown, history and OTel files.

``pytest --rag-gate`` and ``rag-gate gate`` (re-gating one report or merging shards) both
end in :func:`write_outputs`, so a saved report gated again writes the same files the run
wrote, byte for byte apart from the time stamps. What each file holds is its renderer's;
what goes where, in which order and with which inputs is decided here once.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..gate.verdict import GateVerdict, RunFacts
from ..judges.base import JudgeInfo
from ..scoring.results import CaseResult, usage_by_metric
from ..settings.config import GateConfig
from ..settings.run_environment import RunEnvironment
from ..usage import Usage

if TYPE_CHECKING:
    from .history import HistoryEntry

__all__ = ["OutputFiles", "RunOutcome", "Written", "markdown_summary", "write_outputs"]


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr)


@dataclass(frozen=True)
class RunOutcome:
    """A gated run: the verdict and everything of the run its files show beside it.

    Args:
        verdict: The gate's verdict.
        results: Every case result, in canonical order.
        config: The settings the run was gated with.
        judge: The judge that scored it.
        facts: The run facts the verdict was reached with.
        wall_s: The run's wall time.
        scoring_s: Its scoring time.
        incomplete: Whether the run stopped before every case was scored.
        shard: ``{"index", "count"}`` of a shard's run, else None.
        baseline: The baseline's case results (of this shard), for the HTML deltas.
        baseline_stamp: The baseline's commit and run, as the HTML page names it.
        stamp: The commit and run a re-gated report keeps from the run it came from.
        environment: The run's environment, whose commit and CI run stamp a new run's
            report (read only when a report is written).
        extra: Further top-level keys of the JSON report (``regated_from`` …).
    """

    verdict: GateVerdict
    results: Sequence[CaseResult]
    config: GateConfig
    judge: JudgeInfo
    facts: RunFacts
    wall_s: float
    scoring_s: float
    incomplete: bool = False
    shard: Mapping[str, int] | None = None
    baseline: Sequence[CaseResult] | None = None
    baseline_stamp: Mapping[str, str | None] | None = None
    stamp: Mapping[str, str | None] | None = None
    environment: RunEnvironment | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def usage_by_metric(self) -> dict[str, Usage]:
        """Judge usage per metric, summed over the cases."""
        return usage_by_metric(self.results)

    def document(self) -> dict[str, Any]:
        """The JSON report's top-level blocks (its cases are streamed when written)."""
        from .json_report import build_report

        document = build_report(
            results=self.results,
            verdict=self.verdict,
            config=self.config,
            judge=self.judge,
            usage_by_metric=self.usage_by_metric,
            wall_s=self.wall_s,
            scoring_s=self.scoring_s,
            incomplete=self.incomplete,
            facts=self.facts,
            shard=None if self.shard is None else dict(self.shard),
            include_cases=False,
            stamp=self.stamp
            if self.stamp is not None or self.environment is None
            else self.environment.stamp(),
        )
        document.update(self.extra)
        return document


@dataclass(frozen=True)
class OutputFiles:
    """Which files to write, each path relative to ``root``; None leaves a kind out.

    Args:
        root: The directory relative paths are written from.
        json: The JSON report (``outputs.json``).
        junit: The JUnit XML.
        html: The HTML page.
        markdown: The Markdown summary, as the step summary holds it.
        history: The run history file, appended to.
        otel: Whether to send the OpenTelemetry records (``outputs.otel`` says where).
        html_report: Whether the run has an HTML report that the Markdown's cut lists
            point to (default: whether these outputs write one).
        notice: Says a problem that does not change the verdict (a history line it
            cannot read, an OTel endpoint that refused).
        environment: The run's environment, for the OpenTelemetry records' commit, CI
            run and service name.
    """

    root: Path
    json: str | None = None
    junit: str | None = None
    html: str | None = None
    markdown: str | None = None
    history: str | None = None
    otel: bool = False
    html_report: bool | None = None
    notice: Callable[[str], None] = _to_stderr
    environment: RunEnvironment = field(default_factory=RunEnvironment)

    @classmethod
    def from_config(
        cls,
        config: GateConfig,
        root: Path,
        notice: Callable[[str], None] = _to_stderr,
        environment: RunEnvironment | None = None,
    ) -> OutputFiles:
        """The files ``config``'s ``outputs.*`` ask for."""
        return cls(
            environment=environment or RunEnvironment(),
            root=root,
            json=config.report,
            junit=config.junit,
            html=config.html,
            markdown=config.markdown,
            history=config.history,
            otel=bool(config.otel),
            notice=notice,
        )


@dataclass(frozen=True)
class Written:
    """What was written beyond the files: the OTel endpoint, the history lines added.

    Args:
        otel: Where the OpenTelemetry records went (None: not sent).
        history_added: Runs added to the history file: 0 when the run was there
            already (None: no history file).
    """

    otel: str | None = None
    history_added: int | None = None


def write_outputs(outcome: RunOutcome, outputs: OutputFiles) -> Written:
    """Write every file ``outputs`` asks for, of the one ``outcome``.

    Args:
        outcome: The gated run.
        outputs: Which files, where.

    Returns:
        What was sent where it is not a file (the OTel endpoint).

    Raises:
        OSError: A file cannot be written.
    """
    root = outputs.root
    results = outcome.results
    history_added = None
    if outputs.json or outputs.html or outputs.history:
        # The JSON report is built only for the outputs made from it.
        document = outcome.document()
        if outputs.json:
            from .json_report import write_report

            write_report(
                root / outputs.json, document, results=results, verdicts=outcome.verdict.cases
            )
        runs, history_added = _record_history(root, outputs, document)
        if outputs.html:
            from .html import write_html

            write_html(
                root / outputs.html,
                document,
                results,
                baseline=outcome.baseline,
                history=runs,
                baseline_stamp=outcome.baseline_stamp,
                cases=outcome.verdict.cases,
            )
    if outputs.junit:
        # Each renderer loads only for the output asked for.
        from .junit import write_junit

        write_junit(
            root / outputs.junit,
            results=results,
            verdict=outcome.verdict,
            judge=outcome.judge,
            failure_lines={},
            bounds=outcome.config.bounds(),
        )
    if outputs.markdown:
        from ..atomic_files import write_text_atomic

        html_report = bool(outputs.html) if outputs.html_report is None else outputs.html_report
        write_text_atomic(
            root / outputs.markdown, markdown_summary(outcome, html_report=html_report)
        )
    otel = None
    if outputs.otel:
        from .otel import export_run

        otel = export_run(outcome.config, results, root, outputs.notice, outputs.environment)
    return Written(otel=otel, history_added=history_added)


def markdown_summary(outcome: RunOutcome, *, html_report: bool) -> str:
    """The Markdown summary, as ``$GITHUB_STEP_SUMMARY`` gets it."""
    from .gate_inputs import gate_inputs_markdown
    from .github import summary_markdown

    facts = outcome.facts
    extra = gate_inputs_markdown(
        facts.gate_changes, facts.cache_integrity, cache_mode=outcome.config.cache
    )
    return summary_markdown(
        outcome.verdict,
        results=outcome.results,
        judge=outcome.judge,
        usage=sum(outcome.usage_by_metric.values(), Usage()),
        extra=extra,
        gate_changes=facts.gate_changes,
        html_report=html_report,
    )


def _record_history(
    root: Path, outputs: OutputFiles, document: Mapping[str, Any]
) -> tuple[list[HistoryEntry], int | None]:
    """Append this run to the history file; the recent runs, this one last, and the count added.

    The history informs and never decides: a line it cannot read or a file it cannot
    write is a notice, and the run's verdict stands.
    """
    if not outputs.history:
        return [], None
    from ..exceptions import ReportError
    from .history import append_history, entry_from_report, read_history, recent_runs

    path = root / outputs.history
    entry = entry_from_report(document)
    added = 0
    try:
        entries, problems = read_history(path)
        added = append_history(path, [entry])
    except ReportError as error:
        entries, problems = [], [str(error)]
    for problem in problems:
        outputs.notice(f"rag-gate history: {problem}")
    return recent_runs(entries, entry), added
