"""Turn raw golden rows into golden cases: field names, aliases, types and per-case problems.

A row is what a golden file holds for one case, read by :mod:`.golden_formats` with the line
where it starts. This module owns the vocabulary of golden fields (``question``, ``answer``,
``contexts`` … and the aliases people already use, matched ignoring case) and checks each
field's type, so a malformed case becomes a :class:`CaseProblem` naming its file, line and
field while the other cases of the file still load.

>>> cases, problems = validate_rows(
...     "golden.jsonl",
...     [RawCase(1, {"user_input": "Who founded Apple?", "response": "Steve Jobs"}),
...      RawCase(2, {"question": "Q?", "contexts": "one chunk"})],
... )
>>> [(case.id, case.answer) for case in cases]
[('q-b3f475fb53', 'Steve Jobs')]
>>> print(problems[0].message)
golden.jsonl:2: field 'contexts': expected a list of strings or {id, text} objects, got str
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pydantic import ValidationError

from ..config_values import check_number, read_threshold
from ..exceptions import CaseError
from ..text_safety import lone_surrogate_problem, texts_in
from .cases import LABEL_SAMPLINGS, Context, GoldenCase, stable_case_id
from .conversations import (
    derived_conversation_id,
    is_conversation,
    read_turns,
    split_conversation,
    tool_levels_problem,
)
from .peer_fields import (
    CONVERSATION_FIELDS,
    carries_nothing,
    is_conversational_golden,
    is_peer_field,
)
from .tool_calls import ExpectedTool, expected_tool_list, tool_call_list

__all__ = [
    "FIELD_ALIASES",
    "MAX_FIELD_CHARS",
    "CaseProblem",
    "RawCase",
    "is_deepeval_row",
    "read_as_metadata",
    "salvage",
    "validate_rows",
]

#: Each golden field and the column names accepted for it (matched ignoring case).
FIELD_ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("id",),
    "question": ("question", "user_input", "query", "input"),
    "answer": ("answer", "response", "actual_output"),
    "contexts": ("contexts", "retrieved_contexts", "retrieval_context"),
    "reference": ("reference", "ground_truth", "ground_truths", "expected_output"),
    "relevant_context_ids": ("relevant_context_ids", "reference_context_ids"),
    "tags": ("tags",),
    "thresholds": ("thresholds",),
    "human": ("human", "human_labels"),
    "turns": ("turns",),
    "tools_called": ("tools_called",),
    # RAGAS's MultiTurnSample names the expected calls of a conversation so.
    "expected_tools": ("expected_tools", "reference_tool_calls"),
    "max_steps": ("max_steps",),
}
_FIELD_OF_NAME: dict[str, str] = {
    alias: name for name, aliases in FIELD_ALIASES.items() for alias in aliases
}
_CONTEXT_TEXT_KEYS = ("text", "content", "page_content")
#: A DeepEval ``ConversationalGolden``'s ``context``: contexts every exchange shares.
_SHARED_CONTEXTS = "conversation_contexts"

#: DeepEval's own names of golden fields (``LLMTestCase`` / ``Golden``, and a
#: ``ConversationalGolden``'s scenario fields): a row that uses one is a DeepEval test case.
_DEEPEVAL_FIELDS = frozenset(
    {"input", "actual_output", "expected_output", "retrieval_context", *CONVERSATION_FIELDS}
)
#: DeepEval's list fields that its JSONL and CSV files write as texts joined by ``|``.
_DEEPEVAL_JOINED = frozenset({"retrieval_context", "context"})
DEEPEVAL_LIST_DELIMITER = "|"
#: DeepEval's ``additional_metadata`` is merged into the metadata, as ``metadata`` is.
_METADATA_MAPPINGS = frozenset({"metadata", "additional_metadata"})


def is_deepeval_row(keys: Iterable[object]) -> bool:
    """Whether a row names a field the way DeepEval does.

    In such a row ``context`` is DeepEval's ideal context (what should have been retrieved),
    kept as ``reference_contexts``; elsewhere it is most likely a misspelt ``contexts``.

    >>> is_deepeval_row(["input", "context"]), is_deepeval_row(["question", "context"])
    (True, False)
    """
    return any(str(key).strip().lower() in _DEEPEVAL_FIELDS for key in keys)


def read_as_metadata(key: str, keys: Iterable[object]) -> bool:
    """Whether ``key`` of a row with ``keys`` is a known field of another tool (DeepEval, RAGAS).

    >>> read_as_metadata("context", ["input"]), read_as_metadata("context", ["question"])
    (True, False)
    >>> read_as_metadata("token_cost", ["question"])
    True
    """
    name = key.strip().lower()
    if name == "context":
        return is_deepeval_row(keys)
    return is_peer_field(name)


#: What an id not given was derived from, as the message about a duplicate says it.
_FROM_QUESTION = "the question"
_FROM_TURNS = "its turns"

#: The longest text a golden field may hold (a question, an answer, one context …).
MAX_FIELD_CHARS = 1_000_000


def canonical_field(name: str) -> str | None:
    """The golden field a column name stands for, or None for a metadata column.

    >>> canonical_field(" User_Input "), canonical_field("source")
    ('question', None)
    """
    return _FIELD_OF_NAME.get(name.strip().lower())


@dataclass(frozen=True)
class CaseProblem:
    """One malformed case; the other cases of its file still load.

    Attributes:
        file: The file's path as displayed in messages.
        line: The 1-based line where the case starts.
        case_id: The case's id when it could be determined, else None.
        message: A full sentence starting with ``path:line:`` that names the field at fault
            and what was expected.
    """

    file: str
    line: int
    case_id: str | None
    message: str
    #: What the row held that reads as it was written (question, answer, contexts, tags),
    #: so the reports show the malformed case with every field it had.
    salvaged: dict[str, Any] = field(default_factory=dict)
    #: The case's place in its list when other cases share its line (see ``RawCase``).
    item: int | None = None

    def __str__(self) -> str:
        return self.message

    @property
    def label(self) -> str:
        """The case's id, or ``line-N`` when it has none: how items and reports name it."""
        if self.case_id:
            return self.case_id
        return f"item-{self.item}" if self.item else f"line-{self.line}"

    def as_error(self) -> CaseError:
        """The problem as the exception an errored case item raises."""
        return CaseError(self.message)


@dataclass
class RawCase:
    """A case as read from the file, before validation.

    ``errors`` holds problems already found while reading (a JSONL line that is not JSON,
    a CSV cell that is not a JSON array); they are reported with the field checks.
    """

    line: int
    value: Any
    errors: list[str] = field(default_factory=list)
    #: The case's 1-based place in its list, when other cases start on the same line.
    item: int | None = None

    def where(self, shown: str) -> str:
        """``golden.json:3``, or ``golden.json:1 (item 2)`` when the line is shared."""
        return f"{shown}:{self.line}" + (f" (item {self.item})" if self.item else "")


def salvage(value: Any) -> dict[str, Any]:
    """The fields of a malformed row that read as text, by their golden names.

    A question, an answer and a reference are kept when they are text; contexts and tags
    when they are a list of text (a context given as ``{"text": …}`` keeps its text). What
    does not read so is left out: the error message already says what is wrong with it.

    >>> salvage({"Question": "Why?", "answer": 3, "tags": ["a", "b"], "contexts": [{"text": "c"}]})
    {'question': 'Why?', 'tags': ['a', 'b'], 'contexts': ['c']}
    """
    if not isinstance(value, dict):
        return {}
    kept: dict[str, Any] = {}
    for key, item in value.items():
        name = canonical_field(str(key))
        if name in ("question", "answer", "reference") and isinstance(item, str):
            kept[name] = item
        elif name in ("contexts", "tags") and isinstance(item, list):
            texts = [
                entry
                if isinstance(entry, str)
                else next(
                    (entry[k] for k in _CONTEXT_TEXT_KEYS if isinstance(entry.get(k), str)), None
                )
                if isinstance(entry, dict)
                else None
                for entry in item
            ]
            if texts and all(isinstance(text, str) for text in texts):
                kept[name] = texts
    return kept


def validate_rows(shown: str, rows: list[RawCase]) -> tuple[list[GoldenCase], list[CaseProblem]]:
    """Validate the rows of one golden file.

    Args:
        shown: The file's path as displayed in messages and in ``GoldenCase.file``.
        rows: The file's rows in file order.

    Returns:
        The valid cases and the problems of the malformed ones, both in file order; ids are
        unique among the valid cases.
    """
    cases: list[GoldenCase] = []
    problems: list[CaseProblem] = []
    first_line_of_id: dict[str, int] = {}
    for raw in rows:
        errors = list(raw.errors)
        built, case_id, derived = _build_case(shown, raw, errors)
        # A conversation's exchanges (``id#n``) must not clash with another row's ids.
        for turn in built or []:
            if turn.conversation is not None and turn.id in first_line_of_id:
                errors.append(
                    f"field 'id': the turn id {turn.id!r} is taken "
                    f"(first at {shown}:{first_line_of_id[turn.id]}); ids must be unique "
                    "within a file"
                )
        if case_id is not None:
            if case_id in first_line_of_id:
                origin = f" derived from {derived}" if derived else ""
                advice = {
                    None: "; ids must be unique within a file",
                    _FROM_QUESTION: "; two cases ask the same question, so give them distinct "
                    "'id's",
                    _FROM_TURNS: "; two conversations have the same turns, so give them "
                    "distinct 'id's",
                }[derived]
                errors.append(
                    f"field 'id': duplicate id {case_id!r}{origin} "
                    f"(first at {shown}:{first_line_of_id[case_id]}){advice}"
                )
            else:
                first_line_of_id[case_id] = raw.line
        if errors or built is None:
            message = f"{raw.where(shown)}: " + "; ".join(errors)
            problems.append(
                CaseProblem(shown, raw.line, case_id, message, salvage(raw.value), raw.item)
            )
        else:
            for turn in built:
                first_line_of_id.setdefault(turn.id, raw.line)
            cases.extend(built)
    return cases, problems


def _build_case(
    shown: str, raw: RawCase, errors: list[str]
) -> tuple[list[GoldenCase] | None, str | None, str | None]:
    """Validate one raw case, appending what is wrong to ``errors``.

    Returns:
        The case, or a conversation's exchanges (None when it is invalid), its id when
        known, and what that id was derived from (:data:`_FROM_QUESTION`,
        :data:`_FROM_TURNS`), None when given.
    """
    if raw.value is None and errors:
        return None, None, None
    if not isinstance(raw.value, Mapping):
        errors.append(f"expected an object with a 'question' field, got {kind_of(raw.value)}")
        return None, None, None
    given, metadata, unreadable = _sort_fields(raw.value, errors)

    def convert(canonical: str, converter: Callable[[str, Any, list[str]], Any]) -> Any:
        if canonical in unreadable:
            return None
        name, value = given.get(canonical, (canonical, None))
        if _holds_nul(value):
            errors.append(f"field {name!r}: {nul_message('its text')}")
            return None
        longest = _longest_text(value)
        if longest > MAX_FIELD_CHARS:
            errors.append(
                f"field {name!r}: a text of {longest:,} characters, over the limit of "
                f"{MAX_FIELD_CHARS:,} per field; no judge reads that much in one request, so "
                "trim it to the part the RAG system actually produced or retrieved"
            )
            return None
        return converter(name, value, errors)

    if is_conversation(given):
        return _build_conversation(shown, raw, given, metadata, errors, convert)
    if "question" not in given and is_conversational_golden(raw.value):
        errors.append(
            "field 'turns': a DeepEval conversational golden without turns is a scenario for "
            "DeepEval's simulator, with nothing to score; give it the conversation's turns"
        )
        return None, None, None
    question = convert("question", _question)
    explicit_id = convert("id", _case_id)
    case_id: str | None = explicit_id
    derived: str | None = None
    if "id" not in given and "id" not in unreadable and question is not None:
        case_id, derived = stable_case_id(question), _FROM_QUESTION
    fields = {
        "answer": convert("answer", _answer),
        "contexts": convert("contexts", _contexts),
        "reference": convert("reference", _reference),
        "relevant_context_ids": convert("relevant_context_ids", _id_list),
        "tags": convert("tags", _tags),
        "thresholds": convert("thresholds", _thresholds),
        "human": convert("human", human_labels),
        "tools_called": convert("tools_called", tool_call_list),
        "expected_tools": convert("expected_tools", expected_tool_list),
        "max_steps": convert("max_steps", _max_steps),
    }
    _check_review(metadata, errors)
    _check_sampled_by(metadata, errors)
    if errors or question is None or case_id is None:
        return None, case_id, derived
    if fields["max_steps"] is not None:
        # A step budget is a case threshold of the max_steps metric (met: 1, broken: 0).
        fields["thresholds"] = {"max_steps": 1.0, **fields["thresholds"]}
    try:
        case = GoldenCase(
            id=case_id,
            question=question,
            metadata=metadata,
            file=shown,
            line=raw.line,
            **fields,
        )
    except ValidationError as error:
        errors.append(f"the case is invalid: {error}")
        return None, case_id, derived
    return [case], case_id, derived


def _build_conversation(
    shown: str,
    raw: RawCase,
    given: dict[str, tuple[str, Any]],
    metadata: dict[str, Any],
    errors: list[str],
    convert: Callable[[str, Callable[[str, Any, list[str]], Any]], Any],
) -> tuple[list[GoldenCase] | None, str | None, str | None]:
    """A conversation row (see :mod:`.conversations`): one case per exchange."""
    turns_key = "turns" if "turns" in given else "question"
    single: list[str] = [key for key in ("answer", "contexts") if key in given]
    if turns_key == "turns" and "question" in given:
        single.insert(0, "question")
    if single:
        errors.append(
            f"field {given[single[0]][0]!r}: a conversation row holds its turns in "
            f"{given[turns_key][0]!r}; move the question, answer and contexts into its turns"
        )
    if "tools_called" in given:
        errors.append(
            f"field {given['tools_called'][0]!r}: a conversation's tool calls are made by its "
            f"assistant turns; give each turn's calls as '{given[turns_key][0]}[i].tools_called' "
            "(RAGAS: an ai message's tool_calls)"
        )
    name, value = given[turns_key]
    turns = read_turns(
        name, value, errors, contexts=_contexts, reference=_reference, steps=_max_steps
    )
    expected, whole = _conversation_expectations(given, metadata, errors, convert)
    max_steps = convert("max_steps", _max_steps)
    if max_steps is not None:
        whole = whole or given["max_steps"][0]
    if turns is not None:
        problem = tool_levels_problem(name, turns, whole)
        if problem is not None:
            errors.append(problem)
    explicit_id = convert("id", _case_id)
    derived = _FROM_TURNS if "id" not in given and turns else None
    case_id = derived_conversation_id(value) if derived else explicit_id
    common = {
        "tags": convert("tags", _tags),
        "thresholds": convert("thresholds", _thresholds),
        "human": convert("human", human_labels),
        "metadata": metadata,
        "file": shown,
        "line": raw.line,
    }
    reference = convert("reference", _reference)
    shared = convert(_SHARED_CONTEXTS, _contexts)
    _check_review(metadata, errors)
    _check_sampled_by(metadata, errors)
    if errors or turns is None or case_id is None:
        return None, case_id, derived
    try:
        cases = split_conversation(
            case_id,
            turns,
            reference=reference,
            common=common,
            shared_contexts=shared,
            expected_tools=expected,
            max_steps=max_steps,
        )
    except ValidationError as error:
        errors.append(f"the conversation is invalid: {error}")
        return None, case_id, derived
    return cases, case_id, derived


def _conversation_expectations(
    given: dict[str, tuple[str, Any]],
    metadata: dict[str, Any],
    errors: list[str],
    convert: Callable[[str, Callable[[str, Any, list[str]], Any]], Any],
) -> tuple[list[ExpectedTool] | None, str | None]:
    """The calls a whole conversation should make, and the field that gave them.

    ``expected_tools`` or RAGAS's ``reference_tool_calls`` (compared argument by argument,
    as RAGAS does: ``subset``); a DeepEval conversational golden, which has no field for
    them, saves them in its ``additional_metadata``.
    """
    if "expected_tools" in given:
        name = given["expected_tools"][0]
        ragas = name.strip().lower() == "reference_tool_calls"
        expected = convert(
            "expected_tools",
            partial(expected_tool_list, default_match="subset" if ragas else "exact"),
        )
        return expected, name
    if metadata.get("expected_tools") is not None:
        name = "additional_metadata.expected_tools"
        return expected_tool_list(name, metadata.pop("expected_tools"), errors), name
    return None, None


def _sort_fields(
    row: Mapping[Any, Any], errors: list[str]
) -> tuple[dict[str, tuple[str, Any]], dict[str, Any], set[str]]:
    """Sort a row's fields into golden fields and metadata, appending what is wrong.

    Returns:
        The golden fields given, each as its canonical name to the name it was given under
        and its value; the metadata; and the canonical names of golden fields left out
        because their text is not valid Unicode (so they are not also reported missing).
    """
    given: dict[str, tuple[str, Any]] = {}
    metadata: dict[str, Any] = {}
    unreadable: set[str] = set()
    deepeval = is_deepeval_row(row)
    conversational = deepeval and ("turns" in row or is_conversational_golden(row))
    ideal_context: tuple[str, Any] | None = None
    for key, value in row.items():
        name = str(key)
        canonical = canonical_field(name)
        if deepeval and isinstance(value, str) and name.strip().lower() in _DEEPEVAL_JOINED:
            value = [part for part in value.split(DEEPEVAL_LIST_DELIMITER) if part.strip()]
        problem = lone_surrogate_problem(name, in_name=True) or lone_surrogate_problem(value)
        if problem is not None:
            errors.append(f"field {name!r}: {problem}")
            if canonical is not None:
                unreadable.add(canonical)
            continue
        if canonical is None:
            if is_peer_field(name) and carries_nothing(name, value):
                # DeepEval saves every field of a golden, most of them null.
                continue
            if name.strip().lower() in _METADATA_MAPPINGS and isinstance(value, Mapping):
                metadata.update({str(inner): item for inner, item in value.items()})
            elif conversational and name.strip().lower() == "context":
                given[_SHARED_CONTEXTS] = (name, value)
            elif deepeval and name.strip().lower() == "context":
                ideal_context = (name, value)
            else:
                metadata[name] = value
            continue
        if value is None:
            continue
        if canonical in given:
            errors.append(
                f"field {canonical!r}: given twice, as {given[canonical][0]!r} and {name!r}; "
                "keep one of them"
            )
            continue
        given[canonical] = (name, value)
    if ideal_context is not None:
        _ideal_context(*ideal_context, metadata, errors)
    return given, metadata, unreadable


def _ideal_context(name: str, value: Any, metadata: dict[str, Any], errors: list[str]) -> None:
    """DeepEval's ``context`` (a list of texts) as the case's ``reference_contexts``."""
    if value is None:
        return
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        errors.append(
            f"field {name!r}: DeepEval's ideal context, expected a list of strings, got "
            f"{kind_of(value)}"
        )
        return
    if "reference_contexts" in metadata:
        errors.append(
            f"field {name!r}: DeepEval's ideal context and 'reference_contexts' are both "
            "given; keep one of them"
        )
        return
    metadata["reference_contexts"] = value


#: A generated case's review state (``rag-gate synth``); the gate skips rejected cases.
REVIEW_STATES = ("pending", "accepted", "rejected")


def _check_review(metadata: dict[str, Any], errors: list[str]) -> None:
    """``review`` names a review state; it stays in the metadata, lowercased."""
    if "review" not in metadata:
        return
    value = metadata["review"]
    if isinstance(value, str) and value.strip().lower() in REVIEW_STATES:
        metadata["review"] = value.strip().lower()
        return
    errors.append(
        f"field 'review': expected one of {', '.join(REVIEW_STATES)}, got {_describe(value)}"
    )


def _check_sampled_by(metadata: dict[str, Any], errors: list[str]) -> None:
    """``sampled_by`` says how the case was picked for labelling; it stays in the metadata."""
    value = metadata.get("sampled_by")
    if value is None or value == "":
        metadata.pop("sampled_by", None)
        return
    if isinstance(value, str) and value.strip().lower() in LABEL_SAMPLINGS:
        metadata["sampled_by"] = value.strip().lower()
        return
    errors.append(
        f"field 'sampled_by': expected one of {', '.join(LABEL_SAMPLINGS)} (how the case "
        f"was picked for labelling), got {_describe(value)}"
    )


def nul_message(where: str) -> str:
    """The problem of a NUL byte found in ``where`` (a column, a field's text)."""
    return (
        f"a NUL byte (\\x00) in {where}; the file is corrupt or not UTF-8 text, so remove "
        "the byte or save the file as UTF-8"
    )


def _longest_text(value: Any) -> int:
    if isinstance(value, str):  # most fields: no walk
        return len(value)
    return max((len(text) for text in texts_in(value)), default=0)


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    return any("\x00" in text for text in texts_in(value))


def _question(name: str, value: Any, errors: list[str]) -> str | None:
    if value is None:
        errors.append(
            "field 'question' is required (a non-empty string; also accepted as "
            "'user_input', 'query' or 'input')"
        )
        return None
    if not isinstance(value, str):
        errors.append(f"field {name!r}: expected a non-empty string, got {kind_of(value)}")
        return None
    if not value.strip():
        errors.append(f"field {name!r}: expected a non-empty string, got an empty string")
        return None
    return value


def _case_id(name: str, value: Any, errors: list[str]) -> str | None:
    if value is None:
        return None
    if _is_number(value):
        return str(value)
    if not isinstance(value, str):
        errors.append(f"field {name!r}: expected a string or a number, got {_describe(value)}")
        return None
    if not value.strip():
        errors.append(f"field {name!r}: expected a non-empty id, got an empty string")
        return None
    return value.strip()


def _text(name: str, value: Any, errors: list[str]) -> str | None:
    if value is None or isinstance(value, str):
        return value
    errors.append(f"field {name!r}: expected a string, got {kind_of(value)}")
    return None


def _answer(name: str, value: Any, errors: list[str]) -> str | None:
    """The system's answer; given but empty it is an error, as a live target's empty one is.

    An empty answer is no answer to score, and counted as a missing field it would leave
    the case unscored without a word. A case a live target answers leaves it out (or null).
    """
    text = _text(name, value, errors)
    if text is not None and not text.strip():
        errors.append(
            f"field {name!r}: expected the system's answer as non-empty text, got "
            f"{'an empty string' if not text else 'only whitespace'}; the answer-based "
            "metrics cannot score nothing (leave the field out, or null, for a case a live "
            "target answers)"
        )
        return None
    return text


def _contexts(name: str, value: Any, errors: list[str]) -> list[Context] | None:
    if value is None:
        return None
    expected = "expected a list of strings or {id, text} objects"
    if not isinstance(value, list):
        errors.append(f"field {name!r}: {expected}, got {kind_of(value)}")
        return None
    contexts: list[Context] = []
    for number, item in enumerate(value, 1):
        if isinstance(item, str):
            contexts.append(Context(text=item))
            continue
        if not isinstance(item, Mapping):
            errors.append(f"field {name!r}: {expected}, got {kind_of(item)} as item {number}")
            return None
        text_keys = [key for key in _CONTEXT_TEXT_KEYS if item.get(key) is not None]
        if len(text_keys) != 1:
            found = "none" if not text_keys else " and ".join(repr(key) for key in text_keys)
            errors.append(
                f"field {name!r}: item {number} needs exactly one of 'text', 'content' or "
                f"'page_content', found {found}"
            )
            return None
        text = item[text_keys[0]]
        if not isinstance(text, str):
            errors.append(
                f"field {name!r}: item {number}: {text_keys[0]!r} expected a string, "
                f"got {kind_of(text)}"
            )
            return None
        context_id = item.get("id")
        if context_id is not None and not _is_number(context_id):
            if not isinstance(context_id, str) or not context_id.strip():
                errors.append(
                    f"field {name!r}: item {number}: 'id' expected a non-empty string or a "
                    f"number, got {_describe(context_id)}"
                )
                return None
        hop = item.get("hop")
        if hop is not None and (isinstance(hop, bool) or not isinstance(hop, int) or hop < 1):
            errors.append(
                f"field {name!r}: item {number}: 'hop' expected the 1-based number of the "
                f"retrieval call that returned it, got {_describe(hop)}"
            )
            return None
        contexts.append(
            Context(id=None if context_id is None else str(context_id), text=text, hop=hop)
        )
    return contexts


def _max_steps(name: str, value: Any, errors: list[str]) -> int | None:
    """The most tool calls the case may make: a whole number, 0 or more."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        errors.append(
            f"field {name!r}: expected the most tool calls the case may make (a whole number, "
            f"0 or more), got {_describe(value)}"
        )
        return None
    return value


def _reference(name: str, value: Any, errors: list[str]) -> str | None:
    if value is None or isinstance(value, str):
        return value
    expected = "expected a string or a list of strings"
    if not isinstance(value, list):
        errors.append(f"field {name!r}: {expected}, got {kind_of(value)}")
        return None
    for number, item in enumerate(value, 1):
        if not isinstance(item, str):
            errors.append(f"field {name!r}: {expected}, got {kind_of(item)} as item {number}")
            return None
    return "\n".join(value) if value else None


def _id_list(name: str, value: Any, errors: list[str]) -> list[str] | None:
    if value is None:
        return None
    expected = "expected a list of context ids (non-empty strings or numbers)"
    if not isinstance(value, list):
        errors.append(f"field {name!r}: {expected}, got {kind_of(value)}")
        return None
    for number, item in enumerate(value, 1):
        if not (_is_number(item) or (isinstance(item, str) and item.strip())):
            errors.append(f"field {name!r}: {expected}, got {_describe(item)} as item {number}")
            return None
    return [str(item) for item in value]


def _tags(name: str, value: Any, errors: list[str]) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    expected = "expected a string or a list of strings"
    if not isinstance(value, list):
        errors.append(f"field {name!r}: {expected}, got {kind_of(value)}")
        return []
    for number, item in enumerate(value, 1):
        if not isinstance(item, str):
            errors.append(f"field {name!r}: {expected}, got {kind_of(item)} as item {number}")
            return []
    return list(value)


def _thresholds(name: str, value: Any, errors: list[str]) -> dict[str, float | str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        errors.append(
            f"field {name!r}: expected a mapping of metric name to a number between 0 and 1, "
            f"got {kind_of(value)}"
        )
        return {}
    thresholds: dict[str, float | str] = {}
    for metric, minimum in value.items():
        if isinstance(minimum, str) and minimum.strip()[:2] in (">=", "<="):
            # Written with its direction, as on the command line and in the config: kept
            # so, and checked against the metric's direction once the metrics are known.
            try:
                number, stated = read_threshold(str(metric), minimum)
            except ValueError as error:
                errors.append(f"field {name!r}: {error}")
                continue
            thresholds[str(metric)] = f"{'>=' if stated == 'min' else '<='}{number:g}"
            continue
        if isinstance(minimum, bool) or _quoted_number(minimum):
            # Typed as strictly as the config's thresholds: no YAML boolean, no quoted number.
            try:
                check_number(minimum, expected="a number between 0 and 1")
            except ValueError as error:
                errors.append(f"field {name!r}: the threshold of {str(metric)!r} {error}")
            continue
        # Compared before float(): an integer such as 10**400 does not fit in a float.
        if not _is_number(minimum) or not 0 <= minimum <= 1:
            errors.append(
                f"field {name!r}: the threshold of {str(metric)!r} must be a number between "
                f"0 and 1, got {_describe(minimum)}"
            )
            continue
        thresholds[str(metric)] = float(minimum)
    return thresholds


def _quoted_number(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        float(value)
    except ValueError:
        return False
    return True


#: How a human label is read, as the messages about a bad one say it.
LABEL_RULE = "1 = good, 0 = bad; yes/no and true/false also read"

_LABEL_WORDS = {"true": 1.0, "yes": 1.0, "false": 0.0, "no": 0.0}


def label_value(value: Any) -> float | None:
    """One human label, from a golden case or a labels file, as a number from 0 to 1.

    Binary labels are the common case, so ``true``/``false`` and ``yes``/``no`` read as
    1/0, and a label in a text cell may be a number written out; null or an empty cell
    means "not labelled" (None).

    Raises:
        ValueError: The value is none of these.

    >>> [label_value(value) for value in (True, "yes", " 0.5 ", 0, None, "")]
    [1.0, 1.0, 0.5, 0.0, None, None]
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        return float(value)
    number: Any = value
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _LABEL_WORDS:
            return _LABEL_WORDS[text]
        try:
            number = float(text)
        except ValueError:
            number = None
    if not _is_number(number) or not 0.0 <= number <= 1.0:
        raise ValueError(f"not a label: {value!r}")
    return float(number)


def human_labels(name: str, value: Any, errors: list[str]) -> dict[str, float]:
    """A case's human labels: a mapping of metric name to a label (see :func:`label_value`).

    A label that is not labelled (null) is left out.
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        errors.append(
            f"field {name!r}: expected a mapping of metric name to a label from 0 to 1, "
            f"such as {{faithfulness: 1}}, got {kind_of(value)}"
        )
        return {}
    labels: dict[str, float] = {}
    for metric, label in value.items():
        try:
            parsed = label_value(label)
        except ValueError:
            errors.append(
                f"field {name!r}: the label of {str(metric)!r} must be a number from 0 to 1 "
                f"({LABEL_RULE}), got {_describe(label)}"
            )
            continue
        if parsed is not None:
            labels[str(metric)] = parsed
    return labels


# --- small helpers ----------------------------------------------------------------------


def _is_number(value: Any) -> bool:
    # bool is an int subclass, but True is no id or threshold; an integer past Python's
    # int-to-str digit limit (YAML hex is exempt from it on reading) cannot even be shown.
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and not (isinstance(value, float) and not math.isfinite(value))
        and not (isinstance(value, int) and value.bit_length() > _LONGEST_INT_BITS)
    )


_LONGEST_INT_BITS = 13_000  # about 3,900 digits, under Python's default limit of 4,300


_KIND_NAMES: dict[type, str] = {dict: "object", list: "list", type(None): "null"}


def kind_of(value: Any) -> str:
    """The JSON name of a value's type (``object``, ``list``, ``null``), else its Python name."""
    return _KIND_NAMES.get(type(value), type(value).__name__)


def _describe(value: Any) -> str:
    """The kind of a wrong value, with the value itself when it is short enough to find."""
    if isinstance(value, str):
        return f"{preview(value)} (str)" if value.strip() else "an empty string"
    if isinstance(value, int) and not isinstance(value, bool) and not _is_number(value):
        return "an integer too long to use"
    if _is_number(value):
        text = str(value)
        return text if len(text) <= 40 else f"{text[:12]}… (a {len(text)}-digit number)"
    return kind_of(value)


def preview(text: str, limit: int = 40) -> str:
    """``text`` quoted as Python would, cut to ``limit`` characters so messages stay short."""
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    return repr(shown)
