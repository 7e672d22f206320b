"""The gate's results as OpenTelemetry: one ``gen_ai.evaluation.result`` log record per score.

``--rag-gate-output otel=PATH|URL`` (setting ``outputs.otel``) sends, for every case and
every metric it was scored on, a log record named ``gen_ai.evaluation.result`` as
OpenTelemetry's GenAI semantic conventions define it:

- ``gen_ai.evaluation.name``: the metric (``faithfulness``);
- ``gen_ai.evaluation.score.value``: the score;
- ``gen_ai.evaluation.score.label``: ``pass`` or ``fail`` against the threshold in force
  for that case (its own, its tag's, else the gate's); absent when none is;
- ``gen_ai.evaluation.explanation``: the judge's reasons (the metric's own, else each
  claim's, statement's or chunk's), where it gave any;

with the gate's own attributes beside them: ``rag_gate.case.id``, ``rag_gate.golden_file``
(and ``rag_gate.golden_line``), ``rag_gate.threshold``, ``rag_gate.run.commit`` and
``rag_gate.run.url``. A case imported from a trace (``rag-gate import otlp``,
``openinference``, ``langfuse``) carries that trace's id and its root span's id as the
record's trace context, so a backend shows the result on the span it judged; the ids are
also kept as ``rag_gate.trace_id``/``rag_gate.span_id`` (a Langfuse id is no W3C id).
A metric that errored or did not apply has no score and no record.

A destination starting with ``http://`` or ``https://`` is an OTLP/HTTP collector (the
records are posted as protobuf to ``…/v1/logs``, which is appended unless the URL already
ends with it); anything else is a file, written as OTLP/JSON (one
``ExportLogsServiceRequest``, the form an OpenTelemetry Collector's ``otlpjsonfile``
receiver reads). The records go through the OpenTelemetry SDK (the ``otel`` extra);
``OTEL_SERVICE_NAME`` and ``OTEL_RESOURCE_ATTRIBUTES`` set the resource as usual
(service name ``rag-gate`` by default), ``OTEL_EXPORTER_OTLP_HEADERS`` the collector's
headers.
"""

from __future__ import annotations

import importlib.util
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..exceptions import UsageError
from ..scoring.results import CaseResult, split_source
from ..settings.bounds import Bound, own_bound
from ..settings.run_environment import RunEnvironment

if TYPE_CHECKING:
    from ..settings.config import GateConfig

__all__ = [
    "EVENT_NAME",
    "evaluation_records",
    "export_run",
    "is_collector_url",
    "require_otel",
    "send_results",
]

#: The event of OpenTelemetry's GenAI semantic conventions for an evaluation's result.
EVENT_NAME = "gen_ai.evaluation.result"

#: The fields that name what an item's reason is about, in the order they are looked for.
_SUBJECTS = ("claim", "statement", "question", "chunk", "sentence", "text")
#: The longest explanation sent; a backend shows the first lines of it.
_EXPLANATION_CHARS = 2000

#: Records per OTLP/HTTP request, well under a collector's default 4 MiB request limit.
_BATCH = 512


def require_otel() -> None:
    """Raise ``UsageError`` unless the OpenTelemetry SDK and OTLP exporter are installed."""
    missing = [
        name
        for name in ("opentelemetry.sdk", "opentelemetry.exporter.otlp.proto.http")
        if _find(name) is None
    ]
    if missing:
        raise UsageError(
            "outputs.otel needs the OpenTelemetry SDK and OTLP exporter, which are not "
            f"installed ({', '.join(missing)}): install pytest-ragas-gate[otel]."
        )


def _find(name: str) -> object:
    try:
        return importlib.util.find_spec(name)
    except ModuleNotFoundError:
        return None


def is_collector_url(destination: str) -> bool:
    """Whether ``destination`` names an OTLP/HTTP collector rather than a file.

    >>> is_collector_url("http://127.0.0.1:4318"), is_collector_url("results.otlp.json")
    (True, False)
    """
    return destination.lower().startswith(("http://", "https://"))


def evaluation_records(
    results: Sequence[CaseResult],
    bounds: Mapping[str, Bound],
    tag_thresholds: Mapping[str, Mapping[str, float]],
    stamp: Mapping[str, str | None],
) -> Iterator[dict[str, Any]]:
    """Each scored metric of each case as ``{"attributes", "trace_id", "span_id"}``.

    Args:
        results: The gate's case results.
        bounds: The gate's thresholds in force, by metric.
        tag_thresholds: The ``tag_thresholds`` setting.
        stamp: ``{"commit", "run_url"}`` of the run.
    """
    for result in results:
        file, line = split_source(result.source)
        trace = result.trace or {}
        for metric in result.metrics:
            score = result.scores.get(metric)
            if score is None or metric in result.errors:
                continue
            attributes: dict[str, Any] = {
                "gen_ai.evaluation.name": metric,
                "gen_ai.evaluation.score.value": float(score),
            }
            bound = _bound_in_force(result, metric, bounds, tag_thresholds)
            if bound is not None:
                attributes["gen_ai.evaluation.score.label"] = (
                    "pass" if bound.met_by(float(score)) else "fail"
                )
                attributes["rag_gate.threshold"] = bound.value
            explanation = _explanation(result, metric)
            if explanation:
                attributes["gen_ai.evaluation.explanation"] = explanation
            attributes["rag_gate.case.id"] = result.id
            attributes["rag_gate.golden_file"] = file
            if line is not None:
                attributes["rag_gate.golden_line"] = line
            for key in ("commit", "run_url"):
                value = stamp.get(key)
                if value:
                    attributes[f"rag_gate.run.{key.removeprefix('run_')}"] = value
            for key in ("trace_id", "span_id"):
                if trace.get(key):
                    attributes[f"rag_gate.{key}"] = trace[key]
            yield {
                "attributes": attributes,
                "trace_id": _w3c_id(trace.get("trace_id"), 32),
                "span_id": _w3c_id(trace.get("span_id"), 16),
            }


def _explanation(result: CaseResult, metric: str) -> str:
    """The judge's reasons for a score: the metric's own, else its items' (claims, chunks …).

    >>> result = CaseResult(id="c", source="g.jsonl:1", details={"faithfulness": [
    ...     {"claim": "A is B.", "verdict": "supported", "reason": "context 1 says so"}]})
    >>> _explanation(result, "faithfulness")
    'A is B. — context 1 says so'
    """
    if result.reasons.get(metric):
        return result.reasons[metric]
    parts: list[str] = []
    for item in result.details.get(metric, []):
        reason = item.get("reason")
        if not isinstance(reason, str) or not reason:
            continue
        subject = next(
            (item[key] for key in _SUBJECTS if isinstance(item.get(key), str) and item[key]), ""
        )
        parts.append(f"{subject} — {reason}" if subject else reason)
    text = "; ".join(parts)
    return text if len(text) <= _EXPLANATION_CHARS else text[: _EXPLANATION_CHARS - 1] + "…"


def _bound_in_force(
    result: CaseResult,
    metric: str,
    bounds: Mapping[str, Bound],
    tag_thresholds: Mapping[str, Mapping[str, float]],
) -> Bound | None:
    """The case's own threshold, else its tags' (the strictest), else the gate's."""
    if metric in result.thresholds:
        return own_bound(metric, result.thresholds[metric], bounds)
    tagged = [
        own_bound(metric, tag_thresholds[tag][metric], bounds)
        for tag in result.tags
        if metric in tag_thresholds.get(tag, {})
    ]
    if tagged:
        strictest = max if tagged[0].direction == "min" else min
        return strictest(tagged, key=lambda bound: bound.value)
    return bounds.get(metric)


def _w3c_id(value: str | None, digits: int) -> int | None:
    """A trace (32 hex digits) or span id (16) as the SDK takes it; None if it is none."""
    if not value or len(value) != digits:
        return None
    try:
        number = int(value, 16)
    except ValueError:
        return None
    return number or None


def send_results(
    destination: str,
    results: Sequence[CaseResult],
    *,
    bounds: Mapping[str, Bound],
    tag_thresholds: Mapping[str, Mapping[str, float]],
    stamp: Mapping[str, str | None],
    root: Path,
    service_name: str = "rag-gate",
) -> str:
    """Write or post the records; returns a line saying where, and how many.

    Raises:
        UsageError: the SDK is missing, or the collector did not take the records.
    """
    require_otel()
    records = _readable_records(
        evaluation_records(results, bounds, tag_thresholds, stamp), service_name
    )
    if is_collector_url(destination):
        _post(destination, records)
        return f"{len(records)} evaluation records to {destination}"
    path = Path(destination)
    if not path.is_absolute():
        path = root / path
    _write_json(path, records)
    return f"{len(records)} evaluation records in {destination}"


def _readable_records(entries: Iterator[dict[str, Any]], service_name: str) -> list[Any]:
    """The records, made by the SDK's logger and kept in memory until sent."""
    from opentelemetry import trace
    from opentelemetry._logs import LogRecord, SeverityNumber
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import (
        InMemoryLogRecordExporter,
        SimpleLogRecordProcessor,
    )
    from opentelemetry.sdk.resources import Resource

    resource = Resource.create({"service.name": service_name})
    provider = LoggerProvider(resource=resource)
    memory = InMemoryLogRecordExporter()  # type: ignore[no-untyped-call]
    provider.add_log_record_processor(SimpleLogRecordProcessor(memory))
    logger = provider.get_logger("pytest_ragas_gate", _installed_version())
    now = time.time_ns()
    for entry in entries:
        context = None
        if entry["trace_id"] is not None:
            # The judged span, as the record's parent: a backend shows the result on it.
            judged = trace.SpanContext(
                trace_id=entry["trace_id"],
                span_id=entry["span_id"] or 0,
                is_remote=True,
                trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED),
            )
            context = trace.set_span_in_context(trace.NonRecordingSpan(judged))
        logger.emit(
            LogRecord(
                timestamp=now,
                observed_timestamp=now,
                context=context,
                severity_number=SeverityNumber.INFO,
                severity_text="INFO",
                event_name=EVENT_NAME,
                attributes=entry["attributes"],
            )
        )
    records = list(memory.get_finished_logs())
    provider.shutdown()
    return records


def _post(url: str, records: Sequence[Any]) -> None:
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.sdk._logs.export import LogRecordExportResult

    endpoint = url if url.rstrip("/").endswith("/v1/logs") else url.rstrip("/") + "/v1/logs"
    exporter = OTLPLogExporter(endpoint=endpoint, timeout=30)
    try:
        for start in range(0, len(records), _BATCH):
            outcome = exporter.export(records[start : start + _BATCH])
            if outcome != LogRecordExportResult.SUCCESS:
                raise UsageError(
                    f"The OpenTelemetry collector at {endpoint} did not take the evaluation "
                    f"records (records {start + 1} to {min(start + _BATCH, len(records))} "
                    f"of {len(records)}); check the URL and that it accepts OTLP/HTTP logs."
                )
    finally:
        exporter.shutdown()  # type: ignore[no-untyped-call]


def _write_json(path: Path, records: Sequence[Any]) -> None:
    """``records`` as OTLP/JSON: protobuf's JSON mapping, with ids in hex as OTLP wants.

    Enum values go as integers (``"severityNumber": 9``): the OTLP/JSON mapping forbids
    their names, and a strict receiver refuses a file that uses them.
    """
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs

    document = MessageToDict(encode_logs(records), use_integers_for_enums=True)
    for resource_logs in document.get("resourceLogs", []):
        for scope_logs in resource_logs.get("scopeLogs", []):
            for record in scope_logs.get("logRecords", []):
                for key in ("traceId", "spanId"):
                    if key in record:
                        record[key] = _base64_to_hex(record[key])
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        json.dump(document, stream, ensure_ascii=False)
        stream.write("\n")
    os.replace(temporary, path)


def _base64_to_hex(value: str) -> str:
    import base64

    return base64.b64decode(value).hex()


def export_run(
    settings: GateConfig,
    results: Sequence[CaseResult],
    root: Path,
    notice: Callable[[str], None],
    environment: RunEnvironment,
) -> str | None:
    """Send a finished run's results where ``settings.otel`` says.

    ``environment`` gives the run's commit and CI run and ``OTEL_SERVICE_NAME``.

    Returns the destination when the records went out; otherwise ``notice`` is told why
    (a collector down is a warning of the run, never a changed verdict) and None returned.
    """
    destination = settings.otel
    if not destination:
        return None
    try:
        send_results(
            destination,
            results,
            bounds=settings.bounds(),
            tag_thresholds=settings.tag_thresholds,
            stamp=environment.stamp(),
            root=root,
            service_name=environment.variables.get("OTEL_SERVICE_NAME", "rag-gate"),
        )
    except (UsageError, OSError) as error:
        notice(f"rag-gate otel: the evaluation records were not sent: {error}")
        return None
    return destination


def _installed_version() -> str | None:
    # The distribution's metadata, not the package's own __init__: renderers import no
    # later layer, and the public-names module is the last one.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pytest-ragas-gate")
    except PackageNotFoundError:
        return None
