"""``rag-gate history REPORT… -o history.jsonl``: saved reports into the run history.

For a team that keeps its reports as CI artifacts rather than running with
``outputs.history``: each report becomes one line (time, commit, verdict, per-metric
mean/CI/n), appended in the order the runs happened; a run already in the file is not added
twice. See :mod:`pytest_ragas_gate.reports.history`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..command_line import EXIT_PASSED
from ..reports.history import append_history, entry_from_report, read_history
from ..reports.json_report import load_report

__all__ = ["append_reports", "print_history_warnings", "register_command"]


def register_command(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``history`` to the ``rag-gate`` parser, with its ``handler``."""
    # No help: an old name, hidden from the command list (rag-gate gate --history).
    history = commands.add_parser(
        "history",
        description="Append one compact JSON line per report (time, commit, verdict, "
        "per-metric mean, interval and n) to a history file, oldest run first. A run already "
        "in the file is skipped; lines of the file that are not history entries are kept "
        "and named in a warning. The HTML report (rag-gate render --history) and the "
        "pull-request comment draw each gated metric's trend from it.",
    )
    history.add_argument("reports", nargs="+", metavar="REPORT", help="JSON reports")
    history.add_argument(
        "-o", "--output", required=True, metavar="OUT", help="the history file to append to"
    )
    history.set_defaults(handler=_history)


def print_history_warnings(command: str, warnings: list[str]) -> None:
    """Each skipped line of a history file, on stderr."""
    for warning in warnings:
        print(f"{command}: warning: {warning}", file=sys.stderr)


def _history(arguments: argparse.Namespace) -> int:
    append_reports(arguments.reports, arguments.output)
    return EXIT_PASSED


def append_reports(reports: list[str], output: str) -> None:
    """Append one entry per report to the history file ``output``, oldest run first."""
    entries = [entry_from_report(load_report(path).raw) for path in reports]
    entries.sort(key=lambda entry: entry.time)
    _, warnings = read_history(output)
    print_history_warnings("rag-gate history", warnings)
    added = append_history(output, entries)
    already = len(entries) - added
    print(
        f"rag-gate history: appended {added} run(s) to {output}"
        + (f" ({already} already there)" if already else "")
    )
