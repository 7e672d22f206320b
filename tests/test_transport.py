"""Retry policy, retry-after parsing, the adaptive limiter and the rate limiter."""

from __future__ import annotations

import asyncio
import random

import pytest

from pytest_ragas_gate.exceptions import JudgeError
from pytest_ragas_gate.judges.transport import (
    AdaptiveLimiter,
    Failure,
    RateLimiter,
    RetryPolicy,
    Transport,
    parse_retry_after,
    redact,
    retry_after_from_headers,
)


def test_retry_after_seconds_date_and_milliseconds() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:05 GMT", now=1445412485.0) == 0.0
    assert parse_retry_after("garbage") is None
    assert retry_after_from_headers({"retry-after-ms": "250", "retry-after": "9"}) == 0.25


def test_full_jitter_backoff_stays_under_the_doubling_ceiling() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=8.0)
    rng = random.Random(1)
    for retry in range(6):
        delays = [policy.backoff_s(retry, rng) for _ in range(50)]
        assert all(0.0 <= delay <= min(8.0, 2.0**retry) for delay in delays)


def test_limiter_halves_on_429_never_below_one_and_grows_back() -> None:
    limiter = AdaptiveLimiter(8)
    limiter.on_rate_limited()
    assert limiter.limit == 4
    for _ in range(5):
        limiter.on_rate_limited()
    assert limiter.limit == 1
    limiter.on_success()
    assert limiter.limit == 2
    for _ in range(2):
        limiter.on_success()
    assert limiter.limit == 3


def test_limiter_caps_concurrency() -> None:
    limiter = AdaptiveLimiter(2)
    running = 0
    peak = 0

    async def work() -> None:
        nonlocal running, peak
        await limiter.acquire()
        try:
            running += 1
            peak = max(peak, running)
            await asyncio.sleep(0.01)
            running -= 1
        finally:
            limiter.release()

    async def main() -> None:
        await asyncio.gather(*(work() for _ in range(10)))

    asyncio.run(main())
    assert peak == 2 and limiter.in_flight == 0


def test_rate_limiter_spaces_starts() -> None:
    now = [100.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    limiter = RateLimiter(120, clock=lambda: now[0], sleep=sleep)

    async def main() -> None:
        for _ in range(3):
            await limiter.wait()

    asyncio.run(main())
    assert slept == [0.5, 1.0]


class Boom(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"status {status}")
        self.status = status


def classify(exc: BaseException) -> Failure | None:
    if isinstance(exc, Boom):
        retryable = exc.status in (429, 500)
        return Failure(f"HTTP {exc.status} for secret-key-123", retryable, status=exc.status)
    return None


def make_transport(**kw: object) -> Transport:
    async def no_sleep(seconds: float) -> None:
        return None

    return Transport(
        policy=RetryPolicy(max_retries=2),
        limiter=AdaptiveLimiter(4),
        classify=classify,
        describe="test judge",
        secrets=("secret-key-123",),
        sleep=no_sleep,
        **kw,  # type: ignore[arg-type]
    )


def test_transport_retries_then_succeeds_and_counts() -> None:
    statuses = [429, 500]

    async def call() -> str:
        if statuses:
            raise Boom(statuses.pop(0))
        return "ok"

    transport = make_transport()
    result, retries = asyncio.run(transport.send(call, what="rate_relevancy"))
    assert (result, retries) == ("ok", 2)
    assert transport.stats.retries == 2 and transport.limiter.limit == 2


def test_transport_does_not_retry_a_client_error_and_redacts_secrets() -> None:
    attempts = 0

    async def call() -> str:
        nonlocal attempts
        attempts += 1
        raise Boom(400)

    with pytest.raises(JudgeError, match="refused the verify_claims request") as caught:
        asyncio.run(make_transport().send(call, what="verify_claims"))
    assert attempts == 1 and "secret-key-123" not in str(caught.value)


def test_unknown_exceptions_propagate_unchanged() -> None:
    async def call() -> str:
        raise KeyError("bug")

    with pytest.raises(KeyError):
        asyncio.run(make_transport().send(call, what="x"))


def test_redact() -> None:
    assert redact("key sk-abcdef here", ["sk-abcdef", None, ""]) == "key *** here"
