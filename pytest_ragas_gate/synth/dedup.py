"""Near-duplicate questions: the same question twice tests the system once and counts twice.

Two questions are near-duplicates when their content words (stemmed; character bigrams
for Chinese) overlap by at least :data:`NEAR_DUPLICATE` (Jaccard similarity).

>>> seen = NearDuplicates()
>>> seen.add("How long are refunds for annual plans available?")
True
>>> seen.add("How long are refunds available for annual plans?")
False
>>> seen.add("What is the web upload limit?")
True
"""

from __future__ import annotations

from ..judges.offline.text import content_tokens, numbers

__all__ = ["NEAR_DUPLICATE", "NearDuplicates"]

NEAR_DUPLICATE = 0.8


def _signature(question: str) -> frozenset[str]:
    return frozenset(token.text for token in content_tokens(question)) | frozenset(
        numbers(question)
    )


class NearDuplicates:
    """The questions kept so far; :meth:`add` refuses one too close to any of them."""

    def __init__(self, threshold: float = NEAR_DUPLICATE) -> None:
        self.threshold = threshold
        self._kept: list[frozenset[str]] = []
        # An index from word to kept signatures keeps this linear in practice.
        self._by_word: dict[str, list[int]] = {}

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

    def add(self, question: str) -> bool:
        """Keep ``question`` unless it near-duplicates a kept one; True when kept."""
        if self.closest(question) >= self.threshold:
            return False
        signature = _signature(question)
        index = len(self._kept)
        self._kept.append(signature)
        for word in signature:
            self._by_word.setdefault(word, []).append(index)
        return True
