"""Score many cases at once: every case's metrics run concurrently on one event loop.

Wall time then grows with cases ÷ concurrency rather than cases × judge latency. Within a
case, identical judge requests (faithfulness and answer correctness both extract the
answer's claims) are sent once and shared.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

from ..exceptions import BudgetExceeded, CaseError, JudgeError, TargetFailed
from ..golden.cases import GoldenCase
from ..judges.base import AskContext, Judge, Vectors
from ..judges.requests import JudgeRequest, ReviewContexts, VerifyClaims
from ..metrics.base import Metric, MetricResult, missing_fields
from ..text_safety import json_text
from ..usage import Usage
from .interruption import INTERRUPTED_MESSAGE, unscored
from .repeats import AutoRepeat, combine_repeats, item_agreement
from .request_pairing import CasePlan, RequestPairing
from .results import CaseResult
from .score_checks import InvalidMetricResult, checked_result

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


class RepeatChooser(Protocol):
    """Picks, round by round, the cases to judge again (``repeats: auto``)."""

    reasons: dict[str, str]

    def next_round(self, results: Mapping[str, CaseResult]) -> list[GoldenCase]:
        """The cases to judge again now, given every result so far; empty when done."""
        ...


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


async def _sent_nowhere(request: JudgeRequest[Any], metric: str, repeat: int) -> Any:
    raise RuntimeError(f"the {request.kind} request came after its case was scored")


class _SharedRequests:
    """The judge as seen by one case: identical requests are answered once."""

    def __init__(self, judge: Judge, progress: Progress) -> None:
        self._judge = judge
        self._progress = progress
        self._pending: dict[str, asyncio.Task[Any]] = {}
        self._pairing = RequestPairing(CasePlan(), self._dispatch)
        self.usage_by_metric: dict[str, Usage] = {}

    def settle(self) -> None:
        """The case is scored: let go of its answered requests.

        Each request's task holds this view, which holds the task; the pairing sends
        through this view's own method. Such cycles only the cyclic collector frees, and
        every collection until then walked them again.
        """
        self._pending.clear()
        self._pairing = RequestPairing(self._pairing.plan, _sent_nowhere)

    def leftovers(self) -> list[asyncio.Future[Any]]:
        """The requests still being answered when the scoring stopped."""
        return [*self._pending.values(), *self._pairing.sending()]

    def plan(self, plan: CasePlan) -> None:
        """Pair this case's requests as ``plan`` says (before any is asked)."""
        self._pairing = RequestPairing(plan, self._dispatch)

    def finished(self, metric: str, repeats: int) -> None:
        """``metric`` has asked all it will ask."""
        self._pairing.finished(metric, range(repeats))

    def for_metric(self, metric: str, repeat: int = 0) -> _MetricJudge:
        return _MetricJudge(self, metric, repeat)

    def charge(self, metric: str, usage: Usage) -> None:
        if usage == _NO_USAGE:
            # The offline judge and other free answers cost nothing; a record of zeros per
            # metric per case would only swell the report.
            return
        self.usage_by_metric[metric] = self.usage_by_metric.get(metric, Usage()) + usage
        self._progress.judge_calls += usage.calls
        self._progress.retries += usage.retries
        self._progress.cache_hits += usage.cache_hits

    async def ask(self, request: JudgeRequest[ReplyT], metric: str, repeat: int = 0) -> ReplyT:
        # Metrics share a request within one repeat, never across repeats: each repeat is
        # its own judgement.
        key = f"{repeat}:{request.kind}:{_request_text(request)}"
        task = self._pending.get(key)
        if task is None:
            task = asyncio.ensure_future(self._send(request, metric, repeat))
            self._pending[key] = task
        reply: ReplyT = await asyncio.shield(task)
        return reply

    async def _send(self, request: JudgeRequest[ReplyT], metric: str, repeat: int) -> ReplyT:
        reply: Any
        if isinstance(request, ReviewContexts):
            reply = await self._pairing.review(request, metric, repeat)
        elif isinstance(request, VerifyClaims):
            reply = await self._pairing.verify(request, metric, repeat)
        else:
            reply = await self._dispatch(request, metric, repeat)
        sent: ReplyT = reply
        return sent

    async def embed(self, texts: Sequence[str], metric: str) -> Vectors:
        """Embed through the judge; ``metric`` pays, failed or not."""
        try:
            answer = await self._judge.embed(texts, context=AskContext())
        except JudgeError as error:
            if error.usage is not None:
                self.charge(metric, error.usage)
            raise
        self.charge(metric, answer.usage)
        return answer.vectors

    async def _dispatch(self, request: JudgeRequest[ReplyT], metric: str, repeat: int) -> ReplyT:
        context = AskContext(
            repeat=repeat, contexts_sent_again=self._pairing.plan.contexts_sent_again
        )
        try:
            answer = await self._judge.ask(request, context=context)
        except JudgeError as error:
            # A request that failed for good still made calls: the report counts them.
            if error.usage is not None:
                self.charge(metric, error.usage)
            raise
        # The metric that asked first pays; a shared request is never counted twice.
        self.charge(metric, answer.usage)
        return answer.reply


def _request_text(request: JudgeRequest[Any]) -> str:
    """``request``'s fields as JSON text: the same for identical requests, and only for them."""
    try:
        # pydantic's own writer: every metric of every case asks through here, and it is
        # five times quicker than dumping to Python objects and writing those.
        return request.model_dump_json()
    except PydanticSerializationError:
        # It refuses a lone surrogate, which a live target's answer can hold.
        return json_text(request.model_dump(mode="json"))


class _MetricJudge:
    """A ``CaseJudge`` bound to one metric of one case."""

    def __init__(self, shared: _SharedRequests, metric: str, repeat: int = 0) -> None:
        self._shared = shared
        self._metric = metric
        self._repeat = repeat
        self.asked = 0

    async def ask(self, request: JudgeRequest[ReplyT]) -> ReplyT:
        self.asked += 1
        return await self._shared.ask(request, self._metric, self._repeat)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return await self._shared.embed(texts, self._metric)


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
    repeats: int = 1,
) -> CaseResult:
    """Run every metric of one case concurrently and collect scores, verdicts and errors.

    ``shared`` is the case's view of the judge, when the caller keeps it to account for
    what an interrupted case spent. With ``repeats`` K ≥ 2 each metric is scored K times,
    and the case keeps the mean score, each repeat's score and their item agreement; a
    repeat that errors makes the metric an error, as one unrepeated failure would.
    """
    started = time.monotonic()
    shared = shared or _SharedRequests(judge, progress)
    capabilities = judge.capabilities
    if capabilities.pairs_requests and not capabilities.batch:
        shared.plan(CasePlan.of(case, metric_names, metrics, repeats))
    result = CaseResult.of_case(case, metrics=metric_names)

    async def run_one(name: str) -> tuple[str, MetricResult | BaseException]:
        metric = metrics[name]
        missing = missing_fields(metric, case, scoring=True)
        if missing:
            return name, MetricResult.lacking(missing)
        judges = [shared.for_metric(name, repeat) for repeat in range(repeats)]

        async def one_repeat(judge: _MetricJudge) -> MetricResult:
            return checked_result(name, await metric.score(case, judge))

        try:
            if repeats == 1:
                # No task per metric on the common path: a large run scores many of them.
                judged = [await one_repeat(judges[0])]
            else:
                judged = list(await asyncio.gather(*(one_repeat(judge) for judge in judges)))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # any failure is that metric's error, never a score
            return name, error
        finally:
            shared.finished(name, repeats)
        if repeats == 1 or not any(judge.asked for judge in judges):
            # A metric that asked no judge (id_recall, latency) has no judge noise.
            return name, judged[0]
        result.repeat_scores[name] = [repeat.score for repeat in judged]
        result.repeat_agreement[name] = item_agreement([repeat.details for repeat in judged])
        return name, combine_repeats(judged)

    outcomes = await asyncio.gather(*(run_one(name) for name in metric_names))
    shared.settle()
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
                result.budget_spent = True
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
    repeats: int = 1,
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
    result = await score_case(
        filled, metric_names_for(filled), metrics, judge, progress, shared, repeats
    )
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
    repeats: int = 1,
    again: RepeatChooser | None = None,
    close_judge: bool = True,
) -> dict[str, CaseResult]:
    """Score all cases concurrently; returns results keyed by ``GoldenCase.source``+id.

    With ``again`` (static cases only), every case is judged once, then the cases it
    picks are judged ``repeats`` times over, round by round, before the judge is closed;
    each such result adds the calls of its first judgement and says why it was picked.

    Finished cases are also stored in ``into`` as they finish, so a caller whose scoring is
    interrupted (Ctrl-C cancels the event loop) still holds every result that was complete.
    With a live-mode ``target``, each case first calls it and is scored on what it returned.
    ``close_judge`` False leaves the judge open for the caller once every case is scored,
    which then closes it; an interrupted run closes it here all the same.
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
        # With a chooser, the first judgement of every case is single: it picks the rest.
        first_repeats = 1 if again is not None and target is None else repeats
        for case in pending:
            shared = _SharedRequests(judge, progress)
            in_flight[case.key] = (case, shared)
            if target is None:
                result = await score_case(
                    case, metric_names_for(case), metrics, judge, progress, shared, first_repeats
                )
            else:
                result = await score_live_case(
                    case, target, metric_names_for, metrics, judge, progress, shared, repeats
                )
            results[case.key] = result
            del in_flight[case.key]
            progress.cases_done += 1

    async def report_progress() -> None:
        while on_progress is not None:
            on_progress(progress)
            await asyncio.sleep(progress_interval_s)

    # Cases being judged again: an interrupted one keeps its first result, plus what the
    # unfinished repeats cost.
    judged_again: dict[str, _SharedRequests] = {}

    async def judge_again(chooser: RepeatChooser, chosen: Sequence[GoldenCase]) -> None:
        queue = iter(chosen)

        async def again_worker() -> None:
            for case in queue:
                first = results[case.key]
                shared = _SharedRequests(judge, progress)
                judged_again[case.key] = shared
                result = await score_case(
                    case, metric_names_for(case), metrics, judge, progress, shared, repeats
                )
                del judged_again[case.key]
                extra = sum(usage.calls for usage in result.usage.values())
                for metric, usage in first.usage.items():
                    result.usage[metric] = usage + result.usage.get(metric, Usage())
                result.usage = dict(sorted(result.usage.items()))
                result.scoring_s = round(first.scoring_s + result.scoring_s, 6)
                result.auto_repeat = AutoRepeat(reason=chooser.reasons[case.key], extra_calls=extra)
                results[case.key] = result

        await asyncio.gather(
            *(again_worker() for _ in range(min(max(1, max_cases_in_flight), len(chosen))))
        )

    reporter = asyncio.ensure_future(report_progress())
    finished = False
    try:
        workers = min(max(1, max_cases_in_flight), len(cases))
        await asyncio.gather(*(worker() for _ in range(workers)))
        while again is not None and target is None:
            chosen = [case for case in again.next_round(results) if case.key in results]
            if not chosen:
                break
            await judge_again(again, chosen)
        finished = True
    finally:
        reporter.cancel()
        if target is not None:
            target.close()
        # An interrupted run closes the judge here whatever the caller asked: closing is what
        # collects a canceled batch's answered requests, billed to the cases still in flight.
        if close_judge or not finished:
            await judge.aclose()
        if not finished:
            # A request shielded for its sharers outlives the case that asked it; stopped
            # here and awaited, it cannot fail later against the closed client, with no one
            # to hear it but the garbage collector.
            leftovers = [task for _, shared in in_flight.values() for task in shared.leftovers()]
            leftovers += [task for shared in judged_again.values() for task in shared.leftovers()]
            for task in leftovers:
                task.cancel()
            await asyncio.gather(*leftovers, return_exceptions=True)
        for key, (case, shared) in in_flight.items():
            if key not in results and shared.usage_by_metric:
                interrupted = unscored(case, INTERRUPTED_MESSAGE)
                interrupted.usage = dict(sorted(shared.usage_by_metric.items()))
                results[key] = interrupted
        for key, shared in judged_again.items():
            spent = results[key].usage
            for metric, usage in shared.usage_by_metric.items():
                spent[metric] = spent.get(metric, Usage()) + usage
    if on_progress is not None:
        on_progress(progress)
    return results
