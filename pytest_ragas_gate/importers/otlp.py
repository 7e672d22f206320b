"""OTLP/JSON trace files: any OpenTelemetry backend's export, one case per trace.

The file is the OTLP/JSON encoding of ``ExportTraceServiceRequest``: one request per line
(``.jsonl``, as the Collector's file exporter writes; each resource's ``service.name`` is
kept as metadata) or one request (``.json``, streamed span by span, so without the
resource, which may hold every span of the file). Spans sit under
``resourceSpans[].scopeSpans[].spans[]`` with ``traceId``, ``spanId``, ``parentSpanId``,
``startTimeUnixNano``, ``status.code`` and attributes as ``{"key": …, "value":
{"stringValue" | "intValue" | "doubleValue" | "boolValue" | "arrayValue" | "kvlistValue":
…}}`` lists. The attributes are read with the OpenInference
conventions (see :mod:`.openinference`) or, where a span has none, the OpenTelemetry GenAI
semantic conventions: a ``gen_ai.operation.name`` of ``retrieval`` (or a
``gen_ai.retrieval.documents`` attribute) marks the retriever, whose documents' ``content``
(or ``text``) become the contexts in rank order; the question is the last user message of
``gen_ai.input.messages`` (or ``gen_ai.prompt``), else ``gen_ai.retrieval.query.text``;
the answer is the last assistant message of ``gen_ai.output.messages`` (or
``gen_ai.completion``) of the trace's last model call; an ``execute_tool`` span is a tool
call (``gen_ai.tool.name``, ``gen_ai.tool.call.arguments``, ``gen_ai.tool.call.result``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .openinference import (
    GENAI_ANSWER,
    GENAI_QUERY,
    GENAI_QUESTION,
    Span,
    flatten,
    trace_cases,
)
from .records import Malformed, Outcome, Place
from .span_store import SpanStore
from .streaming import first_character, stream_items, stream_records

__all__ = ["attribute_values", "read_otlp"]

_SPANS = "resourceSpans.item.scopeSpans.item.spans.item"
_RETRIEVAL_OPERATIONS = frozenset({"retrieval", "retrieve"})
_MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
#: GenAI tool-execution attributes and the OpenInference TOOL-span attributes they become.
_TOOL_ATTRIBUTES = (
    ("gen_ai.tool.name", "tool.name"),
    ("gen_ai.tool.description", "tool.description"),
    ("gen_ai.tool.call.arguments", "input.value"),
    ("gen_ai.tool.call.result", "output.value"),
)


def _value(value: object) -> Any:
    """An OTLP ``AnyValue`` as plain JSON (``intValue`` is a string in OTLP/JSON)."""
    if not isinstance(value, Mapping):
        return value
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        try:
            return int(value["intValue"])
        except (TypeError, ValueError):
            return value["intValue"]
    if "doubleValue" in value:
        return value["doubleValue"]
    if "boolValue" in value:
        return value["boolValue"]
    if "arrayValue" in value:
        items = (value["arrayValue"] or {}).get("values") or []
        return [_value(item) for item in items]
    if "kvlistValue" in value:
        return attribute_values((value["kvlistValue"] or {}).get("values") or [])
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def attribute_values(attributes: object) -> dict[str, Any]:
    """OTLP ``[{"key": …, "value": {…}}]`` as a mapping.

    >>> attribute_values([{"key": "input.value", "value": {"stringValue": "Who?"}},
    ...                   {"key": "n", "value": {"intValue": "3"}}])
    {'input.value': 'Who?', 'n': 3}
    """
    if isinstance(attributes, Mapping):
        return dict(attributes)
    found: dict[str, Any] = {}
    if isinstance(attributes, list):
        for item in attributes:
            if isinstance(item, Mapping) and isinstance(item.get("key"), str):
                found[item["key"]] = _value(item.get("value"))
    return found


def _json(value: object) -> object:
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _message_text(message: object) -> str | None:
    """The text of a GenAI message: its ``parts`` of type text, or its ``content``."""
    if not isinstance(message, Mapping):
        return message if isinstance(message, str) else None
    parts = message.get("parts")
    if isinstance(parts, list):
        texts = [
            str(part.get("content"))
            for part in parts
            if isinstance(part, Mapping)
            and part.get("type", "text") == "text"
            and part.get("content")
        ]
        return "\n".join(texts) or None
    content = message.get("content")
    return content if isinstance(content, str) else None


def _last_message(value: object, roles: tuple[str, ...]) -> str | None:
    messages = _json(value)
    if isinstance(messages, Mapping):
        messages = [messages]
    if not isinstance(messages, list):
        return messages if isinstance(messages, str) else None
    for message in reversed(messages):
        role = message.get("role") if isinstance(message, Mapping) else None
        if role is None or role in roles:
            text = _message_text(message)
            if text:
                return text
    return None


def _indexed_messages(attributes: Mapping[str, Any], prefix: str) -> list[dict[str, Any]]:
    """``gen_ai.prompt.0.role`` / ``.content`` … (the older flattened form) as messages."""
    messages: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        head, _, rest = key.removeprefix(prefix + ".").partition(".")
        if key.startswith(prefix + ".") and head.isdigit() and rest in ("role", "content"):
            messages.setdefault(int(head), {})[rest] = value
    return [messages[index] for index in sorted(messages)]


def _genai(attributes: dict[str, Any]) -> None:
    """Add the OpenInference reading of GenAI semantic-convention attributes, in place."""
    if "openinference.span.kind" in attributes:
        return
    operation = str(attributes.get("gen_ai.operation.name") or "").lower()
    documents = _json(attributes.get("gen_ai.retrieval.documents"))
    if operation in _RETRIEVAL_OPERATIONS or documents is not None:
        attributes["openinference.span.kind"] = "RETRIEVER"
        for rank, document in enumerate(documents if isinstance(documents, list) else []):
            item = document if isinstance(document, Mapping) else {"content": document}
            prefix = f"retrieval.documents.{rank}.document."
            attributes[prefix + "content"] = item.get("content", item.get("text"))
            for key in ("id", "score"):
                if item.get(key) is not None:
                    attributes[prefix + key] = item[key]
        query = attributes.get("gen_ai.retrieval.query.text")
        if isinstance(query, str):
            attributes[GENAI_QUERY] = query
        return
    if operation == "execute_tool":
        attributes["openinference.span.kind"] = "TOOL"
        for source, target in _TOOL_ATTRIBUTES:
            value = attributes.get(source)
            if value is not None:
                attributes[target] = value if isinstance(value, str) else json.dumps(value)
        return
    if operation in _MODEL_OPERATIONS:
        attributes["openinference.span.kind"] = "LLM"
    elif operation == "invoke_agent":
        attributes["openinference.span.kind"] = "AGENT"
    inputs = attributes.get("gen_ai.input.messages") or _indexed_messages(
        attributes, "gen_ai.prompt"
    )
    outputs = attributes.get("gen_ai.output.messages") or _indexed_messages(
        attributes, "gen_ai.completion"
    )
    question = _last_message(inputs, ("user",)) if inputs else None
    answer = _last_message(outputs, ("assistant",)) if outputs else None
    if question:
        attributes[GENAI_QUESTION] = question
    if answer:
        attributes[GENAI_ANSWER] = answer


def _span(place: Place, order: int, span: Mapping[str, Any], resource: Mapping[str, Any]) -> Span:
    attributes = attribute_values(span.get("attributes"))
    _genai(attributes)
    flat = flatten(attributes)
    status = span.get("status") if isinstance(span.get("status"), Mapping) else {}
    code = str((status or {}).get("code", "")).upper()
    flat.update(
        {
            "context.trace_id": span.get("traceId"),
            "context.span_id": span.get("spanId"),
            "parent_id": span.get("parentSpanId") or None,
            "start_time": span.get("startTimeUnixNano"),
            "name": span.get("name"),
            "status_code": "ERROR" if code in ("2", "STATUS_CODE_ERROR") else code,
        }
    )
    if resource.get("service.name") is not None:
        flat["metadata.service.name"] = resource["service.name"]
    return Span.slim(place, order, flat)


_Read = tuple[Place, object, Mapping[str, Any]]


def _requests(path: Path) -> Iterator[_Read | Malformed]:
    """Each span with where it was read and its resource's attributes."""
    if path.suffix.lower() == ".jsonl":
        for place, request in stream_records(path):
            if not isinstance(request, Mapping) or not isinstance(
                request.get("resourceSpans"), list
            ):
                yield Malformed(
                    place, "resourceSpans", "expected an OTLP/JSON ExportTraceServiceRequest"
                )
                continue
            for resource_spans in request["resourceSpans"]:
                if not isinstance(resource_spans, Mapping):
                    continue
                resource = resource_spans.get("resource")
                resource_attributes = attribute_values(
                    resource.get("attributes") if isinstance(resource, Mapping) else None
                )
                for scope_spans in resource_spans.get("scopeSpans") or []:
                    spans = scope_spans.get("spans") if isinstance(scope_spans, Mapping) else []
                    for span in spans or []:
                        yield place, span, resource_attributes
        return
    prefix = ("item." + _SPANS) if first_character(path) == "[" else _SPANS
    for index, span in enumerate(stream_items(path, prefix), start=1):
        span_id = span.get("spanId") if isinstance(span, Mapping) else None
        yield Place(str(path), "span", span_id or f"#{index}"), span, {}


def read_otlp(path: Path) -> Iterator[Outcome]:
    """One case per trace of an OTLP/JSON export."""
    traces = SpanStore[Span]()
    order = 0
    for read in _requests(path):
        if isinstance(read, Malformed):
            yield read
            continue
        place, span, resource = read
        order += 1
        if not isinstance(span, Mapping):
            yield Malformed(place, "(span)", "expected an object")
            continue
        trace_id = span.get("traceId")
        if not isinstance(trace_id, str) or not trace_id:
            where = span.get("spanId") or "without spanId"
            yield Malformed(place, f"traceId of span {where}", "expected the span's trace id")
            continue
        traces.add(trace_id, _span(place, order, span, resource))
    yield from trace_cases(str(path), traces)
