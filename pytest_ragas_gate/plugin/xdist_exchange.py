"""The xdist result exchange: which worker scores which case, and how results reach the others.

Under pytest-xdist each worker collects every case; worker *k* of *N* scores the units
``k, k+N, …`` (a conversation's turns are one unit) and publishes its results in a run
directory the workers share, so each case is judged exactly once whichever worker ends up
running its item. What a worker knows beyond its results (collection counts, census,
scoring time, a usage stop, its judge cache's integrity) reaches the controller through
xdist's ``workeroutput`` under the keys below.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ..atomic_files import write_text_atomic
from ..scoring.results import CaseResult
from ..text_safety import json_text
from .items import CaseItem

__all__ = [
    "STALLED_WORKER_S",
    "USAGE_STOP_KEY",
    "WORKER_CENSUS_KEY",
    "WORKER_INTEGRITY_KEY",
    "WORKER_OUTPUT_KEY",
    "WORKER_SCORING_KEY",
    "WorkerInfo",
    "hand_over",
    "is_controller",
    "publish_results",
    "run_dir_of",
    "unit_positions",
    "wait_for_results",
]

#: The key under which an xdist worker hands a usage stop (strict_labels) to the controller.
USAGE_STOP_KEY = "rag_gate_usage_stop"

#: The key under which an xdist worker hands its collection counts to the controller.
WORKER_OUTPUT_KEY = "rag_gate_golden_files"
#: The keys under which a worker hands over its census of golden files and its scoring time.
WORKER_CENSUS_KEY = "rag_gate_census"
WORKER_SCORING_KEY = "rag_gate_scoring_s"
#: The key under which a worker hands over what its judge cache verified, rejected, signed.
WORKER_INTEGRITY_KEY = "rag_gate_cache_integrity"

# How long a worker waits for another worker's results before it gives up on them; the
# clock restarts whenever the other worker shows progress, so slow judges are fine.
STALLED_WORKER_S = 300.0


def unit_positions(items: Sequence[CaseItem]) -> list[int]:
    """Each item's unit number: a conversation's turns share one, so one worker scores them.

    A live conversation replays its turns in order, each after the target answered the
    ones before it; split across workers, a turn would wait for an answer elsewhere.
    """
    conversations: dict[tuple[str, str], int] = {}
    positions: list[int] = []
    units = 0
    for item in items:
        case = item.case
        key = None if case.conversation is None else (case.file, case.conversation)
        if key is not None and key in conversations:
            positions.append(conversations[key])
            continue
        if key is not None:
            conversations[key] = units
        positions.append(units)
        units += 1
    return positions


def run_dir_of(testrunuid: str) -> Path:
    """The directory the workers of one xdist run share."""
    return Path(tempfile.gettempdir()) / f"rag-gate-{testrunuid}"


@dataclass
class WorkerInfo:
    """This process's place in an xdist run (``index`` 0 of ``count`` 1 when serial)."""

    index: int = 0
    count: int = 1
    worker_id: str | None = None
    run_dir: Path | None = None

    @classmethod
    def of(cls, config: pytest.Config) -> WorkerInfo:
        """Read xdist's worker input, if this process is an xdist worker."""
        workerinput: Mapping[str, Any] | None = getattr(config, "workerinput", None)
        if workerinput is None:
            return cls()
        worker_id = str(workerinput["workerid"])
        run_dir = run_dir_of(str(workerinput["testrunuid"]))
        run_dir.mkdir(parents=True, exist_ok=True)
        digits = worker_id.removeprefix("gw")
        return cls(
            index=int(digits) if digits.isdigit() else -1,
            count=int(workerinput["workercount"]),
            worker_id=worker_id,
            run_dir=run_dir,
        )

    @property
    def is_worker(self) -> bool:
        """Whether this is an xdist worker (not the controller or a serial run)."""
        return self.worker_id is not None


def is_controller(config: pytest.Config) -> bool:
    """Whether this process is an xdist controller (it runs no collection of its own)."""
    return config.pluginmanager.has_plugin("dsession")


def hand_over(
    config: pytest.Config,
    golden_files: Mapping[str, int | None],
    scoring_s: float,
    usage_stop: str | None,
) -> None:
    """Give the xdist controller this worker's collection counts, scoring time, usage stop."""
    output: dict[str, Any] | None = getattr(config, "workeroutput", None)
    if output is not None:
        output[WORKER_OUTPUT_KEY] = dict(golden_files)
        output[WORKER_SCORING_KEY] = scoring_s
        if usage_stop is not None:
            output[USAGE_STOP_KEY] = usage_stop


def publish_results(run_dir: Path, worker_id: str, results: Mapping[str, CaseResult]) -> None:
    """Publish a worker's scored results where the other workers wait for them."""
    payload = {nodeid: result.model_dump(mode="json") for nodeid, result in results.items()}
    # The temporary name holds no "-gw", which would make waiting workers read it.
    write_text_atomic(
        run_dir / f"results-{worker_id}.json",
        json_text(payload),
        durable=False,
        temporary_prefix=".results.",
    )


def wait_for_results(run_dir: Path, nodeid: str) -> dict[str, CaseResult]:
    """Wait until some worker publishes ``nodeid``'s result; gives up on a stalled run."""
    seen: dict[str, int] = {}
    last_change = time.monotonic()
    while True:
        for path in sorted(run_dir.glob("*-gw*")):
            stamp = path.stat().st_mtime_ns
            if seen.get(path.name) == stamp:
                continue
            seen[path.name] = stamp
            last_change = time.monotonic()
            if not path.name.startswith("results-"):
                continue
            data = json.loads(path.read_text(encoding="utf-8"))
            if nodeid in data:
                return {key: CaseResult.model_validate(value) for key, value in data.items()}
        if time.monotonic() - last_change > STALLED_WORKER_S:
            return {}
        time.sleep(0.05)
