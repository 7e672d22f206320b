"""The fields other evaluation tools save in their datasets, so their files load unchanged.

DeepEval's ``EvaluationDataset.save_as`` writes every field of a ``Golden`` or
``ConversationalGolden``, most of them null; RAGAS's ``EvaluationDataset.to_jsonl`` /
``to_csv`` write every field of its samples. A field these tools define is never an
unknown key of a golden row: null or empty it is left out, otherwise it is kept in the
case's metadata (unless :mod:`.golden_fields` reads it as a golden field, such as
``retrieval_context`` or ``expected_output``).

>>> is_peer_field("expected_tools"), is_peer_field("expected_tool"), is_peer_field("Scenario")
(True, False, True)
>>> is_empty(None), is_empty("  "), is_empty([]), is_empty({}), is_empty(0)
(True, True, True, True, False)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "CONVERSATION_FIELDS",
    "is_conversational_golden",
    "carries_nothing",
    "is_empty",
    "is_peer_field",
]

#: DeepEval's ``Golden`` (4.x), besides the fields read as golden fields.
_DEEPEVAL_GOLDEN = (
    "context",
    "additional_metadata",
    "comments",
    "tools_called",
    "expected_tools",
    "source_file",
    "name",
    "custom_column_key_values",
    "token_cost",
    "input_token_count",
    "output_token_count",
    "expectations",
    "expected_labels",
    "multimodal",
    "images_mapping",
)
#: DeepEval's ``ConversationalGolden`` (4.x): a scenario to simulate, or turns to gate.
CONVERSATION_FIELDS = ("scenario", "expected_outcome", "user_description", "chatbot_role")
_DEEPEVAL_CONVERSATIONAL = (*CONVERSATION_FIELDS, "persona", "context", "turns")
#: RAGAS's ``SingleTurnSample`` and ``MultiTurnSample`` (0.3 and later).
_RAGAS_SAMPLES = (
    "retrieved_context_ids",
    "reference_contexts",
    "reference_context_ids",
    "multi_responses",
    "rubrics",
    "persona_name",
    "query_style",
    "query_length",
    "synthesizer_name",
    "reference_topics",
)
_PEER_FIELDS = frozenset((*_DEEPEVAL_GOLDEN, *_DEEPEVAL_CONVERSATIONAL, *_RAGAS_SAMPLES))


def is_peer_field(name: str) -> bool:
    """Whether ``name`` is a field DeepEval or RAGAS saves (ignoring case and spaces)."""
    return name.strip().lower() in _PEER_FIELDS


def is_conversational_golden(keys: Iterable[object]) -> bool:
    """Whether a row with ``keys`` is DeepEval's ``ConversationalGolden``.

    >>> is_conversational_golden(["scenario", "turns"]), is_conversational_golden(["turns"])
    (True, False)
    """
    names = {str(key).strip().lower() for key in keys}
    return bool(names & set(CONVERSATION_FIELDS))


#: Fields whose empty list is data: ``reference_contexts: []`` marks an unanswerable case.
_EMPTY_IS_DATA = frozenset(("reference_contexts",))


def carries_nothing(name: str, value: Any) -> bool:
    """Whether a peer's field ``name`` holding ``value`` may be left out of a case.

    >>> carries_nothing("comments", None), carries_nothing("reference_contexts", [])
    (True, False)
    >>> carries_nothing("reference_contexts", None)
    True
    """
    if name.strip().lower() in _EMPTY_IS_DATA:
        return value is None
    return is_empty(value)


def is_empty(value: Any) -> bool:
    """Whether a saved field holds nothing: null, blank text, an empty list or mapping."""
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, list | Mapping):
        return not value
    return False
