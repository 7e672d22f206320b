"""The active gate run: which files are golden, the scoring pass, results and the verdict.

Scoring happens once collection is done, for every selected case of this process at once.
Under pytest-xdist each worker collects every case; worker *k* of *N* scores the cases
``k, k+N, …`` and publishes them in a run directory shared by the workers, so each case is
judged exactly once whichever worker ends up running its item. The controller gathers
the results from the item reports and applies the gate, exactly as a serial run does.
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import os
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .case_checks import (
    check_threshold_metrics,
    explain_no_golden_files,
    fail_for_unreadable_files,
)
from .cases import GoldenCase
from .config import GateConfig, LoadedConfig
from .interruption import fill_unscored, is_incomplete, with_unreported
from .judges.base import Judge
from .loading import SUPPORTED_EXTENSIONS, LoadedFile, load_golden_file
from .metrics.base import Metric
from .results import CaseResult, UsageRecord
from .scheduler import Progress, case_key, score_cases

if TYPE_CHECKING:
    from .baseline import BaselineComparison
    from .gate import GateVerdict
    from .items import CaseItem
    from .live import LiveTarget
    from .reports.json_report import JudgeInfo, SavedReport

RESULT_ATTRIBUTE = "rag_gate_case"

# How long a worker waits for another worker's results before it gives up on them; the
# clock restarts whenever the other worker shows progress, so slow judges are fine.
STALLED_WORKER_S = 300.0


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
        run_dir = Path(tempfile.gettempdir()) / f"rag-gate-{workerinput['testrunuid']}"
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


@dataclass
class GateRun:
    """Everything one ``pytest --rag-gate`` run knows; hooks hand off to it."""

    pytest_config: pytest.Config
    loaded: LoadedConfig
    metrics: dict[str, Metric]
    judge: Judge
    judge_info: JudgeInfo
    worker: WorkerInfo = field(default_factory=WorkerInfo)
    results: dict[str, CaseResult] = field(default_factory=dict)
    collected: list[CaseResult] = field(default_factory=list)
    golden_file_errors: list[str] = field(default_factory=list)
    verdict: GateVerdict | None = None
    gate_metrics: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    scoring_s: float = 0.0
    baseline: SavedReport | None = None
    target: LiveTarget | None = None
    baseline_comparison: BaselineComparison | None = None

    @property
    def config(self) -> GateConfig:
        """The validated settings."""
        return self.loaded.config

    # --- collection --------------------------------------------------------------------

    def is_golden_file(self, path: Path) -> bool:
        """Files named on the command line, or matching ``case_files`` under directories."""
        if path.suffix.lower() not in SUPPORTED_EXTENSIONS:
            return False
        if path.resolve() in self._named_paths():
            return True
        return any(fnmatch.fnmatch(path.name, pattern) for pattern in self.config.case_files)

    def _named_paths(self) -> set[Path]:
        root = self.pytest_config.invocation_params.dir
        return {(root / arg.split("::")[0]).resolve() for arg in self.pytest_config.args}

    def load(self, path: Path) -> LoadedFile:
        """Load one golden file; an unreadable one raises, and ``record_collect_error`` notes it."""
        shown = self._display_path(path)
        return check_threshold_metrics(load_golden_file(path, display_path=shown), self.metrics)

    def record_collect_error(self, report: pytest.CollectReport) -> None:
        """Remember a golden file that could not be read (on the xdist controller too)."""
        if not report.failed or "::" in report.nodeid or not report.nodeid:
            return
        path = self.pytest_config.rootpath / report.nodeid
        if not self.is_golden_file(path):
            return
        message = str(report.longrepr).strip() or report.nodeid
        if message not in self.golden_file_errors:
            self.golden_file_errors.append(message)

    def _display_path(self, path: Path) -> str:
        try:
            return path.relative_to(self.pytest_config.rootpath).as_posix()
        except ValueError:
            return str(path)

    # --- scoring -----------------------------------------------------------------------

    def score(self, items: Sequence[pytest.Item]) -> None:
        """Score this process's share of the selected cases, concurrently."""
        from .items import CaseItem

        case_items = [item for item in items if isinstance(item, CaseItem)]
        mine = [
            item
            for position, item in enumerate(case_items)
            if position % self.worker.count == self.worker.index
        ]
        started = time.monotonic()
        cases = [item.case for item in mine]
        by_key: dict[str, CaseResult] = {}
        try:
            self._score(cases, into=by_key)
        except KeyboardInterrupt:
            # pytest still calls sessionfinish, which reports what finished and fails the gate.
            fill_unscored(cases, by_key)
            raise
        finally:
            self.scoring_s = time.monotonic() - started
            self.results = {
                item.nodeid: by_key[case_key(item.case)]
                for item in mine
                if case_key(item.case) in by_key
            }
        if self.worker.run_dir is not None and self.worker.worker_id is not None:
            _publish(self.worker.run_dir, self.worker.worker_id, self.results)

    def _score(
        self, cases: Sequence[GoldenCase], into: dict[str, CaseResult] | None = None
    ) -> dict[str, CaseResult]:
        if not cases:
            return {}
        selected = self.config.metrics

        def metric_names_for(case: GoldenCase) -> list[str]:
            if selected is not None:
                return list(selected)
            return [
                name
                for name, metric in self.metrics.items()
                if all(case.has(required) for required in metric.required_fields)
            ]

        show_progress = self._progress_printer()
        return asyncio.run(
            score_cases(
                cases,
                metric_names_for,
                self.metrics,
                self.judge,
                max_cases_in_flight=self.config.concurrency,
                on_progress=show_progress,
                into=into,
                target=self.target,
            )
        )

    def _progress_printer(self) -> Any:
        run_dir, worker_id = self.worker.run_dir, self.worker.worker_id
        if run_dir is not None and worker_id is not None:
            heartbeat = run_dir / f"heartbeat-{worker_id}"

            # Other workers waiting for this one's results see it is still alive.
            def beat(progress: Progress) -> None:
                heartbeat.write_text(str(progress.cases_done), encoding="utf-8")

            return beat
        stream = sys.stderr
        quiet = (
            self.worker.is_worker
            or os.environ.get("CI")
            or not stream.isatty()
            or self.pytest_config.get_verbosity() < 0
        )
        if quiet:
            return None

        def show(progress: Progress) -> None:
            stream.write("\r" + progress.line() + "\x1b[K")
            if progress.cases_done == progress.total_cases:
                stream.write("\n")
            stream.flush()

        return show

    def result_for(self, item: CaseItem) -> CaseResult:
        """The item's precomputed result, from this process or the worker that scored it."""
        result = self.results.get(item.nodeid)
        if result is not None:
            return result
        if self.worker.run_dir is None:
            raise RuntimeError(f"No result was computed for {item.nodeid}.")
        self.results.update(_wait_for(self.worker.run_dir, item.nodeid))
        found = self.results.get(item.nodeid)
        if found is None:
            return CaseResult(
                id=item.case.id,
                source=item.case.source,
                tags=list(item.case.tags),
                question=item.case.question,
                error=(
                    "No scoring result arrived for this case: the xdist worker that "
                    "scored it stopped before publishing its results."
                ),
            )
        return found

    # --- results and the gate ------------------------------------------------------------

    def record(self, report: pytest.TestReport) -> None:
        """Keep a case result that rides on an item report (serial run or controller)."""
        payload = getattr(report, RESULT_ATTRIBUTE, None)
        if isinstance(payload, str):
            self.collected.append(CaseResult.model_validate_json(payload))

    def finish(self, session: pytest.Session) -> None:
        """Apply the gate, write the reports and fail an otherwise green run."""
        if self.worker.is_worker or self.pytest_config.option.collectonly:
            return
        if self.golden_file_errors and session.exitstatus == pytest.ExitCode.INTERRUPTED:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            return
        from .gate import evaluate_gate

        if session.exitstatus == pytest.ExitCode.INTERRUPTED:
            self.collected = with_unreported(self.collected, self.results.values())
        self.gate_metrics = self._gate_metric_names()
        self.verdict = evaluate_gate(self.collected, self.gate_metrics, self.config)
        if session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
            self.verdict = explain_no_golden_files(self.verdict, self.config.case_files)
        self.verdict = fail_for_unreadable_files(self.verdict, self.golden_file_errors)
        self.verdict = self._against_baseline(self.verdict)
        self._write_reports()
        from .reports.github import publish_step_summary

        publish_step_summary(self)
        if self.golden_file_errors or session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
            # A gate over nothing, or over part of the golden set, is a mistake in the
            # command or the files (wrong path, misnamed or unreadable files, a -k that
            # matches no case), not a test result: the same status as bad options.
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
        elif not self.verdict.passed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _against_baseline(self, verdict: GateVerdict) -> GateVerdict:
        """Fold regressions against ``--rag-gate-baseline`` into the verdict."""
        if self.baseline is None:
            return verdict
        from .baseline import apply_baseline, compare_to_baseline, in_shard

        self.baseline_comparison = compare_to_baseline(
            in_shard(self.baseline.results, self.pytest_config.option.rag_gate_shard),
            self.collected,
            self.gate_metrics,
            self.config,
            path=str(self.config.baseline),
        )
        return apply_baseline(verdict, self.baseline_comparison)

    def _gate_metric_names(self) -> list[str]:
        if self.config.metrics is not None:
            return list(self.config.metrics)
        present = {name for result in self.collected for name in result.metrics}
        return [name for name in self.metrics if name in present]

    def usage_by_metric(self) -> dict[str, UsageRecord]:
        """Judge usage per metric, summed over the collected cases."""
        totals: dict[str, UsageRecord] = {}
        for result in self.collected:
            for metric, usage in result.usage.items():
                totals[metric] = totals.get(metric, UsageRecord()) + usage
        return totals

    def total_usage(self) -> UsageRecord:
        """Judge usage over the whole run."""
        total = UsageRecord()
        for usage in self.usage_by_metric().values():
            total = total + usage
        return total

    def _write_reports(self) -> None:
        assert self.verdict is not None
        from .reports.json_report import build_report, write_report
        from .reports.junit import write_junit

        root = self.pytest_config.invocation_params.dir
        ordered = sorted(self.collected, key=lambda result: (result.source, result.id))
        if self.config.report:
            report = build_report(
                results=ordered,
                verdict=self.verdict,
                config=self.config,
                judge=self.judge_info,
                usage_by_metric=self.usage_by_metric(),
                wall_s=round(time.monotonic() - self.started, 3),
                scoring_s=round(self.scoring_s, 3),
                incomplete=is_incomplete(self.collected),
            )
            from .baseline import report_extras

            report.update(
                report_extras(self.pytest_config.option.rag_gate_shard, self.baseline_comparison)
            )
            write_report(root / self.config.report, report)
        if self.config.junit:
            write_junit(
                root / self.config.junit,
                results=ordered,
                verdict=self.verdict,
                judge=self.judge_info,
                failure_lines={},
            )


def _publish(run_dir: Path, worker_id: str, results: Mapping[str, CaseResult]) -> None:
    payload = {nodeid: result.model_dump(mode="json") for nodeid, result in results.items()}
    target = run_dir / f"results-{worker_id}.json"
    temporary = run_dir / f".results-{worker_id}.{os.getpid()}.tmp"
    temporary.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
    os.replace(temporary, target)


def _wait_for(run_dir: Path, nodeid: str) -> dict[str, CaseResult]:
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
