"""LangSmith and Langfuse dataset exports: examples and items as JSON Lines or JSON.

LangSmith examples carry ``inputs`` (the question; pre-retrieved ``contexts`` or
``documents``), ``outputs`` (the reference) and ``metadata``; Langfuse items carry
``input``, ``expectedOutput`` and ``metadata``, and an ``ARCHIVED`` item is skipped. Either
side may be text or an object: an object's question is under ``question``, ``query``,
``input`` or ``user_input`` (or is its only text value), its reference under ``answer``,
``reference``, ``output``, ``expected_output``, ``ground_truth`` or ``expected``. The
source's own id becomes the case id.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .langfuse_traces import TraceGroups, is_observation, is_trace, trace_case
from .records import (
    Imported,
    Invalid,
    Malformed,
    Outcome,
    Place,
    Skipped,
    own_id,
    pick_text,
    text_list,
)
from .streaming import stream_records

__all__ = ["read_langfuse", "read_langsmith"]

QUESTION_KEYS = ("question", "query", "input", "user_input")
REFERENCE_KEYS = ("answer", "reference", "output", "expected_output", "ground_truth", "expected")
CONTEXT_KEYS = ("contexts", "context", "retrieved_contexts", "documents")
_LIST_KEYS = ("examples", "items", "data")


def _text(value: object, keys: tuple[str, ...], field: str, *, required: bool) -> str | None:
    """The text of ``value``: itself, one of ``keys`` of an object, or its only text value."""
    if isinstance(value, Mapping):
        key = next((key for key in keys if key in value), None)
        if key is None:
            texts = [key for key, item in value.items() if isinstance(item, str)]
            if len(texts) != 1:
                if required:
                    raise Invalid(field, f"expected text or an object with {keys[0]!r}")
                return None
            key = texts[0]
        return pick_text(value[key], f"{field}.{key}", required=required)
    return pick_text(value, field, required=required)


def _contexts(value: object, field: str) -> list[str]:
    if isinstance(value, Mapping):
        key = next((key for key in CONTEXT_KEYS if key in value), None)
        if key is not None:
            return text_list(value[key], f"{field}.{key}")
    return []


def _case(
    place: Place,
    record: object,
    names: tuple[str, str, str],
) -> Outcome:
    """A case from ``record``'s input, expected output and metadata fields (``names``)."""
    input_name, output_name, metadata_name = names
    if not isinstance(record, Mapping):
        return Malformed(place, "(record)", "expected an object")
    try:
        question = _text(record.get(input_name), QUESTION_KEYS, input_name, required=True)
        expected = record.get(output_name)
        reference = _text(expected, REFERENCE_KEYS, output_name, required=False)
        contexts = _contexts(record.get(input_name), input_name)
        wanted = _contexts(expected, output_name)
        extra = record.get(metadata_name)
        if extra is not None and not isinstance(extra, Mapping):
            raise Invalid(metadata_name, "expected an object")
    except Invalid as invalid:
        return Malformed(place, invalid.field, invalid.expected)
    fields: dict[str, Any] = {"question": question}
    if contexts:
        fields["contexts"] = contexts
    if reference:
        fields["reference"] = reference
    metadata: dict[str, Any] = dict(extra or {})
    if wanted:
        metadata["reference_contexts"] = wanted
    timestamp = record.get("created_at") or record.get("createdAt")
    return Imported(place, fields, source_id=own_id(record), metadata=metadata, timestamp=timestamp)


ANSWER_KEYS = ("answer", "output", "result", "response", "content")


def read_langsmith(path: Path) -> Iterator[Outcome]:
    """The cases of exported LangSmith dataset examples, or of runs.

    A record with a ``run_type`` is a run: a root run (no ``parent_run_id`` in the file)
    with its descendants, nested under ``child_runs`` or listed flat, is one case whose
    contexts are its ``retriever`` runs' ``outputs.documents``.
    """
    runs: list[tuple[Place, Mapping[str, Any]]] = []
    for place, record in stream_records(path, _LIST_KEYS):
        if isinstance(record, Mapping) and "run_type" in record:
            runs.append((place, record))
        else:
            yield _case(place, record, ("inputs", "outputs", "metadata"))
    yield from _run_trees(runs)


def _run_trees(runs: list[tuple[Place, Mapping[str, Any]]]) -> Iterator[Outcome]:
    ids = {str(run.get("id")) for _, run in runs}
    children: dict[str, list[Mapping[str, Any]]] = {}
    for _, run in runs:
        parent = run.get("parent_run_id")
        if parent is not None and str(parent) in ids:
            children.setdefault(str(parent), []).append(run)

    def descendants(run: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
        nested = run.get("child_runs") if isinstance(run.get("child_runs"), list) else []
        for child in [*(nested or []), *children.get(str(run.get("id")), [])]:
            if isinstance(child, Mapping):
                yield child
                yield from descendants(child)

    for place, run in runs:
        parent = run.get("parent_run_id")
        if parent is not None and str(parent) in ids:
            continue
        yield _run_case(place, run, list(descendants(run)))


def _run_case(place: Place, run: Mapping[str, Any], below: list[Mapping[str, Any]]) -> Outcome:
    failed = next((item for item in [run, *below] if item.get("error")), None)
    if failed is not None:
        first_line = str(failed.get("error")).splitlines()[0][:120]
        name = failed.get("name") or failed.get("id")
        return Skipped(place, f"run {name} failed: {first_line}", "a run failed")
    retrievers = [item for item in below if item.get("run_type") == "retriever"]
    if not retrievers:
        return Skipped(place, "no retriever run")
    retrievers.sort(key=lambda item: str(item.get("start_time") or ""))
    try:
        question = _text(run.get("inputs"), QUESTION_KEYS, "inputs", required=True)
        answer = _text(run.get("outputs"), ANSWER_KEYS, "outputs", required=False)
        contexts: list[str] = []
        for retriever in retrievers:
            outputs = retriever.get("outputs") or {}
            name = f"child run {retriever.get('id')} outputs.documents"
            documents = outputs.get("documents") if isinstance(outputs, Mapping) else None
            contexts.extend(text_list(documents, name))
    except Invalid as invalid:
        return Malformed(place, invalid.field, invalid.expected)
    if answer is None:
        return Skipped(place, "empty output")
    if not contexts:
        return Skipped(place, "the retriever returned no documents")
    fields = {"question": question, "answer": answer, "contexts": contexts}
    metadata = {key: run[key] for key in ("name", "trace_id") if run.get(key)}
    return Imported(
        place, fields, source_id=own_id(run), metadata=metadata, timestamp=run.get("start_time")
    )


def read_langfuse(path: Path) -> Iterator[Outcome]:
    """The cases of exported Langfuse dataset items or traces; archived items are skipped.

    A record with ``observations`` is a trace; records with a ``traceId`` and a ``type``
    are observations exported flat, gathered by trace with the trace records beside them
    (see :mod:`.langfuse_traces`).
    """
    groups = TraceGroups(str(path))
    for place, record in stream_records(path, _LIST_KEYS):
        if isinstance(record, Mapping) and is_trace(record):
            if not record.get("id"):
                yield Malformed(place, "id", "expected the trace id")
                continue
            trace = Place(str(path), "trace", str(record["id"]))
            yield trace_case(trace, record, list(record["observations"]))
            continue
        if isinstance(record, Mapping) and is_observation(record):
            groups.add_observation(record)
            continue
        if isinstance(record, Mapping) and _trace_header(record) and groups.add_trace(record):
            continue
        if isinstance(record, Mapping) and record.get("status") == "ARCHIVED":
            yield Skipped(place, "the dataset item is archived")
            continue
        outcome = _case(place, record, ("input", "expectedOutput", "metadata"))
        if isinstance(outcome, Imported) and isinstance(record, Mapping):
            for key in ("datasetId", "sourceTraceId"):
                if record.get(key):
                    outcome.metadata[key] = record[key]
        yield outcome
    yield from groups.cases()


def _trace_header(record: Mapping[str, Any]) -> bool:
    """A trace record without its observations (they follow flat), not a dataset item."""
    return "timestamp" in record and "datasetId" not in record and "expectedOutput" not in record
