"""``rag-gate import`` of traces (OTLP/JSON, Langfuse, Phoenix Parquet) and of any JSON.

Samples are written to the formats' public specs: the OTLP/JSON encoding of
``ExportTraceServiceRequest``, the OpenInference and OpenTelemetry GenAI semantic
conventions, Langfuse's trace API shape and Phoenix's ``get_spans_dataframe()`` columns.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gate_runs import GOOD, HALLUCINATED
from test_import import BAD, golden, run_import, two_good

Case = dict[str, Any]


def any_value(value: object) -> dict[str, object]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [any_value(item) for item in value]}}
    return {"stringValue": str(value)}


def otlp_span(
    trace: str,
    span: str,
    parent: str | None,
    start: int,
    attributes: dict[str, object],
    *,
    error: bool = False,
) -> Case:
    return {
        "traceId": trace,
        "spanId": span,
        "parentSpanId": parent or "",
        "name": span,
        "kind": 1,
        "startTimeUnixNano": str(1764093600_000_000_000 + start),
        "endTimeUnixNano": str(1764093601_000_000_000 + start),
        "attributes": [
            {"key": key, "value": any_value(value)} for key, value in attributes.items()
        ],
        "status": {"code": 2, "message": "boom"} if error else {"code": 1},
    }


def request(spans: list[Case], service: str = "rag-api") -> Case:
    return {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": service}}]
                },
                "scopeSpans": [{"scope": {"name": "openinference"}, "spans": spans}],
            }
        ]
    }


def openinference_trace(index: int, case: Case, *, start: int = 0) -> list[Case]:
    trace, root = f"{index:032x}", f"{index:08x}root"
    documents = {
        f"retrieval.documents.{rank}.document.{key}": value
        for rank, text in enumerate(case["contexts"])
        for key, value in (("content", text), ("id", f"doc-{rank}"), ("score", 0.9 - rank / 10))
    }
    return [
        otlp_span(
            trace,
            f"{index:08x}retr",
            root,
            start + 1,
            {"openinference.span.kind": "RETRIEVER", "input.value": case["question"], **documents},
        ),
        otlp_span(
            trace,
            root,
            None,
            start,
            {
                "openinference.span.kind": "CHAIN",
                "input.value": case["question"],
                "output.value": case["answer"],
                "session.id": f"session-{index % 2}",
            },
        ),
        otlp_span(
            trace,
            f"{index:08x}llm0",
            root,
            start + 2,
            {"openinference.span.kind": "LLM", "input.value": "PROMPT " * 50},
        ),
    ]


def otlp_jsonl(directory: Path, cases: list[Case]) -> list[str]:
    """One ExportTraceServiceRequest per line, as the Collector's file exporter writes."""
    lines = [json.dumps(request(openinference_trace(i, case))) for i, case in enumerate(cases)]
    (directory / "traces.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ["traces.jsonl"]


def genai_trace(index: int, case: Case) -> list[Case]:
    """A GenAI semantic-convention trace: agent → retrieval and chat spans."""
    trace, root = f"{index + 100:032x}", f"{index:08x}agnt"
    documents = [
        {"id": f"doc-{rank}", "score": 0.9, "content": text}
        for rank, text in enumerate(case["contexts"])
    ]
    user = [{"role": "user", "parts": [{"type": "text", "content": case["question"]}]}]
    assistant = [{"role": "assistant", "parts": [{"type": "text", "content": case["answer"]}]}]
    return [
        otlp_span(trace, root, None, 0, {"gen_ai.operation.name": "invoke_agent"}),
        otlp_span(
            trace,
            f"{index:08x}retr",
            root,
            1,
            {
                "gen_ai.operation.name": "retrieval",
                "gen_ai.retrieval.query.text": "rewritten: " + case["question"],
                "gen_ai.retrieval.documents": json.dumps(documents),
            },
        ),
        otlp_span(
            trace,
            f"{index:08x}chat",
            root,
            2,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages": json.dumps(user),
                "gen_ai.output.messages": json.dumps(assistant),
            },
        ),
    ]


def otlp_genai_json(directory: Path, cases: list[Case]) -> list[str]:
    spans = [span for index, case in enumerate(cases) for span in genai_trace(index, case)]
    (directory / "traces.json").write_text(json.dumps(request(spans)), encoding="utf-8")
    return ["traces.json"]


def langfuse_traces(directory: Path, cases: list[Case]) -> list[str]:
    traces = [
        {
            "id": f"lf-trace-{index}",
            "timestamp": f"2026-11-25T18:0{index}:00.000Z",
            "name": "rag",
            "input": {"question": case["question"]},
            "output": case["answer"],
            "sessionId": "s1",
            "tags": ["prod"],
            "metadata": {"env": "prod"},
            "observations": [
                {
                    "id": f"obs-{index}-gen",
                    "traceId": f"lf-trace-{index}",
                    "type": "GENERATION",
                    "name": "llm",
                    "startTime": "2026-11-25T18:00:02Z",
                    "level": "DEFAULT",
                    "input": [{"role": "user", "content": "PROMPT"}],
                    "output": {"role": "assistant", "content": case["answer"]},
                },
                {
                    "id": f"obs-{index}-ret",
                    "traceId": f"lf-trace-{index}",
                    "type": "RETRIEVER",
                    "name": "vector-search",
                    "startTime": "2026-11-25T18:00:01Z",
                    "level": "DEFAULT",
                    "input": case["question"],
                    "output": {"documents": [{"page_content": text} for text in case["contexts"]]},
                },
            ],
        }
        for index, case in enumerate(cases)
    ]
    document = {"data": traces, "meta": {"page": 1, "totalItems": len(traces)}}
    (directory / "traces.json").write_text(json.dumps(document), encoding="utf-8")
    return ["traces.json"]


def phoenix_parquet(directory: Path, cases: list[Case]) -> list[str]:
    """The Parquet of ``get_spans_dataframe()``: Phoenix's flattened span columns."""
    parquet = pytest.importorskip("pyarrow.parquet")
    import pyarrow

    rows = []
    for index, case in enumerate(cases):
        trace, root = f"trace-{index}", f"root-{index}"
        rows += [
            {
                "name": "retrieve",
                "span_kind": "RETRIEVER",
                "parent_id": root,
                "context.trace_id": trace,
                "context.span_id": f"ret-{index}",
                "status_code": "OK",
                "attributes.input.value": case["question"],
                "attributes.output.value": None,
                "attributes.retrieval.documents": [
                    {"document.content": text, "document.id": f"d{rank}"}
                    for rank, text in enumerate(case["contexts"])
                ],
            },
            {
                "name": "rag",
                "span_kind": "CHAIN",
                "parent_id": None,
                "context.trace_id": trace,
                "context.span_id": root,
                "status_code": "OK",
                "attributes.input.value": case["question"],
                "attributes.output.value": case["answer"],
                "attributes.retrieval.documents": None,
            },
        ]
    parquet.write_table(pyarrow.Table.from_pylist(rows), directory / "spans.parquet")
    return ["spans.parquet"]


WRITERS = {
    "otlp-jsonl-openinference": ("otlp", otlp_jsonl),
    "otlp-json-genai": ("otlp", otlp_genai_json),
    "langfuse-traces": ("langfuse", langfuse_traces),
    "openinference-parquet": ("openinference", phoenix_parquet),
}


@pytest.mark.parametrize("sample", sorted(WRITERS))
def test_imported_traces_gate_pass_and_fail(
    sample: str, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    format_name, write = WRITERS[sample]
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
        assert [row["answer"] for row in rows] == [case["answer"] for case in cases]
        texts = [[c if isinstance(c, str) else c["text"] for c in row["contexts"]] for row in rows]
        assert texts == [case["contexts"] for case in cases]
        result = pytester.runpytest(
            "--rag-gate", str(output), "--rag-gate-judge", "offline",
            "--rag-gate-metrics", "faithfulness", "-p", "no:randomly",
        )  # fmt: skip
        assert result.ret == expected, result.stdout.str()


@pytest.mark.parametrize("sample", sorted(WRITERS))
def test_trace_imports_keep_their_ids(
    sample: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    format_name, write = WRITERS[sample]
    sources = [str(tmp_path / source) for source in write(tmp_path, two_good())]
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    assert run_import(capsys, format_name, *sources, "-o", str(first))[0] == 0
    assert run_import(capsys, format_name, *sources, "-o", str(second))[0] == 0
    assert golden(first) == golden(second)
    assert len({row["id"] for row in golden(first)}) == 2


def test_otlp_metadata_timestamps_and_genai_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    otlp_jsonl(tmp_path, two_good())
    output = tmp_path / "golden.jsonl"
    assert run_import(capsys, "otlp", str(tmp_path / "traces.jsonl"), "-o", str(output))[0] == 0
    first = golden(output)[0]
    assert first["id"] == f"{0:032x}"
    assert first["contexts"][0] == {"id": "doc-0", "text": GOOD["contexts"][0]}
    assert first["metadata"]["session.id"] == "session-0"
    assert first["metadata"]["service.name"] == "rag-api"
    # GenAI conventions: the user's message is the question, not the rewritten query.
    otlp_genai_json(tmp_path, [GOOD])
    genai = tmp_path / "genai.jsonl"
    assert run_import(capsys, "otlp", str(tmp_path / "traces.json"), "-o", str(genai))[0] == 0
    assert golden(genai)[0]["question"] == GOOD["question"]


def test_otlp_traces_skipped_with_reasons_and_a_malformed_span_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = openinference_trace(1, GOOD)
    errored = openinference_trace(2, GOOD)
    errored[2] = {**errored[2], "status": {"code": "STATUS_CODE_ERROR"}}
    no_retriever = openinference_trace(3, GOOD)[1:]
    silent = openinference_trace(4, {**GOOD, "answer": ""})
    orphan = otlp_span("", "beef", None, 0, {})
    lines = [request(good), request(errored), request(no_retriever), request(silent)]
    lines += [request([orphan]), {"spans": []}]
    source = tmp_path / "traces.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    output = tmp_path / "golden.jsonl"

    status, _, err = run_import(capsys, "otlp", str(source), "-o", str(output))
    assert status == 4 and not output.exists()
    assert f"{source}:5: field 'traceId of span beef': expected the span's trace id" in err
    assert f"{source}:6: field 'resourceSpans': expected an OTLP/JSON" in err

    status, out, _ = run_import(capsys, "otlp", str(source), "-o", str(output), "--skip-invalid")
    assert status == 0
    assert "read 6 record(s) from 1 file(s); wrote 1 case(s)" in out
    assert "  by reason: 2 malformed, 1 error status, 1 no retriever span, 1 empty output" in out
    assert f"{source} trace {2:032x}: error status on span 00000002llm0" in out
    assert f"{source} trace {3:032x}: no retriever span" in out
    assert [row["id"] for row in golden(output)] == [f"{1:032x}"]


def test_langfuse_observations_exported_flat_are_gathered_by_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    langfuse_traces(tmp_path, [GOOD, HALLUCINATED])
    traces = json.loads((tmp_path / "traces.json").read_text(encoding="utf-8"))["data"]
    records = []
    for trace in traces:
        records += trace.pop("observations")
        records.append(trace)
    records[0] = {**records[0], "level": "ERROR", "statusMessage": "rate limited\nat"}
    source = tmp_path / "flat.jsonl"
    source.write_text("".join(json.dumps(record) + "\n" for record in records), "utf-8")
    output = tmp_path / "golden.jsonl"
    status, out, _ = run_import(capsys, "langfuse", str(source), "-o", str(output))
    assert status == 0, out
    assert f"{source} trace lf-trace-0: observation obs-0-gen has level ERROR: rate" in out
    (row,) = golden(output)
    assert (row["id"], row["question"]) == ("lf-trace-1", HALLUCINATED["question"])
    assert row["tags"] == ["prod"] and row["metadata"]["env"] == "prod"


def test_parquet_without_pyarrow_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    source = tmp_path / "spans.parquet"
    source.write_bytes(b"PAR1")
    status, _, err = run_import(
        capsys, "openinference", str(source), "-o", str(tmp_path / "g.jsonl")
    )
    assert status == 4
    assert "needs pyarrow: pip install 'pytest-ragas-gate[parquet]'" in err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[\n  {"input": "ok"},\n  {"input": }\n]', "items.json:3 is not valid JSON"),
        ('{"note": "no list here"}', "items.json holds an object; expected a list of records"),
        ('"just text"', "items.json holds text; expected a list of records"),
    ],
)
def test_a_json_export_read_as_a_stream_still_names_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    source = tmp_path / "items.json"
    source.write_text(text, encoding="utf-8")
    status, _, err = run_import(capsys, "deepeval", str(source), "-o", str(tmp_path / "o.jsonl"))
    assert status == 4
    assert message in err and len(err.strip().splitlines()) == 1


def test_otlp_json_names_a_malformed_span_by_its_id_and_reads_older_genai_attributes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    documents = json.dumps([{"id": "d1", "content": GOOD["contexts"][0]}])
    spans = [
        otlp_span("a" * 32, "root", None, 0, {"gen_ai.operation.name": "invoke_agent"}),
        otlp_span(
            "a" * 32, "retr", "root", 1,
            {"gen_ai.operation.name": "retrieval", "gen_ai.retrieval.documents": documents},
        ),
        otlp_span(
            "a" * 32, "chat", "root", 2,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.prompt.0.role": "system", "gen_ai.prompt.0.content": "Be brief.",
                "gen_ai.prompt.1.role": "user", "gen_ai.prompt.1.content": GOOD["question"],
                "gen_ai.completion.0.role": "assistant",
                "gen_ai.completion.0.content": GOOD["answer"],
            },
        ),
        {**otlp_span("", "beef", None, 0, {}), "traceId": None},
    ]  # fmt: skip
    source = tmp_path / "traces.json"
    source.write_text(json.dumps(request(spans)), encoding="utf-8")
    output = tmp_path / "golden.jsonl"
    status, _, err = run_import(capsys, "otlp", str(source), "-o", str(output))
    assert status == 4
    assert f"{source} span beef: field 'traceId of span beef': expected the span's trace id" in err
    status, out, _ = run_import(capsys, "otlp", str(source), "-o", str(output), "--skip-invalid")
    assert status == 0, out
    (row,) = golden(output)
    assert (row["question"], row["answer"]) == (GOOD["question"], GOOD["answer"])
    assert row["contexts"] == [{"id": "d1", "text": GOOD["contexts"][0]}]
