"""Runs that stop early, and caches written by several processes at once.

A budget stop or Ctrl-C still writes the JSON report of what was scored, marked
``"incomplete": true``, every other case an explicit error, and the gate fails. A cache
entry half-written by a killed process is ignored and rewritten; a re-run after an
interruption judges only what is missing. Two xdist workers, or two pytest processes,
sharing one cache give identical results and leave no corrupt entry, even when both send
and write every entry at the same moment.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeCall, FakeLLM, default_reply
from gate_runs import (
    TEST_KEY,
    assert_no_traceback,
    assert_scores_are_numbers,
    case_row,
    gate_process_command,
    read_report,
    use_fake_judge,
    write_config,
    write_golden,
)

from pytest_ragas_gate.judges.cache import JudgeCache
from pytest_ragas_gate.judges.requests import ALL_REQUEST_TYPES

METRICS = "faithfulness,answer_relevancy,context_recall"


def scores_by_case(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {case["id"]: case["scores"] for case in report["cases"]}


def case_of_request(body: dict[str, Any]) -> str | None:
    """Which golden case a recorded judge request belongs to (``source N`` in its text)."""
    text = json.dumps(body, ensure_ascii=False)
    for index in range(100):
        if f"source {index}." in text or f"source {index}?" in text:
            return f"case-{index:03d}"
    return None


def test_budget_stop_writes_an_incomplete_report_and_fails(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_golden(pytester.path, [case_row(index) for index in range(12)])
    write_config(pytester.path, judge="anthropic", cache="off", max_calls=10, concurrency=2)
    with FakeLLM() as server:
        use_fake_judge(monkeypatch, server)
        result = pytester.runpytest(
            "--rag-gate", f"--rag-gate-metrics={METRICS}", "--rag-gate-report=report.json"
        )
    assert_no_traceback(result)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert server.calls == 10
    report = read_report(pytester.path / "report.json")
    assert report["incomplete"] is True
    # A spent budget decided nothing about the system: no deploy decision, not a failure.
    assert report["verdict"] == "error"
    assert len(report["cases"]) == 12
    stopped = [case for case in report["cases"] if case["incomplete"]]
    assert stopped and all("budget is spent" in case["error"] for case in stopped)
    assert_scores_are_numbers(report)
    result.stdout.fnmatch_lines(["RAG gate: ERROR", "Judge unavailable, no deploy decision — *"])


def _gate_command(*extra: str) -> list[str]:
    return gate_process_command(METRICS, *extra)


def _keyless_environment() -> dict[str, str]:
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("ANTHROPIC_", "OPENAI_", "RAG_GATE_", "GITHUB_"))
    }
    return {**environment, "CI": "1"}


def _environment(server: FakeLLM, key: str = TEST_KEY) -> dict[str, str]:
    return {**_keyless_environment(), "ANTHROPIC_API_KEY": key, "ANTHROPIC_BASE_URL": server.url}


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is POSIX")
def test_ctrl_c_during_scoring_keeps_what_finished_and_a_rerun_judges_only_the_rest(
    pytester: pytest.Pytester,
) -> None:
    cases = 12
    write_golden(pytester.path, [case_row(index) for index in range(cases)])
    write_config(pytester.path, judge="anthropic", cache="readwrite", concurrency=2)
    # Slow answers, so the interrupt lands while requests are in flight.
    with FakeLLM(latency_s=0.1) as server:
        process = subprocess.Popen(
            _gate_command("--rag-gate-junit=junit.xml"),
            cwd=pytester.path,
            env=_environment(server),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            # A test run started in the background by a shell ignores SIGINT, and the child
            # would inherit that: give it the default handling a terminal's Ctrl-C meets.
            preexec_fn=_default_sigint,
        )
        deadline = time.monotonic() + 60
        while server.calls < 20 and time.monotonic() < deadline:
            time.sleep(0.02)
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=60)
        first_calls = server.calls
        assert process.returncode == pytest.ExitCode.INTERRUPTED, output
        assert "Traceback" not in output and "INTERNALERROR" not in output, output
        report = read_report(pytester.path / "report.json")
        assert report["incomplete"] is True
        assert report["verdict"] == "failed"
        assert len(report["cases"]) == cases
        finished = {case["id"] for case in report["cases"] if not case["error"]}
        interrupted = [case for case in report["cases"] if case["error"]]
        assert finished and interrupted
        assert all("Scoring was interrupted" in case["error"] for case in interrupted)
        assert all(case["incomplete"] for case in interrupted)
        assert "RAG gate: FAILED" in output
        # The JUnit file is written too: the finished cases pass, the rest are errors.
        junit = ET.parse(pytester.path / "junit.xml").getroot()
        testcases = [case for case in junit.iter("testcase") if case.get("classname") != "rag-gate"]
        assert len(testcases) == cases
        errored = {case.get("name") for case in testcases if case.find("error") is not None}
        assert errored == {case["id"] for case in interrupted}

        server.requests.clear()
        server.latency_s = 0.0
        rerun = subprocess.run(
            _gate_command(),
            cwd=pytester.path,
            env=_environment(server),
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert rerun.returncode == pytest.ExitCode.OK, rerun.stdout
    second = read_report(pytester.path / "report.json")
    assert second["incomplete"] is False and len(second["cases"]) == cases
    rejudged = {case_of_request(request.body) for request in server.judge_requests()}
    assert rejudged and not rejudged & finished
    # Every call of the first run that finished is replayed, not sent again.
    assert server.calls - first_calls < cases * 4
    assert second["usage"]["cache_hits"] > 0


@pytest.mark.slow
def test_half_written_cache_entries_are_ignored_and_rewritten(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_golden(pytester.path, [case_row(index) for index in range(6)])
    write_config(pytester.path, judge="anthropic", cache="readwrite")
    arguments = ("--rag-gate", f"--rag-gate-metrics={METRICS}", "--rag-gate-report=report.json")
    with FakeLLM() as server:
        use_fake_judge(monkeypatch, server)
        assert pytester.runpytest(*arguments).ret == pytest.ExitCode.OK
        first = read_report(pytester.path / "report.json")
        entries = sorted((pytester.path / ".rag_gate_cache").glob("*/*.json"))
        assert len(entries) == server.calls
        # A process killed mid-write leaves a truncated entry, or its temporary file.
        broken = entries[::3]
        for path in broken:
            text = path.read_text(encoding="utf-8")
            path.write_text(text[: len(text) // 2], encoding="utf-8")
            (path.parent / f".{path.stem[:12]}-killed.tmp").write_text("{", encoding="utf-8")
        calls_before = server.calls
        result = pytester.runpytest(*arguments)
    assert_no_traceback(result)
    assert result.ret == pytest.ExitCode.OK
    assert server.calls - calls_before == len(broken)
    assert scores_by_case(read_report(pytester.path / "report.json")) == scores_by_case(first)
    cache = JudgeCache(pytester.path / ".rag_gate_cache", "read")
    assert all(cache.load(path.stem) is not None for path in entries)


REPLY_TYPES = {request_type.kind: request_type.reply_type for request_type in ALL_REQUEST_TYPES}


def request_key(body: Any) -> str:
    """One judge request as the server saw it; identical requests give identical keys.

    The data-block id is drawn at random per process, so it is left out: two processes
    send the same request under different ids.
    """
    text = json.dumps(body, sort_keys=True, ensure_ascii=False)
    return _DATA_ID.sub("id=<data-id>", text)


_DATA_ID = re.compile(r'id=\\"[0-9a-f]{16}\\"')


def _reasons(value: Any) -> set[str]:
    if isinstance(value, dict):
        found = {value["reason"]} if isinstance(value.get("reason"), str) else set()
        return found.union(*(_reasons(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(_reasons(item) for item in value))
    return set()


def presented_key(headers: dict[str, str]) -> str:
    """The API key a request carried, in whichever header the SDK put it."""
    presented = headers.get("x-api-key") or headers.get("authorization", "")
    return presented.removeprefix("Bearer ").strip()


#: How long a request waits at the rendezvous for its twin. Writers start a few seconds
#: apart on a busy machine, so this is generous; it only runs out when a writer never
#: sends its twin (a bug the test then reports), and it stays below the judges' timeout
#: and the test's own limits, so that the report comes from the assertions.
RENDEZVOUS_WAIT_S = 120.0
#: The judges' timeout in the rendezvous runs: a reply held at the rendezvous must not
#: time out, or the retry would arrive as its own twin.
HELD_REPLY_TIMEOUT_S = RENDEZVOUS_WAIT_S + 60.0
#: The longest a writer process of a rendezvous run may take.
WRITER_LIMIT_S = HELD_REPLY_TIMEOUT_S + 60.0


class Rendezvous:
    """A fake-judge responder that answers a request only once ``parties`` copies arrived.

    Holding each reply until every writer has sent the same request means no writer can
    replay another's entry: all of them get a reply and write the entry, at about the same
    moment. Each reply's ``reason`` fields name the call that produced it, so a cache entry
    tells which writer's reply it holds, and whether it holds one reply whole.
    """

    def __init__(self, parties: int = 2, timeout_s: float = RENDEZVOUS_WAIT_S) -> None:
        self.parties = parties
        self.timeout_s = timeout_s
        self.kind_of_call: dict[str, str | None] = {}
        self.unpartnered: list[str | None] = []
        self._arrived: Counter[str] = Counter()
        self._condition = threading.Condition()

    def __call__(self, call: FakeCall) -> dict[str, Any]:
        key = request_key(call.body)
        with self._condition:
            self._arrived[key] += 1
            self._condition.notify_all()
            # A missing partner must fail the test's assertions, not hang it.
            if not self._condition.wait_for(
                lambda: self._arrived[key] >= self.parties, timeout=self.timeout_s
            ):
                self.unpartnered.append(call.kind)
        tag = f"call {call.number}"
        self.kind_of_call[tag] = call.kind
        reply = default_reply(call)
        # Reply models ignore fields they do not have, so the tag only sticks where a
        # model keeps a reason; scores never read it.
        tagged: dict[str, Any] = {}
        for name, value in reply.items():
            if isinstance(value, list):
                value = [
                    {**item, "reason": tag} if isinstance(item, dict) else item for item in value
                ]
            tagged[name] = value
        return {**tagged, "reason": tag}


def _valid_entries(cache_dir: Path, rendezvous: Rendezvous | None = None) -> set[str]:
    """The cache's keys, after checking that every entry is whole and replays."""
    cache = JudgeCache(cache_dir, "read")
    entries = list(cache_dir.glob("*/*.json"))
    assert not list(cache_dir.rglob("*.tmp")), "a temporary file was left behind"
    for path in entries:
        loaded = cache.load(path.stem)
        assert loaded is not None, f"a corrupt cache entry: {path}"
        kind = json.loads(path.read_text(encoding="utf-8"))["request_kind"]
        # The judge replays an entry only if its reply still fits the reply model.
        REPLY_TYPES[kind].model_validate(loaded.reply)
        if rendezvous is not None:
            tags = _reasons(loaded.reply)
            assert len(tags) <= 1, f"{path} mixes the replies of several calls: {tags}"
            for tag in tags:
                assert rendezvous.kind_of_call[tag] == kind, (path, tag)
    return {path.stem for path in entries}


def _senders(server: FakeLLM) -> dict[str, list[str]]:
    """Per unique judge request, the API keys of the requests that carried it."""
    senders: dict[str, list[str]] = defaultdict(list)
    for request in server.judge_requests():
        senders[request_key(request.body)].append(presented_key(request.headers))
    return senders


def twin_rows(pairs: int) -> list[dict[str, Any]]:
    """Cases 2k and 2k+1 differ only in their id, so they send identical judge requests."""
    return [
        {**case_row(index), "id": f"case-{index:03d}-{twin}"}
        for index in range(pairs)
        for twin in ("a", "b")
    ]


@pytest.mark.slow
def test_xdist_workers_sharing_a_cache_match_a_serial_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # xdist worker k of 2 scores the cases at positions k, k + 2, …, so each worker gets
    # one case of every twin pair: both workers send, and write, every request.
    write_golden(pytester.path, twin_rows(8))
    # Each worker presents its own key, so the server can tell which worker sent what
    # (the cache key ignores the API key).
    pytester.makeconftest(
        f"""
        import os

        if os.environ.get("PYTEST_XDIST_WORKER"):
            os.environ["ANTHROPIC_API_KEY"] = "{TEST_KEY}-" + os.environ["PYTEST_XDIST_WORKER"]
        """
    )
    # Every case of a worker in flight at once, so each worker's requests all reach the
    # rendezvous without waiting for one another.
    write_config(
        pytester.path,
        judge="anthropic",
        cache="readwrite",
        concurrency=64,
        timeout_s=HELD_REPLY_TIMEOUT_S,
    )
    arguments = ["--rag-gate", f"--rag-gate-metrics={METRICS}"]
    with FakeLLM() as server:
        use_fake_judge(monkeypatch, server)
        serial = pytester.runpytest(
            *arguments, "--rag-gate-report=serial.json", "--rag-gate-cache-dir=serial-cache"
        )
    rendezvous = Rendezvous(parties=2)
    with FakeLLM(responder=rendezvous) as server:
        use_fake_judge(monkeypatch, server)
        parallel = pytester.runpytest(
            *arguments,
            "--rag-gate-report=xdist.json",
            "--rag-gate-cache-dir=xdist-cache",
            "-n",
            "2",
        )
    senders = _senders(server)
    # The server is gone and there is no key: the replay can only read the cache.
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    replay = pytester.runpytest(
        *arguments,
        "--rag-gate-report=replay.json",
        "--rag-gate-cache-dir=xdist-cache",
        "--rag-gate-cache=read",
    )
    for result in (serial, parallel, replay):
        assert_no_traceback(result)
        assert result.ret == pytest.ExitCode.OK
    assert rendezvous.unpartnered == []
    # Each unique request came once from each worker: both wrote every entry.
    worker_keys = [f"{TEST_KEY}-gw0", f"{TEST_KEY}-gw1"]
    assert senders and all(sorted(sent) == worker_keys for sent in senders.values())
    calls = 2 * len(senders)
    reports = [
        read_report(pytester.path / name) for name in ("serial.json", "xdist.json", "replay.json")
    ]
    assert reports[1]["usage"]["calls"] == calls
    assert reports[1]["usage"]["cache_hits"] == 0
    assert reports[2]["usage"]["calls"] == 0
    assert reports[2]["usage"]["cache_hits"] == calls
    scores = [scores_by_case(report) for report in reports]
    assert len(scores[0]) == 16
    assert scores[0] == scores[1] == scores[2]
    for by_case in scores:
        for index in range(8):
            assert by_case[f"case-{index:03d}-a"] == by_case[f"case-{index:03d}-b"]
    keys = _valid_entries(pytester.path / "xdist-cache", rendezvous)
    assert len(keys) == len(senders)
    assert keys == _valid_entries(pytester.path / "serial-cache")


@pytest.mark.slow
def test_two_pytest_processes_writing_one_cache_agree(pytester: pytest.Pytester) -> None:
    write_golden(pytester.path, [case_row(index) for index in range(8)])
    write_config(
        pytester.path,
        judge="anthropic",
        cache="readwrite",
        concurrency=64,
        timeout_s=HELD_REPLY_TIMEOUT_S,
    )
    # One key per process: the server tells the writers apart, the cache key ignores it.
    keys = [f"{TEST_KEY}-{index}" for index in range(2)]
    rendezvous = Rendezvous(parties=2)
    with FakeLLM(responder=rendezvous) as server:
        processes = [
            subprocess.Popen(
                [*_gate_command()[:-1], f"--rag-gate-report=run-{index}.json"],
                cwd=pytester.path,
                env=_environment(server, key=key),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for index, key in enumerate(keys)
        ]
        outputs = [process.communicate(timeout=WRITER_LIMIT_S)[0] for process in processes]
    for process, output in zip(processes, outputs, strict=True):
        assert process.returncode == 0, output
    assert rendezvous.unpartnered == []
    senders = _senders(server)
    # Every unique request was sent once by each process, so each wrote every entry.
    assert senders and all(sorted(sent) == keys for sent in senders.values())
    first, second = (read_report(pytester.path / f"run-{index}.json") for index in range(2))
    for report in (first, second):
        assert report["usage"]["calls"] == len(senders)
        assert report["usage"]["cache_hits"] == 0
    assert scores_by_case(first) == scores_by_case(second)
    assert_scores_are_numbers(first)
    assert len(_valid_entries(pytester.path / ".rag_gate_cache", rendezvous)) == len(senders)

    # A third run without a key and without the server replays the contended cache.
    replay = subprocess.run(
        [*_gate_command()[:-1], "--rag-gate-report=replay.json", "--rag-gate-cache=read"],
        cwd=pytester.path,
        env=_keyless_environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert replay.returncode == 0, replay.stdout + replay.stderr
    third = read_report(pytester.path / "replay.json")
    assert third["usage"]["calls"] == 0
    assert third["usage"]["cache_hits"] == len(senders)
    assert scores_by_case(third) == scores_by_case(first)


def test_a_run_cut_short_never_passes_even_when_max_error_rate_allows_its_errors() -> None:
    from pytest_ragas_gate.gate.verdict import RunFacts, evaluate_gate
    from pytest_ragas_gate.scoring.interruption import INTERRUPTED_MESSAGE
    from pytest_ragas_gate.scoring.results import CaseResult
    from pytest_ragas_gate.settings.config import GateConfig

    scored = [
        CaseResult(
            id=f"case-{index}",
            source=f"golden.jsonl:{index + 1}",
            metrics=["faithfulness"],
            scores={"faithfulness": 1.0},
        )
        for index in range(30)
    ]
    cut = [
        CaseResult(
            id=f"late-{index}",
            source=f"golden.jsonl:{index + 31}",
            metrics=["faithfulness"],
            error=INTERRUPTED_MESSAGE,
            incomplete=True,
        )
        for index in range(3)
    ]
    config = GateConfig(max_error_rate=1.0)
    facts = RunFacts(scored_by={"faithfulness": "anthropic"})
    verdict = evaluate_gate([*scored, *cut], ["faithfulness"], config, facts)
    assert verdict.status == "failed"
    assert verdict.deploy_decision is False
    assert any(
        check.kind == "incomplete" and "stopped short of 3 case(s)" in check.message
        for check in verdict.checks
    )
    # A complete run of the same cases passes.
    assert evaluate_gate(scored, ["faithfulness"], config, facts).status == "passed"
