"""Batch mode: collect a run's judge requests into provider batch jobs, poll, hand back results.

The metrics ask their requests concurrently, each awaiting its reply, exactly as with
direct calls. In batch mode a judge hands each call to a :class:`Batcher` instead of
sending it: the call waits while the batcher collects requests, and once no new request
has arrived for a short quiet window (every case in flight is then waiting on a reply),
or ``max_requests`` are pending, the batcher submits them as one batch job
(:class:`BatchApi`: the Anthropic Message Batches API or the OpenAI Batch API, both at
half the list price), polls it with a progress line, and resolves every waiting call from
the results. The judge then takes each result through the same validation, re-ask, cache
and error path as a direct reply. Requests that need an earlier reply (the claim
verification waits for the extraction) arrive after the first batch is answered and form
the next one.

A request the batch did not answer (errored, expired, canceled, or missing) raises
:class:`BatchRequestError`, a :class:`~pytest_ragas_gate.exceptions.JudgeError`: that
metric of that case is an error, never a score, and the gate fails closed.

Resume: every submitted batch is saved in ``<cache_dir>/batches/<hash>.json`` with its
requests' ids (:class:`BatchStore`). A run killed while a batch was running, or whose
polling failed, leaves the file behind; the next run with the same requests picks that
batch up instead of submitting (and paying for) a new one. The ids are the requests'
cache keys, so they do not depend on anything random in the prompt. The file is removed
once the batch's results are read.

Interruption (Ctrl-C: :meth:`Batcher.aclose`): the running batches are canceled, and the
requests the provider answered before the cancel are not thrown away: the batcher waits
(at most :data:`CANCEL_TIMEOUT_S`) for each canceled batch to end, reads its results and
hands the answered ones to the calls still waiting for them, which take them through
validation, the reply cache and the usage accounts as usual. A re-run then replays them
from the cache and submits only what is missing. A canceled batch whose results cannot
be read in time stays saved, and the next run picks it up: it reads the answered
requests and sends the rest in a new batch.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..atomic_files import write_text_atomic
from ..exceptions import JudgeError
from ..text_safety import json_text
from ..usage import Usage
from .cache import cache_key
from .prompts import PROMPT_VERSION
from .reply_validation import Followup
from .requests import JudgeRequest
from .transport import Transport, redact

#: How many consecutive quiet ticks (no new request) make the quiet window; each tick
#: is also at least one turn of the event loop, so a slow turn cannot end the window early.
QUIET_TICKS = 5
#: Requests per batch job (both APIs accept more; smaller jobs finish sooner).
MAX_BATCH_REQUESTS = 10_000
#: How long a best-effort cancellation may hold up the end of an interrupted run.
CANCEL_TIMEOUT_S = 10.0
#: The first wait between two polls; it doubles up to the judge's ``poll_s``.
FIRST_POLL_S = 1.0

Report = Callable[[str], None]


def print_to_stderr(line: str) -> None:
    """Show one batch progress line (also in CI logs: a batch can run for hours)."""
    # On a terminal the run's own progress line may hold the cursor: clear it first.
    clear = "\r\x1b[K" if sys.stderr.isatty() else ""
    sys.stderr.write(clear + line + "\n")
    sys.stderr.flush()


def batch_custom_id(
    judge_kind: str,
    model: str,
    request: JudgeRequest[Any],
    followups: Sequence[Followup] = (),
    *,
    repeat: int = 0,
) -> str:
    """The id of a request in a batch job: its cache key, plus its re-asks if any.

    Stable across processes (the prompt's data-block id is random per process, the cache
    key is not), so a later run recognises a saved batch's requests; 64 hex characters,
    which both APIs accept. The repeats of a repeated judgement are requests of their own,
    never merged into one.
    """
    key = cache_key(
        judge_kind=judge_kind,
        model=model,
        prompt_version=PROMPT_VERSION,
        kind=request.kind,
        payload=request.model_dump(mode="json"),
        repeat=repeat,
    )
    if not followups:
        return key
    reasks = json_text([key, [list(followup) for followup in followups]])
    return hashlib.sha256(reasks.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class BatchState:
    """A batch job's status as one poll saw it.

    Attributes:
        ended: processing is over (every request answered, errored, expired or canceled).
        remaining: requests not processed yet, or None while the provider does not say
            (the batcher knows how many it submitted).
        status: the provider's word for the state (``in_progress``, ``ended``, ``expired``…).
        detail: the provider's batch object, for reading the results.
    """

    ended: bool
    remaining: int | None
    status: str
    detail: Any = None


@dataclass(frozen=True)
class BatchOutcome:
    """One request's result: the response a direct call would have returned, or why not."""

    response: Any | None
    problem: str | None = None


class BatchApi(Protocol):
    """A provider's batch API, as the :class:`Batcher` drives it."""

    label: str

    async def submit(self, entries: Sequence[tuple[str, dict[str, Any]]]) -> str:
        """Create a batch job of (custom id, request parameters); returns its id."""
        ...

    async def poll(self, batch_id: str) -> BatchState:
        """The job's current state."""
        ...

    async def results(
        self, batch_id: str, state: BatchState, custom_ids: Sequence[str]
    ) -> dict[str, BatchOutcome]:
        """The outcome of (at least) each of ``custom_ids``, once the job has ended."""
        ...

    async def cancel(self, batch_id: str) -> None:
        """Ask the provider to stop the job."""
        ...


class BatchRequestError(JudgeError):
    """A request the batch job did not answer; ``problem`` says why (for fallbacks)."""

    def __init__(self, message: str, *, problem: str) -> None:
        super().__init__(message, usage=Usage(calls=1))
        self.problem = problem


# --- resume -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SavedBatch:
    """A submitted batch job as saved for a later run."""

    judge: str
    model: str
    batch_id: str
    custom_ids: frozenset[str]


class BatchStore:
    """The saved batch jobs of one judge kind and model, one JSON file each, in ``directory``.

    Files are written atomically (temporary file, then ``os.replace``); an unreadable one
    is ignored, and a failed write costs only the ability to resume.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path_for(self, judge: str, model: str, custom_ids: Iterable[str]) -> Path:
        """Where the batch of these requests is saved."""
        digest = hashlib.sha256(f"{judge}\x00{model}".encode())
        for custom_id in sorted(custom_ids):
            digest.update(b"\x00" + custom_id.encode("ascii", "replace"))
        return self.directory / f"{digest.hexdigest()[:32]}.json"

    def saved(self, judge: str, model: str) -> list[SavedBatch]:
        """Every saved batch of ``judge`` and ``model``."""
        found: list[SavedBatch] = []
        try:
            paths = sorted(self.directory.glob("*.json"))
        except OSError:
            return found
        for path in paths:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                saved = SavedBatch(
                    judge=str(data["judge"]),
                    model=str(data["model"]),
                    batch_id=str(data["batch_id"]),
                    custom_ids=frozenset(str(item) for item in data["custom_ids"]),
                )
            except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
                continue
            if saved.judge == judge and saved.model == model:
                found.append(saved)
        return found

    def save(self, saved: SavedBatch) -> None:
        """Record a submitted batch (best effort)."""
        path = self.path_for(saved.judge, saved.model, saved.custom_ids)
        entry = {
            "format": 1,
            "judge": saved.judge,
            "model": saved.model,
            "batch_id": saved.batch_id,
            "submitted_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "custom_ids": sorted(saved.custom_ids),
        }
        with contextlib.suppress(OSError):
            write_text_atomic(path, json.dumps(entry, indent=1))

    def remove(self, saved: SavedBatch) -> None:
        """Forget a batch whose results were read or which was canceled."""
        with contextlib.suppress(OSError):
            self.path_for(saved.judge, saved.model, saved.custom_ids).unlink()


# --- the batcher ------------------------------------------------------------------------------


@dataclass
class _Waiting:
    """One distinct request in a batch and every call waiting for its result."""

    params: dict[str, Any]
    what: str
    futures: list[asyncio.Future[Any]] = field(default_factory=list)


@dataclass
class _Running:
    """A batch job this run is polling."""

    saved: SavedBatch
    requests: dict[str, _Waiting]
    resumed: bool
    task: asyncio.Task[None] | None = None


class Batcher:
    """Collects one judge's calls into batch jobs and resolves each from the job's results.

    Args:
        api: the provider's batch API.
        judge: the judge kind, for saved batches.
        model: the judge model, for saved batches.
        describe: the judge's name in error messages.
        secrets: strings (the API key) that must never appear in an error message.
        store: where submitted batches are saved for a later run; None to not save them.
        poll_s: the longest wait between two polls of a job's status.
        idle_s: the quiet window after the last new request before a batch is submitted.
        max_requests: the most requests per batch job.
        report: shows a progress line.
    """

    def __init__(
        self,
        api: BatchApi,
        *,
        judge: str,
        model: str,
        describe: str,
        secrets: Sequence[str] = (),
        store: BatchStore | None = None,
        poll_s: float = 30.0,
        idle_s: float = 0.25,
        max_requests: int = MAX_BATCH_REQUESTS,
        report: Report = print_to_stderr,
    ) -> None:
        self.api = api
        self.judge = judge
        self.model = model
        self.describe = describe
        self._secrets = tuple(secrets)
        self.store = store
        self.poll_s = poll_s
        self.idle_s = idle_s
        self.max_requests = max_requests
        self.report = report
        self.submitted: list[str] = []
        self.resumed: list[str] = []
        self._pending: dict[str, _Waiting] = {}
        self._running: dict[str, _Running] = {}
        self._added = 0
        self._flusher: asyncio.Task[None] | None = None
        # Submissions an interruption may catch half-way: aclose cancels what they create.
        self._submitting: set[asyncio.Task[str]] = set()
        # Set by aclose: the run is stopping, and nothing new is submitted.
        self._closing = False

    async def send(self, custom_id: str, params: dict[str, Any], *, what: str) -> Any:
        """Queue one call and wait for its result: the response a direct call would give.

        Raises:
            BatchRequestError: the batch job did not answer this request.
            JudgeError: the batch job could not be submitted or followed.
        """
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if self._closing:
            # A re-ask of a reply kept while the run stops: it is sent by the next run.
            # The call waits until the event loop cancels it, rather than fail in a task
            # nobody awaits any more.
            return await future
        waiting = self._pending.get(custom_id) or self._running_request(custom_id)
        if waiting is None:
            waiting = _Waiting(params, what)
            self._queue(custom_id, waiting)
        # An identical request already queued or in a running batch is sent once.
        waiting.futures.append(future)
        return await future

    def _running_request(self, custom_id: str) -> _Waiting | None:
        for running in self._running.values():
            waiting = running.requests.get(custom_id)
            if waiting is not None:
                return waiting
        return None

    async def _flush_when_quiet(self) -> None:
        quiet, seen = 0, self._added
        while self._pending:
            await asyncio.sleep(self.idle_s / QUIET_TICKS)
            if self._added != seen and len(self._pending) < self.max_requests:
                quiet, seen = 0, self._added
                continue
            quiet += 1
            if quiet >= QUIET_TICKS or len(self._pending) >= self.max_requests:
                quiet, seen = 0, self._added
                await self._flush()

    async def _flush(self) -> None:
        pending, self._pending = self._pending, {}
        if self.store is not None:
            for saved in self.store.saved(self.judge, self.model):
                mine = {cid: pending.pop(cid) for cid in saved.custom_ids if cid in pending}
                if not mine:
                    continue
                running = self._running.get(saved.batch_id)
                if running is not None:
                    running.requests.update(mine)
                    continue
                self.resumed.append(saved.batch_id)
                self.report(
                    f"rag-gate: batch {saved.batch_id} picked up from an earlier run "
                    f"({len(mine)} of its {len(saved.custom_ids)} requests are needed)"
                )
                self._follow(saved, mine, resumed=True)
        items = list(pending.items())
        for start in range(0, len(items), self.max_requests):
            chunk = dict(items[start : start + self.max_requests])
            submitting = asyncio.ensure_future(
                self.api.submit([(cid, waiting.params) for cid, waiting in chunk.items()])
            )
            self._submitting.add(submitting)
            # Shielded: if the run is interrupted now, the job may be created all the same,
            # and aclose must learn its id to cancel it.
            try:
                batch_id = await asyncio.shield(submitting)
            except JudgeError as error:
                self._submitting.discard(submitting)
                self._fail(chunk, error)
                continue
            self._submitting.discard(submitting)
            saved = SavedBatch(self.judge, self.model, batch_id, frozenset(chunk))
            if self.store is not None:
                self.store.save(saved)
            self.submitted.append(batch_id)
            self.report(
                f"rag-gate: batch {batch_id} submitted: {len(chunk)} requests through the "
                f"{self.api.label} (half price; results within 24 hours)"
            )
            self._follow(saved, chunk, resumed=False)

    def _follow(self, saved: SavedBatch, requests: dict[str, _Waiting], *, resumed: bool) -> None:
        running = _Running(saved, requests, resumed)
        self._running[saved.batch_id] = running
        running.task = asyncio.ensure_future(self._poll(running))

    async def _poll(self, running: _Running) -> None:
        batch_id = running.saved.batch_id
        delay = min(FIRST_POLL_S, self.poll_s)
        shown: tuple[int, int] | None = None
        polled = ended = False
        try:
            while True:
                state = await self.api.poll(batch_id)
                polled = True
                total = len(running.saved.custom_ids)
                remaining = 0 if state.ended else state.remaining
                done = total - min(total, total if remaining is None else remaining)
                if (done, total) != shown:
                    shown = (done, total)
                    self.report(f"rag-gate: batch {batch_id} {done}/{total} done")
                if state.ended:
                    ended = True
                    break
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.poll_s)
            outcomes = await self.api.results(batch_id, state, list(running.requests))
        except JudgeError as error:
            self._running.pop(batch_id, None)
            if running.resumed and (ended or not polled):
                # The saved batch is unknown to the provider (deleted, another account), or
                # its results are gone (archived): its requests are sent in a new batch.
                if self.store is not None:
                    self.store.remove(running.saved)
                self._requeue(running.requests)
                return
            # The batch may still be running at the provider: its file stays, and the
            # next run picks it up rather than paying for the requests again.
            message = redact(
                f"{error} (while following batch {batch_id}; it is left running, and the "
                "next run picks it up instead of submitting a new one)",
                self._secrets,
            )
            self._fail(running.requests, JudgeError(message))
            return
        self._running.pop(batch_id, None)
        if self.store is not None:
            self.store.remove(running.saved)
        unanswered = self._answer(running.requests, outcomes)
        if running.resumed:
            # A batch an earlier run canceled (or one that expired) answered part of its
            # requests; the rest are sent anew rather than counted as errors.
            self._requeue(unanswered)
            return
        for custom_id, waiting in unanswered.items():
            outcome = outcomes.get(custom_id) or BatchOutcome(
                None, f"the batch ended ({state.status}) without a result for it"
            )
            problem = outcome.problem or "it has no result"
            message = redact(
                f"The {self.describe} got no answer to the {waiting.what} request from "
                f"batch {batch_id}: {problem}. The case is not scored; run the gate again "
                "to send the request anew.",
                self._secrets,
            )
            for future in waiting.futures:
                if not future.done():
                    future.set_exception(BatchRequestError(message, problem=problem))

    @staticmethod
    def _answer(
        requests: Mapping[str, _Waiting], outcomes: Mapping[str, BatchOutcome]
    ) -> dict[str, _Waiting]:
        """Hand each answered request's response to its calls; returns the unanswered."""
        unanswered: dict[str, _Waiting] = {}
        for custom_id, waiting in requests.items():
            outcome = outcomes.get(custom_id)
            if outcome is None or outcome.response is None:
                unanswered[custom_id] = waiting
                continue
            for future in waiting.futures:
                if not future.done():
                    future.set_result(outcome.response)
        return unanswered

    def _queue(self, custom_id: str, waiting: _Waiting) -> None:
        """Add a request to the next batch, and start waiting for the queue to go quiet."""
        self._pending[custom_id] = waiting
        self._added += 1
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.ensure_future(self._flush_when_quiet())

    def _requeue(self, requests: Mapping[str, _Waiting]) -> None:
        for custom_id, waiting in requests.items():
            self._queue(custom_id, waiting)

    @staticmethod
    def _fail(requests: Mapping[str, _Waiting], error: JudgeError) -> None:
        for waiting in requests.values():
            for future in waiting.futures:
                if not future.done():
                    # One error object per waiting call: a raised exception collects a
                    # traceback, which concurrent raisers must not share.
                    future.set_exception(JudgeError(str(error)))

    async def aclose(self) -> None:
        """Cancel every batch still running (the run was interrupted), keeping what it answered.

        Each canceled batch is followed to its end (within :data:`CANCEL_TIMEOUT_S` in
        all) and its answered requests are handed to the calls still waiting for them, so
        their replies reach the cache and the report counts what they cost. A batch whose
        results were read is already closed; one whose polling failed, or whose results
        cannot be read in time, is left saved for the next run.
        """
        self._closing = True
        if self._flusher is not None:
            self._flusher.cancel()
        self._pending.clear()
        running, self._running = list(self._running.values()), {}
        to_cancel: list[tuple[str, _Running | None]] = []
        for batch in running:
            if batch.task is not None:
                batch.task.cancel()
            to_cancel.append((batch.saved.batch_id, batch))
        for submitting in list(self._submitting):
            with contextlib.suppress(Exception):
                to_cancel.append((await asyncio.wait_for(submitting, CANCEL_TIMEOUT_S), None))
        self._submitting.clear()
        deadline = time.monotonic() + CANCEL_TIMEOUT_S
        for batch_id, followed in to_cancel:
            try:
                await asyncio.wait_for(self.api.cancel(batch_id), CANCEL_TIMEOUT_S)
            except Exception as error:  # best effort: the run is stopping anyway
                reason = redact(str(error) or type(error).__name__, self._secrets)
                later = ", and the next run picks it up" if followed is not None else ""
                self.report(
                    f"rag-gate: batch {batch_id} could not be canceled ({reason}); it runs "
                    f"to its end at the provider{later}"
                )
                continue
            self.report(f"rag-gate: batch {batch_id} canceled")
            if followed is not None:
                await self._keep_answered(followed, deadline)
        # The calls handed a response take it through validation and the cache now.
        for _ in range(3):
            await asyncio.sleep(0)

    async def _keep_answered(self, batch: _Running, deadline: float) -> None:
        """Read a canceled batch's results and hand over those it answered before the cancel."""
        batch_id = batch.saved.batch_id
        try:
            state = await asyncio.wait_for(
                self._until_ended(batch_id), max(0.0, deadline - time.monotonic())
            )
            outcomes = await asyncio.wait_for(
                self.api.results(batch_id, state, list(batch.requests)),
                max(0.0, deadline - time.monotonic()),
            )
        except (JudgeError, asyncio.TimeoutError) as error:
            reason = redact(str(error) or "it did not end in time", self._secrets)
            self.report(
                f"rag-gate: batch {batch_id}: its answered requests could not be read now "
                f"({reason}); the next run picks the batch up and reads them"
            )
            return
        if self.store is not None:
            self.store.remove(batch.saved)
        unanswered = self._answer(batch.requests, outcomes)
        kept = len(batch.requests) - len(unanswered)
        if kept:
            self.report(
                f"rag-gate: batch {batch_id}: {kept} of {len(batch.requests)} requests were "
                "answered before the cancel; their replies are kept, and the next run sends "
                "only the rest"
            )

    async def _until_ended(self, batch_id: str) -> BatchState:
        """Poll a canceled batch until the provider has ended it."""
        delay = FIRST_POLL_S / 8
        while True:
            state = await self.api.poll(batch_id)
            if state.ended:
                return state
            await asyncio.sleep(delay)
            delay = min(delay * 2, FIRST_POLL_S)


class BatchSwitch:
    """Batch mode as both LLM judges switch it on: :meth:`use_batches` and :attr:`batcher`.

    The judge provides ``kind``, ``_model``, ``transport`` and :meth:`_batch_api`.
    """

    kind: str
    _model: str
    _base_url: str | None
    transport: Transport
    _batcher: Batcher | None = None

    def _batch_api(self) -> BatchApi:
        """The provider's batch API, on this judge's client."""
        raise NotImplementedError

    def use_batches(
        self, *, store: BatchStore | None, poll_s: float = 30.0, report: Report = print_to_stderr
    ) -> None:
        """Send every call through the provider's batch API from now on (half price)."""
        self._batcher = Batcher(
            self._batch_api(),
            judge=self.kind,
            model=self._model,
            describe=self.transport.describe,
            secrets=self.transport.secrets,
            store=store,
            poll_s=poll_s,
            report=report,
        )

    @property
    def batch_mode(self) -> bool:
        """True once :meth:`use_batches` is called: answers are priced at the batch share."""
        return self._batcher is not None

    @property
    def batcher(self) -> Batcher | None:
        """The batcher of batch mode, or None when calls are sent directly."""
        return self._batcher
