"""Signals that end a gate run: the first stops the judge and keeps every case, the second exits.

SIGINT (Ctrl-C, a cancelled CI job) and SIGTERM (a runner's timeout, ``kill``) are handled
alike, in a serial run, on the xdist controller and on each worker. The first signal stops
the scoring cooperatively: the requests in flight are cancelled, the judge is closed, every
unscored case becomes an ``interrupted`` error and the reports are written, marked
incomplete. Outside the scoring it ends the run as Ctrl-C always did (a ``KeyboardInterrupt``
pytest reports as exit 2), and once the reports are being written it is only noted. A
second signal exits at once: the cache stays whole, since every entry is written to a
temporary file and renamed.

A GitHub Actions job that is cancelled receives SIGINT, then SIGTERM 7.5 s later, then
SIGKILL: the reports must be on disk before the SIGTERM.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

__all__ = ["INTERRUPTED_EXIT", "Cancellation"]

#: pytest's exit status for an interrupted run, which a second signal exits with too.
INTERRUPTED_EXIT = 2

_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM") if hasattr(signal, name))


class Cancellation:
    """This process's signal handling for one gate run; installed from the main thread."""

    def __init__(self) -> None:
        #: Why the run stops (``SIGINT``, ``SIGTERM`` or what another process said), once it does.
        self.reason: str | None = None
        #: ``time.monotonic()`` of the first signal or stop request.
        self.requested_at: float | None = None
        #: Called once with the reason, on the first signal or stop request.
        self.on_request: Callable[[str], None] | None = None
        self._stop_scoring: Callable[[], None] | None = None
        self._finishing = False
        self._previous: dict[int, Any] = {}

    @property
    def requested(self) -> bool:
        """Whether a signal (or another process of the run) asked the run to stop."""
        return self.reason is not None

    def install(self) -> None:
        """Handle SIGINT and SIGTERM; a signal this process was started ignoring stays ignored."""
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in _SIGNALS:
            previous = signal.getsignal(signum)
            if previous == signal.SIG_IGN:
                # A job started in the background by a shell ignores Ctrl-C on purpose.
                continue
            try:
                signal.signal(signum, self._handle)
            except (OSError, ValueError):
                continue
            self._previous[signum] = previous

    def restore(self) -> None:
        """Give the signals back the handlers they had before :meth:`install`."""
        if threading.current_thread() is not threading.main_thread():
            return
        for signum, previous in self._previous.items():
            try:
                signal.signal(signum, previous)
            except (OSError, ValueError, TypeError):
                continue
        self._previous.clear()

    def request(self, reason: str) -> None:
        """Note that the run stops, and why; the first request only counts."""
        if self.reason is not None:
            return
        self.reason = reason
        self.requested_at = time.monotonic()
        if self.on_request is not None:
            self.on_request(reason)

    @contextmanager
    def scoring(self, stop: Callable[[], None]) -> Iterator[None]:
        """While the cases are scored, the first signal calls ``stop`` instead of raising."""
        self._stop_scoring = stop
        try:
            yield
        finally:
            self._stop_scoring = None

    def finishing(self) -> None:
        """The reports are being written: a first signal from now on is only noted."""
        self._finishing = True

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        if self.reason is not None:
            sys.stderr.write(
                f"\nrag-gate: {name} after {self.reason}: exiting at once, without the "
                "reports (the judge cache stays whole)\n"
            )
            sys.stderr.flush()
            os._exit(INTERRUPTED_EXIT)
        self.request(name)
        if self._finishing:
            return
        if self._stop_scoring is not None:
            self._stop_scoring()
            return
        raise KeyboardInterrupt(name)
