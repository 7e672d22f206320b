"""Trace imports stream: a large export imports in bounded memory, spans spilled to disk."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from gate_runs import GOOD, HALLUCINATED
from test_import import golden, run_import
from test_import_traces import langfuse_traces, openinference_trace, request

from pytest_ragas_gate.importers import span_store

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from import_memory import measure, write_export  # noqa: E402


def test_spans_spilled_to_disk_give_the_same_cases_in_the_same_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    traces = [openinference_trace(index, [GOOD, HALLUCINATED][index % 2]) for index in range(6)]
    # the spans of all traces interleaved, as a batching exporter writes them
    spans = [trace[position] for position in range(3) for trace in traces]
    source = tmp_path / "traces.jsonl"
    source.write_text("".join(json.dumps(request([span])) + "\n" for span in spans), "utf-8")
    in_memory, spilled = tmp_path / "memory.jsonl", tmp_path / "disk.jsonl"
    assert run_import(capsys, "otlp", str(source), "-o", str(in_memory))[0] == 0
    monkeypatch.setattr(span_store, "IN_MEMORY", 4)
    assert run_import(capsys, "otlp", str(source), "-o", str(spilled))[0] == 0
    assert golden(spilled) == golden(in_memory)
    assert [row["id"] for row in golden(spilled)] == [f"{index:032x}" for index in range(6)]


def test_flat_langfuse_observations_spilled_to_disk_give_the_same_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    langfuse_traces(tmp_path, [GOOD, HALLUCINATED, GOOD])
    traces = json.loads((tmp_path / "traces.json").read_text(encoding="utf-8"))["data"]
    observations = [item for trace in traces for item in trace.pop("observations")]
    source = tmp_path / "flat.jsonl"
    records = [*observations[::-1], *traces]
    source.write_text("".join(json.dumps(record) + "\n" for record in records), "utf-8")
    in_memory, spilled = tmp_path / "memory.jsonl", tmp_path / "disk.jsonl"
    assert run_import(capsys, "langfuse", str(source), "-o", str(in_memory))[0] == 0
    monkeypatch.setattr(span_store, "IN_MEMORY", 2)
    assert run_import(capsys, "langfuse", str(source), "-o", str(spilled))[0] == 0
    assert golden(spilled) == golden(in_memory)
    assert [row["id"] for row in golden(spilled)] == ["lf-trace-2", "lf-trace-1", "lf-trace-0"]


@pytest.mark.slow
@pytest.mark.parametrize(("format_name", "as_json"), [("openinference", False), ("otlp", True)])
def test_a_200_mb_trace_export_imports_under_300_mb(
    tmp_path: Path, format_name: str, as_json: bool
) -> None:
    source = tmp_path / ("export.json" if as_json else "export.jsonl")
    size = write_export(source, format_name, 200, as_json=as_json)
    assert size >= 200_000_000
    figures = measure(source, format_name, tmp_path / "golden.jsonl")
    assert figures["peak_rss_mb"] < 300, figures
    assert "wrote 1" in figures["summary"]
