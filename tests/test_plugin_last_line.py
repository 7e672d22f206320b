"""pytest's last line carries the gate: ``3 passed, rag-gate FAILED in 0.4s``, in red.

A gate that fails an otherwise green run used to end on a green ``3 passed`` line; a
reader who glances at the end of the log must see the gate's word and pytest's red.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakellm import FakeLLM, status
from gate_runs import GOOD, gate_run, write_config, write_golden

#: The ANSI codes pytest's terminal writer uses for red and green.
RED, GREEN, YELLOW = "\x1b[31m", "\x1b[32m", "\x1b[33m"

WORKERS = [pytest.param((), id="serial"), pytest.param(("-n", "2"), id="xdist")]


def last_line(text: str) -> str:
    """The last non-empty line of a run's output."""
    return [line for line in text.splitlines() if line.strip()][-1]


def plain(line: str) -> str:
    """``line`` without its ANSI colour codes."""
    return re.sub(r"\x1b\[[0-9;]*m", "", line)


def golden(directory: Path, count: int = 3, *, answer: str = GOOD["answer"]) -> None:
    """``count`` cases gated on faithfulness >= 0.8; another ``answer`` fails them all."""
    rows = [{**GOOD, "id": f"good-{index}", "answer": answer} for index in range(count)]
    write_golden(directory, rows)
    write_config(directory, metrics=["faithfulness"], thresholds={"faithfulness": 0.8})


#: A plugin imported before pytest could rewrite it is warned of in some environments; the
#: warning turns pytest's line yellow, which is pytest's matter, not the gate's.
NO_REWRITE_WARNING = ("-W", "ignore::pytest.PytestAssertRewriteWarning")

#: An answer nothing of which is in the contexts: faithfulness 0.
HALLUCINATED = "The Quorvex tier ships with unlimited satellite uplinks."


@pytest.mark.parametrize("workers", WORKERS)
def test_a_failed_gate_ends_on_a_red_line_that_names_it(
    pytester: pytest.Pytester, workers: tuple[str, ...]
) -> None:
    golden(pytester.path, answer=HALLUCINATED)
    run = gate_run(pytester, "--color=yes", *NO_REWRITE_WARNING, *workers, judge="offline")
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    line = last_line(run.stdout.str())
    assert re.fullmatch(
        r"=+ 3 passed(, \d+ warnings?)?, rag-gate FAILED in [0-9.]+s( \(.*\))? =+", plain(line)
    )
    # The whole line is red, as a failed test makes it, and the gate's word too.
    assert line.startswith(RED)
    assert f"{RED}\x1b[1mrag-gate FAILED" in line
    assert GREEN + "\x1b[1m" not in line


@pytest.mark.parametrize("workers", WORKERS)
def test_a_passed_gate_leaves_the_line_green(
    pytester: pytest.Pytester, workers: tuple[str, ...]
) -> None:
    golden(pytester.path)
    run = gate_run(pytester, "--color=yes", *NO_REWRITE_WARNING, *workers, judge="offline")
    assert run.ret == pytest.ExitCode.OK
    line = last_line(run.stdout.str())
    assert re.fullmatch(
        r"=+ 3 passed(, \d+ warnings?)?, rag-gate passed in [0-9.]+s( \(.*\))? =+", plain(line)
    )
    assert line.startswith(GREEN)
    assert RED not in line


def test_the_plain_line_names_the_gate_without_colour(pytester: pytest.Pytester) -> None:
    golden(pytester.path, answer=HALLUCINATED)
    run = gate_run(pytester, "-q", judge="offline")
    assert re.fullmatch(
        r"3 passed(, \d+ warnings?)?, rag-gate FAILED in [0-9.]+s", last_line(run.stdout.str())
    )


def test_an_ungated_run_ends_on_a_yellow_line(pytester: pytest.Pytester) -> None:
    golden(pytester.path)
    write_config(pytester.path, metrics=["faithfulness"], thresholds={"faithfulness": None})
    run = gate_run(pytester, "--color=yes", judge="offline")
    line = last_line(run.stdout.str())
    assert "rag-gate UNGATED" in plain(line)
    assert line.startswith(YELLOW)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-not-real")
        yield fake


@pytest.mark.parametrize("workers", WORKERS)
def test_a_judge_outage_ends_on_a_red_error_line(
    pytester: pytest.Pytester, server: FakeLLM, workers: tuple[str, ...]
) -> None:
    golden(pytester.path, 2)
    write_config(
        pytester.path,
        max_retries=1,
        retry_backoff_s=0.005,
        metrics=["faithfulness"],
        thresholds={"faithfulness": 0.8},
    )
    server.fail(status(503, retry_after="0"))
    run = gate_run(pytester, "--color=yes", *NO_REWRITE_WARNING, *workers, judge="anthropic")
    assert run.report["verdict"] == "error"
    line = last_line(run.stdout.str())
    assert "rag-gate ERROR in" in plain(line)
    assert line.startswith(RED)


@pytest.mark.parametrize("workers", WORKERS)
def test_a_pass_with_allowed_errors_exits_0_on_a_yellow_line_not_a_red_one(
    pytester: pytest.Pytester, server: FakeLLM, workers: tuple[str, ...]
) -> None:
    # Two cases' judge calls fail for good; max_error_rate allows the errors, so the run
    # exits 0 although pytest counted the errored items.
    golden(pytester.path, 4)
    write_config(
        pytester.path,
        max_retries=1,
        retry_backoff_s=0.005,
        concurrency=1,
        max_error_rate=0.5,
        min_cases=1,
        rules={"default": "mean"},
        metrics=["faithfulness"],
        thresholds={"faithfulness": 0.8},
    )
    server.fail(status(503, retry_after="0"), calls=[1, 2, 3, 4])
    run = gate_run(
        pytester,
        "--color=yes",
        *NO_REWRITE_WARNING,
        *workers,
        judge="anthropic",
        disable=("randomly",),
    )
    assert run.ret == pytest.ExitCode.OK
    assert run.report["verdict"] == "passed"
    line = last_line(run.stdout.str())
    assert re.fullmatch(
        r"=+ \d passed(, \d+ warnings?)?, \d errors?, rag-gate passed in [0-9.]+s( \(.*\))? =+",
        plain(line),
    )
    # Exit 0 is never a red line; nor green, since errors allowed are no deploy decision.
    # pytest's own counts keep their colours ("1 error" red); the line and the gate's
    # word are yellow.
    assert line.startswith(YELLOW)
    assert f"{YELLOW}\x1b[1mrag-gate passed" in line
