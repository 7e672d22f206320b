"""When the contexts say otherwise: a different value for the same thing, or a record's "no".

The offline judge calls a claim *contradicted* only where the evidence is plain, and leaves
every doubt to *not in context*:

- a value of the claim that no context gives, where a context sentence about the same thing
  (most of the claim's words and all its other values, a shared word right beside the value,
  the same unit, both years or neither) gives another value: "founded in 1977" against
  "founded in 1976", "80个议席" against "90个议席". Hedged values ("about 15 million",
  "超过80个") and values that differ only by rounding are never contradicted;
- a record field whose value is a yes or a no, when the claim names every word of the field's
  key with the other polarity: ``"WiFi": "no"`` against "offers free WiFi",
  ``"BusinessAcceptsCreditCards": "True"`` against "does not accept credit cards";
- a negated claim (no, not, never, without, lacks, doesn't …) whose every other word and value
  one context sentence states with no negation: "The Team plan has no single sign-on" against
  "The Team plan includes single sign-on (SSO)". Only this direction: a context sentence's
  "not" may belong to another part of it ("includes SSO but not audit logs"), while a claim
  that the sentence covers entirely denies what it says.

>>> find_contradiction("Apple was founded in 1977.", ["Apple was founded in 1976 by Jobs."])
'the contexts give 1976 where the claim gives 1977'
>>> find_contradiction("Apple was founded in 1977.", ["Apple has 1977 stores."]) is None
True
>>> find_contradiction("It offers free WiFi.", ['{"name": "Joe", "WiFi": "no"}'])
'the record gives WiFi: no'
>>> find_contradiction("The Team plan has no SSO.", ["The Team plan includes SSO."])
"the contexts state it without the claim's 'no': The Team plan includes SSO."
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from .records import key_words, read_record
from .text import (
    NEGATION_WORDS,
    STOPWORDS,
    content_tokens,
    has_negation,
    is_cjk,
    split_sentences,
    stem,
)
from .values import CN_COUNTERS, Value, find_values, value_spellings

__all__ = ["denial_stated", "find_contradiction", "negation_cues"]

SAME_TOPIC_COVERAGE = 0.6
"""Share of the claim's words one context sentence must hold to be about the same thing."""

ROUNDING = 0.1
"""Relative gap under which two quantities may be one value rounded (15.3 vs 15 million)."""

_LATIN_WINDOW_WORDS = 3
_CJK_WINDOW_CHARS = 6
_CACHE_SIZE = 1024

_HEDGES = re.compile(
    r"\b(?:about|around|approximately|approx|roughly|nearly|almost|over|under|more than|"
    r"less than|fewer than|at least|at most|up to|some|estimated|circa|ca)\W*$"
    r"|(?:约|大约|超过|近|逾|至少|最多|将近|不到)$",
    re.IGNORECASE,
)
_HEDGES_AFTER = re.compile(r"^\s*(?:多|余|左右|以上|以下|or so|plus)", re.IGNORECASE)
_FIXED_UNITS = frozenset(["%", "month", "time", "thousand", "million", "billion", "trillion"])
_YEAR = re.compile(r"^(?:1\d|20)\d\d(?:年)?$")

# Words that deny what the rest of a claim says; "lacks" as well as the negation words.
_DENIALS = NEGATION_WORDS | frozenset(["lack", "lacks", "lacked", "lacking"])
_WORDS = re.compile(r"[a-z]+(?:'[a-z]+)?")
# "not only … but also", "nothing but": emphasis, not denial.
_NOT_DENIAL = re.compile(r"\b(?:not\s+only|not\s+just|nothing\s+but|no\s+doubt)\b")
# A reply's opening "No," answers a question; it does not deny the rest of the sentence.
_REPLY_NO = re.compile(r"^\W*(?:no|nope|nah)\b\W*(?:but\b)?")
# The speaker's own life ("I have never been on a cruise") is no claim about the contexts.
_FIRST_PERSON = re.compile(r"^\W*(?:i|i'm|i've|we|we're|we've|you|you're|you've)\b")
# Function words that bound what a sentence says ("after 30 days", "under $50"): a claim
# denies a sentence only if both bound it alike, else the "not" may deny another range.
_QUALIFIERS = frozenset(
    "after before within under over above below more less fewer than until till only "
    "except unless since beyond exceeding exceeds least most between outside inside "
    "besides excluding".split()
)
#: Words a denied claim must share with the sentence it denies: fewer name no one fact.
_DENIED_WORDS = 3
_SAME_START = 5
# Words that deny without a negation word ("failed to qualify", "refused", "only in 1990").
_FAILURE = re.compile(
    r"\b(?:fail|failed|fails|refus\w*|den(?:y|ied|ies)|absent|neither|nor|unable|instead|"
    r"rather|only|neglect\w*|omit\w*)\b"
)

# Key words too general to name a field on their own ("RestaurantsTakeOut" is not about any
# sentence with "take" in it).
_GENERIC_KEY_WORDS = frozenset(
    ["business", "restaurant", "good", "attribute", "take", "has", "is", "by", "appointment"]
)


@dataclass(frozen=True)
class _Site:
    """A value in a context sentence, with the words around it."""

    value: Value
    sentence_tokens: frozenset[str]
    sentence_spellings: frozenset[str]
    near: frozenset[str]


def _token_set(text: str) -> frozenset[str]:
    return frozenset(token.text for token in content_tokens(text))


def _window(text: str, value: Value) -> tuple[str, str]:
    """The few words (or CJK characters) right before and right after ``value``."""
    before, after = text[: value.start], text[value.end :]
    if before and is_cjk(before[-1]):
        before = before[-_CJK_WINDOW_CHARS:]
    else:
        before = " ".join(before.split()[-_LATIN_WINDOW_WORDS:])
    if after[:1] in CN_COUNTERS:
        after = after[1:]
    if after and is_cjk(after[0]):
        after = after[:_CJK_WINDOW_CHARS]
    else:
        after = " ".join(after.split()[:_LATIN_WINDOW_WORDS])
    return before, after


def _near(text: str, value: Value, values: Sequence[Value]) -> frozenset[str]:
    """The words beside ``value``, and the values glued to it ("1月" beside "3日")."""
    before, after = _window(text, value)
    glued = {
        form
        for other in values
        if other is not value
        and (0 <= value.start - other.end <= 2 or 0 <= other.start - value.end <= 2)
        for form in other.forms
    }
    return _token_set(before) | _token_set(after) | glued


def _unit_key(value: Value) -> str:
    unit = value.unit
    if unit in CN_COUNTERS or unit in _FIXED_UNITS:
        return unit
    if unit.isalpha() and unit.isascii() and unit not in STOPWORDS:
        return stem(unit)
    return ""


def _is_year(value: Value) -> bool:
    return any(_YEAR.match(form) for form in value.forms)


def _magnitude(value: Value) -> float | None:
    for form in value.forms:
        digits = form.rstrip("".join(CN_COUNTERS))
        try:
            return float(digits)
        except ValueError:
            continue
    return None


def _may_be_rounded(claimed: Value, stated: Value) -> bool:
    first, second = _magnitude(claimed), _magnitude(stated)
    if first is None or second is None or _is_year(claimed):
        return first is None or second is None
    larger = max(abs(first), abs(second))
    return bool(larger) and abs(first - second) / larger < ROUNDING


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _sites(text: str) -> tuple[_Site, ...]:
    """Every value of a context with the sentence and the words around it."""
    record = read_record(text)
    sites: list[_Site] = []
    for sentence in split_sentences(record.text if record else text):
        found = find_values(sentence, strict=False)
        if not found:
            continue
        tokens = _token_set(sentence)
        spelled = value_spellings(sentence)
        normalised = _nfkc(sentence)
        sites.extend(
            _Site(value, tokens, spelled, _near(normalised, value, found)) for value in found
        )
    return tuple(sites)


def _nfkc(text: str) -> str:
    # Values' offsets refer to the NFKC text.
    return unicodedata.normalize("NFKC", text)


def _coverage(tokens: frozenset[str], sentence_tokens: frozenset[str]) -> float:
    return len(tokens & sentence_tokens) / len(tokens) if tokens else 0.0


def _value_contradiction(
    claim: str, texts: Sequence[str], spellings: frozenset[str] | None
) -> str | None:
    claimed_values = find_values(claim)
    if not claimed_values:
        return None
    if spellings is None:
        spellings = frozenset().union(*(value_spellings(text) for text in texts))
    missing = [value for value in claimed_values if not value.forms & spellings]
    if not missing:
        return None
    claim_tokens = _token_set(claim)
    if not claim_tokens:
        # A bare value ("80") says nothing about what it counts.
        return None
    normalised = _nfkc(claim)
    sites = [site for text in texts for site in _sites(text)]
    for value in missing:
        if _HEDGES.search(normalised[: value.start].rstrip()) or _HEDGES_AFTER.match(
            normalised[value.end :]
        ):
            continue
        near = _near(normalised, value, claimed_values)
        if not near:
            continue
        others = [other for other in claimed_values if other is not value]
        for site in sites:
            if any(not other.forms & site.sentence_spellings for other in others):
                # The sentence does not speak of the claim's other values ("between 1989
                # and 2005"): it may count something else.
                continue
            stated = site.value
            if (
                _unit_key(stated) == _unit_key(value)
                and _is_year(stated) == _is_year(value)
                and near & site.near
                and _coverage(claim_tokens, site.sentence_tokens) >= SAME_TOPIC_COVERAGE
                and not _may_be_rounded(value, stated)
            ):
                return f"the contexts give {stated.text} where the claim gives {value.text}"
    return None


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _key_spellings(key: str) -> tuple[frozenset[str], ...]:
    """The key's words, split ("credit", "card") and, for keys like "WiFi", as written."""
    split = re.sub(r"\s*\(.*\)$", "", key_words(key))
    spellings = {_token_set(split) - _GENERIC_KEY_WORDS, _token_set(key) - _GENERIC_KEY_WORDS}
    return tuple(spelling for spelling in spellings if spelling)


def _record_contradiction(claim: str, texts: Sequence[str]) -> str | None:
    records = [record for text in texts if (record := read_record(text)) is not None]
    if not records:
        return None
    claim_tokens = _token_set(claim)
    negated = has_negation(claim)
    for record in records:
        for field in record.fields:
            if field.polarity is None or field.polarity != negated:
                # A yes against an affirmed claim, or a no against a negated one, agrees.
                continue
            if any(spelling <= claim_tokens for spelling in _key_spellings(field.key)):
                return f"the record gives {field.key}: {field.value}"
    return None


def negation_cues(claim: str) -> frozenset[str]:
    """The English words of ``claim`` that deny the rest of it; empty when none does."""
    lowered = _REPLY_NO.sub("", claim.lower().replace("’", "'"))
    if _NOT_DENIAL.search(lowered) or _FIRST_PERSON.match(lowered):
        return frozenset()
    return frozenset(_WORDS.findall(lowered)) & _DENIALS


def _covers(tokens: frozenset[str], sentence_tokens: frozenset[str]) -> bool:
    # Stems of one word may differ by an ending ("includ" for "included", "include" for
    # "includes"); a shared start of five letters or more is the same word.
    return all(
        token in sentence_tokens
        or (
            len(token) >= _SAME_START
            and any(
                len(other) >= _SAME_START and (other.startswith(token) or token.startswith(other))
                for other in sentence_tokens
            )
        )
        for token in tokens
    )


def denial_stated(texts: Sequence[str]) -> bool:
    """Whether a context denies anything: a negation, or a word that says something failed.

    A negated claim is supported only by contexts that deny something too: words that a
    positive text holds, with the claim's "not" on top, say the opposite of it.
    """
    return any(has_negation(text) or _FAILURE.search(text.lower()) for text in texts)


def _qualifiers(text: str) -> frozenset[str]:
    return frozenset(_WORDS.findall(text.lower())) & _QUALIFIERS


def _polarity_contradiction(claim: str, texts: Sequence[str]) -> str | None:
    cues = negation_cues(claim)
    if not cues:
        return None
    # What the claim denies: its words but the cues ("no" and "lack" are content words).
    denied = _token_set(claim) - {stem(cue) for cue in cues} - cues
    if len(denied) < _DENIED_WORDS:
        return None
    values = find_values(claim)
    qualifiers = _qualifiers(claim)
    for text in texts:
        record = read_record(text)
        for sentence in split_sentences(record.text if record else text):
            if has_negation(sentence) or negation_cues(sentence):
                continue
            if not _covers(denied, _token_set(sentence)) or _qualifiers(sentence) != qualifiers:
                continue
            spelled = value_spellings(sentence)
            if all(value.forms & spelled for value in values):
                cue = sorted(cues)[0]
                return f"the contexts state it without the claim's {cue!r}: {sentence.strip()}"
    return None


def find_contradiction(
    claim: str, texts: Sequence[str], spellings: frozenset[str] | None = None
) -> str | None:
    """Why the contexts contradict ``claim``, or None when they do not plainly do.

    Args:
        claim: One claim of the answer.
        texts: The contexts, as given.
        spellings: Every value the contexts spell, number words included, when the caller
            has them already (a value found there is never contradicted).

    Returns:
        A short reason naming the value or field that disagrees, or None.
    """
    return (
        _record_contradiction(claim, texts)
        or _value_contradiction(claim, texts, spellings)
        or _polarity_contradiction(claim, texts)
    )
