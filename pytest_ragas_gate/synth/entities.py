r"""Named things a ``multi`` question can link two chunks through, and how common they are.

A ``multi`` question asks two properties of one thing, each stated in another chunk. The
thing has to be specific — a proper name (``GNU Wget``, ``Sea Dragon``), a command, a file,
a package or an option (``DIR_MODE``, ``-no-del``, ``e2fsck.conf``) — or the question joins
two facts that merely share a word: "what does the GNU C Library ignore, and what is GNU
Wget?" shares ``GNU`` and nothing a reader would ask about together. And it has to be
distinctive in the corpus: a name most documents mention (more than 60% of them, the
product every page is about) links everything, so it links nothing.

>>> sorted(named_things("What does the GNU C Library ignore?"))
['gnu c library']
>>> sorted(named_things("What has GNU Wget been designed for?"))
['gnu wget', 'wget']
>>> sorted(named_things("What is the default of DIR_MODE in /etc/adduser.conf?"))
['dir_mode']
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from .wh_english import CONTEXT, GENERIC_NOUNS

__all__ = ["Distinctive", "named_things"]

#: Words that open a question or join its parts, never a name even when capitalised.
_FUNCTION_WORDS = frozenset(
    "a an the and or of in on at to for by with from as is are was were be been do does did "
    "what which who whom whose when where why how can must should will would may might shall "
    "it its this that these those there their they he she we you i".split()
)
#: An identifier by its form: ``DIR_MODE``, ``-no-del``, ``e2fsck.conf``, ``/etc/fstab``,
#: ``ForwardX11``, ``GNU``, ``ssh_config(5)``, ``Acquire::http``.
_IDENTIFIER = re.compile(
    r"^(?:--?[A-Za-z][\w-]*|/[\w./-]+|[\w-]*[A-Za-z][\w-]*(?:(?:\.|::)[\w-]+)+"
    r"|[A-Za-z]*[a-z][A-Za-z]*[A-Z0-9][\w-]*|[A-Za-z0-9]*_[\w]*|[A-Z][A-Z0-9]+(?:-[\w]+)*"
    r"|[A-Za-z][\w-]*\(\d\w*\))$"
)
#: "the file fstab", "the rsync command": the word the kind names is a name, lowercase or not.
#: After "keyword" or "option" comes the verb as often as the name ("the final keyword
#: matches"), so those only name what comes before them.
_KIND_NAMED = re.compile(
    r"\bthe (?:file|command|program|package|utility|daemon|library|tool) ([A-Za-z][\w.+/-]*)\b"
    r"|\b([a-z][\w.+-]*) (?:command|package|utility|daemon|program|directive|parameter|option"
    r"|keyword|variable)\b"
)
#: Units and amounts written in capitals ("GB", "USD") name nothing two facts could share.
_UNIT = re.compile(r"[kmgtp]i?b|bytes?|usd|eur|gbp|cpu|ram|id|ids|\d[\w.]*", re.IGNORECASE)
#: Where the question is set, not what it asks about: "In rsyncd.conf, …", "… in rrsync?".
_CONTEXT = re.compile(r"^" + CONTEXT)
_PLACE = re.compile(r" in [^\s?]+\?$")
_CITED = re.compile(r"(?<![\w.-])([a-z][\w.+-]*)\([1-9][a-z]*\)|`([a-z][\w.+-]*)`")
_WORD = re.compile(r"[^\s,;:?!\"“”'‘’]+")


def _is_name_word(word: str, first: bool) -> bool:
    """A word of a name: an identifier, or a capitalised word that does not open the question."""
    if word.lower() in _FUNCTION_WORDS:
        return False
    if _IDENTIFIER.match(word):
        return True
    return not first and word[:1].isupper()


def named_things(question: str, terms: Collection[str] = ()) -> set[str]:
    """The specific things ``question`` names, lowercased, without its "In <document>," lead.

    A run of name words is one thing ("GNU C Library"), and so is its last word when that is
    a name of its own ("GNU Wget" is also "Wget"); ``terms`` (the options a reference list
    of the chunk describes, such as ``timeout``) are names whatever their case.
    """
    question = _PLACE.sub("?", _CONTEXT.sub("", question.strip()))
    found: set[str] = set()
    run: list[str] = []
    words = [match.group().rstrip(".") for match in _WORD.finditer(question)]

    def close() -> None:
        # A capitalised word inside a question is a name even when the word is common
        # ("the Team plan"); the last word alone only when it is not a common noun.
        if run:
            found.add(" ".join(run).lower())
            head = run[-1].lower()
            if len(run) > 1 and head not in GENERIC_NOUNS:
                found.add(head)
            run.clear()

    for position, word in enumerate(words):
        if word and _is_name_word(word, position == 0):
            run.append(word)
        else:
            close()
    close()
    for match in _KIND_NAMED.finditer(question):
        name = match.group(1) or match.group(2)
        if name.lower() not in _FUNCTION_WORDS | GENERIC_NOUNS:
            found.add(name.lower())
    lowered = question.lower()
    for term in terms:
        # "frobproxy(8)" names the manual page, not the thing "frobproxy" of another chunk.
        if term and re.search(rf"(?<![\w-]){re.escape(term.lower())}(?![\w-]|\(\d)", lowered):
            found.add(term.lower())
    return {thing for thing in found if len(thing) >= 2 and not _UNIT.fullmatch(thing)}


class Distinctive:
    """Which names are distinctive in a corpus: mentioned by at most 60% of its documents.

    Args:
        texts: every chunk's text.
        documents: the document (title) of each chunk, aligned with ``texts``; without it,
            each chunk counts as a document of its own.
    """

    def __init__(self, texts: Sequence[str], documents: Sequence[str] = ()) -> None:
        aligned = list(documents) if len(documents) == len(texts) else list(range(len(texts)))
        self._by_document: dict[object, str] = {}
        for document, text in zip(aligned, texts, strict=True):
            self._by_document[document] = self._by_document.get(document, "") + "\n" + text.lower()
        self._counts: dict[str, int] = {}
        #: Lowercase names the documents cite as a manual page or code (``fsck(8)``,
        #: ```gzip```): commands and files, names whatever their case.
        self.commands = frozenset(
            match.group(1) or match.group(2)
            for text in texts
            for match in _CITED.finditer(text)
            if (match.group(1) or match.group(2)).lower() not in _FUNCTION_WORDS | GENERIC_NOUNS
        )

    @property
    def documents(self) -> int:
        """How many documents the corpus has."""
        return len(self._by_document)

    def frequency(self, name: str) -> int:
        """How many documents mention ``name`` (as a whole word, case-insensitive)."""
        if name not in self._counts:
            pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
            self._counts[name] = sum(
                1 for text in self._by_document.values() if pattern.search(text)
            )
        return self._counts[name]

    def allows(self, name: str) -> bool:
        """Whether ``name`` is rare enough to link two chunks: two documents, or 60% of them."""
        return self.frequency(name) <= max(2, round(0.6 * self.documents))
