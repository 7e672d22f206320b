"""Text utilities of the offline judge: splitting, tokens, numbers and noncommittal answers.

Everything here is deterministic, standard library only and language-aware in a small way:
words for alphabetic scripts, character bigrams for CJK (Han, kana, hangul), which have no
spaces between words.

>>> split_sentences("Pi is about 3.14. Dr. Smith agreed, e.g. in 2001! 北京很大。上海也很大；")
['Pi is about 3.14.', 'Dr. Smith agreed, e.g. in 2001!', '北京很大。', '上海也很大；']
>>> sorted(numbers("It cost $1,000 on 16 October 1898; 第七届立法会90个议席."))
['10', '1000', '16', '1898', '7', '90']
>>> is_noncommittal("I don't know.") and is_noncommittal("抱歉，我无法回答这个问题。")
True
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from .values import CN_COUNTERS, find_values

__all__ = [
    "NEGATION_WORDS",
    "STOPWORDS",
    "Token",
    "clause_claims",
    "content_tokens",
    "has_negation",
    "is_cjk",
    "is_noncommittal",
    "number_words",
    "numbers",
    "split_claims",
    "split_clauses",
    "split_sentences",
    "stem",
]

_CJK_RANGES = (
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # Han
    "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"  # hangul
)


# Compiling a class of some 40,000 characters takes milliseconds, paid by every run that
# loads this module; ASCII text holds none of them, so the patterns compile on the first
# text that is not ASCII, and most English golden sets never need them.
@functools.lru_cache(maxsize=1)
def _cjk_char() -> re.Pattern[str]:
    return re.compile(f"[{_CJK_RANGES}]")


@functools.lru_cache(maxsize=1)
def _cjk_run() -> re.Pattern[str]:
    return re.compile(f"([{_CJK_RANGES}]+)")


_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d+(?:[.,]\d+)*(?:st|nd|rd|th|s)?")

# The offline judge splits and tokenises the same texts many times per case: each context
# once per request, each claim once per metric, each word of a claim while it is split.
# Bounded caches keep that to once per text without growing over a 50,000-case run; they
# hold tuples and frozensets, and the public functions hand out fresh lists and sets.
_TEXT_CACHE_SIZE = 2048
_TOKEN_CACHE_SIZE = 8192

STOPWORDS: frozenset[str] = frozenset(
    """a an the and or but nor so yet if then than that this these those there here
    is are was were be been being am do does did done doing has have had having will would
    shall should can could may might must of in on at to for from by with without about
    into onto over under between through during before after above below up down out off
    as it its it's itself he him his she her hers they them their theirs we us our you
    your yours i me my mine who whom whose which what when where why how all any both
    each few more most other some such only own same too very just also even ever still
    again once well really quite rather much many one's oh yes yeah hi hello hey okay ok
    let's lets i'm i've i'd i'll you're you've that's there's isn't aren't wasn't weren't
    don't doesn't didn't can't cannot won't wouldn't""".split()
)
"""English function words and greetings that carry no checkable content.

Opinion and chit-chat words ("think", "love") stay: "I love that film" is still a claim
that the contexts do not back.
"""

NEGATION_WORDS: frozenset[str] = frozenset(
    """not no non never none nobody nothing neither nor without cannot isn't aren't wasn't
    weren't don't doesn't didn't can't won't wouldn't shouldn't couldn't hasn't haven't
    hadn't""".split()
)
"""English words that flip the polarity of a statement."""

_CJK_NEGATION = re.compile("[不没沒未无無非别別勿]|ない|않|없|아니")

# Tokens made of these characters alone are grammar, not content.
_CJK_FUNCTION_CHARS = frozenset(
    "的了是在和与及或也都就着过吗呢吧啊呀之其而这那个我你他她它们有为于以被把将从对"
)

_NUMBER_WORDS = {
    "zero": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "eleven": "11",
    "twelve": "12",
    "thirteen": "13",
    "fourteen": "14",
    "fifteen": "15",
    "sixteen": "16",
    "seventeen": "17",
    "eighteen": "18",
    "nineteen": "19",
    "twenty": "20",
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "hundred": "100",
    "thousand": "1000",
    "first": "1",
    "second": "2",
    "third": "3",
    "fourth": "4",
    "fifth": "5",
}

_COUNT_WORDS = frozenset(word for word in _NUMBER_WORDS if word not in ("zero", "one", "first"))

SPEAKER_TOKEN = "<speaker>"
"""Stands for a first-person statement: "I love it" is about the speaker, so it is only
covered by contexts that speak in the first person too."""
# "US" in capitals is the country, not "us".
_FIRST_PERSON = re.compile(r"\b(?:(?i:i|me|my|mine|myself|we|our|ours)|[Uu]s)\b|我")

_ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof sr jr st mt vs etc e.g i.e cf al approx ca no nos vol fig
    inc ltd co corp dept est jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k
    u.n a.m p.m ph.d b.c a.d gen col lt sgt rev gov sen rep""".split()
)

_LATIN_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s|$)")
_CJK_END = re.compile(r"[。！？；;!?]+[\"'”’」』)）]*")
# A numbered marker is followed by a space or a letter, never a digit: "2.5 million" opens
# with a decimal, not with item 2.
_BULLET = re.compile(
    r"^\s*(?:[-*•·‣–—]|(?P<number>\d{1,2})[.)、](?!\d)|[(（]?(?P<paren>\d{1,2})[)）])\s*"
)
# A marker inside a line ("1. Open settings. 2. Click save.") follows a sentence's end.
_INLINE_MARKER = re.compile(r"(?<=[.!?:;])\s+\(?(\d{1,2})[.)](?=\s)")

_NONCOMMITTAL = re.compile(
    r"\b(?:i\s+(?:do\s*n[o']t|don't|dont)\s+know|i\s+(?:am|'m)\s+not\s+sure|not\s+sure"
    r"|i\s+(?:have|'ve)\s+no\s+idea|no\s+idea|(?:can\s*not|can't|cannot|unable\s+to)\s+"
    r"(?:answer|say|tell|determine|find|provide|be\s+determined)|i\s+(?:am|'m)\s+unable"
    r"|(?:no|not\s+enough|insufficient)\s+(?:relevant\s+)?information"
    r"|(?:does|do)\s*n[o']t\s+(?:say|mention|specify|provide|contain)"
    r"|is\s+not\s+(?:mentioned|specified|provided|known)|not\s+(?:mentioned|specified)"
    r"|unknown|no\s+(?:answer|comment))\b"
    r"|无法回答|無法回答|不知道|不清楚|没有相关信息|沒有相關信息|无法确定|無法確定|不确定|"
    r"无从得知|無從得知|没有足够的信息|信息不足|无法提供|无法判断|不能回答|未提及|没有提到|"
    r"わかりません|分かりません|知りません|모르겠|알 수 없",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Token:
    """A content token: normalised text, and whether it names something (weighs more)."""

    text: str
    entity: bool = False


def is_cjk(char: str) -> bool:
    """Whether ``char`` is a Han, kana or hangul character."""
    return not char.isascii() and bool(_cjk_char().match(char))


def _normalise(text: str) -> str:
    # NFKC folds full-width digits and letters ("１９７６") onto their ASCII forms.
    return unicodedata.normalize("NFKC", text)


def _is_abbreviation(text: str, end: int) -> bool:
    """Whether the period ending at ``end`` (exclusive) closes an abbreviation or initial."""
    start = end - 1
    while start > 0 and not text[start - 1].isspace() and text[start - 1] not in "(\"'“":
        start -= 1
    word = text[start : end - 1].lower()
    if not word:
        return False
    if word in _ABBREVIATIONS:
        return True
    # A single capital letter is an initial ("William O. Douglas").
    if len(word) == 1 and word.isalpha():
        return True
    # Dotted abbreviations like "U.S." or "e.g." keep their inner periods.
    return bool(re.fullmatch(r"(?:[^\W\d_]\.)+[^\W\d_]", word))


def _split_line(line: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    boundaries = sorted(
        [(match.start(), match.end(), "latin") for match in _LATIN_END.finditer(line)]
        + [(match.start(), match.end(), "cjk") for match in _CJK_END.finditer(line)]
    )
    last_end = -1
    for begin, end, script in boundaries:
        if begin < last_end:
            continue
        if script == "latin":
            rest = line[end:].lstrip()
            if line[begin] == "." and end - begin == 1 or line[begin:end].startswith(". "):
                if _is_abbreviation(line, begin + 1):
                    continue
            # A period followed by a lowercase word does not end a sentence ("approx. five").
            if line[begin] == "." and rest[:1].islower():
                continue
        pieces.append(line[start:end])
        start = end
        last_end = end
    pieces.append(line[start:])
    return [piece.strip() for piece in pieces if piece.strip()]


def _strip_bullet(line: str) -> tuple[str, int | None]:
    """``line`` without its list bullet, and the bullet's number when it was numbered."""
    match = _BULLET.match(line)
    if match is None:
        return line.strip(), None
    number = match.group("number") or match.group("paren")
    return line[match.end() :].strip(), int(number) if number else None


def _inline_markers(line: str, first: int | None) -> list[re.Match[str]]:
    """The list markers inside ``line``, given the number of the bullet that opened it.

    After a numbered bullet, every number that opens a sentence with ``.`` or ``)`` is the
    next item's marker. Without one, only a run counting up from 1 is a list ("Steps: 1.
    Open it. 2. Save it."): a lone "42." after a question is an answer, not a marker.
    """
    candidates = list(_INLINE_MARKER.finditer(line))
    if first is not None:
        return candidates
    run: list[re.Match[str]] = []
    for candidate in candidates:
        if int(candidate.group(1)) == len(run) + 1:
            run.append(candidate)
    return run if len(run) >= 2 else []


def _list_items(line: str) -> list[str]:
    """Split a line at its list markers, dropping the markers themselves."""
    line, first = _strip_bullet(line)
    items: list[str] = []
    start = 0
    for marker in _inline_markers(line, first):
        items.append(line[start : marker.start()])
        start = marker.end()
    items.append(line[start:])
    return [item.strip() for item in items if item.strip()]


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences, keeping each sentence's original wording.

    Splits on ``. ! ?`` followed by a space or the end, on ``。！？；`` anywhere, and on line
    breaks; list bullets and numbered markers, at a line's start or inside it, are dropped,
    so an item's number never becomes a sentence of its own. Decimals ("3.14", "2.5
    million" opening a line), initials ("O.") and common abbreviations ("e.g.", "Dr.",
    "U.S.") do not end a sentence.

    >>> split_sentences("1. Open settings. 2. Click save.")
    ['Open settings.', 'Click save.']
    >>> split_sentences("2.5 million people live there.")
    ['2.5 million people live there.']

    Args:
        text: Any text, in any language.

    Returns:
        The non-empty sentences in order.
    """
    return list(_split_sentences(text))


@functools.lru_cache(maxsize=_TEXT_CACHE_SIZE)
def _split_sentences(text: str) -> tuple[str, ...]:
    sentences: list[str] = []
    for raw_line in text.splitlines():
        for item in _list_items(raw_line):
            sentences.extend(_split_line(item))
    return tuple(sentences)


_CLAUSE_BREAK = re.compile(
    r"\s*(?:;|:\s|,\s*(?:and|but|while|whereas|although|though|which|who|where|so|yet|"
    r"because|as well as|including)\s|\s(?:but|whereas|while|although|because)\s)\s*",
    re.IGNORECASE,
)
_CJK_CLAUSE_BREAK = re.compile(r"[，,、：:]\s*(?:但是|但|而且|并且|而|并|且|所以|因此)?")
_MIN_CLAUSE_TOKENS = 2

# Inside a clause, facts attach through prepositional phrases and lists; these words open
# them. "of" and "to" are left out: they mostly bind a noun or verb phrase to itself.
_PHRASE_OPENERS = frozenset(
    """in on at by for with from during after before since until near under over between
    through against within without including via across into among""".split()
)
_PHRASE_BREAK = re.compile(
    r",(?!\s*\d)\s*|\s+(?=(?:and|or|who|which|where|when|that)\s)", re.IGNORECASE
)
_CJK_PHRASE_BREAK = re.compile("(?=[在于由和与及从对被向])")
_RELATIVES = frozenset(["who", "which", "where", "when", "that"])
MAX_ATOMIC_TOKENS = 4
"""A clause with more content tokens (numbers included) than this is split into facts."""


def _size(text: str) -> int:
    return len(_content_tokens(text)) + len(_numbers(text))


def _segments(clause: str, cjk: bool) -> list[str]:
    """Cut a clause before every phrase opener, comma and list conjunction."""
    if cjk:
        return [part for part in _CJK_PHRASE_BREAK.split(clause) if part]
    segments: list[str] = []
    for piece in _PHRASE_BREAK.split(clause):
        current: list[str] = []
        for word in piece.split():
            if current and word.lower() in _PHRASE_OPENERS:
                segments.append(" ".join(current))
                current = []
            current.append(word)
        if current:
            segments.append(" ".join(current))
    return segments


# "of", "to" and the possessive bind a word to the phrase before it ("chairman of the club").
_BINDING_WORDS = frozenset(["of", "to", "'s"])
PHRASE_TOKENS = 2
"""Content tokens (numbers included) a phrase gathers before the next function word ends it."""


def _phrase_facts(clause: str) -> list[str]:
    """Split a clause with no list or prepositional structure at its function words.

    "Hans Dobida served as chairman of the Continental Cup until 2018" becomes "Hans Dobida
    served as chairman of the Continental Cup" and "Hans Dobida served until 2018": each
    content-bearing phrase is restated with the opening one, so that one unsupported phrase
    lowers the score by its own share instead of hiding inside a long, mostly covered claim.
    """
    phrases: list[list[str]] = []
    current: list[str] = []
    # Counted word by word, so that a long run of filler stays linear to split.
    current_size = 0
    for word in clause.split():
        lowered = word.lower()
        is_boundary = (
            lowered in STOPWORDS or lowered in _PHRASE_OPENERS
        ) and lowered not in _BINDING_WORDS
        if is_boundary and current_size >= PHRASE_TOKENS:
            phrases.append(current)
            current, current_size = [], 0
        current.append(word)
        current_size += _size(word)
    if current:
        if phrases and not current_size:
            phrases[-1].extend(current)
        else:
            phrases.append(current)
    if len(phrases) < 3 or any(has_negation(" ".join(phrase)) for phrase in phrases[1:]):
        # Two phrases restated as one would only give back the clause; a negation in a
        # later phrase would be lost by the others ("… is not available" + "on the plan").
        return [clause]
    head = " ".join(phrases[0])
    return [f"{head} {' '.join(phrase)}" for phrase in phrases[1:]]


def _atomic_facts(clause: str, cjk: bool) -> list[str]:
    """Split a long clause into one fact per phrase, each restated with the clause's head.

    "Apple was founded in 1976 by Steve Jobs and Ronald Wayne" becomes "Apple was founded in
    1976", "Apple was founded by Steve Jobs", "Apple was founded by Ronald Wayne": list items
    inherit the phrase opener before them, as an annotator's atomic facts would.
    """
    if _size(clause) <= MAX_ATOMIC_TOKENS:
        return [clause]
    joiner = "" if cjk else " "
    grouped: list[str] = []
    for segment in _segments(clause, cjk):
        # The head must name something; later phrases need only one checkable token.
        if grouped and (
            len(grouped) == 1 and _size(grouped[0]) < _MIN_CLAUSE_TOKENS or not _size(segment)
        ):
            grouped[-1] = f"{grouped[-1]}{joiner}{segment}"
        else:
            grouped.append(segment)
    if len(grouped) < 2:
        return [clause] if cjk else _phrase_facts(clause)
    head, facts, opener = grouped[0], [], ""
    for segment in grouped[1:]:
        words = segment.split()
        if not cjk and words[0].lower() in ("and", "or"):
            words = words[1:] or words
        first = words[0].lower() if words else ""
        if first in _PHRASE_OPENERS:
            opener = words[0]
        elif opener and not cjk and len(words) <= 3 and first not in _RELATIVES:
            words = [opener, *words]
        else:
            opener = ""
        body = segment if cjk else " ".join(words)
        facts.append(f"{head}{joiner}{body}")
    return _phrase_facts(clause) if len(facts) == 1 and not cjk else facts


def split_claims(text: str) -> list[str]:
    """Split ``text`` into atomic claims: sentences, then clauses, then one fact per phrase.

    A clause break (a semicolon, ", and", ", but", ", which", a CJK comma...) only splits when
    both sides keep enough content to be checked on their own. A long clause is split once
    more at its prepositional phrases and list items, each restated with the clause's head,
    so that a claim holding three facts counts as three claims, not one; a long clause with
    no such structure is cut at its function words instead. Fragments with no
    content (greetings, "Yes.", a lone "Thanks!") are dropped.

    Args:
        text: The answer or reference to split, in any language.

    Returns:
        The claims in order, in the language and wording of ``text``.
    """
    return list(_split_claims(text))


# Emphasis and heading markers of markdown answers are layout, not words.
_MARKDOWN = re.compile(r"\*\*|__|^#{1,6}\s+|`")
_LEAD_IN = re.compile(r"[:：]\s*$")
# A bold label opening a list item ("**Hours:** open at 9") repeats what the item says.
_BOLD_LABEL = re.compile(r"^\*\*[^*]{1,40}?(?:[:：]\*\*|\*\*[:：])\s*(?=\S)")


@functools.lru_cache(maxsize=_TEXT_CACHE_SIZE)
def _split_claims(text: str) -> tuple[str, ...]:
    return tuple(
        claim for clause, cjk in _split_clauses(text) for claim in _atomic_facts(clause, cjk)
    )


def split_clauses(text: str) -> list[str]:
    """Split ``text`` into its clauses, before a long clause is cut into one fact per phrase.

    What a clause says as a whole (a refusal: "the documents do not say when it opens") is
    read here; :func:`clause_claims` then gives its atomic claims.

    >>> split_clauses("Sorry, the documents do not say when it opens; it closes at 9.")
    ['Sorry, the documents do not say when it opens', 'it closes at 9.']
    """
    return [clause for clause, _ in _split_clauses(text)]


@functools.lru_cache(maxsize=_TEXT_CACHE_SIZE)
def _split_clauses(text: str) -> tuple[tuple[str, bool], ...]:
    """Each clause, and whether its sentence is mostly CJK (how its facts are cut)."""
    clauses: list[tuple[str, bool]] = []
    for raw_sentence in _split_sentences(text):
        if raw_sentence.startswith("#"):
            # A markdown heading names a section; it asserts nothing.
            continue
        sentence = _MARKDOWN.sub("", _BOLD_LABEL.sub("", raw_sentence)).strip()
        if _LEAD_IN.search(sentence):
            # "Here is an overview:" opens a list; the items carry the facts.
            continue
        cjk = _cjk_share(sentence) > 0.5
        breaker = _CJK_CLAUSE_BREAK if cjk else _CLAUSE_BREAK
        parts = [part.strip(" ,，、") for part in breaker.split(sentence)]
        merged: list[str] = []
        for part in parts:
            if not part:
                continue
            if merged and (
                _size(part) < _MIN_CLAUSE_TOKENS or _size(merged[-1]) < _MIN_CLAUSE_TOKENS
            ):
                merged[-1] = f"{merged[-1]}, {part}"
            else:
                merged.append(part)
        clauses.extend((clause, cjk) for clause in merged if _size(clause))
    return tuple(clauses)


def clause_claims(text: str) -> list[tuple[str, list[str]]]:
    """Each clause of ``text`` (:func:`split_clauses`) with its atomic claims.

    >>> text = "Hans Dobida served as chairman of the Cup until 2018."
    >>> [facts for _, facts in clause_claims(text)]
    [['Hans Dobida served as chairman of the Cup', 'Hans Dobida served until 2018.']]
    """
    return [(clause, _atomic_facts(clause, cjk)) for clause, cjk in _split_clauses(text)]


def _cjk_share(text: str) -> float:
    letters = [char for char in text if char.isalnum()]
    if not letters:
        return 0.0
    return sum(1 for char in letters if is_cjk(char)) / len(letters)


# British "-tre"/"-bre" endings ("metre", "centre", "fibre") read as their American twins.
_BRITISH_RE_ENDING = re.compile(r"([a-z]{2,}[bt])re")


def stem(word: str) -> str:
    """A light English stemmer: folds plurals, possessives and common verb endings.

    British and American spellings of "-tre"/"-ter" words stem alike, so "8.849 Meter" is
    backed by a context that gives "8.849 metres".

    >>> [stem(word) for word in ["founded", "companies", "studies", "running", "Apple's"]]
    ['found', 'company', 'study', 'run', 'apple']
    >>> [stem(word) for word in ["metres", "Meter", "centre", "fibres"]]
    ['meter', 'meter', 'center', 'fiber']
    """
    stemmed = _strip_endings(word)
    british = _BRITISH_RE_ENDING.fullmatch(stemmed)
    return f"{british.group(1)}er" if british else stemmed


def _strip_endings(word: str) -> str:
    word = word.lower().replace("’", "'")
    if word.endswith("'s"):
        word = word[:-2]
    word = word.strip("'")
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]
            return base
    if word.endswith("es") and word[-3] in "sxz" or word.endswith(("ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


# Answers and contexts repeat their words; stemming each spelling once keeps long texts cheap.
_cached_stem = functools.lru_cache(maxsize=1 << 16)(stem)


def numbers(text: str) -> set[str]:
    """The numbers and date parts in ``text``, normalised ("1,000" and "1000" are equal).

    Values are read by :func:`~pytest_ragas_gate.judges.offline.values.find_values`: digits glued to
    CJK characters count ("2022年1月3日" gives 2022, 1 and 3), and so do percentages, times,
    month names next to a number and Chinese numerals that must be numbers ("九十").

    Args:
        text: Any text; full-width digits count.

    Returns:
        Normalised number strings (years, days, amounts, decimals).
    """
    return set(_numbers(text))


_COUNTER_CHARS = "".join(sorted(CN_COUNTERS))


@functools.lru_cache(maxsize=_TOKEN_CACHE_SIZE)
def _numbers(text: str) -> frozenset[str]:
    # A counted form ("90个", "1月") gives its number: callers compare plain numbers.
    return frozenset(
        form.rstrip(_COUNTER_CHARS) for value in find_values(text) for form in value.forms
    )


def number_words(text: str) -> set[str]:
    """Numbers written as English words ("three", "first"), as digit strings."""
    return {
        _NUMBER_WORDS[word] for word in re.findall(r"[a-z]+", text.lower()) if word in _NUMBER_WORDS
    }


_OPENERS = frozenset('.!?:"“')


def _previous_char(text: str, index: int) -> str:
    """The last non-space character before ``index``, or "" at the start."""
    # Scanning back instead of slicing keeps a long answer linear in its length.
    while index > 0 and text[index - 1].isspace():
        index -= 1
    return text[index - 1] if index > 0 else ""


def content_tokens(text: str) -> list[Token]:
    """The content tokens of ``text``, in order and without duplicates.

    Alphabetic words are lowercased, stemmed and stripped of stopwords; a capitalised word
    that does not open the sentence, or any word with a digit, is marked as an entity. CJK
    runs become overlapping character bigrams (a lone character stays a unigram), minus the
    bigrams made only of grammatical characters. Numbers are left to :func:`numbers`.

    Args:
        text: Any text, in any language.

    Returns:
        Distinct tokens in order of first appearance.
    """
    return list(_content_tokens(text))


def _without_values(text: str) -> str:
    """``text`` with its values blanked out: they are checked as values, not as words.

    A counter glued to a value goes with it ("90个", "3日"), and so do a value's unit words
    ("million", "percent", "PM") and month names next to a number, so that "January 3" and
    "1月3日" leave no words behind that the other spelling lacks.
    """
    found = find_values(text)
    if not found:
        return text
    pieces: list[str] = []
    start = 0
    for value in found:
        end = value.end
        if text[end : end + 1] in CN_COUNTERS:
            end += 1
        pieces.append(text[start : value.start])
        pieces.append(" " * (end - value.start))
        start = end
    pieces.append(text[start:])
    return "".join(pieces)


@functools.lru_cache(maxsize=_TOKEN_CACHE_SIZE)
def _content_tokens(text: str) -> tuple[Token, ...]:
    text = _without_values(_normalise(text))
    tokens: dict[str, Token] = {}
    if _FIRST_PERSON.search(text):
        tokens[SPEAKER_TOKEN] = Token(SPEAKER_TOKEN)
    position = 0
    for chunk in [text] if text.isascii() else _cjk_run().split(text):
        if not chunk:
            continue
        if not chunk.isascii() and _cjk_run().fullmatch(chunk):
            grams = (
                [chunk] if len(chunk) == 1 else [chunk[i : i + 2] for i in range(len(chunk) - 1)]
            )
            for gram in grams:
                if all(char in _CJK_FUNCTION_CHARS for char in gram):
                    continue
                tokens.setdefault(gram, Token(gram))
            position += 1
            continue
        for match in _WORD.finditer(chunk):
            word = match.group()
            position += 1
            if word[0].isdigit():
                continue
            lowered = word.lower().replace("’", "'")
            if lowered in _COUNT_WORDS:
                # "two" and "2" are the same content; "one" is too often a pronoun.
                tokens.setdefault(_NUMBER_WORDS[lowered], Token(_NUMBER_WORDS[lowered]))
                continue
            if lowered in STOPWORDS or lowered in _NUMBER_WORDS:
                continue
            stemmed = _cached_stem(lowered)
            if stemmed in STOPWORDS or (len(stemmed) < 2 and not word.isupper()):
                continue
            opens_sentence = position == 1 or _previous_char(chunk, match.start()) in _OPENERS
            entity = word[0].isupper() and not opens_sentence
            previous = tokens.get(stemmed)
            if previous is None or (entity and not previous.entity):
                tokens[stemmed] = Token(stemmed, entity)
    return tuple(tokens.values())


def has_negation(text: str) -> bool:
    """Whether ``text`` contains a negation word (English) or negation character (CJK)."""
    lowered = _normalise(text).lower().replace("’", "'")
    words = set(re.findall(r"[a-z]+(?:'[a-z]+)?", lowered))
    return bool(words & NEGATION_WORDS) or bool(_CJK_NEGATION.search(lowered))


def is_noncommittal(text: str) -> bool:
    """Whether the answer evades the question ("I don't know", "无法回答", "不清楚" ...)."""
    return bool(_NONCOMMITTAL.search(_normalise(text)))
