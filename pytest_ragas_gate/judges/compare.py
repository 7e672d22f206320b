"""The pairwise request: which of two answers to one question is better.

:class:`CompareAnswers` shows the judge two answers, ``A`` and ``B``, to the same question
over the same retrieved contexts (and reference, when the case has one) and asks which is
better on faithfulness to the contexts, completeness against the reference and relevance
to the question: ``A``, ``B`` or ``tie``, with a reason. The gate asks it twice per pair,
with the answers swapped, so a judge that favours a position is caught (see
:mod:`pytest_ragas_gate.scoring.pairwise`).

It is an :class:`~.prompts.ExternalPrompt` kind: it has a system prompt and a tool of its
own, so the shared system prompt and tool list of the per-answer kinds, and the provider
prompt caches built on them, stay as they are. The case's contexts open the user message
(:class:`~.prompts.SharedPrefix`), so the second order reads them from the provider's
prompt cache when they are long enough to be cached. Every untrusted text (question, reference,
contexts, both answers, earlier turns) goes through the request's fence.

``version`` is part of every request, hence of every cache key: bump
:data:`COMPARE_PROMPT_VERSION` whenever the task text here changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import BaseModel, Field

from ..golden.cases import Message
from ..model_defaults import empty_list
from .requests import JudgeRequest, Reply

if TYPE_CHECKING:
    from .prompts import Block

__all__ = ["COMPARE_PROMPT_VERSION", "CompareAnswers", "Comparison", "Preference"]

COMPARE_PROMPT_VERSION = "1"

#: Which answer the judge prefers.
Preference = Literal["A", "B", "tie"]

_TASK = """\
Task: compare two answers, A and B, to the same question, given the same retrieved \
contexts. Judge, in this order of weight: faithfulness (every fact the answer states \
follows from the contexts; a fact the contexts contradict or do not give counts against \
it, your own knowledge does not count); completeness (it covers what the reference answer \
says, when a reference is given); relevance (it answers the question asked, directly, \
without evasion or padding). better is "A" or "B" when that answer is better on these \
criteria taken together, "tie" when neither is better (also when they say the same in \
other words). The order in which the answers are shown says nothing about them; length \
alone is no merit. A short reason naming the decisive difference."""


class Comparison(Reply):
    """The judge's preference between answers A and B, and why."""

    better: Preference
    reason: str = ""


class CompareAnswers(JudgeRequest[Comparison]):
    """Which of ``answer_a`` and ``answer_b`` answers ``question`` better over ``contexts``."""

    kind: ClassVar[str] = "compare_answers"
    reply_type: ClassVar[type[BaseModel]] = Comparison

    question: str
    contexts: list[str]
    reference: str | None = None
    answer_a: str
    answer_b: str
    #: A conversation's earlier turns, so a follow-up question is read with them.
    history: list[Message] = Field(default_factory=empty_list)
    version: str = COMPARE_PROMPT_VERSION

    def swapped(self) -> CompareAnswers:
        """The same request with the answers in each other's position."""
        return self.model_copy(update={"answer_a": self.answer_b, "answer_b": self.answer_a})

    def prompt_task(self) -> str:
        """The task paragraph of the system prompt."""
        return _TASK

    def prompt_prefix(self, block: Block) -> list[str]:
        """The fenced contexts: the two orders of one comparison share them, cached."""
        parts = [f"The {len(self.contexts)} retrieved contexts, in rank order:"]
        parts += [block(text, "context", index) for index, text in enumerate(self.contexts)]
        return parts if self.contexts else [*parts, "(none)"]

    def prompt_data(self, block: Block) -> list[str]:
        """The fenced earlier turns, question, reference and both answers."""
        parts: list[str] = []
        if self.history:
            parts.append("The conversation before this question, oldest first:")
            parts += [
                block(turn.content, f"{turn.role}_turn", index)
                for index, turn in enumerate(self.history)
            ]
        parts += ["The question:", block(self.question, "question", None)]
        if self.reference is not None:
            parts += ["The reference answer:", block(self.reference, "reference", None)]
        parts += [
            "Answer A:",
            block(self.answer_a, "answer_a", None),
            "Answer B:",
            block(self.answer_b, "answer_b", None),
            "Say which answer is better: A, B or tie.",
        ]
        return parts
