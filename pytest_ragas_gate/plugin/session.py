"""The active gate run: which files are golden, the scoring pass, results and the verdict.

Scoring happens once collection is done, for every selected case of this process at once.
Under pytest-xdist the workers share the scoring (:mod:`.xdist_exchange`); the controller
gathers the results from the item reports and applies the gate, exactly as a serial run does.
"""

from __future__ import annotations

import asyncio
import fnmatch
import sys
import time
import warnings
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..gate.coverage import Census, CoverageLedger, build_ledger
from ..gate.deploy_decision import scored_by
from ..gate.verdict import GateVerdict, RunFacts, evaluate_gate, fold_golden_files
from ..golden.cases import GoldenCase
from ..golden.golden_formats import matches_golden_globs
from ..golden.loading import (
    SUPPORTED_EXTENSIONS,
    CaseProblem,
    LoadedFile,
    load_golden_file,
    pending_review,
    skip_rejected,
)
from ..judges.cache import JudgeCache
from ..judges.cache_integrity import CacheIntegrity
from ..judges.metered import MeteredJudge
from ..long_lived import collector_spared
from ..metrics.base import Metric
from ..scoring.case_checks import check_threshold_metrics, is_threshold_usage_problem
from ..scoring.gated_metrics import gated_metric_names, metrics_for_case, metrics_to_gate
from ..scoring.interruption import (
    INTERRUPTED_MESSAGE,
    fill_unscored,
    is_incomplete,
    worker_crashed,
)
from ..scoring.results import CaseResult, canonical_order, usage_by_metric
from ..scoring.scheduler import Progress, ProgressCallback, Target, score_cases
from ..scoring.unknown_fields import check_field_names
from ..settings.bounds import Bound
from ..settings.config import GateConfig, LoadedConfig
from ..settings.run_environment import RunEnvironment
from ..usage import Usage
from .cancellation import Cancellation
from .collection_census import CensusTaker, deselecting_options, stop_reason
from .items import BadCaseItem, CaseItem, attached_result, skipped_case
from .progress_relay import ProgressRelay, heartbeat_path, write_heartbeat
from .xdist_exchange import (
    USAGE_STOP_KEY,
    WORKER_CENSUS_KEY,
    WORKER_INTEGRITY_KEY,
    WORKER_OUTPUT_KEY,
    WORKER_SCORING_KEY,
    WorkerInfo,
    hand_over,
    is_controller,
    mark_lost,
    publish_results,
    publish_share,
    published_results,
    read_shares,
    request_stop,
    run_dir_of,
    stop_requested,
    unit_positions,
    wait_for_results,
    wait_for_workers,
)

if TYPE_CHECKING:
    from ..gate.baseline_figures import BaselineComparison
    from ..gate.gate_changes import GateChanges
    from ..live.oracle import OracleTarget
    from ..live.targets import LiveTarget
    from ..reports.json_report import JudgeInfo, SavedReport
    from ..trust.labels import LabelSet

#: The outcome pytest-rerunfailures gives every attempt of a test but the last.
RERUN_OUTCOME = "rerun"

#: How long after a signal the xdist controller waits for the workers' results before it
#: writes the reports with what it has: a cancelled CI job gets SIGTERM 7.5 s after SIGINT.
WORKERS_STOP_S = 3.0
#: How often a worker scoring its cases looks for the run's stop marker.
STOP_POLL_S = 0.1


@dataclass
class GateRun:
    """Everything one ``pytest --rag-gate`` run knows; hooks hand off to it."""

    pytest_config: pytest.Config
    loaded: LoadedConfig
    metrics: dict[str, Metric]
    judge: MeteredJudge
    judge_info: JudgeInfo
    # The run's environment variables, commit, CI run, base ref and git reader, captured
    # once by the activation: what the gate and the reports read of the surroundings.
    environment: RunEnvironment = field(default_factory=RunEnvironment)
    worker: WorkerInfo = field(default_factory=WorkerInfo)
    results: dict[str, CaseResult] = field(default_factory=dict)
    reported: dict[str, CaseResult] = field(default_factory=dict)
    golden_files: dict[str, int | None] = field(default_factory=dict)
    golden_file_errors: list[str] = field(default_factory=list)
    other_failures: dict[str, None] = field(default_factory=dict)
    #: ``(source, id)`` of each case skipped or xfailed without running, with the reason.
    skipped: dict[tuple[str, str], str] = field(default_factory=dict)
    workers_counted: int = 0
    verdict: GateVerdict | None = None
    # The run's exit status as the gate set it, for the colour of pytest's last line.
    exit_code: int | None = None
    run_facts: RunFacts = field(default_factory=RunFacts)
    started: float = field(default_factory=time.monotonic)
    scoring_s: float = 0.0
    baseline: SavedReport | None = None
    target: LiveTarget | OracleTarget | None = None
    labels: LabelSet | None = None
    # (golden file, id) of every case loaded, before any selection: what labels may name.
    loaded_keys: set[tuple[str, str]] = field(default_factory=set)
    # Every case of the run, of all workers (repeats: auto samples from them all).
    run_case_keys: list[str] = field(default_factory=list)
    # Why the run stopped before scoring as a usage error (no verdict, no reports).
    usage_stop: str | None = None
    census: Census | None = None
    # What the workers' judge caches verified, rejected and signed (xdist controller).
    workers_integrity: CacheIntegrity | None = None
    _census_taker: CensusTaker | None = None
    _claimed: dict[Path, Path] = field(default_factory=dict)
    _case_ids: dict[str, str] = field(default_factory=dict)
    _stopped: str | None = None
    _relay: ProgressRelay | None = None
    _ordered: list[CaseResult] | None = None
    # Where the OpenTelemetry records went, once sent (outputs.otel).
    otel_sent: str | None = None
    _bounds: Mapping[str, Bound] | None = None
    #: SIGINT and SIGTERM: the first stops the scoring and keeps every case.
    cancellation: Cancellation = field(default_factory=Cancellation)
    # The xdist controller's view of its workers: the run directory they share, how many
    # there are, and those that died (by worker id, with xdist's error).
    _controller_run_dir: Path | None = None
    _workers_expected: int = 0
    _lost_workers: dict[str, str] = field(default_factory=dict)
    # Which worker scores each case item (xdist), so a wait for a dead one ends at once.
    _owners: dict[str, str] = field(default_factory=dict)
    # The results of malformed cases, which an interrupted run never reaches.
    _problems: dict[str, CaseResult] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.cancellation.on_request = self._stop_workers

    def _stop_workers(self, reason: str) -> None:
        """A signal reached this process: every xdist worker of the run stops scoring too."""
        run_dir = self.worker.run_dir or self._controller_run_dir
        if run_dir is not None:
            try:
                request_stop(run_dir, reason)
            except OSError:
                pass

    @property
    def config(self) -> GateConfig:
        """The validated settings."""
        return self.loaded.config

    @property
    def collected(self) -> list[CaseResult]:
        """The case results reported so far, each case once, in canonical order."""
        if self._ordered is None:
            self._ordered = canonical_order(list(self.reported.values()))
        return self._ordered

    # --- collection --------------------------------------------------------------------

    def is_golden_file(self, path: Path) -> bool:
        """Files named on the command line, or matching ``case_files`` under directories."""
        if path.suffix.lower() not in SUPPORTED_EXTENSIONS:
            return False
        if path.resolve() in self._named_paths():
            return True
        return matches_golden_globs(path, self.config.case_files)

    def excluded_by(self, path: Path) -> str | None:
        """The ``exclude:`` glob that leaves ``path`` out of the gate on purpose, if any.

        A glob matches the path relative to the rootdir or the file name alone.
        """
        shown = self._display_path(path)
        for pattern in self.config.exclude:
            if fnmatch.fnmatch(shown, pattern) or fnmatch.fnmatch(path.name, pattern):
                return pattern
        return None

    @property
    def census_taker(self) -> CensusTaker:
        """What the collection did with golden files, noted for the coverage ledger."""
        if self._census_taker is None:
            self._census_taker = CensusTaker(
                self.pytest_config,
                is_golden=self.is_golden_file,
                excluded_by=self.excluded_by,
                display=self._display_path,
            )
        return self._census_taker

    def claim(self, path: Path) -> bool:
        """Whether ``path`` is a golden file not yet collected under another name.

        A symlink (or a symlink loop) can show one file under many paths; its cases are
        collected, scored and gated once, under the first path pytest reaches. The same
        path may be offered again (two files of one directory named on the command line).
        Files the ``exclude:`` setting names are left out on purpose, unless named on
        the command line: naming a file asks for it.
        """
        if not self.is_golden_file(path):
            return False
        if self.excluded_by(path) is not None and path.resolve() not in self._named_paths():
            return False
        real = path.resolve()
        first = self._claimed.setdefault(real, path)
        if first != path:
            return False
        self.census_taker.claimed(path)
        self.golden_files.setdefault(self._display_path(path), None)
        return True

    def _named_paths(self) -> set[Path]:
        root = self.pytest_config.invocation_params.dir
        return {(root / arg.split("::")[0]).resolve() for arg in self.pytest_config.args}

    def load(self, path: Path) -> LoadedFile:
        """Load one golden file; an unreadable one raises, and ``record_collect_error`` notes it."""
        shown = self._display_path(path)
        checked = check_field_names(
            load_golden_file(path, display_path=shown),
            self.metrics,
            strict=self.config.strict_fields,
        )
        # Every xdist worker reads every golden file; one of them says it once.
        loaded = checked.warn(shown=self.worker.index == 0)
        loaded = check_threshold_metrics(
            loaded, self.metrics, self.config.metrics, self.config.direction_of
        )
        loaded = self._unique_ids(skip_rejected(loaded))
        if self.labels is not None:
            # The labels module loads only for a run with a labels file.
            from ..trust.labels import apply_labels

            loaded = apply_labels(loaded, self.labels)
        self.loaded_keys.update((case.file, case.id) for case in loaded.cases)
        self.golden_files[shown] = len(loaded.cases) + len(loaded.problems)
        self.census_taker.loaded(
            shown,
            [(case.id, case.line) for case in loaded.cases]
            + [(problem.label, problem.line) for problem in loaded.problems],
        )
        return loaded

    def _unique_ids(self, loaded: LoadedFile) -> LoadedFile:
        """A case whose id an earlier case of the run already has is an error of its own.

        Results, reports and baselines know a case by its id; two cases under one id
        would overwrite each other. Both keep their own result: the first is scored, the
        later one errors, naming both places.
        """
        kept: list[GoldenCase] = []
        problems = list(loaded.problems)
        for case in loaded.cases:
            first = self._case_ids.setdefault(case.id, case.source)
            if first == case.source:
                kept.append(case)
                continue
            problems.append(
                CaseProblem(
                    file=case.file,
                    line=case.line,
                    case_id=case.id,
                    message=(
                        f"{case.source}: field 'id': duplicate id {case.id!r} (first at "
                        f"{first}); ids must be unique within a run"
                    ),
                )
            )
        if len(kept) == len(loaded.cases):
            return loaded
        return LoadedFile(loaded.path, kept, sorted(problems, key=lambda problem: problem.line))

    def record_collect_error(self, report: pytest.CollectReport) -> None:
        """Remember a collection that failed (on the xdist controller too).

        An unreadable golden file fails the gate as such; any other collection error is a
        failing test of the run, which the verdict must not contradict.
        """
        if not report.failed or not report.nodeid:
            return
        path = self.pytest_config.rootpath / report.nodeid.split("::")[0]
        if "::" in report.nodeid or not self.is_golden_file(path):
            self.other_failures[f"{report.nodeid} (collection error)"] = None
            return
        self.golden_files.pop(self._display_path(path), None)
        self.census_taker.unreadable(self._display_path(path))
        message = str(report.longrepr).strip() or report.nodeid
        if message not in self.golden_file_errors:
            self.golden_file_errors.append(message)

    def _display_path(self, path: Path) -> str:
        try:
            return path.relative_to(self.pytest_config.rootpath).as_posix()
        except ValueError:
            return str(path)

    def add_worker_output(self, output: Mapping[str, Any]) -> None:
        """Take a worker's collection counts, census, scoring time and usage stop."""
        golden_files = output.get(WORKER_OUTPUT_KEY)
        if isinstance(golden_files, dict):
            self.workers_counted += 1
            fold_golden_files(self.golden_files, golden_files)
        census = output.get(WORKER_CENSUS_KEY)
        if self.census is None and isinstance(census, dict):
            # Every worker collects the same golden files: the first census is the run's.
            self.census = Census.model_validate(census)
        scoring_s = output.get(WORKER_SCORING_KEY)
        if isinstance(scoring_s, int | float):
            # Workers score side by side: the run's scoring took as long as the slowest.
            self.scoring_s = max(self.scoring_s, float(scoring_s))
        usage_stop = output.get(USAGE_STOP_KEY)
        if isinstance(usage_stop, str):
            self.usage_stop = self.usage_stop or usage_stop
        integrity = output.get(WORKER_INTEGRITY_KEY)
        if isinstance(integrity, dict):
            theirs = CacheIntegrity.model_validate(integrity)
            known = self.workers_integrity
            self.workers_integrity = theirs if known is None else known.plus(theirs)

    def cache_integrity(self) -> CacheIntegrity | None:
        """What this process's judge cache (or the workers' caches) verified and rejected."""
        cache = self.judge.cache
        own = None
        if isinstance(cache, JudgeCache) and (cache.signer, cache.verifier) != (None, None):
            own = cache.integrity()
        if own is None or self.workers_integrity is None:
            return own or self.workers_integrity
        return own.plus(self.workers_integrity)

    def take_census(self, session: pytest.Session) -> None:
        """Note, once collection is done, every golden file found and where its cases went."""
        self.census = self.census_taker.take(session.items)
        output: dict[str, Any] | None = getattr(self.pytest_config, "workeroutput", None)
        if output is not None:
            output[WORKER_CENSUS_KEY] = self.census.model_dump(mode="json")

    # --- scoring -----------------------------------------------------------------------

    def score(self, session: pytest.Session) -> None:
        """Score this process's share of the selected cases, concurrently.

        Nothing is scored when collection errors are about to stop a serial run: no item
        would report the scores, and a judge's calls cost money. An xdist worker cannot
        tell whether the controller will still run its items, so it scores them.
        """
        stopping = (
            session.testsfailed
            and not self.pytest_config.option.continue_on_collection_errors
            and not self.worker.is_worker
        )
        if stopping:
            return
        case_items = [item for item in session.items if isinstance(item, CaseItem)]
        self._check_labels()
        if self.worker.index == 0:
            _warn_pending_review([item.case for item in case_items], self.pytest_config)
        mine = [
            item
            for position, item in zip(unit_positions(case_items), case_items, strict=True)
            if position % self.worker.count == self.worker.index
        ]
        started = time.monotonic()
        cases = [item.case for item in mine]
        # Every worker draws the repeats: auto sample from the whole run, as a serial run does.
        self.run_case_keys = [item.case.key for item in case_items]
        if self.worker.index == 0:
            self._problems = {
                item.nodeid: _problem_result(item)
                for item in session.items
                if isinstance(item, BadCaseItem)
            }
        run_dir, worker_id = self.worker.run_dir, self.worker.worker_id
        if run_dir is not None and worker_id is not None:
            self._owners = {
                item.nodeid: f"gw{position % self.worker.count}"
                for position, item in zip(unit_positions(case_items), case_items, strict=True)
            }
            # Written before any judge call, so the controller accounts for these cases
            # whatever becomes of this worker.
            publish_share(
                run_dir,
                worker_id,
                {
                    **{item.nodeid: CaseResult.of_case(item.case) for item in mine},
                    **self._problems,
                },
                self.golden_files,
                None if self.census is None else self.census.model_dump(mode="json"),
            )
            # Every worker is heard from, the ones with nothing to score included.
            write_heartbeat(heartbeat_path(run_dir, worker_id), Progress(total_cases=len(cases)))
            stopped_by = stop_requested(run_dir)
            if stopped_by is not None:
                self.cancellation.request(stopped_by)
        by_key: dict[str, CaseResult] = {}
        stopped = False
        try:
            if self.usage_stop is not None:
                # An xdist worker cannot stop the run itself: its cases say why, unscored.
                fill_unscored(cases, by_key, self.usage_stop)
            elif not self.cancellation.requested:
                with collector_spared():
                    self._score(cases, into=by_key)
        except KeyboardInterrupt:
            stopped = True
        finally:
            self.scoring_s = time.monotonic() - started
        stopped = stopped or self.cancellation.requested
        if stopped:
            # pytest still calls sessionfinish, which reports what finished and fails the gate.
            fill_unscored(cases, by_key, INTERRUPTED_MESSAGE)
        self.results = {
            item.nodeid: by_key[item.case.key] for item in mine if item.case.key in by_key
        }
        if run_dir is not None and worker_id is not None:
            publish_results(run_dir, worker_id, self.results)
        if stopped:
            raise KeyboardInterrupt(self.cancellation.reason or "SIGINT")

    def _check_labels(self) -> None:
        """Warn about labels that name no case or one case two ways; stop when strict."""
        if self.labels is None:
            return
        from ..trust.label_checks import label_problems

        problems = label_problems(self.labels, self.loaded_keys)
        if not problems:
            return
        notices = [
            f"rag-gate: labels: {problem} (strict_labels: true makes this an error)"
            for problem in problems
        ]
        # Under -W error a notice that would be raised stops the run as strict_labels does:
        # every xdist worker asks the filter, so they all stop alike.
        strict = "strict_labels: true" if self.config.strict_labels else None
        if strict is None and any(_raised_as_error(notice) for notice in notices):
            strict = "warnings are errors in this run (-W error); strict_labels: false"
        if strict is not None:
            self.usage_stop = (
                f"rag-gate: the labels file {self.labels.path} has {len(problems)} "
                f"problem(s) ({strict}):\n" + "\n".join(problems)
            )
            if not self.worker.is_worker:
                pytest.exit(self.usage_stop, returncode=pytest.ExitCode.USAGE_ERROR)
            return
        if self.worker.index == 0:
            for notice in notices:
                _notice(notice, self.pytest_config)

    def _score(
        self, cases: Sequence[GoldenCase], into: dict[str, CaseResult] | None = None
    ) -> dict[str, CaseResult]:
        if not cases:
            return {}

        # The same for every case: worked out once, not per case.
        gated = gated_metric_names(self.config, list(self.metrics))

        def metric_names_for(case: GoldenCase) -> list[str]:
            return metrics_for_case(case, self.metrics, self.config, gated=gated)

        show_progress = self._progress_printer()
        return asyncio.run(
            self._stoppable(self._score_and_compare(cases, metric_names_for, show_progress, into))
        )

    async def _stoppable(self, scoring: Awaitable[dict[str, CaseResult]]) -> dict[str, CaseResult]:
        """Run the scoring until it ends or a signal (here or in another worker) stops it.

        Stopped, it is cancelled: the requests in flight are dropped and the judge closed,
        and the results finished so far stay in ``into``.
        """
        task = asyncio.ensure_future(scoring)
        loop = asyncio.get_running_loop()

        def stop() -> None:
            # Called from the signal handler, which may run between any two steps of the loop.
            loop.call_soon_threadsafe(task.cancel)

        watcher = None
        if self.worker.run_dir is not None:
            watcher = asyncio.ensure_future(self._watch_for_stop(self.worker.run_dir, stop))
        try:
            with self.cancellation.scoring(stop):
                return await task
        except asyncio.CancelledError:
            if not self.cancellation.requested:
                raise
            return {}
        finally:
            if watcher is not None:
                watcher.cancel()

    async def _watch_for_stop(self, run_dir: Path, stop: Callable[[], None]) -> None:
        """An xdist worker: stop scoring when a signal reached another process of the run."""
        while True:
            await asyncio.sleep(STOP_POLL_S)
            reason = stop_requested(run_dir)
            if reason is not None:
                self.cancellation.request(reason)
                stop()
                return

    async def _score_and_compare(
        self,
        cases: Sequence[GoldenCase],
        metric_names_for: Callable[[GoldenCase], list[str]],
        show_progress: ProgressCallback | None,
        into: dict[str, CaseResult] | None,
    ) -> dict[str, CaseResult]:
        """Score the cases, then (``pairwise: true``) judge their answers against the baseline's.

        One event loop and one open judge for both, so the comparisons share its cache,
        batching, budgets and connections; the judge is closed once, at the end.
        """
        try:
            results = await score_cases(
                cases,
                metric_names_for,
                self.metrics,
                self.judge,
                # Batch mode: every case in flight at once, so one batch job holds them all.
                max_cases_in_flight=(
                    len(cases)
                    if self.config.batch and self.target is None
                    else self.config.concurrency
                ),
                on_progress=show_progress,
                into=into,
                target=self._replay(),
                close_judge=False,
                **self._repeat_settings(cases),
            )
            if self.config.pairwise and self.baseline is not None:
                await self._compare_with_baseline(cases, results)
            return results
        finally:
            await self.judge.aclose()

    def _replay(self) -> Target | None:
        """Live mode: the target, called once per turn of each case; None in static mode."""
        if self.target is None:
            return None
        from ..live.conversation_replay import ConversationReplay

        return ConversationReplay(self.target)

    async def _compare_with_baseline(
        self, cases: Sequence[GoldenCase], results: Mapping[str, CaseResult]
    ) -> None:
        """Judge each scored case's answer against the baseline's answer to it."""
        assert self.baseline is not None
        from ..gate.baseline import in_shard, pair_cases
        from ..scoring.pairwise import judge_pairs

        scored = list(results.values())
        baseline = in_shard(self.baseline.results, self.pytest_config.option.rag_gate_shard, scored)
        pairs, _, _, _ = pair_cases(baseline, scored)
        await judge_pairs(
            pairs,
            {case.key: case for case in cases},
            self.judge,
            # Batch mode: every comparison in flight at once, so one batch job holds them.
            concurrency=len(pairs) if self.config.batch else self.config.concurrency,
        )

    def _repeat_settings(self, cases: Sequence[GoldenCase]) -> dict[str, Any]:
        """``repeats`` and, under ``repeats: auto``, the chooser of the cases to repeat."""
        if self.config.repeats != "auto":
            return {"repeats": self.config.repeats}
        from ..gate.auto_repeats import AUTO_REPEATS, AutoRepeats

        if self.target is not None:
            # A live target is called once per case; judging its answer again means
            # judging every case again, which measures the noise everywhere.
            return {"repeats": AUTO_REPEATS}
        baseline = None if self.baseline is None else self.baseline.results
        chooser = AutoRepeats(
            cases,
            self.config.bounds(),
            seed=self.config.seed,
            baseline=baseline,
            population=self.run_case_keys,
        )
        return {"repeats": AUTO_REPEATS, "again": chooser}

    def _progress_printer(self) -> Any:
        run_dir, worker_id = self.worker.run_dir, self.worker.worker_id
        if run_dir is not None and worker_id is not None:
            heartbeat = heartbeat_path(run_dir, worker_id)

            # Other workers waiting for this one's results see it is still alive, and the
            # controller shows the summed progress line.
            def beat(progress: Progress) -> None:
                write_heartbeat(heartbeat, progress)

            return beat
        stream = sys.stderr
        quiet = (
            self.worker.is_worker
            or self.environment.variables.get("CI")
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

    def relay_progress(self, workerinput: Mapping[str, Any]) -> None:
        """On the xdist controller: show the workers' summed progress line, once."""
        self._controller_run_dir = run_dir_of(str(workerinput["testrunuid"]))
        self._workers_expected = int(workerinput["workercount"])
        if self._relay is not None:
            return
        show = self._progress_printer()
        if show is None:
            return
        self._relay = ProgressRelay(
            run_dir_of(str(workerinput["testrunuid"])), int(workerinput["workercount"]), show
        )
        self._relay.start()

    def bounds(self) -> Mapping[str, Bound]:
        """The gate's thresholds, whose directions a case's own thresholds take.

        Read once: every case item asks, and the settings do not change during a run.
        """
        if self._bounds is None:
            self._bounds = self.config.bounds()
        return self._bounds

    def result_for(self, item: CaseItem) -> CaseResult:
        """The item's precomputed result, from this process or the worker that scored it."""
        result = self.results.get(item.nodeid)
        if result is not None:
            return result
        if self.worker.run_dir is None:
            return CaseResult.of_case(
                item.case,
                error=(
                    "This case was not scored: collection errors stopped the run before "
                    "scoring. Fix them and run the gate again."
                ),
            )
        owner = self._owners.get(item.nodeid)
        published, lost = wait_for_results(self.worker.run_dir, item.nodeid, owner)
        self.results.update(published)
        found = self.results.get(item.nodeid)
        if found is None and lost and owner is not None:
            return CaseResult.of_case(item.case, error=worker_crashed(owner))
        if found is None:
            return CaseResult.of_case(
                item.case,
                error=(
                    "No scoring result arrived for this case: the xdist worker that "
                    "scored it stopped before publishing its results."
                ),
            )
        return found

    # --- results and the gate ------------------------------------------------------------

    def record(self, report: pytest.TestReport) -> None:
        """Keep a case's final result, or note another failing test (serial or controller).

        A rerun (pytest-rerunfailures) reports each attempt; only the final outcome counts,
        so a case is gated once however often it ran.
        """
        if str(report.outcome) == RERUN_OUTCOME:
            return
        skipped = skipped_case(report)
        if skipped is not None:
            key, reason = skipped
            self.skipped[key] = reason
        result = attached_result(report)
        if result is not None:
            self.reported[report.nodeid] = result
            self._ordered = None
            self.other_failures.pop(report.nodeid, None)
        elif report.failed and report.nodeid not in self.reported:
            self.other_failures[report.nodeid] = None

    def facts(self) -> RunFacts:
        """Everything besides the case results that the verdict depends on."""
        shard = self.pytest_config.option.rag_gate_shard
        return RunFacts(
            # An xdist controller that heard from no worker knows nothing of what was
            # collected; a serial run or worker counted its own collection.
            counted=self.workers_counted > 0 or not is_controller(self.pytest_config),
            case_files=list(self.config.case_files),
            look_alike_files=self.census_taker.look_alikes(),
            golden_files=dict(self.golden_files),
            unreadable_files=list(self.golden_file_errors),
            selection=selection_options(self.pytest_config),
            shard=None if shard is None or shard.count == 1 else str(shard),
            other_failures=list(self.other_failures),
            baseline=self._baseline_comparison(),
            coverage=self._ledger(),
            cache_integrity=self.cache_integrity(),
            gate_changes=self._gate_changes(),
            scored_by=scored_by(self._gate_metric_names(), self.judge_info.kind, self.metrics),
        )

    def _gate_changes(self) -> GateChanges | None:
        """In a pull request (``GITHUB_BASE_REF``), what it changes in the gate's inputs."""
        base_ref = self.environment.base_ref
        if not base_ref:
            return None
        # Only a pull request's run compares with its base branch (git, the config's history).
        from ..gate.gate_changes import failing_cases, find_gate_changes

        failing = None
        if self.baseline is not None:
            failing = failing_cases(self.baseline.results, self.baseline.config)
        return find_gate_changes(
            self.pytest_config.rootpath,
            base_ref,
            config=self.config,
            golden_files=list(self.golden_files),
            failing_in_base=failing,
            git=self.environment.git,
        )

    def _ledger(self) -> CoverageLedger | None:
        """Where each golden case went; None when no census reached this process."""
        if self.census is None:
            return None
        reported = {(result.source, result.id) for result in self.reported.values()}
        return build_ledger(self.census, reported, self._stopped, skipped=self.skipped)

    def finish(self, session: pytest.Session) -> None:
        """Apply the gate, write the reports and set the exit status to agree with it."""
        if self.worker.is_worker:
            hand_over(self.pytest_config, self.golden_files, self.scoring_s, self.usage_stop)
            integrity = self.cache_integrity()
            output: dict[str, Any] | None = getattr(self.pytest_config, "workeroutput", None)
            if output is not None and integrity is not None:
                output[WORKER_INTEGRITY_KEY] = integrity.model_dump(mode="json")
            return
        self.cancellation.finishing()
        if self._relay is not None:
            self._relay.stop()
        if self.pytest_config.option.collectonly:
            return
        if self.usage_stop is not None:
            # Nothing was scored: a verdict over nothing would only hide the reason.
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            if is_controller(self.pytest_config):
                sys.stderr.write(f"ERROR: {self.usage_stop}\n")
            return
        if session.exitstatus == pytest.ExitCode.USAGE_ERROR and not self.reported:
            # pytest's own usage error (a path that does not exist, a bad -k expression)
            # ended the run before any case: its message is the answer, not a verdict.
            return
        # pytest says INTERRUPTED both for Ctrl-C and for a plugin that stopped the run
        # (--sw); only Ctrl-C leaves scored cases whose items never got to report them.
        interrupted = session.exitstatus == pytest.ExitCode.INTERRUPTED and not session.shouldstop
        if interrupted:
            for nodeid, result in {**self.results, **self._problems}.items():
                self.reported.setdefault(nodeid, result)
            self._ordered = None
        if is_controller(self.pytest_config) and (interrupted or self._lost_workers):
            self._take_workers_cases(interrupted)
        self._stopped = stop_reason(self.pytest_config, session, interrupted)
        self.run_facts = self.facts()
        self.verdict = evaluate_gate(
            self.collected, self._gate_metric_names(), self.config, self.run_facts
        )
        # The summary, step summary and annotations follow in the terminal summary
        # (terminal.write_summary), by the path `rag-gate gate` takes too.
        self._write_reports()
        session.exitstatus = exit_status(
            session.exitstatus,
            gate_failed=not self.verdict.passed,
            # Every failure pytest counted is a case's, and the gate weighed them all (errored
            # cases max_error_rate allows): its pass is the run's, as `rag-gate gate` says.
            gate_passed_all_failures=self.verdict.passed and not self.other_failures,
            bad_golden_input=bool(self.golden_file_errors)
            or any(is_threshold_usage_problem(result.error) for result in self.collected),
        )
        self.exit_code = int(session.exitstatus)

    def worker_lost(self, worker_id: str, error: object) -> None:
        """On the xdist controller: a worker died; its unreported cases become its errors."""
        self._lost_workers[worker_id] = str(error)
        if self._controller_run_dir is not None:
            try:
                mark_lost(self._controller_run_dir, worker_id, str(error))
            except OSError:
                pass

    def _take_workers_cases(self, interrupted: bool) -> None:
        """On the xdist controller: account for the cases no item reported.

        An interrupted run waits (briefly) for the stopped workers' results; a case with no
        published result is then ``interrupted``, or, when its worker died, ``worker
        crashed``. A share read here also tells what was collected, which the workers of an
        interrupted run never got to hand over.
        """
        run_dir = self._controller_run_dir
        if run_dir is None or not run_dir.is_dir():
            return
        if interrupted:
            request_stop(run_dir, self.cancellation.reason or "an interruption")
            since = self.cancellation.requested_at or time.monotonic()
            # The report writers load now, while the workers stop, not after.
            _load_report_writers(self.config)
            wait_for_workers(run_dir, self._workers_expected, since + WORKERS_STOP_S)
        published = published_results(run_dir)
        for share in read_shares(run_dir):
            fold_golden_files(self.golden_files, share.golden_files)
            self.workers_counted = max(self.workers_counted, 1)
            if self.census is None and share.census is not None:
                self.census = Census.model_validate(share.census)
            lost = self._lost_workers.get(share.worker_id)
            for nodeid, skeleton in share.cases.items():
                if nodeid in self.reported:
                    continue
                if not (interrupted or lost is not None or nodeid in self.other_failures):
                    continue
                result = published.get(nodeid)
                if result is None and lost is not None:
                    result = skeleton.model_copy(update={"error": worker_crashed(share.worker_id)})
                elif result is None:
                    result = skeleton.model_copy(
                        update={"error": INTERRUPTED_MESSAGE, "incomplete": True}
                    )
                self.reported[nodeid] = result
                self.other_failures.pop(nodeid, None)
        self._ordered = None

    def _baseline_comparison(self) -> BaselineComparison | None:
        """The comparison with ``--rag-gate-baseline``, over this run's shard of it."""
        if self.baseline is None:
            return None
        # The comparison's code loads only for a run given a baseline.
        from ..gate.baseline import compare_to_baseline, in_shard, scoring_differences

        metrics = self._gate_metric_names()
        return compare_to_baseline(
            in_shard(
                self.baseline.results, self.pytest_config.option.rag_gate_shard, self.collected
            ),
            self.collected,
            metrics,
            self.config,
            path=str(self.config.baseline),
            warnings=scoring_differences(self.baseline.metrics, metrics),
            base_judge=self.baseline.judge,
            new_judge=self.judge_record(),
        )

    def judge_record(self) -> JudgeInfo:
        """The run's judge with who scored each of its metrics, as its reports record it."""
        from ..scoring.metric_judges import with_metric_judges

        names = dict.fromkeys(self._gate_metric_names())
        for result in self.collected:
            names.update(dict.fromkeys(result.metrics))
        return with_metric_judges(self.judge_info, self.metrics, names)

    def _gate_metric_names(self) -> list[str]:
        present = {name for result in self.reported.values() for name in result.metrics}
        if not self.reported:
            # With no case to gate the run fails as such; a row per threshold adds nothing.
            return list(self.config.metrics or [])
        return metrics_to_gate(self.config, list(self.metrics), present)

    def usage_by_metric(self) -> dict[str, Usage]:
        """Judge usage per metric, summed over the collected cases."""
        return usage_by_metric(self.collected)

    def total_usage(self) -> Usage:
        """Judge usage over the whole run."""
        return sum(self.usage_by_metric().values(), Usage())

    def report_paths(self) -> dict[str, str | None]:
        """The report files this run writes, by kind, as configured."""
        return {
            "JSON": self.config.report,
            "JUnit": self.config.junit,
            "HTML": self.config.html,
            "Markdown": self.config.markdown,
            "OpenTelemetry": self.otel_sent,
        }

    def _write_reports(self) -> None:
        """Every file the settings ask for, by the one path `rag-gate gate` takes too."""
        assert self.verdict is not None
        from ..reports.outputs import OutputFiles, RunOutcome, write_outputs

        shard = self.pytest_config.option.rag_gate_shard
        baseline = stamp = None
        if self.baseline is not None and self.config.html:
            from ..gate.baseline import in_shard
            from ..reports.json_report import saved_stamp

            baseline = in_shard(self.baseline.results, shard, self.collected)
            stamp = saved_stamp(self.baseline)
        outcome = RunOutcome(
            verdict=self.verdict,
            results=self.collected,
            config=self.config,
            judge=self.judge_record(),
            facts=self.run_facts,
            wall_s=round(time.monotonic() - self.started, 3),
            scoring_s=round(self.scoring_s, 3),
            # A run stopped before any case was collected is incomplete too.
            incomplete=is_incomplete(self.collected)
            or (self.cancellation.requested and not self.collected),
            shard=None if shard is None else {"index": shard.index, "count": shard.count},
            baseline=baseline,
            baseline_stamp=stamp,
            environment=self.environment,
        )
        outputs = OutputFiles.from_config(
            self.config,
            self.pytest_config.invocation_params.dir,
            notice=lambda problem: _notice(problem, self.pytest_config),
            environment=self.environment,
        )
        self.otel_sent = write_outputs(outcome, outputs).otel


def _load_report_writers(config: GateConfig) -> None:
    from ..reports import outputs  # noqa: F401

    if config.html:
        from ..reports import html  # noqa: F401
    if config.junit:
        from ..reports import junit  # noqa: F401


def _problem_result(item: BadCaseItem) -> CaseResult:
    problem = item.problem
    return CaseResult.of_problem(
        problem.file, problem.line, problem.label, problem.message, problem.salvaged
    )


def _warn_pending_review(cases: Sequence[GoldenCase], config: pytest.Config) -> None:
    """Say once (on one xdist worker only) how many unreviewed generated cases are scored.

    A notice, not a failure: under ``-W error`` it is printed instead of raised, since
    unreviewed cases are the user's to review, not a broken run.
    """
    pending = pending_review(cases)
    if not pending:
        return
    _notice(
        f"rag-gate: {pending} of {len(cases)} golden case(s) are review: pending "
        "(generated by rag-gate synth, not yet checked by a person); review them "
        "with `rag-gate synth review FILE`.",
        config,
    )


def _raised_as_error(message: str) -> bool:
    """Whether the warnings filter (``-W error``) would raise ``message`` as a warning."""
    try:
        with warnings.catch_warnings(record=True):
            warnings.warn(pytest.PytestWarning(message), stacklevel=1)
    except pytest.PytestWarning:
        return True
    return False


def _notice(message: str, config: pytest.Config) -> None:
    """A warning in pytest's summary; printed instead when ``-W error`` would raise it."""
    try:
        warnings.warn(pytest.PytestWarning(message), stacklevel=1)
    except pytest.PytestWarning:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(message)
        else:
            sys.stderr.write(message + "\n")


def selection_options(config: pytest.Config) -> list[str]:
    """The options of this run that choose a subset of the collected tests.

    The gate names them when it gated fewer golden cases than were collected.
    """
    option = config.option
    chosen = deselecting_options(config)
    if getattr(option, "lf", False):
        chosen.append("--lf")
    if getattr(option, "stepwise", False) or getattr(option, "stepwise_skip", False):
        chosen.append("--sw")
    if option.maxfail:
        chosen.append("-x" if option.maxfail == 1 else f"--maxfail {option.maxfail}")
    if any("::" in arg for arg in config.args):
        chosen.append("node ids named on the command line")
    return chosen


def exit_status(
    status: int | pytest.ExitCode,
    *,
    gate_failed: bool,
    bad_golden_input: bool,
    gate_passed_all_failures: bool = False,
) -> int | pytest.ExitCode:
    """The run's exit status: pytest's own, except where the gate has something to add.

    pytest's statuses stand — 2 for an interruption or a collection error, 5 when
    nothing was collected — so that CI scripts read them as they read any pytest run. A
    failed gate turns an otherwise successful run into 1; a golden file that cannot be
    read, or a case whose thresholds ask for what the run cannot gate (a metric it leaves
    out, a direction against the metric's), is bad input, a usage error (4), like a bad
    option or config file. A passing gate whose only failed items are its own cases (the
    errored ones ``max_error_rate`` allows) exits 0, as ``rag-gate gate`` does on its report.
    """
    if bad_golden_input:
        return pytest.ExitCode.USAGE_ERROR
    if gate_passed_all_failures and status == pytest.ExitCode.TESTS_FAILED:
        return pytest.ExitCode.OK
    if gate_failed and status == pytest.ExitCode.OK:
        return pytest.ExitCode.TESTS_FAILED
    return status
