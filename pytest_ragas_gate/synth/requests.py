"""The two requests ``rag-gate synth`` puts to a judge: write questions, and critique them.

Both go through the gate's judge stack unchanged — the same prompts module fences every
chunk, question and reference in ``<data id=…>`` blocks (see
:class:`~pytest_ragas_gate.judges.prompts.ExternalPrompt`), and the same transport, cache,
budgets and usage accounting apply. They are batched: one :class:`WriteQuestions` asks for
several questions of a chunk or chunk pair, one :class:`CritiqueQuestions` reviews all of
them.

``version`` is part of every request, hence of every cache key: bump
:data:`SYNTH_PROMPT_VERSION` whenever a task text here changes.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..judges.prompts import Block
from ..judges.requests import JudgeRequest, Reply
from ..model_defaults import empty_list

__all__ = [
    "KINDS",
    "SYNTH_PROMPT_VERSION",
    "Candidate",
    "CritiqueQuestions",
    "Critiques",
    "Critique",
    "QuestionKind",
    "SynthQuestion",
    "SynthQuestions",
    "SynthTurn",
    "WriteQuestions",
]

SYNTH_PROMPT_VERSION = "3"

QuestionKind = Literal["single", "multi", "reasoning", "unanswerable", "conversation"]
KINDS: tuple[QuestionKind, ...] = ("single", "multi", "reasoning", "unanswerable", "conversation")

#: Why the critic drops a question.
Problem = Literal[
    "ok", "not_standalone", "not_answerable", "trivial", "answered", "copied", "wrong_kind"
]


class SynthTurn(Reply):
    """A later user turn of a conversation, its reference answer and the chunks it needs."""

    question: str
    reference: str
    chunks: list[int] = Field(default_factory=empty_list)


class SynthQuestion(Reply):
    """One generated question, its reference answer and the chunks (0-based) it needs.

    A ``conversation`` is its first turn here and its later turns in ``follow_ups``.
    """

    kind: QuestionKind
    question: str
    reference: str
    chunks: list[int] = Field(default_factory=empty_list)
    follow_ups: list[SynthTurn] = Field(default_factory=empty_list)


class SynthQuestions(Reply):
    """The questions of one :class:`WriteQuestions` request, in the requested order."""

    questions: list[SynthQuestion]


_KIND_RULES = """\
single: one fact of one chunk. reasoning: a comparison or computation over two facts \
(which is larger, how long between, how many in total, are both true) whose reference \
shows the step; a look-up of one or two sentences is not reasoning. multi: two chunks \
linked by an entity they share, and the question needs a fact from each (its chunks names \
both). conversation: a chat of two or three user turns: question, reference and chunks \
are the first turn, standalone; follow_ups holds one or two later turns, each with its own \
question, reference and chunks, asking another fact about the same entity while referring \
back to it with a pronoun or an ellipsis ("And a day pass?", "How much does it cost?", \
"它多少钱？"), never naming it, so the follow-up means nothing without the earlier turns. \
unanswerable: a near miss: asks a property the documents never give about an \
entity they do name (its chunks is [] and its reference says the documents do not say \
it)."""

_WRITE_TASK = f"""\
Task: write test questions for a retrieval-augmented generation system from the numbered \
document chunks: exactly one question per requested kind, in the requested order. \
{_KIND_RULES} Write each question as a user of the documented product would ask it: a \
natural wh-question (what, how many, how long, when, who, where, why …) in your own words. \
Paraphrase: never copy a sentence or a run of more than five words from a chunk, never a \
fill-in-the-blank, never quote the text. Ask for the informative fact of a sentence, not a \
section number, version label or identifier. Every question is standalone: it names what it \
is about (never "the document", "this section", "it" without a name), so someone who has \
not seen the chunks understands it. The reference answers the question from the chunks \
alone in one to three sentences. chunks lists the 0-based indices of the chunks the answer \
needs. Write the questions and references in the language of the chunks (Chinese chunks \
give Chinese questions)."""

_CRITIQUE_TASK = f"""\
Task: review each candidate test question against the numbered chunks. ({_KIND_RULES}) \
keep is true only if all hold: the question is standalone (no "the document", "this", \
an unnamed "it", no "such", "its", "each file" or "the spec" that it does not resolve) and \
says what it asks (not "What must applications match?", whose point is only in the \
answer); it is phrased as a user would ask, not a fill-in-the-blank and not a \
copy of a chunk's sentence; it is of its kind as defined above; for single, multi and \
reasoning, the reference is correct and follows from the chunks it names alone; for \
unanswerable, the chunks do not answer it; for conversation, each follow-up \
does not name the entity of the first turn (it needs the history, else not_standalone \
means "the follow-up does not need the earlier turns") and its reference follows from the \
chunks it names; and it is not trivial (the question does not \
already contain its answer). Otherwise keep is false and problem names the first rule \
broken: not_standalone, copied, wrong_kind, not_answerable, answered (an unanswerable \
question the chunks do answer) or trivial. One verdict per candidate, in order, with its \
index and a short reason."""


def _chunk_blocks(block: Block, titles: list[str], chunks: list[str]) -> list[str]:
    parts = [f"The {len(chunks)} chunks (index, document title, text):"]
    for index, (title, text) in enumerate(zip(titles, chunks, strict=True)):
        parts.append(block(title, "title", index))
        parts.append(block(text, "chunk", index))
    return parts


class WriteQuestions(JudgeRequest[SynthQuestions]):
    """Write one question per entry of ``kinds`` from ``chunks`` (one chunk or a pair)."""

    kind: ClassVar[str] = "synth_questions"
    reply_type: ClassVar[type[BaseModel]] = SynthQuestions

    chunks: list[str]
    titles: list[str]
    kinds: list[QuestionKind]
    chinese: bool = False
    avoid: list[str] = Field(default_factory=empty_list)
    version: str = SYNTH_PROMPT_VERSION

    def prompt_task(self) -> str:
        """The task paragraph of the system prompt."""
        return _WRITE_TASK

    def prompt_data(self, block: Block) -> list[str]:
        """The fenced chunks, then what to write."""
        language = "Chinese" if self.chinese else "the language of the chunks"
        parts = _chunk_blocks(block, self.titles, self.chunks)
        if self.avoid:
            parts.append("Questions already written from these chunks; write different ones:")
            parts += [block(question, "avoid", index) for index, question in enumerate(self.avoid)]
        parts.append(
            f"Write {len(self.kinds)} questions, kinds in order: {', '.join(self.kinds)}. "
            f"Language: {language}."
        )
        return parts


class Candidate(BaseModel):
    """A generated question as the critic sees it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: QuestionKind
    question: str
    reference: str
    chunks: list[int] = Field(default_factory=empty_list)
    follow_ups: list[SynthTurn] = Field(default_factory=empty_list)


class Critique(Reply):
    """The critic's verdict on candidate ``index``."""

    index: int = Field(ge=0)
    keep: bool
    problem: Problem = "ok"
    reason: str = ""


class Critiques(Reply):
    """One verdict per candidate."""

    verdicts: list[Critique]


class CritiqueQuestions(JudgeRequest[Critiques]):
    """Check every candidate of one chunk (or chunk pair) in one request."""

    kind: ClassVar[str] = "synth_critique"
    reply_type: ClassVar[type[BaseModel]] = Critiques

    chunks: list[str]
    titles: list[str]
    candidates: list[Candidate]
    version: str = SYNTH_PROMPT_VERSION

    def prompt_task(self) -> str:
        """The task paragraph of the system prompt."""
        return _CRITIQUE_TASK

    def prompt_data(self, block: Block) -> list[str]:
        """The fenced chunks, then each fenced candidate with its kind and cited chunks."""
        parts = _chunk_blocks(block, self.titles, self.chunks)
        parts.append(f"The {len(self.candidates)} candidates:")
        for index, candidate in enumerate(self.candidates):
            parts.append(
                f"Candidate {index}: kind {candidate.kind}, cites chunks {candidate.chunks}"
            )
            parts.append(block(candidate.question, "question", index))
            parts.append(block(candidate.reference, "reference", index))
            for turn, follow_up in enumerate(candidate.follow_ups, 2):
                parts.append(f"Candidate {index}, turn {turn}: cites chunks {follow_up.chunks}")
                parts.append(block(follow_up.question, "follow_up", index))
                parts.append(block(follow_up.reference, "follow_up_reference", index))
        return parts
