"""The xdist result exchange: which worker scores which case, and how results reach the others.

Under pytest-xdist each worker collects every case; worker *k* of *N* scores the units
``k, k+N, …`` (a conversation's turns are one unit) and publishes its results in a run
directory the workers share, so each case is judged exactly once whichever worker ends up
running its item. What a worker knows beyond its results (collection counts, census,
scoring time, a usage stop, its judge cache's integrity) reaches the controller through
xdist's ``workeroutput`` under the keys below.

Runs that end badly go through the run directory too. Before scoring, each worker writes
its *share*: the cases it scores, as results not yet scored, with the collection counts
and census, so that the controller can account for every case even when a worker dies
(``kill -9``, out of memory) or is stopped before it reports. A signal writes a *stop*
marker, which every worker polls while it scores; a worker the controller saw crash gets
a *lost* marker, so that the others stop waiting for its results at once.
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
    "Share",
    "hand_over",
    "is_controller",
    "mark_lost",
    "publish_results",
    "publish_share",
    "published_results",
    "read_shares",
    "request_stop",
    "run_dir_of",
    "stop_requested",
    "unit_positions",
    "wait_for_results",
    "wait_for_workers",
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


def wait_for_results(
    run_dir: Path, nodeid: str, owner: str | None = None
) -> tuple[dict[str, CaseResult], bool]:
    """Wait until some worker publishes ``nodeid``'s result; gives up on a stalled run.

    Returns the results found (empty when none came) and whether ``owner``, the worker
    that scores ``nodeid``, was lost: then waiting longer is pointless.
    """
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
                return {key: CaseResult.model_validate(value) for key, value in data.items()}, False
        if owner is not None and _lost_path(run_dir, owner).exists():
            return {}, True
        if time.monotonic() - last_change > STALLED_WORKER_S:
            return {}, False
        time.sleep(0.05)


# The markers' names hold no "-gw", which would make waiting workers read them as results.
_STOP_NAME = "stop"
_SHARE_PREFIX = "share."
_LOST_PREFIX = "lost."


def _lost_path(run_dir: Path, worker_id: str) -> Path:
    return run_dir / f"{_LOST_PREFIX}{worker_id}"


def request_stop(run_dir: Path, reason: str) -> None:
    """Ask every worker of the run to stop scoring (a signal reached one process)."""
    path = run_dir / _STOP_NAME
    if not path.exists():
        write_text_atomic(path, reason, durable=False, temporary_prefix=".stop.")


def stop_requested(run_dir: Path) -> str | None:
    """Why the run was asked to stop, or None."""
    try:
        return (run_dir / _STOP_NAME).read_text(encoding="utf-8").strip() or "a signal"
    except OSError:
        return None


def mark_lost(run_dir: Path, worker_id: str, error: str) -> None:
    """Note that ``worker_id`` died: whoever waits for its results gives up on them."""
    write_text_atomic(
        _lost_path(run_dir, worker_id), error, durable=False, temporary_prefix=".lost."
    )


@dataclass
class Share:
    """What one worker scores, written before it starts: each case as a result not yet scored."""

    worker_id: str
    cases: dict[str, CaseResult]
    golden_files: dict[str, int | None]
    census: dict[str, Any] | None


def publish_share(
    run_dir: Path,
    worker_id: str,
    cases: Mapping[str, CaseResult],
    golden_files: Mapping[str, int | None],
    census: Mapping[str, Any] | None,
) -> None:
    """Write ``worker_id``'s share, for the controller to read if the worker never reports."""
    payload = {
        "cases": {nodeid: result.model_dump(mode="json") for nodeid, result in cases.items()},
        "golden_files": dict(golden_files),
        "census": None if census is None else dict(census),
    }
    write_text_atomic(
        run_dir / f"{_SHARE_PREFIX}{worker_id}.json",
        json_text(payload),
        durable=False,
        temporary_prefix=".share.",
    )


def read_shares(run_dir: Path) -> list[Share]:
    """Every share the workers wrote, in worker order."""
    shares = []
    for path in sorted(run_dir.glob(f"{_SHARE_PREFIX}*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        shares.append(
            Share(
                worker_id=path.name.removeprefix(_SHARE_PREFIX).removesuffix(".json"),
                cases={
                    nodeid: CaseResult.model_validate(value)
                    for nodeid, value in data["cases"].items()
                },
                golden_files=dict(data["golden_files"]),
                census=data["census"],
            )
        )
    return shares


def published_results(run_dir: Path) -> dict[str, CaseResult]:
    """Every result the workers published, by node id."""
    found: dict[str, CaseResult] = {}
    for path in sorted(run_dir.glob("results-gw*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        found.update({key: CaseResult.model_validate(value) for key, value in data.items()})
    return found


def wait_for_workers(run_dir: Path, workers: int, deadline: float) -> None:
    """Wait until ``workers`` shares are written and each worker published or was lost.

    A stopped worker publishes within a second; the deadline keeps a stuck one from
    costing the reports.
    """
    while time.monotonic() < deadline:
        shares = sorted(run_dir.glob(f"{_SHARE_PREFIX}*.json"))
        ids = [path.name.removeprefix(_SHARE_PREFIX).removesuffix(".json") for path in shares]
        settled = all(
            (run_dir / f"results-{worker_id}.json").exists()
            or _lost_path(run_dir, worker_id).exists()
            for worker_id in ids
        )
        if len(ids) >= workers and settled:
            return
        time.sleep(0.05)
