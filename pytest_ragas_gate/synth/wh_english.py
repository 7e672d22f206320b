r"""English declarative sentences into the wh-questions their informative span answers.

Rule-based on purpose: the maintained NLP toolkits that would parse a sentence (spaCy,
Stanza) need model downloads that are not on the package registry, and the rules below
only need what a sentence's surface shows — an auxiliary or a verb to invert, and a span
of a known shape (an amount with its unit, a year, a ``by`` agent, a place after a
location verb, a ``because`` clause, a ``X is a Y`` definition).

The subject stays in the question, resolved to a name when it is a pronoun, and a
question that still names nothing gets the document's name in front, so it stands alone.
The predicate is cut at its first clause boundary: a question repeats few long word runs
of its sentence.

>>> [fact.question for fact in sentence_facts(
...     "Single tickets are valid for 3 hours after purchase.", "River Valley Rail")]
['In River Valley Rail, how long are single tickets valid after purchase?']
>>> [fact.question for fact in sentence_facts(
...     "The Solo plan costs $6 per month and includes 200 GB of storage.", "Skyfile")]
['How much does the Solo plan cost per month?', 'How much storage does the Solo plan include?']
>>> [fact.question for fact in sentence_facts(
...     "Debian was founded by Ian Murdock in 1993.", "", proper=frozenset({"Debian"}))]
['When was Debian founded by Ian Murdock?', 'Who was Debian founded in 1993 by?']
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "AUXILIARIES",
    "BASE_VERBS",
    "CONTEXT",
    "Fact",
    "longest_shared_run",
    "quantity",
    "sentence_facts",
    "subject_of",
    "words",
]

#: The context a question opens with when it names no subject of its own ("In zlib, …"), as
#: the other synth modules match it: a document title of up to 60 characters and no comma.
CONTEXT = r"In [^,]{1,60}, "

_AUX = frozenset(
    "is are was were can could will would must should may might shall has have had does do did "
    "cannot".split()
)
_PRONOUNS = frozenset("it this they these that those he she we you".split())
#: Verbs a sentence without an auxiliary commonly carries, base form → itself.
_BASE_VERBS = frozenset(
    "take need use support allow require provide include contain run store keep cost last get "
    "give offer accept expire charge hold limit return send receive cover reach serve list "
    "show create build install read write load check handle follow apply mean refer depend "
    "start end begin open close add remove replace produce print call make set define "
    "let help become stay remain grow fall rise pay earn lose employ host connect link resume "
    "expire renew rotate lock unlock sync back encrypt delete archive retain ship arrive leave "
    "depart operate serve cost weigh measure contain carry process upload download record "
    "rotate scan index ship save sell buy declare specify describe define generate invoke pass "
    "ignore match override configure enable disable indicate represent identify register "
    "implement execute trigger activate mark report parse convert compile".split()
)
_IRREGULAR_PAST = {
    "took": "take",
    "made": "make",
    "gave": "give",
    "began": "begin",
    "became": "become",
    "grew": "grow",
    "held": "hold",
    "kept": "keep",
    "ran": "run",
    "sent": "send",
    "built": "build",
    "wrote": "write",
    "got": "get",
    "left": "leave",
    "paid": "pay",
    "rose": "rise",
    "fell": "fall",
    "lost": "lose",
}
_TIME_UNITS = {
    "second": 1 / 60,
    "minute": 1.0,
    "hour": 60.0,
    "day": 1440.0,
    "week": 10080.0,
    "month": 43800.0,
    "year": 525600.0,
}
_SIZE_UNITS = {"kb": 1e-3, "mb": 1.0, "gb": 1e3, "tb": 1e6, "kib": 1e-3, "mib": 1.0, "gib": 1e3}
_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
    "|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
#: Words before a number that make it a label, not an amount ("section 3", "Python 3").
_LABELS = frozenset(
    "section chapter rfc pep page step version figure table item line issue pr bug number no "
    "appendix part python level type article paragraph clause release revision rule v "
    "option example note per".split()
)
_PREPOSITIONS = frozenset(
    "for within in after before over under about around at by every per than to of from "
    "with into on since until during".split()
)
_MODIFIERS = {
    "up to": "at most",
    "at most": "at most",
    "at least": "at least",
    "no more than": "at most",
    "more than": "more than",
    "over": "more than",
    "less than": "less than",
    "fewer than": "less than",
    "about": "",
    "around": "",
    "approximately": "",
    "roughly": "",
    "nearly": "",
    "almost": "",
}
_AMOUNT = re.compile(
    r"(?:(?P<prep>\b(?:for|within|in|after|before|at|by|with|every|to|from|of|than|on)\s+))?"
    r"(?P<mod>\b(?:up to|at most|at least|no more than|more than|over|less than|fewer than"
    r"|about|around|approximately|roughly|nearly|almost)\s+)?"
    # "mode 0600": a number with a leading zero is a code, not an amount.
    r"(?P<money>[$€£])?(?P<num>(?<![\w.#/:-])\d{1,3}(?:,\d{3})+(?:\.\d+)?"
    r"|(?<![\w.#/:-])(?!0\d)\d+(?:\.\d+)?)"
    r"(?![\w.]\d|[:/-]\d)"
    r"(?:\s?(?P<unit>%|percent\b|[A-Za-z][A-Za-z-]*))?"
)
_YEAR = re.compile(
    r"(?:(?P<prep>\b(?:in|since|until|by|before|after|from|during|on)\s+))?"
    rf"(?P<date>(?:(?:{_MONTHS})\.?\s+(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s+)?"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS})\.?,?\s+)?(?<![\w.-])(?:1[6-9]|20)\d\d)"
    r"(?![\w.-]\d|\d)"
)
_AGENT = re.compile(
    r"\bby\s+(?P<name>(?:the\s+)?(?:[A-Z][\w&.'-]*)(?:\s+(?:of\s+|and\s+|&\s+)?[A-Z][\w&.'-]*){0,4})"
)
#: Words that may follow a ``by`` agent's capitalised name and end it (a preposition or
#: a clause opener); any other lowercase word continues the agent's noun phrase.
_AFTER_AGENT = frozenset(
    "in on at for with from during since to as when while after before because until "
    "through under over into which who that using via per each every".split()
)
_LOCATION_VERBS = re.compile(
    r"\b(?:stored|located|based|held|hosted|born|headquartered|situated|kept|processed|lives?"
    r"|live|opened|built|founded|runs?|takes? place|took place)\b"
)
_PLACE = re.compile(
    r"\b(?P<prep>in|at|near|from)\s+(?P<name>(?:the\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,3})"
)
_CAUSE = re.compile(r"(?:,\s*)?\b(?:because(?! of)|due to|owing to)\s+(?P<cause>[^,;()]{6,})")
_DEFINITION = re.compile(
    r"^(?P<term>[^,;:()]{2,60}?)\s+(?P<verb>is|are|means|refers to)\s+"
    r"(?P<rest>(?:a|an|the|one of|any|short for)\s.{6,})$"
)
_SUBORDINATOR = re.compile(r"\b(?:if|when|unless|because|whether|while)\b", re.I)
_CLAUSE_END = re.compile(
    r"\s*(?:[,;:(]|\s-\s|\s—\s|\b(?:and|or|which|who|whose|because|so that|so|unless|if|when|while"
    r"|whereas|although|though|but|and then|where|as well as|including|such as|e\.g\.|i\.e\.)\b)"
)
_WORD = re.compile(r"[\w']+")
_DETERMINERS = frozenset(
    "the a an to of and or its their our your my his her these this those that each every all "
    "some any no many several most such which whose".split()
)
# "a block size of", "a total of": the amount after "of" measures that noun.
_SIZED_NOUN = re.compile(r"\b(?:a|an|the)\s+(?:[\w-]+\s+){0,2}[\w-]+\s+$", re.I)
_NOUN_AFTER = (
    r"\s+(?!(?:of|per|each|for|in|on|at|to|by|and|or|with|from|is|are|was|were|can|will|"
    r"than|when|if|after|before|a|an|the)\b)[a-z]+\b"
)
_MAX_PREDICATE_WORDS = 8
_SUBORDINATE = re.compile(
    r"^(?:If|When|Whenever|While|Although|Though|Unless|Once|As|Because|Whether|Where"
    r"|Since(?! (?:version|release|v?\d|\w+ \d{4})\b)"
    r"|For example|For instance|Note|However|Otherwise|Also|Then|Thus|So)\b"
)
_MAX_SUBJECT_WORDS = 9
#: A sentence may open with a lowercase name ("ssh's default …", "libxslt includes …").
_NAME_OPENER = re.compile(
    r"^(?!(?:the|a|an|and|or|but|if|when|which|that|this|it|to|of|in|on|for|with|as|so|then"
    r"|there|here|we|you|they|see|use|note|also|not)\b)[a-z][\w.+-]{1,15}(?:'s)? [a-z]"
)
#: Nouns that name nothing on their own: "the function", "the default value", "the spec".
GENERIC_NOUNS = frozenset(
    "function functions option options default defaults value values suite file files tool "
    "tools method methods program programs command commands server client system systems user "
    "users package packages library spec specification document documents manual page section "
    "example examples result results output input list lists entry entries setting settings "
    "field fields key keys variable variables module modules class type types process service "
    "data format protocol version release code change changes feature features behaviour "
    "behavior case way problem issue approach step steps rule rules name names new old main "
    "same other special first second last next previous following current original given "
    "specified corresponding appropriate relevant particular new argument arguments parameter "
    "parameters call routine interface tutorial guide document text line lines item items "
    "thing things one ones group groups account accounts directory directories message "
    "messages header headers body field marker flag flags object objects number person people "
    "application applications app apps project projects software implementation author authors "
    "team optional array element elements string strings pointer buffer node tree struct loop "
    "internal external initial final builtin built-in standard usual".split()
)
#: For telling where a noun phrase ends (see :mod:`.standalone`).
AUXILIARIES = _AUX
BASE_VERBS = _BASE_VERBS


@dataclass(frozen=True)
class Fact:
    """A sentence's informative span and the question it answers.

    Attributes:
        question: the wh-question, standalone.
        answer: the span that answers it.
        sentence: the sentence, which is the reference.
        wh: ``how_long``, ``how_much``, ``how_many``, ``percentage``, ``when``, ``who``,
            ``where``, ``why`` or ``what``.
        subject: the (resolved) subject the question is about.
        value: the amount in a base unit (minutes, megabytes, the year), for comparisons.
        unit: what ``value`` counts (``time``, ``size``, ``money``, a noun, ``year``).
        score: how informative the span is; the writer picks high scores first.
    """

    question: str
    answer: str
    sentence: str
    wh: str
    subject: str
    value: float | None = None
    unit: str = ""
    score: float = 1.0


def words(text: str) -> list[str]:
    """Lowercased word tokens, for comparing word runs."""
    return [word.lower() for word in _WORD.findall(text)]


def longest_shared_run(question: str, source: str) -> int:
    """The longest run of consecutive words ``question`` shares with ``source``.

    >>> longest_shared_run("How long are single tickets valid?", "Single tickets are valid.")
    2
    """
    first, second = words(question), words(source)
    best = 0
    previous = [0] * (len(second) + 1)
    for word in first:
        current = [0] * (len(second) + 1)
        for index, other in enumerate(second, 1):
            if word == other:
                current[index] = previous[index - 1] + 1
                best = max(best, current[index])
        previous = current
    return best


def short_name(title: str) -> str:
    """What a document is about, from its title.

    The product a page belongs to ("Types (libffi: the … library)" → "libffi"), else the
    title without its subtitle ("Rail: guide" → "Rail"); an all-capitals title in title case.

    >>> short_name("Types (libffi: the portable foreign function interface library)")
    'libffi'
    """
    product = re.search(r"\(([^():]{2,40})(?::[^()]*)?\)\s*$", title)
    if product:
        return product.group(1).strip()
    # "logrotate - rotates, compresses, and mails …": a manual page's name line (any dash)
    # gives the name; a comma is inside the description, never where the name ends.
    name = (
        re.split(r"\s+[-\u2010\u2011\u2212—–|·]\s+|:\s", title, maxsplit=1)[0].strip()
        or title.strip()
    )
    if re.fullmatch(r"[\w.+-]+(?:,\s*[\w.+-]+)+", name):
        name = name.split(",")[0]  # "pam_env.conf, environment": a page of two names
    # "6.11 Bash POSIX Mode": the section number is the manual's, not the topic's name.
    name = re.sub(r"^\d+(?:\.\d+)*\.?\s+(?=\S)", "", name)
    name = re.sub(r"^The (?=[a-z])", "the ", name)  # "In the man-db manual pager suite, …"
    return name.title() if name.isupper() and len(name) > 4 else name


def _singular_of(noun: str) -> str:
    lowered = noun.lower()
    if lowered.endswith("ies"):
        return lowered[:-3] + "y"
    if lowered.endswith("s") and not lowered.endswith("ss"):
        return lowered[:-1]
    return lowered


def _base_of(verb: str) -> tuple[str, str] | None:
    """``(do-form, base)`` of a main verb without an auxiliary, or None when unsure."""
    lowered = verb.lower()
    if lowered in _IRREGULAR_PAST:
        return "did", _IRREGULAR_PAST[lowered]
    if lowered in _BASE_VERBS:
        return "do", lowered
    if lowered.endswith("ies") and lowered[:-3] + "y" in _BASE_VERBS:
        return "does", lowered[:-3] + "y"
    for cut in (2, 1):
        if lowered.endswith("es"[-cut:]) and lowered[:-cut] in _BASE_VERBS:
            return "does", lowered[:-cut]
    if lowered.endswith("ed"):
        for base in (lowered[:-2], lowered[:-1], lowered[:-3]):
            if base in _BASE_VERBS:
                return "did", base
    return None


@dataclass(frozen=True)
class _Clause:
    front: str
    subject: str
    aux: str
    verb: str
    predicate: str
    offset: int  # where the predicate starts in the sentence


def _guess_present(word: str) -> str | None:
    """The base of an unlisted third-person verb ("waits" → "wait"), or None."""
    if not re.fullmatch(r"[a-z]{3,}s", word) or word.endswith(("ss", "us", "is", "ous")):
        return None
    if word.endswith("ies"):
        return word[:-3] + "y"
    if re.search(r"(?:sh|ch|x|z|ss|o)es$", word):
        return word[:-2]
    return word[:-1]


def _guess_base(word: str) -> str | None:
    """The base of an unlisted regular past tense ("moved" → "move"), or None."""
    if not word.endswith("ed") or len(word) < 5:
        return None
    stem = word[:-2]
    if stem.endswith("i"):
        return stem[:-1] + "y"
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsf":
        return stem[:-1]
    if re.search(
        r"(?:[vzcu]|[^s]s|[^aeiou]at|[^aeiou]ut|[aeiou][^aeiouwxy])$", stem
    ) and not re.search(r"(?:[aeiou]{2}[^aeiou]|en|er|on|el|it|et|al|ar|or)$", stem):
        return stem + "e"
    return stem


#: Verbs a sentence follows with "of" ("consists of"); any other "-s" word before "of" is a
#: plural noun heading the subject.
_OF_VERBS = frozenset("consist think speak hear approve dispose smell taste remind".split())


def _split_clause(sentence: str) -> _Clause | None:
    """Subject, auxiliary (or do-support) and predicate of a simple declarative sentence."""
    front = ""
    body = sentence
    lead = re.match(
        r"^((?:In|On|Since|After|Before|During|From|By|Until|As of|For|Under|At)\b[^,]{1,50}),\s+",
        body,
    )
    if lead:
        front, body = lead.group(1), body[lead.end() :]
    start = len(sentence) - len(body)
    tokens = list(re.finditer(r"\S+", body))
    if not tokens or tokens[0].group().endswith((",", ":", ";")):
        return None  # "Third, it allows …": an enumeration, its subject is elsewhere
    window = tokens[1 : _MAX_SUBJECT_WORDS + 1]
    verb_at: tuple[int, str, str] | None = None
    guessed_at: tuple[int, str, str] | None = None
    for index, token in enumerate(window, 1):
        word = token.group().lower()
        if "," in word or word in ("that", "which", "who", "whom", "whose", "where", "when", "if"):
            break
        previous = tokens[index - 1].group().lower()
        if word in _AUX:
            after = tokens[index + 1 :]
            negated = bool(after) and after[0].group().lower() == "not"
            if negated and len(after) <= 1:
                return None
            aux, verb_not = (
                ("can", " not") if word == "cannot" else (word, " not" if negated else "")
            )
            rest_at = after[1].start() if negated else token.end()
            predicate = (verb_not + " " + body[rest_at:]).strip()
            offset = start + len(body) - len(body[rest_at:].lstrip())
            return _Clause(front, body[: token.start()].strip(), aux, "", predicate, offset)
        if previous in _DETERMINERS or previous in _PREPOSITIONS:
            continue  # "Dots in host names …": a word after "in" is a noun, not the verb
        following_word = tokens[index + 1].group().lower() if index + 1 < len(tokens) else ""
        if following_word in _AUX:
            continue  # "Day passes are valid": the noun before an auxiliary is the subject
        based = _base_of(word)
        if based is None and index + 1 < len(tokens):
            # "The ferry waits for …": an -s word before a preposition, article or number.
            nxt = tokens[index + 1].group().lower()
            if nxt in _PREPOSITIONS | _DETERMINERS or nxt[:1].isdigit() or nxt.startswith("$"):
                present = _guess_present(word)
                based = ("does", present) if present else None
        after_word = tokens[index + 1].group().lower() if index + 1 < len(tokens) else ""
        if based is not None and after_word == "of" and based[1] not in _OF_VERBS:
            continue  # "Day passes of the factory cost …": a plural noun, not the verb
        if based is not None and (based[0] != "did" or word in _IRREGULAR_PAST):
            verb_at = (index, *based)
            break
        if based is not None and guessed_at is None:
            guessed_at = (index, *based)  # "created" may be a participle of the subject
        guessed = _guess_base(word)
        if guessed is not None and guessed_at is None and guessed in _BASE_VERBS:
            guessed_at = (index, "did", guessed)
    if verb_at is None and guessed_at is not None and guessed_at[0] <= 3:
        # A past tense counts only close to the start, with no verb or auxiliary after it:
        # "Links created on the plan expire" has its verb later.
        later = tokens[guessed_at[0] + 1 : guessed_at[0] + 8]
        if not any(t.group().lower() in _AUX or _base_of(t.group().lower()) for t in later):
            if tokens[0].group().lower() in ("the", "a", "an") or guessed_at[0] == 1:
                verb_at = guessed_at
    if verb_at is None:
        return None
    index, aux, base = verb_at
    if aux == "did":
        # "Boats built in Bristol were kept afloat": a past participle modifying the subject,
        # the sentence's own verb comes later.
        for following_token in tokens[index + 1 :]:
            word = following_token.group().lower()
            if word.endswith((",", ";", ":")):
                break
            if word in ("is", "are", "was", "were", "has", "have", "will", "can", "must"):
                return None
    token = tokens[index]
    subject = body[: token.start()].strip()
    if aux == "do" and _singular_subject(subject):
        return None  # "The plan include" is not a sentence we trust.
    rest = body[token.end() :]
    offset = start + len(body) - len(rest.lstrip())
    return _Clause(front, subject, aux, base, rest.strip(), offset)


def _singular_subject(subject: str) -> bool:
    """Whether the subject's head noun is singular ("Links created on the plan": plural)."""
    tokens = subject.split()
    for index, token in enumerate(tokens[1:], 1):
        if token.lower() in _PREPOSITIONS or token.lower().endswith("ed"):
            tokens = tokens[:index]  # "Links created on the plan": the head is "Links"
            break
    head = tokens[-1].lower()
    return not head.endswith("s") and head not in ("people", "children", "data", "staff")


def _subject_text(subject: str, name: str, proper: frozenset[str]) -> str:
    first, _, rest = subject.partition(" ")
    lowered = first.lower()
    if lowered in _PRONOUNS and not rest:
        return name or subject
    if lowered in ("this", "these", "that", "those") and rest:
        return ("the " + rest) if not name else f"the {rest} of {name}"
    if first in proper or (first[:1].isupper() and first[1:2].isupper()):
        return subject
    return lowered + (" " + rest if rest else "")


def _trim(predicate: str) -> str:
    """The predicate up to its first clause boundary, at most a few words."""
    match = _CLAUSE_END.search(predicate)
    kept = predicate[: match.start()] if match else predicate
    tokens = kept.split()
    if len(tokens) > _MAX_PREDICATE_WORDS:
        tokens = tokens[:_MAX_PREDICATE_WORDS]
        # End on a content word rather than a dangling preposition or article.
        while tokens and tokens[-1].lower() in _PREPOSITIONS | {"the", "a", "an", "and", "or"}:
            tokens.pop()
    return " ".join(tokens).strip(" ,.;:")


def _question(wh: str, clause: _Clause, predicate: str, name: str, proper: frozenset[str]) -> str:
    subject = _subject_text(clause.subject, name, proper)
    verb = f" {clause.verb}" if clause.verb else ""
    tail = _trim(predicate)
    if clause.front and not _YEAR.search(clause.front) and len(clause.front.split()) <= 6:
        # "On the Solo plan, versions are kept …" asks about the Solo plan.
        tail = f"{tail} {clause.front[0].lower()}{clause.front[1:]}".strip()
    parts = [wh, clause.aux, subject + verb, tail]
    text = " ".join(part for part in parts if part).strip()
    text = re.sub(r"\s+", " ", text)
    return text[0].upper() + text[1:] + "?"


def _names_something(question: str, name: str) -> bool:
    body = question.split(" ", 1)[1] if " " in question else question
    if any(word[:1].isupper() for word in re.findall(r"[\w'-]+", body)):
        return True
    asked = set(words(question))
    return any(word in asked for word in words(name) if len(word) > 3)


def _standalone(question: str, name: str) -> str:
    if _names_something(question, name) or not name:
        return question
    return f"In {name}, {question[0].lower()}{question[1:]}"


def _remove(predicate: str, start: int, end: int) -> str:
    return re.sub(r"\s+", " ", predicate[:start] + " " + predicate[end:]).strip(" ,")


#: A byte count is a size in the binary megabytes manual pages round it to ("~20 MB").
_BYTES_PER_MB = 1048576.0
_QUANTITY = re.compile(r"(?<![\w.])(?P<num>\d+(?:\.\d+)?)\s?(?P<unit>[A-Za-z]+)\b")


def quantity(text: str) -> tuple[float, str] | None:
    """The first size or duration ``text`` states, in megabytes or minutes, and its kind.

    >>> quantity("20971520 bytes (~20 MB)"), quantity("10MB"), quantity("30 seconds")
    ((20.0, 'size'), (10.0, 'size'), (0.5, 'time'))
    """
    for match in _QUANTITY.finditer(text):
        number, unit = float(match.group("num")), match.group("unit").lower()
        if unit in ("byte", "bytes"):
            return number / _BYTES_PER_MB, "size"
        if unit in _SIZE_UNITS:
            return number * _SIZE_UNITS[unit], "size"
        if _singular_of(unit) in _TIME_UNITS:
            return number * _TIME_UNITS[_singular_of(unit)], "time"
    return None


def _amount_facts(sentence: str, clause: _Clause, name: str, proper: frozenset[str]) -> list[Fact]:
    facts: list[Fact] = []
    predicate = clause.predicate
    for match in _AMOUNT.finditer(predicate):
        number = float(match.group("num").replace(",", ""))
        if predicate[: match.start()].count("(") > predicate[: match.start()].count(")"):
            continue  # "(generally 32 or 64 bits)": an aside, not the sentence's fact
        before = predicate[: match.start("num")].split()
        previous = before[-1].lower().strip("(") if before else ""
        if previous in _LABELS or (
            before and before[-1][:1].isupper() and not match.group("money")
        ):
            continue
        unit = (match.group("unit") or "").strip()
        prep = (match.group("prep") or "").strip().lower()
        if prep == "than":
            continue  # "larger than 4GB": a comparison, not the sentence's amount
        if prep == "of" and _SIZED_NOUN.search(predicate[: match.start()]):
            continue  # "uses a block size of 512 bytes": asking how many bytes garbles it
        modifier = _MODIFIERS.get((match.group("mod") or "").strip().lower(), "")
        end = match.end()
        unit_key = _singular_of(unit) if unit and unit != "%" else unit
        after = predicate[end:]
        stranded = prep not in ("", "for", "of")
        if match.group("money"):
            wh, phrase, base, counted = "how_much", "how much", number, "money"
            end = match.end("num")
        elif unit.lower() in ("dollars", "euros", "pounds", "usd", "eur", "cents"):
            wh, phrase, base, counted = "how_much", "how much", number, "money"
        elif unit in ("%", "percent"):
            continue  # "a 99.9% uptime commitment": the amount sits inside a noun phrase
        elif unit_key in _TIME_UNITS:
            wh, base, counted = "how_long", number * _TIME_UNITS[unit_key], "time"
            phrase = "how long"
            of_noun = re.match(r"\s+of\s+[a-z][\w-]*", after)
            if prep == "" and of_noun:  # "keeps 90 days of events"
                wh, phrase, end = (
                    "how_many",
                    f"how many {unit.lower()}{of_noun.group()}",
                    end + of_noun.end(),
                )
            elif prep == "every":
                phrase, stranded = "how often", False
            elif prep not in ("", "for"):
                phrase, stranded = f"{prep} how many {unit.lower()}", False
                of = re.match(r"\s+of\s+(?:the\s+)?[a-z][\w-]*", after)
                if of:
                    phrase, end = phrase + of.group(), end + of.end()
        elif unit.lower() in _SIZE_UNITS:
            if re.match(_NOUN_AFTER, after):
                continue  # "the last 8 MB block": the amount describes a noun
            base, counted = number * _SIZE_UNITS[unit.lower()], "size"
            of_noun = re.match(r"\s+of\s+(?P<noun>[a-z][\w-]*|[A-Z]{2,}\b)", after)
            wh, phrase = "how_much", f"how many {unit}"
            if of_noun:
                phrase, end = f"how much {of_noun.group('noun')}", end + of_noun.end()
        else:
            counted_noun = re.match(
                r"\s+(?P<noun>(?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*s)\b",
                predicate[match.end("num") :],
            )
            if counted_noun is None or number < 2 or number != int(number):
                continue
            noun = counted_noun.group("noun")
            if noun.split()[-1] in ("is", "was", "has", "does", "this", "its", "as", "us"):
                continue
            wh, base, counted = "how_many", number, _singular_of(noun.split()[-1])
            phrase, end = f"how many {noun}", match.end("num") + counted_noun.end()
        if modifier and modifier != "more than":
            phrase = f"{modifier} {phrase}"
        # A stranded preposition stays where it was ("limited to per file").
        rest = _remove(predicate, match.start(), end)
        if stranded:
            rest = _remove(
                predicate,
                match.start("mod")
                if match.group("mod")
                else match.start("num") - (1 if match.group("money") else 0),
                end,
            )
            rest = rest if rest.split()[:1] != [prep] else rest
        tail = _trim(rest)
        question = _question(phrase, clause, tail, name, proper)
        answer = predicate[match.start() : end].strip()
        facts.append(
            Fact(
                _standalone(question, name),
                answer,
                sentence,
                wh,
                _subject_text(clause.subject, name, proper),
                base,
                counted,
                3.0,
            )
        )
    return facts


def _subject_amount_facts(
    sentence: str, clause: _Clause, name: str, proper: frozenset[str]
) -> list[Fact]:
    """A size bound inside the subject, asked as the largest (or smallest) size.

    "Files of up to 50 GB can be uploaded …" asks for the largest size of such files.
    """
    match = _AMOUNT.search(clause.subject)
    if match is None or clause.front or clause.verb:
        return []
    unit = (match.group("unit") or "").strip()
    bound = _MODIFIERS.get((match.group("mod") or "").strip().lower(), "")
    if unit.lower() not in _SIZE_UNITS or bound not in ("at most", "at least"):
        return []
    head = clause.subject[: match.start()].strip()
    if not head or len(head.split()) > 4:
        return []
    extreme = "largest" if bound == "at most" else "smallest"
    noun = _subject_text(head, name, proper)
    question = f"What is the {extreme} size of {noun} that {clause.aux} {_trim(clause.predicate)}?"
    question = re.sub(r"\s+", " ", question)
    number = float(match.group("num").replace(",", ""))
    return [
        Fact(
            _standalone(question, name),
            match.group().strip(),
            sentence,
            "how_much",
            noun,
            number * _SIZE_UNITS[unit.lower()],
            "size",
            2.0,
        )
    ]


def _year_facts(sentence: str, clause: _Clause, name: str, proper: frozenset[str]) -> list[Fact]:
    facts: list[Fact] = []
    for place, text in (("front", clause.front), ("predicate", clause.predicate)):
        for match in _YEAR.finditer(text):
            if text[: match.start()].count("(") > text[: match.start()].count(")"):
                continue  # a year in an aside
            if re.search(r"\b(?:of|the)\s*$", text[: match.start()]):
                continue  # "since the start of 2008": the year belongs to a noun phrase
            if re.search(
                r"\b(?:past|than|around|to|at|as|through|till|beyond)\s*$", text[: match.start()]
            ):
                continue  # "set past Sep 9th 2001": no "when" asks it without the word
            prep = (match.group("prep") or "").lower()
            wh_phrase = {"since": "since when", "until": "until when", "by": "by when"}.get(
                prep, "when"
            )
            predicate = clause.predicate
            if place == "predicate":
                predicate = _remove(predicate, match.start(), match.end())
            question = _question(wh_phrase, clause, predicate, name, proper)
            year = re.search(r"\d{4}", match.group("date"))
            facts.append(
                Fact(
                    _standalone(question, name),
                    match.group("date"),
                    sentence,
                    "when",
                    _subject_text(clause.subject, name, proper),
                    float(year.group()) if year else None,
                    "year",
                    2.5,
                )
            )
    return facts


def _agent_facts(sentence: str, clause: _Clause, name: str, proper: frozenset[str]) -> list[Fact]:
    match = _AGENT.search(clause.predicate)
    if match is None or clause.aux not in ("is", "are", "was", "were", "has", "have"):
        return []
    following = re.match(r"\s*(?:(?:and|or|&)\s+)?([a-z][\w-]*)", clause.predicate[match.end() :])
    if following and following.group(1) not in _AFTER_AGENT:
        # "by Microsoft team members": the agent goes on past its capitalised words, so
        # cutting it there would leave "team members" stranded in the question.
        return []
    if re.match(r"(?:a|an|the|one)\s", clause.predicate) or _CLAUSE_END.search(
        clause.predicate[: match.start()]
    ):
        # "is a library written by …" defines; "replaced with X, allowing … issued by the
        # KDC": the agent of another clause.
        return []
    predicate = _remove(clause.predicate, match.start(), match.end())
    question = _question("who", clause, _trim(predicate) + " by", name, proper)
    return [
        Fact(
            _standalone(question, name),
            match.group("name"),
            sentence,
            "who",
            _subject_text(clause.subject, name, proper),
            score=2.5,
        )
    ]


def _place_facts(sentence: str, clause: _Clause, name: str, proper: frozenset[str]) -> list[Fact]:
    if not _LOCATION_VERBS.search(clause.predicate):
        return []
    match = _PLACE.search(clause.predicate)
    if match is None or re.match(r"\d", match.group("name")):
        return []
    predicate = _remove(clause.predicate, match.start(), match.end())
    question = _question("where", clause, predicate, name, proper)
    return [
        Fact(
            _standalone(question, name),
            match.group("name"),
            sentence,
            "where",
            _subject_text(clause.subject, name, proper),
            score=2.5,
        )
    ]


def _cause_facts(sentence: str, clause: _Clause, name: str, proper: frozenset[str]) -> list[Fact]:
    match = _CAUSE.search(clause.predicate)
    if match is None or re.match(r"\d", match.group("cause")) or match.start() < 3:
        return []
    if _CLAUSE_END.search(clause.predicate[: match.start()].rstrip(", ")):
        return []  # "written so that … just because …": the cause is of another clause
    predicate = clause.predicate[: match.start()]
    question = _question("why", clause, predicate, name, proper)
    return [
        Fact(
            _standalone(question, name),
            match.group("cause").strip(),
            sentence,
            "why",
            _subject_text(clause.subject, name, proper),
            score=2.0,
        )
    ]


_PASSIVE = re.compile(
    r"^(?P<adverb>(?:(?:now|often|usually|typically|commonly|also|only|always|normally"
    r"|generally|mostly) )?)(?P<participle>[a-z]+(?:ed|en)|built|kept|held|sent|set|run|read"
    r"|made|written|known|found|put|shown|given) (?P<prep>with|for|from|in|on|to|into|under"
    r"|as|at|via|through) (?P<rest>.+)$"
)
_PURPOSE = re.compile(
    r"(?:,\s*)?\b(?:in order to|so as to|to (?=(?:prevent|avoid|reduce|allow|ensure|protect"
    r"|stop|keep|make|help|improve|speed|limit|enable)\b))\s*(?P<goal>[^,;()]{6,})"
)


def _passive_facts(sentence: str, clause: _Clause, name: str, proper: frozenset[str]) -> list[Fact]:
    """A passive with a preposition: what the subject is used for, compiled with, kept in.

    "Group adm is used for monitoring" asks what the group is used for.
    """
    predicate = clause.predicate
    been = ""
    if clause.aux in ("has", "have", "had") and predicate.startswith("been "):
        # "ssh's default has been changed to no" asks what it has been changed to.
        been, predicate = "been ", predicate[len("been ") :]
    elif clause.aux not in ("is", "are", "was", "were") or clause.verb:
        return []
    subject = clause.subject
    if not subject or len(subject.split()) > 6 or subject.split()[0].lower() in _PRONOUNS:
        return []
    if all(word.lower() in GENERIC_NOUNS | _DETERMINERS for word in subject.split()):
        return []  # "Files are encrypted at rest": which files?
    if subject.split()[0].lower() in ("all", "most", "many", "some", "several", "few", "any"):
        return []  # "All contributed changes are attributed in …": no one thing
    match = _PASSIVE.match(predicate)
    if (
        match is None
        or match.group("participle") in ("used", "needed")
        and match.group("prep") not in ("for", "by", "as")
    ):
        return []
    if re.match(r"[a-z]+ed\b", match.group("rest")):
        return []  # "allowed as described in …": no object follows the preposition
    answer = _trim(match.group("rest"))
    if len(answer.split()) < 1 or answer.split()[0].lower() in _PRONOUNS | {"this", "that"}:
        return []
    purpose = _PURPOSE.search(match.group("rest"))
    if purpose and purpose.start() == 0:
        return []
    prep = match.group("prep")
    question = (
        f"What {clause.aux} {_subject_text(subject, name, proper)} "
        f"{been}{match.group('participle')} {prep}?"
    )
    return [
        Fact(
            _standalone(question, name),
            answer,
            sentence,
            "what",
            _subject_text(subject, name, proper),
            score=1.6,
        )
    ]


def _attribute_facts(
    sentence: str, clause: _Clause, name: str, proper: frozenset[str]
) -> list[Fact]:
    """An attribute: "The shell of user sync is /bin/sync" asks what that shell is."""
    subject = clause.subject
    if clause.aux not in ("is", "are", "was", "were") or clause.verb or clause.front:
        return []
    if not re.match(r"^(?:The|the) [a-z][\w-]*(?: [a-z][\w-]*)? (?:of|for) \S", subject):
        return []
    value = clause.predicate.strip()
    if not value or len(value.split()) > 6 or _CLAUSE_END.search(value):
        return []
    if value.split()[0].lower() in ("not", "also", "only", "used", "set", "a", "an"):
        return []
    question = f"What {clause.aux} {_subject_text(subject, name, proper)}?"
    return [
        Fact(
            _standalone(question, name),
            value,
            sentence,
            "what",
            _subject_text(subject, name, proper),
            score=2.2,
        )
    ]


_USE = re.compile(
    r"^(?P<be>be )?(?P<adverb>(?:also|only|often|usually|typically|commonly|mainly|primarily"
    r"|generally|normally) )?(?P<participle>used|designed|intended|meant) to "
    r"(?P<goal>(?P<verb>[a-z][a-z-]+)\b.*)$"
)


def _use_facts(sentence: str, clause: _Clause, name: str, proper: frozenset[str]) -> list[Fact]:
    """What a thing is for: "X can be used to enable a site" asks what X can be used for.

    A use is no reason: "Why can X be used?" misreads it. "designed to" and "intended to"
    ask what the subject is designed to do, as the passive questions do.
    """
    match = _USE.match(clause.predicate)
    if match is None or clause.verb or match.group("verb") in _NOT_A_GOAL:
        return []
    if match.group("be") and clause.aux not in _MODALS:
        return []
    if not match.group("be") and clause.aux not in ("is", "are", "was", "were"):
        return []
    subject = clause.subject
    if not subject or len(subject.split()) > 6 or subject.split()[0].lower() in _PRONOUNS:
        return []
    goal = _trim(match.group("goal"))
    if len(goal.split()) < 2:
        return []
    ending = "for" if match.group("participle") == "used" else "to do"
    question = (
        f"What {clause.aux} {_subject_text(subject, name, proper)} {match.group('be') or ''}"
        f"{match.group('adverb') or ''}{match.group('participle')} {ending}?"
    )
    return [
        Fact(
            _standalone(question, name),
            "to " + goal,
            sentence,
            "what",
            _subject_text(subject, name, proper),
            score=2.0,
        )
    ]


#: Words after "used to" that open no purpose: "intended to be used in …", "used to the …".
_NOT_A_GOAL = frozenset("be the a an this that these those its their it them".split())


def _purpose_facts(sentence: str, clause: _Clause, name: str, proper: frozenset[str]) -> list[Fact]:
    """A purpose: "ssh-agent is setgid to _ssh in order to prevent ptrace attacks" asks why."""
    match = _PURPOSE.search(clause.predicate)
    if match is None or match.start() < 3:
        return []
    before = clause.predicate[: match.start()].rstrip(", ")
    if re.search(r"\b(?:used|designed|intended|meant)$", before):
        return []  # "can be used to enable a site": what it is for, not why it is used
    if _CLAUSE_END.search(before) or len(before.split()) > _MAX_PREDICATE_WORDS:
        return []
    if re.match(r"^not\b|^never\b", before):
        return []  # "was not designed to allow checks": no purpose, what it lacks
    subject = clause.subject
    if not subject or subject.split()[0].lower() in _PRONOUNS:
        return []
    question = _question("why", clause, before, name, proper)
    goal = "to " + _trim(match.group("goal"))
    return [
        Fact(
            _standalone(question, name),
            goal,
            sentence,
            "why",
            _subject_text(subject, name, proper),
            score=2.0,
        )
    ]


_MODALS = frozenset("must should can may will shall could would".split())


#: Verbs that move their object somewhere: where it goes belongs in the question.
_TRANSFER = frozenset(
    "pass send add move copy write return give apply forward deliver attach append assign map "
    "pipe print save export import".split()
)


def _object_facts(sentence: str, clause: _Clause, name: str, proper: frozenset[str]) -> list[Fact]:
    """An object question: "Packages must declare triggers" asks what they must declare."""
    subject = clause.subject
    if not subject or len(subject.split()) > 5 or subject.split()[0].lower() in _PRONOUNS:
        return []
    if clause.verb:
        verb, rest = clause.verb, clause.predicate
    elif clause.aux in _MODALS:
        first, _, rest = clause.predicate.partition(" ")
        if first.lower() not in _BASE_VERBS:
            return []
        verb = first.lower()
    else:
        return []
    obj = _trim(rest)
    deictic = {"not", "that", "this", "these", "those", "following", "below", "above", "it", "as"}
    if len(obj.split()) < 2 or obj.split()[0].lower() in _PREPOSITIONS | _AUX | deictic:
        return []
    if re.search(r"[:;\"“”]|\b(?:below|above|following)\b", subject + " " + obj):
        return []
    if verb not in _BASE_VERBS or re.search(
        r"\b(?:also|only|still|then|now|just|\w+ly)\b", subject
    ):
        # A verb guessed from its ending is too often a noun, and an adverb inside the
        # subject ("The routines also manipulate known hosts") shows the verb came earlier.
        return []
    if obj.split()[0].lower() in (
        "support",
        "information",
        "details",
        "many",
        "several",
        "some",
        "such",
        "its",
        "their",
        "these",
        "those",
        "this",
    ):
        return []  # "contains support for VPN tunneling": the point is in the answer
    if obj.split()[0].lower() in ("precedence", "place", "effect", "care", "part", "advantage"):
        return []  # "takes precedence over …": an idiom, not an object to ask for
    if subject.split()[0].lower().endswith(("ly", "ing")):
        return []  # "Automatically adds …": a list item without its subject
    first_word = subject.split()[0].lower()
    if first_word in _BASE_VERBS | {"try", "see", "note"} or _base_of(first_word) is not None:
        return []  # "Try to download …": an instruction, not a statement about a subject
    if re.search(r"\d", obj):
        return []  # an amount is asked for by the amount questions
    if re.search(r"\b(?:as|into|in sync|up to date)\b", obj):
        return []  # "lists bin as legacy": the complement, not the object, is the fact
    # "passes the user's group list to the policy plugin": where it goes is part of the
    # question, or "What does sudo pass?" asks nothing the reader can pin down.
    complement = ""
    where = re.match(
        r"^(?P<head>\S+(?:\s+\S+)*?)\s+(?P<to>(?:to|into|onto|from|for|on|in|at|with)\s+"
        r"(?:the|a|an|each|every|all)\s+[\w'-]+(?:\s+[\w'-]+){0,3})$",
        obj,
    )
    if where is not None and len(where.group("head").split()) >= 2 and verb in _TRANSFER:
        obj, complement = where.group("head"), " " + where.group("to")
    question = f"What {clause.aux} {_subject_text(subject, name, proper)} {verb}{complement}?"
    return [
        Fact(
            _standalone(question, name),
            obj,
            sentence,
            "what",
            _subject_text(subject, name, proper),
            score=1.2,
        )
    ]


#: Past participles without "-ed": "X is read by programs" is a passive, not a definition.
_PARTICIPLES = frozenset(
    "given written taken known shown done made set put kept held built sent found read run "
    "seen chosen driven hidden broken spoken begun bound sold told left lost meant paid "
    "brought thought caught taught".split()
)
_NOT_PARTICIPLES = frozenset(
    "speed seed feed embed shed string spring nothing something everything anything".split()
)
#: "the protocol to be used", "the file to read": a role in an example, not a kind ("the only
#: way to delete a list" says what it does, and stays).
_ROLE = re.compile(r"^the (?:[\w-]+ )?(?P<noun>[\w-]+) to (?P<be>be )?[a-z]+\b")


_ROLE_NOUNS = frozenset(
    "file files value protocol transport port host server directory folder program command "
    "option name user group key address path device interface".split()
)


def not_a_definition(rest: str) -> str | None:
    """Why ``rest``, what follows "X is", does not say what X is, or None.

    >>> not_a_definition("included to the master map")
    "'included' opens a passive or a verb phrase: it says what is done to it"
    >>> not_a_definition("the protocol to be used")
    "'the protocol to be used' is a role its example gives it, not what it is"
    >>> not_a_definition("a daemon that watches folders") is None
    True
    """
    first = rest.split()[0] if rest.split() else ""
    low = first.lower()
    if low not in _NOT_PARTICIPLES and (
        low in _PARTICIPLES or re.fullmatch(r"[a-z]{3,}(?:ed|ing)", first)
    ):
        return f"{first!r} opens a passive or a verb phrase: it says what is done to it"
    if re.search(r",? but\b", rest):
        return "a judgement ('…, but …'), not what it is"
    role = _ROLE.match(rest)
    if role is not None and (role.group("be") or role.group("noun") in _ROLE_NOUNS):
        return f"{role.group()!r} is a role its example gives it, not what it is"
    return None


def _definition_facts(sentence: str, name: str, proper: frozenset[str]) -> list[Fact]:
    match = _DEFINITION.match(sentence)
    if match is None:
        return []
    if not_a_definition(match.group("rest")) is not None:
        return []
    term = match.group("term").strip()
    if term.lower() in ("true", "false", "yes", "no", "none", "default", "one", "it"):
        return []  # "True is the default": a value, not a term
    if len(term.split()) > 5 or term.lower() in _PRONOUNS or term.split()[0].lower() in _AUX:
        return []
    if term.split()[0].lower() in ("there", "here", "what", "which", "one", "each", "all"):
        return []
    if term.split()[0].lower().endswith("ing"):
        return []  # "Maintaining pypdf is a collaborative effort": an activity, not a term
    if _SUBORDINATOR.search(term):
        return []  # "Shells exit if there is an error": the "is" belongs to the condition
    if re.search(r",? but\b", match.group("rest")):
        return []  # "a strong power …, but they can become …": a judgement, no definition
    term = _subject_text(term, name, proper)
    verb = match.group("verb")
    if verb == "means":
        question = f"What does {term} mean?"
    elif verb == "refers to":
        question = f"What does {term} refer to?"
    else:
        question = f"What {verb} {term}?"
    return [
        Fact(_standalone(question, name), match.group("rest"), sentence, "what", term, score=1.5)
    ]


def proper_words(text: str) -> frozenset[str]:
    """Words written capitalised inside a sentence: names, kept capitalised in questions."""
    return frozenset(
        match.group(1)
        for match in re.finditer(r"(?<=[\w,;)] )([A-Z][\w-]*)", text)
        if match.group(1).lower() not in _DETERMINERS | _PRONOUNS | _AUX
    )


def subject_of(sentence: str) -> str | None:
    """The sentence's subject when it names something (not a pronoun), else None.

    >>> subject_of("The Team plan includes 2 TB of storage per user.")
    'The Team plan'
    """
    clause = _split_clause(" ".join(sentence.split()).rstrip(" .!;"))
    if clause is None or not clause.subject:
        return None
    first = clause.subject.split()[0].lower()
    if first in _PRONOUNS or len(clause.subject.split()) > 5:
        return None
    return clause.subject


def sentence_facts(
    sentence: str, name: str, proper: frozenset[str] = frozenset(), context: str = ""
) -> list[Fact]:
    """Every wh-question ``sentence`` answers, most informative first.

    Args:
        sentence: one declarative English sentence.
        name: what the text is about (a section heading or document title): a pronoun
            subject becomes it, and a question naming nothing is put in its context.
        proper: words to keep capitalised (see :func:`proper_words`).
        context: the document's name, put in front of a question that names nothing
            (``name`` is used when empty).
    """
    text = " ".join(sentence.split()).rstrip(" .!;")
    if text.endswith(":"):
        return []  # it introduces what follows; the fact is not in the sentence
    if not text or not (text[0].isupper() or _NAME_OPENER.match(text)):
        return []
    if text.endswith("?") or len(text.split()) > 45 or text.count("(") != text.count(")"):
        return []
    if re.match(r"^It \w+ .*\bto [a-z]+", text):
        return []  # "It costs $4 to replace a card": "it" names nothing
    if _SUBORDINATE.match(text):
        return []  # "If the database is open, …": a condition, not a statement
    if re.search(r"\w (?:The|A|An|Each|Every|This|These|All|Some) [a-z]", text):
        return []  # a heading glued to its paragraph (PDF text): not one sentence
    if re.search(r"(?:\b[A-Z][\w-]*\s+){4}[A-Z]", text):
        return []  # a run of capitalised words is a table's header row, not a sentence
    proper = proper | proper_words(text)
    facts = _definition_facts(text, name, proper)
    clauses = []
    clause = _split_clause(text)
    if clause is not None and re.search(
        r"\b(?:this|these|that|those)\s+\w", clause.subject, re.IGNORECASE
    ):
        clause = None  # "members of this group": the group is named in another sentence
    if clause is not None and clause.subject and clause.predicate:
        clauses.append(clause)
        # "costs $6 and includes 200 GB": the second verb phrase has the same subject.
        joined = re.search(r",?\s+and\s+(?P<verb>[a-z]+)\s", clause.predicate)
        if joined and re.search(r"\bto\s+[a-z]+", clause.predicate[: joined.start()]):
            joined = None  # "cause X to read Y and include Z": the verb may be the infinitive's
        based = _base_of(joined.group("verb")) if joined else None
        if based is not None and based[0] == "do" and clause.aux in ("is", "was", "has", "does"):
            based = None  # "is valid and cost …" does not agree: not a second verb phrase
        if joined and based is not None:
            clauses[0] = _Clause(
                clause.front,
                clause.subject,
                clause.aux,
                clause.verb,
                clause.predicate[: joined.start()],
                clause.offset,
            )
            clauses.append(
                _Clause(
                    clause.front,
                    clause.subject,
                    based[0],
                    based[1],
                    clause.predicate[joined.end() :],
                    clause.offset + joined.end(),
                )
            )
    for clause in clauses:
        facts += _amount_facts(text, clause, name, proper)
        facts += _subject_amount_facts(text, clause, name, proper)
        facts += _year_facts(text, clause, name, proper)
        facts += _agent_facts(text, clause, name, proper)
        facts += _place_facts(text, clause, name, proper)
        facts += _cause_facts(text, clause, name, proper)
        if not facts:
            facts += _attribute_facts(text, clause, name, proper)
        if not facts:
            facts += _use_facts(text, clause, name, proper)
        if not facts:
            facts += _purpose_facts(text, clause, name, proper)
        if not facts:
            facts += _passive_facts(text, clause, name, proper)
        if not facts:
            facts += _object_facts(text, clause, name, proper)
    kept = []
    for fact in facts:
        # A question holding its own answer, or too short to ask anything, is no question.
        if fact.answer and fact.answer.lower() in fact.question.lower():
            continue
        if len(fact.question.split()) < 3:
            continue
        question = fact.question
        if context and question.startswith(f"In {name}, "):
            rest = question[len(f"In {name}, ") :]
            named = {word for word in words(context) if len(word) > 3} & set(words(rest))
            question = (rest[0].upper() + rest[1:]) if named else f"In {context}, {rest}"
        kept.append(
            Fact(
                question,
                fact.answer,
                sentence,
                fact.wh,
                fact.subject,
                fact.value,
                fact.unit,
                fact.score,
            )
        )
    return sorted(kept, key=lambda fact: -fact.score)
