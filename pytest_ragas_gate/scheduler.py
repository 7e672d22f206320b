"""Score many cases at once: every case's metrics run concurrently on one event loop.

Wall time then grows with cases ÷ concurrency rather than cases × judge latency. Within a
case, identical judge requests (faithfulness and answer correctness both extract the
answer's claims) are sent once and shared.
"""

from __future__ import annotations

import asyncio
import functools
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from .cases import GoldenCase
from .exceptions import BudgetExceeded, CaseError, JudgeError, TargetFailed
from .interruption import INTERRUPTED_MESSAGE, unscored
from .judges.base import Judge, Usage, usage_sink
from .judges.requests import JudgeRequest
from .metrics.base import Metric, MetricResult, missing_fields
from .results import CaseResult
from .score_checks import InvalidMetricResult, checked_result
from .text_safety import json_text

_NO_USAGE = Usage()

ReplyT = TypeVar("ReplyT", bound=BaseModel)

ProgressCallback = Callable[["Progress"], None]


@dataclass
class Progress:
    """Running totals for the live progress line."""

    total_cases: int
    cases_done: int = 0
    judge_calls: int = 0
    retries: int = 0
    cache_hits: int = 0
    errors: int = 0
    started: float = field(default_factory=time.monotonic)

    def line(self) -> str:
        """One status line, e.g. ``rag-gate: 40/100 cases · 160 calls · 2 retries``."""
        return (
            f"rag-gate: {self.cases_done}/{self.total_cases} cases scored · "
            f"{self.judge_calls} judge calls · {self.cache_hits} cached · "
            f"{self.retries} retries · {self.errors} errors · "
            f"{time.monotonic() - self.started:.1f}s"
        )


class Target(Protocol):
    """Live mode's system under test, as the scheduler calls it (``live.LiveTarget`` is one).

    The target only answers; scoring what it answered stays here, so data flows one way:
    case → target → metrics.
    """

    async def answer(self, case: GoldenCase) -> tuple[GoldenCase, float]:
        """The case with the system's answer and contexts, and the call's seconds.

        Raises:
            CaseError: The system failed on this case; the message is the case's error.
        """
        ...

    def close(self) -> None:
        """Release what the calls held; called once, after the last case."""
        ...


class _SharedRequests:
    """The judge as seen by one case: identical requests are answered once."""

    def __init__(self, judge: Judge, progress: Progress) -> None:
        self._judge = judge
        self._progress = progress
        self._pending: dict[str, asyncio.Task[Any]] = {}
        self.usage_by_metric: dict[str, Usage] = {}

    def for_metric(self, metric: str) -> _MetricJudge:
        return _MetricJudge(self, metric)

    def charge(self, metric: str, usage: Usage) -> None:
        if usage == _NO_USAGE:
            # The offline judge and other free answers cost nothing; a record of zeros per
            # metric per case would only swell the report.
            return
        self.usage_by_metric[metric] = self.usage_by_metric.get(metric, Usage()) + usage
        self._progress.judge_calls += usage.calls
        self._progress.retries += usage.retries
        self._progress.cache_hits += usage.cache_hits

    async def ask(self, request: JudgeRequest[ReplyT], metric: str) -> ReplyT:
        key = f"{request.kind}:{json_text(request.model_dump(mode='json'))}"
        task = self._pending.get(key)
        if task is None:
            task = asyncio.ensure_future(self._send(request, metric))
            self._pending[key] = task
        reply: ReplyT = await asyncio.shield(task)
        return reply

    async def _send(self, request: JudgeRequest[ReplyT], metric: str) -> ReplyT:
        try:
            answer = await self._judge.ask(request)
        except JudgeError as error:
            # A request that failed for good still made calls: the report counts them.
            if error.usage is not None:
                self.charge(metric, error.usage)
            raise
        # The metric that asked first pays; a shared request is never counted twice.
        self.charge(metric, answer.usage)
        return answer.reply


class _MetricJudge:
    """A ``CaseJudge`` bound to one metric of one case."""

    def __init__(self, shared: _SharedRequests, metric: str) -> None:
        self._shared = shared
        self._metric = metric

    async def ask(self, request: JudgeRequest[ReplyT]) -> ReplyT:
        return await self._shared.ask(request, self._metric)


def describe_error(error: BaseException) -> tuple[str, str | None]:
    """A one-line message, plus the traceback unless the error is an expected judge failure."""
    message = str(error) or type(error).__name__
    # Its message says all: which metric returned what, and what a score must be.
    if isinstance(error, (JudgeError, InvalidMetricResult)):
        return message, None
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    return f"{type(error).__name__}: {message}", text


async def score_case(
    case: GoldenCase,
    metric_names: Sequence[str],
    metrics: Mapping[str, Metric],
    judge: Judge,
    progress: Progress,
    shared: _SharedRequests | None = None,
) -> CaseResult:
    """Run every metric of one case concurrently and collect scores, verdicts and errors.

    ``shared`` is the case's view of the judge, when the caller keeps it to account for
    what an interrupted case spent.
    """
    started = time.monotonic()
    shared = shared or _SharedRequests(judge, progress)
    result = CaseResult.of_case(case, metrics=metric_names)

    async def run_one(name: str) -> tuple[str, MetricResult | BaseException]:
        metric = metrics[name]
        missing = missing_fields(metric, case)
        if missing:
            return name, MetricResult.lacking(missing)
        # run_one is its own task under gather, so this binding is this metric's alone.
        usage_sink.set(functools.partial(shared.charge, name))
        try:
            return name, checked_result(name, await metric.score(case, shared.for_metric(name)))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # any failure is that metric's error, never a score
            return name, error

    outcomes = await asyncio.gather(*(run_one(name) for name in metric_names))
    for name, outcome in outcomes:
        if isinstance(outcome, BaseException):
            message, trace = describe_error(outcome)
            result.errors[name] = message
            if isinstance(outcome, JudgeError):
                result.judge_errors.append(name)
            if trace is not None:
                result.details[name] = [{"traceback": trace}]
            progress.errors += 1
            if isinstance(outcome, BudgetExceeded):
                result.error = message
                result.incomplete = True
            continue
        result.scores[name] = outcome.score
        if outcome.reason:
            result.reasons[name] = outcome.reason
        if outcome.details:
            result.details[name] = list(outcome.details)
    result.usage = dict(sorted(shared.usage_by_metric.items()))
    result.scoring_s = round(time.monotonic() - started, 6)
    return result


async def score_live_case(
    case: GoldenCase,
    target: Target,
    metric_names_for: Callable[[GoldenCase], Sequence[str]],
    metrics: Mapping[str, Metric],
    judge: Judge,
    progress: Progress,
    shared: _SharedRequests | None = None,
) -> CaseResult:
    """Ask the target for the case's answer, then score what it produced.

    The metrics are chosen on the filled-in case, since the target may add the answer,
    the contexts or the tool a metric needs. A target failure is the case's error.
    """
    try:
        filled, latency = await target.answer(case)
    except CaseError as error:
        progress.errors += 1
        failed = CaseResult.of_case(case, error=str(error))
        # A failed call still took its time: latency figures count it, as an error.
        if isinstance(error, TargetFailed) and error.seconds is not None:
            failed.latency_s = round(error.seconds, 6)
            failed.target_failed = True
        return failed
    result = await score_case(filled, metric_names_for(filled), metrics, judge, progress, shared)
    result.latency_s = round(latency, 6)
    return result


async def score_cases(
    cases: Sequence[GoldenCase],
    metric_names_for: Callable[[GoldenCase], Sequence[str]],
    metrics: Mapping[str, Metric],
    judge: Judge,
    *,
    max_cases_in_flight: int,
    on_progress: ProgressCallback | None = None,
    progress_interval_s: float = 0.5,
    into: dict[str, CaseResult] | None = None,
    target: Target | None = None,
) -> dict[str, CaseResult]:
    """Score all cases concurrently; returns results keyed by ``GoldenCase.source``+id.

    Finished cases are also stored in ``into`` as they finish, so a caller whose scoring is
    interrupted (Ctrl-C cancels the event loop) still holds every result that was complete.
    With a live-mode ``target``, each case first calls it and is scored on what it returned.
    """
    progress = Progress(total_cases=len(cases))
    results: dict[str, CaseResult] = {} if into is None else into
    # A fixed pool of workers pulls the cases in order: as many in flight as allowed, and
    # no task object per case waiting its turn (50,000 of them cost ~70 MB).
    pending = iter(cases)
    # The cases being scored, each with its view of the judge: an interrupted case keeps
    # what its requests cost, replies the judge still took in while closing included.
    in_flight: dict[str, tuple[GoldenCase, _SharedRequests]] = {}

    async def worker() -> None:
        for case in pending:
            shared = _SharedRequests(judge, progress)
            in_flight[case.key] = (case, shared)
            if target is None:
                result = await score_case(
                    case, metric_names_for(case), metrics, judge, progress, shared
                )
            else:
                result = await score_live_case(
                    case, target, metric_names_for, metrics, judge, progress, shared
                )
            results[case.key] = result
            del in_flight[case.key]
            progress.cases_done += 1

    async def report_progress() -> None:
        while on_progress is not None:
            on_progress(progress)
            await asyncio.sleep(progress_interval_s)

    reporter = asyncio.ensure_future(report_progress())
    try:
        workers = min(max(1, max_cases_in_flight), len(cases))
        await asyncio.gather(*(worker() for _ in range(workers)))
    finally:
        reporter.cancel()
        if target is not None:
            target.close()
        await judge.aclose()
        for key, (case, shared) in in_flight.items():
            if key not in results and shared.usage_by_metric:
                interrupted = unscored(case, INTERRUPTED_MESSAGE)
                interrupted.usage = dict(sorted(shared.usage_by_metric.items()))
                results[key] = interrupted
    if on_progress is not None:
        on_progress(progress)
    return results
