"""OpenInference spans (Phoenix exports, JSON Lines or JSON) grouped into one case per trace.

A span is read flat or nested: ``{"context": {"trace_id": …, "span_id": …}, "parent_id":
…, "attributes": {"input.value": …}}``, the nested ``attributes`` of Phoenix's JSON, or the
columns of ``get_spans_dataframe().to_json(orient="records", lines=True)``
(``context.trace_id``, ``attributes.retrieval.documents`` …). Spans are grouped by trace id;
the root span (no parent in the trace) gives the question (``input.value``) and the answer
(``output.value``; a JSON value gives its ``query``/``question``/``input`` or
``answer``/``output``/``response`` member), and the ``RETRIEVER`` spans, in start order,
give the contexts from ``retrieval.documents.N.document.content`` (and ``…id``) in rank
order. The trace id is the case id. A trace with no root or retriever span, an error
status or an empty output is skipped with the reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .records import Imported, Invalid, Malformed, Outcome, Place, Skipped, json_records

__all__ = ["flatten", "read_openinference"]

_DOCUMENT = re.compile(r"retrieval\.documents\.(\d+)\.document\.(content|id|score)")
QUESTION_KEYS = ("query", "question", "input", "user_input")
ANSWER_KEYS = ("answer", "output", "response", "result", "content")
_LIST_KEYS = ("spans", "data")


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
class _Span:
    line: Place
    order: int
    attributes: dict[str, Any]

    def get(self, *keys: str) -> Any:
        return next((self.attributes[k] for k in keys if k in self.attributes), None)

    @property
    def span_id(self) -> str:
        return str(self.get("context.span_id", "span_id") or f"#{self.order}")

    @property
    def kind(self) -> str:
        return str(self.get("openinference.span.kind", "span_kind") or "").upper()

    @property
    def start(self) -> tuple[int, float, str]:
        started = self.get("start_time", "startTime")
        if isinstance(started, int | float):
            return (0, float(started), "")
        return (1, 0.0, str(started or ""))


def read_openinference(path: Path) -> Iterator[Outcome]:
    """One case per trace of a span export."""
    traces: dict[str, list[_Span]] = {}
    for order, (place, record) in enumerate(json_records(path, _LIST_KEYS)):
        if not isinstance(record, Mapping):
            yield Malformed(place, "(span)", "expected an object")
            continue
        span = _Span(place, order, flatten(record))
        trace_id = span.get("context.trace_id", "trace_id", "traceId")
        if not isinstance(trace_id, str) or not trace_id:
            yield Malformed(place, "context.trace_id", "expected the span's trace id")
            continue
        traces.setdefault(trace_id, []).append(span)
    for trace_id, spans in traces.items():
        yield _trace(Place(str(path), "trace", trace_id), spans)


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


def _trace(place: Place, spans: list[_Span]) -> Outcome:
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
        return Skipped(place, f"error status on span {failed.span_id}")
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
        contexts: list[Any] = []
        for retriever in retrievers:
            contexts.extend(_documents(retriever))
    except Invalid as invalid:
        return Malformed(root.line, invalid.field, invalid.expected)
    if question is None:
        return Malformed(root.line, f"input.value of span {root.span_id}", "expected the question")
    if answer is None:
        return Skipped(place, "empty output")
    if not contexts:
        return Skipped(place, "the retriever returned no documents")
    metadata = {"root_span_id": root.span_id, "root_span": str(root.line)}
    if root.get("name"):
        metadata["span_name"] = root.get("name")
    fields = {"question": question, "answer": answer, "contexts": contexts}
    return Imported(place, fields, source_id=str(place.number), metadata=metadata)


def _documents(span: _Span) -> list[Any]:
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
