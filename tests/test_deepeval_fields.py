"""A DeepEval dataset file is a golden file as it is: DeepEval's field names are aliases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gate_runs import GOOD, HALLUCINATED, read_report

from pytest_ragas_gate.golden.golden_fields import RawCase, validate_rows
from pytest_ragas_gate.golden.loading import load_golden_file


def deepeval_golden(case: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """``case`` as ``EvaluationDataset.save_as(file_type="json")`` writes a golden."""
    return {
        "input": case["question"],
        "actual_output": case["answer"],
        "expected_output": case["reference"],
        "retrieval_context": case["contexts"],
        "context": case["contexts"][:1],
        "additional_metadata": {"team": "search"},
        "comments": None,
        "source_file": None,
        **extra,
    }


def run_gate(pytester: pytest.Pytester, goldens: list[dict[str, Any]]) -> pytest.RunResult:
    pytester.path.joinpath("dataset.json").write_text(json.dumps(goldens), encoding="utf-8")
    return pytester.runpytest(
        "--rag-gate",
        "dataset.json",
        "--rag-gate-judge",
        "offline",
        "--rag-gate-metrics",
        "faithfulness,context_recall",
        "--rag-gate-report",
        "report.json",
        "-p",
        "no:randomly",
    )


def test_a_deepeval_json_dataset_gates_unconverted(pytester: pytest.Pytester) -> None:
    result = run_gate(pytester, [deepeval_golden(GOOD), deepeval_golden(HALLUCINATED)])
    output = result.stdout.str()
    assert result.ret == 1, output
    assert "unknown key" not in output
    result.stdout.fnmatch_lines(["FAILED faithfulness mean 0.50 < 0.85*", "RAG gate: FAILED"])
    cases = {case["question"]: case for case in read_report(pytester.path / "report.json")["cases"]}
    assert set(cases) == {GOOD["question"], HALLUCINATED["question"]}
    assert cases[GOOD["question"]]["scores"] == {"faithfulness": 1.0, "context_recall": 1.0}
    assert cases[HALLUCINATED["question"]]["scores"]["faithfulness"] == 0.0


def test_a_good_deepeval_dataset_passes(pytester: pytest.Pytester) -> None:
    second = {**GOOD, "question": "Who were Apple's founders?"}
    result = run_gate(pytester, [deepeval_golden(GOOD), deepeval_golden(second)])
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*RAG gate: PASSED*"])


def test_a_deepeval_context_that_is_no_list_is_an_error_of_its_case(
    pytester: pytest.Pytester,
) -> None:
    # A text is DeepEval's own '|'-joined list (its JSONL and CSV write lists so); an
    # object is no list at all.
    rows = [deepeval_golden(GOOD), deepeval_golden(GOOD, input="Other?", context={"a": "b"})]
    result = run_gate(pytester, rows)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["*dataset.json:*: field 'context': DeepEval's ideal context, expected a list of strings*"]
    )


def test_deepeval_fields_map_to_golden_fields_and_metadata() -> None:
    row = deepeval_golden(GOOD)
    cases, problems = validate_rows("dataset.json", [RawCase(3, row)])
    assert problems == []
    case = cases[0]
    assert (case.question, case.answer, case.reference) == (
        GOOD["question"],
        GOOD["answer"],
        GOOD["reference"],
    )
    assert [context.text for context in case.contexts or []] == GOOD["contexts"]
    assert case.metadata["reference_contexts"] == GOOD["contexts"][:1]
    assert case.metadata["team"] == "search"
    assert "context" not in case.metadata and "additional_metadata" not in case.metadata


def test_context_outside_a_deepeval_row_is_still_a_misspelt_contexts(
    pytester: pytest.Pytester,
) -> None:
    row = {key: value for key, value in GOOD.items() if key != "contexts"}
    pytester.path.joinpath("golden.json").write_text(
        json.dumps([{**row, "context": GOOD["contexts"]}]), encoding="utf-8"
    )
    result = pytester.runpytest("--rag-gate", "golden.json", "--rag-gate-judge", "offline")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*every case has the key 'context'*did you mean 'contexts'?*"])
    assert "Safe to deploy" not in result.stdout.str()


def test_a_deepeval_csv_list_cell_joined_with_a_bar_loads_as_its_chunks(
    pytester: pytest.Pytester,
) -> None:
    path: Path = pytester.path / "dataset.csv"
    path.write_text(
        "input,actual_output,retrieval_context\n"
        f'"{GOOD["question"]}","{GOOD["answer"]}","{"|".join(GOOD["contexts"])}"\n',
        encoding="utf-8",
    )
    (case,) = load_golden_file(path).cases
    assert case.context_texts == GOOD["contexts"]
    result = pytester.runpytest(
        "--rag-gate",
        "dataset.csv",
        "--rag-gate-judge",
        "offline",
        "--rag-gate-metrics",
        "faithfulness",
    )
    assert result.ret == 0, result.stdout.str()
