"""The golden case: one question of the golden set, with what the RAG system produced."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from ..model_defaults import empty_list
from .tool_calls import ExpectedTool, ToolCall

#: How a case was picked for labelling (``sampled_by``): ``random`` labels are a fair sample
#: of the golden set, which prediction-powered inference needs; ``near_threshold`` ones
#: were chosen for where the judge is least sure, and PPI leaves them out.
LABEL_SAMPLINGS = ("random", "near_threshold")
LabelSampling = Literal["random", "near_threshold"]


def case_identity(file: str, case_id: str) -> str:
    """A case's identity across runs, reports and shards: its golden file and its id.

    >>> case_identity("golden/qa.jsonl", "refunds")
    'golden/qa.jsonl::refunds'
    """
    return f"{file}::{case_id}"


class Context(BaseModel):
    """One retrieved chunk; its position in ``GoldenCase.contexts`` is its rank."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str | None = None
    text: str
    # The 1-based retrieval call (hop) that returned the chunk, when the system retrieved
    # more than once; the retrieval metrics are then also read per hop.
    hop: int | None = None


class Message(BaseModel):
    """One earlier turn of a conversation, as a case's history holds it."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    role: Literal["user", "assistant"]
    content: str


def turn_id(conversation: str, turn: int) -> str:
    """The id of a conversation's ``turn``-th exchange (1-based).

    >>> turn_id("refund-chat", 3)
    'refund-chat#3'
    """
    return f"{conversation}#{turn}"


class GoldenCase(BaseModel):
    """A validated golden case.

    ``answer`` and ``contexts`` are None when absent (live mode fills them in); an empty
    list of contexts is kept as an empty list, which makes context metrics not applicable.
    Unknown input fields are kept in ``metadata``.
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    question: str
    answer: str | None = None
    contexts: list[Context] | None = None
    reference: str | None = None
    relevant_context_ids: list[str] | None = None
    tags: list[str] = Field(default_factory=empty_list)
    # A number takes the metric's direction; ``"<=0.1"`` / ``">=0.8"`` states it too.
    thresholds: dict[str, float | str] = Field(default_factory=dict)
    # Human labels per metric, in [0, 1]: what people scored this case (see agreement.py).
    human: dict[str, float] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    file: str = ""
    line: int = 0
    # A turn of a conversation (``turns``): the conversation's id, the exchange's 1-based
    # number, and the turns before its user turn. The question is the user turn, the
    # answer the assistant's reply; the gate aggregates such cases per conversation.
    conversation: str | None = None
    turn: int | None = None
    history: list[Message] = Field(default_factory=empty_list)
    # An agent's tool calls in order, the calls the case expects, and the most calls it
    # may make (see tool_calls.py and the tool metrics).
    tools_called: list[ToolCall] | None = None
    expected_tools: list[ExpectedTool] | None = None
    max_steps: int | None = None
    # True on a conversation's last exchange when its tool expectations are the whole
    # conversation's: its ``tools_called`` are then every call of the conversation, and
    # a live run gathers the target's calls of every turn into it.
    calls_of_conversation: bool = False

    @property
    def source(self) -> str:
        """Where the case was read from, as ``path:line``."""
        return f"{self.file}:{self.line}"

    @property
    def key(self) -> str:
        """The case's identity across runs, reports and shards (see :func:`case_identity`)."""
        return case_identity(self.file, self.id)

    @property
    def sampled_by(self) -> LabelSampling | None:
        """How the case was picked for labelling (:data:`LABEL_SAMPLINGS`); None if not said."""
        value = self.metadata.get("sampled_by")
        return cast(LabelSampling, value) if value in LABEL_SAMPLINGS else None

    @property
    def context_texts(self) -> list[str]:
        """The retrieved chunks' texts in rank order (empty when there are none)."""
        return [context.text for context in self.contexts or []]

    def has(self, field: str) -> bool:
        """Whether ``field`` is present and non-empty, i.e. a metric needing it can run."""
        value = getattr(self, field, None)
        if value is None:
            value = self.metadata.get(field)
        if isinstance(value, str):
            return bool(value.strip())
        if isinstance(value, (list, dict)):
            return bool(value)
        return value is not None


def stable_case_id(question: str) -> str:
    """A short id derived from the question, stable across runs and machines.

    >>> stable_case_id("Who founded Apple?")
    'q-b3f475fb53'
    """
    digest = hashlib.sha256(question.strip().encode("utf-8")).hexdigest()
    return f"q-{digest[:10]}"


def conversation_case_id(turns: Iterable[tuple[str, str]]) -> str:
    """A short id derived from every turn of a conversation (role and text), stable across runs.

    Chat logs often open alike ("Hi"), so the first question alone would name two
    conversations the same; a role and a text are hashed as JSON, so no separator in a text
    can make two different conversations hash alike.

    >>> hi = ("user", "Hi")
    >>> conversation_case_id([hi, ("assistant", "Hello")])
    'c-de615ee0a7'
    >>> conversation_case_id([hi, ("assistant", "Hey")]) == conversation_case_id([hi])
    False
    """
    text = json.dumps([[role, content.strip()] for role, content in turns], ensure_ascii=False)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return f"c-{digest[:10]}"


def missing_fields_reason(fields: list[str] | tuple[str, ...]) -> str:
    """Why a metric is not applicable to a case that lacks ``fields``: ``no reference``.

    >>> missing_fields_reason(["reference", "contexts"])
    'no reference and no contexts'
    """
    return " and ".join(f"no {name}" for name in fields)


_MISSING_FIELDS = re.compile(r"no [A-Za-z_]\w*( and no [A-Za-z_]\w*)*")


def is_missing_fields_reason(reason: str) -> bool:
    """Whether ``reason`` is one :func:`missing_fields_reason` wrote.

    >>> is_missing_fields_reason("no contexts"), is_missing_fields_reason("no claims made")
    (True, False)
    """
    return _MISSING_FIELDS.fullmatch(reason) is not None
