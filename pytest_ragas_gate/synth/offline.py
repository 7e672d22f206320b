r"""The offline question writer and critic: deterministic, keyless, no model, no network.

It answers :class:`~.requests.WriteQuestions` and :class:`~.requests.CritiqueQuestions`
as an LLM would, from text rules, so ``rag-gate synth --judge offline`` runs anywhere and
always writes the same golden set for the same documents.

Questions are the wh-questions a reader would ask of a chunk's fact sentences
(:mod:`.wh_english`, :mod:`.wh_chinese`): the informative span of a sentence — an amount,
a year, an agent, a place, a cause, a definition — is what the question asks for, and the
sentence is the reference. Never a fill-in-the-blank, never a quoted sentence.

- ``single``: one fact of one chunk;
- ``reasoning``: two comparable facts (two durations, two prices, two years …) asked
  together with which is larger and by how much — the reference does the arithmetic;
- ``multi``: a fact from each of two chunks about the same entity;
- ``unanswerable``: a near-miss — a property the corpus never states (a price, a release
  date, a maintainer …) of an entity the chunk names.

- ``conversation``: two or three turns about one subject — the first names it, each
  follow-up refers back with a pronoun or an ellipsis ("And day passes?", "那日票呢？").

The critic checks each kind against these definitions, drops questions that copy a long
run of their chunk, are not standalone, not supported, or (unanswerable ones) answered,
and conversations whose follow-up would not need the earlier turns.

>>> import asyncio
>>> from pytest_ragas_gate.synth.requests import WriteQuestions
>>> request = WriteQuestions(
...     chunks=["Uploads\nFiles up to 50 GB are accepted. Uploads are kept for 30 days."],
...     titles=["Skyfile uploads"], kinds=["single"])
>>> print(asyncio.run(OfflineSynthJudge().ask(request)).reply.questions[0].question)
How long are uploads kept?
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from pydantic import BaseModel

from ..exceptions import JudgeError
from ..judges.base import NO_CONTEXT, Answer, AskContext, Embedded, JudgeCapabilities, no_embeddings
from ..judges.offline.judge import Evidence, check_support
from ..judges.offline.text import content_tokens, numbers, split_sentences
from ..judges.requests import JudgeRequest
from ..usage import Usage
from . import wh_chinese, wh_english
from .entities import Distinctive, named_things
from .prose import is_chinese
from .requests import (
    Critique,
    CritiqueQuestions,
    Critiques,
    QuestionKind,
    SynthQuestion,
    SynthQuestions,
    SynthTurn,
    WriteQuestions,
)
from .rules import refusal
from .specific import misread_answer, unspecific
from .standalone import answering_clause, dangling, empty_predicate, strip_discourse, tidy
from .terms import default_sentence, is_term, noun_phrase, term_facts
from .unsure import (
    amount_problem,
    fact_problem,
    first_person,
    purpose_asked_as_value,
    reference_leans_on,
    repaired_question,
    restates_name,
    states_advice,
    verbless_reference,
    wants_infinitive,
)
from .wh_english import CONTEXT, Fact, longest_shared_run, short_name

__all__ = ["COPY_RUN", "OfflineSynthJudge", "copied_run", "needs_history"]

ReplyT = TypeVar("ReplyT", bound=BaseModel)

#: A question sharing this many consecutive words with its chunk quotes it.
COPY_RUN = 8
_NOT_STANDALONE = re.compile(
    r"\b(?:this|the) (?:document|section|chunk|text|passage|page)\b|^\s*(?:it|this|they)\b"
    r"|本文|该文档|这段|上文|这一节",
    re.IGNORECASE,
)
_PRONOUN_SUBJECT = re.compile(r"^(?:It|This|These|They|That|Those|He|She)\b")
#: Pronouns that stand for a whole idea rather than a thing a question could name.
_IDEA_PRONOUNS = frozenset({"This", "That", "These", "Those"})
#: "Many people have contributed to it. It is maintained by …": "it" is not the people.
_QUANTIFIERS = frozenset("many some several few most all both other various".split())
#: A subject a later "it" can stand for: a short noun phrase, no verb or pronoun in it.
_NOUN_PHRASE = re.compile(
    r"^(?:[Tt]he |[Aa]n? )?(?!(?:you|we|i|it|this|they|there|here)\b)"
    r"(?:[A-Za-z][\w-]*)(?: (?!(?:you|we|is|are|do|does|can|must|will)\b)[A-Za-z][\w-]*){0,3}$"
)
_CLOZE = re.compile(r"_{3,}|completes? (?:this|both) statements?|空缺的内容")
_COMPARISON = re.compile(
    r"\b(?:which|longer|shorter|larger|smaller|more|less|earlier|later|first|difference|between"
    r"|compare|how many years apart|by how much|both)\b|哪个|更|相差|多多少|先|早",
    re.IGNORECASE,
)
#: "What is libxslt?": one word, and a fair question when the word is a name.
_DEFINES = re.compile(r"^(?:" + CONTEXT + r")?[Ww]hat (?:is|are) [\w.:+-]*[A-Za-z][\w.:+-]*\?$")
#: A shell command or code fragment inside a sentence: nothing a reader asks about.
_CODE_IN_PROSE = re.compile(
    r"(?:^|\s)\$ \S|(?:^|\s)(?:sudo|apt-get|systemctl|pip|git|make) [a-z-]+ "
    r"|(?<!`)`[^`'\s]+`(?!`)|\w\(\)\s*;"
    r"|[{}]\s*$|\s(?:&&|\|\|)\s|@[A-Z][A-Z0-9_]{2,}@|\{\{"
)
_NO_ANSWER = "The documents do not say this, so it cannot be answered from them."
_CJK_NO_ANSWER = "文档中没有提到这一点，无法根据文档回答。"
_MIN_FACT_TOKENS = 2

#: Near-miss properties: the question, and what a sentence stating the answer would hold.
_PROPERTIES = (
    ("How much does {entity} cost?", r"\bcost|price|\$|€|£|\bfee|\bpaid\b|\bfree\b"),
    ("When was {entity} first released?", r"releas|introduc|launch|\b(?:1[89]|20)\d\d\b"),
    ("Who maintains {entity}?", r"maintain|author|develop|written by|owner|responsib"),
    ("How many people use {entity}?", r"\busers?\b|\bpeople\b|customers|downloads"),
    ("Which operating systems does {entity} run on?", r"windows|macos|linux|android|ios\b"),
    ("In which countries is {entity} available?", r"countr|region|worldwide|available in"),
)
_CJK_PROPERTIES = (
    ("{entity}的价格是多少？", r"价格|费用|收费|元|免费"),
    ("{entity}是什么时候首次发布的？", r"发布|推出|上线|\d{4}年"),
    ("谁负责维护{entity}？", r"维护|负责|作者|开发"),
    ("{entity}有多少用户？", r"用户|人数|下载"),
    ("{entity}支持哪些操作系统？", r"Windows|macOS|Linux|系统"),
)
_ENTITY = re.compile(r"(?<=[a-z,;:(] )(?:the )?[A-Z][\w+-]*(?: [A-Z][\w+-]*){0,3}")
_CJK_ENTITY = re.compile(r"《(?P<book>[^》]{2,20})》|(?P<latin>[A-Za-z][A-Za-z0-9+._-]{2,30})")


def copied_run(question: str, chunks: Sequence[str]) -> int:
    """The longest word run (CJK: runs of two characters count as a word) copied from a chunk."""
    best = 0
    for chunk in chunks:
        if is_chinese(question):
            best = max(best, _cjk_run(question, chunk) // 2)
        else:
            best = max(best, longest_shared_run(question, chunk))
    return best


def _cjk_run(first: str, second: str) -> int:
    best = 0
    previous = [0] * (len(second) + 1)
    for char in first:
        current = [0] * (len(second) + 1)
        for index, other in enumerate(second, 1):
            if char == other and not char.isspace():
                current[index] = previous[index - 1] + 1
                best = max(best, current[index])
        previous = current
    return best


def _stable_pick(key: str, count: int) -> int:
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:8], 16) % count


def _heading_and_body(chunk: str) -> tuple[str, str]:
    lines = chunk.split("\n")
    if len(lines) > 1 and len(lines[0]) <= 80 and not lines[0].rstrip().endswith((".", "。")):
        return lines[0].strip(), "\n".join(lines[1:])
    return "", chunk


def _sentences(body: str) -> list[str]:
    return [sentence for _, sentence in _item_sentences("", body)]


#: An item of a definition list as a manual page writes it: the directive or option, then
#: at most one placeholder word or bracketed arguments ("olddir directory", "weekly
#: [weekday]", "--log file", "dateformat format_string").
_ITEM = re.compile(
    r"^(?:-\w,\s+)?(?P<name>--?[\w-]+|[a-z][\w.-]*[a-z0-9])"
    r"(?P<args>(?:\s+(?:\[[^\]]{1,30}\]|<[^>]{1,30}>|[a-z][\w-]*|[A-Z][A-Z0-9_]+)){0,1}"
    r"(?:\s+(?:\[[^\]]{1,30}\]|<[^>]{1,30}>))*)$"
)


#: "copy Make a copy of the log file …": a short item and its text on one line.
_TAGGED_ITEM = re.compile(r"^(?P<name>[a-z][\w.-]*[a-z0-9])=?\s+(?P<text>[A-Z][a-z].*)$")


#: "What is the domain directive?": a definition of a named thing needs no item's name.
_DEFINES_NAMED = re.compile(r"^(?:" + CONTEXT + r")?What (?:is|are) (?:the )?\S+ \w+\?$")


def _item(line: str) -> tuple[str, set[str]] | None:
    """The name and placeholder words of a definition-list item line, or None."""
    stripped = line.strip()
    if is_term(stripped):
        if re.fullmatch(r"[A-Z]+", stripped):
            return None  # "REFERENCES": a section of a README, no item of a reference list
        return stripped.rstrip("="), set()  # "use-frob=": the key, without its sign
    match = _ITEM.match(stripped)
    if match is None or match.group("name").lower() in _NOT_A_KIND | {"see", "note", "notes"}:
        return None
    # "log format" is one parameter, "olddir directory" an option and its placeholder: the
    # words cannot tell, so the item is named as written, without bracketed arguments.
    named = re.sub(r"\s*(?:\[[^\]]*\]|<[^>]*>)", "", stripped)
    named = re.sub(r"^-\w,\s+", "", named)
    return named, set(wh_english.words(match.group("args")))


def _item_sentences(heading: str, body: str) -> list[tuple[tuple[str, set[str]] | None, str]]:
    """The body's sentences, each with the definition-list item it describes (or None).

    A term of a reference list or a heading inside the chunk is a line of its own, not the
    start of the sentence after it.
    """
    item = _item(heading) if heading else None
    found: list[tuple[tuple[str, set[str]] | None, str]] = []
    after_item = False
    for line in body.split("\n"):
        if not line.strip():
            continue
        as_item = _item(line)
        if as_item is not None:
            # "firstaction" then "endscript": the second closes the first, which is named.
            item = item if after_item else as_item
            after_item = True
            continue
        after_item = False
        tagged = _TAGGED_ITEM.match(line.strip())
        if tagged is not None:
            # "shadow Shadow user passwords, …": the item is described on its line only.
            found += [
                ((tagged.group("name"), set()), sentence)
                for _, sentence in _item_sentences("", tagged.group("text"))
            ]
            item = None
            continue
        if len(line.split()) <= 6 and not line.rstrip().endswith((".", "!", "?", "。")):
            item = None  # a heading or a line of an example ends the item's description
        elif re.search(r"[{}$]", line):
            item = None
        for sentence in split_sentences(_ANCHOR.sub("", line)):
            if len(content_tokens(sentence)) >= _MIN_FACT_TOKENS and not _CODE_IN_PROSE.search(
                sentence
            ):
                found.append((item, sentence.strip()))
    return found


#: The subject of "Default value is …" under an option item: the default of that option.
_BARE_DEFAULT = re.compile(r"(?:the )?default(?: value| setting)?", re.I)


def _of_item(fact: Fact, item: tuple[str, set[str]] | None, name: str) -> Fact | None:
    """``fact`` of a definition-list item's description, asked with the item's name.

    "Logs are moved into directory" under ``olddir directory`` asks nothing without the
    directive; its answer is the placeholder ``directory``, which no question asks cleanly.
    """
    if item is None:
        return fact
    term, placeholders = item
    answer = set(wh_english.words(fact.answer))
    if answer & placeholders:
        return None
    if term.split()[0].lower() in fact.question.lower() or _DEFINES_NAMED.match(fact.question):
        return fact  # it names the item, or defines a thing of its own name
    if re.search(r",| and | or ", term):
        return None  # several items share the text: which one the fact is of is unsure
    if _BARE_DEFAULT.fullmatch(fact.subject.strip()) and re.search(
        rf"\bwhat (?:is|are) {re.escape(fact.subject.strip())}\?$", fact.question, re.I
    ):
        # "Default value is a note" under GROUP_NOTE: "what is default value?" lacks its
        # article and its reference its subject; both are of the item, asked as a default.
        where = f" in {name}" if name else ""
        return replace(
            fact,
            question=f"What is the default of {term}{where}?",
            sentence=default_sentence(term, fact.answer),
            subject=term,
        )
    context = re.match(r"^" + CONTEXT, fact.question)
    rest = fact.question[context.end() :] if context else fact.question
    rest = rest[:1].lower() + rest[1:] if not re.match(r"^[A-Z]{2}|[A-Z]\w*[A-Z_]", rest) else rest
    where = f"In {name}, with {term}, " if name else f"With {term}, "
    return replace(fact, question=where + rest)


def chunk_facts(
    chunk: str, title: str, chinese: bool, names: frozenset[str] = frozenset()
) -> list[Fact]:
    """The chunk's facts as questions, most informative first, none quoting the chunk.

    ``names`` are words the corpus writes capitalised inside sentences: a sentence opening
    with one keeps it capitalised ("Skyfile accepts …" asks what Skyfile accepts).
    """
    return list(_chunk_reading(chunk, title, chinese, names)[0])


#: Why the writer refused a fact it found, as the summary counts them: one, several, why.
REFUSALS: dict[str, tuple[str, str, str]] = {
    "misread": (
        "misread sentence",
        "misread sentences",
        "a clause, list row or purpose read as subject or object",
    ),
    "vague": (
        "vague question",
        "vague questions",
        "what they ask is only in the answer, or names nothing",
    ),
    "leaning": (
        "reference leaning on its page",
        "references leaning on their page",
        "this, such, therein, a table row",
    ),
    "critic": (
        "failed the critic's check",
        "failed the critic's check",
        "unsupported, trivial or copied",
    ),
}


def chunk_refusals(
    chunk: str, title: str, chinese: bool, names: frozenset[str] = frozenset()
) -> Counter[str]:
    """The facts of ``chunk`` the writer found but refused, counted by :data:`REFUSALS` key."""
    return Counter(_chunk_reading(chunk, title, chinese, names)[1])


# The offer, the plan, every kind's writer, the near misses and the critic each read a
# chunk's facts: a run asked the same chunk about seventeen times. Facts are frozen.
@functools.lru_cache(maxsize=4096)
def _chunk_reading(
    chunk: str, title: str, chinese: bool, names: frozenset[str]
) -> tuple[tuple[Fact, ...], tuple[str, ...]]:
    """The chunk's facts, most informative first, and why each refused one was refused."""
    refused: list[str] = []
    heading, body = _heading_and_body(chunk)
    name = short_name(title)
    numbered = re.match(r"^(?:\d+(?:\.\d+)*\.?|[A-Z]\.)\s+", heading)
    heading = heading[numbered.end() :] if numbered else heading  # "2.1 The Basics"
    heading = heading.rstrip("=")  # "use-frob=": a key's heading names the key
    topic = heading if heading and len(heading.split()) <= 4 and not chinese else name
    proper = wh_english.proper_words(chunk) | names
    facts: list[Fact] = [] if chinese else term_facts(chunk, name)
    previous: str | None = None
    for item, sentence in _item_sentences("" if chinese else heading, body):
        tied = False
        if not chinese:
            tied = _CASE_OPENER.match(sentence) is not None
            # "A: The index needs …": an FAQ's answer label is no part of its sentence.
            sentence = strip_discourse(re.sub(r"^(?:A|Answer)\s*:\s+(?=[A-Z])", "", sentence))
            if not sentence:
                continue
        if chinese:
            found = wh_chinese.sentence_facts(sentence, topic or name)
        else:
            # "It costs $12": "it" is what the sentence before was about.
            referent = previous or topic or name
            if previous and previous.split()[0].lower() in ("the", "a", "an"):
                referent = "the " + " ".join(previous.split()[1:])
            pronoun = _PRONOUN_SUBJECT.match(sentence)
            if pronoun and (pronoun.group() in _IDEA_PRONOUNS or not previous):
                continue  # "This is a separate step": nothing to name what "this" is
            found = wh_english.sentence_facts(sentence, referent, proper, context=name)
            subject = wh_english.subject_of(sentence)
            previous = (
                subject
                if subject
                and _NOUN_PHRASE.match(subject)
                and subject.split()[0].lower() not in _QUANTIFIERS
                else None
            )
            if topic != name or numbered:
                # The question names the section (a numbered one is part of a larger manual
                # even when it is the whole document); the name makes it standalone.
                found = [_with_document(fact, name) for fact in found]
        # "$HOME/frobbox" then "The user's archive of read messages.": a row's description
        # names what its item is; read as a sentence, a noun becomes its verb.
        row = item is not None and not chinese and noun_phrase(sentence)
        for fact in found:
            if not chinese:
                if row:
                    refused.append("misread")
                    continue
                if tied and _generic_subject(fact.subject):
                    refused.append("misread")
                    continue  # "In this case, the return value is …": which case?
                repaired, why = _sure_why(_tidied(fact))
                if repaired is not None:
                    repaired = _of_item(repaired, item, name)
                    why = "misread" if repaired is None else why
                if repaired is not None and question_problem(repaired.question) is not None:
                    repaired, why = None, "vague"
                if repaired is None:
                    refused.append(why or "misread")
                    continue
                fact = repaired
            ruled = refusal(fact.question, _reference(fact), chinese=chinese)
            if ruled is not None:
                refused.append(ruled[1])
                continue
            if any(fact.question == known.question for known in facts):
                continue  # a reference list's default, read again from its sentence
            if copied_run(fact.question, [chunk]) < COPY_RUN:
                facts.append(fact)
    if not chinese:
        # Facts of a reference list pass the same checks as the sentences' ones, and every
        # fact is one the critic keeps as a single case: the kinds derived from facts
        # (near misses, multi, follow-ups) start only from questions asked cleanly.
        checked = []
        for fact in facts:
            sure, why = _sure_why(fact)
            if sure is not None and single_problem(sure.question, _reference(sure), chunk):
                sure, why = None, "critic"
            if sure is None:
                refused.append(why or "misread")
            else:
                checked.append(sure)
        facts = checked
    return tuple(sorted(facts, key=lambda fact: -fact.score)), tuple(refused)


def wording_problem(
    kind: QuestionKind, question: str, reference: str, chunks: Sequence[str]
) -> tuple[Any, str] | None:
    """Why a case's wording fails, or None.

    The writer's own check of a single fact and the critic's check of any writer's case
    apply the same rules.
    """
    if _NOT_STANDALONE.search(question):
        return "not_standalone", "refers to a document it does not name"
    ruled = refusal(question, reference, chinese=is_chinese(question)) if kind == "single" else None
    if ruled is not None:
        return ("not_answerable" if ruled[1] == "leaning" else "trivial"), f"rule {ruled[0]}"
    if not is_chinese(question) and kind != "unanswerable":
        reason = dangling(question) or first_person(question)
        if reason is not None:
            return "not_standalone", reason
        if kind in ("single", "multi"):
            parts = _asked_parts(question) if kind == "multi" else [question]
            if kind == "multi" and _ITEM_LED.match(parts[-1]):
                # "…, and with BatchMode, to how many seconds …": the item it needs is a
                # condition the joined question cannot carry in passing.
                return "trivial", "its second half needs an option item of its own"
            for part in parts:
                if (reason := question_problem(part)) is not None:
                    return "trivial", reason
            answers = split_sentences(reference) if kind == "multi" else [reference]
            for part, answer in zip(parts, answers, strict=False):
                if (reason := parse_problem(part, answer)) is not None:
                    return "trivial", reason
        reason = reference_leans_on(reference) or verbless_reference(reference)
        if reason is not None:
            return "not_answerable", reason
    if _CLOZE.search(question):
        return "copied", "a fill-in-the-blank, not a question a user would ask"
    if copied_run(question, chunks) >= COPY_RUN:
        return "copied", f"repeats {COPY_RUN} or more consecutive words of its chunk"
    return None


def single_problem(question: str, reference: str, chunk: str) -> tuple[Any, str] | None:
    """Why the critic drops ``question`` as a single case of ``chunk``, or None."""
    shape = wording_problem("single", question, reference, [chunk])
    if shape is not None:
        return shape
    evidence = Evidence.of([chunk])
    for sentence in split_sentences(reference) or [reference]:
        support = check_support(sentence, evidence)
        if not support.supported:
            return "not_answerable", support.reason
    return _triviality(question, reference)


def _triviality(question: str, reference: str) -> tuple[Any, str] | None:
    """Why ``question`` tests nothing (too short, or it holds its own answer), or None."""
    if len(content_tokens(_strip_context(question))) < 2 and not _DEFINES.match(question):
        return "trivial", "too short to test anything"
    given = check_support(reference, Evidence.of([question]), threshold=0.95)
    if (
        given.supported
        and numbers(reference) <= numbers(question)
        and not _new_words(reference, question)
    ):
        return "trivial", "the question already holds its answer"
    return None


#: Words an answer may add without saying anything new.
_FUNCTION_WORDS = frozenset(
    "the a an is are was were be been to of in on at for by with and or as it its that this "
    "default defaults defaulted set value".split()
)


def _new_words(reference: str, question: str) -> set[str]:
    """Words of ``reference`` its question does not hold ("yes" of "… defaults to yes")."""
    asked = {word.lower() for word in re.findall(r"[\w./-]+", question)}
    said = {word.lower().rstrip(".") for word in re.findall(r"[\w./-]+", reference)}
    return {word for word in said - asked - _FUNCTION_WORDS if word}


#: An opener that ties the sentence to a case the sentence before describes.
_CASE_OPENER = re.compile(
    r"^(?:in (?:that|this|such|either|each|both|which) cases?|then|otherwise|here|there)\b", re.I
)


def _generic_subject(subject: str) -> bool:
    """Whether ``subject`` is a common noun phrase ("the return value") naming no one thing."""
    words = subject.split()
    return (
        bool(words)
        and not re.search(r"[A-Z_/.:]", subject)
        and (words[-1].lower() in wh_english.GENERIC_NOUNS)
    )


#: "What does by default X run?": a fronted "By default" without its comma kept in place.
_DEFAULT_INSIDE = re.compile(
    r"^(?P<lead>(?:" + CONTEXT + r")?[Ww]hat (?:do|does|did|is|are|was|were|can|will|must) )"
    r"by default,? (?P<rest>.+)\?$"
)


#: "What is LogLevel in frob.conf?": a question asking what a thing is.
_DEFINES_ASKED = re.compile(r"^(?:" + CONTEXT + r")?What (?:is|are) ")


def _sure(fact: Fact) -> Fact | None:
    """``fact`` asked cleanly (repaired where the repair is certain), or None."""
    return _sure_why(fact)[0]


def _sure_why(fact: Fact) -> tuple[Fact | None, str]:
    """``fact`` asked cleanly, or None and why not (a :data:`REFUSALS` key)."""
    question = repaired_question(fact.question, fact.answer)
    if question is None:
        return None, "misread"
    inside = _DEFAULT_INSIDE.match(question)
    if inside is not None:
        # "By default unattended-upgrades runs …" read with "by default" in the subject.
        question = f"{inside.group('lead')}{inside.group('rest')} by default?"
        fact = replace(fact, subject=re.sub(r"^by default,? ", "", fact.subject, flags=re.I))
    if re.match(r"^By default,\s", fact.sentence.strip()) and "by default" not in question:
        question = question[:-1] + " by default?"  # the default is what the sentence states
    fact = replace(fact, question=question)
    reference = _reference(fact)
    if fact_problem(fact) is not None:
        return None, "misread"
    subject = fact.subject.strip()
    if (
        _DEFINES_ASKED.match(fact.question)
        and subject
        and reference.lower().startswith(subject.lower())
        and restates_name(subject, reference[len(subject) :]) is not None
    ):
        return None, "vague"
    if reference_leans_on(reference) is not None or verbless_reference(reference) is not None:
        return None, "leaning"
    return fact, ""


# A sentence cut at the dot of a URL leaves its bare scheme at the question's end.
_ADDRESS = re.compile(r"<[^>]*>|\S@\S|\bhttps?://|\b(?:https?|ftp)\?$")
# "… exit if there?": the question stops where its sentence's condition begins.
_CUT_CONDITION = re.compile(r"\b(?:if|when|unless|because|whether) (?:there|it)\?$", re.I)
# "getopt is a program to help scripts parse options" states what it is for; asking why it
# is a program asks nothing the sentence answers.
_WHY_A_NOUN = re.compile(r"^(?:" + CONTEXT + r")?Why (?:is|are|was|were) .+ (?:a|an) [\w-]+\?$")
_OBJECT_QUESTION = re.compile(
    r"^(?:" + CONTEXT + r")?[Ww]hat (?:do|does|did|can|must|should|will|may|could|would|shall)"
    r" (?P<subject>.+) (?P<verb>[\w-]+)\?$"
)


#: Words a subject never ends with: "what do dots in host?" read "host" as the verb.
_SUBJECT_ENDS = frozenset("in of for on at to from with by into the a an".split())
#: "how many for security reasons …": the word after "how many" is what it counts.
_FUNCTION_UNIT = re.compile(
    r"^(?:" + CONTEXT + r")?(?:(?:at (?:least|most) )?(?:by )?[Hh]ow (?:many|much)|[Aa]fter how"
    r" many) (?:for|to|in|on|at|by|with|from|and|or|the|a|an)\b"
)
#: "with BatchMode, to how many seconds …": a question asked under an option item.
_ITEM_LED = re.compile(r"^[Ww]ith [^,]{1,40}, ")
#: "what do a PART-POLICY line identify?": a singular subject with a plural verb.
_DISAGREES = re.compile(
    r"^(?:" + CONTEXT + r")?(?:[Ww]hat|[Ww]hen|[Ww]here|[Ww]hy|[Hh]ow(?: \w+)?) do"
    r" (?:a|an|each|every|one|this|that)\s"
)


def _asked_parts(question: str) -> list[str]:
    """The questions a multi question joins ("What is X, and what is Y?"), each whole."""
    first, joined, second = question.partition(", and ")
    if not joined:
        return [question]
    return [first + "?", second[:1].upper() + second[1:]]


def question_problem(question: str) -> str | None:
    """Why an English question does not stand alone or asks nothing, or None."""
    if wants_infinitive(question):
        return "stops where an infinitive begins: what it asks is only in its answer"
    if _ADDRESS.search(question):
        return "an e-mail or web address is left inside it: its sentence was misread"
    if question.count("(") != question.count(")"):
        return "a parenthesis is cut in two: its sentence was misread"
    if _CUT_CONDITION.search(question):
        return "ends inside a condition: its sentence was misread"
    if _FUNCTION_UNIT.match(question):
        return "counts a function word ('how many for …'): its amount was misread"
    if _DISAGREES.match(question):
        return "its verb does not agree with its subject ('do a …'): its sentence was misread"
    if _WHY_A_NOUN.match(question):
        return "asks why it is what it is; its sentence says what it is for"
    reason = dangling(question) or unspecific(question)
    if reason is not None:
        return reason
    match = _OBJECT_QUESTION.match(question)
    subject_words = match.group("subject").lower().split() if match is not None else []
    if (
        subject_words
        and subject_words[-1] in _SUBJECT_ENDS
        and not any(word in wh_english.BASE_VERBS for word in subject_words[1:])
    ):
        # "… run by default?" has its verb before the preposition; "dots in host?" has none.
        return "its verb follows a preposition: a noun was read as the verb"
    if match is not None:
        return empty_predicate(question, match.group("subject"), match.group("verb"))
    return None


_DEFINITION_QUESTION = re.compile(
    r"^(?:" + CONTEXT + r")?[Ww]hat (?P<aux>is|are|was|were) (?P<term>[^?]+?)(?: in [\w./-]+)?\?$"
)


def parse_problem(question: str, reference: str) -> str | None:
    """Why ``reference`` shows that ``question`` misreads its sentence, or None.

    The writer refuses these parses from the sentence itself; the critic reads the same
    misreading off any writer's reference: a purpose asked as a value ("introduced to?" of
    "introduced to capture …"), a passive or a role asked as a definition ("what are the
    contents of X?" of "… are included to …", "what is UDP/IPv6?" of "… is the protocol
    to be used"), an amount of unnamed things as the object ("a bunch that …").
    """
    reason = purpose_asked_as_value(question, reference) or amount_problem(question, reference)
    if reason is not None:
        return reason
    definition = _DEFINITION_QUESTION.match(question)
    if definition is not None:
        term = re.sub(r"^(?:the|a|an) ", "", definition.group("term"), flags=re.I)
        if reference.lower().startswith(term.lower()):
            predicate = reference[len(term) :]
            reason = states_advice(predicate) or restates_name(term, predicate)
            if reason is not None:
                return reason
        stated = re.search(
            rf"\b{re.escape(term)}\s+(?:is|are|was|were)\s+(?P<rest>.+)", reference, re.I
        )
        if stated is not None:
            return wh_english.not_a_definition(stated.group("rest")) or misread_answer(
                "what", stated.group("rest").strip()
            )
    if not re.match(r"^(?:" + CONTEXT + r")?[Ww]hat\b", question):
        return None
    # What follows the question's last word in the reference is what it asks for: "what
    # does X accept?" → "accept(s) …", "what are X treated as?" → "treated as …".
    last = re.search(r"([\w-]+)\?$", question)
    if last is None:
        return None
    said = re.search(
        rf"\b{re.escape(last.group(1).lower())}(?:s|es)?\s+(?P<object>[^,;.]+)",
        reference.replace("ies ", "y "),
        re.I,
    )
    if said is not None:
        return misread_answer("what", said.group("object").strip())
    return None


def _tidied(fact: Fact) -> Fact:
    question = tidy(fact.question)
    if question == fact.question:
        return fact
    return replace(fact, question=question)


def _with_document(fact: Fact, name: str) -> Fact:
    if not name or any(
        word in wh_english.words(fact.question) for word in wh_english.words(name) if len(word) > 3
    ):
        return fact
    question = fact.question
    if question.startswith("In "):
        return fact
    return replace(fact, question=f"In {name}, {question[0].lower()}{question[1:]}")


def _single(
    chunk: str, title: str, chinese: bool, slot: int, names: frozenset[str] = frozenset()
) -> SynthQuestion | None:
    facts = chunk_facts(chunk, title, chinese, names)
    if not facts:
        return None
    fact = facts[slot % len(facts)]
    return SynthQuestion(
        kind="single", question=fact.question, reference=_reference(fact), chunks=[0]
    )


def _reference(fact: Fact) -> str:
    """What answers ``fact``'s question: the clause holding its answer."""
    clause = answering_clause(fact.sentence, fact.answer, _strip_context(fact.question))
    pronoun = re.match(r"^(?:It|They|He|She)\b", clause)
    named = fact.subject.strip()
    if pronoun is not None and named and named.split()[0].lower() not in _REFERENCE_PRONOUNS:
        # "It was written by Jane Doe": the question names Frobnicator, so does its answer.
        clause = named[:1].upper() + named[1:] + clause[pronoun.end() :]
    clause = _ANCHOR.sub("", clause)
    return _MARKDOWN_REFERENCE.sub(r"\g<text>", _MARKDOWN_LINK.sub(_link_text, clause))


#: "frobc <#std-iscman-frobc>", "the manual <https://…>": a rendered link's target left
#: after its text; the reference keeps the text.
_ANCHOR = re.compile(r"\s*<(?:#[^<>\s]+|[a-z][\w+.-]*://[^<>\s]+)>")

_REFERENCE_PRONOUNS = frozenset("it they he she this these that those".split())


#: "[Salsa](https://…)": a reviewer reads the link's text and its address, not the markup.
#: "[CORBA][CORBA]": a reference-style link reads as its text (the address is elsewhere).
_MARKDOWN_REFERENCE = re.compile(r"\[(?P<text>[^\]\[]+)\]\[[^\]\[]*\]")
_MARKDOWN_LINK = re.compile(r"\[(?P<text>[^\]\[]+)\]\((?P<address>[^()\s]+)\)")


def _link_text(match: re.Match[str]) -> str:
    text, address = match.group("text"), match.group("address")
    return text if text == address else f"{text} ({address})"


def _references(a: Fact, b: Fact, chinese: bool) -> str:
    """The references of two facts, once each (two facts of one sentence repeat nothing)."""
    first, second = _reference(a), _reference(b)
    if first == second or second in first:
        return first
    if first in second:
        return second
    if a.sentence == b.sentence:
        return a.sentence
    return f"{first}{'' if chinese else ' '}{second}"


def _strip_context(question: str) -> str:
    """The second of two joined questions, without the context the first one gives."""
    question = re.sub(r"^" + CONTEXT, "", question)
    question = re.sub(r"^在[^，]{1,30}中，", "", question)
    return question[0].lower() + question[1:] if question[:1].isascii() else question


def _joined(first: str, second: str, chinese: bool) -> str:
    """Two questions as one, the place they share said once.

    >>> _joined("In ssh_config, what is X?", "What is Y in ssh_config?", False)
    'In ssh_config, what is X, and what is Y?'
    """
    if chinese:
        return first.rstrip("？?") + "，" + _strip_context(second).rstrip("？?") + "？"
    second = _strip_context(second)
    place = re.search(r" in [^?]{1,60}\?$", first)
    lead = re.match(r"In ([^,]{1,60}), ", first)
    if lead and not place:
        place = re.search(rf" in {re.escape(lead.group(1))}\?$", second)
    if place and second.endswith(place.group()):
        second = second[: -len(place.group())] + "?"  # "… in apt.conf" once is enough
    return first.rstrip("?") + ", and " + second


def _comparison(a: Fact, b: Fact, chinese: bool) -> tuple[str, str] | None:
    if a.value is None or b.value is None or a.value == b.value:
        return None
    if a.unit != b.unit or not a.unit or a.question == b.question:
        return None
    larger, smaller = (a, b) if a.value > b.value else (b, a)
    both = _joined(a.question, b.question, chinese)
    if a.unit == "year":
        years = int(abs(a.value - b.value))
        earlier = smaller
        if chinese:
            return (
                both.rstrip("？") + "？哪个更早，相差几年？",
                f"{_references(a, b, chinese)}{earlier.answer}更早，相差{years}年。",
            )
        return (
            both.rstrip("?") + "? Which came first, and how many years apart?",
            f"{_references(a, b, chinese)} {earlier.answer} came first, {years} years earlier.",
        )
    same_unit = re.sub(r"[\d.,$€£\s]", "", larger.answer.split(" of ")[0]) == re.sub(
        r"[\d.,$€£\s]", "", smaller.answer.split(" of ")[0]
    )
    numbers_of = [
        re.search(r"\d+(?:\.\d+)?", fact.answer.replace(",", "")) for fact in (larger, smaller)
    ]
    gap_text = ""
    if same_unit and numbers_of[0] and numbers_of[1]:
        gap = float(numbers_of[0].group()) - float(numbers_of[1].group())
        amount = _amount_text(larger).split(" of ")[0]
        unit = amount[numbers_of[0].end() :] if amount.startswith(numbers_of[0].group()) else ""
        unit = re.sub(r"^.*?\d[\d.,]*", "", amount).strip() or unit
        money = (
            re.match(r"[$€£]", re.sub(r"^\D*?(?=[$€£])", "", amount))
            if "$" in amount or "€" in amount or "£" in amount
            else None
        )
        gap_text = f"{money.group() if money else ''}{gap:g}" + (
            ("" if chinese else " ") + unit if unit else ""
        )
    elif a.unit in ("size", "time") and larger.value is not None and smaller.value is not None:
        # "20971520 bytes (~20 MB)" and "10MB": the gap in the unit both convert to.
        gap_text = _base_gap(larger.value - smaller.value, a.unit)
    if chinese:
        question = both.rstrip("？") + "？哪个更多，多多少？"
        reference = f"{_references(a, b, chinese)}{larger.answer}多于{smaller.answer}" + (
            f"，多{gap_text}。" if gap_text else "。"
        )
        return question, reference
    comparative = "longer" if a.unit == "time" else "larger"
    question = both.rstrip("?") + f"? Which is {comparative}, and by how much?"
    more, less = _amount_text(larger), _amount_text(smaller)
    if larger.question.startswith("What is the default of "):
        # Two options' defaults: the option names carry the comparison.
        reference = (
            f"{_references(a, b, chinese)} The default of {larger.subject} is {comparative} "
            f"than that of {smaller.subject}" + (f", by {gap_text}." if gap_text else ".")
        )
        return question, reference
    reference = (
        f"{_references(a, b, chinese)} {more[0].upper()}{more[1:]} ({larger.subject}) is more "
        f"than {less} ({smaller.subject})" + (f", by {gap_text}." if gap_text else ".")
    )
    return question, reference


def _base_gap(gap: float, unit: str) -> str:
    """A gap in megabytes or minutes as a reader writes it (``10 MB``, ``90 seconds``)."""
    if unit == "size":
        return (
            f"{gap:.3g} GB"
            if gap >= 1000
            else f"{gap:.3g} MB"
            if gap >= 1
            else f"{gap * 1000:.3g} KB"
        )
    for name, minutes in (("days", 1440.0), ("hours", 60.0), ("minutes", 1.0)):
        if gap >= minutes:
            return f"{gap / minutes:.3g} {name}"
    return f"{gap * 60:.3g} seconds"


def _question_words(fact: Fact) -> set[str]:
    return {
        token.text
        for token in content_tokens(_strip_context(fact.question))
        if token.text not in _WH_WORDS
    }


def _amount_text(fact: Fact) -> str:
    """The amount a fact answers, without the preposition that led to it."""
    return re.sub(
        r"^(?:(?:for|within|in|after|before|with|at|to|of|by|every)\s+)?"
        r"(?:(?:up to|at most|at least|about|around|over|more than|less than)\s+)?",
        "",
        fact.answer,
    )


def reasoning_pairs(
    chunks: Sequence[str],
    titles: Sequence[str],
    chinese: bool,
    names: frozenset[str] = frozenset(),
) -> list[tuple[str, str, list[int]]]:
    """Comparisons of two facts of the given chunks (one document): question, reference, cited.

    Two amounts compare when they count the same unit and their questions share a word
    ("versions kept on Team" / "on Solo"); two dates always compare (which came first).
    """
    facts = [
        (index, fact)
        for index, (chunk, title) in enumerate(zip(chunks, titles, strict=False))
        for fact in chunk_facts(chunk, title, chinese, names)
        if fact.value is not None
    ]
    scored: list[tuple[int, int, tuple[str, str, list[int]]]] = []
    for position, (at, first) in enumerate(facts):
        for other_at, second in facts[position + 1 :]:
            if first.sentence == second.sentence and first.answer == second.answer:
                continue
            made = _comparison(first, second, chinese)
            alike = len(_question_words(first) & _question_words(second))
            dated = first.unit == second.unit == "year" and first.subject != second.subject
            if made is not None and (alike >= 2 or (alike and first.wh == second.wh) or dated):
                cited = sorted({at, other_at})
                scored.append((-alike, len(scored), (*made, cited)))
    return [made for _, _, made in sorted(scored)]


def _reasoning(
    chunks: Sequence[str],
    titles: Sequence[str],
    chinese: bool,
    slot: int,
    names: frozenset[str] = frozenset(),
) -> SynthQuestion | None:
    pairs = reasoning_pairs(chunks, titles, chinese, names)
    if not pairs:
        return None
    question, reference, cited = pairs[slot % len(pairs)]
    return SynthQuestion(kind="reasoning", question=question, reference=reference, chunks=cited)


#: Units written in capitals ("GB", "USD") name no entity two facts could share.
_UNIT_NAME = re.compile(r"[kmgtp]i?b|bytes?|usd|eur|gbp|cpu|ram|\d[\w.]*", re.IGNORECASE)


def _entity_words(fact: Fact) -> set[str]:
    """The names a fact's question is about (capitalised words), and its whole subject."""
    names = {
        token.text
        for token in content_tokens(_strip_context(fact.question))
        if token.entity and not _UNIT_NAME.fullmatch(token.text)
    }
    subject = (fact.subject or "").lower().split()
    if all(word in wh_english.GENERIC_NOUNS | {"the", "a", "an"} for word in subject):
        return names  # "files" links nothing: every document has files
    return names | {" ".join(subject[-3:])} - {""}


#: "What is GNU Wget?": what a thing is, asked before its other properties.
_DEFINITION = re.compile(r"^(?:" + CONTEXT + r")?[Ww]hat (?:is|are) [^,?]{1,40}\?$")


def multi_links(
    fact: Fact, chinese: bool, terms: Collection[str] = (), title: str = ""
) -> set[str]:
    """What ``fact`` can link to another chunk's fact: the specific things its question names.

    English: proper names, commands, files and options (:func:`.entities.named_things`);
    Chinese: the names its question is about (capitalised Latin words, its subject). The
    name of the fact's own document is no link: every chunk of it is about that.
    """
    found = _entity_words(fact) if chinese else named_things(fact.question, terms)
    return found - {short_name(title).lower()}


def chunk_terms(chunk: str, title: str) -> set[str]:
    """The options a reference list of ``chunk`` describes (``timeout``, ``DIR_MODE``)."""
    found: set[str] = set()
    for fact in term_facts(chunk, short_name(title)):
        found.update(part.strip() for part in re.split(r",| and ", fact.subject) if part.strip())
    return found


def multi_pairs(
    chunks: Sequence[str],
    titles: Sequence[str],
    chinese: bool,
    names: frozenset[str] = frozenset(),
    distinctive: Distinctive | None = None,
) -> list[tuple[Fact, Fact, str]]:
    """Facts of the first and the second chunk about one distinctive named thing, the best.

    Each pair asks two properties of one thing — a name, a command, a file or an option few
    documents mention — each stated in its own chunk; a shared common word or a name every
    document mentions links nothing.
    """
    if len(chunks) < 2:
        return []
    rare = distinctive or Distinctive(chunks, titles)
    first = chunk_facts(chunks[0], titles[0], chinese, names)
    second = chunk_facts(chunks[1], titles[1], chinese, names)
    terms = chunk_terms(chunks[0], titles[0]) | chunk_terms(chunks[1], titles[1]) | rare.commands
    links_b = [multi_links(b, chinese, terms, titles[1]) for b in second]
    scored: list[tuple[int, int, tuple[Fact, Fact, str]]] = []
    for a in first:
        links_a = multi_links(a, chinese, terms, titles[0])
        for b, linked in zip(second, links_b, strict=True):
            shared = sorted(
                (link for link in links_a & linked if rare.allows(link)),
                key=lambda link: (-len(link), link),
            )
            same = _strip_context(a.question) == _strip_context(b.question) or a.answer == b.answer
            if not shared or a.sentence == b.sentence or same:
                continue
            # Both facts are about the thing itself ("GNU Wget is …", "Wget has been …"): the
            # strongest pair; one that names it only in passing comes after.
            about = sum(shared[0] in fact.subject.lower() for fact in (a, b))
            strength = _link_strength(a, b) + 2 * about
            scored.append((-strength, len(scored), (a, b, shared[0])))
    if not scored:
        return []
    # Only the pairs a reader would ask together most: a weak link (an option's default
    # beside another's description) only when there is nothing better.
    best = min(score for score, _, _ in scored)
    return [pair for score, _, pair in sorted(scored) if score == best]


def _multi(
    chunks: Sequence[str],
    titles: Sequence[str],
    chinese: bool,
    slot: int,
    names: frozenset[str] = frozenset(),
    distinctive: Distinctive | None = None,
) -> SynthQuestion | None:
    pairs = []
    for a, b, _ in multi_pairs(chunks, titles, chinese, names, distinctive):
        if _DEFINITION.match(b.question) and not _DEFINITION.match(a.question):
            a, b = b, a  # what the thing is, then the rest: "What is GNU Wget, and …"
        if not _ITEM_LED.match(_strip_context(b.question)):
            pairs.append((a, b))  # "…, and with BatchMode, …" the critic drops
    if not pairs:
        return None
    a, b = pairs[slot % len(pairs)]
    return SynthQuestion(
        kind="multi",
        question=_joined(a.question, b.question, chinese),
        reference=_references(a, b, chinese),
        chunks=[0, 1],
    )


def _link_strength(a: Fact, b: Fact) -> int:
    """How strongly two facts belong in one question (0: they only share a word)."""
    score = 0
    if (a.subject and a.subject in b.sentence) or (b.subject and b.subject in a.sentence):
        score += 2
    parts_a = set(re.split(r"[_:\-\s]+", a.subject.lower())) - {"", "and", "or"}
    parts_b = set(re.split(r"[_:\-\s]+", b.subject.lower())) - {"", "and", "or"}
    asked_alike = a.question.replace(a.subject, "\0") == b.question.replace(b.subject, "\0")
    if asked_alike and parts_a & parts_b:
        score += 1
    return score


def chunk_entities(chunk: str, title: str, chinese: bool) -> list[str]:
    """What the chunk names: proper names, and the subjects its facts are about."""
    _, body = _heading_and_body(chunk)
    found: list[str] = []
    if chinese:
        for match in _CJK_ENTITY.finditer(body):
            entity = match.group("book") or match.group("latin")
            if match.group("book") or not re.fullmatch(r"[A-Z]{1,3}|[a-z]+", entity):
                found.append(entity)  # not a unit ("GB") or a lowercase word
    else:
        # Things the chunk states facts about: their other properties are plausible asks.
        found += [
            fact.subject
            for fact in chunk_facts(chunk, title, chinese)
            if fact.subject and fact.subject[:1].isupper()
        ]
    cleaned = []
    for entity in found:
        entity = entity.strip()
        if 2 <= len(entity) <= 40 and entity.lower() not in ("the", "it", "this"):
            cleaned.append(entity)
    return list(dict.fromkeys(cleaned))


_CJK_SIBLING = re.compile(
    r"(?P<head>[^\W\d_的给在了是和与每个为从到对由将把被也都就a-zA-Z]{2,3}?)(?P<kind>版|计划|套餐)(?!本|权|面)"
)
_SIBLING = re.compile(r"\b(?P<head>[A-Z][\w+-]*) (?P<kind>[a-z][\w-]{2,})\b")
#: Identifiers of a code base (``ASN1_MAX_NAME_SIZE``, ``ffi_prep_cif``): their siblings
#: share the first part (``ASN1_MAX_ERROR_DESCRIPTION_SIZE``).
_IDENTIFIER = re.compile(r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]\b")
_WH_WORDS = frozenset("long much many often old larg big small".split())


class Corpus:
    """Every chunk of the corpus, for near misses: siblings of an entity, what is stated."""

    def __init__(
        self,
        texts: Sequence[str],
        titles: Sequence[str] = (),
        chunk_titles: Sequence[str] = (),
    ) -> None:
        self.texts = list(texts)
        self.sentences = [sentence for text in self.texts for sentence in split_sentences(text)]
        self.names = frozenset().union(
            *(wh_english.proper_words(text) for text in [*self.texts, *titles])
        )
        #: Which names few enough documents mention to link two chunks (``multi``).
        self.distinctive = Distinctive(self.texts, chunk_titles)
        self._kinds: dict[str, set[str]] = {}
        # Terms of reference lists per document title: whether a default is given.
        self._terms: dict[str, dict[str, bool]] = {}
        aligned = list(chunk_titles) if len(chunk_titles) == len(self.texts) else []
        for number, text in enumerate(self.texts):
            terms = self._terms.setdefault(aligned[number] if aligned else "", {})
            lines = text.split("\n")
            for at, line in enumerate(lines):
                if not is_term(line.strip()):
                    continue
                # The term's description runs to the next term: a default may be stated in
                # any of its paragraphs.
                end = next(
                    (i for i in range(at + 1, len(lines)) if is_term(lines[i].strip())),
                    len(lines),
                )
                following = " ".join(lines[at + 1 : end])
                stated = _TERM_DEFAULT.search(following) is not None
                for term in re.split(r",\s*|\s+and\s+|\s+or\s+", line.strip().rstrip("=")):
                    # "USERS_GROUP defaults to users" inside the paragraph states it too.
                    named = re.search(rf"\b{re.escape(term)}\s+defaults?\s+to\b", following)
                    terms[term] = terms.get(term, False) or stated or named is not None
        self._chunk_titles = aligned
        self._asked: dict[bool, frozenset[str]] = {}
        self._identifiers: dict[str, set[str]] = {}
        for identifier in {m.group() for text in self.texts for m in _IDENTIFIER.finditer(text)}:
            self._identifiers.setdefault(_family(identifier), set()).add(identifier)
        for sentence in self.sentences:
            for pattern in (_SIBLING, _CJK_SIBLING):
                for match in pattern.finditer(sentence):
                    if pattern is _SIBLING and match.start() == 0:
                        continue  # a capitalised sentence opener names nothing
                    if match.group("kind") in _NOT_A_KIND:
                        continue  # "UID_POOL and …": no kind of thing
                    self._kinds.setdefault(match.group("kind"), set()).add(match.group("head"))

    def asks(self, question: str, chinese: bool) -> bool:
        """Whether the writer asks ``question`` of some chunk, i.e. the corpus answers it.

        A near miss is built by swapping a name; when the swapped question is one the
        corpus itself answers, calling it unanswerable would label a case wrongly.
        """
        if chinese not in self._asked:
            titles = self._chunk_titles or [""] * len(self.texts)
            self._asked[chinese] = frozenset(
                fact.question
                for text, title in zip(self.texts, titles, strict=True)
                for fact in chunk_facts(text, title, chinese, self.names)
            )
        return question in self._asked[chinese]

    def terms_without_default(self, term: str, title: str = "") -> list[str]:
        """Other terms of the document's reference lists whose description gives no default."""
        terms = self._terms.get(title if title in self._terms else "", {})
        # A command-line flag ("-v, --verbose") takes no value: it has no default to miss.
        return sorted(
            other
            for other, has in terms.items()
            if not has and other != term and not other.startswith("-")
        )

    def siblings(self, head: str, kind: str) -> list[str]:
        """Other names the corpus gives things of ``kind`` ("Business" beside "Team plan")."""
        return sorted(self._kinds.get(kind, set()) - {head})

    def sibling_identifiers(self, identifier: str) -> list[str]:
        """Other identifiers of the same family the corpus names."""
        return sorted(self._identifiers.get(_family(identifier), set()) - {identifier})

    def states(self, question: str, entity: str) -> bool:
        """Whether a sentence naming ``entity`` answers ``question``.

        What the question asks beyond the entity must be covered by one such sentence; a
        bare "What is X?" is answered only by a sentence defining X.
        """
        mentions = [s for s in self.sentences if entity.lower() in s.lower()]
        if not mentions:
            return False
        named = {token.text for token in content_tokens(entity)}
        # "What is X in deluser.conf?": the page's name is where, not what, it asks.
        asked = re.sub(r" in [^\s?]+\?$", "?", _strip_context(question))
        tokens = [
            t for t in content_tokens(asked) if t.text not in _WH_WORDS and t.text not in named
        ]
        if not tokens:
            defines = re.compile(
                rf"{re.escape(entity)}\s*(?:is|are|means|refers to|stands for|specifies|sets"
                r"|selects|defines|controls|determines|names|holds|contains|describes"
                r"|indicates|enables|disables|是|指)\b",
                re.I,
            )
            return any(defines.search(sentence) for sentence in mentions)
        evidence = Evidence.of(mentions)
        return sum(evidence.covers(token.text) for token in tokens) / len(tokens) >= 0.6


def _family(identifier: str) -> str:
    parts = identifier.split("_")
    return "_".join(parts[:2]) if len(parts) > 2 else parts[0]


#: A term's paragraph that gives its default anywhere (conservative: no near miss on it).
_TERM_DEFAULT = re.compile(
    r"\b[Dd]efault(?:s|ing)? (?:to|is)\b|\b[Tt]he default (?:value )?is\b|\(the default\)"
    r"|\b[Bb]y default\b|\(default[:\s]|\b[Tt]he default, |\b[Tt]he default for this \w+ is\b"
    r"|\b[Dd]efault(?: value)?:\s*\S"
    # Any word of its default, or of what happens when it is not set, says something of it:
    # a near miss on it may be answered there ("If no address is given, no report is sent").
    r"|\b[Dd]efaults?\b|\b(?:[Ii]f|[Uu]nless|[Ww]hen)\b[^.]{0,40}\b(?:not|no|un)(?:set|given"
    r"|specified|present|defined)?\b|\b(?:[Ii]f|[Uu]nless|[Ww]hen) (?:omitted|unset|empty|absent)"
    r"|\b[Oo]therwise\b|\b[Uu]nless (?:it is |this is )?(?:set|given|specified|present|defined)\b"
)
_DEFAULT_QUESTION = re.compile(r"^What is the default of (?P<term>\S+) in ")
_NOT_A_KIND = frozenset("and or is are was were the of to in on for with by as at".split())
#: "version 1" after the swapped name: the number belongs to the first thing, not the sibling.
_UNLIKE_SIBLINGS = re.compile(r"^[\w+-]+ [a-z][\w-]* \d")
#: Kinds whose siblings each hold a different sort of value (seconds, a path, yes/no).
_TYPED = frozenset(
    "option options parameter parameters setting settings variable variables "
    "field fields directive directives flag flags keyword keywords".split()
)
_AMOUNT_KINDS = frozenset({"how_long", "how_much", "how_many", "percentage"})
#: A lowercase identifier with a capitalised part: a placeholder ("libnss_SERVICE").
_PLACEHOLDER = re.compile(r"[a-z][a-z0-9]*_[A-Z][A-Z0-9]+\b|\b[A-Z][A-Z0-9]+_[a-z]")


def _swapped(chunk: str, title: str, chinese: bool, corpus: Corpus) -> list[tuple[str, str]]:
    """Fact questions of the chunk asked of a sibling the corpus says nothing about."""
    found = []
    for fact in chunk_facts(chunk, title, chinese, corpus.names):
        if re.search(r",| and | or ", fact.subject or ""):
            continue  # "FIRST_GID and LAST_GID": swapping one of two names asks nonsense
        default = _DEFAULT_QUESTION.match(fact.question)
        if default:
            # An option whose default the documents give, asked of one whose they do not.
            for term in corpus.terms_without_default(default.group("term"), title):
                found.append((fact.question.replace(default.group("term"), term, 1), term))
            continue
        pattern = _CJK_SIBLING if chinese else _SIBLING
        context = re.match(CONTEXT + r"|在[^，]{1,30}中，", fact.question)
        for match in pattern.finditer(fact.question, context.end() if context else 0):
            if not chinese and match.start() == 0:
                continue
            if not chinese and match.group("kind") in wh_english.GENERIC_NOUNS:
                continue  # "Log file" → "README file": files of no one kind, nonsense
            if not chinese and _UNLIKE_SIBLINGS.search(fact.question[match.start() :]):
                continue  # "JFIF version 1" → "GCC version 1": siblings of a different sort
            if not chinese and fact.wh in _AMOUNT_KINDS and match.group("kind") in _TYPED:
                continue  # another option need not count seconds: no near miss, nonsense
            for sibling in corpus.siblings(match.group("head"), match.group("kind")):
                question = (
                    fact.question[: match.start("head")]
                    + sibling
                    + fact.question[match.end("head") :]
                )
                entity = f"{sibling}{'' if chinese else ' '}{match.group('kind')}"
                if not corpus.states(question, entity):
                    found.append((question, entity))
        for match in _IDENTIFIER.finditer(fact.question, context.end() if context else 0):
            if _PLACEHOLDER.search(match.group()):
                continue  # "libnss_SERVICE" stands for every sibling: each is answered
            for sibling in corpus.sibling_identifiers(match.group()):
                question = fact.question[: match.start()] + sibling + fact.question[match.end() :]
                if not corpus.states(question, sibling):
                    found.append((question, sibling))
    return [(question, entity) for question, entity in found if not corpus.asks(question, chinese)]


def _near_miss(
    chunk: str, title: str, chinese: bool, slot: int, corpus: Corpus | None
) -> tuple[str, str] | None:
    options = _swapped(chunk, title, chinese, corpus) if corpus is not None else []
    if not options and corpus is None:
        # Without the corpus no sibling is known: a property the chunk never states.
        properties = _CJK_PROPERTIES if chinese else _PROPERTIES
        for entity in chunk_entities(chunk, title, chinese):
            stated = [s for s in split_sentences(chunk) if entity.lower() in s.lower()]
            for template, cue in properties:
                if not any(re.search(cue, sentence, re.IGNORECASE) for sentence in stated):
                    options.append((template.format(entity=entity), entity))
    if not options:
        return None
    start = _stable_pick(chunk, len(options))
    return options[(start + slot) % len(options)]


def _unanswerable(
    chunk: str, title: str, chinese: bool, slot: int, corpus: Corpus | None
) -> SynthQuestion | None:
    picked = _near_miss(chunk, title, chinese, slot, corpus)
    if picked is None:
        return None
    return SynthQuestion(
        kind="unanswerable",
        question=picked[0],
        reference=_CJK_NO_ANSWER if chinese else _NO_ANSWER,
        chunks=[],
    )


def write_questions(request: WriteQuestions, corpus: Corpus | None = None) -> SynthQuestions:
    """One question per requested kind, or fewer when the chunks hold too few facts."""
    questions: list[SynthQuestion] = []
    chunk, title = request.chunks[0], request.titles[0]
    chinese = request.chinese
    names = corpus.names if corpus is not None else frozenset()
    for position, kind in enumerate(request.kinds):
        taken = {question.question for question in questions} | set(request.avoid)
        # A chunk asked again starts past the facts its earlier questions used.
        for attempt in range(4):
            slot = position + len(request.avoid) + attempt
            written: SynthQuestion | None
            if kind == "single":
                written = _single(chunk, title, chinese, slot, names)
            elif kind == "reasoning":
                written = _reasoning(request.chunks, request.titles, chinese, slot, names)
            elif kind == "multi":
                written = _multi(
                    request.chunks,
                    request.titles,
                    chinese,
                    slot,
                    names,
                    corpus.distinctive if corpus is not None else None,
                )
            elif kind == "conversation":
                written = _conversation(chunk, title, chinese, slot, names)
            else:
                written = _unanswerable(chunk, title, chinese, slot, corpus)
            if written is None:
                break
            if written.question not in taken:
                questions.append(written)
                break
    return SynthQuestions(questions=questions)


class OfflineSynthJudge:
    """Answers the synth requests with the heuristics above; usage stays zero.

    Args:
        corpus: every chunk text, so the critic can tell that an unanswerable question is
            not answered anywhere in the corpus (an LLM critic sees only the unit's chunks).
        titles: the title of each chunk's document (names show capitalised there too; a
            near miss on an option stays within its document).
    """

    def __init__(self, corpus: Sequence[str] = (), titles: Sequence[str] = ()) -> None:
        self._texts = list(corpus)
        self._corpus = Evidence.of(self._texts) if corpus else None
        self._near = Corpus(self._texts, sorted(set(titles)), titles) if corpus else None

    @property
    def kind(self) -> str:
        """Always ``offline``."""
        return "offline"

    @property
    def model(self) -> str:
        """The heuristics' version."""
        return "synth-heuristic-v3"

    @property
    def capabilities(self) -> JudgeCapabilities:
        """None beyond answering."""
        return JudgeCapabilities()

    async def ask(
        self, request: JudgeRequest[ReplyT], *, context: AskContext = NO_CONTEXT
    ) -> Answer[ReplyT]:
        """Answer ``request`` at once."""
        original: JudgeRequest[ReplyT] = request
        reply: SynthQuestions | Critiques
        if isinstance(request, WriteQuestions):
            reply = write_questions(request, self._near)
        elif isinstance(request, CritiqueQuestions):
            reply = self.critique(request)
        else:
            raise JudgeError(f"The offline synth judge cannot answer a {request.kind!r} request.")
        # Round-tripped through the reply model, as the LLM judges' replies are.
        return Answer(reply=original.parse_reply(reply.model_dump()), usage=Usage())

    async def embed(self, texts: Sequence[str], *, context: AskContext) -> Embedded:
        """The heuristics have no embeddings."""
        raise no_embeddings(self.kind)

    async def aclose(self) -> None:
        """Nothing to release."""

    def critique(self, request: CritiqueQuestions) -> Critiques:
        """One verdict per candidate (see the module docstring for the rules)."""
        verdicts = []
        for index, candidate in enumerate(request.candidates):
            problem, reason = self._problem(
                request, candidate.kind, candidate.question, candidate.reference, candidate.chunks
            )
            for follow_up in candidate.follow_ups if problem == "ok" else []:
                problem, reason = self._follow_up_problem(
                    request, candidate.question, follow_up, candidate.reference
                )
                if problem != "ok":
                    break
            verdicts.append(
                Critique(index=index, keep=problem == "ok", problem=problem, reason=reason)
            )
        kept_singles = {
            candidate.question.strip().lower()
            for candidate, verdict in zip(request.candidates, verdicts, strict=True)
            if candidate.kind == "single" and verdict.keep
        }
        for candidate, verdict in zip(request.candidates, verdicts, strict=True):
            parts = _asked_parts(candidate.question) if candidate.kind == "multi" else []
            if (
                verdict.keep
                and len(parts) == 2
                and all(part.strip().lower() in kept_singles for part in parts)
            ):
                # Two single cases joined by "and" test nothing the two do not test apart.
                verdict.keep, verdict.problem = False, "trivial"
                verdict.reason = "each half is already a single case word for word"
        return Critiques(verdicts=verdicts)

    def _problem(
        self,
        request: CritiqueQuestions,
        kind: QuestionKind,
        question: str,
        reference: str,
        cited: Sequence[int],
    ) -> tuple[Any, str]:
        shape = wording_problem(kind, question, reference, request.chunks)
        if shape is not None:
            return shape
        if kind == "unanswerable":
            return self._unanswerable_problem(request, question)
        if not cited or any(not 0 <= index < len(request.chunks) for index in cited):
            return "not_answerable", "cites no valid chunk"
        if kind == "multi":
            commands = self._near.distinctive.commands if self._near is not None else ()
            problem = _multi_problem(request, question, reference, cited, commands)
            if problem is not None:
                return problem
        evidence = Evidence.of([request.chunks[index] for index in cited])
        stated = split_sentences(reference) or [reference]
        if kind == "reasoning" and len(stated) > 2:
            stated = stated[:-1]  # the last sentence is the comparison worked out from them
        for sentence in stated:
            support = check_support(sentence, evidence)
            if not support.supported:
                return "not_answerable", support.reason
        if kind == "reasoning":
            if not _COMPARISON.search(question):
                return "wrong_kind", "asks no comparison or computation"
            if len(numbers(reference)) < 2:
                return "wrong_kind", "the reference does not combine two facts"
        return _triviality(question, reference) or (
            "ok",
            "standalone, supported by its chunks, of its kind",
        )

    def _follow_up_problem(
        self, request: CritiqueQuestions, first: str, follow_up: SynthTurn, first_reference: str
    ) -> tuple[Any, str]:
        """A conversation's later turn: it needs the history, and its chunks support it."""
        missing = needs_history(follow_up.question, first)
        if missing is not None:
            return "not_standalone", missing
        if follow_up.reference.strip() == first_reference.strip():
            return "trivial", "the follow-up asks again what the first turn answered"
        cited = follow_up.chunks
        if not cited or any(not 0 <= index < len(request.chunks) for index in cited):
            return "not_answerable", "a follow-up cites no valid chunk"
        evidence = Evidence.of([request.chunks[index] for index in cited])
        for sentence in split_sentences(follow_up.reference) or [follow_up.reference]:
            support = check_support(sentence, evidence)
            if not support.supported:
                return "not_answerable", f"a follow-up's reference: {support.reason}"
        return "ok", "each follow-up needs the earlier turns and is supported by its chunks"

    def _unanswerable_problem(self, request: CritiqueQuestions, question: str) -> tuple[Any, str]:
        corpus = self._texts or list(request.chunks)
        entity, cue = _near_miss_parts(question)
        if entity is None or cue is None:
            return _generic_unanswerable(question, Corpus(corpus))
        mentions = [
            sentence
            for text in corpus
            if entity.lower() in text.lower()
            for sentence in split_sentences(text)
            if entity.lower() in sentence.lower()
        ]
        if not mentions:
            return "wrong_kind", f"{entity!r} is not named in the documents: not a near miss"
        if any(re.search(cue, sentence, re.IGNORECASE) for sentence in mentions):
            return "answered", f"the documents say this about {entity!r}"
        return "ok", f"the documents name {entity!r} but never say this about it"


def _generic_unanswerable(question: str, corpus: Corpus) -> tuple[Any, str]:
    """A near miss names the corpus's entities, and no sentence of the corpus answers it."""
    tokens = content_tokens(_strip_context(question))
    known = Evidence.of(corpus.texts)
    names = [token for token in tokens if token.entity]
    if not tokens or not all(known.covers(token.text) for token in names):
        return "wrong_kind", "names nothing the documents name: not a near miss"
    if sum(known.covers(token.text) for token in tokens) < len(tokens) / 2:
        return "wrong_kind", "off the documents' topic: not a near miss"
    asked = [token for token in tokens if token.text not in _WH_WORDS]
    plain = [token for token in asked if not token.entity]
    for sentence in corpus.sentences:
        evidence = Evidence.of([sentence])
        if not all(evidence.covers(token.text) for token in names):
            continue
        if plain and sum(evidence.covers(t.text) for t in plain) / len(plain) >= 0.8:
            return "answered", "a sentence of the documents answers it"
        if not plain:
            # "What is X?" is answered only where X is defined.
            for match in _IDENTIFIER.finditer(question):
                if re.search(rf"{re.escape(match.group())}\s+(?:is|are|means)\b", sentence):
                    return "answered", "the documents define it"
    return "ok", "on the documents' entities, not answered by them"


def _near_miss_parts(question: str) -> tuple[str | None, str | None]:
    """The entity and answer cue of a near-miss question written from the templates."""
    for template, cue in (*_PROPERTIES, *_CJK_PROPERTIES):
        before, _, after = template.partition("{entity}")
        if question.startswith(before) and question.endswith(after):
            entity = question[len(before) : len(question) - len(after)]
            if entity:
                return entity, cue
    return None, None


def _title(titles: Sequence[str], index: int) -> str:
    return titles[index] if index < len(titles) else (titles[0] if titles else "")


def _multi_problem(
    request: CritiqueQuestions,
    question: str,
    reference: str,
    cited: Sequence[int],
    commands: Collection[str] = (),
) -> tuple[Any, str] | None:
    used = list(dict.fromkeys(cited))
    if len(used) < 2:
        return "not_answerable", "a multi question must need two chunks"
    # A sentence may open with a lowercase command ("… in 1993. fsck is …"): split there too.
    sentences = [
        part
        for sentence in split_sentences(reference) or [reference]
        for part in re.split(r"(?<=[.!?])\s+(?=[a-z])", sentence)
    ]
    needed = set()
    for sentence in sentences:
        for index in used:
            if check_support(sentence, Evidence.of([request.chunks[index]])).supported:
                needed.add(index)
                break
    if len(needed) < 2:
        return "wrong_kind", "one chunk answers it alone"
    if is_chinese(question):
        first, second = (
            {token.text for token in content_tokens(request.chunks[index])} for index in used[:2]
        )
        asked = {token.text for token in content_tokens(question)}
        if not first & second & asked:
            return "wrong_kind", "its two chunks share no entity the question names"
        return None
    texts = [request.chunks[index].lower() for index in used[:2]]
    terms = set(commands).union(
        *(chunk_terms(request.chunks[index], _title(request.titles, index)) for index in used[:2])
    )
    shared = [
        thing
        for thing in named_things(question, terms)
        if all(re.search(rf"(?<![\w-]){re.escape(thing)}(?![\w-])", text) for text in texts)
    ]
    if not shared:
        return "wrong_kind", "its two chunks share no named thing the question asks about"
    return None


# --- conversations ---------------------------------------------------------------------

#: A follow-up that refers back: a pronoun standing for the earlier turn's subject, or an
#: ellipsis ("And day passes?", "那日票呢？") that borrows the earlier question.
_BACK_REFERENCE = re.compile(
    r"\b(?:it|its|they|them|their|that one|those)\b|^And [^?]{1,40}\?$|它|其|^那.{1,12}呢？$",
    re.IGNORECASE,
)
_CJK_SUBJECT = re.compile(
    r"^(?!该|这|此)(?P<subject>[\u4e00-\u9fff]{2,6}?)(?:在|自|由|的|是|可|需|须|保存|为|每)"
)


def _subject_of(fact: Fact, chinese: bool) -> str:
    if chinese:
        match = _CJK_SUBJECT.match(fact.sentence)
        return match.group("subject") if match else ""
    return re.sub(r"^(?:the|a|an) ", "", (fact.subject or "").lower()).strip()


def _as_written(fact: Fact) -> str:
    """The subject as the text writes it: ``DIR_MODE`` stays in capitals, "Day passes" not."""
    subject = re.sub(r"^(?:[Tt]he|[Aa]n?) ", "", (fact.subject or "").strip())
    if re.search(r"[A-Z_:]", subject[1:]) or "_" in subject:
        return subject
    return subject.lower()


def _pronoun_follow_up(fact: Fact, subject: str, chinese: bool) -> str | None:
    """``fact``'s question with its subject replaced by a pronoun: "And how much do they cost?"."""
    question = _strip_context(fact.question)
    if chinese:
        if not question.startswith(subject):
            return None
        return "那它" + question[len(subject) :]
    pattern = re.compile(rf"\b(?:the |a |an )?{re.escape(subject)}\b", re.IGNORECASE)
    if not pattern.search(question):
        return None
    plural = subject.endswith("s") and not subject.endswith("ss")
    replaced = pattern.sub("they" if plural else "it", question, count=1)
    return "And " + replaced


def _conversation(
    chunk: str, title: str, chinese: bool, slot: int, names: frozenset[str] = frozenset()
) -> SynthQuestion | None:
    """Two or three turns about one subject: the first names it, the follow-ups refer back.

    Facts about the same subject give pronoun follow-ups ("How long are season cards
    valid?" → "And how much do they cost?"); parallel facts of two subjects (same kind of
    question, shared words) give an ellipsis ("… single tickets valid?" → "And day passes?").
    """
    facts = chunk_facts(chunk, title, chinese, names)
    chats: list[list[tuple[Fact, str]]] = []
    for index, first in enumerate(facts):
        subject = _subject_of(first, chinese)
        if not subject:
            continue
        same: list[tuple[Fact, str]] = []
        parallel: list[tuple[Fact, str]] = []
        for other in facts[:index] + facts[index + 1 :]:
            if other.answer == first.answer or _reference(other) == _reference(first):
                continue  # a follow-up asks something new, not what turn 1 answered
            if other.sentence == first.sentence and other.answer == first.answer:
                continue
            other_subject = _subject_of(other, chinese)
            if other_subject == subject:
                follow_up = _pronoun_follow_up(other, subject, chinese)
                if follow_up is not None:
                    same.append((other, follow_up))
            elif (
                other_subject
                and other.wh == first.wh
                and _question_words(first) - set(subject.split()) & _question_words(other)
                and (chinese or _asked_alike(first, other, subject, other_subject))
            ):
                parallel.append(
                    (other, f"那{other_subject}呢？" if chinese else f"And {_as_written(other)}?")
                )
        if same:
            chats.append([(first, first.question), *same[:2]])
        elif parallel:
            chats.append([(first, first.question), *parallel[:2]])
    if not chats:
        return None
    chat = chats[slot % len(chats)]
    (first, question), rest = chat[0], chat[1:]
    return SynthQuestion(
        kind="conversation",
        question=question,
        reference=_reference(first),
        chunks=[0],
        follow_ups=[
            SynthTurn(question=follow_up, reference=_reference(fact), chunks=[0])
            for fact, follow_up in rest
        ],
    )


def _asked_alike(first: Fact, other: Fact, subject: str, other_subject: str) -> bool:
    """Whether ``other`` asks ``first``'s question of another subject: "And X?" means it.

    "What does the file specify?" then "And DEFAULT?" would ask what DEFAULT specifies;
    when the second fact says what DEFAULT allows, the ellipsis asks the wrong thing.
    """
    asked = _strip_context(first.question).lower().rstrip("?")
    again = _strip_context(other.question).lower().rstrip("?")
    again = again.replace(other_subject.lower(), subject, 1)
    if subject not in asked:
        return False
    # The same question up to the word after the subject ("valid", "specify"); what
    # follows ("after purchase") may differ between the two facts.
    end = asked.index(subject) + len(subject)
    head = asked[:end] + " " + (asked[end:].split() or [""])[0]
    return (again + " ").startswith(head.rstrip() + " ")


def needs_history(follow_up: str, first_question: str) -> str | None:
    """Why ``follow_up`` does not depend on the earlier turn, or None when it does.

    It must refer back (a pronoun or an ellipsis) and must not name again what the first
    question named: a follow-up that does is a standalone question, not a conversation.
    """
    if not _BACK_REFERENCE.search(follow_up.strip()):
        return "the follow-up neither refers back nor leaves anything out: it stands alone"
    named = {token.text for token in content_tokens(_strip_context(first_question))}
    again = named & {token.text for token in content_tokens(follow_up)} - _WH_WORDS
    if again:
        return f"the follow-up names {sorted(again)[0]!r} again: it does not need the earlier turn"
    return None
