"""Judging each changed answer against the baseline's answer to the same case.

With ``pairwise: true``, every case paired with the baseline (by the baseline's pairing,
:func:`~pytest_ragas_gate.gate.baseline.pair_cases`' rule: file and id, then id alone)
whose answer changed is put to the judge as :class:`~..judges.compare.CompareAnswers`
twice: the new answer as A and the baseline's as B, then the other way round. Position
bias is a known failure of LLM judges (they favour the first, or the second, answer
shown); a judgement that does not survive the swap is *undecided*, so a judge that always
says "A" turns every comparison into an undecided one, never into a win — and the gate
does not evaluate a loss rate its judge could not decide (:mod:`..gate.pairwise`). An
unchanged answer is a tie without a call. At most two calls per changed case, through
the same judge (cache, batching, budgets) as the metrics; their usage is charged to the
case as ``pairwise``, and a judge that gives no usable answer is an error of the case
under that name.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from ..exceptions import JudgeError
from ..golden.cases import GoldenCase
from ..judges.base import NO_CONTEXT, Judge
from ..judges.compare import CompareAnswers, Preference
from ..usage import Usage
from .pairwise_verdict import PairwiseOutcome, PairwiseVerdict, PreferenceSeen
from .results import CaseResult

__all__ = ["PAIRWISE_USAGE", "answer_changed", "judge_pairs", "pairwise_outcome"]

#: The key under which a case's usage holds what its pairwise judgement cost.
PAIRWISE_USAGE = "pairwise"


def answer_changed(base: str, new: str) -> bool:
    """Whether two answers differ beyond surrounding whitespace.

    >>> answer_changed("Paris.", " Paris. "), answer_changed("Paris.", "It is Paris.")
    (False, True)
    """
    return base.strip() != new.strip()


def _seen(preference: Preference, new_is_a: bool) -> PreferenceSeen:
    if preference == "tie":
        return "tie"
    return "new" if (preference == "A") == new_is_a else "baseline"


_OUTCOMES: dict[PreferenceSeen, PairwiseOutcome] = {"new": "win", "baseline": "loss", "tie": "tie"}


def pairwise_outcome(seen: Sequence[PreferenceSeen]) -> tuple[PairwiseOutcome, bool]:
    """The outcome of the two positions' judgements, and whether they agreed.

    Only a judgement both positions give counts (a tie too); anything else is undecided.

    >>> pairwise_outcome(["new", "new"]), pairwise_outcome(["new", "baseline"])
    (('win', True), ('undecided', False))
    >>> pairwise_outcome(["baseline", "tie"]), pairwise_outcome(["tie", "tie"])
    (('undecided', False), ('tie', True))
    """
    first, second = seen
    if first != second:
        return "undecided", False
    return _OUTCOMES[first], True


async def _judge_one(
    judge: Judge, request: CompareAnswers, base_answer: str
) -> tuple[PairwiseVerdict, Usage]:
    spent = Usage()
    seen: list[PreferenceSeen] = []
    reasons: list[str] = []
    # Both positions at once: they share the contexts and are independent.
    answers = await asyncio.gather(
        judge.ask(request, context=NO_CONTEXT),
        judge.ask(request.swapped(), context=NO_CONTEXT),
        return_exceptions=True,
    )
    failures: list[str] = []
    for answer, new_is_a in zip(answers, (True, False), strict=True):
        if isinstance(answer, JudgeError):
            failures.append(str(answer))
            continue
        if isinstance(answer, BaseException):
            raise answer
        spent = spent + answer.usage
        seen.append(_seen(answer.reply.better, new_is_a))
        reasons.append(answer.reply.reason)
    if failures:
        # One position alone cannot tell a preference from a position bias.
        verdict = PairwiseVerdict(
            outcome="tie", changed=True, baseline_answer=base_answer, error=failures[0]
        )
        return verdict, spent
    outcome, consistent = pairwise_outcome(seen)
    verdict = PairwiseVerdict(
        outcome=outcome,
        changed=True,
        seen=seen,
        consistent=consistent,
        reasons=reasons,
        baseline_answer=base_answer,
    )
    return verdict, spent


async def judge_pairs(
    pairs: Sequence[tuple[CaseResult, CaseResult]],
    cases: Mapping[str, GoldenCase],
    judge: Judge,
    *,
    concurrency: int,
) -> None:
    """Judge every pair's new answer against the baseline's; sets ``pairwise`` on the new.

    Args:
        pairs: (baseline, new) results, from the baseline pairing.
        cases: The new run's golden cases by key, for the reference and earlier turns.
        judge: The run's judge, still open.
        concurrency: How many cases are compared at once.

    A pair where either side has no answer, or the new case errored as a whole, is left
    without a verdict: there is nothing to compare.
    """
    limit = asyncio.Semaphore(max(1, concurrency))

    async def compare(base: CaseResult, new: CaseResult) -> None:
        if base.answer is None or new.answer is None or new.error is not None:
            return
        if not answer_changed(base.answer, new.answer):
            new.pairwise = PairwiseVerdict(outcome="tie", changed=False)
            return
        case = cases.get(new.key)
        request = CompareAnswers(
            question=new.question,
            contexts=list(new.contexts or []),
            reference=None if case is None else case.reference,
            answer_a=new.answer,
            answer_b=base.answer,
            history=[] if case is None else list(case.history),
        )
        async with limit:
            verdict, spent = await _judge_one(judge, request, base.answer)
        new.pairwise = verdict
        if verdict.error is not None:
            # An error of the case, the judge's: the gate fails closed, as for a metric.
            new.errors = {**new.errors, PAIRWISE_USAGE: verdict.error}
            new.judge_errors = [*new.judge_errors, PAIRWISE_USAGE]
        if spent.calls or spent.cache_hits:
            before = new.usage.get(PAIRWISE_USAGE, Usage())
            new.usage = {**new.usage, PAIRWISE_USAGE: before + spent}

    await asyncio.gather(*(compare(base, new) for base, new in pairs))
