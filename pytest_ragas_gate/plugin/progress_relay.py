"""The progress line of an xdist run, shown by the controller as a serial run shows its own.

Workers score their cases before running any item, so the controller hears nothing from
them while the judge works. Each worker already writes a heartbeat file in the run
directory the workers share (so that others waiting for its results see it alive); the
heartbeat holds its running totals, and the controller sums them into one line.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ..atomic_files import write_text_atomic
from ..scoring.scheduler import Progress

#: How often the controller reads the workers' heartbeats.
_POLL_S = 0.2
_HEARTBEAT_PREFIX = "heartbeat-"


def heartbeat_path(run_dir: Path, worker_id: str) -> Path:
    """Where worker ``worker_id`` writes its running totals."""
    return run_dir / f"{_HEARTBEAT_PREFIX}{worker_id}"


def write_heartbeat(path: Path, progress: Progress) -> None:
    """A worker's running totals, replaced whole so a reader never sees half of them."""
    totals = {
        "total_cases": progress.total_cases,
        "cases_done": progress.cases_done,
        "judge_calls": progress.judge_calls,
        "retries": progress.retries,
        "cache_hits": progress.cache_hits,
        "errors": progress.errors,
    }
    # The temporary name holds no "-gw", which would make waiting workers read it.
    write_text_atomic(path, json.dumps(totals), durable=False, temporary_prefix=".progress.")


def summed_progress(run_dir: Path, started: float) -> tuple[Progress, int]:
    """The workers' totals summed, and how many workers have written any."""
    summed = Progress(total_cases=0, started=started)
    workers = 0
    for path in sorted(run_dir.glob(f"{_HEARTBEAT_PREFIX}*")):
        try:
            totals = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(totals, dict):
            continue
        workers += 1
        for name in ("total_cases", "cases_done", "judge_calls", "retries", "cache_hits", "errors"):
            value = totals.get(name)
            if isinstance(value, int):
                setattr(summed, name, getattr(summed, name) + value)
    return summed, workers


class ProgressRelay:
    """A daemon thread on the controller: the workers' summed progress, shown as it changes.

    It stops once every worker has scored all its cases, or when :meth:`stop` is called
    (the session ended first, e.g. a worker crashed).
    """

    def __init__(self, run_dir: Path, workers: int, show: Callable[[Progress], None]) -> None:
        self._run_dir = run_dir
        self._workers = workers
        self._show = show
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._relay, name="rag-gate-progress", daemon=True)

    def start(self) -> None:
        """Start relaying."""
        self._thread.start()

    def stop(self) -> None:
        """Stop relaying, and wait for the thread so no line is printed after the summary."""
        self._stopped.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2 * _POLL_S)

    def _relay(self) -> None:
        shown: tuple[int, ...] | None = None
        started: float | None = None
        while True:
            stopping = self._stopped.wait(_POLL_S)
            # The clock starts with the first heartbeat: starting workers is not scoring.
            progress, reporting = summed_progress(self._run_dir, started or time.monotonic())
            if reporting and started is None:
                started = progress.started
            totals = (
                progress.cases_done,
                progress.total_cases,
                progress.judge_calls,
                progress.cache_hits,
                progress.errors,
            )
            # Until every worker has written, a sum would show a total that still grows.
            complete = reporting >= self._workers
            if complete and totals != shown:
                shown = totals
                self._show(progress)
            # A fast run can end between two polls: the last read above still shows it.
            if stopping or (complete and progress.cases_done >= progress.total_cases):
                return
