"""OpenInference spans (Phoenix exports, JSON Lines or JSON) grouped into one case per trace.

A span is read flat or nested: ``{"context": {"trace_id": …, "span_id": …}, "parent_id":
…, "attributes": {"input.value": …}}``, the nested ``attributes`` of Phoenix's JSON, or the
columns of ``get_spans_dataframe().to_json(orient="records", lines=True)``
(``context.trace_id``, ``attributes.retrieval.documents`` …). Spans are grouped by trace id;
the root span (no parent in the trace) gives the question (``input.value``) and the answer
(``output.value``; a JSON value gives its ``query``/``question``/``input`` or
``answer``/``output``/``response`` member), and the ``RETRIEVER`` spans, in start order,
give the contexts from ``retrieval.documents.N.document.content`` (and ``…id``) in rank
order (each one's ``hop``, when there are several, names the retriever that returned it).
The ``TOOL`` spans, in start order, give the case's ``tools_called``: ``tool.name`` (else
the span's name), the arguments from ``input.value`` (a JSON object) and the result from
``output.value``. The trace id is the case id, the root span's start its timestamp, and its
``session.id``, ``user.id``, ``tag.tags`` and ``metadata`` attributes its metadata. A trace
with no root or retriever span, an error status or an empty output is skipped with the
reason.

Spans are read one at a time (:mod:`.streaming`, Parquet included) and only the attributes
a case needs are kept until the file ends (an LLM span's prompt is dropped as it is read),
in memory or, for a large export, on disk (:mod:`.span_store`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .records import Imported, Invalid, Malformed, Outcome, Place, Skipped
from .span_store import SpanStore
from .streaming import stream_records

__all__ = ["Span", "flatten", "read_openinference", "trace_cases"]

_DOCUMENT = re.compile(r"retrieval\.documents\.(\d+)\.document\.(content|id|score)")
QUESTION_KEYS = ("query", "question", "input", "user_input")
ANSWER_KEYS = ("answer", "output", "response", "result", "content")
_LIST_KEYS = ("spans", "data")
GENAI_QUESTION = "rag_gate.genai.question"
GENAI_QUERY = "rag_gate.genai.query"
GENAI_ANSWER = "rag_gate.genai.answer"
#: Attributes a case is made of; a span's others are dropped as it is read.
_KEPT = frozenset(
    {
        "context.trace_id",
        "trace_id",
        "traceId",
        "context.span_id",
        "span_id",
        "parent_id",
        "parent_span_id",
        "openinference.span.kind",
        "span_kind",
        "start_time",
        "startTime",
        "status_code",
        "status.status_code",
        "status.code",
        "name",
        "tool.name",
        "tool.description",
        # Set by the OTLP reader from GenAI semantic-convention attributes (see otlp.py).
        GENAI_QUESTION,
        GENAI_QUERY,
        GENAI_ANSWER,
    }
)
#: Attributes kept as the case's metadata (``metadata`` is merged in).
METADATA_ATTRIBUTES = ("session.id", "user.id", "tag.tags")
#: Span kinds whose input and output are never the case's question and answer (an LLM
#: span's input is the whole prompt): dropped to keep memory bounded.
_BULKY_KINDS = frozenset({"LLM", "EMBEDDING", "RERANKER"})


def flatten(value: object, prefix: str = "") -> dict[str, Any]:
    """Dotted keys of nested objects and lists; ``attributes.`` prefixes dropped.

    >>> flatten({"attributes": {"retrieval": {"documents": [{"document.content": "a"}]}}})
    {'retrieval.documents.0.document.content': 'a'}
    """
    flat: dict[str, Any] = {}
    items: list[tuple[str, object]]
    if isinstance(value, Mapping):
        items = [(str(key), item) for key, item in value.items()]
    elif isinstance(value, list) and prefix:
        items = [(str(index), item) for index, item in enumerate(value)]
    else:
        return {prefix: value}
    for key, item in items:
        name = f"{prefix}.{key}" if prefix else key
        name = name.removeprefix("attributes.")
        if (isinstance(item, Mapping) and item) or (isinstance(item, list) and item):
            flat.update(flatten(item, name))
        else:
            flat[name] = item
    return flat


@dataclass
class Span:
    """The attributes of one span that a case needs, with where the span was read."""

    line: Place
    order: int
    attributes: dict[str, Any]

    @classmethod
    def slim(cls, line: Place, order: int, flat: dict[str, Any]) -> Span:
        """A span keeping only what a case is made of from ``flat`` attributes."""
        kind = str(flat.get("openinference.span.kind") or flat.get("span_kind") or "").upper()
        kept = {key: value for key, value in flat.items() if key in _KEPT}
        may_be_root = kind not in _BULKY_KINDS or not (
            kept.get("parent_id") or kept.get("parent_span_id")
        )
        for key, value in flat.items():
            if key.startswith("retrieval.documents.") and kind == "RETRIEVER":
                kept[key] = value
            elif key in ("input.value", "output.value") and may_be_root:
                kept[key] = value
            elif key in METADATA_ATTRIBUTES or key == "metadata" or key.startswith("metadata."):
                kept[key] = value
        return cls(line, order, kept)

    def get(self, *keys: str) -> Any:
        """The value of the first of ``keys`` the span has, or None."""
        return next((self.attributes[k] for k in keys if k in self.attributes), None)

    @property
    def span_id(self) -> str:
        """The span's id, or its place in the file when it has none."""
        return str(self.get("context.span_id", "span_id") or f"#{self.order}")

    @property
    def kind(self) -> str:
        """The OpenInference span kind, upper case (``RETRIEVER`` …)."""
        return str(self.get("openinference.span.kind", "span_kind") or "").upper()

    @property
    def start(self) -> tuple[int, float, str]:
        """A sort key of the start time: numbers before texts."""
        started = self.get("start_time", "startTime")
        if isinstance(started, int | float):
            return (0, float(started), "")
        return (1, 0.0, str(started or ""))


def read_openinference(path: Path) -> Iterator[Outcome]:
    """One case per trace of a span export."""
    traces = SpanStore[Span]()
    for order, (place, record) in enumerate(stream_records(path, _LIST_KEYS)):
        if not isinstance(record, Mapping):
            yield Malformed(place, "(span)", "expected an object")
            continue
        span = Span.slim(place, order, flatten(record))
        trace_id = span.get("context.trace_id", "trace_id", "traceId")
        if not isinstance(trace_id, str) or not trace_id:
            yield Malformed(place, "context.trace_id", "expected the span's trace id")
            continue
        traces.add(trace_id, span)
    yield from trace_cases(str(path), traces)


def trace_cases(file: str, traces: SpanStore[Span]) -> Iterator[Outcome]:
    """One outcome per trace, in the order traces were first seen."""
    for trace_id, spans in traces.groups():
        yield _trace(Place(file, "trace", trace_id), spans)


def _member(value: object, keys: tuple[str, ...], field: str) -> str | None:
    """``value`` as text; a JSON object gives its first member named in ``keys``."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise Invalid(field, f"expected text, got {type(value).__name__}")
    text = value.strip()
    if text.startswith("{"):
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            return text or None
        if isinstance(parsed, Mapping):
            key = next((key for key in keys if isinstance(parsed.get(key), str)), None)
            if key is None:
                raise Invalid(field, f"expected JSON with one of {', '.join(keys)}")
            return str(parsed[key]).strip() or None
    return text or None


def _trace(place: Place, spans: list[Span]) -> Outcome:
    ids = {span.span_id for span in spans}
    roots = [span for span in spans if span.get("parent_id", "parent_span_id") not in ids]
    if not roots:
        return Skipped(place, "no root span")
    root = min(roots, key=lambda span: (span.start, span.order))
    failed = next(
        (
            span
            for span in spans
            if str(span.get("status_code", "status.status_code", "status.code")).upper()
            in ("ERROR", "STATUS_CODE_ERROR", "2")
        ),
        None,
    )
    if failed is not None:
        return Skipped(place, f"error status on span {failed.span_id}", "error status")
    retrievers = sorted(
        (span for span in spans if span.kind == "RETRIEVER"),
        key=lambda span: (span.start, span.order),
    )
    if not retrievers:
        return Skipped(place, "no retriever span")
    try:
        question = _member(
            root.get("input.value"), QUESTION_KEYS, f"input.value of span {root.span_id}"
        )
        answer = _member(
            root.get("output.value"), ANSWER_KEYS, f"output.value of span {root.span_id}"
        )
        hops = [_documents(retriever) for retriever in retrievers]
    except Invalid as invalid:
        return Malformed(root.line, invalid.field, invalid.expected)
    in_order = sorted(spans, key=lambda span: (span.start, span.order))
    question = question or _first(in_order, GENAI_QUESTION) or _first(in_order, GENAI_QUERY)
    answer = answer or _first(in_order[::-1], GENAI_ANSWER)
    if question is None:
        return Malformed(root.line, f"input.value of span {root.span_id}", "expected the question")
    if answer is None:
        return Skipped(place, "empty output")
    contexts: list[Any] = [context for found in hops for context in found]
    if not contexts:
        return Skipped(place, "the retriever returned no documents")
    if len(hops) > 1:
        contexts = [
            {**(context if isinstance(context, dict) else {"text": context}), "hop": hop}
            for hop, found in enumerate(hops, 1)
            for context in found
        ]
    metadata: dict[str, Any] = {"root_span_id": root.span_id, "root_span": str(root.line)}
    if root.get("name"):
        metadata["span_name"] = root.get("name")
    metadata.update(_span_metadata(root))
    fields: dict[str, Any] = {"question": question, "answer": answer, "contexts": contexts}
    tools = [span for span in in_order if span.kind == "TOOL"]
    if tools:
        fields["tools_called"] = [_tool_call(span) for span in tools]
    timestamp = root.get("start_time", "startTime")
    return Imported(
        place, fields, source_id=str(place.number), metadata=metadata, timestamp=timestamp
    )


def _tool_call(span: Span) -> dict[str, Any]:
    """A TOOL span as a call: its tool's name, its arguments and its result."""
    call: dict[str, Any] = {"name": str(span.get("tool.name", "name") or "tool")}
    arguments = _json_value(span.get("input.value"))
    if isinstance(arguments, Mapping):
        call["input_parameters"] = dict(arguments)
    elif arguments is not None:
        call["input_parameters"] = {"input": arguments}
    output = _json_value(span.get("output.value"))
    if output is not None:
        call["output"] = output
    if isinstance(span.get("tool.description"), str):
        call["description"] = span.get("tool.description")
    return call


def _json_value(value: object) -> object:
    """A span's input or output: the JSON value its text holds, else the text itself."""
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return None if value == "" else value


def _first(spans: list[Span], key: str) -> str | None:
    """The first non-empty text under ``key`` among ``spans``."""
    for span in spans:
        value = span.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _span_metadata(span: Span) -> dict[str, Any]:
    """The root span's session, user, tags and ``metadata`` (a JSON object, merged in)."""
    found: dict[str, Any] = {}
    for key in METADATA_ATTRIBUTES:
        if span.get(key) is not None:
            found[key] = span.get(key)
    tags = [value for key, value in span.attributes.items() if key.startswith("tag.tags.")]
    if tags:
        found["tag.tags"] = tags
    given = span.get("metadata")
    if isinstance(given, str) and given.strip().startswith("{"):
        try:
            given = json.loads(given)
        except json.JSONDecodeError:
            pass
    if isinstance(given, Mapping):
        found.update({str(key): value for key, value in given.items()})
    for key, value in span.attributes.items():
        if key.startswith("metadata."):
            found[key.removeprefix("metadata.")] = value
    return found


def _documents(span: Span) -> list[Any]:
    """The span's documents in rank order: texts, or ``{id, text}`` when they have ids."""
    documents: dict[int, dict[str, Any]] = {}
    for key, value in span.attributes.items():
        match = _DOCUMENT.fullmatch(key)
        if match:
            documents.setdefault(int(match[1]), {})[match[2]] = value
    texts: list[Any] = []
    for rank in sorted(documents):
        document = documents[rank]
        content = document.get("content")
        if not isinstance(content, str):
            raise Invalid(
                f"retrieval.documents.{rank}.document.content of span {span.span_id}",
                "expected text",
            )
        identifier = document.get("id")
        texts.append({"id": str(identifier), "text": content} if identifier else content)
    return texts
