"""Runs that end badly still end well: a signal or a crashed xdist worker loses no case.

SIGINT or SIGTERM, sent to a real pytest process (serial or ``-n 2``; to the process alone
or to its process group, as a terminal's Ctrl-C or a CI runner sends it) while the judge
answers slowly: the reports list every collected case, the unscored ones as interrupted
errors, ``"incomplete": true``, exit 2 and no traceback; the cache stays whole and the next
run judges only what is missing. A second signal exits at once. An xdist worker killed with
SIGKILL costs its own cases, as errors, and the gate fails closed.

The fake judge sends the signals itself, when the requests show the run has got where the
test wants it, so no test waits for a fixed time.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeCall, FakeLLM, default_reply
from gate_runs import (
    TEST_KEY,
    assert_no_traceback,
    case_row,
    gate_process_command,
    read_report,
    use_fake_judge,
    write_config,
    write_golden,
)

from pytest_ragas_gate.judges.cache import JudgeCache

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

METRICS = "faithfulness,answer_relevancy,context_recall"
#: Generous: the machine running the tests may be busy with much else.
RUN_LIMIT_S = 240


def case_index(body: dict[str, Any]) -> int | None:
    """Which golden case (``case_row`` index) a judge request belongs to."""
    text = json.dumps(body, ensure_ascii=False)
    for index in range(100):
        if f"source {index}." in text or f"source {index}?" in text:
            return index
    return None


class SignalWhen:
    """A fake-judge responder that sends signals once the requests show enough progress.

    ``after`` judge calls, and (``both_workers``) requests of an even and an odd case,
    which the two xdist workers score: both are scoring when the signal goes.
    """

    def __init__(self, after: int, *, both_workers: bool = False, signals: int = 1) -> None:
        self.after = after
        self.both_workers = both_workers
        self.signals = signals
        self.send: Callable[[], None] | None = None
        self.sent = threading.Event()
        self._parities: set[int] = set()
        self._lock = threading.Lock()

    def __call__(self, call: FakeCall) -> dict[str, Any]:
        index = case_index(call.body)
        with self._lock:
            if index is not None:
                self._parities.add(index % 2)
            ready = call.number >= self.after and (
                not self.both_workers or len(self._parities) == 2
            )
            if ready and not self.sent.is_set() and self.send is not None:
                self.sent.set()
                for _ in range(self.signals):
                    self.send()
        return default_reply(call)


def _environment(server: FakeLLM) -> dict[str, str]:
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("ANTHROPIC_", "OPENAI_", "RAG_GATE_", "GITHUB_", "PYTEST_"))
    }
    return {
        **environment,
        "CI": "1",
        "ANTHROPIC_API_KEY": TEST_KEY,
        "ANTHROPIC_BASE_URL": server.url,
    }


def _own_group_default_signals() -> None:
    # A group of its own, so that a signal to the group reaches the run and its xdist
    # workers but not this test; and the default Ctrl-C handling a terminal gives, which a
    # test run started in the background by a shell would not pass on.
    os.setsid()
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(directory: Path, server: FakeLLM, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        gate_process_command(
            METRICS,
            "--rag-gate-output=junit=junit.xml",
            "--rag-gate-output=markdown=report.md",
            *extra,
        ),
        cwd=directory,
        env=_environment(server),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=_own_group_default_signals,
    )


def _sender(process: subprocess.Popen[str], signum: int, to_group: bool) -> Callable[[], None]:
    def send() -> None:
        if to_group:
            os.killpg(process.pid, signum)
        else:
            os.kill(process.pid, signum)

    return send


def _valid_cache(directory: Path) -> int:
    """How many cache entries there are, after checking each is whole and replays."""
    cache_dir = directory / ".rag_gate_cache"
    cache = JudgeCache(cache_dir, "read")
    entries = list(cache_dir.glob("*/*.json"))
    for path in entries:
        assert cache.load(path.stem) is not None, f"a corrupt cache entry: {path}"
    return len(entries)


def _interrupted_run(
    directory: Path, *, cases: int, signum: int, to_group: bool, xdist: bool, after: int
) -> tuple[str, dict[str, Any], set[int], int]:
    """A run signalled mid-scoring; its output, report, scored cases and server calls."""
    write_golden(directory, [case_row(index) for index in range(cases)])
    write_config(directory, judge="anthropic", cache="readwrite", concurrency=2)
    responder = SignalWhen(after, both_workers=xdist)
    with FakeLLM(latency_s=0.2, responder=responder) as server:
        process = _start(directory, server, *(("-n", "2") if xdist else ()))
        responder.send = _sender(process, signum, to_group)
        output, _ = process.communicate(timeout=RUN_LIMIT_S)
        calls = server.calls
    assert responder.sent.is_set(), output
    assert process.returncode == pytest.ExitCode.INTERRUPTED, output
    for unwanted in ("Traceback", "INTERNALERROR", "never retrieved", "client has been closed"):
        assert unwanted not in output, output
    report = read_report(directory / "report.json")
    assert report["incomplete"] is True
    assert sorted(case["id"] for case in report["cases"]) == [
        f"case-{index:03d}" for index in range(cases)
    ]
    scored = {int(case["id"][5:]) for case in report["cases"] if not case["error"]}
    interrupted = [case for case in report["cases"] if case["error"]]
    assert interrupted, "the signal came after every case was scored"
    assert all("Scoring was interrupted" in case["error"] for case in interrupted)
    assert all(case["incomplete"] for case in interrupted)
    assert report["verdict"] != "passed"
    # Every case in the coverage line, as collected.
    assert f"gated {cases} of {cases} collected golden case(s)" in output, output
    junit = ET.parse(directory / "junit.xml").getroot()
    testcases = [case for case in junit.iter("testcase") if case.get("classname") != "rag-gate"]
    assert len(testcases) == cases
    assert "interrupted" in (directory / "report.md").read_text(encoding="utf-8").lower()
    return output, report, scored, calls


def _rerun_judges_only_the_rest(directory: Path, cases: int, scored: set[int]) -> None:
    entries = _valid_cache(directory)
    # A signal on the first call may come before any reply is kept; every case scored
    # before it, though, left its replies behind.
    assert entries > 0 or not scored
    with FakeLLM() as server:
        rerun = subprocess.run(
            gate_process_command(METRICS),
            cwd=directory,
            env=_environment(server),
            capture_output=True,
            text=True,
            timeout=RUN_LIMIT_S,
        )
        rejudged = {case_index(request.body) for request in server.judge_requests()}
    assert rerun.returncode == pytest.ExitCode.OK, rerun.stdout + rerun.stderr
    report = read_report(directory / "report.json")
    assert report["incomplete"] is False and len(report["cases"]) == cases
    assert not any(case["error"] for case in report["cases"])
    # The cases scored before the signal are replayed whole, and every cached reply is used.
    assert not rejudged & scored
    assert report["usage"]["cache_hits"] >= entries


def test_sigterm_mid_scoring_keeps_every_case_and_a_rerun_judges_the_rest(
    pytester: pytest.Pytester,
) -> None:
    cases = 8
    _, _, scored, _ = _interrupted_run(
        pytester.path, cases=cases, signum=signal.SIGTERM, to_group=False, xdist=False, after=6
    )
    _rerun_judges_only_the_rest(pytester.path, cases, scored)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signum", "to_group", "xdist", "after"),
    [
        pytest.param(signal.SIGINT, True, False, 1, id="serial-group-SIGINT-first-call"),
        pytest.param(signal.SIGINT, False, False, 20, id="serial-process-SIGINT-mid-run"),
        pytest.param(signal.SIGINT, True, True, 20, id="xdist-group-SIGINT-mid-run"),
        pytest.param(signal.SIGTERM, False, True, 20, id="xdist-controller-SIGTERM-mid-run"),
    ],
)
def test_a_signal_keeps_every_case_and_a_rerun_judges_only_the_rest(
    pytester: pytest.Pytester, signum: int, to_group: bool, xdist: bool, after: int
) -> None:
    cases = 16
    output, report, scored, _ = _interrupted_run(
        pytester.path, cases=cases, signum=signum, to_group=to_group, xdist=xdist, after=after
    )
    assert "RAG gate: " in output
    _rerun_judges_only_the_rest(pytester.path, cases, scored)


@pytest.mark.slow
def test_a_signalled_xdist_worker_stops_the_whole_run(pytester: pytest.Pytester) -> None:
    cases = 16
    write_golden(pytester.path, [case_row(index) for index in range(cases)])
    write_config(pytester.path, judge="anthropic", cache="readwrite", concurrency=2)
    pid_file = pytester.path / "gw1.pid"
    pytester.makeconftest(
        f"""
        import os, pathlib

        def pytest_configure(config):
            if os.environ.get("PYTEST_XDIST_WORKER") == "gw1":
                pathlib.Path({str(pid_file)!r}).write_text(str(os.getpid()))
        """
    )
    responder = SignalWhen(8, both_workers=True)
    with FakeLLM(latency_s=0.2, responder=responder) as server:
        process = _start(pytester.path, server, "-n", "2")
        responder.send = lambda: os.kill(int(pid_file.read_text()), signal.SIGINT)
        output, _ = process.communicate(timeout=RUN_LIMIT_S)
    assert responder.sent.is_set(), output
    assert process.returncode == pytest.ExitCode.INTERRUPTED, output
    assert "Traceback" not in output, output
    report = read_report(pytester.path / "report.json")
    assert report["incomplete"] is True and len(report["cases"]) == cases
    assert any("Scoring was interrupted" in (case["error"] or "") for case in report["cases"])


@pytest.mark.slow
def test_a_second_sigint_exits_at_once_and_leaves_the_cache_whole(
    pytester: pytest.Pytester,
) -> None:
    write_golden(pytester.path, [case_row(index) for index in range(16)])
    write_config(pytester.path, judge="anthropic", cache="readwrite", concurrency=2)
    responder = SignalWhen(10)
    with FakeLLM(latency_s=0.2, responder=responder) as server:
        process = _start(pytester.path, server)
        send = _sender(process, signal.SIGINT, to_group=True)
        responder.send = send

        def again() -> None:
            # Signals that arrive together count once: repeat until one lands after the
            # first was handled, as a user pressing Ctrl-C again does.
            responder.sent.wait(RUN_LIMIT_S)
            while process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    send()
                time.sleep(0.5)

        repeater = threading.Thread(target=again, daemon=True)
        repeater.start()
        output, _ = process.communicate(timeout=RUN_LIMIT_S)
        repeater.join(timeout=5)
    assert process.returncode == pytest.ExitCode.INTERRUPTED, output
    assert "exiting at once" in output, output
    assert "Traceback" not in output, output
    assert _valid_cache(pytester.path) > 0


def test_a_killed_xdist_worker_costs_its_cases_and_the_gate_fails_closed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = 8
    write_golden(pytester.path, [case_row(index) for index in range(cases)])
    write_config(pytester.path, judge="anthropic", cache="readwrite", concurrency=2)
    pid_file = pytester.path / "gw1.pid"
    pytester.makeconftest(
        f"""
        import os, pathlib

        def pytest_configure(config):
            if os.environ.get("PYTEST_XDIST_WORKER") == "gw1":
                pathlib.Path({str(pid_file)!r}).write_text(str(os.getpid()))
        """
    )
    killed = threading.Event()

    def kill_gw1(call: FakeCall) -> dict[str, Any]:
        # Worker k of 2 scores the cases at positions k, k + 2, …: an odd case is gw1's.
        index = case_index(call.body)
        if index is not None and index % 2 == 1 and not killed.is_set():
            killed.set()
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
        return default_reply(call)

    with FakeLLM(responder=kill_gw1) as server:
        use_fake_judge(monkeypatch, server)
        result = pytester.runpytest(
            "--rag-gate",
            f"--rag-gate-metrics={METRICS}",
            "--rag-gate-report=report.json",
            "-n",
            "2",
        )
    assert killed.is_set()
    assert_no_traceback(result)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = read_report(pytester.path / "report.json")
    # Complete: every case is there, none waits to be scored; gw1's are its errors.
    assert report["incomplete"] is False
    assert len(report["cases"]) == cases
    by_index = {int(case["id"][5:]): case for case in report["cases"]}
    for index, case in by_index.items():
        if index % 2:
            assert case["error"] and case["error"].startswith("worker crashed: "), case
            assert "gw1" in case["error"]
        else:
            assert not case["error"] and case["scores"], case
    assert report["verdict"] != "passed"
    result.stdout.fnmatch_lines(["*4 of 8 case(s) errored*"])
    assert "RAG gate: PASSED" not in result.stdout.str()
