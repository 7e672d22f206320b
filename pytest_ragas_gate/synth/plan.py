"""What to ask for: the mix of question kinds, and which chunks each request covers.

Coverage is stratified by document and by position: chunks are taken round-robin, one
document after another, and within a document in an order that spreads over its whole
length (its first chunk, then the middle, the quarters, the eighths …), so a small golden
set touches every document, and every part of a long one, before it touches any twice.
``multi`` questions get a chunk pair: a chunk and the most related other chunk in the same
language (most shared content words, names counting most), preferring another document.

>>> parse_mix("single=0.5,multi=0.25,reasoning=0.15,unanswerable=0.1")["multi"]
0.25
>>> kind_counts(10, {"single": 0.5, "multi": 0.25, "reasoning": 0.15, "unanswerable": 0.1})
{'single': 5, 'multi': 3, 'reasoning': 1, 'unanswerable': 1, 'conversation': 0}
>>> parse_kinds("single,conversation", None)
{'single': 0.5, 'conversation': 0.5}
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from ..exceptions import UsageError
from ..judges.offline.text import content_tokens, numbers
from .chunking import Chunk
from .requests import KINDS, QuestionKind

__all__ = [
    "DEFAULT_MIX",
    "parse_kinds",
    "Unit",
    "interleaved",
    "kind_counts",
    "parse_mix",
    "plan_units",
    "spread_order",
]

DEFAULT_MIX: dict[QuestionKind, float] = {
    "single": 0.5,
    "multi": 0.2,
    "reasoning": 0.2,
    "unanswerable": 0.1,
}


def parse_mix(text: str) -> dict[QuestionKind, float]:
    """``single=0.5,multi=0.25,…`` as shares summing to 1; unnamed kinds get 0.

    Raises:
        UsageError: an unknown kind, a share that is not a non-negative number, or all 0.
    """
    shares: dict[QuestionKind, float] = dict.fromkeys(KINDS, 0.0)
    for part in (piece.strip() for piece in text.split(",")):
        if not part:
            continue
        name, sep, value = part.partition("=")
        name = name.strip().lower()
        kind = next((known for known in KINDS if known == name), None)
        if kind is None or not sep:
            raise UsageError(
                f"--mix: {part!r} is not KIND=SHARE with KIND one of {', '.join(KINDS)}."
            )
        try:
            share = float(value)
        except ValueError:
            share = -1.0
        if not math.isfinite(share) or share < 0:
            raise UsageError(f"--mix: the share of {kind} must be a number >= 0, got {value!r}.")
        shares[kind] = share
    total = sum(shares.values())
    if total <= 0:
        raise UsageError("--mix: at least one kind needs a share above 0.")
    return {kind: share / total for kind, share in shares.items()}


def parse_kinds(text: str | None, mix_text: str | None) -> dict[QuestionKind, float]:
    """The shares to write: ``--mix`` (default :data:`DEFAULT_MIX`) over the ``--kinds`` listed.

    ``--kinds conversation`` writes only conversations; ``--kinds single,conversation``
    splits ``--n`` evenly between the two, or by their ``--mix`` shares when ``--mix`` is
    given too.
    """
    if text is None:
        return parse_mix(mix_text) if mix_text is not None else dict(DEFAULT_MIX)
    listed: list[QuestionKind] = []
    for part in (part.strip() for part in text.split(",")):
        kind = next((kind for kind in KINDS if kind == part), None)
        if kind is None:
            raise UsageError(f"--kinds: {part!r} is not one of {', '.join(KINDS)}.")
        listed.append(kind)
    if mix_text is None:
        return {kind: 1 / len(listed) for kind in dict.fromkeys(listed)}
    shares = {kind: share for kind, share in parse_mix(mix_text).items() if kind in listed}
    total = sum(shares.values())
    if total <= 0:
        raise UsageError(f"--mix gives no share to the --kinds listed ({', '.join(listed)}).")
    return {kind: share / total for kind, share in shares.items()}


def kind_counts(total: int, mix: Mapping[QuestionKind, float]) -> dict[QuestionKind, int]:
    """``total`` split by ``mix`` with the largest-remainder method (ties in KINDS order)."""
    exact = {kind: total * mix.get(kind, 0.0) for kind in KINDS}
    counts = {kind: math.floor(value) for kind, value in exact.items()}
    left = total - sum(counts.values())
    by_remainder = sorted(
        KINDS, key=lambda kind: (-(exact[kind] - counts[kind]), KINDS.index(kind))
    )
    for kind in by_remainder[:left]:
        counts[kind] += 1
    return counts


@dataclass(frozen=True)
class Unit:
    """One write request: a chunk (or a pair, for ``multi``) and the kinds to write."""

    chunks: tuple[Chunk, ...]
    kinds: tuple[QuestionKind, ...]

    @property
    def chunk_ids(self) -> tuple[str, ...]:
        """The ids of the unit's chunks."""
        return tuple(chunk.id for chunk in self.chunks)


def spread_order(count: int) -> list[int]:
    """Positions 0 … count-1 in an order that covers the range evenly at every prefix.

    >>> spread_order(8)
    [0, 4, 2, 6, 1, 5, 3, 7]
    """
    order: list[int] = []
    seen: set[int] = set()
    step = 0
    while len(order) < count:
        # The van der Corput sequence in base 2: 0, 1/2, 1/4, 3/4, 1/8 …
        fraction, denominator, n = 0.0, 1.0, step
        while n:
            denominator *= 2
            fraction += (n % 2) / denominator
            n //= 2
        position = int(fraction * count)
        if position not in seen:
            seen.add(position)
            order.append(position)
        step += 1
    return order


def interleaved(chunks: Sequence[Chunk], fruitful: Collection[str] = ()) -> list[Chunk]:
    """Chunks over documents in proportion to their prose, each document's spread over its length.

    Every document's first chunk comes first (each document with prose gets a case before
    any gets a second); after that a document with six chunks is visited three times as
    often as one with two, so cases follow the prose rather than the file count. Chunks
    whose ids are in ``fruitful`` (they state a fact the writer can ask) go first within
    their document, so a long page with one such chunk still gets its case.
    """
    grouped: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        grouped.setdefault(chunk.document, []).append(chunk)
    keyed: list[tuple[float, int, Chunk]] = []
    for number, items in enumerate(grouped.values()):
        spread = [items[index] for index in spread_order(len(items))]
        spread.sort(key=lambda chunk: chunk.id not in fruitful)
        for depth, chunk in enumerate(spread):
            keyed.append((depth / len(items), number, chunk))
    return [chunk for _, _, chunk in sorted(keyed, key=lambda item: (item[0], item[1]))]


def _spread(counts: Mapping[QuestionKind, int]) -> list[QuestionKind]:
    """The kinds as one sequence, each spread evenly: every request gets a mixture."""
    slots: list[tuple[float, int, QuestionKind]] = []
    for kind, count in counts.items():
        for index in range(count):
            slots.append(((index + 0.5) / count, KINDS.index(kind), kind))
    return [kind for _, _, kind in sorted(slots)]


def _words(chunk: Chunk) -> frozenset[str]:
    # Names count thrice: a multi question links its two chunks through an entity they share.
    tokens = content_tokens(chunk.text)
    return frozenset(token.text for token in tokens) | frozenset(
        f"{token.text}\0{copy}" for token in tokens if token.entity for copy in (1, 2)
    )


def _partner(
    anchor: Chunk, chunks: Sequence[Chunk], words: dict[str, frozenset[str]]
) -> Chunk | None:
    best: tuple[float, int, Chunk] | None = None
    anchor_words = words.setdefault(anchor.id, _words(anchor))
    for index, other in enumerate(chunks):
        if other.id == anchor.id or other.chinese != anchor.chinese:
            continue
        other_words = words.setdefault(other.id, _words(other))
        union = anchor_words | other_words
        similarity = len(anchor_words & other_words) / len(union) if union else 0.0
        # Another document is preferred: a pair from one page is closer to a single question.
        score = similarity + (0.05 if other.document != anchor.document else 0.0)
        if best is None or score > best[0]:
            best = (score, -index, other)
    return best[2] if best is not None else None


def _same_document_partner(chunk: Chunk, valued: Sequence[Chunk]) -> Chunk | None:
    """The next chunk of ``chunk``'s document that states values too, or None."""
    same = [other for other in valued if other.document == chunk.document]
    if len(same) < 2:
        return None
    return same[(same.index(chunk) + 1) % len(same)]


def plan_units(
    chunks: Sequence[Chunk],
    asked: Mapping[QuestionKind, int],
    *,
    per_request: int,
    skip: int = 0,
    pair_reasoning: bool = False,
    linked: Sequence[tuple[str, str]] = (),
    compared: Sequence[tuple[str, ...]] = (),
    fruitful: Collection[str] = (),
) -> list[Unit]:
    """The write requests that ask for ``asked`` questions of each kind.

    Args:
        chunks: the corpus's chunks in document order.
        asked: how many questions of each kind to request.
        per_request: most questions one request asks for (raised when there are more
            questions to ask than chunks, so no chunk is asked twice in one round).
        skip: how many chunks of the round-robin order to pass over first (a later round
            starts where the previous one stopped, to cover new chunks).
        pair_reasoning: give a reasoning request the next value-stating chunk of the same
            document too, so two facts a chunk apart can be compared (the offline writer
            needs it; an LLM finds its comparisons within one chunk, at half the prompt).
        linked: chunk id pairs known to share an entity; ``multi`` requests take them first
            (from ``skip`` on), then pairs by word overlap.
        compared: chunk ids (one or two chunks of one document) known to hold two
            comparable facts; ``reasoning`` requests take them first, from ``skip`` on.
        fruitful: chunk ids known to state a fact; see :func:`interleaved`.

    Returns:
        Single-chunk units (single, reasoning, unanswerable kinds) and pair units (multi).
    """
    if not chunks:
        return []
    order = interleaved(chunks, fruitful)
    if fruitful:
        # A chunk stating no fact the writer can ask gives no question: asking it wastes a
        # request, and a round, that another chunk's facts could fill.
        order = [chunk for chunk in order if chunk.id in fruitful] or order
    if skip:
        start = skip % len(order)
        order = order[start:] + order[:start]
    units: list[Unit] = []
    by_id = {chunk.id: chunk for chunk in chunks}

    single_counts: dict[QuestionKind, int] = {
        kind: asked.get(kind, 0) for kind in KINDS if kind != "multi"
    }
    kinds = _spread(single_counts)
    if kinds:
        # Spread over as many chunks as there are (coverage), two questions a request at
        # least (cost), ``per_request`` at most unless the chunks run out.
        spread = math.ceil(len(kinds) / len(order))
        size = max(spread, min(per_request, max(2, spread)))
        # A reasoning question compares two facts: it goes to a chunk that states two values,
        # with the next such chunk of its document (the two facts may sit in either).
        valued = [chunk for chunk in order if len(numbers(chunk.text)) >= 2] or list(order)
        comparable = [
            tuple(by_id[i] for i in ids) for ids in compared if all(i in by_id for i in ids)
        ]
        reasoning_places = len(comparable) or len(valued)
        plain = 0
        reasoning_units = 0
        for start in range(0, len(kinds), size):
            group = tuple(kinds[start : start + size])
            others = tuple(kind for kind in group if kind != "reasoning")
            if "reasoning" in group:
                if comparable:
                    pair = comparable[(skip + reasoning_units) % len(comparable)]
                else:
                    chunk = valued[reasoning_units % len(valued)]
                    partner = _same_document_partner(chunk, valued) if pair_reasoning else None
                    pair = (chunk,) if partner is None else (chunk, partner)
                if reasoning_units < reasoning_places:
                    units.append(Unit(pair, group))
                    reasoning_units += 1
                    continue
                # The valued chunks are used up: the other kinds go on to fresh chunks, so
                # asking for more never piles them onto the same few chunks.
                units.append(Unit(pair, tuple(k for k in group if k == "reasoning")))
                reasoning_units += 1
                if not others:
                    continue
                group = others
            units.append(Unit((order[plain % len(order)],), group))
            plain += 1

    multi = asked.get("multi", 0)
    if multi and len(chunks) >= 2:
        words: dict[str, frozenset[str]] = {}
        spread = math.ceil(multi / len(order))
        size = max(spread, min(per_request, max(2, spread)))
        pairs = math.ceil(multi / size)
        # Pair anchors start half-way round, so they are not the chunks the single kinds used.
        offset = len(order) // 2
        known = [(by_id[a], by_id[b]) for a, b in linked if a in by_id and b in by_id]
        for number in range(pairs):
            if known:
                anchor, linked_partner = known[(skip + number) % len(known)]
                other: Chunk | None = linked_partner
            else:
                anchor = order[(offset + number) % len(order)]
                other = _partner(anchor, chunks, words)
            if other is None:
                continue
            count = min(size, multi - number * size)
            multi_kind: QuestionKind = "multi"
            kinds_of_pair = tuple(multi_kind for _ in range(count))
            units.append(Unit((anchor, other), kinds_of_pair))
    return units
