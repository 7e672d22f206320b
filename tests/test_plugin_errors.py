"""Bad input gives a clear message and the right exit status, never a traceback."""

from __future__ import annotations

import json

import pytest
from gate_runs import GOOD, good_rows, write_jsonl


def assert_no_traceback(result: pytest.RunResult) -> None:
    text = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in text, text
    assert "INTERNALERROR" not in text, text


def test_malformed_row_errors_and_the_others_still_run(pytester: pytest.Pytester) -> None:
    path = pytester.path / "golden.jsonl"
    path.write_text(
        json.dumps({**GOOD, "id": "a"})
        + "\n"
        + json.dumps({"id": "bad", "question": "Q?", "contexts": "not a list"})
        + "\n"
        + "{not json\n"
        + json.dumps({**GOOD, "id": "b"})
        + "\n",
        encoding="utf-8",
    )
    result = pytester.runpytest("--rag-gate", "-rA")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=2, errors=2)
    result.stdout.fnmatch_lines(["*golden.jsonl:2: field 'contexts'*"])
    result.stdout.fnmatch_lines(["*golden.jsonl:3:*"])
    result.stdout.fnmatch_lines(
        ["FAILED 2 of 4 case(s) errored (50% > max_error_rate 0%)", "RAG gate: FAILED"]
    )
    assert_no_traceback(result)


def test_unreadable_golden_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    (pytester.path / "golden.json").write_text('[{"question": "Q?",', encoding="utf-8")
    result = pytester.runpytest("--rag-gate")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["*golden.json:1*"])
    assert_no_traceback(result)


def test_unknown_config_key_suggests_the_closest(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    (pytester.path / "rag_gate.yaml").write_text("treshold: {}\n", encoding="utf-8")
    result = pytester.runpytest("--rag-gate")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*Unknown setting 'treshold' in rag_gate.yaml; did you mean 'thresholds'?*"]
    )
    assert_no_traceback(result)


def test_threshold_outside_the_unit_interval_is_rejected(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    result = pytester.runpytest("--rag-gate", "--rag-gate-threshold", "faithfulness=1.5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*threshold for 'faithfulness' must be from 0 to 1, got 1.5*"])
    (pytester.path / "rag_gate.yaml").write_text(
        "thresholds:\n  context_recall: 2\n", encoding="utf-8"
    )
    from_file = pytester.runpytest("--rag-gate")
    assert from_file.ret == pytest.ExitCode.USAGE_ERROR
    from_file.stderr.fnmatch_lines(["*'context_recall' is 2*expected a number from 0 to 1*"])


def test_unknown_metric_name_suggests_the_closest(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    result = pytester.runpytest("--rag-gate", "--rag-gate-metrics", "faithfulnes")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown metric 'faithfulnes'; did you mean 'faithfulness'?*"])


def test_metric_with_no_applicable_case_fails_closed(pytester: pytest.Pytester) -> None:
    rows = [{key: value for key, value in GOOD.items() if key != "reference"}]
    write_jsonl(pytester, "golden.jsonl", rows)
    result = pytester.runpytest("--rag-gate", "--rag-gate-metrics", "faithfulness,context_recall")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*context_recall has no scored cases*", "RAG gate: FAILED"])
