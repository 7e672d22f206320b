"""``--rag-gate-repeats K``: every judge request asked K times, and the judge's noise reported.

Driven through the real anthropic SDK against the fake server, whose noise switch flips
verdicts at random, drawn anew per request.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fakellm import FakeLLM
from gate_runs import case_row, read_report, use_fake_judge, write_config, write_jsonl

METRICS = "faithfulness,context_precision,context_recall,answer_relevancy"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        use_fake_judge(monkeypatch, fake)
        yield fake


def gate(pytester: pytest.Pytester, *args: str, report: str = "report.json") -> Any:
    return pytester.runpytest(
        "--rag-gate",
        "--rag-gate-judge",
        "anthropic",
        f"--rag-gate-metrics={METRICS}",
        f"--rag-gate-report={report}",
        *args,
    )


def test_three_repeats_make_three_times_the_calls_and_a_cached_rerun_none(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    write_jsonl(pytester, "golden.jsonl", [case_row(index) for index in range(4)])
    once = gate(pytester, "--rag-gate-cache-dir=once", report="once.json")
    assert once.ret == pytest.ExitCode.OK, once.stdout.str()
    single_calls = server.calls

    thrice = gate(pytester, "--rag-gate-repeats=3", "--rag-gate-cache-dir=thrice")
    assert thrice.ret == pytest.ExitCode.OK, thrice.stdout.str()
    assert server.calls - single_calls == 3 * single_calls
    report = read_report(pytester.path / "report.json")
    assert report["usage"]["calls"] == 3 * single_calls
    assert report["config"]["repeats"] == 3

    before = server.calls
    replayed = gate(pytester, "--rag-gate-repeats=3", "--rag-gate-cache-dir=thrice")
    assert replayed.ret == pytest.ExitCode.OK, replayed.stdout.str()
    assert server.calls == before
    again = read_report(pytester.path / "report.json")
    assert again["usage"]["calls"] == 0
    assert again["usage"]["cache_hits"] == 3 * single_calls
    assert [case["scores"] for case in again["cases"]] == [
        case["scores"] for case in report["cases"]
    ]


def test_repeats_from_the_config_file_reuse_an_unrepeated_recording(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    write_jsonl(pytester, "golden.jsonl", [case_row(index) for index in range(2)])
    assert gate(pytester).ret == pytest.ExitCode.OK
    single_calls = server.calls
    write_config(pytester.path, repeats=2)
    result = gate(pytester)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    # The first repeat keeps the key of an unrepeated request: only the second is sent.
    assert server.calls == 2 * single_calls
