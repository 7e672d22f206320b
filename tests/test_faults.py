"""Judge faults: every case is scored or an explicit error, never NaN, never lost.

At fault rate R the fake server answers R of the judge calls with HTTP 429 / 500 or a hang
past the client timeout, and another R/2 with a body that is not JSON or a reply that does
not fit the schema (10% means 10% + 5%). At 10% retries and re-asks absorb everything; at
60% the cases the judge cannot answer error, and so may others whose retries run out:
each one explicitly, and the gate fails closed.

Which call gets which fault depends on the order the requests reach the server, so the
assertions hold for any order; what errors is decided by the cases, not by that order.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping
from typing import Any

import pytest
from fakellm import INVALID, MALFORMED, FakeCall, FakeLLM, Fault, default_reply, status
from gate_runs import (
    FAST_RETRIES,
    WORKERS,
    assert_no_traceback,
    assert_scores_are_numbers,
    case_row,
    junit_case_outcomes,
    read_report,
    use_fake_judge,
    write_config,
    write_golden,
)

CASES = 12

#: At 60% + 30% only one judge call in ten is answered well, and the 429s shrink the
#: judge's concurrency to a request or two, so the run is nearly serial: few cases, and a
#: short timeout keeps the hangs from dominating the test's time. Whether an answerable
#: case gets through depends on how the faults fall on its requests (about three in four
#: do), so the assertions hold whichever cases error.
SIXTY_PERCENT_CASES = 6
SIXTY_PERCENT_SETTINGS = {
    **FAST_RETRIES,
    "metrics": ["faithfulness", "context_precision", "context_recall"],
    "timeout_s": 0.1,
    "retry_backoff_s": 0.001,
    "max_retries": 10,
    "max_reasks": 4,
}
#: Cases whose context review the judge never answers in the reply schema, however often
#: it is re-asked: their context precision and recall must error, explicitly.
UNANSWERABLE = frozenset({1, 4})

#: Faults are placed per block of this many consecutive judge calls, each block holding
#: exactly its share of every kind, so even a short run sees the whole mix at the asked
#: rate instead of a lucky or unlucky draw.
FAULT_BLOCK = 40

#: Transport faults in the order they are handed out: 40% 429, 40% 500, 20% hangs.
TRANSPORT_FAULTS: tuple[Fault, ...] = (
    status(429, retry_after="0"),
    status(500),
    status(429, retry_after="0"),
    status(500),
    Fault("hang"),
)
#: Bad bodies alternate: half not JSON at all, half JSON that fails the reply schema.
BODY_FAULTS: tuple[Fault, ...] = (MALFORMED, INVALID)

FaultPlan = Mapping[Fault, frozenset[int]]


def fault_plan(
    rate: float, *, seed: int, hang_s: float = 2.0, horizon: int = 20_000
) -> dict[Fault, frozenset[int]]:
    """The judge call numbers (1-based) that get each fault at fault rate ``rate``.

    ``rate`` of the calls get a transport fault (429, 500, or a hang of ``hang_s``, which
    must outlast the client's ``timeout_s``) and another ``rate / 2`` a bad body. Calls
    after ``horizon`` get none, so it must exceed the most calls a run can make.
    """
    if not 0.0 <= rate * 1.5 <= 1.0:
        raise ValueError(f"fault rate {rate}: R + R/2 of the calls must be between 0 and all")
    transport = [
        Fault("hang", hang_s=hang_s) if fault.kind == "hang" else fault
        for fault in TRANSPORT_FAULTS
    ]
    per_block_transport = round(rate * FAULT_BLOCK)
    per_block_body = round(rate / 2 * FAULT_BLOCK)
    rng = random.Random(seed)
    plan: dict[Fault, set[int]] = {fault: set() for fault in (*transport, *BODY_FAULTS)}
    handed_transport = handed_body = 0
    for start in range(1, horizon + 1, FAULT_BLOCK):
        slots = rng.sample(range(start, start + FAULT_BLOCK), per_block_transport + per_block_body)
        for number in slots[:per_block_transport]:
            plan[transport[handed_transport % len(transport)]].add(number)
            handed_transport += 1
        for number in slots[per_block_transport:]:
            plan[BODY_FAULTS[handed_body % len(BODY_FAULTS)]].add(number)
            handed_body += 1
    return {fault: frozenset(numbers) for fault, numbers in plan.items()}


def inject(
    server: FakeLLM, rate: float, *, seed: int, hang_s: float = 2.0, horizon: int = 20_000
) -> FaultPlan:
    """Script the faults of :func:`fault_plan` on ``server`` and return the plan."""
    plan = fault_plan(rate, seed=seed, hang_s=hang_s, horizon=horizon)
    for fault, numbers in plan.items():
        server.fail(fault, calls=numbers)
    return plan


def faults_served(plan: FaultPlan, server: FakeLLM, kinds: Iterable[str]) -> int:
    """How many faults of the given kinds the server has produced so far."""
    wanted = set(kinds)
    return sum(
        sum(1 for number in numbers if number <= server.calls)
        for fault, numbers in plan.items()
        if fault.kind in wanted
    )


def never_reviews_unanswerable_cases(call: FakeCall) -> dict[str, Any]:
    """The default replies, except a misfit for the context review of an unanswerable case."""
    question = " ".join(call.data.get("question", []))
    # The review goes alone, or with the claim verification when the case asks both.
    if call.kind in ("review_contexts", "review_case") and any(
        f"source {index}?" in question for index in UNANSWERABLE
    ):
        return {"chunks": "not a list", "statements": "not a list"}
    return default_reply(call)


def reasks_seen(server: FakeLLM) -> int:
    """Re-asks the server received: distinct conversations with more than one user turn.

    A re-ask that hits a transport fault is sent again unchanged, so bodies are counted
    once each.
    """
    bodies: set[bytes] = set()
    for request in server.judge_requests():
        body = request.body if isinstance(request.body, dict) else {}
        users = [m for m in body.get("messages", []) if m.get("role") == "user"]
        if len(users) > 1:
            bodies.add(request.raw)
    return len(bodies)


def test_fault_plan_holds_the_asked_mix() -> None:
    plan = fault_plan(0.10, seed=3, horizon=2_000)
    transport = sum(
        len(numbers) for fault, numbers in plan.items() if fault.kind in ("status", "hang")
    )
    bodies = sum(
        len(numbers) for fault, numbers in plan.items() if fault.kind in ("malformed", "invalid")
    )
    assert (transport, bodies) == (200, 100)
    assert len(plan[status(429, retry_after="0")]) == len(plan[status(500)]) == 80
    assert len(plan[Fault("hang", hang_s=2.0)]) == 40
    assert len(plan[INVALID]) == len(plan[MALFORMED]) == 50
    every = [number for numbers in plan.values() for number in numbers]
    assert len(every) == len(set(every)), "a call got two faults"
    assert plan == fault_plan(0.10, seed=3, horizon=2_000)
    with pytest.raises(ValueError):
        fault_plan(0.7, seed=3)


@pytest.mark.slow
@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_ten_percent_faults_still_score_every_case(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, api: str
) -> None:
    write_golden(pytester.path, [case_row(index) for index in range(CASES)])
    write_config(pytester.path, judge=api, cache="off", **FAST_RETRIES)
    with FakeLLM() as server:
        plan = inject(server, 0.10, seed=7)
        use_fake_judge(monkeypatch, server, api)
        result = pytester.runpytest(
            "--rag-gate", "--rag-gate-report=report.json", "--rag-gate-junit=junit.xml"
        )
    assert_no_traceback(result)
    report = read_report(pytester.path / "report.json")
    assert len(report["cases"]) == CASES
    assert [case for case in report["cases"] if case["error"] or case["errors"]] == []
    assert_scores_are_numbers(report)
    assert all(case["scores"]["faithfulness"] == 1.0 for case in report["cases"])
    # Every 429, 500, hang and non-JSON body the server produced cost one transport retry
    # (a slow machine may add timeouts of its own), and every schema-invalid reply was
    # re-asked within the same conversation.
    transport_faults = faults_served(plan, server, ("status", "hang", "malformed"))
    assert transport_faults > 0
    assert report["usage"]["retries"] >= transport_faults
    invalid_replies = faults_served(plan, server, ("invalid",))
    assert invalid_replies > 0
    assert reasks_seen(server) >= invalid_replies
    assert report["incomplete"] is False
    # Every request the server saw is in the report, as a call or as a retry (on a loaded
    # machine a client timeout may also fire before a request reaches the server).
    assert report["usage"]["calls"] + report["usage"]["retries"] >= server.calls
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert set(junit_case_outcomes(pytester.path / "junit.xml").values()) == {"passed"}


@pytest.mark.parametrize("workers", WORKERS)
def test_sixty_percent_faults_error_explicitly_and_fail_closed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: list[str]
) -> None:
    cases = SIXTY_PERCENT_CASES
    write_golden(pytester.path, [case_row(index) for index in range(cases)])
    write_config(pytester.path, judge="anthropic", cache="off", **SIXTY_PERCENT_SETTINGS)
    with FakeLLM(responder=never_reviews_unanswerable_cases) as server:
        inject(server, 0.60, seed=11, hang_s=1.0)
        use_fake_judge(monkeypatch, server)
        result = pytester.runpytest(
            "--rag-gate", "--rag-gate-report=report.json", "--rag-gate-junit=junit.xml", *workers
        )
    assert_no_traceback(result)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = read_report(pytester.path / "report.json")
    reported = report["cases"]
    assert sorted(case["id"] for case in reported) == [f"case-{i:03d}" for i in range(cases)]
    assert_scores_are_numbers(report)
    for case in reported:
        # Scored or an explicit error for every metric the case selected: nothing dropped.
        assert set(case["metrics"]) == set(case["scores"]) | set(case["errors"]), case["id"]
    errored = {case["id"] for case in reported if case["error"] or case["errors"]}
    unanswerable = {f"case-{index:03d}" for index in UNANSWERABLE}
    assert unanswerable <= errored
    for case in reported:
        # Each error names the request the judge failed, and after how many attempts.
        for metric, message in case["errors"].items():
            assert re.search(r"the \w+ request (after|in) \d+ attempts", message), (metric, message)
        if case["id"] in unanswerable:
            for metric in ("context_precision", "context_recall"):
                assert re.search(r"review_(contexts|case)", case["errors"][metric]), case["errors"]
    # Every error is the judge's and every scored case passes: no deploy decision either way.
    assert report["verdict"] == "error"
    verdict = f"judge unreliable: {len(errored)} of {cases} case(s) errored"
    assert report["error_rate"]["message"].startswith(verdict)
    assert re.search(re.escape(verdict), result.stdout.str())
    result.stdout.fnmatch_lines(["RAG gate: ERROR"])
    outcomes = junit_case_outcomes(pytester.path / "junit.xml")
    assert len(outcomes) == cases
    assert {name for name, kind in outcomes.items() if kind == "error"} == errored
    result.assert_outcomes(passed=cases - len(errored), errors=len(errored))
    # Requests that failed for good are counted too: every request the server saw is in
    # the usage (a client timeout may also fire before a request reaches the server).
    assert report["usage"]["calls"] + report["usage"]["retries"] >= server.calls


def test_failed_requests_are_errors_not_low_scores(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_golden(pytester.path, [case_row(0)])
    write_config(
        pytester.path, judge="anthropic", cache="off", **{**FAST_RETRIES, "max_retries": 1}
    )
    with FakeLLM() as server:
        server.fail(status(500))
        use_fake_judge(monkeypatch, server)
        result = pytester.runpytest("--rag-gate", "--rag-gate-report=report.json", "-rA")
    assert_no_traceback(result)
    report = read_report(pytester.path / "report.json")
    (case,) = report["cases"]
    assert case["scores"] == {}
    assert "after 2 attempts: HTTP 500" in case["errors"]["faithfulness"]
    assert report["metrics"]["faithfulness"]["mean"] is None
    # Every request failed after two attempts, and each attempt is in the report.
    usage = report["usage"]
    assert usage["calls"] == usage["retries"] > 0
    assert usage["calls"] + usage["retries"] >= server.calls
    result.stdout.fnmatch_lines(["*judge unreliable: 1 of 1 case(s) errored*"])
