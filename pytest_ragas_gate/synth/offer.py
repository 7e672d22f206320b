"""What a corpus offers the offline writer, per kind, and why a kind it cannot write is short.

``rag-gate synth --judge offline`` can only ask what its rules find: a fact sentence for
``single``, two comparable amounts or dates of one document for ``reasoning``, an entity
named in facts of two chunks for ``multi``, a sibling the corpus describes differently for
``unanswerable``, two facts about one subject for ``conversation``. Counting them up front
lets the summary say how many facts the corpus offered, and — for a kind it falls short
of — say plainly that the documents do not support it, rather than a bare count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

from .chunking import Chunk
from .offline import (
    REFUSALS,
    Corpus,
    _conversation,
    _swapped,
    chunk_facts,
    chunk_refusals,
    chunk_terms,
    multi_links,
    reasoning_pairs,
)
from .requests import KINDS, QuestionKind
from .stated import stated_amounts, stated_definitions
from .wh_english import Fact

__all__ = [
    "CorpusOffer",
    "WHY_NONE",
    "compared_chunks",
    "corpus_offer",
    "fruitful_chunks",
    "linked_chunk_pairs",
]

#: Why the documents support none of a kind, as the summary says it.
WHY_NONE: dict[QuestionKind, str] = {
    "single": "no sentence states a fact the offline writer can ask about (an amount, a date, "
    "a name, a definition, an option and its default)",
    "reasoning": "no document states two comparable amounts or dates: none states a size, a "
    "duration, a price or a year the offline writer can read",
    "multi": "no named thing (a name, command, file or option that at most 60% of the "
    "documents mention) has a property stated in two different chunks",
    "unanswerable": "the offline writer found no entity with a sibling the documents describe "
    "differently (a property given for one plan, option or version and not for another)",
    "conversation": "no chunk states two facts about one subject",
}


#: What the offline writer counts as the documents' offer for each kind, one of them.
_OFFERED: dict[QuestionKind, tuple[str, str]] = {
    "single": ("fact", "facts"),
    "multi": ("entity shared by two chunks", "entities shared by two chunks"),
    "reasoning": ("comparison", "comparisons"),
    "unanswerable": ("near miss", "near misses"),
    "conversation": ("subject with two facts", "subjects with two facts"),
}


@dataclass
class _Scan:
    """What one document states on its face, counted, with the first of each as written."""

    amounts: int = 0
    definitions: int = 0
    amount_example: str = ""
    definition_example: str = ""

    def add(self, text: str) -> None:
        amounts = stated_amounts(text)
        definitions = stated_definitions(text)
        self.amounts += len(amounts)
        self.definitions += len(definitions)
        self.amount_example = self.amount_example or (amounts[0].text if amounts else "")
        self.definition_example = self.definition_example or (definitions[0] if definitions else "")

    def said(self) -> str:
        """What the document states, as the summary says it ("2 amounts or dates (e.g. …)")."""
        parts = []
        if self.amounts:
            noun = "amount or date" if self.amounts == 1 else "amounts or dates"
            parts.append(f'{self.amounts} {noun} (e.g. "{self.amount_example}")')
        if self.definitions:
            noun = "definition" if self.definitions == 1 else "definitions"
            example = self.definition_example
            example = example if len(example) <= 60 else example[:57] + "…"
            parts.append(f'{self.definitions} {noun} (e.g. "{example}")')
        return " and ".join(parts)


@dataclass
class CorpusOffer:
    """How many questions of each kind the offline writer can find in a corpus."""

    counts: dict[QuestionKind, int] = field(default_factory=dict)
    wanted: tuple[QuestionKind, ...] = KINDS
    #: Per document, the amounts and dates its facts state, by what they count.
    amounts: dict[str, Counter[str]] = field(default_factory=dict)
    #: Per document (as chunks name it), the facts its sentences state.
    facts_by_document: dict[str, int] = field(default_factory=dict)
    #: Facts the writer found but refused as unsure, by :data:`.offline.REFUSALS` key.
    refused: Counter[str] = field(default_factory=Counter)
    #: The same refusals per document (as chunks name it).
    refused_by_document: dict[str, Counter[str]] = field(default_factory=dict)
    #: Per document (as chunks name it), what its text states on its face (see
    #: :mod:`.stated`): amounts and dates, definition-shaped sentences, first examples.
    scanned: dict[str, _Scan] = field(default_factory=dict)
    #: Named things with properties in two chunks, left out as too common to link.
    common_links: int = 0
    #: Chunks stating two facts about one subject (a conversation's raw material).
    subject_pairs: int = 0

    def uncovered_line(
        self, covered: set[str], dropped: Mapping[str, Counter[str]] | None = None
    ) -> str | None:
        """The documents no kept case comes from, each with why; None when every one has one.

        ``dropped`` counts, per document, the questions of it the run dropped, by stage
        (``critic``, ``near_duplicate``, …): a document whose facts were all dropped or
        refused is said to be so, never to state no fact.
        """
        missing = [doc for doc in self.facts_by_document if doc not in covered]
        if not missing:
            return None
        reasons = [
            f"{PurePath(doc).name} ({self._why_uncovered(doc, (dropped or {}).get(doc))})"
            for doc in missing
        ]
        noun = "document" if len(missing) == 1 else "documents"
        return f"  no case from {len(missing)} {noun}: " + "; ".join(reasons)

    def _why_uncovered(self, document: str, dropped: Counter[str] | None) -> str:
        """Why no case comes from ``document``: what it offered and where each fact went."""
        found = self.facts_by_document[document]
        refused = self.refused_by_document.get(document, Counter())
        unsure = refused.total()
        if not found and not unsure:
            said = self.scanned.get(document, _Scan()).said()
            if said:
                # Checked, not assumed: the page does state these, in sentences the
                # writer's rules cannot ask cleanly.
                return f"no fact the offline writer can ask, though it states {said}"
            return (
                "no fact: none of its sentences states an amount, a date or a definition, "
                "and the writer found no name or option's default to ask about"
            )
        refusals = ", ".join(
            f"{count} {REFUSALS[key][count != 1]}" for key, count in _by_count(refused)
        )
        if not found:
            return f"{_counted(unsure, 'fact')} refused as unsure: {refusals}"
        drops = dropped or Counter()
        parts = [
            f"{count} {_DROP_NAMES.get(stage, (stage, stage))[count != 1]}"
            for stage, count in _by_count(drops)
        ]
        if found > sum(drops.values()):
            parts.append("the rest not reached before --n ran out")
        why = f"{_counted(found, 'fact')}, none kept: " + ", ".join(parts)
        if unsure:
            why += f"; {unsure} more refused as unsure: {refusals}"
        return why

    @property
    def facts(self) -> int:
        """Fact sentences found (each a possible ``single`` question)."""
        return self.counts.get("single", 0)

    def line(self) -> str:
        """One summary line: what the corpus offered for the kinds asked."""
        parts = [
            f"{self.counts.get(kind, 0)} {_OFFERED[kind][1]} ({kind})"
            for kind in self.wanted
            if kind != "single"
        ]
        return f"  the documents offer {self.facts} facts" + (
            "; " + ", ".join(parts) if parts else ""
        )

    def refused_line(self) -> str | None:
        """One summary line: the facts refused as unsure, by reason; None when none were."""
        total = self.refused.total()
        if not total:
            return None
        return f"  refused {total} facts the writer was unsure of: " + "; ".join(
            f"{count} {REFUSALS[key][count != 1]} ({REFUSALS[key][2]})"
            for key, count in sorted(self.refused.items(), key=lambda item: -item[1])
        )

    def why_short(self, kind: QuestionKind, kept: int, target: int) -> str:
        """Why ``kind`` has ``kept`` of ``target``: the corpus supports none, or only so many."""
        offered = self.counts.get(kind, 0)
        unsure = self.refused.total()
        if offered == 0 and kind == "single" and unsure:
            # The sentences do state facts: saying none exists would send the user
            # looking for documents when the writer's caution is what stopped it.
            return (
                f"{kind} {kept}/{target}: could not — the writer found {_counted(unsure, 'fact')} "
                "and refused all of them as unsure (by reason above)"
            )
        if offered == 0:
            return f"{kind} {kept}/{target}: could not — {self._checked_why_none(kind)}"
        if kept >= offered:
            # A shared entity or a subject may give more than one question, so kept can
            # pass what was counted: the point is that the documents hold no more.
            return (
                f"{kind} {kept}/{target}: the documents offer no more "
                f"({offered} {_OFFERED[kind][offered != 1]}, all used)"
            )
        return (
            f"{kind} {kept}/{target}: the documents offer {offered}; the rest were not paired "
            "with their chunk, repeated a kept case, or failed the critic"
        )

    def _checked_why_none(self, kind: QuestionKind) -> str:
        """Why no ``kind``, each claim checked against what the documents state."""
        said = _Scan()
        for scan in self.scanned.values():
            said.amounts += scan.amounts
            said.definitions += scan.definitions
            said.amount_example = said.amount_example or scan.amount_example
            said.definition_example = said.definition_example or scan.definition_example
        if kind == "single" and (said.amounts or said.definitions):
            return (
                f"the documents state {said.said()}, but in no sentence the offline writer "
                "can ask cleanly"
            )
        stated = sum(sum(units.values()) for units in self.amounts.values())
        if kind == "reasoning" and not stated and said.amounts:
            return (
                f"the documents state {_Scan(said.amounts, 0, said.amount_example).said()}, "
                "but the offline writer asks none of them as a fact, so it has no two to compare"
            )
        if kind == "multi" and self.common_links:
            things = "named thing has" if self.common_links == 1 else "named things have"
            return (
                f"{self.common_links} {things} a property stated in two different chunks, but "
                "more than 60% of the documents mention each, so it links nothing"
            )
        if kind == "conversation" and self.subject_pairs:
            chunks = "chunk states" if self.subject_pairs == 1 else "chunks state"
            return (
                f"{self.subject_pairs} {chunks} two facts about one subject, but no follow-up "
                "of them reads as a second turn (a pronoun or an ellipsis standing on the first)"
            )
        return self._why_none(kind)

    def _why_none(self, kind: QuestionKind) -> str:
        """Why the documents support no ``kind``; for reasoning, what they do state."""
        stated = sum(sum(units.values()) for units in self.amounts.values())
        if kind != "reasoning" or not stated:
            return WHY_NONE[kind]
        by_document = "; ".join(
            f"{document}: " + ", ".join(_counted(n, unit) for unit, n in sorted(units.items()))
            for document, units in sorted(self.amounts.items())
            if units
        )
        paired = any(n >= 2 for units in self.amounts.values() for n in units.values())
        amounts = "1 amount or date" if stated == 1 else f"{stated} amounts or dates"
        return (
            f"the offline writer reads {amounts} as facts, and no document gives it two of one "
            + ("kind about comparable things" if paired else "kind")
            + f" ({by_document})"
        )


_UNIT_NAMES = {"size": "size", "time": "duration", "money": "price", "year": "date"}

#: A run's drop stages as a document's reason names them: one, several.
_DROP_NAMES: dict[str, tuple[str, str]] = {
    "critic": ("dropped by the critic", "dropped by the critic"),
    "near_duplicate": ("near-duplicate of a kept case", "near-duplicates of kept cases"),
    "invalid": ("invalid question", "invalid questions"),
    "failed": ("failed request", "failed requests"),
}


def _by_count(counts: Counter[str]) -> list[tuple[str, int]]:
    """``counts`` most first; ties in the order the keys were first counted."""
    return sorted(counts.items(), key=lambda item: -item[1])


def _counted(n: int, unit: str) -> str:
    name = _UNIT_NAMES.get(unit, unit)
    return f"{n} {name}" + ("" if n == 1 else "s")


def corpus_offer(chunks: Sequence[Chunk], wanted: Sequence[QuestionKind] = KINDS) -> CorpusOffer:
    """Count what the offline writer can ask of ``chunks``, for the kinds ``wanted``."""
    corpus = Corpus(
        [chunk.text for chunk in chunks],
        sorted({chunk.title for chunk in chunks}),
        [chunk.title for chunk in chunks],
    )
    offer = CorpusOffer(dict.fromkeys(KINDS, 0), tuple(kind for kind in KINDS if kind in wanted))
    by_document: dict[str, list[Chunk]] = {}
    #: (Chinese?, entity) → chunks whose facts name it; a "\0" key is a too-common one.
    holders: dict[tuple[bool, str], set[int]] = {}
    for index, chunk in enumerate(chunks):
        by_document.setdefault(chunk.document, []).append(chunk)
        facts = _count_facts(offer, chunk, corpus.names)
        if "multi" in wanted:
            _hold_entities(holders, index, chunk, facts, corpus)
        if "unanswerable" in wanted:
            offer.counts["unanswerable"] += len(
                _swapped(chunk.text, chunk.title, chunk.chinese, corpus)
            )
        if "conversation" in wanted and _conversation(
            chunk.text, chunk.title, chunk.chinese, 0, corpus.names
        ):
            offer.counts["conversation"] += 1
    linked = [key for key, held in holders.items() if len(held) >= 2]
    offer.counts["multi"] = sum(1 for key in linked if not key[1].startswith("\0"))
    offer.common_links = len(linked) - offer.counts["multi"]
    if "reasoning" in wanted:
        offer.counts["reasoning"] = sum(
            len(
                reasoning_pairs(
                    [chunk.text for chunk in document_chunks],
                    [chunk.title for chunk in document_chunks],
                    document_chunks[0].chinese,
                    corpus.names,
                )
            )
            for document_chunks in by_document.values()
        )
    else:
        offer.amounts.clear()
    return offer


def _count_facts(offer: CorpusOffer, chunk: Chunk, names: frozenset[str]) -> list[Fact]:
    """Count one chunk's facts, refusals, stated amounts and definitions into ``offer``."""
    offer.scanned.setdefault(chunk.document, _Scan()).add(chunk.text)
    facts = list(chunk_facts(chunk.text, chunk.title, chunk.chinese, names))
    subjects = Counter(fact.subject.lower() for fact in facts if fact.subject)
    offer.subject_pairs += any(count >= 2 for count in subjects.values())
    offer.counts["single"] += len(facts)
    refusals = chunk_refusals(chunk.text, chunk.title, chunk.chinese, names)
    offer.refused.update(refusals)
    offer.refused_by_document.setdefault(chunk.document, Counter()).update(refusals)
    offer.facts_by_document[chunk.document] = offer.facts_by_document.get(chunk.document, 0) + len(
        facts
    )
    stated = offer.amounts.setdefault(PurePath(chunk.document).name, Counter())
    stated.update(fact.unit for fact in facts if fact.value is not None and fact.unit)
    return facts


def _hold_entities(
    holders: dict[tuple[bool, str], set[int]],
    index: int,
    chunk: Chunk,
    facts: Sequence[Fact],
    corpus: Corpus,
) -> None:
    """Note the entities of ``chunk``'s facts a multi question could link it through."""
    terms = chunk_terms(chunk.text, chunk.title) | corpus.distinctive.commands
    for fact in facts:
        for entity in multi_links(fact, chunk.chinese, terms, chunk.title):
            # A name more than 60% of the documents mention links nothing; it is still
            # counted, so the summary can say why no multi case came of it.
            key = entity if corpus.distinctive.allows(entity) else "\0" + entity
            holders.setdefault((chunk.chinese, key), set()).add(index)


#: Chunks of one entity paired with each other at most: a name on every page is no link.
_MOST_HOLDERS = 6


def linked_chunk_pairs(chunks: Sequence[Chunk]) -> list[tuple[str, str]]:
    """Pairs of chunk ids whose facts name one entity: where a ``multi`` question can be.

    The offline writer links two chunks only through an entity their facts share; pairing
    chunks by overall word overlap would mostly miss them.
    """
    corpus = Corpus([chunk.text for chunk in chunks], (), [chunk.title for chunk in chunks])
    holders: dict[tuple[bool, str], list[int]] = {}
    for index, chunk in enumerate(chunks):
        terms = chunk_terms(chunk.text, chunk.title) | corpus.distinctive.commands
        for fact in chunk_facts(chunk.text, chunk.title, chunk.chinese, corpus.names):
            for entity in sorted(multi_links(fact, chunk.chinese, terms, chunk.title)):
                if not corpus.distinctive.allows(entity):
                    continue
                held = holders.setdefault((chunk.chinese, entity), [])
                if index not in held:
                    held.append(index)
    pairs: list[tuple[str, str]] = []
    # Neighbours first (one entity's consecutive mentions), then the farther ones: the
    # two facts a reader asks together may sit in any two of the chunks naming it.
    for gap in range(1, _MOST_HOLDERS):
        for held in holders.values():
            held = held[:_MOST_HOLDERS]
            for first, second in zip(held, held[gap:], strict=False):
                pair = (chunks[first].id, chunks[second].id)
                if pair not in pairs:
                    pairs.append(pair)
    return pairs


def compared_chunks(chunks: Sequence[Chunk]) -> list[tuple[str, ...]]:
    """Chunk ids (one or two of one document) whose facts the offline writer can compare.

    The two values of a comparison may sit pages apart (two options' defaults); a reasoning
    request given only neighbouring value-stating chunks would miss them.
    """
    names = Corpus([chunk.text for chunk in chunks]).names
    by_document: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_document.setdefault(chunk.document, []).append(chunk)
    places: list[tuple[str, ...]] = []
    for document_chunks in by_document.values():
        for _, _, cited in reasoning_pairs(
            [chunk.text for chunk in document_chunks],
            [chunk.title for chunk in document_chunks],
            document_chunks[0].chinese,
            names,
        ):
            place = tuple(document_chunks[i].id for i in cited)
            if place not in places:
                places.append(place)
    return places


def fruitful_chunks(chunks: Sequence[Chunk]) -> frozenset[str]:
    """Ids of the chunks that state a fact the offline writer can ask about."""
    names = Corpus([chunk.text for chunk in chunks]).names
    return frozenset(
        chunk.id for chunk in chunks if chunk_facts(chunk.text, chunk.title, chunk.chinese, names)
    )
