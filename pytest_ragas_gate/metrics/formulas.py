"""The arithmetic behind the metrics, as pure functions of per-item verdicts.

Each function takes what the judge (or the golden case) decided item by item and returns
a number in [0, 1]. Inputs that have no meaningful score (nothing to count) raise
``ValueError`` instead of returning 0 or 1, so a caller can never mistake "nothing to
measure" for a measurement; the metrics turn those situations into *not applicable*
before calling in here.

The doctests are the worked examples of the README's Metrics section; the definitions
follow the RAGAS paper (Es et al. 2023) and the RAGAS documentation's metric pages.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from statistics import fmean

__all__ = [
    "average_precision",
    "cosine_similarity",
    "f1_from_counts",
    "id_precision",
    "id_recall",
    "mean_reciprocal_rank",
    "normalised_rating",
    "reciprocal_rank",
    "share",
]


def share(hits: int, total: int) -> float:
    """The fraction ``hits / total``, e.g. supported claims over all claims.

    Args:
        hits: How many items passed (supported, attributed, relevant).
        total: How many items were judged; must be positive.

    Returns:
        ``hits / total``.

    Raises:
        ValueError: When ``total`` is not positive or ``hits`` is outside ``0..total``.

    >>> round(share(1, 3), 3)  # 1 of 3 Apple-founder claims supported
    0.333
    >>> round(share(2, 3), 3)  # 2 of 3 Einstein claims supported
    0.667
    >>> share(1, 2), share(0, 2)  # France recall, Nike recall
    (0.5, 0.0)
    """
    if total <= 0:
        raise ValueError(f"share needs at least one judged item, got total={total}")
    if not 0 <= hits <= total:
        raise ValueError(f"share needs 0 <= hits <= total, got hits={hits}, total={total}")
    return hits / total


def average_precision(relevance: Sequence[bool | int]) -> float:
    """Average precision of a ranking: Σ(P@k · rel_k) / Σ rel_k.

    A ranking with no relevant item scores 0.0: the retriever returned chunks and none of
    them helps, which is a real (bad) measurement, not an absence of one.

    Args:
        relevance: Per retrieved chunk, in rank order, whether it is relevant.

    Returns:
        The average precision, in [0, 1].

    Raises:
        ValueError: When the ranking is empty.

    >>> round(average_precision([0, 1, 1]), 5)  # often rounded to 0.585
    0.58333
    >>> round(average_precision([1, 0, 1, 0, 1]), 5)  # often printed as 0.7567
    0.75556
    >>> average_precision([0, 0, 0, 1, 1])  # worst ranking
    0.325
    >>> average_precision([1, 1, 1, 0, 0])  # best ranking
    1.0
    >>> average_precision([False, False])
    0.0
    """
    if not relevance:
        raise ValueError("average precision needs at least one ranked item")
    relevant_so_far = 0
    precision_sum = 0.0
    for rank, relevant in enumerate(relevance, start=1):
        if relevant:
            relevant_so_far += 1
            precision_sum += relevant_so_far / rank
    if relevant_so_far == 0:
        return 0.0
    return precision_sum / relevant_so_far


def f1_from_counts(true_positives: int, false_positives: int, false_negatives: int) -> float:
    """F1 from classification counts: TP / (TP + ½(FP + FN)) (RAGAS's answer correctness).

    Args:
        true_positives: Answer claims backed by the reference.
        false_positives: Answer claims the reference does not back.
        false_negatives: Reference statements the answer misses.

    Returns:
        The F1 score, in [0, 1].

    Raises:
        ValueError: When a count is negative or all three are zero.

    >>> round(f1_from_counts(2, 1, 1), 4)
    0.6667
    >>> f1_from_counts(0, 2, 3)
    0.0
    >>> f1_from_counts(4, 0, 0)
    1.0
    """
    counts = (true_positives, false_positives, false_negatives)
    if min(counts) < 0:
        raise ValueError(f"F1 counts must not be negative, got TP/FP/FN={counts}")
    if sum(counts) == 0:
        raise ValueError("F1 needs at least one classified statement, got TP=FP=FN=0")
    return true_positives / (true_positives + 0.5 * (false_positives + false_negatives))


def normalised_rating(rating: int, *, lowest: int = 1, highest: int = 5) -> float:
    """Map a rubric rating onto [0, 1]: ``(rating - lowest) / (highest - lowest)``.

    Args:
        rating: The judge's rubric rating.
        lowest: The rubric's lowest rating.
        highest: The rubric's highest rating.

    Returns:
        The rating on [0, 1].

    Raises:
        ValueError: When the rubric is empty or the rating lies outside it.

    >>> [normalised_rating(r) for r in (5, 3, 2)]  # the 1-5 rubric of answer_relevancy
    [1.0, 0.5, 0.25]
    """
    if highest <= lowest:
        raise ValueError(f"a rubric needs lowest < highest, got {lowest}..{highest}")
    if not lowest <= rating <= highest:
        raise ValueError(f"rating {rating} is outside the rubric {lowest}..{highest}")
    return (rating - lowest) / (highest - lowest)


def cosine_similarity(left: Sequence[float], right: Sequence[float]) -> float:
    """Cosine of the angle between two embedding vectors, in [-1, 1].

    Args:
        left: One embedding.
        right: Another embedding of the same dimension.

    Returns:
        Their cosine similarity.

    Raises:
        ValueError: When the dimensions differ, a vector is empty or has zero length.

    >>> round(cosine_similarity([1.0, 0.0], [0.95, math.sqrt(1 - 0.95**2)]), 12)
    0.95
    >>> cosine_similarity([1.0, 2.0], [-2.0, 1.0])
    0.0
    """
    if len(left) != len(right):
        raise ValueError(f"embeddings differ in dimension: {len(left)} and {len(right)}")
    if not left:
        raise ValueError("cosine similarity needs non-empty embeddings")
    left_norm = math.hypot(*left)
    right_norm = math.hypot(*right)
    if left_norm == 0.0 or right_norm == 0.0:
        raise ValueError("cosine similarity is undefined for a zero-length embedding")
    # Normalising before the dot product keeps tiny or huge components from under- or
    # overflowing the products.
    dot = math.fsum((x / left_norm) * (y / right_norm) for x, y in zip(left, right, strict=True))
    # Rounding can push |cos| a hair past 1 for (anti-)parallel vectors.
    return max(-1.0, min(1.0, dot))


def reciprocal_rank(relevance: Sequence[bool | int]) -> float:
    """1 / rank of the first relevant item, 0.0 when none is relevant.

    The gate's mean of this over cases is the mean reciprocal rank (MRR).

    Args:
        relevance: Per retrieved item, in rank order, whether it is relevant.

    Returns:
        The reciprocal rank, in [0, 1].

    Raises:
        ValueError: When the ranking is empty.

    >>> reciprocal_rank([0, 0, 1, 1])
    0.3333333333333333
    >>> reciprocal_rank([1, 0]), reciprocal_rank([0, 0])
    (1.0, 0.0)
    """
    if not relevance:
        raise ValueError("reciprocal rank needs at least one ranked item")
    for rank, relevant in enumerate(relevance, start=1):
        if relevant:
            return 1.0 / rank
    return 0.0


def mean_reciprocal_rank(rankings: Sequence[Sequence[bool | int]]) -> float:
    """Mean of :func:`reciprocal_rank` over several rankings.

    Args:
        rankings: One relevance list per query.

    Returns:
        The MRR, in [0, 1].

    Raises:
        ValueError: When there are no rankings, or one of them is empty.

    >>> mean_reciprocal_rank([[1, 0], [0, 1], [0, 0]])
    0.5
    """
    if not rankings:
        raise ValueError("mean reciprocal rank needs at least one ranking")
    return fmean(reciprocal_rank(ranking) for ranking in rankings)


def id_recall(retrieved: Sequence[str], relevant: Collection[str]) -> float:
    """Share of the gold chunk ids that were retrieved: |retrieved ∩ gold| / |gold|.

    Args:
        retrieved: The retrieved chunk ids, in rank order.
        relevant: The ids that should have been retrieved.

    Returns:
        The recall, in [0, 1].

    Raises:
        ValueError: When there are no gold ids.

    >>> id_recall(["A", "C", "E"], ["A", "B", "C", "D", "E"])
    0.6
    """
    gold = set(relevant)
    if not gold:
        raise ValueError("id recall needs at least one relevant id")
    return len(gold.intersection(retrieved)) / len(gold)


def id_precision(retrieved: Sequence[str], relevant: Collection[str]) -> float:
    """Share of the distinct retrieved ids that are gold: |retrieved ∩ gold| / |retrieved|.

    A chunk retrieved twice counts once, so duplicates cannot inflate or deflate precision.

    Args:
        retrieved: The retrieved chunk ids, in rank order.
        relevant: The ids that should have been retrieved.

    Returns:
        The precision, in [0, 1].

    Raises:
        ValueError: When nothing was retrieved.

    >>> id_precision(["A", "B", "X", "Y", "Z"], ["A", "B", "C", "D", "E"])
    0.4
    """
    distinct = set(retrieved)
    if not distinct:
        raise ValueError("id precision needs at least one retrieved id")
    return len(distinct.intersection(relevant)) / len(distinct)
