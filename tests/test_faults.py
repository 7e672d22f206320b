"""Judge faults: every case is scored or an explicit error, never NaN, never lost.

The fake server injects HTTP 429/500, hangs past the client timeout, bodies that are not
JSON and replies that do not fit the schema. At a 10% fault rate retries and re-asks
absorb everything; at 60% some cases error, each one explicitly, and the gate fails closed.
"""

from __future__ import annotations

import re

import pytest
from fakellm import INVALID, MALFORMED, FakeLLM, Fault, status
from gate_runs import (
    FAST_RETRIES,
    assert_no_traceback,
    assert_scores_are_numbers,
    case_row,
    junit_case_outcomes,
    read_report,
    use_fake_judge,
    write_config,
    write_golden,
)

CASES = 24


def inject(server: FakeLLM, rate: float) -> None:
    """Faults totalling about ``rate`` of the calls, spread over every kind."""
    # Rules are tried in turn, so each later one sees the calls the earlier ones let through.
    server.fail(status(429, retry_after="0"), probability=rate * 0.25)
    server.fail(status(500), probability=rate * 0.25)
    server.fail(status(503), probability=rate * 0.1)
    server.fail(Fault("hang", hang_s=2.0), probability=rate * 0.1)
    server.fail(MALFORMED, probability=rate * 0.15)
    server.fail(INVALID, probability=rate * 0.15)


@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_ten_percent_faults_still_score_every_case(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, api: str
) -> None:
    write_golden(pytester.path, [case_row(index) for index in range(CASES)])
    write_config(pytester.path, judge=api, cache="off", **FAST_RETRIES)
    with FakeLLM(seed=7) as server:
        inject(server, 0.10)
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
    assert report["usage"]["retries"] > 0
    assert report["incomplete"] is False
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert set(junit_case_outcomes(pytester.path / "junit.xml").values()) == {"passed"}


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_sixty_percent_faults_error_explicitly_and_fail_closed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: list[str]
) -> None:
    write_golden(pytester.path, [case_row(index) for index in range(CASES)])
    write_config(
        pytester.path, judge="anthropic", cache="off", **{**FAST_RETRIES, "max_retries": 2}
    )
    with FakeLLM(seed=11) as server:
        inject(server, 0.60)
        use_fake_judge(monkeypatch, server)
        result = pytester.runpytest(
            "--rag-gate", "--rag-gate-report=report.json", "--rag-gate-junit=junit.xml", *workers
        )
    assert_no_traceback(result)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = read_report(pytester.path / "report.json")
    cases = report["cases"]
    assert sorted(case["id"] for case in cases) == [f"case-{i:03d}" for i in range(CASES)]
    assert_scores_are_numbers(report)
    errored = [case for case in cases if case["error"] or case["errors"]]
    assert 0 < len(errored) < CASES
    for case in cases:
        # Scored or an explicit error for every metric the case selected: nothing dropped.
        assert set(case["metrics"]) == set(case["scores"]) | set(case["errors"]), case["id"]
    assert report["verdict"] == "failed"
    verdict = f"judge unreliable: {len(errored)} of {CASES} case(s) errored"
    assert report["error_rate"]["message"].startswith(verdict)
    assert re.search(re.escape(verdict), result.stdout.str())
    result.stdout.fnmatch_lines(["RAG gate: FAILED"])
    outcomes = junit_case_outcomes(pytester.path / "junit.xml")
    assert len(outcomes) == CASES
    assert sum(kind == "error" for kind in outcomes.values()) == len(errored)
    result.assert_outcomes(passed=CASES - len(errored), errors=len(errored))


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
    result.stdout.fnmatch_lines(["*judge unreliable: 1 of 1 case(s) errored*"])
