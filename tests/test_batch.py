"""Batch mode: a run's judge requests through the providers' batch APIs at half price.

Against the fake server's Message Batches and Batch API endpoints, through the real SDKs:
the scores equal a direct run's, the usage is priced at the batch share, a progress line
is shown; requests a batch did not answer (errored, expired) are errors of their cases and
the gate fails; a batch left behind by a killed run, or by a run whose polling failed, is
picked up instead of being submitted again; Ctrl-C cancels the running batch; a cached
re-run submits nothing.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fakellm import INVALID, FakeCall, FakeLLM
from gate_runs import (
    EVERY_KIND,
    FAST_RETRIES,
    FAST_RETRY_POLICY,
    TEST_KEY,
    GateOutcome,
    assert_no_traceback,
    case_row,
    gate_process_command,
    gate_run,
    make_judge,
    read_report,
    use_fake_judge,
    write_config,
    write_golden,
)

from pytest_ragas_gate.judges.batching import BatchStore, SavedBatch, batch_custom_id
from pytest_ragas_gate.judges.openai_judge import OpenAIJudge
from pytest_ragas_gate.judges.pricing import PriceTable

METRICS = "faithfulness,answer_relevancy,context_precision,context_recall"
MODELS = {"anthropic": "claude-sonnet-5-5", "openai": "gpt-4.1-mini"}
CASES = 6
APIS = ("anthropic", "openai")


def _setup(pytester: pytest.Pytester, api: str, **settings: Any) -> None:
    write_golden(pytester.path, [case_row(index) for index in range(CASES)])
    config: dict[str, Any] = {
        "judge": api,
        "model": MODELS[api],
        "cache": "off",
        "batch_poll_s": 0.05,
        **FAST_RETRIES,
    }
    config.update(settings)
    write_config(pytester.path, **config)


def _assert_picked_up_and_submitted_once(result: GateOutcome, server: FakeLLM) -> None:
    """The run passed on the batch an earlier run left, and no request went out twice."""
    assert_no_traceback(result)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    first = next(iter(server.batches))
    result.stderr.fnmatch_lines([f"rag-gate: batch {first} picked up from an earlier run *"])
    submitted = [custom_id for batch in server.batches.values() for custom_id, _ in batch.requests]
    assert len(submitted) == len(set(submitted)) == 4 * CASES


#: Every run of this module gates these metrics.
OPTIONS: dict[str, Any] = {"metrics": METRICS}


def _scores(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {case["id"]: case["scores"] for case in report["cases"]}


def _errors(report: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {case["id"]: case["errors"] for case in report["cases"] if case["errors"]}


def _state_files(pytester: pytest.Pytester) -> list[Path]:
    return sorted((pytester.path / ".rag_gate_cache" / "batches").glob("*.json"))


def _verifies(case_index: int) -> Any:
    """Picks the claim verification of one case (``source N.`` is in its claims)."""

    def where(call: FakeCall) -> bool:
        return call.kind == "verify_claims" and f"Source {case_index}." in call.user

    return where


def _direct_scores(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, api: str
) -> dict[str, dict[str, Any]]:
    with FakeLLM() as server:
        use_fake_judge(monkeypatch, server, api)
        result = gate_run(pytester, report="direct.json", **OPTIONS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    return _scores(read_report(pytester.path / "direct.json"))


@pytest.mark.slow
@pytest.mark.parametrize("api", APIS)
def test_a_batch_run_scores_like_a_direct_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, api: str
) -> None:
    _setup(pytester, api)
    direct = _direct_scores(pytester, monkeypatch, api)
    with FakeLLM() as server:
        use_fake_judge(monkeypatch, server, api)
        result = gate_run(pytester, batch=True, **OPTIONS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert _scores(read_report(pytester.path / "report.json")) == direct
    assert server.judge_requests() == []


@pytest.mark.parametrize("api", ["anthropic", pytest.param("openai", marks=pytest.mark.slow)])
def test_a_batch_run_is_priced_at_half_and_shows_its_progress(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, api: str
) -> None:
    _setup(pytester, api)
    with FakeLLM() as server:
        use_fake_judge(monkeypatch, server, api)
        result = gate_run(pytester, batch=True, **OPTIONS)
    assert_no_traceback(result)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["rag-gate: judge * — batch mode: requests go through *"])
    report = read_report(pytester.path / "report.json")
    # Nothing went directly: the first requests of every case in one batch, the claim
    # verifications (which wait for the extracted claims) in a second.
    assert server.judge_requests() == []
    sizes = [len(batch.requests) for batch in server.batches.values()]
    assert sizes == [3 * CASES, CASES]
    usage = report["usage"]
    assert usage["calls"] == 4 * CASES
    priced = PriceTable().cost(
        MODELS[api],
        input_tokens=usage["input_tokens"],
        output_tokens=usage["output_tokens"],
        cache_read_tokens=usage["cache_read_tokens"],
        cache_write_tokens=usage["cache_write_tokens"],
    )
    assert usage["cost_usd"] == pytest.approx(priced.usd * 0.5, rel=1e-6)
    first = next(iter(server.batches))
    result.stderr.fnmatch_lines(
        [
            f"rag-gate: batch {first} submitted: {3 * CASES} requests through the *",
            f"rag-gate: batch {first} {3 * CASES // 2}/{3 * CASES} done",
            f"rag-gate: batch {first} {3 * CASES}/{3 * CASES} done",
        ]
    )
    assert _state_files(pytester) == []


@pytest.mark.slow
@pytest.mark.parametrize("api", APIS)
def test_requests_a_batch_did_not_answer_are_errors_and_the_gate_fails(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, api: str
) -> None:
    _setup(pytester, api)
    with FakeLLM() as server:
        server.fail_in_batch("errored", _verifies(1))
        server.fail_in_batch("expired", _verifies(4))
        use_fake_judge(monkeypatch, server, api)
        result = gate_run(pytester, batch=True, **OPTIONS)
    assert_no_traceback(result)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = read_report(pytester.path / "report.json")
    # Unanswered requests are the judge's errors: no deploy decision.
    assert report["verdict"] == "error"
    errors = _errors(report)
    assert set(errors) == {"case-001", "case-004"}
    assert set(errors["case-001"]) == {"faithfulness"}
    assert (
        "got no answer to the verify_claims request from batch"
        in errors["case-001"]["faithfulness"]
    )
    assert "expired" in errors["case-004"]["faithfulness"]
    scores = _scores(report)
    assert scores["case-001"].get("faithfulness") is None
    assert scores["case-001"]["context_recall"] is not None
    assert all(scores[f"case-00{index}"]["faithfulness"] for index in (0, 2, 3, 5))


@pytest.mark.slow
@pytest.mark.parametrize("api", APIS)
def test_an_expired_batch_leaves_the_unprocessed_cases_in_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, api: str
) -> None:
    _setup(pytester, api)
    with FakeLLM(batch_expire_after=10) as server:
        use_fake_judge(monkeypatch, server, api)
        result = gate_run(pytester, batch=True, **OPTIONS)
    assert_no_traceback(result)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = read_report(pytester.path / "report.json")
    errors = [message for case in _errors(report).values() for message in case.values()]
    assert errors and all("expired before the batch processed it" in error for error in errors)
    assert any(case["scores"].get("answer_relevancy") for case in report["cases"])


@pytest.mark.slow
def test_invalid_replies_are_asked_again_in_a_later_batch(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _setup(pytester, "anthropic")
    direct = _direct_scores(pytester, monkeypatch, "anthropic")
    with FakeLLM() as server:
        server.fail(INVALID, calls=[1, 2])
        use_fake_judge(monkeypatch, server)
        result = gate_run(pytester, batch=True, **OPTIONS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert _scores(read_report(pytester.path / "report.json")) == direct
    # The two re-asks went in a later batch (with the claim verifications), not directly.
    assert server.judge_requests() == []
    reasks = [
        [len(body["messages"]) == 3 for _, body in batch.requests].count(True)
        for batch in server.batches.values()
    ]
    assert reasks[0] == 0 and sum(reasks) == 2


@pytest.mark.slow
def test_a_batch_whose_polling_failed_is_picked_up_by_the_next_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _setup(pytester, "anthropic", cache="readwrite")
    with FakeLLM() as server:
        use_fake_judge(monkeypatch, server)
        server.batch_status_error = 503
        failed = gate_run(pytester, batch=True, **OPTIONS)
        assert failed.ret == pytest.ExitCode.TESTS_FAILED
        errors = _errors(read_report(pytester.path / "report.json"))
        assert len(errors) == CASES
        message = next(iter(errors["case-000"].values()))
        assert "left running, and the next run picks it up" in message
        assert len(_state_files(pytester)) == 1

        server.batch_status_error = None
        result = gate_run(pytester, batch=True, **OPTIONS)
    # The first requests were submitted once; only the verifications made a new batch.
    _assert_picked_up_and_submitted_once(result, server)
    assert len(server.batch_creates()) == 2
    assert _state_files(pytester) == []


@pytest.mark.slow
def test_a_cached_rerun_submits_no_batch(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _setup(pytester, "openai", cache="readwrite")
    with FakeLLM() as server:
        use_fake_judge(monkeypatch, server, "openai")
        first = gate_run(pytester, batch=True, report="first.json", **OPTIONS)
        assert first.ret == pytest.ExitCode.OK
        creates = len(server.batch_creates())
        again = gate_run(pytester, batch=True, report="again.json", **OPTIONS)
    assert again.ret == pytest.ExitCode.OK
    assert len(server.batch_creates()) == creates == 2
    assert "rag-gate: batch" not in again.stderr.str()
    report = read_report(pytester.path / "again.json")
    assert report["usage"]["calls"] == 0
    assert report["usage"]["cache_hits"] == 4 * CASES
    assert _scores(report) == _scores(read_report(pytester.path / "first.json"))


def _batch_judge(server: FakeLLM, api: str, store: BatchStore, lines: list[str]) -> Any:
    judge: Any
    if api == "anthropic":
        judge = make_judge(server)
    else:
        judge = OpenAIJudge(
            api_key=TEST_KEY,
            base_url=server.openai_url,
            timeout_s=2.0,
            retry_policy=FAST_RETRY_POLICY,
        )
    judge.use_batches(store=store, poll_s=0.02, report=lines.append)
    return judge


@pytest.mark.slow
@pytest.mark.parametrize("api", APIS)
def test_interrupting_a_batch_run_cancels_the_batch_and_forgets_it(
    tmp_path: Path, api: str
) -> None:
    store = BatchStore(tmp_path / "batches")
    lines: list[str] = []

    async def interrupted(server: FakeLLM) -> None:
        judge = _batch_judge(server, api, store, lines)
        asks = asyncio.gather(*(judge.ask(request) for request in EVERY_KIND))
        while not server.batches or len(server.requests) < 4:
            await asyncio.sleep(0.01)
        assert len(store.saved(api, judge.model)) == 1
        asks.cancel()  # what Ctrl-C does to the scoring tasks
        with pytest.raises(asyncio.CancelledError):
            await asks
        await judge.aclose()  # the scheduler closes the judge on its way out

    with FakeLLM(batch_polls=10**6) as server:
        asyncio.run(interrupted(server))
    batch_id = next(iter(server.batches))
    assert [request.path.rsplit("/", 2)[-2] for request in server.batch_cancels()] == [batch_id]
    assert store.saved(api, MODELS[api]) == []
    assert lines[-1] == f"rag-gate: batch {batch_id} canceled"


@pytest.mark.slow
@pytest.mark.parametrize("api", APIS)
def test_a_batch_abandoned_mid_run_is_picked_up_by_the_next_judge(tmp_path: Path, api: str) -> None:
    store = BatchStore(tmp_path / "batches")
    lines: list[str] = []

    async def killed(server: FakeLLM) -> None:
        judge = _batch_judge(server, api, store, lines)
        asks = asyncio.gather(*(judge.ask(request) for request in EVERY_KIND))
        while not store.saved(api, judge.model):
            await asyncio.sleep(0.01)
        asks.cancel()  # the process dies: the judge is never closed, nothing is canceled
        with pytest.raises(asyncio.CancelledError):
            await asks

    async def resumed(server: FakeLLM) -> list[Any]:
        judge = _batch_judge(server, api, store, lines)
        try:
            return list(await asyncio.gather(*(judge.ask(request) for request in EVERY_KIND)))
        finally:
            await judge.aclose()

    with FakeLLM(batch_polls=10**6) as server:
        asyncio.run(killed(server))
        server.batch_polls = 0
        answers = asyncio.run(resumed(server))
    assert len(answers) == len(EVERY_KIND)
    assert len(server.batch_creates()) == 1
    assert server.batch_cancels() == []
    assert any("picked up from an earlier run" in line for line in lines)
    assert store.saved(api, MODELS[api]) == []


@pytest.mark.slow
@pytest.mark.parametrize("api", APIS)
def test_a_canceled_batch_left_saved_is_read_and_only_its_unanswered_requests_sent(
    tmp_path: Path, api: str
) -> None:
    # A run canceled its batch but stopped before reading it (its results could not be
    # read in time). Before, the next run picked the batch up and made every canceled
    # request an error of its case; now it takes the answered ones and sends the rest.
    store = BatchStore(tmp_path / "batches")
    lines: list[str] = []

    async def stopped(server: FakeLLM) -> None:
        judge = _batch_judge(server, api, store, lines)
        asks = asyncio.gather(*(judge.ask(request) for request in EVERY_KIND))
        while not server.batches or next(iter(server.batches.values())).done == 0:
            await asyncio.sleep(0.01)
        asks.cancel()  # the process stops: the judge is never closed
        with pytest.raises(asyncio.CancelledError):
            await asks

    async def resumed(server: FakeLLM) -> list[Any]:
        judge = _batch_judge(server, api, store, lines)
        try:
            return list(await asyncio.gather(*(judge.ask(request) for request in EVERY_KIND)))
        finally:
            await judge.aclose()

    with FakeLLM(batch_stall_at=0.5) as server:
        asyncio.run(stopped(server))
        first = next(iter(server.batches.values()))
        first.cancel()
        server.batch_stall_at = None
        server.batch_polls = 0
        answers = asyncio.run(resumed(server))
    assert len(answers) == len(EVERY_KIND)
    answered = {cid for cid, (result, _) in first.results.items() if result == "succeeded"}
    assert 0 < len(answered) < len(first.requests)
    later = list(server.batches.values())[1:]
    resent = [custom_id for batch in later for custom_id, _ in batch.requests]
    assert sorted(resent) == sorted(
        custom_id for custom_id, _ in first.requests if custom_id not in answered
    )
    assert store.saved(api, MODELS[api]) == []


@pytest.mark.slow
def test_a_saved_batch_the_provider_does_not_know_is_submitted_anew(tmp_path: Path) -> None:
    store = BatchStore(tmp_path / "batches")
    lines: list[str] = []
    with FakeLLM() as server:
        judge = _batch_judge(server, "anthropic", store, lines)
        ids = frozenset(
            batch_custom_id("anthropic", judge.model, request) for request in EVERY_KIND
        )
        store.save(SavedBatch("anthropic", judge.model, "msgbatch_gone", ids))

        async def ask_all() -> list[Any]:
            try:
                return list(await asyncio.gather(*(judge.ask(r) for r in EVERY_KIND)))
            finally:
                await judge.aclose()

        answers = asyncio.run(ask_all())
    assert len(answers) == len(EVERY_KIND)
    assert len(server.batch_creates()) == 1
    assert store.saved("anthropic", judge.model) == []


# --- real processes: a kill and a Ctrl-C ------------------------------------------------------


def _command(*extra: str) -> list[str]:
    return gate_process_command(METRICS, "--rag-gate-batch", *extra)


def _environment(server: FakeLLM) -> dict[str, str]:
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("ANTHROPIC_", "OPENAI_", "RAG_GATE_", "GITHUB_"))
    }
    return {
        **environment,
        "CI": "1",
        "ANTHROPIC_API_KEY": TEST_KEY,
        "ANTHROPIC_BASE_URL": server.url,
    }


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_and_wait_for_a_batch(pytester: pytest.Pytester, server: FakeLLM) -> Any:
    process = subprocess.Popen(
        _command(),
        cwd=pytester.path,
        env=_environment(server),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        # A run started in the background by a shell ignores SIGINT; give the child the
        # default handling a terminal's Ctrl-C meets.
        preexec_fn=_default_sigint,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
        _state_files(pytester) and any(r.method == "GET" for r in server.requests)
    ):
        time.sleep(0.02)
    assert _state_files(pytester), "the run submitted no batch"
    return process


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_batch_left_by_a_killed_run_is_picked_up_not_submitted_again(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _setup(pytester, "anthropic", cache="readwrite")
    with FakeLLM(batch_polls=10**6) as server:
        process = _start_and_wait_for_a_batch(pytester, server)
        process.kill()
        process.communicate(timeout=60)
        server.batch_polls = 0  # the provider finishes the batch meanwhile
        use_fake_judge(monkeypatch, server)
        result = gate_run(pytester, batch=True, **OPTIONS)
    _assert_picked_up_and_submitted_once(result, server)
    assert server.batch_cancels() == []


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is POSIX")
def test_ctrl_c_cancels_the_batch_and_the_run_ends_interrupted(
    pytester: pytest.Pytester,
) -> None:
    _setup(pytester, "anthropic", cache="readwrite")
    with FakeLLM(batch_polls=10**6) as server:
        process = _start_and_wait_for_a_batch(pytester, server)
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=60)
    assert process.returncode == pytest.ExitCode.INTERRUPTED, output
    assert "Traceback" not in output and "INTERNALERROR" not in output, output
    batch_id = next(iter(server.batches))
    assert len(server.batch_cancels()) == 1
    assert f"rag-gate: batch {batch_id} canceled" in output
    report = read_report(pytester.path / "report.json")
    assert report["incomplete"] is True
    assert report["verdict"] == "failed"
    assert all("Scoring was interrupted" in case["error"] for case in report["cases"])
    assert _state_files(pytester) == []


def _served(server: FakeLLM) -> int:
    """Batch requests the fake provider processed (and a real one would bill)."""
    return sum(
        1
        for batch in server.batches.values()
        for result, _ in batch.results.values()
        if result == "succeeded"
    )


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is POSIX")
def test_ctrl_c_keeps_what_the_batch_answered_and_a_rerun_sends_only_the_rest(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: Ctrl-C canceled the batch and dropped the two thirds of its requests it had
    # already answered (and billed); the interrupted report said 0 calls and $0, and the
    # re-run submitted the whole batch again.
    _setup(pytester, "anthropic", cache="readwrite")
    with FakeLLM(batch_stall_at=2 / 3) as server:
        process = _start_and_wait_for_a_batch(pytester, server)
        batch = next(iter(server.batches.values()))
        deadline = time.monotonic() + 30
        while batch.done == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=60)
        assert process.returncode == pytest.ExitCode.INTERRUPTED, output
        assert "Traceback" not in output and "INTERNALERROR" not in output, output
        first_batch = len(batch.requests)
        answered = sum(1 for result, _ in batch.results.values() if result == "succeeded")
        # Three first requests per case (claims, relevancy, one context review each).
        assert (first_batch, answered) == (3 * CASES, 2 * CASES)
        assert f"rag-gate: batch {batch.id} canceled" in output
        assert (
            f"rag-gate: batch {batch.id}: {answered} of {first_batch} requests were answered "
            "before the cancel; their replies are kept, and the next run sends only the rest"
        ) in output
        interrupted = read_report(pytester.path / "report.json")
        assert interrupted["incomplete"] is True and interrupted["verdict"] == "failed"
        # The interrupted report counts what the provider billed for the kept replies.
        assert interrupted["usage"]["calls"] == answered
        assert interrupted["usage"]["cost_usd"] > 0
        assert _state_files(pytester) == []
        served_before_rerun = _served(server)
        kept_ids = {cid for cid, (result, _) in batch.results.items() if result == "succeeded"}

        server.batch_stall_at = None
        server.batch_polls = 0
        use_fake_judge(monkeypatch, server)
        result = gate_run(pytester, batch=True, **OPTIONS)
    assert_no_traceback(result)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    rerun = read_report(pytester.path / "report.json")
    assert rerun["incomplete"] is False
    assert rerun["usage"]["cache_hits"] == answered
    later = list(server.batches.values())[1:]
    resent = {custom_id for later_batch in later for custom_id, _ in later_batch.requests}
    # Nothing answered before the interruption is sent again: the re-run sends the
    # unanswered first requests and the claim verifications (one per case).
    assert not resent & kept_ids
    assert len(resent) == sum(len(later_batch.requests) for later_batch in later)
    assert len(resent) == first_batch - answered + CASES
    served = _served(server)
    print(
        f"requests served: {served_before_rerun} in the interrupted run, "
        f"{served - served_before_rerun} in the re-run, {served} in all "
        f"for {first_batch + CASES} needed"
    )
