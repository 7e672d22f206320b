"""``rag-gate import``: other tools' files become golden sets the gate reads as they are."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from gate_runs import GOOD, HALLUCINATED

from pytest_ragas_gate.cli import main
from pytest_ragas_gate.golden.loading import load_golden_file

Case = dict[str, Any]
Writer = Callable[[Path, list[Case]], list[str]]


def run_import(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["import", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def golden(path: Path) -> list[Case]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# --- samples written to each tool's documented export shape -----------------------------


def deepeval_json(directory: Path, cases: list[Case]) -> list[str]:
    goldens = [
        {
            "input": case["question"],
            "actual_output": case["answer"],
            "expected_output": case["reference"],
            "retrieval_context": case["contexts"],
            "context": case["contexts"][:1],
            "additional_metadata": {"team": "search"},
            "source_file": None,
        }
        for case in cases
    ]
    (directory / "dataset.json").write_text(json.dumps(goldens), encoding="utf-8")
    return ["dataset.json"]


def deepeval_csv(directory: Path, cases: list[Case]) -> list[str]:
    with (directory / "dataset.csv").open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(
            ["input", "actual_output", "expected_output", "context", "retrieval_context"]
        )
        for case in cases:
            writer.writerow(
                [
                    case["question"],
                    case["answer"],
                    case["reference"],
                    case["contexts"][0],
                    "|".join(case["contexts"]),
                ]
            )
    return ["dataset.csv"]


def promptfoo_results(directory: Path, cases: list[Case]) -> list[str]:
    results = []
    for index, case in enumerate(cases):
        test = {
            "vars": {"query": case["question"], "context": case["contexts"]},
            "assert": [
                {"type": "context-faithfulness", "threshold": 0.5},
                {"type": "context-recall", "value": case["reference"], "threshold": 0.5},
                {"type": "contains", "value": "Apple"},
            ],
            "description": f"case {index}",
        }
        results.append(
            {
                "id": f"run-specific-uuid-{index}",
                "promptIdx": 0,
                "testIdx": index,
                "testCase": test,
                "vars": test["vars"],
                "provider": {"id": "openai:gpt-4o-mini", "label": ""},
                "prompt": {"raw": "Answer {{query}} from {{context}}", "label": "p"},
                "response": {"output": case["answer"], "tokenUsage": {"total": 10}},
                "success": True,
                "score": 1,
                "latencyMs": 12,
                "namedScores": {},
            }
        )
    document = {
        "evalId": "eval-2026-11-25T18:00:00",
        "results": {"version": 3, "timestamp": "2026-11-25T18:00:00Z", "results": results},
        "config": {"description": "rag"},
    }
    (directory / "results.json").write_text(json.dumps(document), encoding="utf-8")
    return ["results.json"]


def langsmith_jsonl(directory: Path, cases: list[Case]) -> list[str]:
    lines = [
        json.dumps(
            {
                "id": f"5f0c8a3e-0000-4000-8000-00000000000{index}",
                "dataset_id": "d1",
                "inputs": {"question": case["question"], "contexts": case["contexts"]},
                "outputs": {"answer": case["reference"]},
                "metadata": {"split": "base"},
                "created_at": "2026-11-25T18:00:00Z",
            }
        )
        for index, case in enumerate(cases)
    ]
    (directory / "examples.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ["examples.jsonl"]


def langfuse_items(directory: Path, cases: list[Case]) -> list[str]:
    items = [
        {
            "id": f"item-{index}",
            "datasetId": "ds-1",
            "status": "ACTIVE",
            "input": {"query": case["question"], "context": case["contexts"]},
            "expectedOutput": case["reference"],
            "metadata": {"topic": "apple"},
            "sourceTraceId": None,
        }
        for index, case in enumerate(cases)
    ]
    document = {"data": items, "meta": {"page": 1, "totalItems": len(items)}}
    (directory / "items.json").write_text(json.dumps(document), encoding="utf-8")
    return ["items.json"]


def phoenix_spans(directory: Path, cases: list[Case]) -> list[str]:
    """Rows of ``get_spans_dataframe().to_json(orient="records", lines=True)``."""
    spans = []
    for index, case in enumerate(cases):
        trace, root = f"trace-{index:04d}", f"root-{index}"
        common = {"context.trace_id": trace, "status_code": "OK", "status_message": ""}
        spans += [
            {  # children first: exports are not in tree order
                **common,
                "name": "retrieve",
                "span_kind": "RETRIEVER",
                "parent_id": root,
                "start_time": 1764093600001 + index,
                "context.span_id": f"ret-{index}",
                "attributes.openinference.span.kind": "RETRIEVER",
                "attributes.input.value": case["question"],
                "attributes.retrieval.documents": [
                    {"document.content": text, "document.score": 1 - rank / 10}
                    for rank, text in enumerate(case["contexts"])
                ],
            },
            {
                **common,
                "name": "rag",
                "span_kind": "CHAIN",
                "parent_id": None,
                "start_time": 1764093600000 + index,
                "context.span_id": root,
                "attributes.openinference.span.kind": "CHAIN",
                "attributes.input.value": json.dumps({"query": case["question"]}),
                "attributes.input.mime_type": "application/json",
                "attributes.output.value": case["answer"],
            },
            {
                **common,
                "name": "llm",
                "span_kind": "LLM",
                "parent_id": root,
                "start_time": 1764093600002 + index,
                "context.span_id": f"llm-{index}",
                "attributes.output.value": case["answer"],
            },
        ]
    text = "".join(json.dumps(span) + "\n" for span in spans)
    (directory / "spans.jsonl").write_text(text, encoding="utf-8")
    return ["spans.jsonl"]


#: Sample → (format, writer, the metrics gated: datasets without answers gate recall; the
#: promptfoo results carry per-case context_recall thresholds, which gate only when selected).
WRITERS: dict[str, tuple[str, Writer, str]] = {
    "langsmith-jsonl": ("langsmith", langsmith_jsonl, "context_recall"),
    "langfuse-json": ("langfuse", langfuse_items, "context_recall"),
    "deepeval-json": ("deepeval", deepeval_json, "faithfulness"),
    "deepeval-csv": ("deepeval", deepeval_csv, "faithfulness"),
    "promptfoo-results": ("promptfoo", promptfoo_results, "faithfulness,context_recall"),
    "openinference-jsonl": ("openinference", phoenix_spans, "faithfulness"),
}
#: Unsupported on both counts: the answer and the reference contradict the context.
BAD = {**HALLUCINATED, "reference": HALLUCINATED["answer"]}


def two_good() -> list[Case]:
    second = {**GOOD, "question": "Who were Apple's founders?"}
    return [GOOD, second]


@pytest.mark.slow
@pytest.mark.parametrize("sample", sorted(WRITERS))
def test_an_imported_sample_gates_pass_and_fail(
    sample: str, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    format_name, write, metric = WRITERS[sample]
    for name, cases, expected in (("good", two_good(), 0), ("bad", [BAD], 1)):
        directory = pytester.path / name
        directory.mkdir()
        sources = [str(directory / source) for source in write(directory, cases)]
        output = pytester.path / f"golden_{name}.jsonl"
        status, out, err = run_import(capsys, format_name, *sources, "-o", str(output))
        assert (status, err) == (0, ""), err
        assert f"wrote {len(cases)} case(s) to {output}" in out
        rows = golden(output)
        assert [row["question"] for row in rows] == [case["question"] for case in cases]
        assert rows[0]["metadata"]["import"]["format"] == format_name
        assert rows[0]["metadata"]["import"]["file"] == sources[0]
        result = pytester.runpytest(
            "--rag-gate",
            str(output),
            "--rag-gate-judge",
            "offline",
            "--rag-gate-metrics",
            metric,
            "-p",
            "no:randomly",
        )
        assert result.ret == expected, result.stdout.str()


@pytest.mark.parametrize("sample", sorted(WRITERS))
def test_a_reimport_gives_the_same_ids(
    sample: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    format_name, write, _ = WRITERS[sample]
    cases = [*two_good(), GOOD]  # a repeated question gets a distinct, stable id
    sources = [str(tmp_path / source) for source in write(tmp_path, cases)]
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    assert run_import(capsys, format_name, *sources, "-o", str(first))[0] == 0
    assert run_import(capsys, format_name, *sources, "-o", str(second))[0] == 0
    ids = [row["id"] for row in golden(first)]
    assert ids == [row["id"] for row in golden(second)]
    assert len(set(ids)) == len(ids) == 3


def test_an_existing_output_is_kept_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources = [str(tmp_path / source) for source in deepeval_json(tmp_path, two_good())]
    output = tmp_path / "golden.jsonl"
    output.write_text('{"id": "mine", "question": "kept?"}\n', encoding="utf-8")

    status, out, err = run_import(capsys, "deepeval", *sources, "-o", str(output))

    assert status == 4
    assert f"The output {output} already exists; pass --force" in err
    assert output.read_text(encoding="utf-8") == '{"id": "mine", "question": "kept?"}\n'
    assert run_import(capsys, "deepeval", *sources, "-o", str(output), "--force")[0] == 0
    assert len(golden(output)) == 2


def test_a_malformed_deepeval_record_is_named_and_refuses_the_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [
        {"input": "Who founded Apple?", "retrieval_context": ["Jobs and Wozniak."]},
        {"input": "", "actual_output": "x"},
        {"input": "When?", "retrieval_context": "fine as one chunk"},
        {"input": "Where?", "retrieval_context": [3]},
    ]
    source = tmp_path / "dataset.json"
    source.write_text(json.dumps(records), encoding="utf-8")
    output = tmp_path / "golden.jsonl"

    status, _, err = run_import(capsys, "deepeval", str(source), "-o", str(output))

    assert status == 4
    assert f"{source} item 2: field 'input': expected non-empty text" in err
    assert f"{source} item 4: field 'retrieval_context[0]': expected text" in err
    assert "Traceback" not in err
    assert not output.exists()

    status, out, err = run_import(
        capsys, "deepeval", str(source), "-o", str(output), "--skip-invalid"
    )
    assert (status, err) == (0, "")
    assert "wrote 2 case(s)" in out and "skipped 2:" in out
    assert f"{source} item 2: field 'input'" in out
    assert [row["metadata"]["import"]["item"] for row in golden(output)] == [1, 3]


def test_deepeval_csv_list_cells_json_or_delimited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "hand.csv"
    source.write_text(
        "input,retrieval_context,additional_metadata\n"
        'Q1?,"[""a|b"", ""c""]","{""k"": 1}"\n'
        "Q2?,x;y,\n",
        encoding="utf-8",
    )
    output = tmp_path / "golden.jsonl"
    args = ("deepeval", str(source), "-o", str(output), "--list-delimiter", ";")
    assert run_import(capsys, *args)[0] == 0
    first, second = golden(output)
    assert first["contexts"] == ["a|b", "c"] and first["metadata"]["k"] == 1
    assert first["metadata"]["import"] == {"format": "deepeval", "file": str(source), "row": 1}
    assert second["contexts"] == ["x", "y"]


def test_a_csv_with_a_stray_quote_is_refused_not_read_into_one_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The unclosed quote would otherwise swallow every later row into the first question.
    source = tmp_path / "hand.csv"
    source.write_text(
        'input,actual_output,retrieval_context\n"Q1?,A1,x\nQ2?,A2,y\n', encoding="utf-8"
    )
    output = tmp_path / "golden.jsonl"
    status, out, err = run_import(capsys, "deepeval", str(source), "-o", str(output))
    assert status == 4, out
    assert f"{source}:2: the file is not valid CSV" in err
    assert 'a double quote inside a quoted cell must be written twice ("")' in err
    assert len(err.strip().splitlines()) == 1
    assert not output.exists()


def test_a_csv_row_with_too_few_or_too_many_cells_is_malformed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "hand.csv"
    source.write_text(
        "input,actual_output,retrieval_context\nQ1?,A1\nQ2?,A2,y\nQ3?,A3,z,extra\n",
        encoding="utf-8",
    )
    output = tmp_path / "golden.jsonl"
    status, out, err = run_import(capsys, "deepeval", str(source), "-o", str(output))
    assert status == 4, out
    assert (
        f"{source} row 1: field 'retrieval_context': no cell; the row has 2 cells but the "
        "header names 3 columns (write an empty cell to leave it blank)"
    ) in err
    assert f"{source} row 3: the row has 4 cells but the header names 3 columns" in err
    assert not output.exists()
    args = ("deepeval", str(source), "-o", str(output), "--skip-invalid")
    assert run_import(capsys, *args)[0] == 0
    assert [case["question"] for case in golden(output)] == ["Q2?"]


def test_a_csv_given_to_the_json_format_is_named_as_not_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "ragas.csv"
    source.write_text("user_input,response\nQ?,A.\n", encoding="utf-8")
    status, _, err = run_import(capsys, "json", str(source), "-o", str(tmp_path / "o.jsonl"))
    assert status == 4
    assert f"{source}:1 is not valid JSON (Expecting value: line 1 column 1" in err
    assert "holds a single value" not in err
    assert "pytest --rag-gate" in err  # a CSV golden file needs no import
    assert len(err.strip().splitlines()) == 1


def test_an_unreadable_source_is_one_line_and_exit_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "dataset.jsonl"
    source.write_text('{"input": "ok"}\n{"input": \n', encoding="utf-8")
    status, _, err = run_import(capsys, "deepeval", str(source), "-o", str(tmp_path / "o.jsonl"))
    assert status == 4
    assert f"{source}:2 is not valid JSON" in err
    assert len(err.strip().splitlines()) == 1


def test_promptfoo_results_map_vars_output_and_thresholds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (source,) = promptfoo_results(tmp_path, [GOOD])
    document = json.loads((tmp_path / source).read_text(encoding="utf-8"))
    failed = {**document["results"]["results"][0], "testIdx": 1, "response": None}
    failed["error"] = "429 Too Many Requests\nretry later"
    document["results"]["results"].append(failed)
    (tmp_path / source).write_text(json.dumps(document), encoding="utf-8")
    output = tmp_path / "golden.jsonl"

    status, out, _ = run_import(capsys, "promptfoo", str(tmp_path / source), "-o", str(output))

    assert status == 0
    (row,) = golden(output)
    assert row["answer"] == GOOD["answer"] and row["contexts"] == GOOD["contexts"]
    assert row["reference"] == GOOD["reference"]
    assert row["thresholds"] == {"faithfulness": 0.5, "context_recall": 0.5}
    assert row["metadata"]["provider"] == "openai:gpt-4o-mini"
    assert "item 2: the provider failed: 429 Too Many Requests" in out


def test_promptfoo_config_tests_become_live_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(
        """\
prompts: ["Answer {{query}}"]
providers: [openai:gpt-4o-mini]
defaultTest:
  assert:
    - type: answer-relevance
      threshold: 0.7
tests:
  - description: founders
    vars:
      query: Who founded Apple?
    assert:
      - type: context-recall
        value: Steve Jobs and Steve Wozniak founded Apple.
        threshold: 0.9
  - vars:
      query: [a, b]
  - file://more_tests.csv
""",
        encoding="utf-8",
    )
    (tmp_path / "more_tests.csv").write_text(
        "query,__description\nWhen was Apple founded?,year\n", encoding="utf-8"
    )
    output = tmp_path / "golden.jsonl"
    args = ("promptfoo", str(config), "-o", str(output))

    status, _, err = run_import(capsys, *args)
    assert status == 4
    assert f"{config} test 2: field 'vars.query': expected text, got a list" in err

    assert run_import(capsys, *args, "--skip-invalid")[0] == 0
    first, second = golden(output)
    assert "answer" not in first and "answer" not in second
    assert first["question"] == "Who founded Apple?"
    assert first["reference"] == "Steve Jobs and Steve Wozniak founded Apple."
    assert first["thresholds"] == {"answer_relevancy": 0.7, "context_recall": 0.9}
    assert second["question"] == "When was Apple founded?"
    assert second["metadata"]["description"] == "year"
    assert second["metadata"]["import"]["row"] == 1


def test_dataset_items_keep_their_ids_and_archived_items_are_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (source,) = langfuse_items(tmp_path, [GOOD, GOOD])
    document = json.loads((tmp_path / source).read_text(encoding="utf-8"))
    document["data"][1]["status"] = "ARCHIVED"
    document["data"].append({"id": "item-2", "input": {"query": ["not", "text"]}})
    (tmp_path / source).write_text(json.dumps(document), encoding="utf-8")
    output = tmp_path / "golden.jsonl"
    args = ("langfuse", str(tmp_path / source), "-o", str(output))

    status, _, err = run_import(capsys, *args)
    assert status == 4
    assert "items.json item 3: field 'input.query': expected text, got a list" in err

    status, out, _ = run_import(capsys, *args, "--skip-invalid")
    assert status == 0
    assert "items.json item 2: the dataset item is archived" in out
    (row,) = golden(output)
    assert row["id"] == "item-0" and row["reference"] == GOOD["reference"]
    assert row["metadata"]["topic"] == "apple" and row["metadata"]["datasetId"] == "ds-1"


def test_langsmith_examples_with_text_inputs_and_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "examples.jsonl"
    source.write_text(
        json.dumps({"id": "e1", "inputs": {"input": "What is RAG?"}, "outputs": {"out": "x"}})
        + "\n\n"
        + json.dumps({"id": "e2", "inputs": {"a": 1}, "outputs": {}})
        + "\n",
        encoding="utf-8",
    )
    output = tmp_path / "golden.jsonl"

    status, _, err = run_import(capsys, "langsmith", str(source), "-o", str(output))

    assert status == 4
    assert f"{source}:3: field 'inputs': expected text or an object with 'question'" in err
    assert run_import(capsys, "langsmith", str(source), "-o", str(output), "--skip-invalid")[0] == 0
    (row,) = golden(output)
    assert row == {
        "id": "e1",
        "question": "What is RAG?",
        "reference": "x",
        "metadata": {"import": {"format": "langsmith", "file": str(source), "line": 1}},
    }


def otel_span(trace: str, span: str, parent: str | None, **attributes: object) -> Case:
    return {
        "name": span,
        "context": {"trace_id": trace, "span_id": span},
        "parent_id": parent,
        "start_time": f"2026-11-25T18:00:0{len(span) % 10}Z",
        "status": {"status_code": attributes.pop("status", "OK")},
        "attributes": attributes,
    }


def test_openinference_traces_grouped_with_ranked_documents_and_skips(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def documents(*texts: str) -> dict[str, object]:
        return {
            key: value
            for rank, text in enumerate(texts)
            for key, value in (
                (f"retrieval.documents.{rank}.document.content", text),
                (f"retrieval.documents.{rank}.document.id", f"doc-{rank}"),
            )
        }

    retriever = {"openinference.span.kind": "RETRIEVER"}
    spans = [
        otel_span("t1", "r1", None, **{"input.value": "Who?", "output.value": "Jobs."}),
        otel_span("t1", "ret1", "r1", **retriever, **documents("Jobs", "Wozniak")),
        otel_span("t2", "r2", None, **{"input.value": "No retriever?", "output.value": "x"}),
        otel_span("t3", "r3", None, **{"input.value": "Failed?"}, status="ERROR"),
        otel_span("t3", "ret3", "r3", **retriever, **documents("a")),
        otel_span("t4", "r4", None, **{"input.value": "Silent?", "output.value": ""}),
        otel_span("t4", "ret4", "r4", **retriever, **documents("b")),
        otel_span("t5", "r5", None, **{"input.value": 7, "output.value": "y"}),
        otel_span("t5", "ret5", "r5", **retriever, **documents("c")),
        {"name": "orphan", "attributes": {}},
    ]
    source = tmp_path / "spans.json"
    source.write_text(json.dumps(spans), encoding="utf-8")
    output = tmp_path / "golden.jsonl"
    args = ("openinference", str(source), "-o", str(output))

    status, _, err = run_import(capsys, *args)
    assert status == 4
    assert f"{source} item 10: field 'context.trace_id': expected the span's trace id" in err
    assert f"{source} item 8: field 'input.value of span r5': expected text, got int" in err

    status, out, _ = run_import(capsys, *args, "--skip-invalid")
    assert status == 0
    assert f"{source} trace t2: no retriever span" in out
    assert f"{source} trace t3: error status on span r3" in out
    assert f"{source} trace t4: empty output" in out
    (row,) = golden(output)
    assert row["id"] == "t1" and row["question"] == "Who?" and row["answer"] == "Jobs."
    assert row["contexts"] == [{"id": "doc-0", "text": "Jobs"}, {"id": "doc-1", "text": "Wozniak"}]
    assert row["metadata"]["import"] == {
        "format": "openinference",
        "file": str(source),
        "trace": "t1",
    }
    assert row["metadata"]["root_span_id"] == "r1"


def test_the_rag_gate_command_imports_and_summarises(tmp_path: Path) -> None:
    sources = deepeval_json(tmp_path, two_good())
    (tmp_path / "dataset.json").write_bytes(
        b"\xef\xbb\xbf" + (tmp_path / "dataset.json").read_bytes()
    )
    executable = Path(sys.executable).with_name("rag-gate")
    command = [str(executable), "import", "deepeval", *sources, "-o", "out/golden.jsonl"]

    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)

    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        "rag-gate import deepeval: read 2 record(s) from 1 file(s); "
        "wrote 2 case(s) to out/golden.jsonl.\n"
    )
    again = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert again.returncode == 4
    assert again.stderr == (
        "rag-gate import: The output out/golden.jsonl already exists; pass --force to replace it.\n"
    )


def test_half_a_surrogate_pair_is_kept_for_the_loader_to_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "dataset.jsonl"
    source.write_text('{"input": "问题 \\ud800?"}\n{"input": "中文问题?"}\n', encoding="utf-8")
    output = tmp_path / "golden.jsonl"

    assert run_import(capsys, "deepeval", str(source), "-o", str(output))[0] == 0

    text = output.read_text(encoding="utf-8")
    assert "\\ud800" in text and "中文问题" in text
    assert [row["question"] for row in golden(output)] == ["问题 \ud800?", "中文问题?"]


def test_an_output_directory_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sources = [str(tmp_path / source) for source in deepeval_json(tmp_path, [GOOD])]
    status, _, err = run_import(capsys, "deepeval", *sources, "-o", str(tmp_path), "--force")
    assert status == 4 and "is a directory" in err


def test_langsmith_run_trees_nested_or_flat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def documents(*texts: str) -> dict[str, object]:
        return {"documents": [{"page_content": text, "metadata": {}} for text in texts]}

    nested = {
        "id": "run-1",
        "name": "rag",
        "run_type": "chain",
        "trace_id": "run-1",
        "inputs": {"question": GOOD["question"]},
        "outputs": {"answer": GOOD["answer"]},
        "child_runs": [
            {
                "id": "run-1a",
                "run_type": "retriever",
                "inputs": {"query": "q"},
                "outputs": documents(*GOOD["contexts"]),
                "child_runs": [],
            }
        ],
    }
    flat = [
        {
            "id": "run-2",
            "run_type": "chain",
            "inputs": {"input": "Who?"},
            "outputs": {"output": "A."},
        },
        {
            "id": "run-2a",
            "parent_run_id": "run-2",
            "run_type": "retriever",
            "outputs": documents("A."),
        },
        {"id": "run-3", "run_type": "chain", "inputs": {"input": "Fail?"}, "error": "Timeout\nat"},
        {
            "id": "run-4",
            "run_type": "chain",
            "inputs": {"input": "No docs?"},
            "outputs": {"output": "B"},
        },
    ]
    source = tmp_path / "runs.json"
    source.write_text(json.dumps([nested, *flat]), encoding="utf-8")
    output = tmp_path / "golden.jsonl"

    status, out, _ = run_import(capsys, "langsmith", str(source), "-o", str(output))

    assert status == 0
    first, second = golden(output)
    assert first["id"] == "run-1" and first["contexts"] == GOOD["contexts"]
    assert first["answer"] == GOOD["answer"]
    assert (second["id"], second["question"], second["contexts"]) == ("run-2", "Who?", ["A."])
    assert f"{source} item 4: run run-3 failed: Timeout" in out
    assert f"{source} item 5: no retriever run" in out


def test_a_deepeval_conversational_golden_imports_as_a_conversation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [
        {
            "scenario": "A customer asks about plans.",
            "turns": [
                {"role": "user", "content": "Which plans are there?"},
                {
                    "role": "assistant",
                    "content": "There is the Pro plan with 2 TB.",
                    "retrieval_context": ["The Pro plan gives 2 TB."],
                },
                {"role": "user", "content": "What does it cost?"},
                {"role": "assistant", "content": "10 dollars a month."},
            ],
        },
        {"turns": [{"role": "system", "content": "Be nice."}]},
    ]
    source = tmp_path / "dataset.json"
    source.write_text(json.dumps(records), encoding="utf-8")
    output = tmp_path / "golden.jsonl"

    status, out, err = run_import(
        capsys, "deepeval", str(source), "-o", str(output), "--skip-invalid"
    )

    assert status == 0, err
    assert f"{source} item 2: field 'turns[0].role': expected 'user' or 'assistant'" in out
    loaded = load_golden_file(output)
    assert loaded.problems == []
    first, second = loaded.cases
    assert (first.conversation, first.turn, second.turn) == (first.id[:-2], 1, 2)
    assert first.context_texts == ["The Pro plan gives 2 TB."]
    assert [turn.content for turn in second.history] == [
        "Which plans are there?",
        "There is the Pro plan with 2 TB.",
    ]
    assert first.metadata["scenario"] == "A customer asks about plans."
