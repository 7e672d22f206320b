"""From chunks to kept questions: write, check, critique, de-duplicate, balance.

One round:

1. :func:`~.plan.plan_units` turns the questions still needed into write requests (a few
   questions of a chunk or chunk pair per request), over chunks the earlier rounds did not
   use first;
2. each reply is checked: a question must be of a requested kind and cite valid chunks
   (two for ``multi``, none for ``unanswerable``);
3. one critique request per write request reviews its questions; the critic drops those
   that are not standalone, not answerable from their chunks, trivial, or — for
   ``unanswerable`` ones — answered;
4. near-duplicates of questions already kept are dropped.

Rounds repeat (at most :data:`MAX_ROUNDS`) while a kind is short. Then each kind keeps its
target count, chosen round-robin over documents so that coverage stays balanced; the rest
is dropped as surplus. Every drop is recorded with its reason.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..exceptions import BudgetExceeded, JudgeError
from ..judges.base import NO_CONTEXT, Judge
from .chunking import Chunk
from .dedup import NearDuplicates
from .plan import Unit, plan_units
from .requests import (
    KINDS,
    Candidate,
    CritiqueQuestions,
    Critiques,
    QuestionKind,
    SynthQuestion,
    SynthQuestions,
    WriteQuestions,
)

__all__ = ["MAX_ROUNDS", "Dropped", "Kept", "SynthOutcome", "synthesize"]

#: Write rounds at most: the first, and top-ups for kinds the critic thinned out.
MAX_ROUNDS = 6
#: The first round asks for this much more than the target, for the critic to drop.
OVERSHOOT = 1.2
#: Most earlier questions of a chunk a write request lists as taken.
_MAX_AVOID = 12

Progress = Callable[[int, int, int], None]


@dataclass(frozen=True)
class Kept:
    """A question that passed every filter, with the chunks it was written from."""

    question: SynthQuestion
    chunks: tuple[Chunk, ...]

    @property
    def relevant(self) -> tuple[Chunk, ...]:
        """The chunks the answer needs (none for ``unanswerable``)."""
        return tuple(self.chunks[index] for index in dict.fromkeys(self.question.chunks))

    @property
    def documents(self) -> tuple[str, ...]:
        """The source documents, in order."""
        return tuple(dict.fromkeys(chunk.document for chunk in self.chunks))


@dataclass(frozen=True)
class Dropped:
    """A question left out, and why.

    Attributes:
        stage: ``invalid`` (the reply broke the request), ``critic``, ``near_duplicate``,
            ``surplus`` (its kind already had enough) or ``failed`` (a request failed; no
            question, ``detail`` says why).
        reason: the critic's problem, or a short account.
    """

    stage: str
    reason: str
    kind: str = ""
    question: str = ""
    documents: tuple[str, ...] = ()
    detail: str = ""
    chunks: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        """The record as the ``--dropped`` file holds it."""
        return {
            "stage": self.stage,
            "reason": self.reason,
            "kind": self.kind,
            "question": self.question,
            "documents": list(self.documents),
            "detail": self.detail,
        }


@dataclass
class SynthOutcome:
    """What a synth run produced."""

    targets: dict[QuestionKind, int]
    kept: list[Kept] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    generated: int = 0
    critiqued: int = 0
    write_requests: int = 0
    critique_requests: int = 0
    rounds: int = 0
    stopped: str | None = None

    def counts(self) -> dict[QuestionKind, int]:
        """Kept questions per kind."""
        counts: dict[QuestionKind, int] = dict.fromkeys(KINDS, 0)
        for kept in self.kept:
            counts[kept.question.kind] += 1
        return counts

    def dropped_by(self, stage: str) -> dict[str, int]:
        """Drops of one stage, counted by reason."""
        counts: dict[str, int] = {}
        for drop in self.dropped:
            if drop.stage == stage:
                counts[drop.reason] = counts.get(drop.reason, 0) + 1
        return counts

    @property
    def critic_drop_share(self) -> float:
        """Share of the critiqued questions the critic dropped."""
        dropped = sum(self.dropped_by("critic").values())
        return dropped / self.critiqued if self.critiqued else 0.0


def _invalid(question: SynthQuestion, unit: Unit) -> str | None:
    if question.kind not in unit.kinds:
        return f"kind {question.kind} was not requested"
    if not question.question.strip() or not question.reference.strip():
        return "empty question or reference"
    cited = set(question.chunks)
    if any(not 0 <= index < len(unit.chunks) for index in cited):
        return "cites a chunk that was not given"
    if question.kind == "unanswerable":
        return "an unanswerable question cites chunks" if cited else None
    if not cited:
        return "cites no chunk"
    if question.kind == "multi" and len(cited) < 2:
        return "a multi question cites one chunk"
    if question.kind == "conversation":
        if not 1 <= len(question.follow_ups) <= 2:
            return "a conversation needs one or two follow-up turns"
        for turn in question.follow_ups:
            if not turn.question.strip() or not turn.reference.strip():
                return "a follow-up has an empty question or reference"
            if not turn.chunks or any(not 0 <= i < len(unit.chunks) for i in turn.chunks):
                return "a follow-up cites no chunk, or one that was not given"
    elif question.follow_ups:
        return f"a {question.kind} question has follow-up turns"
    return None


class _Round:
    """Writes and critiques one unit; what it keeps is merged in unit order afterwards.

    Replies arrive in any order, so a unit's results are returned rather than merged at
    once: de-duplication and the pools then see the units in plan order, and a cached
    re-run keeps exactly the same questions.
    """

    def __init__(
        self,
        judge: Judge,
        outcome: SynthOutcome,
        on_done: Callable[[], None],
        written: Mapping[str, list[str]],
    ) -> None:
        self.judge = judge
        self.outcome = outcome
        self.on_done = on_done
        self.written = written

    def _fail(self, error: JudgeError, what: str, drops: list[Dropped]) -> None:
        if isinstance(error, BudgetExceeded):
            self.outcome.stopped = str(error)
        drops.append(Dropped("failed", what, detail=str(error)))

    async def run(self, unit: Unit) -> tuple[list[Kept], list[Dropped]]:
        """The unit's questions the critic kept, and its drops, both in reply order."""
        drops: list[Dropped] = []
        titles = [chunk.title for chunk in unit.chunks]
        texts = [chunk.text for chunk in unit.chunks]
        request = WriteQuestions(
            chunks=texts,
            titles=titles,
            kinds=list(unit.kinds),
            chinese=unit.chunks[0].chinese,
            avoid=list(
                dict.fromkeys(q for chunk in unit.chunks for q in self.written.get(chunk.id, []))
            )[:_MAX_AVOID],
        )
        self.outcome.write_requests += 1
        try:
            reply: SynthQuestions = (await self.judge.ask(request, context=NO_CONTEXT)).reply
        except JudgeError as error:
            self._fail(error, "write request failed", drops)
            return [], drops
        finally:
            self.on_done()
        documents = tuple(dict.fromkeys(chunk.document for chunk in unit.chunks))
        valid: list[SynthQuestion] = []
        for question in reply.questions:
            self.outcome.generated += 1
            problem = _invalid(question, unit)
            if problem is not None:
                drops.append(
                    Dropped(
                        "invalid",
                        problem,
                        question.kind,
                        question.question,
                        documents,
                        chunks=unit.chunk_ids,
                    )
                )
            else:
                valid.append(question)
        if not valid:
            return [], drops
        critique = CritiqueQuestions(
            chunks=texts,
            titles=titles,
            candidates=[
                Candidate(
                    kind=question.kind,
                    question=question.question,
                    reference=question.reference,
                    chunks=list(question.chunks),
                    follow_ups=list(question.follow_ups),
                )
                for question in valid
            ],
        )
        self.outcome.critique_requests += 1
        try:
            verdicts: Critiques = (await self.judge.ask(critique, context=NO_CONTEXT)).reply
        except JudgeError as error:
            self._fail(error, "critique request failed", drops)
            return [], drops
        by_index = {verdict.index: verdict for verdict in verdicts.verdicts}
        kept: list[Kept] = []
        for index, question in enumerate(valid):
            self.outcome.critiqued += 1
            verdict = by_index.get(index)
            if verdict is None or not verdict.keep:
                reason: str = "no verdict" if verdict is None else verdict.problem
                if reason == "ok":
                    reason = "rejected"
                detail = "" if verdict is None else verdict.reason
                drops.append(
                    Dropped(
                        "critic",
                        reason,
                        question.kind,
                        question.question,
                        documents,
                        detail,
                        unit.chunk_ids,
                    )
                )
            else:
                kept.append(Kept(question, unit.chunks))
        return kept, drops


def _merge(
    results: Sequence[tuple[list[Kept], list[Dropped]]],
    outcome: SynthOutcome,
    seen: NearDuplicates,
    pool: dict[QuestionKind, list[Kept]],
    written: dict[str, list[str]],
) -> None:
    """Units' results in plan order: drops recorded, near-duplicates out, the rest pooled."""
    for kept, drops in results:
        outcome.dropped.extend(drops)
        for drop in drops:
            # A dropped question is listed as taken too: the next round asks for another.
            for chunk_id in drop.chunks:
                written.setdefault(chunk_id, []).append(drop.question)
        for item in kept:
            for chunk in item.chunks:
                written.setdefault(chunk.id, []).append(item.question.question)
            # An unanswerable case's reference is the same refusal for all: no fact to compare.
            fact = None if item.question.kind == "unanswerable" else item.question.reference
            if item.question.follow_ups:
                # The same facts asked in another order are the same conversation.
                references = [item.question.reference]
                references += [turn.reference for turn in item.question.follow_ups]
                fact = " ".join(sorted(references))
            if seen.add(f"{item.question.kind}: {item.question.question}", fact=fact):
                pool[item.question.kind].append(item)
            else:
                outcome.dropped.append(
                    Dropped(
                        "near_duplicate",
                        "near-duplicate of a kept question or of its source fact",
                        item.question.kind,
                        item.question.question,
                        item.documents,
                    )
                )


def _balanced(kept: Sequence[Kept], count: int) -> tuple[list[Kept], list[Kept]]:
    """``count`` of ``kept`` taken round-robin over their first document; and the rest."""
    by_document: dict[str, list[Kept]] = {}
    for item in kept:
        by_document.setdefault(item.documents[0], []).append(item)
    chosen: list[Kept] = []
    depth = 0
    while len(chosen) < min(count, len(kept)):
        for items in by_document.values():
            if depth < len(items) and len(chosen) < count:
                chosen.append(items[depth])
        depth += 1
    chosen_ids = {id(item) for item in chosen}
    return chosen, [item for item in kept if id(item) not in chosen_ids]


def _top_up_factor(outcome: SynthOutcome, pool: Mapping[QuestionKind, list[Kept]]) -> float:
    """How much more to ask than is missing: the inverse of the yield so far (1.5 to 5).

    Documents with few fact sentences give few questions per request; asking more (over
    more chunks) in the next round reaches the target in fewer rounds.
    """
    kept = sum(len(items) for items in pool.values())
    asked = outcome.write_requests
    if not kept:
        return 5.0
    per_request = kept / max(1, asked)
    return min(5.0, max(1.5, 2.0 / max(per_request, 0.4)))


async def synthesize(
    chunks: Sequence[Chunk],
    targets: Mapping[QuestionKind, int],
    judge: Judge,
    *,
    per_request: int = 3,
    concurrency: int = 32,
    on_progress: Progress | None = None,
    known: Sequence[tuple[str, str, str]] = (),
    pair_reasoning: bool = False,
    linked: Sequence[tuple[str, str]] = (),
    compared: Sequence[tuple[str, ...]] = (),
    fruitful: Collection[str] = (),
) -> SynthOutcome:
    """Generate, filter and balance questions until every kind has its target (or rounds end).

    Args:
        chunks: the corpus's chunks.
        targets: questions wanted per kind.
        judge: answers :class:`WriteQuestions` and :class:`CritiqueQuestions`.
        per_request: questions asked per write request.
        concurrency: most units in flight at once (the judge's own limiter caps calls too).
        on_progress: called with (requests done, requests planned, round) after each write.
        known: (kind, question, reference) of cases already in the golden file (reviewed
            ones): new questions must not repeat them or their source facts.
        pair_reasoning: see :func:`~.plan.plan_units`.
        linked: see :func:`~.plan.plan_units`.
        compared: see :func:`~.plan.plan_units`.
        fruitful: see :func:`~.plan.plan_units`.

    Returns:
        The kept questions (each kind at most its target) and every drop with its reason.
    """
    outcome = SynthOutcome(targets=dict(targets))
    pool: dict[QuestionKind, list[Kept]] = {kind: [] for kind in KINDS}
    seen = NearDuplicates()
    for kind, question, reference in known:
        seen.add(f"{kind}: {question}", fact=None if kind == "unanswerable" else reference)
    # Questions kept per chunk id: a later round asks for different ones.
    written: dict[str, list[str]] = {}
    skip = 0
    gate = asyncio.Semaphore(max(1, concurrency))
    for round_number in range(1, MAX_ROUNDS + 1):
        short = {kind: targets.get(kind, 0) - len(pool[kind]) for kind in KINDS}
        short = {kind: missing for kind, missing in short.items() if missing > 0}
        if not short or outcome.stopped:
            break
        factor = OVERSHOOT if round_number == 1 else _top_up_factor(outcome, pool)
        asked = {kind: math.ceil(missing * factor) for kind, missing in short.items()}
        units = plan_units(
            chunks,
            asked,
            per_request=per_request,
            skip=skip,
            pair_reasoning=pair_reasoning,
            linked=linked,
            compared=compared,
            fruitful=fruitful,
        )
        skip += len(units)
        if not units:
            break
        outcome.rounds = round_number
        done = 0

        def advance(total: int = len(units), number: int = round_number) -> None:
            nonlocal done
            done += 1
            if on_progress is not None:
                on_progress(done, total, number)

        worker = _Round(judge, outcome, advance, written)

        async def bounded(unit: Unit, worker: _Round = worker) -> tuple[list[Kept], list[Dropped]]:
            async with gate:
                if outcome.stopped:
                    return [], []
                return await worker.run(unit)

        results = await asyncio.gather(*(bounded(unit) for unit in units))
        _merge(results, outcome, seen, pool, written)
    for kind in KINDS:
        chosen, surplus = _balanced(pool[kind], targets.get(kind, 0))
        outcome.kept.extend(chosen)
        for item in surplus:
            outcome.dropped.append(
                Dropped(
                    "surplus",
                    f"{kind} already had its {targets.get(kind, 0)}",
                    kind,
                    item.question.question,
                    item.documents,
                )
            )
    return outcome
