r"""Whether a question stands alone and asks something: the checks writer and critic share.

A question a reader keeps names what it asks about and says what it wants to know. Three
ways it fails, each found on the question's surface:

- a **discourse opener** kept from its sentence ("But now", "After all", "On the other
  hand") — :func:`strip_discourse` removes them before a sentence becomes a question;
- a **dangling reference**: a determiner or pronoun whose referent is in the passage, not
  in the question ("such files", "each file", "its", "the spec", "the function");
- an **empty predicate**: a light verb whose meaning is in the answer ("What does the
  server use?" → "the file … to restrict the client"), or a vague quantified subject
  ("What can any computer read?").

>>> strip_discourse("But now we write the header.")
'We write the header.'
>>> dangling("How large can such files be?")
"leans on 'such', which the question does not resolve"
>>> dangling("How long are Skyfile uploads kept?") is None
True
"""

from __future__ import annotations

import re

from . import wh_english
from .wh_english import CONTEXT

__all__ = ["answering_clause", "dangling", "empty_predicate", "strip_discourse"]

_OPENER = re.compile(
    r"^(?:(?:but|and|so|now|then|also|however|still|thus|hence|therefore|after all|in that case"
    r"|in this case|in any case|on the other hand|of course|in fact|indeed|instead|finally"
    r"|next|again|likewise|similarly|meanwhile|unfortunately|fortunately|happily|basically"
    r"|as a result|in addition|moreover|furthermore|in practice|in short|at this point"
    r"|this way|that way|in particular|in general)\b,?\s+)+",
    re.IGNORECASE,
)
_TRAILER = re.compile(
    r"(?:,?\s+(?:on the other hand|though|however|as well|after all|then|now|instead))+"
    r"(?=\s*[.!;]?\s*$)",
    re.IGNORECASE,
)
_ASIDE = re.compile(r",?\s+(?:on the other hand|after all|of course|however)(?=[\s,])", re.I)
#: Adverbs that add nothing to a question ("What does the server simply use?").
_FILLER = re.compile(
    r"\s+\b(?:simply|just|also|still|now|really|actually|even|then|generally|usually|typically"
    r"|normally)\b(?=\s)"
)

#: "the following tests", "previous charts": what they are is on the page, not in the question.
_ORDINAL_REFERENCE = re.compile(
    r"\b(?P<word>(?:the )?(?:following|previous|preceding|aforementioned|latter|former)"
    r"(?: \w+)?|the (?:first|last|next) few \w+|the next (?!version|release)\w+)\b",
    re.IGNORECASE,
)
_DANGLING_WORDS = re.compile(
    r"\b(?P<word>such|its|their|these|those|this|said|aforementioned|former|latter"
    r"|above|below|the same"
    r"|(?:(?<=\bdo )|(?<=\bis )|(?<=\bare )|(?<=\bcan )|(?<=\bmust )|(?<=\bdoes )"
    r"|(?<=\bshould )|(?<=\bwill )|(?<=\bmay )|(?<=\bwas ))each \w+)\b",
    re.IGNORECASE,
)
_GENERIC = wh_english.GENERIC_NOUNS
_NAMED = re.compile(r"[A-Z0-9_/:.]|-\w")
_WHAT_A_DOCUMENT_IS_ABOUT = frozenset(
    "module library package program tool tutorial spec specification server client "
    "system project application software command service protocol format".split()
)
_CLAUSE_HEAD = re.compile(r"^(?:the )?(?:way|manner|reason|extent)\s", re.I)
_QUANTIFIED = re.compile(
    r"^(?:any|most|many|some|all|several|few|a few|every|no|other|a number of|a lot of)\s"
    r"|\bother\b",
    re.I,
)
#: Verbs whose object is not what the sentence says: its meaning is in what follows.
_LIGHT_VERBS = frozenset(
    "use take have get make keep give put let do see need want find try read become allow "
    "permit enable remain stay seem appear".split()
)


_ENDS_NOUN_PHRASE = (
    _LIGHT_VERBS
    | wh_english.BASE_VERBS
    | wh_english.AUXILIARIES
    | frozenset(
        "in on at for with from by to of as than when if after before that which who".split()
    )
)


def strip_discourse(sentence: str) -> str:
    """``sentence`` without the discourse words that tie it to the one before."""
    text = _OPENER.sub("", sentence.strip())
    text = _TRAILER.sub("", text)
    text = _ASIDE.sub("", text)
    if text and text != sentence.strip():
        text = text[0].upper() + text[1:]
    return text


def tidy(question: str) -> str:
    """A question without filler adverbs."""
    return _FILLER.sub("", question)


def dangling(question: str) -> str | None:
    """Why ``question`` leans on something it does not name, or None."""
    context = re.match(r"^" + CONTEXT, question)
    body = question[context.end() :] if context else question
    match = _DANGLING_WORDS.search(body) or _ORDINAL_REFERENCE.search(body)
    if match:
        return f"leans on {match.group('word').lower()!r}, which the question does not resolve"
    for phrase in re.finditer(r"\bthe\s+", body):
        after = re.findall(r"[\w'/.()-]+|[?,;:]", body[phrase.end() :])
        generic = 0
        while generic < len(after) and after[generic] in _GENERIC:
            generic += 1
        following = after[generic] if generic < len(after) else "?"
        if not generic and after and re.fullmatch(r"[a-z]{3,}", after[0]):
            # "the book" is one plain word and names nothing the question resolves.
            rest = after[1] if len(after) > 1 else "?"
            last = after[2:3] == ["?"]  # "What does the book include?": the verb ends it
            lone = rest in ("?", ",", ";") or (
                rest in _ENDS_NOUN_PHRASE
                and rest not in ("of", "for")
                and (last or rest not in wh_english.BASE_VERBS)
            )
            if lone and not (context and after[0] in _WHAT_A_DOCUMENT_IS_ABOUT):
                return f"'the {after[0]}' names nothing without its passage"
        if not generic:
            continue
        if context and generic == 1 and after[0] in _WHAT_A_DOCUMENT_IS_ABOUT:
            continue  # "In httplib2, what can the module handle?": the module is httplib2
        # "the option timeout" names the option; "the default value" names nothing.
        named_after = after[generic + 1 : generic + 2]
        if following in ("of", "for", "in") and named_after and _NAMED.search(named_after[0]):
            continue  # "the default of DIR_MODE"
        if following in ("?", ",", ";", ":") or following in _ENDS_NOUN_PHRASE:
            return f"'the {' '.join(after[:generic])}' names nothing without its passage"
    return None


def empty_predicate(question: str, subject: str, verb: str) -> str | None:
    """Why a "What does X <verb>?" question leaves its informative part to the answer."""
    named = [w for w in subject.split() if w.lower() not in ("the", "a", "an")]
    about = len(named) == 1 and named[0] in _WHAT_A_DOCUMENT_IS_ABOUT
    if about and re.match(r"^" + CONTEXT, question):
        pass  # "In httplib2, what can the module handle?": the module is httplib2
    elif named and all(word in _GENERIC for word in named):
        return f"{subject.strip()!r} names nothing: what the question asks is only in its answer"
    if _QUANTIFIED.match(subject.strip()):
        return f"its subject {subject.strip()!r} is not one thing a reader could ask about"
    if _CLAUSE_HEAD.match(subject.strip()):
        # "The way rsync disables symlinks is …": the subject is the whole clause.
        return f"{subject.strip()!r} opens a clause, not a subject: the sentence is misread"
    if verb.lower() in _LIGHT_VERBS:
        return f"'{verb}' says little: what the question asks is only in its answer"
    return None


#: Where an English sentence joins a clause with its own subject to the one before.
_CLAUSE_JOIN = re.compile(
    r";\s+|\s+[—–]\s+|:\s+(?=[\"“'])|,\s+(?=(?:but|while|whereas|although|though|and says"
    r"|and so|so that|which means|allowing|making|enabling|causing)\b)"
    # ", and LOGNAME and HOME are set from …": a second clause about other names.
    r"|,\s+(?=and\s+[A-Z][\w.-]*(?:\s+(?:and|or)\s+[A-Z][\w.-]*)?"
    r"\s+(?:is|are|was|were|has|have|can|will|must)\b)"
)
_CJK_CLAUSE = re.compile(r"(?<=[，；：])")
#: ", and it supports …": a new clause about the same subject, a fact of its own.
_PRONOUN_CLAUSE = re.compile(
    # "… via the property replacer and it can pick …": no comma, but a modal says a new clause.
    r"\s+and\s+(?:it|they)\s+(?:can|could|will|would|may|might|must|should|does|do|is|are"
    r"|has|have)\s+(?!be\b)[a-z]"
    r"|,\s+and\s+(?:(?:it|they|this|these|he|she)\s+[a-z]"
    r"|(?:its|their)\s+(?:[\w-]+\s+){1,3}(?:is|are|was|were|has|have|can|will|must|may)\b)"
)
#: ". fstab is only read …": a sentence opening with a lowercase name, which the sentence
#: splitter keeps glued to the one before (not after "e.g." or "etc.").
_LOWERCASE_SENTENCE = re.compile(
    r"(?<=[a-z0-9)\]\"'][a-z0-9)\]\"'])(?<!\be\.g)(?<!\betc)(?<!\bvs)\.\s+(?=[a-z])"
)


def answering_clause(sentence: str, answer: str, question: str = "") -> str:
    r"""The part of ``sentence`` that answers: its clause holding ``answer``, not the rest.

    A Chinese sentence is split at its clause punctuation (，；：), and a later clause keeps
    the first one, which names what the sentence is about, unless it names what
    ``question`` asks about itself.

    >>> answering_clause("LSB 1.3 lists bin as legacy, and says: 'New apps must not use it.'",
    ...                  "bin as legacy")
    'LSB 1.3 lists bin as legacy.'
    >>> answering_clause("GNU Wget is a free utility, and it supports FTP.", "a free utility")
    'GNU Wget is a free utility.'
    >>> answering_clause("年票可以退款，月票不退款，日票可以改签。", "不退款")
    '年票可以退款，月票不退款。'
    """
    text = re.sub(r"\s*[;:,]$", ".", sentence.strip())  # "… per month;" split off a sentence
    if re.search(r"[\u4e00-\u9fff]", text):
        parts = [part for part in _CJK_CLAUSE.split(text.rstrip("。！？")) if part]
        holding = next((i for i, part in enumerate(parts) if answer and answer in part), None)
        if holding is None or len(parts) < 2:
            return text
        asked = re.sub(r"^在[^，]{1,30}中，", "", question)[:2]
        # A later clause that names what the question asks about stands on its own.
        alone = bool(asked) and holding > 0 and asked in parts[holding]
        kept = [parts[holding]] if alone else parts[:1] + ([parts[holding]] if holding else [])
        return "".join(kept).rstrip("，；：") + "。"
    at = text.find(answer) if answer else -1
    if at >= 0:
        # From the answer's start: a glued second sentence is never part of an answer.
        second = _LOWERCASE_SENTENCE.search(text, at)
        if second is not None:
            text = text[: second.start()] + "."
    further = _PRONOUN_CLAUSE.search(text)
    if further is not None and 0 <= at < further.start():
        # "GNU Wget is a free utility …, and it supports HTTP": the answer ends at the comma.
        answer = answer[: further.start() - at]
        text = text[: further.start()].rstrip(",;: ") + "."
    joined = _joined_verb_phrases(text, answer)
    if joined is not None:
        return joined
    pieces: list[tuple[int, int]] = []
    start = 0
    for match in _CLAUSE_JOIN.finditer(text):
        pieces.append((start, match.start()))
        start = match.end()
    pieces.append((start, len(text)))
    if len(pieces) < 2 or not answer:
        return text
    at = text.find(answer)
    if at < 0:
        return text
    end = at + len(answer)
    for first, last in pieces:
        if first <= at and end <= last:
            clause = text[first:last].strip().rstrip(",;: ")
            if first == 0 or re.match(r"[A-Z]", clause):
                return clause if clause.endswith((".", "!", "?")) else clause + "."
            break
    return text


_OBJECT_OPENERS = frozenset("the a an all each every any its their it them no".split())
_PARTICIPLES = frozenset(
    "given written taken known shown done made kept held built sent found read run seen "
    "chosen driven hidden broken bound sold told left lost paid brought".split()
)


def _joined_verb_phrases(text: str, answer: str) -> str | None:
    """The verb phrase of two joined by "and" that holds ``answer``, with the subject.

    "Season cards are valid for 30 days and cost $90" answers the price with "Season
    cards cost $90."
    """
    subject = wh_english.subject_of(text)
    if not subject or not text.startswith(subject) or not answer:
        return None
    rest = text[len(subject) :]
    match = re.search(r",?\s+and\s+(?P<verb>[a-z]+)\s", rest)
    if match is None:
        return None
    verb = match.group("verb")
    base = verb[:-1] if verb.endswith("s") else verb
    if base not in wh_english.BASE_VERBS and verb.endswith("es"):
        base = verb[:-2]  # "matches"
    # "… and compresses all but the newest": an -s word before an object's determiner.
    after = rest[match.end("verb") :].split()[:1]
    objected = (
        verb.endswith("s")
        and not verb.endswith("ss")
        and after
        and after[0].lower() in _OBJECT_OPENERS
    )
    # "… in 1998 and is now maintained by …": an auxiliary opens a verb phrase of its own.
    own = verb in wh_english.AUXILIARIES or verb in ("defaults", "default")
    # "Logs are written to … and rotated weekly": a second participle of the same passive.
    passive = rest.split()[:1] in (["is"], ["are"], ["was"], ["were"])
    participle = passive and (re.fullmatch(r"[a-z]{3,}ed", verb) or verb in _PARTICIPLES)
    if (
        verb not in wh_english.BASE_VERBS
        and base not in wh_english.BASE_VERBS
        and not own
        and not participle
        and not objected
    ):
        return None
    first, second = rest[: match.start()], rest[match.start("verb") :]
    if not own and not participle and re.search(r"\bto\s+[a-z]+", first):
        return None  # "to connect … and access …": the second verb may be the infinitive's
    if answer in first and answer not in second:
        return f"{subject}{first}."
    if participle and answer in second and answer not in first:
        return f"{subject} {rest.split()[0]} {second.rstrip('.')}."
    if answer in second and answer not in first:
        return f"{subject} {second.rstrip('.')}."
    return None
