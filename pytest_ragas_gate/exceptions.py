"""Errors raised by pytest-ragas-gate.

The hierarchy::

    RagGateError
    ├── UsageError            bad command line, config or golden file: pytest exits 4
    │   ├── ConfigError       an invalid setting, naming the key and the source file
    │   ├── GoldenFileError   a golden file that cannot be read at all
    │   └── CommandError      a rag-gate command cannot do what was asked: exit 4
    ├── CaseError             one malformed case: its item errors, the others still run
    │   └── TargetFailed      live mode: the target raised, hung or gave no answer
    ├── InvalidMetricResult   a metric returned no score (12.0, NaN, a bare float): it errors
    ├── JudgeError            a judge request failed for good: that case's metric errors
    │   ├── JudgeReplyError   the judge kept answering with an invalid reply
    │   └── BudgetExceeded    max_calls / max_cost reached before the request was sent
    ├── ReportError           a saved report that cannot be read or combined
    └── CommentError          the PR comment was not posted: a warning, never a failed step

Every message is a full sentence that names the file, line, field or request at fault
and what to do about it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .usage import Usage


class RagGateError(Exception):
    """Base class of every error this package raises on purpose."""


class UsageError(RagGateError):
    """The command line, the configuration or an input file is wrong; pytest exits 4."""


class ConfigError(UsageError):
    """An invalid configuration value."""


class GoldenFileError(UsageError):
    """A golden file that cannot be read at all (bad syntax, bad encoding, bad shape)."""


class CommandError(UsageError):
    """A problem the user of a ``rag-gate`` command must fix; one line on stderr, exit 4."""


class CaseError(RagGateError):
    """One golden case is malformed; it becomes an errored item and the others still run."""


class InvalidMetricResult(RagGateError):
    """A metric returned something that is not a score: an error of that case's metric."""


class TargetFailed(CaseError):
    """A live target's call for one case failed: it raised, timed out or gave no answer.

    Attributes:
        seconds: how long the failed call took, so latency figures count it; None when
            the call never started.
    """

    def __init__(self, message: str, *, seconds: float | None = None) -> None:
        super().__init__(message)
        self.seconds = seconds


class JudgeError(RagGateError):
    """A judge request failed after every retry; the metric of that case is an error.

    Attributes:
        usage: what the failed request spent (attempts, retries, tokens of rejected
            replies), so that reports count every call the judge API saw; None when
            nothing was sent.
    """

    def __init__(self, message: str, *, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.usage = usage


class JudgeReplyError(JudgeError):
    """The judge's reply stayed invalid after the bounded re-asks."""


class BudgetExceeded(JudgeError):
    """The run's max_calls or max_cost budget is spent; unscored cases are errors."""


class ReportError(RagGateError):
    """A saved JSON report is unreadable, of an unknown schema, or cannot be combined."""


class CommentError(RagGateError):
    """The PR comment could not be posted; the message says why, for a warning annotation."""
