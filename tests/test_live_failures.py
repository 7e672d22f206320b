"""Live mode fails closed: no answer, a hung call or a failing call is an error of its case.

Before, a target returning ``{"answer": None}`` or ``""`` made faithfulness and answer
relevancy vanish (not applicable) and the run passed; a hung target had no timeout (Ctrl-C
took 37 s to exit); and the latency figures left out the calls that failed.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
from gate_runs import gate_run, write_config, write_jsonl
from test_plugin_live import OPTIONS, cases_by_id, questions, write_target


@pytest.mark.parametrize("answer", ["None", "''", "'  \\n'"], ids=["none", "empty", "blank"])
def test_a_target_that_gives_no_answer_makes_that_case_an_error(
    pytester: pytest.Pytester, answer: str
) -> None:
    write_jsonl(pytester, "golden.jsonl", questions("apple", "eiffel"))
    write_target(
        pytester,
        f"""
        def answer(question):
            key, text, contexts = lookup(question)
            return {{"answer": {answer} if key == "eiffel" else text, "contexts": contexts}}
        """,
    )
    result, report = gate_run(pytester, target="rag_target:answer", **OPTIONS)
    output = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, output
    result.assert_outcomes(passed=1, errors=1)
    shown = {"None": "None", "''": "''", "'  \\n'": "'  \\n'"}[answer]
    result.stdout.fnmatch_lines(
        [
            f"*target rag_target:answer returned no answer for case 'eiffel' (golden.jsonl:2): "
            f"the answer is {shown}.*",
        ]
    )
    result.stdout.fnmatch_lines(["FAILED 1 of 2 case(s) errored*", "RAG gate: FAILED"])
    assert "Safe to deploy" not in output
    eiffel = cases_by_id(report)["eiffel"]
    assert eiffel["error"].startswith("target rag_target:answer returned no answer")
    assert eiffel["scores"] == {}
    assert report["metrics"]["faithfulness"]["errors"] == 1


@pytest.mark.slow
def test_a_hung_target_is_an_error_after_target_timeout_and_does_not_hold_the_exit(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", questions("apple", "eiffel", "nile"))
    write_target(
        pytester,
        """
        def answer(question):
            key, text, contexts = lookup(question)
            if key == "eiffel":
                time.sleep(60)
            return {"answer": text, "contexts": contexts}
        """,
    )
    write_config(pytester.path, target="rag_target:answer", target_timeout=0.5)
    started = time.monotonic()
    result, report = gate_run(pytester, subprocess=True, **OPTIONS)
    took = time.monotonic() - started
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    # Neither the run nor the interpreter's exit waits for the hung call.
    assert took < 30, took
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*target rag_target:answer did not answer case 'eiffel' (golden.jsonl:2) within "
            "0.5s (live.timeout); the call was abandoned.*",
            "latency: p50 * · max * (n=3, 1 errored)",
            "RAG gate: FAILED",
        ]
    )
    eiffel = cases_by_id(report)["eiffel"]
    assert eiffel["target_failed"] is True and eiffel["latency_s"] >= 0.5
    assert report["latency"]["n"] == 3 and report["latency"]["errors"] == 1
    assert report["latency"]["max"] >= 0.5


def test_a_failing_call_counts_in_the_latency_budget(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", questions("apple", "eiffel", "nile"))
    write_target(
        pytester,
        """
        def answer(question):
            key, text, contexts = lookup(question)
            if key == "eiffel":
                time.sleep(0.3)
                raise RuntimeError("upstream 503")
            return {"answer": text, "contexts": contexts}
        """,
    )
    write_config(
        pytester.path, target="rag_target:answer", latency={"max": 0.25}, max_error_rate=0.5
    )
    result, report = gate_run(pytester, **OPTIONS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    # The failed call is the slowest: dropping it would have met the budget.
    result.stdout.fnmatch_lines(["FAILED latency max 0.3*s > 0.25s (n=3, 1 errored)"])
    assert report["latency"]["errors"] == 1


def test_target_timeout_must_be_positive(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", questions("apple"))
    write_config(pytester.path, target_timeout=0)
    result = pytester.runpytest("--rag-gate")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*setting 'live.timeout' from rag_gate.yaml*greater than 0*"])


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is POSIX")
def test_ctrl_c_while_the_target_hangs_exits_at_once(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", questions("apple", "eiffel"))
    write_target(
        pytester,
        """
        import pathlib

        def answer(question):
            pathlib.Path("called").touch()
            time.sleep(120)
        """,
    )
    write_config(pytester.path, target="rag_target:answer", judge="offline")
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--rag-gate"],
        cwd=pytester.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        # A test run started in the background by a shell ignores SIGINT, and the child
        # would inherit that: give it the default handling a terminal's Ctrl-C meets.
        preexec_fn=_default_sigint,
    )
    try:
        deadline = time.monotonic() + 60
        while not (pytester.path / "called").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        interrupted = time.monotonic()
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    # Before, the interpreter's exit joined the pool's thread: the rest of the hung call.
    assert time.monotonic() - interrupted < 15, output
    assert process.returncode == pytest.ExitCode.INTERRUPTED, output
    assert "RAG gate: FAILED" in output
