r"""Facts of a reference list: a term (an option, a setting, a variable) and its description.

Manual pages and configuration references are lists of terms, each followed by what it
does and its default. The term is a line of its own; its description is the paragraph
after it. Two questions a user asks of each: what the term is for, and its default.

>>> [(fact.question, fact.sentence) for fact in term_facts(
...     "DHOME\nThe directory in which new home directories should be created. "
...     "Defaults to /home.", "adduser.conf")]  # doctest: +NORMALIZE_WHITESPACE
[('What is the default of DHOME in adduser.conf?', 'DHOME defaults to /home.'),
 ('What is DHOME in adduser.conf?',
  'DHOME is the directory in which new home directories should be created.')]
"""

from __future__ import annotations

import re

from ..judges.offline.text import split_sentences
from .wh_english import BASE_VERBS, Fact, quantity

__all__ = ["is_term", "noun_phrase", "term_facts"]

#: A term as written in a reference: ``DIR_MODE``, ``Acquire::http::Proxy``,
#: ``Immediate-Configure``, ``--max-size``, several joined by "and" or commas.
_TERM_WORD = re.compile(
    r"^(?:--?[\w-]+|[A-Z][A-Z0-9_]{2,}|[\w-]+(?:::[\w-]+)+|[A-Z][a-z0-9]+(?:-[A-Z][\w]*)+"
    r"|[A-Z][a-z]+[A-Z][\w]*|(?:\$\{?[A-Z_][A-Z0-9_]*\}?|~)?/[\w.${}/-]+)$"
)
#: A row of a manual page's FILES list with its text on the same line: "~/.frobrc  The …".
_PATH_ROW = re.compile(
    r"^(?P<term>(?:\$\{?[A-Z_][A-Z0-9_]*\}?|~)?/[\w.${}/-]+)\s+(?P<text>[A-Z][a-z].*)$"
)
_DEFAULT = re.compile(
    r"^(?:It |This |Both |Each |All |(?:This|The) (?:option|setting|value|parameter|variable"
    r"|directive|key) |If (?:omitted|unset|not set|not given|not specified|not present),? )?"
    r"(?:[Dd]efaults? (?:to|is)"
    r"|(?:The d|D)efault(?: value)?(?: for this \w+)? is:?|Default:)"
    r"\s+(?P<value>.+?)"
    r"\.?$"
)


def default_sentence(term: str, value: str, *, several: bool = False) -> str:
    """The reference stating ``term``'s default.

    >>> default_sentence("DHOME", "/home")
    'DHOME defaults to /home.'
    >>> default_sentence("PromptAfterUpdate", "to prompt only on error")
    'The default of PromptAfterUpdate is to prompt only on error.'
    """
    if re.match(r"to [a-z]", value):
        # "The default is to prompt …": "defaults to to prompt" would double the "to".
        return f"The default of {term} is {value}."
    return f"{term} default{'' if several else 's'} to {value}."


_DEFAULTING = re.compile(r"\bdefaulting to (?P<value>[^,;()]+?)(?=[,;(]|\.?$)(?P<value2>)")
#: "Cache-Grow defines in bytes with the default of 1048576 (~1 MB) how much …"
_WITH_DEFAULT = re.compile(
    r"\bwith (?:a|the) default(?: value)? of (?P<value>\d[\w.]*(?: [a-zA-Z]+\b(?<!how))?"
    r"(?: \([^)]*\))?)(?P<value2>)"
)
_THE_DEFAULT = re.compile(r"(?P<value>)(?P<value2>[\w.-]+) \(the default\)")
_FINITE = re.compile(
    r"\b(?:is|are|was|were|has|have|can|will|must|should|may|does|do|[a-z]{3,}s)\b(?! of)"
)
_VERB_START = re.compile(
    r"^(?:[a-z]+(?<!ss)s|[Ss]pecif(?:y|ies)|[Cc]ontrols?|[Ss]ets?|[Ee]nables?|[Dd]isables?"
    r"|[Aa]llows?|[Dd]efines?|[Gg]ives|[Ss]elects?|[Ii]ndicates?|[Dd]etermines?|[Cc]auses?)"
    r"\b(?! of)"
)


#: Section names of manual pages: headings, not terms.
_SECTIONS = frozenset(
    "NAME SYNOPSIS DESCRIPTION OPTIONS EXAMPLES EXAMPLE FILES ENVIRONMENT BUGS AUTHOR AUTHORS "
    "NOTES DIAGNOSTICS COMMANDS USAGE HISTORY CAVEATS WARNINGS OVERVIEW INTRODUCTION TODO "
    "README LICENSE COPYRIGHT CONTRIBUTING INSTALL INSTALLATION".split()
)


#: An option and its placeholder on the term's line: "-t seconds", "--config=file".
_ARGUED = re.compile(r"^(?P<term>--?[\w-]+)(?:\s+|=)(?P<placeholder>[a-z][\w-]*|<[\w-]+>)$")

#: A key written with its equals sign, alone or before its text: "use-frob=", as
#: configuration references render their keys ("use-frob=  Takes a boolean value …").
_KEYED = re.compile(r"^(?P<term>[A-Za-z][\w.-]*[A-Za-z0-9])=(?:\s+(?P<text>[A-Z\"].*))?$")

#: "Takes a boolean value", "Takes an unsigned integer": what a key takes, not its use.
_TAKES = re.compile(
    r"^(?:Takes|Expects|Accepts|Requires) (?:an?|one|the) (?:[\w-]+ ){0,3}?"
    r"(?:value|argument|integer|number|string|list|path|boolean|name|time|size)s?\b"
)


def is_term(line: str) -> bool:
    """Whether ``line`` is a term of a reference list rather than a heading or a sentence."""
    if line.strip().upper() in _SECTIONS or line.strip().startswith("SEE "):
        return False
    keyed = _KEYED.match(line.strip())
    if keyed is not None and keyed.group("text") is None:
        return True
    parts = [p for p in re.split(r",\s*|\s+and\s+|\s+or\s+", line.strip()) if p]
    return 0 < len(parts) <= 4 and all(_TERM_WORD.match(part) for part in parts)


def _named_term(term: str, sentences: list[str]) -> str:
    """Which of several terms on one line ("Cache-Start, Cache-Grow") a default belongs to.

    The one the sentences up to the default name last; the whole line when they name none.
    """
    parts = [p for p in re.split(r",\s*|\s+and\s+|\s+or\s+", term.strip()) if p]
    if len(parts) < 2:
        return term
    opener = [part for part in parts if sentences and sentences[-1].startswith(part)]
    if opener:
        return opener[0]  # "Cache-Grow defines … the default of …"
    for sentence in reversed(sentences):
        named = [part for part in parts if re.search(rf"(?<![\w-]){re.escape(part)}\b", sentence)]
        if len(named) == 1:
            return named[0]
    return term


def _description(term: str, sentence: str) -> str | None:
    """The first sentence of a term's paragraph as a statement about the term."""
    text = sentence.strip()
    this = re.match(r"^(?:This|It) (?:is|sets|controls|specifies|defines)\b", text)
    if this:
        verb = this.group().split()[1]
        return f"{term} {verb}{text[this.end() :]}"
    if re.match(r"^(?:The|A|An) [a-z]", text) and noun_phrase(text):
        return f"{term} is {text[0].lower()}{text[1:]}"
    if _VERB_START.match(text) or _known_verb(text):
        plural = bool(re.search(r",|\band\b", term))
        verb, _, rest = text.partition(" ")
        verb = verb.lower()
        if plural and verb.endswith("s") and not verb.endswith("ss"):
            verb = verb[:-1]
        elif not plural and (not verb.endswith("s") or verb.endswith("ss")):
            verb = _third_person(verb)  # "Specify a timeout" describes one term: "specifies"
        return f"{term} {verb} {rest}"
    return None


def noun_phrase(text: str) -> bool:
    """Whether ``text`` (up to a relative clause) has no finite verb: a row's description.

    "The user's archive of read messages." names what its term is; the noun that ends it
    ("messages") is no verb, however it ends.
    """
    head, *rest = re.split(r"\b(?:that|which|who|whose|where|when)\b", text, maxsplit=1)
    if not rest:
        head = head.rstrip(" .").rsplit(" ", 1)[0]
    return _FINITE.search(head) is None


def _specifying(sentence: str) -> str:
    """The use ``sentence`` states: itself, or for a type sentence the use it names, or "".

    "Takes an integer specifying how many …" names it: "Specifies how many …".
    """
    takes = _TAKES.match(sentence)
    if takes is None:
        return sentence
    use = re.match(
        r"\s+(?:specifying|that specifies|which specifies)\s+(?P<rest>\S.*)$",
        sentence[takes.end() :],
    )
    return f"Specifies {use.group('rest')}" if use else ""


def _known_verb(text: str) -> bool:
    """Whether a description opens with a verb the writer knows ("Overrides", "Prints").

    "List of …", "Record of …" open with a noun.
    """
    words = text.split()
    if len(words) < 3 or not words[0][:1].isupper() or words[1].lower() in ("of", "for", "and"):
        return False
    lowered = words[0].lower()
    return bool({lowered, lowered[:-1], lowered[:-2], lowered[:-3] + "y"} & BASE_VERBS)


def _third_person(verb: str) -> str:
    """``verb`` agreeing with one subject: "specify" → "specifies", "match" → "matches"."""
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    if re.search(r"(?:s|sh|ch|x|z|o)$", verb):
        return verb + "es"
    return verb + "s"


def term_facts(chunk: str, name: str) -> list[Fact]:
    """The term facts of ``chunk``: a term line, then its description."""
    lines = chunk.split("\n")
    facts: list[Fact] = []
    where = f" in {name}" if name else ""
    for index, line in enumerate(lines):
        term = line.strip()
        placeholder = ""
        text = lines[index + 1] if index + 1 < len(lines) else ""
        argued = _ARGUED.match(term)
        keyed = _KEYED.match(term)
        row = _PATH_ROW.match(term)
        if argued is not None and not is_term(term):
            # "-t seconds": the option and the value the reader fills in, named apart.
            term, placeholder = argued.group("term"), argued.group("placeholder")
        elif keyed is not None:
            # "use-frob=" on a line of its own, or with its text after it on the same line.
            term, text = keyed.group("term"), keyed.group("text") or text
        elif row is not None:
            # "$HOME/frobbox  The user's archive …": a FILES row, its text on its line.
            term, text = row.group("term"), row.group("text")
        elif not is_term(term):
            continue
        spelled = re.fullmatch(r"-\w,\s*(?P<long>--[\w-]+)", term)
        if spelled is not None:
            term = spelled.group("long")  # "-v, --verbose": one option, two spellings
        sentences = [
            part.strip()
            for sentence in split_sentences(text)
            # "… must be yes or no. The default is yes.": "no." ends the sentence here.
            for part in re.split(r"(?<=\bno)\.\s+(?=(?:The|It|This|Defaults?)\b)", sentence)
            if part.strip()
        ]
        if not sentences:
            continue
        defaulted: set[str] = set()
        for number, sentence in enumerate(sentences):
            # "defaulting to" later in a description is often another thing's default
            # ("… on the requested file descriptor, defaulting to standard input").
            default = (
                _DEFAULT.match(sentence)
                or _THE_DEFAULT.search(sentence)
                or (_DEFAULTING.search(sentence) if number == 0 else None)
                or _WITH_DEFAULT.search(sentence)
            )
            if default and len((default.group("value") or default.group("value2")).split()) <= 8:
                value = (default.group("value") or default.group("value2")).rstrip(".")
                named = _named_term(term, sentences[: number + 1])
                if named in defaulted:
                    continue
                defaulted.add(named)
                # A size or a duration compares with another option's (a reasoning pair).
                amount = quantity(value)
                several = bool(re.search(r",|\band\b", named))
                facts.append(
                    Fact(
                        f"What is the default of {named}{where}?",
                        value,
                        default_sentence(named, value, several=several),
                        "what",
                        named,
                        value=amount[0] if amount else None,
                        unit=amount[1] if amount else "",
                        score=2.6,
                    )
                )
                if named == term:
                    break  # one term: its first default; several: each its own
        # "Takes a boolean value. Sets …": the use, if any, is the sentence after the type;
        # "Takes an unsigned integer specifying how many …" states it in the same sentence.
        used = next(
            (
                _specifying(sentence)
                for sentence in sentences
                if not _TAKES.match(sentence) or _specifying(sentence)
            ),
            "",
        )
        described = _description(term, used) if used else None
        if placeholder and described is not None and re.search(rf"\b{placeholder}\b", described):
            described = None  # "Wait at most seconds": a placeholder read as a value
        if described is not None and len(described.split()) <= 40:
            plural = bool(re.search(r",|\band\b", term))
            asked = f"What {'are' if plural else 'is'} {term}{where}?"
            answer = described[len(term) :].strip()
            facts.append(Fact(asked, answer, described.rstrip(".") + ".", "what", term, score=1.4))
    return facts
