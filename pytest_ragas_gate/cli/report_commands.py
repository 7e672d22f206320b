"""``rag-gate gate`` and ``rag-gate render``: gating and showing saved reports.

``gate REPORT`` applies the gate again to one report; ``gate REPORT REPORT…`` merges the
reports of a sharded run first; ``--history PATH`` appends the gated run to a history
file. ``render REPORT --format markdown|html`` prints the Markdown summary or writes the
HTML page. The old command names (``regate``, ``merge``, ``summary``, ``html``,
``history``, ``agreement``) stay as hidden aliases, each with a deprecation line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..command_line import EXIT_PASSED
from ..exceptions import CommandError
from ..settings.config_sections import REMOVED_IN
from ..settings.options import parse_threshold

__all__ = ["OLD_COMMANDS", "check_render_baseline", "register_commands", "warn_old_command"]

#: Each old command name and what to write now.
OLD_COMMANDS: dict[str, str] = {
    "regate": "rag-gate gate REPORT",
    "merge": "rag-gate gate REPORT REPORT… -o OUT",
    "summary": "rag-gate render REPORT --format markdown",
    "html": "rag-gate render REPORT --format html -o OUT",
    "history": "rag-gate gate REPORT --history PATH",
    "agreement": "rag-gate label agreement REPORT",
}


def warn_old_command(command: str) -> None:
    """Say, on stderr, that an old command name goes and what replaces it."""
    if command in OLD_COMMANDS:
        print(
            f"rag-gate {command}: warning: this command name is deprecated and goes in "
            f"{REMOVED_IN}: use {OLD_COMMANDS[command]}",
            file=sys.stderr,
        )


#: The files ``rag-gate gate -o KIND=PATH`` writes besides the JSON report.
FILE_KINDS = ("json", "junit", "html", "markdown")


def output_files(values: list[str]) -> tuple[str | None, dict[str, str]]:
    """The JSON report's path and the other files, from ``-o OUT`` / ``-o KIND=PATH``.

    >>> output_files(["out.json", "junit=out.xml"])
    ('out.json', {'junit': 'out.xml'})

    Raises:
        CommandError: A kind is named twice, or a path is empty.
    """
    files: dict[str, str] = {}
    for value in values:
        kind, equals, path = value.partition("=")
        if not equals or kind not in FILE_KINDS:
            kind, path = "json", value
        if not path:
            raise CommandError(f"-o {value}: give a path after {kind}=.")
        if kind in files:
            raise CommandError(
                f"-o {value}: {kind} is already written to {files[kind]}; name each kind once."
            )
        files[kind] = path
    return files.pop("json", None), files


def gate_settings_options(parser: argparse.ArgumentParser) -> None:
    """``--threshold`` and ``--config``, the gate settings laid over a report's."""
    threshold_option(parser)
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="a rag_gate.yaml whose gate settings replace the report's (thresholds, rules, "
        "tag_thresholds, max_error_rate, ...)",
    )


def threshold_option(parser: argparse.ArgumentParser) -> None:
    """``--threshold METRIC=VALUE``, repeatable, in the one threshold grammar."""
    parser.add_argument(
        "--threshold",
        dest="thresholds",
        action="append",
        type=parse_threshold,
        default=[],
        metavar="METRIC=VALUE",
        help="threshold of a metric (METRIC=VALUE, METRIC>=VALUE or METRIC<=VALUE; "
        "METRIC=null leaves it ungated); repeatable; overrides the report's and --config's",
    )


def register_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``gate`` and ``render`` to the ``rag-gate`` parser, each with its ``handler``."""
    gate = commands.add_parser(
        "gate",
        help="gate saved reports again: one re-gates, several (shards) merge",
        description="Apply the gate again to a saved report, with no judge calls, e.g. with "
        "new thresholds; given the reports of a sharded run (--rag-gate-shard K/N), merge "
        "them into one report and gate the whole. Merged reports must share judge and "
        "settings, every shard must be present once, and no case may appear twice. A "
        "stored baseline comparison still counts unless --baseline names another report.",
    )
    gate.add_argument("reports", nargs="+", metavar="REPORT", help="JSON reports")
    gate_settings_options(gate)
    gate.add_argument(
        "--baseline",
        metavar="PATH",
        help="compare with this report instead (default: the report's or shards' baseline)",
    )
    gate.add_argument(
        "-o",
        "--output",
        action="append",
        default=[],
        metavar="OUT",
        help="write the gated JSON report here (required when merging); repeatable as "
        "KIND=PATH for the other files the plugin writes (" + ", ".join(FILE_KINDS) + "), "
        "written as pytest --rag-gate-output KIND=PATH writes them",
    )
    gate.add_argument(
        "--allow-different-sets",
        action="store_true",
        help="merging: accept reports of different golden sets (by default refused: shards "
        "of one split record the same golden-set fingerprint); the merged run holds every case",
    )
    gate.add_argument(
        "--history",
        metavar="PATH",
        help="append the gated run to this history file (JSON Lines); the HTML page and "
        "the pull-request comment draw each metric's trend from it",
    )
    gate.set_defaults(handler=_gate)

    render = commands.add_parser(
        "render",
        help="print a report's Markdown summary or write its HTML page",
        description="Render a saved report (merged shard reports included): markdown "
        "prints the summary as written to the GitHub step summary (or writes it to -o "
        "OUT); html writes one self-contained page, with no network access, to open from "
        "disk or a CI artifact. Rendering is not gating: it exits 0 whatever the verdict.",
    )
    render.add_argument("report", metavar="REPORT", help="a JSON report")
    render.add_argument(
        "--format",
        choices=("markdown", "html"),
        default=None,
        help="markdown or html (default: html when OUT ends in .html, else markdown)",
    )
    render.add_argument("-o", "--output", metavar="OUT", help="the file to write")
    render.add_argument(
        "--baseline",
        metavar="PATH",
        help="html: where the baseline the report was gated against is now, for per-case "
        "deltas (default: the report's own baseline, when its file is still there); another "
        "baseline is refused: compare with rag-gate gate --baseline",
    )
    render.add_argument(
        "--history",
        metavar="PATH",
        help="html: a run history file, to draw each gated metric's trend (default: the "
        "report's history setting, when its file is there)",
    )
    render.add_argument(
        "--base-ref",
        metavar="REF",
        help="markdown: list what the checked-out commit changes in the gate's inputs "
        "against REF (default: the list in the report, written when GITHUB_BASE_REF was set)",
    )
    render.set_defaults(handler=_render)


def _gate(arguments: argparse.Namespace) -> int:
    from . import _merge, _regate

    output, files = output_files(arguments.output)
    if arguments.history:
        files["history"] = arguments.history
    regated = bool(arguments.thresholds or arguments.config or arguments.baseline)
    if arguments.history and not output and regated:
        raise CommandError(
            "--history records the gated run: with --threshold, --config or --baseline, "
            "write it with -o OUT too."
        )
    common = {
        "thresholds": arguments.thresholds,
        "config": arguments.config,
        "baseline": arguments.baseline,
        "output": output,
        "files": files,
    }
    if len(arguments.reports) == 1:
        status = _regate(argparse.Namespace(report=arguments.reports[0], **common))
    else:
        if not output:
            raise CommandError(
                f"Merging {len(arguments.reports)} reports: name the merged report with -o OUT."
            )
        status = _merge(
            argparse.Namespace(
                reports=arguments.reports,
                allow_different_sets=arguments.allow_different_sets,
                **common,
            )
        )
    return status


def _render(arguments: argparse.Namespace) -> int:
    from . import _html, _summary

    form = arguments.format
    if form is None:
        suffix = Path(arguments.output).suffix.lower() if arguments.output else ""
        form = "html" if suffix in (".html", ".htm") else "markdown"
    if form == "html":
        if not arguments.output:
            raise CommandError("render --format html writes a file: name it with -o OUT.")
        return _html(arguments)
    if arguments.baseline is not None:
        check_render_baseline(arguments.report, arguments.baseline)
    if not arguments.output:
        return _summary(arguments)
    from ..reports.json_report import load_report
    from ..reports.outputs import OutputFiles, write_outputs
    from . import _check_output, saved_outcome

    _check_output(arguments.output)
    report = load_report(arguments.report)
    outputs = OutputFiles(
        root=Path.cwd(), markdown=arguments.output, html_report=bool(report.config.html)
    )
    try:
        write_outputs(saved_outcome(report, arguments.base_ref), outputs)
    except OSError as error:
        raise CommandError(f"Cannot write {arguments.output}: {error.strerror or error}.") from None
    print(f"wrote {arguments.output}")
    return EXIT_PASSED


def check_render_baseline(report_path: str, baseline: str) -> None:
    """Refuse a ``--baseline`` other than the one the report's verdict was reached against.

    Rendering shows the report's saved decision; beside per-case deltas against another
    baseline, its "regressed" and "newly failing" would be about a comparison the page
    does not show. Comparing anew is gating, which ``rag-gate gate --baseline`` does.
    """
    from ..reports.json_report import load_report

    report = load_report(report_path)
    stored = report.facts.baseline
    given = Path(baseline)
    if not given.is_file():
        raise CommandError(f"Baseline {baseline} does not exist.")
    if stored is not None:
        for candidate in (Path(stored.path), report.path.parent / stored.path):
            if candidate.is_file() and candidate.samefile(given):
                return
    against = "without a baseline" if stored is None else f"against {stored.path}"
    raise CommandError(
        f"{report_path} was gated {against}; render shows that decision and cannot compare "
        f"it with {baseline}. Gate it against {baseline} first: rag-gate gate {report_path} "
        f"--baseline {baseline} -o OUT.json (add -o html=PAGE.html for the page)."
    )
