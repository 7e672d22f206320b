"""``repeats: auto``: repeat only the judgements that can move the verdict.

Every case is judged once. Then :class:`AutoRepeats` picks, in two rounds, the cases to
judge :data:`AUTO_REPEATS` times over:

1. a seeded sample (:data:`SAMPLE_SHARE` of the cases, at least :data:`SAMPLE_MIN`): the
   judge's noise cannot be known without measuring it somewhere;
2. once the sample measured the judge's within-case spread per metric, the cases whose
   score lies within that noise (``NOISE_Z`` standard deviations of one judgement) of a
   gated metric's threshold, where one more judgement could flip the case, and the cases
   that changed against the baseline (new, or another answer or contexts), whose delta
   the baseline test reads.

The sample is drawn from a hash of each case's identity and the run's seed, so the same
golden set picks the same cases on every run and under any number of xdist workers. The
noise that decides "near a threshold" is measured per worker, from its share of the
sample, so under ``-n`` a case close to that band's edge may be picked otherwise than in a
serial run; its figures and the verdict still come from the cases' own repeats. Each
repeated case records why it was picked and what its repeats cost (:class:`AutoRepeat`),
so the reports, ``regate`` and ``merge`` tell what was chosen and what it cost from the
case results alone.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence

from ..golden.cases import GoldenCase
from ..scoring.repeats import AutoRepeat
from ..scoring.results import CaseResult
from ..settings.bounds import Bound
from .judge_noise import measure_judge_noise

__all__ = [
    "AUTO_REPEATS",
    "AutoRepeat",
    "AutoRepeats",
    "auto_summary",
]

#: How many times a case ``auto`` picks is judged.
AUTO_REPEATS = 3
#: The share of the cases sampled to measure the judge's noise, and the fewest sampled.
SAMPLE_SHARE = 0.1
SAMPLE_MIN = 5
#: A case within this many within-case standard deviations of a threshold is repeated.
NOISE_Z = 1.96

#: Why a case was repeated, in the order the reports list them.
REASONS = ("sample", "near threshold", "changed against the baseline")


def _draw(seed: int, key: str) -> str:
    return hashlib.sha256(f"{seed}\x00{key}".encode()).hexdigest()


class AutoRepeats:
    """Picks the cases to repeat, round by round, from the results so far.

    Args:
        cases: The cases being scored.
        bounds: The thresholds in force, per metric.
        seed: The run's seed, for the sample.
        baseline: The baseline's case results, when the run has a baseline.
        population: Every case key of the run, when ``cases`` are one xdist worker's
            share: the sample is drawn from them all, so each worker repeats its share of
            the very sample a serial run repeats.
    """

    def __init__(
        self,
        cases: Sequence[GoldenCase],
        bounds: Mapping[str, Bound],
        *,
        seed: int,
        baseline: Sequence[CaseResult] | None = None,
        population: Sequence[str] = (),
    ) -> None:
        self._cases = {case.key: case for case in cases}
        self._bounds = bounds
        self._seed = seed
        self._baseline = {result.key: result for result in baseline or ()}
        self._population = list(population) or list(self._cases)
        self._round = 0
        self.reasons: dict[str, str] = {}

    def next_round(self, results: Mapping[str, CaseResult]) -> list[GoldenCase]:
        """The cases to judge again now; empty once nothing more is to be repeated."""
        self._round += 1
        if self._round == 1:
            chosen = {key: "sample" for key in self._sample()}
        elif self._round == 2:
            chosen = {key: "near threshold" for key in self._near_threshold(results)}
            for key in self._changed(results):
                chosen.setdefault(key, "changed against the baseline")
        else:
            chosen = {}
        fresh = {key: why for key, why in chosen.items() if key not in self.reasons}
        self.reasons.update(fresh)
        return [self._cases[key] for key in self._cases if key in fresh]

    def _sample(self) -> list[str]:
        keys = sorted(self._population, key=lambda key: _draw(self._seed, key))
        count = min(len(keys), max(SAMPLE_MIN, math.ceil(SAMPLE_SHARE * len(keys))))
        return [key for key in keys[:count] if key in self._cases]

    def _near_threshold(self, results: Mapping[str, CaseResult]) -> list[str]:
        sampled = [results[key] for key in self.reasons if key in results]
        near: list[str] = []
        for metric, bound in self._bounds.items():
            noise = measure_judge_noise(sampled, metric)
            if noise is None or not noise.sd:
                continue  # a judge that never disagreed with itself moves no verdict
            band = NOISE_Z * noise.sd
            for key, result in results.items():
                score = result.scores.get(metric)
                if score is not None and abs(score - bound.value) <= band and key not in near:
                    near.append(key)
        return near

    def _changed(self, results: Mapping[str, CaseResult]) -> list[str]:
        if not self._baseline:
            return []
        changed = []
        for key, result in results.items():
            before = self._baseline.get(key)
            if before is None or (before.answer, before.contexts) != (
                result.answer,
                result.contexts,
            ):
                changed.append(key)
        return changed


def auto_summary(results: Sequence[CaseResult]) -> str | None:
    """One line on what ``repeats: auto`` repeated and what it cost; None when unused.

    >>> picked = [CaseResult(id="a", source="g:1", auto_repeat=AutoRepeat(reason="sample",
    ...                                                                 extra_calls=8)),
    ...           CaseResult(id="b", source="g:2")]
    >>> auto_summary(picked)
    'repeats auto: 1 of 2 case(s) judged 3 times (1 sampled to measure the judge, 0 near a threshold, 0 changed against the baseline); 8 extra judge call(s)'
    """  # noqa: E501
    picked = [result.auto_repeat for result in results if result.auto_repeat is not None]
    if not picked:
        return None
    counts = {reason: sum(1 for pick in picked if pick.reason == reason) for reason in REASONS}
    extra = sum(pick.extra_calls for pick in picked)
    return (
        f"repeats auto: {len(picked)} of {len(results)} case(s) judged {AUTO_REPEATS} times "
        f"({counts['sample']} sampled to measure the judge, {counts['near threshold']} near "
        f"a threshold, {counts['changed against the baseline']} changed against the "
        f"baseline); {extra} extra judge call(s)"
    )
