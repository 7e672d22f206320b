"""Getting a request through to a judge API: retries, backoff, concurrency and rate limits.

The SDKs' own retries are switched off (``max_retries=0``) because the gate retries here:
one policy for every judge, retries counted in the usage report, and every 429 also
narrows the :class:`AdaptiveLimiter` that all requests of the judge share.

What is retried: HTTP 408, 409, 429 and 5xx, timeouts and connection errors. A
``retry-after`` header (seconds or an HTTP date) sets the wait; otherwise the wait is
exponential backoff with full jitter. Any other 4xx (a bad key, a malformed request) fails
at once with a :class:`~pytest_ragas_gate.exceptions.JudgeError`.

That error names the HTTP status, the server's message and the SDK exception's type, with
the API key redacted, and it has no exception chain: the SDK exception keeps the server's
reply unredacted (a server may echo the key back), so chaining it would print the key in
every traceback and ``logging.exception`` of the error.

Above the transport, :mod:`~.reply_validation` turns the replies it brings back into
validated ones.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TypeVar

from ..exceptions import JudgeError
from ..usage import Usage

T = TypeVar("T")

#: Statuses worth another attempt; every other 4xx is the caller's fault and final.
RETRYABLE_STATUSES: frozenset[int] = frozenset({408, 409, 429})


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a failed request is tried again.

    Attributes:
        max_retries: attempts after the first one; 0 sends each request once.
        base_delay_s: the backoff ceiling of the first retry; it doubles per retry.
        max_delay_s: the largest backoff ceiling.
        max_retry_after_s: the longest ``retry-after`` the server may impose.
    """

    max_retries: int = 6
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    max_retry_after_s: float = 120.0

    def backoff_s(self, retry_number: int, rng: random.Random) -> float:
        """Full-jitter delay before retry ``retry_number`` (0 for the first retry)."""
        ceiling = min(self.max_delay_s, self.base_delay_s * (2.0**retry_number))
        return rng.uniform(0.0, ceiling)


@dataclass(frozen=True)
class Failure:
    """What went wrong with one attempt, as far as retrying is concerned.

    Attributes:
        description: a short human account, e.g. ``HTTP 429 (rate limited)``.
        retryable: whether another attempt may succeed.
        status: the HTTP status, or None for timeouts and connection errors.
        retry_after_s: the server's requested wait, if it named one.
    """

    description: str
    retryable: bool
    status: int | None = None
    retry_after_s: float | None = None

    @property
    def rate_limited(self) -> bool:
        """True for HTTP 429, which also narrows the adaptive limiter."""
        return self.status == 429


#: The HTTP stacks under the SDKs (by top-level package), whose exceptions can escape the
#: SDKs' own wrapping when they happen while a response body is being read.
_HTTP_STACKS: frozenset[str] = frozenset(
    {"httpx", "httpx2", "httpcore", "httpcore2", "h11", "anyio"}
)


def classify_network_error(exc: BaseException) -> Failure | None:
    """A timeout or connection failure below the SDK, as a retryable :class:`Failure`.

    Matched by the exception's package and class names rather than imported classes: the
    SDKs have moved between HTTP stacks (``httpx``, ``httpx2``) and wrap only some errors.

    >>> class ReadTimeout(Exception): ...
    >>> ReadTimeout.__module__ = "httpcore2"
    >>> classify_network_error(ReadTimeout()).description
    'the request timed out while reading the response'
    >>> classify_network_error(KeyError("bug")) is None
    True
    """
    if isinstance(exc, TimeoutError):
        return Failure("the request timed out", retryable=True)
    for kind in type(exc).__mro__:
        if kind.__module__.partition(".")[0] not in _HTTP_STACKS:
            continue
        if "Timeout" in kind.__name__:
            return Failure("the request timed out while reading the response", retryable=True)
        return Failure(f"the connection failed ({kind.__name__})", retryable=True)
    if isinstance(exc, ConnectionError):
        return Failure("the connection failed", retryable=True)
    return None


def is_retryable_status(status: int) -> bool:
    """Whether an HTTP status is transient (408, 409, 429, 5xx)."""
    return status in RETRYABLE_STATUSES or status >= 500


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``retry-after`` header: delta-seconds or an HTTP date.

    Args:
        value: the header value, or None when absent.
        now: the current Unix time (for tests); defaults to the clock.

    Returns:
        A non-negative number of seconds, or None when the header is absent or unreadable.

    >>> parse_retry_after("2")
    2.0
    >>> parse_retry_after("Wed, 21 Oct 2015 07:28:05 GMT", now=1445412480.0)
    5.0
    >>> parse_retry_after("soon") is None
    True
    """
    if value is None:
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def retry_after_from_headers(headers: Mapping[str, str] | None) -> float | None:
    """The wait requested by ``retry-after-ms`` or ``retry-after`` response headers."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    return parse_retry_after(headers.get("retry-after"))


class Secrets(tuple[str, ...]):
    """Strings to redact (the API key) that never show themselves.

    A traceback printed with its frames' locals (``pytest --showlocals``, error trackers)
    shows the repr of every argument, so the secrets travel as this tuple, whose repr and
    str only count them.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} secret{'s' if len(self) != 1 else ''} hidden>"

    __str__ = __repr__


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """Replace every occurrence of each (non-trivial) secret in ``text`` with ``***``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


class AdaptiveLimiter:
    """Caps concurrent requests of one judge; halves the cap on a 429 and regrows it.

    Every request of a judge passes through the same limiter, so a rate-limited API sees
    the whole worker back off at once (multiplicative decrease), while each run of
    ``limit`` consecutive successes adds one slot again (additive increase), up to
    ``max_concurrency``.

    The limiter binds to no event loop, so one judge can serve several ``asyncio.run``
    calls in a row.
    """

    def __init__(self, max_concurrency: int) -> None:
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, not {max_concurrency}")
        self.max_concurrency = max_concurrency
        self._limit = max_concurrency
        self._in_flight = 0
        self._successes = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self.peak_in_flight = 0
        self.rate_limited = 0

    @property
    def limit(self) -> int:
        """The current cap on concurrent requests."""
        return self._limit

    @property
    def in_flight(self) -> int:
        """Requests holding a slot right now."""
        return self._in_flight

    async def acquire(self) -> None:
        """Wait for a free slot and take it."""
        while self._in_flight >= self._limit:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
                # A wake-up this waiter can no longer use goes to the next one.
                self._wake()
                raise
        self._in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self._in_flight)

    def release(self) -> None:
        """Give a slot back."""
        self._in_flight -= 1
        self._wake()

    def on_success(self) -> None:
        """Count a success; a full run of them at the current cap widens it by one."""
        self._successes += 1
        if self._successes >= self._limit and self._limit < self.max_concurrency:
            self._limit += 1
            self._successes = 0
            self._wake()

    def on_rate_limited(self) -> None:
        """Halve the cap (never below 1) after an HTTP 429."""
        self.rate_limited += 1
        self._limit = max(1, self._limit // 2)
        self._successes = 0

    def _wake(self) -> None:
        free = self._limit - self._in_flight
        while free > 0 and self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                free -= 1


class RateLimiter:
    """Spaces request starts so that at most ``requests_per_minute`` begin per minute."""

    def __init__(
        self,
        requests_per_minute: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if requests_per_minute < 1:
            raise ValueError(f"requests_per_minute must be at least 1, not {requests_per_minute}")
        self.interval_s = 60.0 / requests_per_minute
        self._clock = clock
        self._sleep = sleep
        self._next_start: float | None = None

    async def wait(self) -> None:
        """Wait for this request's start slot."""
        now = self._clock()
        start = now if self._next_start is None else max(now, self._next_start)
        # The slot is reserved before sleeping, so concurrent callers queue in order.
        self._next_start = start + self.interval_s
        if start > now:
            await self._sleep(start - now)


@dataclass
class TransportStats:
    """Running totals of one judge's traffic, for the live progress line."""

    attempts: int = 0
    retries: int = 0
    rate_limited: int = 0
    failures: int = 0


ClassifyError = Callable[[BaseException], "Failure | None"]


@dataclass
class Transport:
    """Sends one API call with the retry policy, the adaptive limiter and the rate limit.

    Attributes:
        policy: how failed attempts are retried.
        limiter: the concurrency cap shared by every request of the judge.
        classify: maps an SDK exception to a :class:`Failure`; None means "not a transport
            error", and the exception propagates unchanged.
        describe: the judge's name in error messages, e.g. ``anthropic judge (claude-…)``.
        rate_limiter: optional requests-per-minute spacing.
        secrets: strings (the API key) that must never appear in an error message.
    """

    policy: RetryPolicy
    limiter: AdaptiveLimiter
    classify: ClassifyError
    describe: str
    rate_limiter: RateLimiter | None = None
    # Kept out of repr: a transport printed in a log or a traceback must not leak the key.
    secrets: tuple[str, ...] = field(default=(), repr=False)
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    rng: random.Random = field(default_factory=random.Random)
    stats: TransportStats = field(default_factory=TransportStats)

    def __post_init__(self) -> None:
        # The judges hand these on to ask_until_valid, whose frame a traceback may show.
        self.secrets = Secrets(self.secrets)

    async def send(self, call: Callable[[], Awaitable[T]], *, what: str) -> tuple[T, int]:
        """Run ``call`` until it succeeds or fails for good.

        Args:
            call: one API attempt (a fresh coroutine per call).
            what: what is being asked, for error messages (e.g. ``verify_claims``).

        Returns:
            The call's result and how many retries it took.

        Raises:
            JudgeError: the failure is not retryable, or the retries are used up.
        """
        retries = 0
        while True:
            if self.rate_limiter is not None:
                await self.rate_limiter.wait()
            await self.limiter.acquire()
            self.stats.attempts += 1
            try:
                result = await call()
            except Exception as exc:
                failure = self.classify(exc)
                if failure is None:
                    # Not an API error the judge knows: failing the request (not the run)
                    # keeps the other cases scored, and the same redaction applies, since
                    # the exception's chain may still hold the SDK's request and reply.
                    failure = Failure(description=f"unexpected error: {exc}", retryable=False)
                # Redacted at once and rebound: the SDK's message quotes the server's error
                # body, which may echo the key, and a traceback shown with its locals
                # (pytest --showlocals) would print any unredacted copy.
                failure = self._redacted(failure, exc)
                if failure.rate_limited:
                    self.stats.rate_limited += 1
                    self.limiter.on_rate_limited()
                final = not failure.retryable or retries >= self.policy.max_retries
            else:
                self.limiter.on_success()
                return result, retries
            finally:
                self.limiter.release()
            if final:
                self.stats.failures += 1
                # Raised outside the except block and ``from None``: the SDK exception
                # (its message, response and request headers) must be neither the
                # ``__cause__`` nor the ``__context__``, or any formatted traceback of
                # this error would print the server's unredacted reply.
                error = self._final_error(failure, what, retries)
                error.usage = Usage(calls=1, retries=retries)
                raise error from None
            # The wait happens outside the limiter so other requests keep its slot busy.
            if failure.retry_after_s is not None:
                delay = min(failure.retry_after_s, self.policy.max_retry_after_s)
            else:
                delay = self.policy.backoff_s(retries, self.rng)
            retries += 1
            self.stats.retries += 1
            await self.sleep(delay)

    def _redacted(self, failure: Failure, exc: BaseException) -> Failure:
        """``failure`` with the secrets removed and the exception's type named.

        The type (``anthropic.AuthenticationError``) stands in for the exception chain,
        which the final error drops.
        """
        kind = type(exc)
        package = kind.__module__.partition(".")[0]
        name = kind.__qualname__ if package == "builtins" else f"{package}.{kind.__qualname__}"
        description = redact(f"{failure.description} ({name})", self.secrets)
        return replace(failure, description=description)

    def _final_error(self, failure: Failure, what: str, retries: int) -> JudgeError:
        if failure.retryable:
            tries = "1 attempt" if retries == 0 else f"{retries + 1} attempts"
            message = (
                f"The {self.describe} failed the {what} request after {tries}: "
                f"{failure.description}. Lower judge.concurrency, set "
                "judge.requests_per_minute, or raise judge.max_retries / judge.timeout_s."
            )
        elif failure.status in (401, 403):
            message = (
                f"The {self.describe} rejected the credentials for the {what} request: "
                f"{failure.description}. Check the API key (it is not retried)."
            )
        else:
            message = (
                f"The {self.describe} refused the {what} request: {failure.description}. "
                "This is not retried; check the model name, base URL and settings."
            )
        return JudgeError(redact(message, self.secrets))


def judge_transport(
    judge: str,
    model: str,
    *,
    classify: ClassifyError,
    api_key: str | None,
    retry_policy: RetryPolicy | None,
    max_retries: int,
    limiter: AdaptiveLimiter | None,
    rate_limiter: RateLimiter | None,
    seed: int | None,
) -> Transport:
    """The transport of one LLM judge, which knows its API key only to redact it."""
    return Transport(
        policy=retry_policy or RetryPolicy(max_retries=max_retries),
        limiter=limiter or AdaptiveLimiter(32),
        classify=classify,
        describe=f"{judge} judge ({model})",
        rate_limiter=rate_limiter,
        secrets=(api_key,) if api_key else (),
        rng=random.Random(seed),
    )
