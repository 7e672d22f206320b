"""DeepEval ``EvaluationDataset`` files: the JSON and CSV that ``dataset.save_as`` writes.

Each golden or test case has ``input`` (the question), ``actual_output`` (the answer),
``expected_output`` (the reference), ``retrieval_context`` (the retrieved chunks, in rank
order), ``context`` (the ideal context, kept as ``reference_contexts``) and
``additional_metadata``. A conversational golden or test case (``turns`` of ``{role,
content, retrieval_context}``) becomes a conversation case with those turns. In CSV, a
list column is a JSON array or texts joined by DeepEval's delimiter: ``save_as`` joins
with ``|`` (the default here), while DeepEval's CSV loaders default to ``;`` for
hand-made files (``--list-delimiter ';'``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path

from .records import (
    Imported,
    Invalid,
    Malformed,
    Outcome,
    Place,
    csv_rows,
    own_id,
    pick_text,
    text_list,
)
from .streaming import stream_records

__all__ = ["read_deepeval"]

_LIST_KEYS = ("goldens", "test_cases", "testCases", "cases")


def read_deepeval(path: Path, list_delimiter: str = "|") -> Iterator[Outcome]:
    """The cases of a DeepEval dataset file (``.json``, ``.jsonl`` or ``.csv``)."""
    if path.suffix.lower() == ".csv":
        for read in csv_rows(path):
            if isinstance(read, Malformed):
                yield read
                continue
            place, row = read
            yield _case(place, _from_csv(row, list_delimiter))
    else:
        for place, record in stream_records(path, _LIST_KEYS):
            if isinstance(record, Mapping):
                # save_as("jsonl") writes the list fields as texts joined with '|' too.
                record = {
                    key: _split(value, key, list_delimiter)
                    if key in _JOINED and isinstance(value, str)
                    else value
                    for key, value in record.items()
                }
            yield _case(place, record)


#: The list fields DeepEval's CSV and JSONL write as texts joined by a delimiter.
_JOINED = ("retrieval_context", "context")


def _split(cell: str, name: str, delimiter: str) -> object:
    text = cell.strip()
    if not text:
        return None
    if text.startswith("["):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass
    return [part.strip() for part in text.split(delimiter) if part.strip()]


def _from_csv(row: Mapping[str, str], delimiter: str) -> dict[str, object]:
    record: dict[str, object] = {key: value for key, value in row.items() if value != ""}
    for name in _JOINED:
        if name in row:
            record[name] = _split(row[name], name, delimiter)
    raw = row.get("additional_metadata", "").strip()
    if raw:
        try:
            record["additional_metadata"] = json.loads(raw)
        except json.JSONDecodeError:
            record["additional_metadata"] = raw
    return record


def _case(place: Place, record: object) -> Outcome:
    if not isinstance(record, Mapping):
        return Malformed(place, "(record)", f"expected an object, got {type(record).__name__}")
    if "input" not in record and isinstance(record.get("turns"), list):
        return _conversation(place, record, record["turns"])
    try:
        question = pick_text(record.get("input"), "input", required=True)
        fields: dict[str, object] = {"question": question}
        answer = pick_text(record.get("actual_output"), "actual_output")
        reference = pick_text(record.get("expected_output"), "expected_output")
        contexts = text_list(record.get("retrieval_context"), "retrieval_context")
        ideal = text_list(record.get("context"), "context")
        extra = record.get("additional_metadata")
        if extra is not None and not isinstance(extra, Mapping):
            raise Invalid("additional_metadata", f"expected an object, got {extra!r}")
    except Invalid as error:
        return Malformed(place, error.field, error.expected)
    if answer is not None:
        fields["answer"] = answer
    if contexts:
        fields["contexts"] = contexts
    if reference is not None:
        fields["reference"] = reference
    # Tool calls keep DeepEval's shape, which golden files read as it is (tool_calls.py).
    for key in ("tools_called", "expected_tools"):
        if isinstance(record.get(key), list):
            fields[key] = record[key]
    metadata: dict[str, object] = dict(extra or {})
    if ideal:
        metadata["reference_contexts"] = ideal
    for key in _KEPT:
        if record.get(key) not in (None, "", []):
            metadata[key] = record[key]
    return Imported(place, fields, source_id=own_id(record), metadata=metadata)


#: A ``ConversationalGolden`` / ``ConversationalTestCase``'s fields kept as metadata.
_CONVERSATION_METADATA = (
    "scenario",
    "expected_outcome",
    "chatbot_role",
    "user_description",
    "persona",
    "name",
    "comments",
)
#: A ``Turn``'s fields of tool calls, handed to the golden file for the loader to check.
_TURN_TOOLS = (
    "tools_called",
    "expected_tools",
    "max_steps",
    "mcp_tools_called",
    "mcp_resources_called",
    "mcp_prompts_called",
)
#: A ``Golden``'s fields kept as metadata.
_KEPT = ("name", "source_file", "comments")


def _conversation(place: Place, record: Mapping[str, object], turns: list[object]) -> Outcome:
    """A DeepEval conversational case: its ``turns`` as the golden file's ``turns``.

    The conversation's ``context`` is shared by its turns: each assistant turn gets it
    after its own retrieved contexts.
    """
    try:
        shared = text_list(record.get("context"), "context")
    except Invalid as error:
        return Malformed(place, error.field, error.expected)
    kept: list[dict[str, object]] = []
    for index, turn in enumerate(turns):
        if not isinstance(turn, Mapping):
            return Malformed(place, f"turns[{index}]", "expected an object {role, content}")
        role, content = turn.get("role"), turn.get("content")
        if role not in ("user", "assistant"):
            return Malformed(place, f"turns[{index}].role", "expected 'user' or 'assistant'")
        if not isinstance(content, str) or not content.strip():
            return Malformed(place, f"turns[{index}].content", "expected a non-empty string")
        entry: dict[str, object] = {"role": role, "content": content}
        try:
            contexts = text_list(turn.get("retrieval_context"), f"turns[{index}].retrieval_context")
        except Invalid as error:
            return Malformed(place, error.field, error.expected)
        if role == "assistant" and shared:
            contexts = [
                *(contexts or []),
                *(text for text in shared if text not in (contexts or [])),
            ]
        if contexts:
            entry["contexts"] = contexts
        # The turn's tool calls go to the golden file as they are, so the loader scores
        # them or names what it cannot read; none is dropped here unseen.
        entry.update({key: turn[key] for key in _TURN_TOOLS if turn.get(key) not in (None, [])})
        turn_metadata = turn.get("metadata")
        if isinstance(turn_metadata, Mapping) and turn_metadata.get("expected_tools"):
            entry.setdefault("expected_tools", turn_metadata["expected_tools"])
        kept.append(entry)
    if not kept:
        return Malformed(place, "turns", "expected a non-empty list of turns")
    metadata = {
        key: record[key] for key in _CONVERSATION_METADATA if record.get(key) not in (None, "")
    }
    extra = record.get("additional_metadata")
    if isinstance(extra, Mapping):
        metadata.update(extra)
    return Imported(place, {"turns": kept}, source_id=own_id(record), metadata=metadata)
