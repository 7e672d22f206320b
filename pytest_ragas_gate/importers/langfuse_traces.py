"""Langfuse trace exports: one case per trace whose observations include a retriever.

A trace is read as the Langfuse API returns it — ``{"id", "timestamp", "input",
"output", "sessionId", "userId", "tags", "metadata", "observations": [...]}`` — or as
observations exported flat (each with its ``traceId``, beside or without their trace
records). The question is the trace's ``input`` (text, an object's ``question``/``query``/
``input`` member, or the last user message of a message list), the answer its ``output``
(else the root observation's). The retriever observations (``type: RETRIEVER``, or a name
that says ``retriev``), in ``startTime`` order, give the contexts: their ``output`` as a
list of texts or documents (``page_content``, ``content``, ``text``), or under
``documents`` (each one's ``hop``, when there are several, names the retriever that
returned it). The ``TOOL`` observations, in ``startTime`` order, give the case's
``tools_called``: their ``name``, ``input`` (an object's members are the arguments) and
``output``. A trace with an ``ERROR``-level observation, no retriever or an empty output
is skipped with the reason. The trace id is the case id.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .records import (
    Imported,
    Invalid,
    Malformed,
    Outcome,
    Place,
    Skipped,
    pick_text,
    text_list,
)
from .span_store import SpanStore

__all__ = ["is_observation", "is_trace", "trace_case", "TraceGroups"]

QUESTION_KEYS = ("question", "query", "input", "user_input")
ANSWER_KEYS = ("answer", "output", "response", "result", "content")
_DOCUMENT_KEYS = ("documents", "docs", "contexts", "results")


def is_trace(record: Mapping[str, Any]) -> bool:
    """A trace with its observations nested."""
    return isinstance(record.get("observations"), list)


def is_observation(record: Mapping[str, Any]) -> bool:
    """An observation exported on its own."""
    return bool(record.get("traceId")) and "type" in record and "expectedOutput" not in record


def _retriever(observation: Mapping[str, Any]) -> bool:
    kind = str(observation.get("type") or "").upper()
    return kind == "RETRIEVER" or "retriev" in str(observation.get("name") or "").lower()


def _message_text(value: object, keys: tuple[str, ...], role: str, field: str) -> str | None:
    """Text, an object's member named in ``keys``, or the last ``role`` message of a list."""
    if isinstance(value, list):
        for message in reversed(value):
            if isinstance(message, Mapping) and message.get("role") == role:
                return pick_text(message.get("content"), f"{field}[role={role}].content")
        return None
    if isinstance(value, Mapping):
        key = next((key for key in keys if isinstance(value.get(key), str)), None)
        if key is None:
            texts = [key for key, item in value.items() if isinstance(item, str)]
            if len(texts) != 1:
                raise Invalid(field, f"expected text or an object with {keys[0]!r}")
            key = texts[0]
        return pick_text(value[key], f"{field}.{key}")
    return pick_text(value, field)


def _documents(observation: Mapping[str, Any]) -> list[str]:
    output = observation.get("output")
    name = f"output of observation {observation.get('id')}"
    if isinstance(output, Mapping):
        key = next((key for key in _DOCUMENT_KEYS if key in output), None)
        if key is None:
            raise Invalid(name, f"expected a list of documents or one under {_DOCUMENT_KEYS[0]!r}")
        return text_list(output[key], f"{name}.{key}")
    return text_list(output, name)


def trace_case(
    place: Place, trace: Mapping[str, Any], observations: list[Mapping[str, Any]]
) -> Outcome:
    """The case of one trace (``trace`` may be empty when only observations were exported)."""
    failed = next((item for item in observations if item.get("level") == "ERROR"), None)
    if failed is not None:
        message = str(failed.get("statusMessage") or "").splitlines()[:1]
        detail = f": {message[0][:120]}" if message else ""
        return Skipped(
            place, f"observation {failed.get('id')} has level ERROR{detail}", "error status"
        )
    retrievers = sorted(
        (item for item in observations if _retriever(item)),
        key=lambda item: str(item.get("startTime") or ""),
    )
    if not retrievers:
        return Skipped(place, "no retriever observation")
    ids = {item.get("id") for item in observations}
    roots = [item for item in observations if item.get("parentObservationId") not in ids]
    root = min(roots, key=lambda item: str(item.get("startTime") or "")) if roots else {}
    try:
        question_source = trace.get("input") if trace.get("input") is not None else None
        field = "input"
        if question_source is None:
            question_source, field = root.get("input"), f"input of observation {root.get('id')}"
        question = _message_text(question_source, QUESTION_KEYS, "user", field)
        answer_source, field = trace.get("output"), "output"
        if answer_source is None:
            answer_source, field = root.get("output"), f"output of observation {root.get('id')}"
        answer = _message_text(answer_source, ANSWER_KEYS, "assistant", field)
        hops = [_documents(retriever) for retriever in retrievers]
    except Invalid as invalid:
        return Malformed(place, invalid.field, invalid.expected)
    contexts: list[Any] = [text for found in hops for text in found]
    if len(hops) > 1:
        contexts = [
            {"text": text, "hop": hop} for hop, found in enumerate(hops, 1) for text in found
        ]
    if question is None:
        return Malformed(place, "input", "expected the question")
    if answer is None:
        return Skipped(place, "empty output")
    if not contexts:
        return Skipped(place, "the retriever returned no documents")
    metadata: dict[str, Any] = {}
    if root.get("id"):
        # Where the gate's results attach when sent back (outputs.otel).
        metadata["root_span_id"] = str(root["id"])
    for key, name in (("name", "name"), ("sessionId", "session_id"), ("userId", "user_id")):
        if trace.get(key):
            metadata[name] = trace[key]
    if isinstance(trace.get("metadata"), Mapping):
        metadata.update(trace["metadata"])
    fields: dict[str, Any] = {"question": question, "answer": answer, "contexts": contexts}
    tools = sorted(
        (item for item in observations if str(item.get("type") or "").upper() == "TOOL"),
        key=lambda item: str(item.get("startTime") or ""),
    )
    if tools:
        fields["tools_called"] = [_tool_call(item) for item in tools]
    tags = trace.get("tags")
    if isinstance(tags, list) and all(isinstance(tag, str) for tag in tags) and tags:
        fields["tags"] = tags
    timestamp = trace.get("timestamp") or root.get("startTime")
    return Imported(
        place, fields, source_id=str(place.number), metadata=metadata, timestamp=timestamp
    )


def _tool_call(observation: Mapping[str, Any]) -> dict[str, Any]:
    """A TOOL observation as a call: its name, its input as arguments, its output."""
    call: dict[str, Any] = {"name": str(observation.get("name") or "tool")}
    given = observation.get("input")
    if isinstance(given, Mapping):
        call["input_parameters"] = {str(key): value for key, value in given.items()}
    elif given is not None:
        call["input_parameters"] = {"input": given}
    if observation.get("output") is not None:
        call["output"] = observation["output"]
    return call


class TraceGroups:
    """Observations exported flat, gathered by trace until the file is read.

    They wait in a :class:`~.span_store.SpanStore`, on disk once there are many, as the
    spans of a large trace export do.
    """

    def __init__(self, file: str) -> None:
        self.file = file
        self.store = SpanStore[tuple[bool, Mapping[str, Any]]]()

    def add_observation(self, record: Mapping[str, Any]) -> None:
        """Hold ``record`` with the other observations of its trace."""
        self.store.add(str(record["traceId"]), (False, record))

    def add_trace(self, record: Mapping[str, Any]) -> bool:
        """Hold a trace record whose observations may come flat; False if it has no id."""
        if not record.get("id"):
            return False
        self.store.add(str(record["id"]), (True, record))
        return True

    def cases(self) -> Iterator[Outcome]:
        """One outcome per trace that has observations (or a trace record) in the file."""
        for trace_id, records in self.store.groups():
            trace = next((record for is_trace, record in records if is_trace), {})
            observations = [record for is_trace, record in records if not is_trace]
            yield trace_case(Place(self.file, "trace", trace_id), trace, observations)
