"""Every case scored or explicitly errored, none NaN, none lost, as judge faults rise.

Reproduce with (from the repository root)::

    .venv/bin/python benchmarks/fault_sweep.py --cases 100

The local fake LLM server (``tests/fakellm.py``) answers through the real Anthropic SDK
and injects faults at 10%, 30% and 60% of the calls: HTTP 429 (with ``retry-after: 0``),
500 and 503, hangs past the client timeout, bodies that are not JSON, and replies that do
not fit the reply schema. ``pytest --rag-gate`` runs in a subprocess on the four core
metrics with the default ``max_retries`` (6) and ``max_reasks`` (2), a 2 s request timeout
and a 50 ms backoff base (``retry_backoff_s``) so the sweep takes seconds, not minutes.

For each rate it prints: cases in the golden file, cases scored, cases errored (an
explicit error in the JSON report and JUnit ``<error>``), NaN scores, lost cases (golden
cases missing from the report), transport retries, re-asks (calls carrying a re-ask
follow-up), wall time and the verdict.

Measured with the command above on a 2-core container shared with other test runs::

    fault rate  cases  scored  errored  NaN  lost  retries  re-asks  wall     verdict
           10%    100     100        0    0     0       58        9    10.2s  passed
           30%    100     100        0    0     0      164       48    27.0s  passed
           60%    100     100        0    0     0      424       67    77.1s  passed

and with ``--rates 0.6 --max-retries 1`` (retries cut short, so some requests fail for
good)::

           60%    100      25       75    0     0      126       46    61.0s  failed

Each errored case is an explicit error in the JSON report and a JUnit ``<error>``, and the
verdict reads ``judge unreliable: N of M case(s) errored``. NaN and lost stay at 0.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from fakellm import INVALID, MALFORMED, FakeLLM, Fault, status  # noqa: E402
from judge_throughput import CORE_METRICS, KEY, write_cases  # noqa: E402


@dataclass(frozen=True)
class SweepRow:
    """The outcome of one run at one fault rate."""

    rate: float
    cases: int
    scored: int
    errored: int
    nan_scores: int
    lost: int
    retries: int
    reasks: int
    wall_s: float
    verdict: str


def inject(server: FakeLLM, rate: float) -> None:
    """Faults totalling about ``rate`` of the calls, spread over every kind."""
    server.fail(status(429, retry_after="0"), probability=rate * 0.25)
    server.fail(status(500), probability=rate * 0.25)
    server.fail(status(503), probability=rate * 0.10)
    server.fail(Fault("hang", hang_s=5.0), probability=rate * 0.10)
    server.fail(MALFORMED, probability=rate * 0.15)
    server.fail(INVALID, probability=rate * 0.15)


def reasks_in(server: FakeLLM) -> int:
    """Calls whose conversation carries a re-ask (more than one user message)."""
    count = 0
    for request in server.judge_requests():
        body = request.body if isinstance(request.body, dict) else {}
        users = [m for m in body.get("messages", []) if m.get("role") == "user"]
        count += len(users) > 1
    return count


def run(cases: int, rate: float, seed: int, max_retries: int) -> SweepRow:
    """Score ``cases`` cases with faults at ``rate`` and read the JSON report."""
    with tempfile.TemporaryDirectory() as name, FakeLLM(seed=seed) as server:
        workdir = Path(name)
        write_cases(workdir, cases)
        (workdir / "rag_gate.yaml").write_text(
            json.dumps(
                {
                    "timeout_s": 2.0,
                    "retry_backoff_s": 0.05,
                    "max_retries": max_retries,
                    "cache": "off",
                }
            ),
            encoding="utf-8",
        )
        inject(server, rate)
        env = {
            **os.environ,
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": server.url,
            "CI": "1",
        }
        started = time.monotonic()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "--rag-gate",
                "--rag-gate-judge=anthropic",
                f"--rag-gate-metrics={CORE_METRICS}",
                "--rag-gate-report=report.json",
                "--rag-gate-junit=junit.xml",
                "golden.jsonl",
            ],
            cwd=workdir,
            env=env,
            capture_output=True,
            check=False,
        )
        wall_s = time.monotonic() - started
        report = json.loads((workdir / "report.json").read_text(encoding="utf-8"))
        golden_ids = {
            json.loads(line)["id"]
            for line in (workdir / "golden.jsonl").read_text(encoding="utf-8").splitlines()
        }
    reported = report["cases"]
    errored = [case for case in reported if case["error"] or case["errors"]]
    nan_scores = sum(
        1
        for case in reported
        for score in case["scores"].values()
        if isinstance(score, float) and math.isnan(score)
    )
    return SweepRow(
        rate=rate,
        cases=len(golden_ids),
        scored=len(reported) - len(errored),
        errored=len(errored),
        nan_scores=nan_scores,
        lost=len(golden_ids - {case["id"] for case in reported}),
        retries=int(report["usage"]["retries"]),
        reasks=reasks_in(server),
        wall_s=wall_s,
        verdict=report["verdict"],
    )


def main() -> None:
    """Run the sweep and print one row per fault rate."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--rates", default="0.1,0.3,0.6")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-retries", type=int, default=6)
    arguments = parser.parse_args()
    print(
        "fault rate  cases  scored  errored  NaN  lost  retries  re-asks  wall     verdict",
        flush=True,
    )
    for rate in (float(text) for text in arguments.rates.split(",")):
        row = run(arguments.cases, rate, arguments.seed, arguments.max_retries)
        print(
            f"{row.rate:>10.0%}  {row.cases:>5}  {row.scored:>6}  {row.errored:>7}  "
            f"{row.nan_scores:>3}  {row.lost:>4}  {row.retries:>7}  {row.reasks:>7}  "
            f"{row.wall_s:>6.1f}s  {row.verdict}",
            flush=True,
        )


if __name__ == "__main__":
    main()
