"""What 1,000 cases cost with each real judge: prompt tokens, provider prompt cache, batch.

Reproduce with (from the repository root)::

    .venv/bin/python benchmarks/judge_cost.py --cases 100

N synthetic cases (a question, a 3-4 sentence answer, five retrieved chunks of about 300
words, a reference) are scored on the four core metrics by ``pytest --rag-gate`` in a
subprocess, once per judge, against the local fake server (``tests/fakellm.py``), which
answers through the real SDKs and reports prompt-cache reads and writes in ``usage`` the
way the APIs do: Anthropic at the ``cache_control`` breakpoints, with
``cache_read_input_tokens`` / ``cache_creation_input_tokens``; OpenAI by automatic prefix
caching (1,024 tokens and more, in 128-token steps), with
``prompt_tokens_details.cached_tokens``. Tokens are the fake server's estimate (one per
four characters, one per CJK character).

For each judge it prints the prompt tokens per case, the share read from the provider's
cache, and the estimated dollars per 1,000 cases at list price for the default model
(``claude-sonnet-5-5``: $2 / $10 per million input / output tokens, cache write 1.25x,
read 0.1x; ``gpt-4.1-mini``: $0.40 / $1.60, cached input 0.25x): every prompt token at
the input price (no cache), as reported (with cache), and batch + cache from a second
run with ``judge.batch: true``, whose requests go through the fake server's Message
Batches / Batch API endpoints and are priced at the batch share. It also prints the wall
time of both runs; the fake server ends a batch at its second status poll, so the batch
run's wall time is the gate's own overhead (collection window, poll schedule), not a
provider's queue. ``--repo PATH`` runs the gate of another checkout (e.g. the release
before prompt caching) with this fake server, for the before/after comparison; its batch
column is the direct run priced at the batch share.

Goals: $ per 1,000 cases at least 20% under prompt version 5's figures ($13.44 anthropic,
$2.75 openai), and at least 35% of the anthropic judge's prompt tokens read from the
provider cache. Prompt version 7 (a case's claim verification and context review in one
request, the contexts sent once) measured $10.25 (67% read) and $2.15; the openai judge
reads nothing from the cache, since no prefix of a case it sends twice reaches OpenAI's
1,024-token minimum any more.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
sys.path.insert(0, str(REPO_ROOT))

from fakellm import FakeLLM  # noqa: E402
from judge_throughput import (  # noqa: E402
    _EN_FEATURES,
    _EN_FILLER,
    _EN_PRODUCTS,
    gate_command,
    judge_env,
)

from pytest_ragas_gate.judges.pricing import PriceTable  # noqa: E402

MODELS = {"anthropic": "claude-sonnet-5-5", "openai": "gpt-4.1-mini"}
#: $ per 1,000 cases with the cache, prompt version 5 (this benchmark, 100 cases).
VERSION_5_USD = {"anthropic": 13.44, "openai": 2.75}

_FILLER = [
    *_EN_FILLER,
    "Retention policies apply per workspace and can be tightened by an administrator.",
    "The status page lists incidents and maintenance windows for every region.",
]


def make_case(index: int, rng: random.Random, chunks: int, words: int) -> dict[str, Any]:
    """One case: five chunks of about ``words`` words, two of them holding the facts."""
    product = f"{rng.choice(_EN_PRODUCTS)} {index}"
    feature, phrase = rng.choice(_EN_FEATURES)
    fact = phrase.format(n=rng.randint(2, 90))
    other = rng.choice(_EN_FEATURES)[1].format(n=rng.randint(2, 90))
    contexts = []
    for position in range(chunks):
        sentences: list[str] = []
        while sum(len(sentence.split()) for sentence in sentences) < words:
            sentences.append(rng.choice(_FILLER))
        if position == 0:
            sentences.insert(2, f"The {product} Team plan offers {fact}.")
        if position == 3:
            sentences.insert(5, f"The {product} Team plan also includes {other}.")
        contexts.append(" ".join(sentences))
    return {
        "id": f"case-{index}",
        "question": f"What {feature} does the {product} Team plan offer?",
        "answer": (
            f"The {product} Team plan offers {fact}. It also includes {other}. "
            f"Administrators manage the {product} plan from the web console."
        ),
        "contexts": contexts,
        "reference": f"The {product} Team plan offers {fact}. It also includes {other}.",
    }


@dataclass(frozen=True)
class CostFigures:
    """One judge's run, per case and per 1,000 cases."""

    judge: str
    cases: int
    calls: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    usd_no_cache: float
    usd_cache: float
    usd_batch_cache: float
    wall_s: float = 0.0
    batch_wall_s: float | None = None

    def row(self) -> str:
        per_case = self.input_tokens / self.cases
        share = self.cache_read_tokens / self.input_tokens if self.input_tokens else 0.0
        scale = 1000 / self.cases
        batch_share = self.usd_batch_cache / self.usd_no_cache if self.usd_no_cache else 0.0
        return (
            f"{self.judge:<9}  {self.calls / self.cases:>5.2f}  {per_case:>11,.0f}  "
            f"{share:>10.0%}  ${self.usd_no_cache * scale:>8.2f}  ${self.usd_cache * scale:>8.2f}"
            f"  ${self.usd_batch_cache * scale:>8.2f} ({batch_share:.0%})"
            f"  {self.wall_s:>6.1f} s  "
            + (f"{self.batch_wall_s:>6.1f} s" if self.batch_wall_s is not None else "     -")
        )


def run_judge(
    workdir: Path, server: FakeLLM, judge: str, repo: Path | None, *, batch: bool = False
) -> tuple[dict[str, Any], float]:
    """``pytest --rag-gate`` with ``judge`` on the golden file; the report's usage and wall."""
    report = workdir / f"report-{judge}{'-batch' if batch else ''}.json"
    options = [
        "--rag-gate-set",
        "cache.mode=off",
        *(["--rag-gate-set", "judge.batch=true"] if batch else []),
    ]
    command = gate_command(judge, report, *options)
    env = judge_env(server, judge)
    if repo is not None:
        env["PYTHONPATH"] = str(repo)
    started = time.monotonic()
    completed = subprocess.run(
        command, cwd=workdir, env=env, capture_output=True, text=True, check=False
    )
    wall_s = time.monotonic() - started
    if not report.exists():
        sys.stderr.write(completed.stdout + completed.stderr)
        raise SystemExit(f"the {judge} run wrote no report (exit {completed.returncode})")
    usage: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))["usage"]
    return usage, wall_s


def figures(
    judge: str, cases: int, usage: dict[str, Any], batch_usage: dict[str, Any] | None = None
) -> CostFigures:
    """Price a run's tokens with the built-in price table: without and with the cache, and
    the batch run's tokens (or, without one, the direct run's) at the batch share."""
    table = PriceTable()
    model = MODELS[judge]
    tokens = {
        "input_tokens": int(usage["input_tokens"]),
        "output_tokens": int(usage["output_tokens"]),
    }
    read = int(usage.get("cache_read_tokens", 0))
    written = int(usage.get("cache_write_tokens", 0))
    no_cache = table.cost(model, **tokens).usd
    cached = table.cost(model, **tokens, cache_read_tokens=read, cache_write_tokens=written).usd
    batched = batch_usage or usage
    batch = table.cost(
        model,
        input_tokens=int(batched["input_tokens"]),
        output_tokens=int(batched["output_tokens"]),
        cache_read_tokens=int(batched.get("cache_read_tokens", 0)),
        cache_write_tokens=int(batched.get("cache_write_tokens", 0)),
        batch=True,
    ).usd
    return CostFigures(
        judge, cases, int(usage["calls"]), *tokens.values(), read, written, no_cache, cached, batch
    )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark for both judges; exit 1 when a goal is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100, help="synthetic cases (default 100)")
    parser.add_argument("--chunks", type=int, default=5, help="chunks per case (default 5)")
    parser.add_argument("--words", type=int, default=300, help="words per chunk (default 300)")
    parser.add_argument(
        "--latency", type=float, default=0.3, help="seconds per judge call (default 0.3)"
    )
    parser.add_argument("--judge", choices=("anthropic", "openai", "both"), default="both")
    parser.add_argument("--repo", type=Path, default=None, help="run another checkout's gate")
    args = parser.parse_args(argv)

    judges = ("anthropic", "openai") if args.judge == "both" else (args.judge,)
    rng = random.Random(0)
    rows = [make_case(index, rng, args.chunks, args.words) for index in range(args.cases)]
    results = []
    with tempfile.TemporaryDirectory(prefix="rag-gate-cost-") as temporary:
        workdir = Path(temporary)
        (workdir / "golden.jsonl").write_text(
            "".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8"
        )
        for judge in judges:
            # Latency matters: requests in flight together cannot read what the others
            # are still writing, so the first wave of a run writes the shared prefix.
            with FakeLLM(latency_s=args.latency) as server:
                usage, wall_s = run_judge(workdir, server, judge, args.repo)
            batch_usage, batch_wall_s = None, None
            if args.repo is None:
                # A fresh server: the batch run must not read the direct run's prompt cache.
                with FakeLLM(latency_s=args.latency) as server:
                    batch_usage, batch_wall_s = run_judge(workdir, server, judge, None, batch=True)
                    if not server.batches or server.judge_requests():
                        raise SystemExit(f"the {judge} batch run did not go through batches")
            result = figures(judge, args.cases, usage, batch_usage)
            results.append(dataclasses.replace(result, wall_s=wall_s, batch_wall_s=batch_wall_s))

    words = sum(len(" ".join(row["contexts"]).split()) for row in rows) / len(rows)
    print(
        f"{args.cases} cases at {args.latency * 1000:.0f} ms, {args.chunks} chunks of "
        f"~{args.words} words ({words:,.0f} words of contexts per case), core metrics; "
        "$ per 1,000 cases at list price"
    )
    print(
        "judge      calls  prompt tok/case  read from cache  no cache   cache     batch+cache"
        "       wall   batch wall"
    )
    for result in results:
        print(result.row())
    missed = [
        result.usd_cache * 1000 / result.cases > 0.8 * VERSION_5_USD[result.judge]
        or (result.judge == "anthropic" and result.cache_read_tokens < 0.35 * result.input_tokens)
        for result in results
    ]
    return 1 if args.repo is None and any(missed) else 0


if __name__ == "__main__":
    raise SystemExit(main())
