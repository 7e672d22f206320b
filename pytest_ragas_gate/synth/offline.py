r"""The offline question writer and critic: deterministic, keyless, no model, no network.

It answers :class:`~.requests.WriteQuestions` and :class:`~.requests.CritiqueQuestions`
as an LLM would, from text heuristics, so ``rag-gate synth --judge offline`` runs anywhere
and always writes the same golden set for the same documents. Good enough for smoke tests
and for a first gate; an LLM judge writes more natural questions.

Questions are built from *fact sentences* — sentences with a number, a name or a
definition — and the sentence (or sentences) is the reference:

- ``single``: a fill-in question over one fact sentence, with the number or name blanked
  (``According to "Plans", what completes this statement: "Files of up to ___ can be
  uploaded through the desktop app"?``); a definition becomes ``What is X?``;
- ``reasoning``: two facts of the chunk to complete together;
- ``multi``: one fact from each of two chunks;
- ``unanswerable``: a plausible question about the document on a facet the corpus never
  mentions (a version history, an approval date …); the reference says the documents do
  not say it.

Chinese chunks give Chinese questions. The critic drops questions that are not standalone,
not supported by the chunks they name, trivial, or (for unanswerable ones) answered by the
corpus.

>>> import asyncio
>>> from pytest_ragas_gate.synth.requests import WriteQuestions
>>> request = WriteQuestions(
...     chunks=["Uploads\nFiles of up to 50 GB can be uploaded through the desktop app."],
...     titles=["Uploads"], kinds=["single"])
>>> question = asyncio.run(OfflineSynthJudge().ask(request)).reply.questions[0].question
>>> print(question.replace(": ", ":\n"))
According to "Uploads", what completes this statement:
"Files of up to ___ can be uploaded through the desktop app"?
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from ..exceptions import JudgeError
from ..judges.base import Answer
from ..judges.offline.judge import Evidence, check_support
from ..judges.offline.text import content_tokens, numbers, split_sentences
from ..judges.requests import JudgeRequest
from ..usage import Usage
from .chunking import is_chinese
from .requests import (
    Critique,
    CritiqueQuestions,
    Critiques,
    QuestionKind,
    SynthQuestion,
    SynthQuestions,
    WriteQuestions,
)

__all__ = ["OfflineSynthJudge"]

ReplyT = TypeVar("ReplyT", bound=BaseModel)

BLANK = "___"

_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])[$€£¥]?\d+(?:[.,]\d+)*(?:\s?%|\s?(?:GB|TB|MB|KB))?")
_ENTITY = re.compile(r"(?<=[a-z,;:] )[A-Z][\w-]*(?: [A-Z][\w-]*)*")
_DEFINITION = re.compile(
    r"^(?:An? |The )?(?P<term>[^,;:]{2,60}?) (?:is|are|means|refers to) (?P<rest>.+)$"
)
_CJK_DEFINITION = re.compile(r"^(?P<term>[^，,。：:]{2,15})(?:是指|是|指)(?P<rest>.+)$")
_NOT_STANDALONE = re.compile(
    r"\b(?:this|the) (?:document|section|chunk|text|passage|page)\b|^\s*(?:it|this|they)\b"
    r"|本文|该文档|这段|上文|这一节",
    re.IGNORECASE,
)

#: Questions on facets no ordinary document states: the unanswerable kind asks them.
_FACETS = (
    'Who approved "{title}", and on which date?',
    'How did "{title}" apply before the year 2001?',
    'What does "{title}" say about customers in Antarctica?',
    'Who was the first author of "{title}"?',
)
_CJK_FACETS = (
    "《{title}》是由谁在哪一天批准的？",
    "《{title}》在2001年以前是怎样规定的？",
    "《{title}》对南极洲的用户有什么规定？",
    "《{title}》最初的作者是谁？",
)
_NO_ANSWER = "The documents do not say this, so it cannot be answered from them."
_CJK_NO_ANSWER = "文档中没有提到这一点，无法根据文档回答。"
_MIN_FACT_TOKENS = 4


def _stable_pick(key: str, count: int) -> int:
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:8], 16) % count


def _body(chunk: str) -> str:
    """The chunk without its heading line."""
    lines = chunk.split("\n")
    return "\n".join(lines[1:]) if len(lines) > 1 else chunk


def _sentences(chunk: str) -> list[str]:
    found = []
    for sentence in split_sentences(_body(chunk)):
        text = sentence.strip()
        if len(content_tokens(text)) >= _MIN_FACT_TOKENS:
            found.append(text)
    return found


def _masked(sentence: str) -> str | None:
    """The sentence with its first number or name blanked; None when it has neither."""
    body = sentence.rstrip(" .!?。！？；;")
    for pattern in (_NUMBER, _ENTITY):
        match = pattern.search(body)
        if match:
            return body[: match.start()] + BLANK + body[match.end() :]
    return None


def _definition(sentence: str) -> str | None:
    """The term a definition sentence defines (``X is …``), or None."""
    body = sentence.rstrip(" .!?。！？；;")
    match = (_CJK_DEFINITION if is_chinese(body) else _DEFINITION).match(body)
    if match is None or len(match.group("rest")) < 8:
        return None
    term = match.group("term").strip()
    return term if len(term.split()) <= 6 else None


def _facts(chunk: str) -> list[tuple[str, str]]:
    """The chunk's fact sentences with their blanked form, in order."""
    facts = []
    for sentence in _sentences(chunk):
        masked = _masked(sentence)
        if masked is not None:
            facts.append((sentence, masked))
    return facts


def _single(chunk: str, title: str, slot: int) -> SynthQuestion | None:
    chinese = is_chinese(chunk)
    options: list[SynthQuestion] = []
    for sentence, masked in _facts(chunk):
        question = (
            f"根据《{title}》，下面这句话中空缺的内容是什么：“{masked}”？"
            if chinese
            else f'According to "{title}", what completes this statement: "{masked}"?'
        )
        options.append(
            SynthQuestion(kind="single", question=question, reference=sentence, chunks=[0])
        )
    for sentence in _sentences(chunk):
        term = _definition(sentence)
        if term is not None:
            question = (
                f"根据《{title}》，{term}是什么？" if chinese else f'In "{title}", what is {term}?'
            )
            options.append(
                SynthQuestion(kind="single", question=question, reference=sentence, chunks=[0])
            )
    return options[slot % len(options)] if options else None


def _pair_question(
    kind: QuestionKind,
    first: tuple[str, str],
    second: tuple[str, str],
    titles: tuple[str, str],
    chinese: bool,
    chunks: list[int],
) -> SynthQuestion:
    (sentence_a, masked_a), (sentence_b, masked_b) = first, second
    if chinese:
        source = (
            f"《{titles[0]}》" if titles[0] == titles[1] else f"《{titles[0]}》和《{titles[1]}》"
        )
        question = (
            f"根据{source}，下面两句话中空缺的内容分别是什么：（1）“{masked_a}”（2）“{masked_b}”？"
        )
        reference = f"{sentence_a}{sentence_b}"
    else:
        source = f'"{titles[0]}"' if titles[0] == titles[1] else f'"{titles[0]}" and "{titles[1]}"'
        question = (
            f'According to {source}, what completes both statements: (1) "{masked_a}" and '
            f'(2) "{masked_b}"?'
        )
        reference = f"{sentence_a} {sentence_b}"
    return SynthQuestion(kind=kind, question=question, reference=reference, chunks=chunks)


def _reasoning(chunk: str, title: str, slot: int) -> SynthQuestion | None:
    facts = _facts(chunk)
    if len(facts) < 2:
        return None
    start = slot % (len(facts) - 1)
    return _pair_question(
        "reasoning", facts[start], facts[start + 1], (title, title), is_chinese(chunk), [0]
    )


def _multi(chunks: Sequence[str], titles: Sequence[str], slot: int) -> SynthQuestion | None:
    if len(chunks) < 2:
        return None
    first, second = _facts(chunks[0]), _facts(chunks[1])
    if not first or not second:
        return None
    return _pair_question(
        "multi",
        first[slot % len(first)],
        second[slot % len(second)],
        (titles[0], titles[1]),
        is_chinese(chunks[0]),
        [0, 1],
    )


def _unanswerable(chunk: str, title: str, slot: int) -> SynthQuestion:
    chinese = is_chinese(chunk)
    facets = _CJK_FACETS if chinese else _FACETS
    question = facets[(_stable_pick(chunk, len(facets)) + slot) % len(facets)]
    return SynthQuestion(
        kind="unanswerable",
        question=question.format(title=title),
        reference=_CJK_NO_ANSWER if chinese else _NO_ANSWER,
        chunks=[],
    )


def write_questions(request: WriteQuestions) -> SynthQuestions:
    """One question per requested kind, or fewer when the chunks hold too few facts."""
    questions: list[SynthQuestion] = []
    chunk, title = request.chunks[0], request.titles[0]
    for position, kind in enumerate(request.kinds):
        # A chunk asked again starts past the facts its earlier questions used.
        slot = position + len(request.avoid)
        written: SynthQuestion | None
        if kind == "single":
            written = _single(chunk, title, slot)
        elif kind == "reasoning":
            written = _reasoning(chunk, title, slot)
        elif kind == "multi":
            written = _multi(request.chunks, request.titles, slot)
        else:
            written = _unanswerable(chunk, title, slot)
        taken = {question.question for question in questions} | set(request.avoid)
        if written is not None and written.question not in taken:
            questions.append(written)
    return SynthQuestions(questions=questions)


class OfflineSynthJudge:
    """Answers the synth requests with the heuristics above; usage stays zero.

    Args:
        corpus: every chunk text, so the critic can tell that an unanswerable question is
            not answered anywhere in the corpus (an LLM critic sees only the unit's chunks).
    """

    def __init__(self, corpus: Sequence[str] = ()) -> None:
        self._corpus = Evidence.of(list(corpus)) if corpus else None

    @property
    def kind(self) -> str:
        """Always ``offline``."""
        return "offline"

    @property
    def model(self) -> str:
        """The heuristics' version."""
        return "synth-heuristic-v1"

    async def ask(self, request: JudgeRequest[ReplyT]) -> Answer[ReplyT]:
        """Answer ``request`` at once."""
        original: JudgeRequest[ReplyT] = request
        reply: SynthQuestions | Critiques
        if isinstance(request, WriteQuestions):
            reply = write_questions(request)
        elif isinstance(request, CritiqueQuestions):
            reply = self.critique(request)
        else:
            raise JudgeError(f"The offline synth judge cannot answer a {request.kind!r} request.")
        # Round-tripped through the reply model, as the LLM judges' replies are.
        return Answer(reply=original.parse_reply(reply.model_dump()), usage=Usage())

    async def aclose(self) -> None:
        """Nothing to release."""

    def critique(self, request: CritiqueQuestions) -> Critiques:
        """One verdict per candidate (see the module docstring for the rules)."""
        verdicts = []
        for index, candidate in enumerate(request.candidates):
            problem, reason = self._problem(
                request, candidate.kind, candidate.question, candidate.reference, candidate.chunks
            )
            verdicts.append(
                Critique(index=index, keep=problem == "ok", problem=problem, reason=reason)
            )
        return Critiques(verdicts=verdicts)

    def _problem(
        self,
        request: CritiqueQuestions,
        kind: QuestionKind,
        question: str,
        reference: str,
        cited: Sequence[int],
    ) -> tuple[Any, str]:
        if _NOT_STANDALONE.search(question):
            return "not_standalone", "refers to a document it does not name"
        if kind == "unanswerable":
            evidence = self._corpus or Evidence.of(request.chunks)
            asked = question
            for title in request.titles:
                asked = asked.replace(title, " ")
            if check_support(asked, evidence, threshold=0.9).supported:
                return "answered", "the documents answer it"
            return "ok", "not answered by the documents"
        if not cited or any(not 0 <= index < len(request.chunks) for index in cited):
            return "not_answerable", "cites no valid chunk"
        if kind == "multi" and len(set(cited)) < 2:
            return "not_answerable", "a multi question must need two chunks"
        evidence = Evidence.of([request.chunks[index] for index in cited])
        for sentence in split_sentences(reference) or [reference]:
            support = check_support(sentence, evidence)
            if not support.supported:
                return "not_answerable", support.reason
        if len(content_tokens(question)) < _MIN_FACT_TOKENS:
            return "trivial", "too short to test anything"
        given = check_support(reference, Evidence.of([question]), threshold=0.95)
        if given.supported and numbers(reference) <= numbers(question):
            return "trivial", "the question already holds its answer"
        return "ok", "standalone, supported by its chunks"
