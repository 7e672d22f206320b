"""The ``rag-gate`` command: the gate's saved reports, labels and golden sets.

``gate`` applies the gate again to a saved report with other thresholds, or merges the
reports of a sharded CI matrix and gates the whole; ``render`` prints a report's Markdown
summary or writes its HTML page; ``compare`` shows what changed between two runs;
``comment`` posts the pull-request comment; ``label``, ``synth``, ``import`` and
``keygen`` work on labels, golden sets and the cache's signing key. The old command names
(``regate``, ``merge``, ``summary``, ``html``, ``history``, ``agreement``) are hidden
aliases that print a deprecation line.

Exit statuses follow pytest's: 0 the gate passed (or no regression), 1 it failed, 4 the
command line or a report is unusable (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..command_line import EXIT_FAILED, EXIT_PASSED, CommandParser, run_guarded
from ..exceptions import CommandError
from ..gate.baseline import (
    BaselineComparison,
    case_deltas,
    compare_to_baseline,
    pair_cases,
    scoring_differences,
)
from ..gate.coverage import merge_ledgers
from ..gate.deploy_decision import HEURISTIC_JUDGES
from ..gate.judge_changes import judged_differently, judged_line
from ..gate.verdict import GateVerdict, RunFacts, evaluate_gate, fold_golden_files
from ..importers import register_command as register_import
from ..judges.base import NO_JUDGE, JudgeInfo, MetricJudge
from ..judges.cache_signing import CacheIntegrity
from ..metrics.registry import did_you_mean
from ..reports.history import HistoryEntry, read_history
from ..reports.json_report import SavedReport, load_report, saved_stamp
from ..scoring.results import CaseResult, usage_by_metric
from ..settings.config import (
    GateConfig,
    describe_validation_error,
    layer_settings,
    load_config,
)
from ..settings.config_checks import (
    check_metric_names,
    check_report_metric_names,
    report_metric_names,
)
from ..settings.config_sections import public_key
from ..settings.config_sources import SettingSources, SourceLayer
from ..settings.output_paths import output_path_problem
from ..synth import register_command as register_synth
from .comment import register_command as register_comment
from .history import print_history_warnings
from .history import register_command as register_history
from .keygen import register_command as register_keygen
from .labelling import register_commands
from .report_commands import gate_settings_options, warn_old_command
from .report_commands import register_commands as register_gate_and_render

if TYPE_CHECKING:
    from ..reports.outputs import RunOutcome

__all__ = ["main"]


#: Settings that may differ between the shards of one run: where files go and how fast
#: the judge was driven, never what was measured or how it was gated.
OPERATIONAL_SETTINGS = frozenset(
    {
        "report",
        "report_details",
        "html",
        "markdown",
        "history",
        "junit",
        "cache",
        "cache_dir",
        "concurrency",
        "requests_per_minute",
        "timeout_s",
        "target_timeout",
        "max_retries",
    }
)


def build_parser() -> argparse.ArgumentParser:
    """The ``rag-gate`` argument parser."""
    parser = CommandParser(
        prog="rag-gate",
        description="Work with pytest-ragas-gate's saved JSON reports (written by "
        "--rag-gate-output json=PATH), human labels and golden sets, without running "
        "pytest: synth may ask the judge's LLM to write golden cases and comment calls the "
        "GitHub API; the other commands read and write local files only.",
        epilog="Exit status: 0 passed, 1 failed or regressed, 4 bad command line or report.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    # The old names carry no help: argparse then leaves them out of the command list.
    regate = commands.add_parser(
        "regate",
        description="Apply the gate again to a saved report with no judge calls. A stored "
        "baseline comparison still counts unless --baseline names another report.",
    )
    regate.add_argument("report", metavar="REPORT", help="a JSON report")
    gate_settings_options(regate)
    regate.add_argument("--baseline", metavar="PATH", help="compare with this report instead")
    regate.add_argument("-o", "--output", metavar="OUT", help="write the re-gated report here")

    compare = commands.add_parser(
        "compare",
        help="per-metric and per-case deltas between two reports",
        description="Pair the cases of two reports and show per-metric deltas with paired "
        "bootstrap intervals and the largest per-case changes. Exits 1 when a metric "
        "regressed: its mean dropped by more than max_regression and the interval of the "
        "delta lies below 0, and when nothing could be compared: fewer cases paired (same "
        "id and question) than min_paired, or a metric scored by another judge, model or "
        "prompt version without --allow-judge-change, or either report an ERROR run "
        "(its judge gave no usable answer).",
    )
    compare.add_argument("base", metavar="BASE", help="the baseline report")
    compare.add_argument("new", metavar="NEW", help="the new report")
    compare.add_argument(
        "--max-regression",
        type=float,
        default=None,
        metavar="DROP",
        help="largest tolerated drop of a mean (default: max_regression of NEW's config)",
    )
    compare.add_argument(
        "--allow-judge-change",
        action="store_true",
        default=None,
        help="compare metrics the two reports' judges scored differently (default: "
        "baseline.allow_judge_change of NEW's config)",
    )
    compare.add_argument(
        "--cases",
        type=int,
        default=20,
        metavar="N",
        help="per-case changes to list, largest drops first (default: 20)",
    )

    merge = commands.add_parser(
        "merge",
        description="Merge the reports of a sharded run (--rag-gate-shard K/N) into one "
        "report and gate it. The reports must share judge and settings, every shard must "
        "be present once, and no case may appear twice.",
    )
    merge.add_argument("reports", nargs="+", metavar="REPORT", help="shard reports")
    merge.add_argument(
        "--allow-different-sets",
        action="store_true",
        help="merge reports of different golden sets (by default refused: shards of one "
        "split record the same golden-set fingerprint); the merged run holds every case",
    )
    merge.add_argument("-o", "--output", required=True, metavar="OUT", help="merged report")
    gate_settings_options(merge)
    merge.add_argument(
        "--baseline",
        metavar="PATH",
        help="compare the merged run with this report (default: the shards' baseline)",
    )

    summary = commands.add_parser(
        "summary",
        description="Print the Markdown summary of a report, as written to the GitHub "
        "step summary.",
    )
    summary.add_argument("report", metavar="REPORT", help="a JSON report")
    summary.add_argument(
        "--base-ref",
        metavar="REF",
        help="list what the checked-out commit changes in the gate's inputs against REF "
        "(default: the list in the report, written when GITHUB_BASE_REF was set)",
    )

    html = commands.add_parser(
        "html",
        description="Write the HTML page of a report (merged shard reports included): "
        "one file with no network access, to open from disk or a CI artifact.",
    )
    html.add_argument("report", metavar="REPORT", help="a JSON report")
    html.add_argument("-o", "--output", required=True, metavar="OUT", help="the HTML file")
    html.add_argument(
        "--baseline",
        metavar="PATH",
        help="a baseline report for per-case deltas (default: the report's own baseline, "
        "when its file is still there)",
    )
    html.add_argument(
        "--history",
        metavar="PATH",
        help="a run history file (--rag-gate-output history=PATH): draw each gated "
        "metric's trend over the last runs (default: the report's history setting, when "
        "its file is there)",
    )
    register_gate_and_render(commands)
    register_commands(commands)
    register_comment(commands)
    register_synth(commands)
    register_import(commands)
    register_keygen(commands)
    register_history(commands)
    _order_command_list(commands)
    return parser


#: The order of ``rag-gate --help``: the commands of a report first.
COMMAND_ORDER = ("gate", "render", "compare", "comment", "label", "synth", "import", "keygen")


def _order_command_list(commands: argparse._SubParsersAction[Any]) -> None:
    listed = {action.dest: action for action in commands._choices_actions}
    commands._choices_actions[:] = [listed[name] for name in COMMAND_ORDER if name in listed]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``rag-gate``; returns the exit status.

    Args:
        argv: The arguments (default: ``sys.argv[1:]``).

    Returns:
        0 passed, 1 failed, 4 usage error.
    """
    arguments = build_parser().parse_args(argv)
    warn_old_command(arguments.command)
    handlers = {
        "regate": _regate,
        "compare": _compare,
        "merge": _merge,
        "summary": _summary,
        "html": _html,
    }
    # Commands registered by other modules carry their own handler.
    handler = getattr(arguments, "handler", None) or handlers[arguments.command]
    steps = (arguments.command, getattr(arguments, "label_command", None))
    command = " ".join(["rag-gate", *(step for step in steps if step)])
    return run_guarded(command, lambda: handler(arguments))


# --- shared ---------------------------------------------------------------------------


def _settings(
    base: GateConfig,
    config_file: str | None,
    thresholds: Sequence[tuple[str, float | str | None]],
    metrics: Sequence[str],
    report: str,
) -> GateConfig:
    """The report's settings, overlaid with ``--config`` and then ``--threshold``.

    The report's own metric names and ``--config`` pass the checks pytest applies, and a
    problem is named where it was given (``run.json (config.min_coverage)``,
    ``strict.yaml:3``, ``--threshold``).
    """
    check_report_metric_names(base, metrics, report)
    layers: list[SourceLayer] = [SourceLayer("the report", base.model_dump(mode="json"))]
    if config_file is not None:
        path = Path(config_file)
        if not path.is_file():
            raise CommandError(f"Config file {config_file} does not exist.")
        loaded = load_config(
            rootdir=path.resolve().parent,
            cli={},
            env={},
            config_path=str(path.resolve()),
            shown_as=config_file,
        )
        for warning in loaded.warnings:
            print(f"rag-gate: deprecated: {warning}", file=sys.stderr)
        check_metric_names(loaded.config, report_metric_names(metrics, base), loaded.sources)
        written = loaded.config.model_dump(mode="json", include=loaded.config.model_fields_set)
        layers.append(SourceLayer(config_file, written, loaded.sources.where))
    if thresholds:
        layers.append(SourceLayer("--threshold", {"thresholds": dict(thresholds)}))
    merged, _ = layer_settings([(layer.origin, layer.settings) for layer in layers])
    try:
        return GateConfig.model_validate(merged)
    except ValidationError as error:
        raise CommandError(describe_validation_error(error, SettingSources(layers))) from None


def _check_metric_names(
    thresholds: Sequence[tuple[str, float | str | None]], metrics: Sequence[str], report: str
) -> None:
    """A threshold for a metric the report does not hold is a typo, not a no-op."""
    for name, _ in thresholds:
        if name not in metrics:
            raise CommandError(
                f"{report} has no metric {name!r} (it has {', '.join(metrics)})"
                + did_you_mean(name, metrics)
            )


def _compare_with(
    path: str,
    results: Sequence[CaseResult],
    metrics: Sequence[str],
    config: GateConfig,
    judge: JudgeInfo,
) -> BaselineComparison:
    base = load_report(path)
    return compare_to_baseline(
        base.results,
        results,
        metrics,
        config,
        path=path,
        warnings=scoring_differences(base.metrics, metrics),
        base_judge=base.judge,
        new_judge=judge,
    )


def _print_and_publish(
    verdict: GateVerdict, results: Sequence[CaseResult], report: SavedReport
) -> None:
    """The summary as pytest prints it, then the step summary and annotations."""
    from ..reports.publish import Outputs, publish
    from ..settings.run_environment import RunEnvironment

    publish(
        verdict,
        Outputs(
            write=lambda line, _style: print(line),
            results=results,
            judge=report.judge,
            usage_by_metric=usage_by_metric(results),
            facts=report.facts,
            cache_mode=report.config.cache,
            rootdir=Path.cwd(),
            environ=RunEnvironment.capture().variables,
        ),
    )


def _timing(report: SavedReport) -> Mapping[str, Any]:
    timing = report.raw.get("timing")
    return timing if isinstance(timing, dict) else {}


def _write(
    output: str | None,
    *,
    files: Mapping[str, str],
    results: Sequence[CaseResult],
    verdict: GateVerdict,
    config: GateConfig,
    report: SavedReport,
    facts: RunFacts,
    wall_s: float,
    scoring_s: float,
    incomplete: bool,
    shard: Mapping[str, int] | None,
    extra: Mapping[str, Any],
    baseline: str | None = None,
) -> None:
    """The gated run's files, by the one path the plugin takes.

    The JSON report goes to ``output``; the JUnit, HTML and Markdown files to the paths
    ``-o KIND=PATH`` named.
    """
    from ..reports.json_report import baseline_report
    from ..reports.outputs import OutputFiles, RunOutcome, write_outputs

    base = baseline_report(report, baseline, best_effort=True) if files.get("html") else None
    outcome = RunOutcome(
        verdict=verdict,
        results=results,
        config=config,
        judge=report.judge,
        facts=facts,
        wall_s=wall_s,
        scoring_s=scoring_s,
        incomplete=incomplete,
        shard=shard,
        baseline=None if base is None else base.results,
        baseline_stamp=None if base is None else saved_stamp(base),
        stamp=saved_stamp(report),
        extra=extra,
    )
    outputs = OutputFiles(
        root=Path.cwd(),
        json=output,
        junit=files.get("junit"),
        html=files.get("html"),
        markdown=files.get("markdown"),
        history=files.get("history"),
        notice=_history_warning,
    )
    try:
        written = write_outputs(outcome, outputs)
    except OSError as error:
        name = error.filename or output
        raise CommandError(f"Cannot write {name}: {error.strerror or error}.") from None
    if written.history_added is not None:
        already = 1 - written.history_added
        print(
            f"rag-gate history: appended {written.history_added} run(s) to {files['history']}"
            + (f" ({already} already there)" if already else "")
        )


def _history_warning(notice: str) -> None:
    """A history line the gate skipped, on stderr as ``rag-gate history`` says it."""
    print(notice.replace("rag-gate history: ", "rag-gate history: warning: ", 1), file=sys.stderr)


def _shard(report: SavedReport) -> dict[str, int] | None:
    shard = report.raw.get("shard")
    if isinstance(shard, dict):
        return {"index": int(shard["index"]), "count": int(shard["count"])}
    return None


# --- commands -------------------------------------------------------------------------


def _check_output(output: str | None) -> None:
    """Refuse an output path that cannot be written, before any work (as the plugin does)."""
    if not output:
        return
    problem = output_path_problem(Path(output).absolute(), output)
    if problem is not None:
        raise CommandError(f"Cannot write {output}: {problem}.")


def _regate(arguments: argparse.Namespace) -> int:
    files: dict[str, str] = getattr(arguments, "files", {})
    for path in (arguments.output, *files.values()):
        _check_output(path)
    report = load_report(arguments.report)
    config = _settings(
        report.config, arguments.config, arguments.thresholds, report.metrics, arguments.report
    )
    _check_metric_names(arguments.thresholds, report.metrics, arguments.report)
    facts = report.facts
    if arguments.baseline is not None:
        comparison = _compare_with(
            arguments.baseline, report.results, report.metrics, config, report.judge
        )
        facts = facts.model_copy(update={"baseline": comparison})
    elif facts.baseline is not None and config.allow_judge_change:
        stored = facts.baseline.model_copy(update={"allow_pending": True})
        facts = facts.model_copy(update={"baseline": stored})
    verdict = evaluate_gate(report.results, report.metrics, config, facts)
    if arguments.output or files:
        timing = _timing(report)
        _write(
            arguments.output,
            files=files,
            baseline=arguments.baseline,
            results=report.results,
            verdict=verdict,
            config=config,
            report=report,
            facts=facts,
            wall_s=float(timing.get("wall_s", 0.0)),
            scoring_s=float(timing.get("scoring_s", 0.0)),
            incomplete=bool(report.raw.get("incomplete", False)),
            shard=_shard(report),
            # The same run gated again: it keeps the run's time, which with its commit is
            # what a history file knows a run by.
            extra={
                "regated_from": str(arguments.report),
                **_run_time(report),
            },
        )
    _print_and_publish(verdict, report.results, report)
    return EXIT_PASSED if verdict.passed else EXIT_FAILED


def _run_time(report: SavedReport) -> dict[str, Any]:
    stamp = report.raw.get("generated_at")
    return {"generated_at": stamp} if isinstance(stamp, str) and stamp else {}


def _compare(arguments: argparse.Namespace) -> int:
    base, new = load_report(arguments.base), load_report(arguments.new)
    check_report_metric_names(new.config, new.metrics, arguments.new)
    config = new.config
    if arguments.max_regression is not None:
        if not 0.0 <= arguments.max_regression <= 1.0:
            raise CommandError(
                f"--max-regression must be from 0 to 1, got {arguments.max_regression}."
            )
        config = config.model_copy(update={"max_regression": arguments.max_regression})
    if arguments.allow_judge_change:
        config = config.model_copy(update={"allow_judge_change": True})
    metrics = [metric for metric in new.metrics if metric in base.metrics]
    comparison = compare_to_baseline(
        base.results,
        new.results,
        metrics,
        config,
        path=arguments.base,
        warnings=scoring_differences(base.metrics, new.metrics),
        base_judge=base.judge,
        new_judge=new.judge,
    )
    for warning in comparison.warnings:
        print(f"rag-gate compare: warning: {warning}.", file=sys.stderr)
    lines = [f"{arguments.new} vs baseline {arguments.base}", ""]
    lines += [delta.message for delta in comparison.metrics.values()]
    # Newly failing is the gate's word, read off the outcomes it reaches with this baseline.
    gated_again = evaluate_gate(new.results, new.metrics, config, RunFacts(baseline=comparison))
    newly = gated_again.newly_failing
    # Regressed too: the outcome's word, never a second reading of the comparison.
    regressed = [outcome.metric for outcome in gated_again.outcomes if outcome.regressed]
    # A run whose judge failed measured nothing a change can be read from: never "No
    # regression" about it, whichever side it is.
    unjudged = [
        f"{side} {path} is an ERROR run (the judge gave no usable answer for some cases); "
        "its figures say nothing of a regression"
        for side, path, report in (
            ("report", arguments.new, new),
            ("baseline", arguments.base, base),
        )
        if report.raw.get("verdict") == "error"
    ]
    unjudged += [
        f"{outcome.metric} not judged in {arguments.new}: {outcome.reason or 'no score'}"
        for outcome in gated_again.outcomes
        if outcome.metric in metrics and outcome.status == "not_judged"
    ]

    pairs, _, _, _ = pair_cases(base.results, new.results)
    changes = [
        change
        for metric in metrics
        if metric not in comparison.not_compared_metrics
        for change in case_deltas(pairs, metric)
        if abs(change.delta) > 1e-9
    ]
    changes.sort(key=lambda change: (change.delta, change.case, change.metric))
    if changes:
        shown = changes[: max(arguments.cases, 0)]
        lines += ["", f"changed cases ({len(changes)} case-metric changes, largest drops first):"]
        lines += [
            f"  {change.case}  {change.metric}  {change.base:.2f} → {change.new:.2f} "
            f"(Δ {change.delta:+.2f})"
            for change in shown
        ]
        if len(changes) > len(shown):
            lines.append(f"  … and {len(changes) - len(shown)} more")
    for title, cases in (("new", comparison.new_cases), ("removed", comparison.removed_cases)):
        if cases:
            lines += ["", f"{title} cases ({len(cases)}):", *(f"  {case}" for case in cases)]
    lines += [
        "",
        f"{comparison.paired_cases} paired case(s), {len(comparison.new_cases)} new, "
        f"{len(comparison.removed_cases)} removed",
        *(["Regression: " + ", ".join(regressed)] if regressed else []),
        *comparison.not_evaluated_reasons,
        *unjudged,
        *(
            []
            if regressed or comparison.not_evaluated_reasons or unjudged
            else ["No regression" if not newly else "No significant drop"]
        ),
    ]
    if newly:
        lines.append("Newly failing since the baseline: " + ", ".join(newly))
    print("\n".join(lines))
    passed = comparison.passed and not regressed and not newly and not unjudged
    return EXIT_PASSED if passed else EXIT_FAILED


def _recorded_judges(report: SavedReport) -> dict[str, MetricJudge]:
    """Who scored each metric the shard scored at all; a metric needing no judge left out.

    A report written before the per-metric record says its run's judge for every metric
    it lists; a shard that scored no case records none.
    """
    recorded = dict(report.judge.metrics)
    if not recorded and report.results:
        recorded = dict.fromkeys(report.metrics, report.judge.run_judge)
    return {metric: judge for metric, judge in recorded.items() if judge.kind != NO_JUDGE}


def _merged_judge(reports: Sequence[SavedReport]) -> JudgeInfo:
    """The first shard's judge, with who scored each metric in any shard."""
    recorded: dict[str, MetricJudge] = {}
    for report in reports:
        for metric, judge in report.judge.metrics.items():
            if metric not in recorded or recorded[metric].kind == NO_JUDGE:
                recorded[metric] = judge
    return reports[0].judge.model_copy(update={"metrics": recorded})


def _check_compatible(reports: Sequence[SavedReport]) -> None:
    """Shards of one run share judge and settings; say exactly what differs.

    Only a metric two shards both had judged can differ: a shard that scored none of a
    metric's cases (or whose metric needs no judge) is compatible with any judge.
    """
    first = reports[0]
    reference = first.config.model_dump(mode="json")
    for other in reports[1:]:
        mine, theirs = _recorded_judges(first), _recorded_judges(other)
        changed = {
            metric: judged_line(str(other.path), theirs[metric], judge)
            for metric, judge in mine.items()
            if metric in theirs
            and (
                judged_differently(theirs[metric], judge)
                or judged_differently(judge, theirs[metric])
            )
        }
        line = next(iter(changed.values()), None)
        if line is not None:
            line = line.replace(", this run", f", {first.path}")
            raise CommandError(
                f"Cannot merge {first.path} with {other.path}: {line} ({', '.join(changed)}); "
                "shards must be scored by the same judge, model and prompt version."
            )
        settings = other.config.model_dump(mode="json")
        for key in reference:
            if key in OPERATIONAL_SETTINGS or reference[key] == settings.get(key):
                continue
            raise CommandError(
                f"Cannot merge {first.path} with {other.path}: setting {public_key(key)!r} differs "
                f"({reference[key]!r} vs {settings.get(key)!r}); shards must share settings."
            )


def _check_shards(reports: Sequence[SavedReport]) -> None:
    """Every shard of the split present once, or no shards at all."""
    shards: list[tuple[str, tuple[int, int] | None]] = []
    for report in reports:
        shard = _shard(report)
        shards.append(
            (str(report.path), None if shard is None else (shard["index"], shard["count"]))
        )
    sharded = [(path, shard) for path, shard in shards if shard is not None]
    if not sharded:
        return
    if len(sharded) != len(shards):
        whole = next(path for path, shard in shards if shard is None)
        raise CommandError(
            f"Cannot merge {whole}, a whole run, with shard reports; merge shards of one split."
        )
    counts = {count for _, (_, count) in sharded}
    if len(counts) > 1:
        raise CommandError(
            "Cannot merge shards of different splits: "
            + ", ".join(f"{path} is shard {i}/{n}" for path, (i, n) in sharded)
            + "."
        )
    count = counts.pop()
    seen: dict[int, str] = {}
    for path, (index, _) in sharded:
        if index in seen:
            raise CommandError(f"{seen[index]} and {path} are both shard {index}/{count}.")
        seen[index] = path
    missing = [f"{index}/{count}" for index in range(1, count + 1) if index not in seen]
    if missing:
        raise CommandError(
            f"Shard(s) {', '.join(missing)} missing: the merged gate would judge an "
            "incomplete golden set. Pass every shard's report."
        )


def _golden_set_line(report: SavedReport) -> str:
    """``a.json: golden.jsonl (12 cases)`` — the golden set a report's run collected."""
    ledger = report.facts.coverage
    files = {} if ledger is None else ledger.golden_set
    shown = ", ".join(f"{path} ({found.cases} cases)" for path, found in files.items())
    return f"{report.path}: {shown or 'no golden file'}"


def _check_golden_sets(reports: Sequence[SavedReport]) -> None:
    """Every report ran the same golden set (files and case ids), as shards of one split do.

    A report written before the fingerprint was recorded is not compared.
    """
    recorded = [
        report
        for report in reports
        if report.facts.coverage is not None and report.facts.coverage.golden_set
    ]
    if not recorded:
        return
    first = recorded[0]
    assert first.facts.coverage is not None
    for other in recorded[1:]:
        assert other.facts.coverage is not None
        if other.facts.coverage.golden_set == first.facts.coverage.golden_set:
            continue
        raise CommandError(
            f"Cannot merge {first.path} with {other.path}: they ran different golden sets "
            f"({_golden_set_line(first)}; {_golden_set_line(other)}), so they are no shards "
            "of one run and the merged gate would not be a verdict on either set. Merge the "
            "shards of one run, or pass --allow-different-sets to gate every case of both."
        )


def _merge(arguments: argparse.Namespace) -> int:
    files: dict[str, str] = getattr(arguments, "files", {})
    for path in (arguments.output, *files.values()):
        _check_output(path)
    reports = [load_report(path) for path in arguments.reports]
    _check_compatible(reports)
    _check_shards(reports)
    if not arguments.allow_different_sets:
        _check_golden_sets(reports)

    results: list[CaseResult] = []
    owner: dict[str, Path] = {}
    for report in reports:
        for result in report.results:
            key = result.key
            if key in owner:
                raise CommandError(
                    f"Case {result.id!r} of {result.file} is in both {owner[key]} and "
                    f"{report.path}: shard reports must not overlap."
                )
            owner[key] = report.path
            results.append(result)
    metrics = list(dict.fromkeys(metric for report in reports for metric in report.metrics))

    first = replace(reports[0], judge=_merged_judge(reports))
    config = _settings(
        first.config, arguments.config, arguments.thresholds, metrics, str(first.path)
    )
    _check_metric_names(arguments.thresholds, metrics, "the merged report")

    baseline_path = arguments.baseline
    if baseline_path is None and any(report.facts.baseline for report in reports):
        baseline_path = config.baseline
        if not baseline_path or not Path(baseline_path).is_file():
            raise CommandError(
                f"The shards were compared with the baseline {baseline_path}, which is not "
                "readable here; pass --baseline PATH so the merged run is compared as a whole."
            )
    comparison = None
    if baseline_path is not None:
        comparison = _compare_with(baseline_path, results, metrics, config, first.judge)
    facts = merge_facts(
        [report.facts for report in reports],
        baseline=comparison,
        different_sets=arguments.allow_different_sets,
    )
    verdict = evaluate_gate(results, metrics, config, facts)

    timings = [_timing(report) for report in reports]
    # Shards run side by side: the merged run took as long as its slowest shard.
    _write(
        arguments.output,
        files=files,
        baseline=baseline_path,
        results=results,
        verdict=verdict,
        config=config,
        report=first,
        facts=facts,
        wall_s=max(float(timing.get("wall_s", 0.0)) for timing in timings),
        scoring_s=max(float(timing.get("scoring_s", 0.0)) for timing in timings),
        incomplete=any(bool(report.raw.get("incomplete", False)) for report in reports),
        shard=None,
        extra={"merged_from": [str(report.path) for report in reports]},
    )
    print(f"merged {len(reports)} report(s), {len(results)} case(s) into {arguments.output}")
    _print_and_publish(verdict, results, first)
    return EXIT_PASSED if verdict.passed else EXIT_FAILED


def merge_facts(
    shards: Sequence[RunFacts],
    *,
    baseline: BaselineComparison | None,
    different_sets: bool = False,
) -> RunFacts:
    """The run facts of the whole run that the shards split between them.

    Every shard collected the whole golden set, so the merged run collected what the
    shards did; it is no longer a shard, and what any shard saw fail still fails it.
    """
    golden_files: dict[str, int | None] = {}
    for facts in shards:
        fold_golden_files(golden_files, facts.golden_files)
    return RunFacts(
        counted=all(facts.counted for facts in shards),
        case_files=shards[0].case_files,
        golden_files=golden_files,
        unreadable_files=list(
            dict.fromkeys(problem for facts in shards for problem in facts.unreadable_files)
        ),
        selection=list(dict.fromkeys(option for facts in shards for option in facts.selection)),
        shard=None,
        other_failures=list(
            dict.fromkeys(test for facts in shards for test in facts.other_failures)
        ),
        baseline=baseline,
        coverage=merge_ledgers([facts.coverage for facts in shards], different_sets=different_sets),
        # Each shard's cache checked its own entries; all shards compared the same commits.
        cache_integrity=_summed_integrity([facts.cache_integrity for facts in shards]),
        gate_changes=next((f.gate_changes for f in shards if f.gate_changes is not None), None),
        scored_by=_merged_scored_by([facts.scored_by for facts in shards]),
    )


def _merged_scored_by(shards: Sequence[dict[str, str | None]]) -> dict[str, str | None]:
    """Per metric, its shards' judge; a heuristic in any shard is the merged run's."""
    merged: dict[str, str | None] = {}
    for scored in shards:
        for metric, kind in scored.items():
            if metric not in merged or kind in HEURISTIC_JUDGES:
                merged[metric] = kind
    return merged


def _summed_integrity(shards: Sequence[CacheIntegrity | None]) -> CacheIntegrity | None:
    known = [integrity for integrity in shards if integrity is not None]
    if not known:
        return None
    total = known[0]
    for integrity in known[1:]:
        total = total.plus(integrity)
    return total


def saved_outcome(report: SavedReport, base_ref: str | None = None) -> RunOutcome:
    """A saved report gated as it was, with what ``base_ref`` changes in the gate's inputs."""
    from ..reports.gate_inputs import changes_in_report_scope
    from ..reports.outputs import RunOutcome
    from ..settings.run_environment import GitReader

    facts = report.facts
    if base_ref:
        changes = changes_in_report_scope(report, base_ref, Path.cwd(), GitReader())
        facts = facts.model_copy(update={"gate_changes": changes})
    timing = _timing(report)
    return RunOutcome(
        verdict=evaluate_gate(report.results, report.metrics, report.config, report.facts),
        results=report.results,
        config=report.config,
        judge=report.judge,
        facts=facts,
        wall_s=float(timing.get("wall_s", 0.0)),
        scoring_s=float(timing.get("scoring_s", 0.0)),
        incomplete=bool(report.raw.get("incomplete", False)),
        shard=_shard(report),
        stamp=saved_stamp(report),
    )


def _summary(arguments: argparse.Namespace) -> int:
    from ..reports.outputs import markdown_summary

    report = load_report(arguments.report)
    outcome = saved_outcome(report, arguments.base_ref)
    sys.stdout.write(markdown_summary(outcome, html_report=bool(report.config.html)))
    # Printing is not gating: `rag-gate render r.json >> "$GITHUB_STEP_SUMMARY"` must not
    # stop a `set -e` script; regate is the command whose status follows the verdict.
    return EXIT_PASSED


def _html(arguments: argparse.Namespace) -> int:
    from ..reports.html import write_saved_report_html

    _check_output(arguments.output)
    if arguments.baseline is not None:
        from .report_commands import check_render_baseline

        check_render_baseline(arguments.report, arguments.baseline)
    history: list[HistoryEntry] = []
    path = arguments.history or load_report(arguments.report).config.history
    if path and (arguments.history or Path(path).is_file()):
        history, warnings = read_history(path)
        print_history_warnings("rag-gate render", warnings)
    saved = write_saved_report_html(
        arguments.report, arguments.output, baseline=arguments.baseline, history=history
    )
    print(f"wrote {arguments.output}: {len(saved.results)} case(s), verdict {saved.raw['verdict']}")
    # Writing a page is not gating: like summary, it succeeds whatever the verdict.
    return EXIT_PASSED
