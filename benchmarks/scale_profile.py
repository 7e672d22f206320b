"""Where a large gate run spends its time and memory, phase by phase.

Generates the golden set of ``scale_gate.py`` and runs ``pytest.main`` in this process with
a small plugin that records, at each phase boundary (collection done, scoring done, items
run, gate and reports done, summary printed), the wall clock, the resident memory and its
peak so far (``VmRSS`` / ``VmHWM``), and an estimate of the memory held by the run's big
structures (the items' golden cases, the scored results, the collected results, pytest's
kept test reports). Optionally it also profiles the run with cProfile or tracemalloc::

    python benchmarks/scale_profile.py --cases 5000
    python benchmarks/scale_profile.py --cases 2000 --cprofile /tmp/gate.pstats
    python benchmarks/scale_profile.py --cases 2000 --tracemalloc

The package under test is whatever ``import pytest_ragas_gate`` finds: put a checkout on
``PYTHONPATH`` to measure it instead of the installed one.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import shutil
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Generator, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale_gate import JUNIT_NAME, REPORT_NAME, gate_arguments, write_golden  # noqa: E402

SAMPLED_OBJECTS = 200


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _is_shared(value: object) -> bool:
    """Objects every item or result points at: pytest's tree, types, modules, functions."""
    return isinstance(
        value,
        (type, type(sys), type(deep_size), pytest.Config, pytest.Session, pytest.Collector, Path),
    ) or type(value).__module__.startswith(("pluggy", "_pytest.config", "py."))


def deep_size(root: object, seen: set[int] | None = None) -> int:
    """Bytes held by ``root`` and everything it references that ``seen`` has not counted.

    Shared objects (see :func:`_is_shared`) are not followed, nor other pytest items.
    """
    seen = set() if seen is None else seen
    total = 0
    pending = [root]
    while pending:
        current = pending.pop()
        if id(current) in seen or _is_shared(current):
            continue
        if current is not root and isinstance(current, pytest.Item):
            continue
        seen.add(id(current))
        total += sys.getsizeof(current)
        if isinstance(current, dict):
            pending.extend(current.keys())
            pending.extend(current.values())
        elif isinstance(current, (list, tuple, set, frozenset)):
            pending.extend(current)
        elif hasattr(current, "__dict__"):
            pending.append(vars(current))
        if hasattr(current, "__pydantic_fields_set__"):
            pending.append(current.__pydantic_fields_set__)
        slots = getattr(type(current), "__slots__", ())
        for slot in (slots,) if isinstance(slots, str) else slots:
            if hasattr(current, slot):
                pending.append(getattr(current, slot))
    return total


def estimated_size(objects: Iterable[object], count: int, shared: set[int]) -> int:
    """Deep size of a sample of ``objects``, scaled to ``count`` of them."""
    sample = []
    for index, item in enumerate(objects):
        if index >= SAMPLED_OBJECTS:
            break
        sample.append(item)
    if not sample:
        return 0
    size = sum(deep_size(item, set(shared)) for item in sample)
    return size * count // len(sample)


@dataclass
class Mark:
    """One phase boundary."""

    name: str
    at_s: float
    cpu_s: float
    rss_mb: float
    peak_mb: float
    traced_mb: float | None
    traced_peak_mb: float | None


class PhaseRecorder:
    """A pytest plugin that marks phase boundaries and sizes the run's structures."""

    def __init__(self, tracing: bool) -> None:
        self.started = time.perf_counter()
        self.tracing = tracing
        self.marks: list[Mark] = []
        self.sizes: dict[str, str] = {}
        self.snapshots: list[tuple[str, tracemalloc.Snapshot]] = []
        self.config: pytest.Config | None = None

    def mark(self, name: str) -> None:
        """Record the clock and memory now."""
        traced: tuple[int, int] | None = None
        if self.tracing:
            traced = tracemalloc.get_traced_memory()
            self.snapshots.append((name, tracemalloc.take_snapshot()))
            tracemalloc.reset_peak()
        self.marks.append(
            Mark(
                name,
                time.perf_counter() - self.started,
                time.process_time(),
                _status_kb("VmRSS") / 1024,
                _status_kb("VmHWM") / 1024,
                None if traced is None else traced[0] / 1e6,
                None if traced is None else traced[1] / 1e6,
            )
        )

    def pytest_configure(self, config: pytest.Config) -> None:
        """Start of the run."""
        self.config = config
        self.mark("configured")

    @pytest.hookimpl(wrapper=True)
    def pytest_collection_finish(self, session: pytest.Session) -> Generator[None, Any, Any]:
        """Around the gate's scoring pass, which runs when collection finishes."""
        self.mark("collected (items built)")
        result = yield
        self.mark("scored")
        return result

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, Any, Any]:
        """Around the item loop."""
        result = yield
        self.mark("items run")
        return result

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> Generator[None, Any, Any]:
        """Size the structures before the gate runs, then time the gate and reports."""
        self._size_structures(session)
        self.mark("sized")
        result = yield
        self.mark("gate + reports written")
        return result

    @pytest.hookimpl(wrapper=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> Generator[None, Any, Any]:
        """Around the summary (the table, annotations)."""
        result = yield
        self.mark("summary printed")
        return result

    def _size_structures(self, session: pytest.Session) -> None:
        from pytest_ragas_gate.plugin import RUN_KEY

        assert self.config is not None
        run = self.config.stash.get(RUN_KEY, None)
        items = session.items
        cases = [item.case for item in items if hasattr(item, "case")]
        self._note("golden cases (item.case)", cases)
        bare_items = [
            {key: value for key, value in vars(item).items() if key not in ("case", "result")}
            for item in items[:SAMPLED_OBJECTS]
        ]
        self._note("pytest items (no case/result)", bare_items, count=len(items))
        if run is not None:
            self._note("scored results (run.results)", list(run.results.values()))
            self._note("collected results (run.collected)", run.collected)
        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        if terminal is not None:
            reports = [report for kept in terminal.stats.values() for report in kept]
            self._note("test reports kept by pytest", reports)
            payloads = [
                report.rag_gate_case for report in reports if hasattr(report, "rag_gate_case")
            ]
            self._note("  their rag_gate_case JSON", payloads)

    def _note(self, label: str, objects: list[Any], count: int | None = None) -> None:
        total = len(objects) if count is None else count
        size = estimated_size(objects, total, set())
        per_object = size / max(total, 1) / 1000
        self.sizes[label] = f"{total:>7,} × {per_object:6.1f} KB ≈ {size / 1e6:8.1f} MB"

    def print(self) -> None:
        """The phases and sizes, as a table."""
        print(
            f"{'phase':<28}{'at s':>9}{'Δ s':>8}{'Δ cpu s':>9}{'RSS MB':>9}{'peak MB':>9}", end=""
        )
        print(f"{'traced MB':>11}{'traced peak':>12}" if self.tracing else "")
        previous, previous_cpu = 0.0, self.marks[0].cpu_s if self.marks else 0.0
        for mark in self.marks:
            line = (
                f"{mark.name:<28}{mark.at_s:9.1f}{mark.at_s - previous:8.1f}"
                f"{mark.cpu_s - previous_cpu:9.1f}{mark.rss_mb:9.0f}{mark.peak_mb:9.0f}"
            )
            previous_cpu = mark.cpu_s
            if mark.traced_mb is not None and mark.traced_peak_mb is not None:
                line += f"{mark.traced_mb:11.0f}{mark.traced_peak_mb:12.0f}"
            print(line)
            previous = mark.at_s
        print("\nestimated memory held at sessionfinish (deep size of a sample, scaled):")
        for label, text in self.sizes.items():
            print(f"  {label:<38}{text}")

    def print_allocations(self, top: int) -> None:
        """The lines that allocated most between consecutive phase boundaries."""
        for (_, before), (name, after) in zip(self.snapshots, self.snapshots[1:], strict=False):
            print(f"\nallocations kept, growth up to '{name}':")
            for stat in after.compare_to(before, "lineno")[:top]:
                if stat.size_diff < 1_000_000:
                    break
                frame = stat.traceback[0]
                where = f"{_short(frame.filename)}:{frame.lineno}"
                print(f"  {stat.size_diff / 1e6:8.1f} MB  {stat.count_diff:>9,} blocks  {where}")


def _short(filename: str) -> str:
    for marker in ("site-packages/", "pytest_ragas_gate/", "lib/python3"):
        if marker in filename:
            return filename[filename.index(marker) :]
    return filename


def main() -> None:
    """Generate the golden set, run the gate in-process and print where time and memory went."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cases", type=int, default=5000, help="golden cases (default: 5000)")
    parser.add_argument("--cprofile", metavar="PATH", help="write cProfile stats here")
    parser.add_argument("--tracemalloc", action="store_true", help="trace allocations")
    parser.add_argument("--top", type=int, default=25, help="rows of each listing (default: 25)")
    parser.add_argument(
        "--keep", action="store_true", help="keep the temporary directory (default: remove it)"
    )
    args = parser.parse_args()

    directory = Path(tempfile.mkdtemp(prefix="rag-gate-profile-"))
    (directory / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    write_golden(directory, args.cases, seed=0)
    os.chdir(directory)
    os.environ["CI"] = "1"
    recorder = PhaseRecorder(tracing=args.tracemalloc)
    if args.tracemalloc:
        tracemalloc.start(1)
    profiler = cProfile.Profile() if args.cprofile else None
    arguments = [*gate_arguments(directory), "-p", "no:xdist"]
    if profiler is not None:
        profiler.enable()
    exit_code = pytest.main(arguments, plugins=[recorder])
    if profiler is not None:
        profiler.disable()
    recorder.mark("pytest.main returned")
    gc.collect()
    print(f"\nexit code {exit_code}; {args.cases:,} cases")
    input_size = (directory / "golden_scale.jsonl").stat().st_size
    for name in (REPORT_NAME, JUNIT_NAME):
        if (directory / name).exists():
            size = (directory / name).stat().st_size
            print(f"{name}: {size / 1e6:.1f} MB ({size / input_size:.2f}× the input)")
    recorder.print()
    if args.tracemalloc:
        recorder.print_allocations(args.top)
    if profiler is not None:
        profiler.dump_stats(args.cprofile)
        stats = pstats.Stats(profiler)
        print("\ncProfile, by cumulative time:")
        stats.sort_stats("cumulative").print_stats(args.top)
        print("\ncProfile, by own time:")
        stats.sort_stats("tottime").print_stats(args.top)
    if args.keep:
        print(f"kept {directory}")
    else:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
