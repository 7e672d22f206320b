"""How far the judge is from people: agreement of judge scores with human labels.

For one metric, over the cases that carry both a judge score and a human label:

- ``bias``: mean judge − mean human (positive: the judge is lenient);
- ``mae``: mean absolute difference;
- ``spearman``: rank correlation (average ranks for ties);
- for binary labels (every label 0 or 1): ``auroc`` of the judge score for label 1 (ties
  count half), and ``accuracy`` and Cohen's ``kappa`` of "score ≥ threshold" against the
  label, at the metric's own threshold.

Each figure comes with a seeded percentile-bootstrap interval over the labelled cases, so
a report reads the same on every machine. A statistic that is undefined (AUROC with one
class, Spearman of constant scores, kappa when both sides agree by construction) is None,
never a made-up number; its floor then fails closed.

Floors (``min_agreement: {faithfulness: {auroc: 0.75}}``) gate the judge itself: a judge
or prompt change that drifts away from people fails the build before it can pass or block
anything else.
"""

from __future__ import annotations

import math
import operator
import random
from collections.abc import Callable, Mapping, Sequence

from ..stats import bounded_interval, hull, mean, percentile
from .figures import Figure, MetricAgreement

__all__ = [
    "Figure",
    "MetricAgreement",
    "accuracy_at",
    "auroc",
    "cohen_kappa",
    "is_binary",
    "measure_agreement",
    "no_labels",
    "spearman",
]

# A score equal to its threshold on paper may land a few ulps below it.
_TOLERANCE = 1e-9


# --- the statistics, on plain vectors ---------------------------------------------------


def is_binary(labels: Sequence[float]) -> bool:
    """Whether every label is 0 or 1.

    >>> is_binary([0, 1.0, 1]), is_binary([0.5, 1])
    (True, False)
    """
    return all(label in (0.0, 1.0) for label in labels)


def _tie_groups(values: Sequence[float]) -> list[list[int]]:
    """The positions of ``values`` in ascending order, equal values grouped."""
    groups: list[list[int]] = []
    previous: float | None = None
    for position in sorted(range(len(values)), key=values.__getitem__):
        if groups and values[position] == previous:
            groups[-1].append(position)
        else:
            groups.append([position])
        previous = values[position]
    return groups


class _Pairs:
    """Labelled pairs, sorted once; each statistic reads them through per-pair counts.

    A bootstrap resample is a count per original pair, so ranks, AUROC and the confusion
    table of a resample follow from the counts in linear passes over the pre-sorted
    pairs, without building and sorting each resample.
    """

    def __init__(self, judge: Sequence[float], human: Sequence[float]) -> None:
        if len(judge) != len(human):
            raise ValueError(f"{len(judge)} judge scores but {len(human)} human labels")
        self.judge, self.human = judge, human
        self.judge_groups = _tie_groups(judge)
        self.human_groups = _tie_groups(human)
        self.positive = [label == 1.0 for label in human]
        self._cells: dict[float, tuple[list[int], list[int], list[int], list[int]]] = {}

    def _ranks(self, groups: list[list[int]], counts: Sequence[int]) -> list[float]:
        ranks = [0.0] * len(counts)
        below = 0
        for group in groups:
            if len(group) == 1:  # the common case for scores, kept cheap
                position = group[0]
                weight = counts[position]
                ranks[position] = below + (weight + 1) / 2.0
                below += weight
                continue
            weight = sum(counts[position] for position in group)
            shared = below + (weight + 1) / 2.0
            for position in group:
                ranks[position] = shared
            below += weight
        return ranks

    def spearman(self, counts: Sequence[int]) -> float | None:
        total = sum(counts)
        if total < 2:
            return None
        first = self._ranks(self.judge_groups, counts)
        second = self._ranks(self.human_groups, counts)
        centre = (total + 1) / 2.0
        covariance = spread_first = spread_second = 0.0
        for count, a, b in zip(counts, first, second, strict=True):
            if count:
                covariance += count * (a - centre) * (b - centre)
                spread_first += count * (a - centre) ** 2
                spread_second += count * (b - centre) ** 2
        if spread_first <= 0.0 or spread_second <= 0.0:
            return None
        return float(covariance / (spread_first * spread_second) ** 0.5)

    def auroc(self, counts: Sequence[int]) -> float | None:
        area = 0.0
        negatives_below = positives = negatives = 0
        positive = self.positive
        for group in self.judge_groups:
            group_positives = group_negatives = 0
            for position in group:
                if positive[position]:
                    group_positives += counts[position]
                else:
                    group_negatives += counts[position]
            area += group_positives * (negatives_below + group_negatives / 2.0)
            negatives_below += group_negatives
            positives += group_positives
            negatives += group_negatives
        if not positives or not negatives:
            return None
        return area / (positives * negatives)

    def weighted_mean(self, values: Sequence[float], counts: Sequence[int]) -> float:
        """The mean of per-pair ``values`` over a resample given as counts."""
        return math.fsum(map(operator.mul, values, counts)) / sum(counts)

    def confusion(self, counts: Sequence[int], threshold: float) -> tuple[int, int, int, int]:
        """(both yes, judge yes only, people yes only, both no) of "score ≥ threshold"."""
        cells = self._cells.get(threshold)
        if cells is None:
            cells = self._cells[threshold] = ([], [], [], [])
            for position, (score, positive) in enumerate(
                zip(self.judge, self.positive, strict=True)
            ):
                predicted = score + _TOLERANCE >= threshold
                cell = (0 if predicted else 2) + (0 if positive else 1)
                cells[cell].append(position)
        pick = counts.__getitem__
        both_yes, judge_only, people_only, both_no = (sum(map(pick, cell)) for cell in cells)
        return both_yes, judge_only, people_only, both_no

    def kappa(self, counts: Sequence[int], threshold: float) -> float | None:
        both_yes, judge_only, people_only, both_no = self.confusion(counts, threshold)
        total = both_yes + judge_only + people_only + both_no
        observed = (both_yes + both_no) / total
        judge_yes = (both_yes + judge_only) / total
        people_yes = (both_yes + people_only) / total
        expected = judge_yes * people_yes + (1 - judge_yes) * (1 - people_yes)
        if expected >= 1.0:
            return None
        return (observed - expected) / (1.0 - expected)


def spearman(judge: Sequence[float], human: Sequence[float]) -> float | None:
    """Spearman's rank correlation; None when either side is constant or n < 2.

    >>> spearman([0.1, 0.4, 0.3, 0.9], [0.0, 0.5, 0.5, 1.0])
    0.9486832980505138
    >>> spearman([0.5, 0.5], [0.0, 1.0]) is None
    True
    """
    return _Pairs(judge, human).spearman([1] * len(judge))


def auroc(judge: Sequence[float], human: Sequence[float]) -> float | None:
    """The area under the ROC curve of the judge score for label 1; None with one class.

    The chance that a case labelled 1 scores above one labelled 0, ties counting half.

    >>> auroc([0.9, 0.8, 0.3, 0.8], [1, 1, 0, 0])
    0.875
    >>> auroc([0.9, 0.2], [1, 1]) is None
    True
    """
    return _Pairs(judge, human).auroc([1] * len(judge))


def accuracy_at(judge: Sequence[float], human: Sequence[float], threshold: float) -> float:
    """The share of cases where "score ≥ threshold" agrees with the label being 1.

    >>> accuracy_at([0.9, 0.8, 0.3, 0.8], [1, 1, 0, 0], 0.85)
    0.75
    """
    both_yes, _, _, both_no = _Pairs(judge, human).confusion([1] * len(judge), threshold)
    return (both_yes + both_no) / len(judge)


def cohen_kappa(judge: Sequence[float], human: Sequence[float], threshold: float) -> float | None:
    """Cohen's kappa of "score ≥ threshold" against the label; None when undefined.

    ``(observed − expected) / (1 − expected)``, the expected agreement that of two
    independent raters with the same marginals; undefined when that is 1 (both sides
    give one class only).

    >>> cohen_kappa([0.9, 0.8, 0.3, 0.8], [1, 1, 0, 0], 0.85)
    0.5
    """
    return _Pairs(judge, human).kappa([1] * len(judge), threshold)


# --- with intervals ---------------------------------------------------------------------

_PairStatistic = Callable[[Sequence[int]], "float | None"]


def _paired_bootstrap(
    size: int,
    statistics: Mapping[str, _PairStatistic],
    *,
    confidence: float,
    resamples: int,
    seed: int,
) -> dict[str, tuple[float | None, float | None]]:
    """Percentile intervals of statistics of the pairs, over one set of resamples.

    Resamples where a statistic is undefined (one class drawn) are left out of its interval.
    """
    rng = random.Random(seed)
    drawn: dict[str, list[float]] = {name: [] for name in statistics}
    positions = range(size)
    for _ in range(resamples):
        counts = [0] * size
        for position in rng.choices(positions, k=size):
            counts[position] += 1
        for name, statistic in statistics.items():
            value = statistic(counts)
            if value is not None:
                drawn[name].append(value)
    tail = (1.0 - confidence) / 2.0 * 100.0
    return {
        name: (percentile(values, tail), percentile(values, 100.0 - tail))
        if values
        else (None, None)
        for name, values in drawn.items()
    }


def no_labels(metric: str, threshold: float | None = None) -> MetricAgreement:
    """The agreement of a metric that no labelled case was scored for."""
    return MetricAgreement(metric=metric, n=0, threshold=threshold)


def measure_agreement(
    metric: str,
    judge: Sequence[float],
    human: Sequence[float],
    *,
    threshold: float | None,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> MetricAgreement:
    """Every agreement figure of one metric, each with its bootstrap interval.

    Args:
        metric: The metric's name.
        judge: The judge's scores of the labelled cases, in a canonical order.
        human: The human labels of the same cases.
        threshold: The metric's threshold (accuracy and kappa need one).
        confidence: The coverage of the intervals.
        resamples: Bootstrap resamples.
        seed: The bootstrap's seed.

    Returns:
        The figures; floors are checked by :func:`check_floors`.
    """
    if len(judge) != len(human):
        raise ValueError(f"{len(judge)} judge scores but {len(human)} human labels")
    if not judge:
        return no_labels(metric, threshold)
    differences = [score - label for score, label in zip(judge, human, strict=True)]
    distances = [abs(difference) for difference in differences]
    binary = is_binary(human)
    pairs = _Pairs(judge, human)
    paired: dict[str, _PairStatistic] = {
        "bias": lambda counts: pairs.weighted_mean(differences, counts),
        "mae": lambda counts: pairs.weighted_mean(distances, counts),
        "spearman": pairs.spearman,
    }
    hits: list[float] = []
    if binary:
        paired["auroc"] = pairs.auroc
        if threshold is not None:
            cut = threshold
            hits = [
                1.0 if (score + _TOLERANCE >= cut) == (label == 1.0) else 0.0
                for score, label in zip(judge, human, strict=True)
            ]
            paired["accuracy"] = lambda counts: pairs.weighted_mean(hits, counts)
            paired["kappa"] = lambda counts: pairs.kappa(counts, cut)
    intervals = _paired_bootstrap(
        len(judge), paired, confidence=confidence, resamples=resamples, seed=seed
    )
    once = [1] * len(judge)
    # The figures that are means of a bounded per-case value get the bounded interval too,
    # so that 3 of 3 agreements do not read as an accuracy of 100–100%.
    per_case: dict[str, tuple[Sequence[float], float]] = {
        "bias": (differences, -1.0),
        "mae": (distances, 0.0),
    }
    if hits:
        per_case["accuracy"] = (hits, 0.0)

    def figure(name: str) -> Figure | None:
        if name not in paired:
            return None
        value = paired[name](once)
        if value is None:
            return Figure(value=None)
        low, high = intervals[name]
        if name in per_case and low is not None and high is not None:
            values, floor = per_case[name]
            low, high = hull(
                (low, high), bounded_interval(values, low=floor, confidence=confidence)
            )
        return Figure(value=value, ci_low=low, ci_high=high)

    def measured(name: str) -> Figure:
        found = figure(name)
        assert found is not None  # bias, mae and spearman are always measured
        return found

    return MetricAgreement(
        metric=metric,
        n=len(judge),
        binary=binary,
        threshold=threshold,
        judge_mean=mean(judge),
        human_mean=mean(human),
        bias=measured("bias"),
        mae=measured("mae"),
        spearman=measured("spearman"),
        auroc=figure("auroc"),
        accuracy=figure("accuracy"),
        kappa=figure("kappa"),
    )


def check_floors(agreement: MetricAgreement, floors: Mapping[str, float]) -> MetricAgreement:
    """The agreement with its floors decided: each statistic must reach its floor.

    A floor on a statistic that is undefined or not measured (too few labels, labels
    that are not binary, no threshold) fails closed, saying why.
    """
    metric, n = agreement.metric, agreement.n
    if not floors:
        return agreement.model_copy(update={"message": _report_line(agreement)})
    verdicts: list[str] = []
    failed = False
    for name, floor in floors.items():
        figure = agreement.statistic(name)
        if n == 0:
            verdicts.append(f"{name} unmeasured (no labelled case scored)")
            failed = True
        elif figure is None or figure.value is None:
            verdicts.append(f"{name} unmeasured ({_why_unmeasured(agreement, name)})")
            failed = True
        else:
            reached = figure.value + _TOLERANCE >= floor
            failed = failed or not reached
            verdicts.append(f"{name} {figure.value:.2f} {'≥' if reached else '<'} {floor:.2f}")
    message = f"{metric} judge–human agreement: " + ", ".join(verdicts) + f" (n={n} labelled)"
    return agreement.model_copy(
        update={"floors": dict(floors), "passed": not failed, "message": message}
    )


def _why_unmeasured(agreement: MetricAgreement, name: str) -> str:
    if name in ("auroc", "accuracy", "kappa") and not agreement.binary:
        return "needs binary labels, 0 or 1"
    if name in ("accuracy", "kappa") and agreement.threshold is None:
        return "the metric has no threshold"
    return "undefined: the labels or scores take a single value"


def _report_line(agreement: MetricAgreement) -> str:
    if agreement.n == 0:
        return f"{agreement.metric}: no labelled case scored"
    shown = [f"bias {agreement.bias.text()}", f"MAE {agreement.mae.text()}"]
    for name in ("spearman", "auroc", "kappa"):
        figure = agreement.statistic(name)
        if figure is not None and figure.value is not None:
            shown.append(f"{name} {figure.text()}")
    return f"{agreement.metric} judge–human agreement (n={agreement.n} labelled): " + ", ".join(
        shown
    )
