"""--rag-gate-output otel=PATH|URL: the results as gen_ai.evaluation.result log records, read back.

A local OTLP/HTTP receiver on 127.0.0.1 takes the records as a collector does and parses
them with OpenTelemetry's own protobuf messages; the file form is read as OTLP/JSON.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from gate_runs import GOOD, HALLUCINATED, gate_run, write_config, write_jsonl

pytest.importorskip("opentelemetry.sdk")
# Imported here, before any in-process gate run: pytester restores sys.modules after each
# run, and a second copy of OpenTelemetry's context modules would lose the span context.
import opentelemetry.exporter.otlp.proto.common._log_encoder  # noqa: E402, F401
import opentelemetry.exporter.otlp.proto.http._log_exporter  # noqa: E402, F401
import opentelemetry.sdk._logs.export  # noqa: E402, F401
import opentelemetry.sdk.resources  # noqa: E402, F401
import opentelemetry.trace  # noqa: E402, F401
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (  # noqa: E402
    ExportLogsServiceRequest,
)

TRACE_ID = "5b8efff798038103d269b633813fc60c"
SPAN_ID = "eee19b7ec3c1b174"
COMMIT = "0123456789abcdef0123456789abcdef01234567"

#: A case as `rag-gate import otlp` writes it: its trace and root span in its metadata.
TRACED = {
    **GOOD,
    "id": "from-a-trace",
    "metadata": {
        "import": {"format": "otlp", "file": "traces.json", "trace": TRACE_ID},
        "root_span_id": SPAN_ID,
    },
}


class Receiver:
    """An OTLP/HTTP logs endpoint: keeps every request, answers with ``status``."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, bytes]] = []
        self.status = 200
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                receiver.requests.append((self.path, self.headers["content-type"], body))
                payload = ExportLogsServiceRequest().SerializeToString()
                self.send_response(receiver.status)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()

    def records(self) -> list[tuple[Any, Any]]:
        """Every log record received, with its resource."""
        found = []
        for _, _, body in self.requests:
            request = ExportLogsServiceRequest.FromString(body)
            for resource_logs in request.resource_logs:
                for scope_logs in resource_logs.scope_logs:
                    for record in scope_logs.log_records:
                        found.append((resource_logs.resource, record))
        return found


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = Receiver()
    yield running
    running.server.shutdown()
    running.server.server_close()


def attributes_of(record: Any) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for attribute in record.attributes:
        kind = attribute.value.WhichOneof("value")
        values[attribute.key] = getattr(attribute.value, kind)
    return values


def run_gate(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, otel: str) -> Any:
    monkeypatch.setenv("GITHUB_SHA", COMMIT)
    write_jsonl(pytester, "golden.jsonl", [TRACED, HALLUCINATED])
    write_config(pytester.path, thresholds={"faithfulness": 0.8, "context_recall": 0.5})
    return gate_run(
        pytester,
        "-p",
        "no:randomly",
        judge="offline",
        metrics="faithfulness,context_recall",
        otel=otel,
    )


def test_each_score_reaches_the_collector_as_an_evaluation_result(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, receiver: Receiver
) -> None:
    outcome = run_gate(pytester, monkeypatch, receiver.url)

    assert outcome.ret == 1  # the hallucinated case fails faithfulness
    assert [path for path, _, _ in receiver.requests] == ["/v1/logs"]
    assert receiver.requests[0][1] == "application/x-protobuf"
    records = receiver.records()
    by_case = {
        (
            attributes_of(record)["rag_gate.case.id"],
            attributes_of(record)["gen_ai.evaluation.name"],
        ): (
            resource,
            record,
        )
        for resource, record in records
    }
    # One record per case and scored metric.
    assert sorted(by_case) == [
        ("from-a-trace", "context_recall"),
        ("from-a-trace", "faithfulness"),
        ("wrong-year", "context_recall"),
        ("wrong-year", "faithfulness"),
    ]
    resource, traced = by_case["from-a-trace", "faithfulness"]
    attributes = attributes_of(traced)
    assert traced.event_name == "gen_ai.evaluation.result"
    assert attributes["gen_ai.evaluation.score.value"] == 1.0
    assert attributes["gen_ai.evaluation.score.label"] == "pass"
    assert attributes["gen_ai.evaluation.explanation"]
    assert attributes["rag_gate.golden_file"] == "golden.jsonl"
    assert attributes["rag_gate.golden_line"] == 1
    assert attributes["rag_gate.threshold"] == 0.8
    assert attributes["rag_gate.run.commit"] == COMMIT
    # Parented to the span the case was imported from.
    assert traced.trace_id.hex() == TRACE_ID and traced.span_id.hex() == SPAN_ID
    assert attributes["rag_gate.trace_id"] == TRACE_ID
    service = {item.key: item.value.string_value for item in resource.attributes}
    assert service["service.name"] == "rag-gate"
    _, failed = by_case["wrong-year", "faithfulness"]
    assert attributes_of(failed)["gen_ai.evaluation.score.label"] == "fail"
    assert attributes_of(failed)["gen_ai.evaluation.score.value"] == 0.0
    assert not failed.trace_id and "rag_gate.trace_id" not in attributes_of(failed)
    outcome.stdout.fnmatch_lines([f"*reports: JSON report.json, OpenTelemetry {receiver.url}*"])


def test_the_records_are_written_as_otlp_json(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_gate(pytester, monkeypatch, "out/results.otlp.json")

    document = json.loads((pytester.path / "out" / "results.otlp.json").read_text("utf-8"))
    (resource_logs,) = document["resourceLogs"]
    records = resource_logs["scopeLogs"][0]["logRecords"]
    assert len(records) == 4
    traced = [record for record in records if "traceId" in record]
    assert {record["traceId"] for record in traced} == {TRACE_ID}
    assert {record["spanId"] for record in traced} == {SPAN_ID}
    keys = {attribute["key"] for record in records for attribute in record["attributes"]}
    assert {
        "gen_ai.evaluation.name",
        "gen_ai.evaluation.score.value",
        "gen_ai.evaluation.score.label",
        "rag_gate.case.id",
        "rag_gate.golden_file",
    } <= keys
    assert {record["eventName"] for record in records} == {"gen_ai.evaluation.result"}


def test_a_collector_that_refuses_is_a_warning_not_a_changed_verdict(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, receiver: Receiver
) -> None:
    receiver.status = 400

    outcome = run_gate(pytester, monkeypatch, receiver.url)

    assert outcome.ret == 1 and outcome.report["verdict"] == "failed"
    outcome.stdout.fnmatch_lines(["*rag-gate otel: the evaluation records were not sent*"])
    assert "OpenTelemetry" not in outcome.stdout.str().split("reports:")[-1].splitlines()[0]


def test_without_the_extra_the_run_stops_with_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk", None)

    outcome = run_gate(pytester, monkeypatch, "results.otlp.json")

    assert outcome.ret == 4
    outcome.stderr.fnmatch_lines(["*outputs.otel needs the OpenTelemetry SDK*[otel]*"])


def _parse_otlp_json(text: str) -> ExportLogsServiceRequest:
    """An OTLP/JSON file parsed by protobuf's own JSON mapping, as a strict receiver does.

    OTLP/JSON differs from the plain mapping only in its ids (hex, not base64): they are
    turned back into base64 first, as the OTLP specification tells a receiver to read them.
    """
    import base64

    from google.protobuf.json_format import ParseDict

    document = json.loads(text)
    for resource_logs in document.get("resourceLogs", []):
        for scope_logs in resource_logs.get("scopeLogs", []):
            for record in scope_logs.get("logRecords", []):
                for key in ("traceId", "spanId"):
                    if key in record:
                        record[key] = base64.b64encode(bytes.fromhex(record[key])).decode()
    # ParseDict takes enum names too; OTLP/JSON forbids them, so integers are checked first.
    return ParseDict(document, ExportLogsServiceRequest(), ignore_unknown_fields=False)


def _every_record(request: ExportLogsServiceRequest) -> list[Any]:
    return [
        record
        for resource_logs in request.resource_logs
        for scope_logs in resource_logs.scope_logs
        for record in scope_logs.log_records
    ]


def test_the_otlp_json_file_parses_as_an_export_logs_service_request(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from opentelemetry.proto.logs.v1.logs_pb2 import SeverityNumber

    run_gate(pytester, monkeypatch, "results.otlp.json")

    text = (pytester.path / "results.otlp.json").read_text("utf-8")
    document = json.loads(text)
    raw_records = document["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
    # The OTLP/JSON mapping: enum values as integers; names MUST NOT be used.
    assert {record["severityNumber"] for record in raw_records} == {
        SeverityNumber.SEVERITY_NUMBER_INFO
    }
    records = _every_record(_parse_otlp_json(text))
    assert len(records) == 4
    assert {record.event_name for record in records} == {"gen_ai.evaluation.result"}
    assert {record.severity_number for record in records} == {SeverityNumber.SEVERITY_NUMBER_INFO}
    assert {record.trace_id.hex() for record in records if record.trace_id} == {TRACE_ID}
    assert all(record.time_unix_nano > 0 for record in records)


def test_the_otlp_http_body_is_an_export_logs_service_request(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, receiver: Receiver
) -> None:
    from opentelemetry.proto.logs.v1.logs_pb2 import SeverityNumber

    run_gate(pytester, monkeypatch, receiver.url)

    ((_, _, body),) = receiver.requests
    request = ExportLogsServiceRequest()
    request.ParseFromString(body)
    records = _every_record(request)
    assert len(records) == 4
    assert {record.event_name for record in records} == {"gen_ai.evaluation.result"}
    assert {record.severity_number for record in records} == {SeverityNumber.SEVERITY_NUMBER_INFO}
    assert {record.severity_text for record in records} == {"INFO"}
