"""Whether a question asks about one specific thing and says what it wants to know.

The keyless writer refuses a question unless both halves carry content:

- its **subject** is a named thing (an option, a directive, a file, a program) or a noun
  phrase whose head is a content word — not a syntax placeholder (``name``, ``VARIABLE``),
  not a vague phrase (``the actual test``, ``the return value``), not a row of a property
  list read as one phrase (``rawmsg the message``), not an infinitive clause (``to override
  the configuration``);
- its **predicate** says something in the question itself: "What does rsyslogd support?"
  asks for the one thing a whole program does, named only in the answer;
- its **answer** is a value a reader can check: not one word of a who-question (``Dir``
  of ``Dir::Bin``), a syntax argument (``directory for rotation``), a bare kind (``a
  non-standard option``) or a part of the page (``the SYNOPSIS section above``).

A phrase that names nothing outside its passage (``the whole pattern``, ``the default``)
is asked only under the option item it belongs to ("In logrotate, with firstaction, …").

Each shape was read as a rejected or edited case on documentation the writer was not tuned
on; a named or content-headed subject with a predicate of its own was kept as it was.

>>> unspecific("In rsyslog.conf, what is name?")
"'name' is a placeholder of a syntax the question does not show"
>>> unspecific("In rsyslog.conf, what does rsyslogd support?")
"'what does rsyslogd support?' is a bare name and a verb: what it asks is only in its answer"
>>> unspecific("In rsyslog.conf, what do output channels support?") is None
True
"""

from __future__ import annotations

import re

from . import wh_english
from .wh_english import CONTEXT

__all__ = ["list_row_subject", "misread_answer", "misread_subject", "unspecific"]

_CONTEXT = re.compile(r"^" + CONTEXT + r"(?:with [^,]{1,40}, )?")
_AUX = r"(?:is|are|was|were)"
_DO = r"(?:do|does|did|can|must|should|will|may|could|would|shall)"
#: "what are further jobs rejected with?": more than what, the sentence before says.
_POINTS_BACK = re.compile(
    r"^(?:[Ww]hat|[Ww]hen|[Ww]here|[Ww]hy|[Ww]ho|[Hh]ow \w+(?: [a-z]+)?) (?:is|are|was|were|do|does"
    r"|did|can|will|must|should|may) (?P<phrase>(?:the )?(?:further|preceding|latter|former"
    r"|aforementioned) [\w-]+)"
)
#: "what do the corresponding .conf files contain?": corresponding to what, the passage says;
#: "the corresponding file of a site" names it and stays.
_RELATIONAL = re.compile(
    r"^(?:[Ww]hat|[Ww]hen|[Ww]here|[Ww]hy|[Ww]ho|[Ww]hich \w+|[Hh]ow \w+(?: [a-z]+)?) (?:is|are"
    r"|was|were|do|does|did|can|will|must|should|may) (?P<phrase>(?:the |a |an )?"
    r"(?P<adjective>corresponding|respective|matching|said|aforementioned"
    r"|named(?! (?:daemon|server|process|service)\b)) [\w.-]+)"
)
#: "the corresponding .conf file of a site": what it corresponds to follows its noun.
_NAMES_COUNTERPART = re.compile(r"^(?: [\w.-]+){1,3}? (?:of|for|to|from) \w")
#: "what is the default of 4?" of "The default of 4 is suitable …": a value as a subject.
_VALUE_SUBJECT = re.compile(
    r"^(?:[Ww]hat|[Ww]hich|[Ww]hen|[Ww]hy|[Hh]ow \w+) (?:is|are|was|were|does|do|did|can|will)"
    r" (?P<phrase>(?:the|a|an) [\w-]+ of (?:\d[\d.,]*|zero|one|two|three|four|five|ten)\b)"
)
#: "what is lines whose first non-space character?": a noun and its relative clause, cut.
_RELATIVE_INSIDE = re.compile(
    r"\b(?!(?:in|of|to|for|by|with|from|on|at|and|or|under|through|into|about)\b)"
    r"[\w-]+ (?:whose|which|whom|who)\b.*"
)
#: "What is name?": the question is the subject alone, so the subject carries all it asks.
_DEFINITION = re.compile(rf"^[Ww]hat {_AUX} (?P<subject>.+?)(?: in [\w./-]+)?\?$")
#: "What does rsyslogd support?": a bare name and a verb, nothing else.
_BARE_DO = re.compile(rf"^[Ww]hat {_DO} (?P<subject>[\w.+-]+) (?P<verb>[a-z][\w-]*)\?$")
#: "What is to override the configuration …": an infinitive clause read as a subject.
_INFINITIVE_SUBJECT = re.compile(rf"^[Ww]hat {_AUX} to [a-z]+\b")
#: "what was rawmsg the message …": a list row, a name then its description.
_ROW = re.compile(rf"^[Ww]hat {_AUX} (?P<name>[\w.-]+) (?:the|a|an) \w")
#: Words of a syntax line that stand for a value the reader fills in.
_PLACEHOLDERS = frozenset(
    "name names value values file filename path size string number type mode level action "
    "variable variables option options argument arguments parameter parameters key keys "
    "pattern patterns expression command program user group directory dir host address "
    "port id text word list item entry field fields format template".split()
)
#: Adjectives that point into the passage ("the actual test": of what?).
_VAGUE = frozenset(
    "actual real whole main overall general basic exact usual present said respective "
    "same other certain various specific particular entire full above below latter "
    "former following previous next last first second given current original new old "
    "return resulting".split()
)
_DETERMINER = re.compile(r"^(?:the|a|an)\s+", re.I)
#: A token that names one thing: a capital, digit, underscore, path or option spelling.
_NAMED = re.compile(r"[A-Z0-9_/.:#$%@]|^-|\w-\w|\(\d\)")
_PREPOSITIONS = frozenset("of to for in on at by with from into as via".split())


#: "In Why does "ps -aux" complain …?, what …": a question-shaped heading is no context.
_QUESTION_CONTEXT = re.compile(r"^In [^,]*\?[^,]*, ")
#: "What does a zero mean?": a value of a setting the question does not name.
_OWNERLESS_VALUE = re.compile(
    rf"^[Ww]hat (?:{_DO}|{_AUX}) (?:a |the )?(?:zero|non-zero|nonzero|negative value"
    r"|positive value|value of (?:zero|\d+|-\d+))\b"
)
#: "the whole pattern", "the new history": whose, which? (only an option item says).
_VAGUE_PHRASE = re.compile(
    rf"^(?:[Ww]hat|[Ww]hen|[Ww]here|[Ww]hy|[Ww]ho|[Hh]ow \w+) (?:{_AUX}|{_DO}) "
    r"(?P<phrase>the (?:actual|real|whole|entire|new|old|same|said|present|respective|above"
    r"|below) [a-z][\w-]*\b)(?! (?:of|for|in|from)\b)"
)
#: "Why is the purpose of X merely?": "is merely to reduce …" read as a reason.
_WHY_PURPOSE = re.compile(
    rf"^[Ww]hy {_AUX} (?:the (?:purpose|reason|goal|aim|point|intent|idea)\b.*|.+ \w+ly)\?$"
)
#: "Why can the frobsite helper be used?": "used to enable a site" is a use, not a reason.
_WHY_USE = re.compile(rf"^[Ww]hy (?:{_AUX}|{_DO}) .+ (?:used|designed|intended|meant)\?$")
#: "Why does the Makefile contain rules?": "rules to make sbc" says what the rules do.
_WHY_OBJECT = re.compile(
    rf"^[Ww]hy {_DO} .+ (?:contain|have|include|provide|offer|hold|need|use|support|list)"
    r" [\w -]+\?$"
)
#: "Why is the default true?": the default of which option, only its item says.
_GENERIC_SUBJECT = re.compile(
    rf"^(?:[Ww]hat|[Ww]hen|[Ww]here|[Ww]hy|[Ww]ho|[Hh]ow \w+(?: [a-z]+)?) (?:{_AUX}|{_DO}) "
    r"(?P<phrase>the (?:default|value|result|setting|option|argument|number|limit|maximum|minimum"
    r"|total|threshold|size|count|problem|reason|answer|exception))"
    r"(?! (?:of|for|in|from|with|to)\b)(?=\?| [a-z]+\b)"
)
#: "What is the format?": a generic noun is specific only for the option item it is under.
_ITEM_CONTEXT = re.compile(r"^" + CONTEXT + r"with [^,]{1,40}, ")


def unspecific(question: str) -> str | None:
    """Why ``question`` names no specific thing or asks nothing of it, or None."""
    if _QUESTION_CONTEXT.match(question.strip()):
        return "names a question-shaped heading as its document: the heading was misread"
    body = _CONTEXT.sub("", question.strip())
    back = _POINTS_BACK.match(body)
    if back is not None:
        return f"{back.group('phrase')!r} points back into its passage: further than what?"
    relational = _RELATIONAL.match(body)
    if relational is not None and not _NAMES_COUNTERPART.match(body[relational.end("adjective") :]):
        return f"{relational.group('phrase')!r} points back to a thing the question does not name"
    value = _VALUE_SUBJECT.match(body)
    if value is not None:
        return f"{value.group('phrase')!r} is a value, not a thing a reader could ask about"
    relative = _RELATIVE_INSIDE.search(body)
    if relative is not None:
        return f"holds the relative clause {relative.group()!r}: its sentence is misread"
    if _INFINITIVE_SUBJECT.match(body):
        return "an infinitive clause is read as its subject: the sentence is misread"
    row = _ROW.match(body)
    if row is not None and row.group("name").lower() not in _PREPOSITIONS:
        return f"{row.group('name')!r} and a description after it are a row of a list"
    if _OWNERLESS_VALUE.match(body) and not _ITEM_CONTEXT.match(question.strip()):
        return "asks what a value means without naming the setting it is a value of"
    generic = _GENERIC_SUBJECT.match(body)
    if generic is not None and not _ITEM_CONTEXT.match(question.strip()):
        return f"{generic.group('phrase')!r} names nothing without its option: of what?"
    vague = _VAGUE_PHRASE.search(body)
    if vague is not None and not _ITEM_CONTEXT.match(question.strip()):
        return f"{vague.group('phrase')!r} names nothing without its passage: of what?"
    if _WHY_OBJECT.match(body):
        return "asks why of an object's own infinitive ('contains rules to make …')"
    if _WHY_PURPOSE.match(body) or _WHY_USE.match(body):
        return "asks why of a purpose or an adverb: its sentence says what it is for"
    bare = _BARE_DO.match(body)
    if bare is not None:
        asked = f"what {body.split()[1]} {bare.group('subject')} {bare.group('verb')}?"
        return f"{asked!r} is a bare name and a verb: what it asks is only in its answer"
    definition = _DEFINITION.match(body)
    if definition is not None:
        under_item = _ITEM_CONTEXT.match(question.strip()) is not None
        return _vague_subject(definition.group("subject"), under_item)
    return None


def _vague_subject(subject: str, under_item: bool = False) -> str | None:
    """Why a "What is <subject>?" question's subject names no one thing, or None."""
    words = subject.split()
    plain = [w.lower() for w in words if w.lower() not in ("the", "a", "an")]
    if len(words) == 1:
        word = words[0]
        if word.lower().rstrip("s") in _PLACEHOLDERS or word.lower() in _PLACEHOLDERS:
            if word.islower() or word.isupper():
                return f"{word!r} is a placeholder of a syntax the question does not show"
    if (
        not under_item
        and not re.match(r"^an?\s", subject, re.I)  # "What is a list?" defines a term
        and plain
        and not any(_NAMED.search(w) for w in words)
        and all(_generic(w) or w in _VAGUE or w in _VAGUE_ONLY for w in plain)
    ):
        return f"{subject!r} names nothing without its passage: of what?"
    if (
        len(words) == 1
        or not _DETERMINER.match(subject)
        or any(_NAMED.search(word) for word in words[1:])
    ):
        return None
    rest = [word.lower() for word in words[1:]]
    if any(word in _PREPOSITIONS for word in rest):
        return None  # "the location of the services file" says whose
    if any(word in _VAGUE for word in rest[:-1]) or (len(rest) == 2 and _generic(rest[-1])):
        return f"{subject!r} names nothing without its passage: of what?"
    return None


#: Adjectives that say nothing of which thing is meant ("valid arguments").
_VAGUE_ONLY = frozenset("valid invalid possible available allowed supported default".split())


def _generic(word: str) -> bool:
    return word in wh_english.GENERIC_NOUNS or word.rstrip("s") in wh_english.GENERIC_NOUNS


#: Words a subject never holds when it was read right: a pronoun, "there", a negation.
_MISREAD_SUBJECT = re.compile(
    r"^(?:no|neither|none|nothing|nobody)\b|\b(?:there|it|they|them|he|she|we|you)\b"
    # "What files …": a question of the page read as the thing "it" stands for.
    r"|^(?:what|which|who|whom|whose|how|where|why|when)\b"
    # "specifies whether remote hosts …": a verb and its clause, no subject at all.
    r"|^[a-z]+(?:ies|es|s) (?:whether|that|if|how|what|which)\b",
    re.I,
)


#: "directory for rotation": the argument of a directive's syntax line, not its value.
_ARGUMENTS = frozenset("directory dir file filename path name value string number command".split())


def misread_answer(wh: str, answer: str, sentence: str = "") -> str | None:
    """Why ``answer`` cannot answer its question ("who …?" → "Dir"), or None."""
    words = answer.split()
    at = sentence.find(answer) if answer else -1
    if at >= 0 and re.match(
        r"\s+(?:section|chapter|above|below|later|earlier)\b", sentence[at + len(answer) :]
    ):
        return f"{answer!r} points to a part of the page ('… section above'), not a value"
    if _POINTS_ELSEWHERE.search(answer):
        return f"{answer!r} points to another part of the page, not a value"
    if wh == "what" and words and words[0].lower() in _NO_OBJECT:
        return f"{answer!r} opens with {words[0]!r}: the verb takes no object to ask for"
    if wh == "who" and len(words) == 1 and not words[0].isupper():
        return f"{answer!r} is no person or body: a who-question misread"
    if re.fullmatch(r"(?:a|an) (?:[\w-]+ )?[\w-]+", answer) and _generic(words[-1].lower()):
        return f"{answer!r} says nothing a reader could check: a kind, not a fact"
    if 0 < len(words) <= 3 and words[0] in _ARGUMENTS:
        return f"{answer!r} is a placeholder of a syntax line, not a value"
    vague = _VAGUE_AMOUNT.match(answer)
    if vague is not None:
        rest = re.split(r"\b(?:that|which|who|whose)\b", vague.group("rest"))[0]
        named = [w for w in rest.split() if w.lower() not in ("the", "a", "an", "such")]
        if not any(_NAMED.search(w) for w in named) and all(_generic(w.lower()) for w in named):
            return f"{answer!r} is an amount of unnamed things: what they are is nowhere"
    return None


#: "the same as for the --verbose option", "the tokens described in the TOKENS section".
_POINTS_ELSEWHERE = re.compile(
    r"^(?:the same as|similar to|as (?:described|shown|explained|listed|for) (?:in|by|above)"
    r"|(?:described|shown|explained|listed) (?:in|above|below))\b"
    r"|\b(?:described|listed|shown|explained|defined) in the [\w-]+ section\b",
    re.I,
)
#: "index faster on an SSD": an adverb or a preposition where an object would stand.
_NO_OBJECT = frozenset(
    "faster slower better worse earlier later sooner well fast slowly quickly again often "
    "always never sometimes on in at into onto from with without within by via over under "
    "through across".split()
)
#: "a bunch that have been suggested", "a handful of tools …": how many, not which.
_VAGUE_AMOUNT = re.compile(
    r"^(?:a (?:bunch|handful|couple|lot|few|number|variety|range|series)|lots|several|some"
    r"|many|various|numerous|a few|things|stuff)\b(?: of)?(?P<rest>.*)$",
    re.I,
)


def misread_subject(subject: str) -> str | None:
    """Why ``subject`` cannot be what its sentence is about, or None."""
    if list_row_subject(subject):
        return f"{subject!r} is a name and its description: a row of a list, misread"
    if re.match(r"^to [a-z]+\b", subject):
        return f"{subject!r} is an infinitive clause: the subject is misread"
    match = _MISREAD_SUBJECT.search(subject)
    if match is not None:
        return f"{subject!r} holds {match.group().strip()!r}: no thing a reader could ask about"
    return None


def list_row_subject(subject: str) -> bool:
    """Whether ``subject`` is a name and its description glued ("rawmsg the message")."""
    words = subject.split()
    return (
        len(words) >= 3
        and words[1].lower() in ("the", "a", "an")
        and words[0].lower() not in _PREPOSITIONS | {"the", "a", "an", "all", "both"}
        and _DETERMINER.match(subject) is None
    )
