"""Runs that stop early, and caches written by several processes at once.

A budget stop or Ctrl-C still writes the JSON report of what was scored, marked
``"incomplete": true``, every other case an explicit error, and the gate fails. A cache
entry half-written by a killed process is ignored and rewritten; a re-run after an
interruption judges only what is missing. Two xdist workers, or two pytest processes,
sharing one cache give identical results and leave no corrupt entry.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeLLM
from gate_runs import (
    TEST_KEY,
    assert_no_traceback,
    assert_scores_are_numbers,
    case_row,
    read_report,
    use_fake_judge,
    write_config,
    write_golden,
)

from pytest_ragas_gate.cache import JudgeCache

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
    assert report["verdict"] == "failed"
    assert len(report["cases"]) == 12
    stopped = [case for case in report["cases"] if case["incomplete"]]
    assert stopped and all("budget is spent" in case["error"] for case in stopped)
    assert_scores_are_numbers(report)
    result.stdout.fnmatch_lines(["RAG gate: FAILED"])


def _gate_command(*extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "--rag-gate",
        f"--rag-gate-metrics={METRICS}",
        "--rag-gate-report=report.json",
        *extra,
    ]


def _environment(server: FakeLLM) -> dict[str, str]:
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("ANTHROPIC_", "OPENAI_", "RAG_GATE_", "GITHUB_"))
    }
    return {
        **environment,
        "ANTHROPIC_API_KEY": TEST_KEY,
        "ANTHROPIC_BASE_URL": server.url,
        "CI": "1",
    }


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is POSIX")
def test_ctrl_c_during_scoring_keeps_what_finished_and_a_rerun_judges_only_the_rest(
    pytester: pytest.Pytester,
) -> None:
    cases = 24
    write_golden(pytester.path, [case_row(index) for index in range(cases)])
    write_config(pytester.path, judge="anthropic", cache="readwrite", concurrency=2)
    with FakeLLM(latency_s=0.1) as server:
        process = subprocess.Popen(
            _gate_command(),
            cwd=pytester.path,
            env=_environment(server),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
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

        server.requests.clear()
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


def _valid_entries(cache_dir: Path) -> int:
    cache = JudgeCache(cache_dir, "read")
    entries = list(cache_dir.glob("*/*.json"))
    assert all(cache.load(path.stem) is not None for path in entries), "a corrupt cache entry"
    assert not list(cache_dir.rglob("*.tmp")), "a temporary file was left behind"
    return len(entries)


def test_xdist_workers_sharing_a_cache_match_a_serial_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_golden(pytester.path, [case_row(index) for index in range(16)])
    write_config(pytester.path, judge="anthropic", cache="readwrite")
    arguments = ["--rag-gate", f"--rag-gate-metrics={METRICS}"]
    with FakeLLM(latency_s=0.01) as server:
        use_fake_judge(monkeypatch, server)
        serial = pytester.runpytest(
            *arguments, "--rag-gate-report=serial.json", "--rag-gate-cache-dir=serial-cache"
        )
        parallel = pytester.runpytest(
            *arguments,
            "--rag-gate-report=xdist.json",
            "--rag-gate-cache-dir=xdist-cache",
            "-n",
            "2",
        )
        replay = pytester.runpytest(
            *arguments,
            "--rag-gate-report=replay.json",
            "--rag-gate-cache-dir=xdist-cache",
            "--rag-gate-cache=read",
        )
    for result in (serial, parallel, replay):
        assert_no_traceback(result)
        assert result.ret == pytest.ExitCode.OK
    reports = [
        read_report(pytester.path / name) for name in ("serial.json", "xdist.json", "replay.json")
    ]
    assert scores_by_case(reports[0]) == scores_by_case(reports[1]) == scores_by_case(reports[2])
    assert reports[2]["usage"]["calls"] == 0
    assert _valid_entries(pytester.path / "serial-cache") == _valid_entries(
        pytester.path / "xdist-cache"
    )


def test_two_pytest_processes_writing_one_cache_agree(pytester: pytest.Pytester) -> None:
    write_golden(pytester.path, [case_row(index) for index in range(16)])
    write_config(pytester.path, judge="anthropic", cache="readwrite")
    with FakeLLM(latency_s=0.01) as server:
        processes = [
            subprocess.Popen(
                [*_gate_command()[:-1], f"--rag-gate-report=run-{index}.json"],
                cwd=pytester.path,
                env=_environment(server),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for index in range(2)
        ]
        outputs = [process.communicate(timeout=120)[0] for process in processes]
    for process, output in zip(processes, outputs, strict=True):
        assert process.returncode == 0, output
    first, second = (read_report(pytester.path / f"run-{index}.json") for index in range(2))
    assert scores_by_case(first) == scores_by_case(second)
    assert_scores_are_numbers(first)
    entries = _valid_entries(pytester.path / ".rag_gate_cache")
    assert entries == len({request.text for request in server.judge_requests()})
