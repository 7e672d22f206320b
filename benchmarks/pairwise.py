"""Pairwise judging against the baseline: its cost per changed case, and its power, measured.

Two parts.

**Cost.** N synthetic cases (``judge_throughput.py``'s: half English, half Chinese, a
question, a 4-sentence answer, four retrieved contexts of about 120 words or 200
characters, a reference) are compared with a baseline through
:func:`pytest_ragas_gate.scoring.pairwise.judge_pairs`, the function a run calls, with the
Anthropic and the OpenAI judge on the local fake server (``tests/fakellm.py``, through
the real SDKs). Half the answers changed (a third of those for the worse: a number
changed), half did not. The script prints the judge calls and the prompt and output
tokens per changed case (the fake server's estimate: one token per CJK character, one per
four other characters), and the calls spent on unchanged cases (goal: none, and at most
2 per changed case; the exit status says), and the judge's position-consistency (with
``--flip``, the fake judge errs on that share of its comparisons).

**Power.** How many paired cases the gate needs to detect a 10-point drop in faithfulness,
with absolute paired scores (the baseline test: per-case faithfulness in both runs, a
paired bootstrap interval of the mean change, a drop detected when it lies below 0) and
with pairwise judgements (each case's new answer against the baseline's, asked in both
positions; a drop detected when the interval of loss − win lies above 0), under a judge
that flips each verdict with probability p, as the fake server's ``flip_probability``
does (a claim verdict for the absolute scores; a comparison's A / B / tie for the pairwise
ones, to one of the two other choices at random). The simulated golden set is
``judge_noise.py``'s: each answer 2-6 claims, each supported with probability 0.85; the
changed system turns each supported claim unsupported with probability 0.12 (a true drop
of about 0.10). Every answer is regenerated (all changed, none a free tie); both runs are
cold (judged anew).
A comparison's truth is "the baseline's answer is better" when the new one lost a
supported claim, else a tie. Per n, ``--runs`` simulated pairs of runs; the figure is the
smallest n whose detection rate reaches 80%, and the false detection rate at the largest
n with no drop at all (goal: at most 5%, the nominal α).

Reproduce with (from the repository root)::

    python benchmarks/pairwise.py                 # cost and power
    python benchmarks/pairwise.py --part cost --cases 100
    python benchmarks/pairwise.py --part power --runs 200

Measured on a shared 2-core machine, with the defaults (``--cases 60 --runs 200``; quoted
in docs/gate.md, "Head to head with the baseline")::

    judge      changed  calls/changed  prompt tok/changed  of them cache reads  output tok/changed
    anthropic  30       2.00           3,104               1,186                28
    openai     30       2.00           3,089               1,280                28
    (0 calls on the 30 unchanged cases, both judges; position-consistency 100%, and with
    --flip 0.1, a judge that errs on one comparison in ten, 87% and 80%)

    flip  method    cases for 80% power  false detection
    0.0   absolute  20                   0.0%
    0.0   pairwise  20                   0.0%
    0.1   absolute  80                   4.0%
    0.1   pairwise  20                   0.0%
    0.2   absolute  300                  1.0%
    0.2   pairwise  30                   0.0%
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from fakellm import FakeLLM  # noqa: E402
from judge_throughput import write_cases  # noqa: E402

from pytest_ragas_gate.gate.baseline import compare_to_baseline  # noqa: E402
from pytest_ragas_gate.golden.cases import Context, GoldenCase  # noqa: E402
from pytest_ragas_gate.judges.anthropic_judge import AnthropicJudge  # noqa: E402
from pytest_ragas_gate.judges.openai_judge import OpenAIJudge  # noqa: E402
from pytest_ragas_gate.scoring.pairwise import PAIRWISE_USAGE, judge_pairs, pairwise_outcome  # noqa: E402
from pytest_ragas_gate.scoring.pairwise_verdict import PreferenceSeen  # noqa: E402
from pytest_ragas_gate.scoring.results import CaseResult  # noqa: E402
from pytest_ragas_gate.settings.config import GateConfig  # noqa: E402
from pytest_ragas_gate.stats import bootstrap_ci  # noqa: E402

KEY = "test-key-not-real"
METRIC = "faithfulness"
SUPPORTED = 0.85
REAL_DROP = 0.12
SIZES = (10, 20, 30, 40, 60, 80, 100, 150, 200, 300)

# --- cost ------------------------------------------------------------------------------


def _pairs(
    count: int, seed: int
) -> tuple[list[tuple[CaseResult, CaseResult]], dict[str, GoldenCase]]:
    """``count`` (baseline, new) results: the odd cases changed, every third of those worse."""
    with tempfile.TemporaryDirectory() as directory:
        path = write_cases(Path(directory), count, seed)
        rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    pairs = []
    cases = {}
    for index, row in enumerate(rows):
        case = GoldenCase(
            id=row["id"],
            question=row["question"],
            answer=row["answer"],
            contexts=[Context(text=text) for text in row["contexts"]],
            reference=row["reference"],
            file="golden.jsonl",
            line=index + 1,
        )
        cases[case.key] = case
        answer = row["answer"]
        if index % 2:
            sentences = [
                part
                for part in answer.replace("。", "。\n").replace(". ", ".\n").split("\n")
                if part
            ]
            answer = " ".join([sentences[1], sentences[0], *sentences[2:]])
            if index % 3 == 0:
                answer = answer.replace("1", "7").replace("2", "8")
        base = CaseResult.of_case(case)
        new = CaseResult.of_case(case.model_copy(update={"answer": answer}))
        pairs.append((base, new))
    return pairs, cases


@dataclass(frozen=True)
class CostRow:
    judge: str
    changed: int
    calls: int
    unchanged_calls: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    consistency: float
    seconds: float


def measure_cost(api: str, count: int, seed: int, flip: float = 0.0) -> CostRow:
    """Judge ``count`` pairs with one judge on the fake server; what it cost."""
    pairs, cases = _pairs(count, seed)
    with FakeLLM(flip_probability=flip, seed=seed) as server:
        judge: Any = (
            AnthropicJudge("claude-sonnet-4-6", api_key=KEY, base_url=server.url)
            if api == "anthropic"
            else OpenAIJudge("gpt-4.1-mini", api_key=KEY, base_url=server.openai_url)
        )

        async def run() -> None:
            try:
                await judge_pairs(pairs, cases, judge, concurrency=32)
            finally:
                await judge.aclose()

        started = time.perf_counter()
        asyncio.run(run())
        seconds = time.perf_counter() - started
    news = [new for _, new in pairs]
    changed = [new for new in news if new.pairwise is not None and new.pairwise.changed]
    unchanged = [new for new in news if new.pairwise is not None and not new.pairwise.changed]
    usage = [new.usage[PAIRWISE_USAGE] for new in changed if PAIRWISE_USAGE in new.usage]
    return CostRow(
        judge=api,
        changed=len(changed),
        calls=sum(record.calls for record in usage),
        unchanged_calls=sum(
            new.usage[PAIRWISE_USAGE].calls for new in unchanged if PAIRWISE_USAGE in new.usage
        ),
        input_tokens=sum(record.input_tokens for record in usage),
        output_tokens=sum(record.output_tokens for record in usage),
        cache_read_tokens=sum(record.cache_read_tokens for record in usage),
        consistency=sum(1 for new in changed if new.pairwise and new.pairwise.consistent)
        / max(1, len(changed)),
        seconds=seconds,
    )


# --- power -----------------------------------------------------------------------------


def _claims(rng: random.Random, cases: int) -> list[list[bool]]:
    return [[rng.random() < SUPPORTED for _ in range(rng.randint(2, 6))] for _ in range(cases)]


def _dropped(rng: random.Random, truth: list[list[bool]], drop: float) -> list[list[bool]]:
    return [[verdict and rng.random() >= drop for verdict in case] for case in truth]


def _scored(rng: random.Random, truth: list[list[bool]], flip: float) -> list[CaseResult]:
    """One cold run of absolute scores: every claim verdict flipped with ``flip``."""
    return [
        CaseResult(
            id=f"case-{index}",
            source=f"golden.jsonl:{index + 1}",
            metrics=[METRIC],
            scores={METRIC: sum(v != (rng.random() < flip) for v in claims) / len(claims)},
        )
        for index, claims in enumerate(truth)
    ]


def _compare(rng: random.Random, base_better: bool, flip: float) -> int:
    """One case judged in both positions: +1 a loss of the new answer, -1 a win, else 0."""
    seen: list[PreferenceSeen] = []
    for new_is_a in (True, False):
        truth = "tie" if not base_better else "B" if new_is_a else "A"
        said = (
            rng.choice([c for c in ("A", "B", "tie") if c != truth])
            if rng.random() < flip
            else truth
        )
        if said == "tie":
            seen.append("tie")
        else:
            seen.append("new" if (said == "A") == new_is_a else "baseline")
    outcome, _ = pairwise_outcome(seen)
    return {"loss": 1, "win": -1, "tie": 0, "undecided": 0}[outcome]


def _detects(
    method: str, rng: random.Random, cases: int, flip: float, drop: float, config: GateConfig
) -> bool:
    truth = _claims(rng, cases)
    changed = _dropped(rng, truth, drop)
    if method == "absolute":
        comparison = compare_to_baseline(
            _scored(rng, truth, flip), _scored(rng, changed, flip), [METRIC], config, path="b"
        )
        return METRIC in comparison.regressed_metrics
    balance = [
        float(_compare(rng, sum(new) < sum(old), flip))
        for old, new in zip(truth, changed, strict=True)
    ]
    low, _ = bootstrap_ci(
        balance, confidence=config.confidence, resamples=config.bootstrap_resamples, seed=0
    )
    return low > 0.0


@dataclass(frozen=True)
class PowerRow:
    flip: float
    method: str
    needed: int | None
    power: dict[int, float]
    false_detection: float


def measure_power(flip: float, method: str, runs: int, resamples: int, seed: int) -> PowerRow:
    """Detection rate per number of cases, and the false detection rate without a drop."""
    config = GateConfig(
        judge="anthropic",
        thresholds={METRIC: 0.5},
        bootstrap_resamples=resamples,
        max_regression=0.0,
    )
    power: dict[int, float] = {}
    needed = None
    for size in SIZES:
        hits = sum(
            _detects(method, random.Random(seed + run), size, flip, REAL_DROP, config)
            for run in range(runs)
        )
        power[size] = hits / runs
        if needed is None and power[size] >= 0.8:
            needed = size
            break
    largest = SIZES[-1] if needed is None else needed
    false_hits = sum(
        _detects(method, random.Random(seed + 10_000 + run), largest, flip, 0.0, config)
        for run in range(runs)
    )
    return PowerRow(flip, method, needed, power, false_hits / runs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["cost", "power", "both"], default="both")
    parser.add_argument("--cases", type=int, default=60, help="cases of the cost part")
    parser.add_argument(
        "--flip", type=float, default=0.0, help="the fake judge's flip rate in the cost part"
    )
    parser.add_argument("--runs", type=int, default=200, help="simulated pairs of runs per n")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    met = True
    if args.part in ("cost", "both"):
        print(
            "judge      changed  calls/changed  prompt tok/changed  of them cache reads  "
            "output tok/changed  "
            "calls on unchanged  position-consistency  wall"
        )
        for api in ("anthropic", "openai"):
            row = measure_cost(api, args.cases, args.seed, args.flip)
            per = max(1, row.changed)
            print(
                f"{row.judge:<10} {row.changed:<8} {row.calls / per:<14.2f} "
                f"{row.input_tokens / per:<19,.0f} {row.cache_read_tokens / per:<21,.0f} "
                f"{row.output_tokens / per:<19,.0f} "
                f"{row.unchanged_calls:<19} {row.consistency:<21.0%} {row.seconds:.2f} s"
            )
            met = met and row.calls <= 2 * row.changed and row.unchanged_calls == 0
    if args.part in ("power", "both"):
        print()
        print("flip  method    cases for 80% power  false detection  detection rate by n")
        for flip in (0.0, 0.1, 0.2):
            for method in ("absolute", "pairwise"):
                row = measure_power(flip, method, args.runs, args.resamples, args.seed)
                rates = ", ".join(f"{n}: {rate:.0%}" for n, rate in row.power.items())
                needed = f"{row.needed}" if row.needed is not None else f"> {SIZES[-1]}"
                print(f"{flip:<5} {method:<9} {needed:<20} {row.false_detection:<16.1%} {rates}")
                sys.stdout.flush()
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
