"""Facts the keyless writer is unsure of: repaired where the repair is certain, else refused.

A reviewer rejects a case whose question or reference leans on something it does not say.
Each rule here names one way a sentence is misread, found by reading drafts of real
documentation against their sources; a case the writer cannot ask cleanly is not written
(its kind then says "could not" in the summary), because a rejected case costs the
reviewer more than a missing one.

>>> repaired_question("What was the gzip format designed to?", "accommodate several formats")
'What was the gzip format designed to do?'
>>> repaired_question("What is adduser intended to?", "be used in maintainer scripts") is None
True
>>> repaired_question("What was the code base started in?", "the 1990s")
'When was the code base started?'
"""

from __future__ import annotations

import re

from . import wh_english
from .specific import misread_answer, misread_subject
from .wh_english import CONTEXT

__all__ = [
    "amount_problem",
    "fact_problem",
    "first_person",
    "opens_infinitive",
    "purpose_asked_as_value",
    "reference_leans_on",
    "restates_name",
    "repaired_question",
    "states_advice",
    "verbless_reference",
    "wants_infinitive",
]

#: "designed to?": the question stops where an infinitive begins.
_INFINITIVE = re.compile(r" to\?$")
#: "What was X started in?" whose answer is a time: a when-question.
_WHAT_PASSIVE_IN = re.compile(
    r"^(?P<context>" + CONTEXT + r")?[Ww]hat (?P<aux>is|are|was|were) (?P<rest>.+) in\?$"
)
_TIME = re.compile(
    r"^(?:the )?(?:(?:early |late |mid-)?(?:1[5-9]|20)\d0s|(?:1[5-9]|20)\d\d"
    r"|(?:January|February|March|April|May|June|July|August|September|October|November"
    r"|December) (?:\d{1,2}, )?(?:1[5-9]|20)\d\d|\d{1,2}(?:st|nd|rd|th) century)$"
)
_VERSION = re.compile(r"^(?:version |[\w+.-]+ )?v?\d+(?:\.\d+)+[a-z]?$")
#: "our test suite", "you should": the writer's voice, unresolved outside the page.
_FIRST_PERSON = re.compile(r"\b(?:we|our|ours|us|you|your|yours|I|my)\b", re.IGNORECASE)
#: A demonstrative that points into the page ("this information", "such statuses").
_POINTER = re.compile(
    r"\b(?:such|this|these|those)\b(?! as\b)"
    r"|\b(?:example|shown|described|listed|see) (?:above|below)\b"
    # "found therein": in what? the sentence before says.
    r"|\b(?:therein|thereof|therefrom|herein|aforementioned|above-mentioned)\b",
    re.IGNORECASE,
)
#: A condition or time clause after the answer: the question leaves out when it holds.
_TRAILING_CONDITION = re.compile(
    r"\b(?:after|before|when|whenever|if|unless|until|once|while|provided)\b", re.IGNORECASE
)
#: A phrase in front of the sentence that restricts it ("For pack, …", "In glibc 2.25 and
#: earlier, …"): the question must say it too, or it asks something the source limits.
_FRONTED = re.compile(
    r"^(?P<phrase>(?:For|After|Before|If|When|Whenever|Unless|Once|Until|Without|Except"
    r"|Under|With|During|Since|As of|On)\b[^,]{1,60}"
    r"|In\b[^,]{0,50}(?:\d|\b(?:earlier|later|older|newer|versions?)\b)[^,]{0,20}),\s+"
)
_BY_DEFAULT = re.compile(r"^By default,\s+")
#: Where a sentence starts a second clause with its own subject.
_SECOND_CLAUSE = re.compile(r",\s+(?:but|while|whereas|although|though|yet)\s+|;\s+")
#: "A negative value disables …" (of which setting?), "the 3 supported levels" (which?).
_OWNERLESS = re.compile(
    r"^(?:(?:a|an|any)\s+(?:[a-z-]+\s+)?(?:value|number|argument|parameter|setting|option|flag)s?"
    r"|the\s+\d+\s+(?:[a-z-]+\s+)*[a-z-]+)\b"
)
#: "rotated once each weekday, or if the date is advanced by at least 7 days": an amount or
#: date after a condition word belongs to the condition, not to the main clause.
_CONDITION = re.compile(
    r"\b(?:if|when|whenever|unless|once(?! (?:a|an|each|every|per|in)\b)|until|while|whether"
    r"|provided|as long as)\b",
    re.I,
)
#: "Sep 9th 2001" read as "2001": the month or day in front of the year is part of the date.
_DATE_BEFORE = re.compile(
    r"\b(?:(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
    r"|\d{1,2}(?:st|nd|rd|th)?),?\s*$"
)
#: "Lines whose first character …": a relative clause is part of a subject, never all of it.
_RELATIVE = re.compile(r"\b(?:whose|which|who|whom)\b", re.IGNORECASE)
_AMOUNTS = frozenset({"how_long", "how_much", "how_many", "percentage"})
_INFINITIVE_VERB = re.compile(
    r"\b(?:designed|intended|meant|supposed|expected|required|chosen|used|able|likely"
    r"|going|tries|tried|needs?|wants?|has|have|had|ought) to\?$"
)
#: Words after which "to" opens an infinitive ("allowed to co-exist"); after any other
#: ("renamed to temporary filename") it is a preposition and the question asks for a value.
_TAKES_INFINITIVE = re.compile(
    r"\b(?:designed|intended|meant|supposed|expected|required|chosen|used|able|likely|going"
    r"|tries|tried|needs?|wants?|has|have|had|ought|allowed|permitted|scheduled|configured"
    r"|set up|built|made|written|free|necessary|possible|easy|hard|safe)\s+to\?$"
)
#: "run on Sundays", "start at 6:25": an infinitive whose complement is a time.
_TIMED = re.compile(
    r"^(?P<verb>[a-z]+) (?:on (?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?\b|at \d"
    r"|every \w+|each \w+|(?:daily|weekly|monthly|hourly|yearly)\b|once a \w+)"
)
_ADVERB = re.compile(r"^[a-z]+ly$")
#: Words that open a noun phrase ("chosen to the best"), or "be" of a passive infinitive.
_NOT_A_VERB = frozenset(
    "be the a an this that these those its their his her our your my some any all each "
    "every no both either neither one two three".split()
)


def repaired_question(question: str, answer: str) -> str | None:
    """``question`` made to ask what ``answer`` answers, the same when it does, or None.

    A question ending in "to?" is asked as "to do?" when its answer is a verb phrase (not a
    passive "be used …", which has no clean question); a "what … in?" whose answer is a
    year or decade becomes a when-question, one whose answer is a version asks which.
    """
    timed = _TIMED.match(answer)
    asks = re.match(r"^(?P<context>" + CONTEXT + r")?[Ww]hat (?P<rest>.+ to)\?$", question)
    if _INFINITIVE.search(question) and timed is not None and asks is not None:
        # "scheduled to run on Sundays": when it runs is what the sentence says.
        context = asks.group("context") or ""
        lead = "when" if context else "When"
        return f"{context}{lead} {asks.group('rest')} {timed.group('verb')}?"
    if _INFINITIVE.search(question):
        first = answer.split()[0] if answer.split() else ""
        # After "to" a lowercase word that opens no noun phrase is the infinitive's verb.
        if (
            re.fullmatch(r"[a-z][a-z-]+", first)
            and first not in _NOT_A_VERB
            and _TAKES_INFINITIVE.search(question)
        ):
            return question[:-1] + " do?"
        if first == "be" or wants_infinitive(question):
            return None  # "intended to be used in …", "chosen to the best": no clean ask
        if opens_infinitive(answer):
            return None  # "introduced to capture …": a purpose, asked as if it were a place
        return question  # "What is the ownership set to?" asks for a value
    passive = _WHAT_PASSIVE_IN.match(question)
    if passive is not None:
        context = passive.group("context") or ""
        if _TIME.match(answer.strip()):
            lead = "when" if context else "When"
            return f"{context}{lead} {passive.group('aux')} {passive.group('rest')}?"
        if _VERSION.match(answer.strip()):
            lead = "in which version" if context else "In which version"
            return f"{context}{lead} {passive.group('aux')} {passive.group('rest')}?"
    return question


#: Verbs a purpose infinitive often opens with that the common-verb list lacks.
_PURPOSE_VERBS = frozenset(
    "avoid prevent ensure capture find determine reduce improve obtain select choose control "
    "decide detect simplify speed protect mount locate update verify validate resolve look "
    "tell distinguish compute calculate fetch test allow keep make get help mark".split()
)
#: Endings of adjectives and nouns, never of a verb's base form ("temporary", "files").
_NOT_BASE_ENDING = re.compile(
    r"(?:ary|ory|ous|ive|al|ic|ful|less|able|ible|ent|ant|ed|ing|ly|s|tion|ness|ment|er|or"
    r"|ity|ism|ist)$"
)


def opens_infinitive(answer: str) -> bool:
    """Whether ``answer`` (the words after a question's final "to") is a verb phrase.

    "capture possible future extensions" is one: the "to" opened a purpose, and "what was
    X introduced to?" asks it as if it were a place. "a temporary name", "root" are not.
    """
    tokens = answer.split()
    if not tokens or not re.fullmatch(r"[a-z][a-z-]*", tokens[0]) or tokens[0] in _NOT_A_VERB:
        return False
    first = tokens[0]
    if first in wh_english.BASE_VERBS or first in _PURPOSE_VERBS:
        return True
    return len(tokens) >= 3 and len(first) > 3 and _NOT_BASE_ENDING.search(first) is None


def purpose_asked_as_value(question: str, reference: str) -> str | None:
    """Why "what is X <verb> to?" asks a purpose of ``reference`` as a value, or None."""
    asked = re.search(r"(?P<verb>[\w-]+) to\?$", question)
    if asked is None:
        return None
    found = re.search(rf"\b{re.escape(asked.group('verb'))} to (?P<rest>.+)", reference)
    if found is None or _TAKES_INFINITIVE.search(f"{asked.group('verb')} to?"):
        return None
    if opens_infinitive(found.group("rest")):
        verb = found.group("rest").split()[0]
        return f"asks a purpose ('… to {verb} …') as if it were a value: its sentence is misread"
    return None


_NUMBER_WORD = (
    r"(?:\d[\d.,]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty"
    r"|thirty|forty|fifty|sixty|hundred|thousand)"
)
#: "how many characters is the list limited to six domains …": a second amount kept inside.
_OTHER_AMOUNT = re.compile(rf"\b{_NUMBER_WORD}\s+[a-z]+s\b", re.I)
_AMOUNT_QUESTION = re.compile(
    r"^(?:" + CONTEXT + r")?(?:(?:at (?:least|most) )?(?:by )?[Hh]ow"
    r" (?P<how>many|much|long|old|often)(?: (?P<unit>[a-z]+))?|[Ww]hen|[Ww]hat percentage)"
    r"\b(?P<body>.*)\?$"
)


def amount_problem(question: str, reference: str) -> str | None:
    """Why an amount or date question misreads the sentence ``reference`` states, or None.

    The critic reads off any writer's reference what the writer checks on its sentence: a
    second amount kept in the question, an amount sizing a noun ("a block size of 512
    bytes"), an amount or date of a condition clause ("or if the date is advanced by at
    least 7 days"), a date cut from its day ("past Sep 9th" of 2001).
    """
    asked = _AMOUNT_QUESTION.match(question)
    if asked is None:
        return None
    body = asked.group("body")
    if asked.group("how") and _OTHER_AMOUNT.search(body):
        return "keeps a second amount of its sentence inside: which one it asks is unclear"
    unit = asked.group("unit") or ""
    if asked.group("how") in ("many", "much") and unit:
        sized = re.search(rf"\b([\w-]+) of (?:\w+ ){{0,2}}?{_NUMBER_WORD}\s*{unit}", reference)
        if sized is not None and sized.group(1).lower() in body.lower().split():
            return f"its amount sizes {sized.group(1)!r}: the question asks it of the wrong word"
    amount = re.compile(r"\b(?:1[5-9]|20)\d\d\b" if not asked.group("how") else _NUMBER_WORD)
    asked_words = question.lower().split()
    for found in amount.finditer(reference):
        if found.group().lower() in asked_words:
            continue  # "In glibc 2.25 and earlier": the question keeps it, it is no answer
        before = reference[: found.start()]
        for condition in _CONDITION.finditer(before):
            if condition.group().lower() not in asked_words:
                return f"its amount or date belongs to the {condition.group()!r} clause"
        cut = _DATE_BEFORE.search(before)
        if not asked.group("how") and cut and cut.group().strip(" ,.").lower() in question.lower():
            return "its date is cut: the day or month before the year stays in the question"
        break
    return None


def wants_infinitive(question: str) -> bool:
    """Whether ``question`` ends at a "to" that only an infinitive follows ("designed to?")."""
    match = _INFINITIVE_VERB.search(question)
    return match is not None


def first_person(question: str) -> str | None:
    """Why ``question`` speaks in the page's own voice ("our test suite"), or None."""
    match = _FIRST_PERSON.search(question)
    if match is None:
        return None
    return f"says {match.group().lower()!r}: whose is it, outside the page?"


def reference_leans_on(reference: str) -> str | None:
    """Why ``reference`` points at something only its page shows, or None."""
    match = _POINTER.search(reference)
    if match is None:
        return None
    following = reference[match.end() :].split()[:1]
    word = f"{match.group().lower()} {following[0]}" if following else match.group().lower()
    return f"its reference leans on {word!r}, which it does not resolve"


def verbless_reference(reference: str) -> str | None:
    """Why ``reference`` is no sentence (a table row: "MAX_MEMBERS groupmems ."), or None."""
    if len(re.findall(r"[\w'-]+", reference)) < 3:
        return "its reference is no sentence: a row of a table, not a statement"
    tokens = reference.split()
    names = [t for t in tokens if re.fullmatch(r"[A-Z][A-Z0-9]*_[A-Z0-9_]+\W?", t)]
    if len(names) >= 2 and len(names) * 5 >= len(tokens) * 2:
        return "its reference is a row of a table of names, not a statement"
    return None


#: "Make sure to adapt …", "Remember to restart …": advice to the reader, no fact of a thing.
_ADVICE = re.compile(
    r"^(?:makes? sure|be sure|is sure|remembers?|(?:do not|don't) forget|please|notes? that"
    r"|keeps? in mind|ensures? that)\b",
    re.I,
)
#: Words a restated name adds without saying what the thing is or does.
_NAMING_VERBS = frozenset(
    "is are sets set specifies specify controls control defines define determines determine "
    "selects select configures configure gives give holds hold the a an of for to its".split()
)


def states_advice(predicate: str) -> str | None:
    """Why ``predicate`` (what a reference says of its subject) is advice, not a fact."""
    if _ADVICE.match(predicate.strip()):
        return "its sentence is advice to the reader ('make sure to …'): it states no fact"
    return None


def _name_words(text: str) -> set[str]:
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", text)
    return {word.lower().removesuffix("s") for word in words}


def restates_name(subject: str, predicate: str) -> str | None:
    """Why ``predicate`` only restates ``subject``'s own words ("LogLevel sets the log level")."""
    said = _name_words(predicate) - {word.removesuffix("s") for word in _NAMING_VERBS}
    if said and said <= _name_words(subject):
        return f"its reference only restates the name {subject!r}: it says nothing of it"
    return None


def fact_problem(fact: wh_english.Fact) -> str | None:
    """Why ``fact`` (a question, its answer and its sentence) is not asked cleanly, or None."""
    sentence = " ".join(fact.sentence.split())
    reason = first_person(fact.question)
    if reason is not None:
        return reason
    if _OWNERLESS.match((fact.subject or "").lower()) and not re.search(
        r"[A-Z_/]", (fact.subject or "")[1:]
    ):
        return f"{fact.subject!r} names no thing: what it belongs to is in the passage"
    reason = misread_subject(fact.subject or "") or misread_answer(fact.wh, fact.answer, sentence)
    if reason is not None:
        return reason
    subject = (fact.subject or "").strip()
    if subject and sentence.lower().startswith(subject.lower()):
        reason = states_advice(sentence[len(subject) :])
        if reason is not None:
            return reason
    if _RELATIVE.search(fact.subject or ""):
        return f"{fact.subject!r} holds a relative clause: the subject is misread"
    body = re.sub(r"^" + CONTEXT, "", fact.question)
    fronted = _FRONTED.match(sentence)
    if fronted is not None:
        phrase = set(wh_english.words(fronted.group("phrase"))) - {"for", "in", "and", "the"}
        if not phrase <= set(wh_english.words(body)):
            return f"leaves out {fronted.group('phrase')!r}, which limits what its sentence says"
    at = sentence.find(fact.answer) if fact.answer else -1
    if (fact.wh in _AMOUNTS or fact.wh == "when") and at >= 0:
        asked = body.lower().split()
        for condition in _CONDITION.finditer(sentence[:at]):
            if condition.group().lower() not in asked:
                return f"its amount or date belongs to the {condition.group()!r} clause"
        if fact.wh == "when" and _DATE_BEFORE.search(sentence[:at]):
            return "its date is cut: the day or month before the year stays in the question"
    if fact.wh in _AMOUNTS and at >= 0 and re.search(r",\s+(?:which|where|who)\b", sentence[:at]):
        return "its amount belongs to a ', which …' clause, not to what the question asks"
    if fact.wh in _AMOUNTS and at >= 0:
        join = _SECOND_CLAUSE.search(sentence[:at])
        subject = (fact.subject or "").lower()
        if join is not None and subject and subject in sentence[: join.start()].lower():
            return "its amount belongs to a second clause with another subject"
    if fact.wh == "what" and at >= 0:
        words = fact.answer.split()
        head = words[1] if len(words) > 1 and _ADVERB.match(words[0]) else words[0]
        determined = re.match(r"^(?:the|a|an)\s", (fact.subject or "").lower())
        if (
            not determined
            and re.fullmatch(r"[a-z]+", fact.subject or "")
            and head in wh_english.BASE_VERBS
        ):
            # "Bug reports usually include …" read as "bug" that "reports": the verb is
            # the answer's first word.
            return "a noun read as its verb: the subject is misread"
        after = sentence[at + len(fact.answer) :]
        if re.match(r"^(?:" + CONTEXT + r")?[Ww]hat (?:do|does|did|will|can)\b", fact.question):
            if _TRAILING_CONDITION.search(after):
                return "its sentence says when it holds, which the question leaves out"
    return None
