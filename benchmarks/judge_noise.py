"""The gate's verdicts under a judge that flips its verdicts at random, by simulation.

A judge at temperature 0 still samples differently from call to call; a case whose
answer or contexts changed is judged afresh, so two runs of the same system differ by
the judge's jitter alone. This script checks, at the level of the gate's statistics (the
very functions a run calls: :func:`pytest_ragas_gate.gate.verdict.aggregate_metric` and
:func:`pytest_ragas_gate.gate.baseline.compare_to_baseline`), that

- the baseline test does not call a regression between two cold runs of the *same*
  system more often than the nominal α (5% at 95% confidence), and
- the metric's 95% confidence interval holds the mean it estimates at least 94% of the
  time,

with a judge that flips each claim verdict with probability p ∈ {0, 0.1, 0.2}, without
repeats (``repeats: 1``, the previous release's method) and with ``repeats: 3`` (the
two-level bootstrap and the judge-noise band).

The simulated golden set: 30 cases, each an answer of 2-6 claims, each claim supported by
the contexts with probability 0.85. A case's faithfulness in one repeat is the share of
its claims the judge calls supported after its flips. Per setting, 200 simulated
pairs of runs (cold cache: every judgement drawn anew), run *r* seeded with ``seed + r``:

- ``false regression``: both runs score the identical cases; how often the baseline
  test calls a regression, with the default ``max_regression`` 0.05 and with 0 (the
  statistics alone decide);
- ``power``: the new system drops 12% of the supported claims (a true drop of about
  0.10 before the judge's noise); how often the test catches it (max_regression 0.05);
- ``coverage, same cases``: how often the interval holds the mean of the cases'
  expected scores under this judge (what infinitely many repeats would give);
- ``coverage, new cases``: the cases drawn afresh from the population in every run; how
  often the interval holds the population's expected score.

Reproduce with (from the repository root)::

    python benchmarks/judge_noise.py

The README quotes the table it prints.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass

from pytest_ragas_gate.gate.baseline import compare_to_baseline
from pytest_ragas_gate.gate.verdict import aggregate_metric
from pytest_ragas_gate.scoring.results import CaseResult
from pytest_ragas_gate.settings.config import GateConfig

__all__ = ["Row", "simulate"]

METRIC = "faithfulness"
SUPPORTED = 0.85
REAL_DROP = 0.12


@dataclass(frozen=True)
class Row:
    """One setting's figures over its simulated runs."""

    flip: float
    repeats: int
    false_regression: float
    false_regression_strict: float
    power: float
    coverage_same: float
    coverage_new: float
    seconds: float


def _claims(rng: random.Random, cases: int) -> list[list[bool]]:
    """Per case, the true verdict of each claim of its answer."""
    return [[rng.random() < SUPPORTED for _ in range(rng.randint(2, 6))] for _ in range(cases)]


def _dropped(rng: random.Random, truth: list[list[bool]]) -> list[list[bool]]:
    """The same cases after a change that loses some supported claims."""
    return [[verdict and rng.random() >= REAL_DROP for verdict in case] for case in truth]


def _run(
    rng: random.Random, truth: list[list[bool]], flip: float, repeats: int
) -> list[CaseResult]:
    """One cold run: every case judged ``repeats`` times, each verdict flipped anew."""
    results = []
    for index, claims in enumerate(truth):
        scores = [
            sum((verdict != (rng.random() < flip)) for verdict in claims) / len(claims)
            for _ in range(repeats)
        ]
        results.append(
            CaseResult(
                id=f"case-{index}",
                source=f"golden.jsonl:{index + 1}",
                metrics=[METRIC],
                scores={METRIC: sum(scores) / repeats},
                repeat_scores={METRIC: scores} if repeats > 1 else {},
            )
        )
    return results


def _expected(claims: list[bool], flip: float) -> float:
    """A case's expected score under the flipping judge."""
    supported = sum(claims)
    return (supported * (1 - flip) + (len(claims) - supported) * flip) / len(claims)


def _holds(results: list[CaseResult], target: float, config: GateConfig) -> bool:
    aggregate = aggregate_metric(results, METRIC, config)
    assert aggregate.ci_low is not None and aggregate.ci_high is not None
    return aggregate.ci_low <= target <= aggregate.ci_high


def _regressed(base: list[CaseResult], new: list[CaseResult], config: GateConfig) -> bool:
    comparison = compare_to_baseline(base, new, [METRIC], config, path="baseline.json")
    return METRIC in comparison.regressed_metrics


def simulate(flip: float, repeats: int, *, runs: int, cases: int, resamples: int, seed: int) -> Row:
    """The figures of one setting over ``runs`` simulated pairs of runs."""
    started = time.perf_counter()
    config = GateConfig(
        judge="anthropic",
        thresholds={METRIC: 0.5},
        bootstrap_resamples=resamples,
        repeats=repeats,
    )
    strict = config.model_copy(update={"max_regression": 0.0})
    population_mean = SUPPORTED * (1 - flip) + (1 - SUPPORTED) * flip
    false_alarms = strict_alarms = caught = held_same = held_new = 0
    for run in range(runs):
        rng = random.Random(seed + run)
        truth = _claims(rng, cases)
        base = _run(rng, truth, flip, repeats)
        new = _run(rng, truth, flip, repeats)
        false_alarms += _regressed(base, new, config)
        strict_alarms += _regressed(base, new, strict)
        caught += _regressed(base, _run(rng, _dropped(rng, truth), flip, repeats), config)
        target = sum(_expected(claims, flip) for claims in truth) / cases
        held_same += _holds(new, target, config)
        held_new += _holds(_run(rng, _claims(rng, cases), flip, repeats), population_mean, config)
    return Row(
        flip=flip,
        repeats=repeats,
        false_regression=false_alarms / runs,
        false_regression_strict=strict_alarms / runs,
        power=caught / runs,
        coverage_same=held_same / runs,
        coverage_new=held_new / runs,
        seconds=time.perf_counter() - started,
    )


def new_case_coverage(flip: float, repeats: int, arguments: argparse.Namespace) -> float:
    """How often the interval holds the population's mean, cases drawn afresh per run."""
    config = GateConfig(
        judge="anthropic",
        thresholds={METRIC: 0.5},
        bootstrap_resamples=arguments.resamples,
        repeats=repeats,
    )
    population_mean = SUPPORTED * (1 - flip) + (1 - SUPPORTED) * flip
    held = 0
    for run in range(arguments.runs):
        rng = random.Random(arguments.seed + run)
        cases = _run(rng, _claims(rng, arguments.cases), flip, repeats)
        held += _holds(cases, population_mean, config)
    return held / arguments.runs


def gate_seconds(cases: int, repeats: int, *, seed: int) -> float:
    """Seconds one aggregate of a metric takes over ``cases`` cases (default resamples)."""
    rng = random.Random(seed)
    results = _run(rng, _claims(rng, cases), 0.1, repeats)
    config = GateConfig(judge="anthropic", thresholds={METRIC: 0.5}, repeats=repeats)
    started = time.perf_counter()
    aggregate_metric(results, METRIC, config)
    return time.perf_counter() - started


def main() -> None:
    """Print the table, then what the noise-aware interval costs the gate."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--cases", type=int, default=30)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2025)
    parser.add_argument("--cost-only", action="store_true", help="skip the simulation table")
    parser.add_argument(
        "--coverage-flip",
        type=float,
        default=None,
        help="print only the 'new cases' coverage at this flip probability, over --runs",
    )
    arguments = parser.parse_args()
    if arguments.coverage_flip is not None:
        for repeats in (1, 3):
            held = new_case_coverage(arguments.coverage_flip, repeats, arguments)
            print(f"flip {arguments.coverage_flip}, repeats {repeats}: coverage {held:.1%}")
        return
    if not arguments.cost_only:
        print_table(arguments)
    print("seconds per metric aggregate (2,000 resamples): cases, repeats 1, repeats 3")
    for cases in (30, 300, 999, 1000, 50_000):
        single = gate_seconds(cases, 1, seed=arguments.seed)
        repeated = gate_seconds(cases, 3, seed=arguments.seed)
        print(f"{cases:>6}  {single:.3f}  {repeated:.3f}", flush=True)


def print_table(arguments: argparse.Namespace) -> None:
    """The simulation table, one row per flip probability and repeat count."""
    print(
        f"{arguments.runs} simulated pairs of cold runs of {arguments.cases} cases, "
        f"{arguments.resamples} bootstrap resamples, 95% intervals, seed {arguments.seed}"
    )
    header = (
        "| flip p | repeats | false regression (max_regression 0.05) | false regression "
        "(max_regression 0) | catches a real drop | coverage, same cases | "
        "coverage, new cases |"
    )
    print(header)
    print("|---|---|---|---|---|---|---|")
    for flip in (0.0, 0.1, 0.2):
        for repeats in (1, 3):
            row = simulate(
                flip,
                repeats,
                runs=arguments.runs,
                cases=arguments.cases,
                resamples=arguments.resamples,
                seed=arguments.seed,
            )
            print(
                f"| {row.flip:.1f} | {row.repeats} | {row.false_regression:.1%} | "
                f"{row.false_regression_strict:.1%} | {row.power:.1%} | "
                f"{row.coverage_same:.1%} | {row.coverage_new:.1%} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
