"""Near-duplicate questions: the same question twice tests the system once and counts twice.

Two questions are near-duplicates when their content words (stemmed; character bigrams
for Chinese) overlap by at least :data:`NEAR_DUPLICATE` (Jaccard similarity), or when
they ask about the same source fact: the same reference sentences, however differently
the questions are worded.

>>> seen = NearDuplicates()
>>> seen.add("How long are refunds for annual plans available?")
True
>>> seen.add("How long are refunds available for annual plans?")
False
>>> seen.add("What is the web upload limit?")
True
>>> seen.add("Which plan keeps files for 3 hours?", fact="Files are kept for 3 hours.")
True
>>> seen.add("How long are files kept?", fact="Files are kept for 3 hours!")
False
>>> seen.add("What is the default of frob-name in frobd.conf?")
True
>>> seen.add("What is frob-name in frobd.conf?")  # a name of two parts is one word
True
"""

from __future__ import annotations

import re

from ..judges.offline.text import content_tokens, numbers, split_sentences

__all__ = ["NEAR_DUPLICATE", "NearDuplicates", "fact_key"]

NEAR_DUPLICATE = 0.8


#: A name of joined parts ("frob-name", "UID_POOL", "frobd.conf"): one word to compare.
_JOINED = re.compile(r"\b[A-Za-z]\w*(?:[-_.][A-Za-z0-9]\w*)+\b")


def _signature(question: str) -> frozenset[str]:
    # A joined name counts once: split into its parts it would outweigh the rest of a short
    # question ("What is frob-name?" beside "What is the default of frob-name?").
    joined = frozenset(match.group().lower() for match in _JOINED.finditer(question))
    rest = _JOINED.sub(" ", question)
    return (
        frozenset(token.text for token in content_tokens(rest)) | joined | frozenset(numbers(rest))
    )


def fact_key(reference: str) -> frozenset[str]:
    """The source fact of a reference: its sentences, normalised (case, spacing, punctuation)."""
    return frozenset(
        " ".join(re.findall(r"\w+", sentence.lower()))
        for sentence in split_sentences(reference) or [reference]
    )


class NearDuplicates:
    """The questions kept so far; :meth:`add` refuses one too close to any of them."""

    def __init__(self, threshold: float = NEAR_DUPLICATE) -> None:
        self.threshold = threshold
        self._kept: list[frozenset[str]] = []
        # An index from word to kept signatures keeps this linear in practice.
        self._by_word: dict[str, list[int]] = {}
        self._facts: set[frozenset[str]] = set()

    def closest(self, question: str) -> float:
        """The highest similarity of ``question`` to a kept question (0.0 if none)."""
        signature = _signature(question)
        candidates = {index for word in signature for index in self._by_word.get(word, [])}
        best = 0.0
        for index in candidates:
            kept = self._kept[index]
            union = signature | kept
            if union:
                best = max(best, len(signature & kept) / len(union))
        return best

    def add(self, question: str, *, fact: str | None = None) -> bool:
        """Keep ``question`` unless it repeats a kept one; True when kept.

        A repeat is a near-duplicate wording, or the same source ``fact`` (its reference).
        """
        key = fact_key(fact) if fact else None
        if key is not None and key in self._facts:
            return False
        if self.closest(question) >= self.threshold:
            return False
        if key is not None:
            self._facts.add(key)
        signature = _signature(question)
        index = len(self._kept)
        self._kept.append(signature)
        for word in signature:
            self._by_word.setdefault(word, []).append(index)
        return True
