"""Every gated metric is computed, or the gate says why not and fails closed.

A golden row that says ``"context"`` instead of ``"contexts"`` used to drop faithfulness,
context precision and context recall from the table without a word, and the run passed.
"""

from __future__ import annotations

from typing import Any

import pytest
from gate_runs import GOOD, assert_no_traceback, good_rows, read_report, write_config, write_jsonl

from pytest_ragas_gate.gate.deploy_decision import SMOKE_CHECK


def renamed(row: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """``row`` with its key ``old`` written as ``new``, in place."""
    return {(new if key == old else key): value for key, value in row.items()}


def test_a_threshold_on_a_metric_no_case_can_compute_fails_closed(
    pytester: pytest.Pytester,
) -> None:
    # No row has a reference (by design, not a typo): context_recall cannot be computed.
    rows = [
        {key: value for key, value in row.items() if key != "reference"} for row in good_rows(2)
    ]
    write_jsonl(pytester, "golden.jsonl", rows)
    result = pytester.runpytest(
        "--rag-gate",
        "-v",
        "--rag-gate-threshold",
        "context_recall=0.99",
        "--rag-gate-report=r.json",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*::good-0 PASSED *context_recall=n/a: no reference*",
            "context_recall *- *- *0.99 *mean *0 *2 *0 *FAIL",
            "FAILED context_recall has no scored cases (n=0, 2 not applicable: 2 no reference, "
            "0 errors); an empty aggregate fails the gate: give the cases the fields it needs, "
            "or set its threshold to null",
            "RAG gate: FAILED",
            "Block deployment — 1 gated metric(s) computed on fewer than min_cases 1 case(s): "
            "context_recall",
        ]
    )
    assert "Safe to deploy" not in result.stdout.str()
    report = read_report(pytester.path / "r.json")
    assert report["verdict"] == "failed"
    assert report["metrics"]["context_recall"]["n"] == 0
    assert report["metrics"]["context_recall"]["passed"] is False
    assert report["cases"][0]["reasons"]["context_recall"] == "no reference"


def test_a_null_threshold_leaves_the_metric_ungated(pytester: pytest.Pytester) -> None:
    rows = [
        {key: value for key, value in row.items() if key != "reference"} for row in good_rows(2)
    ]
    write_jsonl(pytester, "golden.jsonl", rows)
    write_config(pytester.path, thresholds={"context_recall": None})
    result = pytester.runpytest("--rag-gate")
    assert result.ret == pytest.ExitCode.OK
    assert "context_recall" not in result.stdout.str().split("RAG gate ===")[1]
    result.stdout.fnmatch_lines(["RAG gate: PASSED", SMOKE_CHECK])


def test_every_row_with_a_misspelt_field_is_an_error_of_the_file(
    pytester: pytest.Pytester,
) -> None:
    rows = [renamed(row, "contexts", "context") for row in good_rows(3)]
    write_jsonl(pytester, "golden.jsonl", rows)
    result = pytester.runpytest("--rag-gate", "--rag-gate-threshold", "context_recall=0.99")
    assert result.ret != pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "golden.jsonl: every case has the key 'context', which is no golden field — did "
            "you mean 'contexts'? No case has 'contexts'*",
            "RAG gate: FAILED",
        ]
    )
    assert "Safe to deploy" not in result.stdout.str()
    assert_no_traceback(result)


def test_every_row_with_a_misspelt_reference_is_an_error_of_the_file(
    pytester: pytest.Pytester,
) -> None:
    rows = [renamed(row, "reference", "refrence") for row in good_rows(2)]
    write_jsonl(pytester, "golden.jsonl", rows)
    result = pytester.runpytest("--rag-gate")
    assert result.ret != pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*key 'refrence'*did you mean 'reference'?*", "RAG gate: FAILED"])


def test_some_rows_with_a_misspelt_field_warn_and_say_n_a_per_case(
    pytester: pytest.Pytester,
) -> None:
    rows = good_rows(4)
    rows[1] = renamed(rows[1], "contexts", "context")
    rows[3] = renamed(rows[3], "contexts", "Context")
    write_jsonl(pytester, "golden.jsonl", rows)
    # Half the cases scored is a gap the team accepts here (min_coverage defaults to 0.9).
    write_config(pytester.path, min_coverage=0.5)
    result = pytester.runpytest("--rag-gate", "-v")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "*::good-1 PASSED faithfulness=n/a: no contexts *",
            "*golden.jsonl:2: unknown key 'context' — did you mean 'contexts'? It is kept as "
            "metadata, so metrics that need 'contexts' are not applicable to these case(s); "
            "strict_fields: true makes this an error",
            "*golden.jsonl:4: unknown key 'Context' — did you mean 'contexts'?*",
            "faithfulness *0.85 *mean *2 of 4 *2 *0 *PASS",
        ]
    )
    # min_cases raises the bar: two computed cases are too few to gate on.
    write_config(pytester.path, min_cases=3, min_coverage=0.5)
    strict = pytester.runpytest("--rag-gate")
    assert strict.ret == pytest.ExitCode.TESTS_FAILED
    strict.stdout.fnmatch_lines(
        [
            "FAILED faithfulness was computed on 2 case(s), fewer than min_cases 3 "
            "(not applicable: 2 no contexts); too few to gate on*",
            "RAG gate: FAILED",
        ]
    )


def test_strict_fields_makes_an_unknown_key_an_error_of_its_case(
    pytester: pytest.Pytester,
) -> None:
    rows = good_rows(3)
    rows[1] = renamed(rows[1], "contexts", "context")
    rows[2] = {**rows[2], "category": "billing"}
    write_jsonl(pytester, "golden.jsonl", rows)
    write_config(pytester.path, strict_fields=True)
    # A fixed order: the two errors are matched in file order (pytest-randomly shuffles).
    result = pytester.runpytest("--rag-gate", "--rag-gate-report=r.json", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*golden.jsonl:2: unknown key 'context' — did you mean 'contexts'? (strict_fields: "
            "true; keep your own fields under 'metadata')",
            "*golden.jsonl:3: unknown key 'category' (strict_fields: true*",
            "RAG gate: FAILED",
        ]
    )
    errors = {case["id"]: case["error"] for case in read_report(pytester.path / "r.json")["cases"]}
    assert errors["good-0"] is None
    assert "unknown key 'context'" in errors["good-1"]
    # Without strict_fields, a key that resembles no field is the user's metadata: no word.
    write_config(pytester.path)
    relaxed = pytester.runpytest("--rag-gate", "-W", "error::UserWarning")
    assert "category" not in relaxed.stdout.str()


def test_own_metadata_fields_are_not_mistaken_for_typos(pytester: pytest.Pytester) -> None:
    row = {**GOOD, "metadata": {"context": "kept"}, "source": "faq", "tool": "search"}
    write_jsonl(pytester, "golden.jsonl", [row])
    result = pytester.runpytest("--rag-gate")
    assert result.ret == pytest.ExitCode.OK
    assert "unknown key" not in result.stdout.str()


@pytest.mark.slow
def test_gated_metrics_fail_closed_under_xdist(pytester: pytest.Pytester) -> None:
    rows = good_rows(4)
    rows[1] = renamed(rows[1], "contexts", "context")
    write_jsonl(pytester, "golden.jsonl", rows)
    rows = [
        {key: value for key, value in row.items() if key != "reference"} for row in good_rows(2)
    ]
    write_jsonl(pytester, "golden_b.jsonl", [{**row, "id": f"b{n}"} for n, row in enumerate(rows)])
    # Half the cases scored is a gap the team accepts here (min_coverage defaults to 0.9).
    write_config(pytester.path, min_coverage=0.5)
    serial = pytester.runpytest("--rag-gate", "-p", "no:xdist", "--rag-gate-report=serial.json")
    parallel = pytester.runpytest("--rag-gate", "-n", "2", "--rag-gate-report=parallel.json")
    for result in (serial, parallel):
        result.stdout.fnmatch_lines(["*unknown key 'context' — did you mean 'contexts'?*"])
    serial_report = read_report(pytester.path / "serial.json")
    parallel_report = read_report(pytester.path / "parallel.json")
    assert serial_report["metrics"] == parallel_report["metrics"]
    assert serial_report["metrics"]["faithfulness"]["not_applicable"] == 1
    assert serial_report["metrics"]["context_recall"]["not_applicable"] == 3
    assert parallel_report["verdict"] == "passed"
    # Stricter: every gated metric must be computed on at least 6 cases.
    write_config(pytester.path, min_cases=6, min_coverage=0.5)
    strict = pytester.runpytest("--rag-gate", "-n", "2")
    assert strict.ret == pytest.ExitCode.TESTS_FAILED
    strict.stdout.fnmatch_lines(
        ["FAILED faithfulness was computed on 5 case(s)*", "RAG gate: FAILED"]
    )


def test_a_case_threshold_on_a_metric_the_case_cannot_compute_fails_the_case(
    pytester: pytest.Pytester,
) -> None:
    rows = good_rows(2)
    rows[1] = {**rows[1], "thresholds": {"id_recall": 0.9}}
    write_jsonl(pytester, "golden.jsonl", rows)
    result = pytester.runpytest("--rag-gate")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "FAILED 1 case(s) below their own thresholds: good-1",
            "RAG gate: FAILED",
            "FAILED golden.jsonl::good-1 - id_recall n/a: no relevant_context_ids*",
        ]
    )


def test_an_id_column_of_another_name_is_no_misspelt_id(pytester: pytest.Pytester) -> None:
    rows = [
        {"qid": f"q{index}", **{k: v for k, v in row.items() if k != "id"}}
        for index, row in enumerate(good_rows(2))
    ]
    rows[1]["question"] = "Who founded Apple, and in which year?"
    write_jsonl(pytester, "golden.jsonl", rows)
    result = pytester.runpytest("--rag-gate")
    assert result.ret == pytest.ExitCode.OK
    assert "unknown key" not in result.stdout.str()


def test_a_misspelt_csv_column_is_an_error_of_the_file(pytester: pytest.Pytester) -> None:
    (pytester.path / "golden.csv").write_text(
        "question,answer,retrieved_context,reference\n"
        'Who founded Apple?,Steve Jobs.,"[""Steve Jobs founded Apple.""]",Steve Jobs.\n',
        encoding="utf-8",
    )
    result = pytester.runpytest("--rag-gate")
    assert result.ret != pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "*golden.csv: every case has the key 'retrieved_context'*did you mean "
            "'retrieved_contexts'?*"
        ]
    )


def test_metric_with_no_applicable_case_fails_closed(pytester: pytest.Pytester) -> None:
    rows = [{key: value for key, value in GOOD.items() if key != "reference"}]
    write_jsonl(pytester, "golden.jsonl", rows)
    result = pytester.runpytest("--rag-gate", "--rag-gate-metrics", "faithfulness,context_recall")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*context_recall has no scored cases*", "RAG gate: FAILED"])
