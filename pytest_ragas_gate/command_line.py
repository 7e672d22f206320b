"""What every ``rag-gate`` command shares: its exit statuses, its parser and its error path.

``rag-gate`` (regate, compare, merge, summary, html, agreement, label, synth) and the PR
comment command all exit as pytest does for the same outcome, and an error of this
package's own (:class:`~pytest_ragas_gate.exceptions.RagGateError`) is one line on
stderr and exit 4, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import NoReturn

from .exceptions import RagGateError

__all__ = ["EXIT_FAILED", "EXIT_PASSED", "EXIT_USAGE", "CommandParser", "run_guarded"]

#: The gate passed, or the command did what was asked.
EXIT_PASSED = 0
#: The gate failed, or a comparison regressed.
EXIT_FAILED = 1
#: A bad command line, setting or input file (pytest's usage-error status).
EXIT_USAGE = 4


class CommandParser(argparse.ArgumentParser):
    """An argument parser whose usage errors exit 4, as pytest's do."""

    def error(self, message: str) -> NoReturn:
        """Print the usage and the problem, and exit with :data:`EXIT_USAGE`."""
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def run_guarded(command: str, handler: Callable[[], int]) -> int:
    r"""``handler``'s exit status; an error of this package's own becomes exit 4.

    Args:
        command: The command as the user typed it (``rag-gate label import``), which
            opens the line on stderr.
        handler: Runs the command and returns its exit status.

    Returns:
        The exit status.

    >>> from pytest_ragas_gate.exceptions import ReportError
    >>> def broken() -> int:
    ...     raise ReportError("The report r.json is not JSON.")
    >>> import contextlib, io
    >>> with contextlib.redirect_stderr(io.StringIO()) as stderr:
    ...     status = run_guarded("rag-gate regate", broken)
    >>> status, stderr.getvalue()
    (4, 'rag-gate regate: The report r.json is not JSON.\n')
    """
    try:
        return handler()
    except RagGateError as error:
        print(f"{command}: {error}", file=sys.stderr)
        return EXIT_USAGE
