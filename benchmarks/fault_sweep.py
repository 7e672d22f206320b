"""Every case scored or explicitly errored, none NaN, none lost, as judge faults rise.

Reproduce with (from the repository root)::

    .venv/bin/python benchmarks/fault_sweep.py

The local fake LLM server (``tests/fakellm.py``) answers through the real Anthropic SDK.
At fault rate R it answers R of the judge calls with a transport fault (HTTP 429 with
``retry-after: 0``, HTTP 500, or a hang past the client timeout, in the ratio 2:2:1) and
another R/2 with a bad body (half not JSON at all, half JSON that does not fit the reply
schema): 10% means 10% + 5% of the calls, 60% means 60% + 30%. The faults are placed per
block of 40 consecutive calls, so every stretch of the run holds the asked mix (see
``fault_plan`` in ``tests/test_faults.py``). ``pytest --rag-gate`` runs in a subprocess on
the four core metrics with the default ``max_retries`` (6) and ``max_reasks`` (2), a short
request timeout and a 50 ms backoff base so the sweep takes minutes, not hours. A last
row repeats the highest rate with ``--few-retries`` retries (default 1), to show the
fail-closed path.

For each run it prints one column: the rate, the ``max_retries`` setting, cases in the
golden file, cases scored, cases errored (an explicit error in the JSON report),
``<error>`` elements in the JUnit file, NaN scores, lost cases (golden cases missing from
the report), judge calls the server answered, calls and transport retries as the JSON
report counts them, re-asks the server received (distinct conversations carrying a
re-ask follow-up), wall time and the verdict; then the gate's failure line of each
failed run. Progress goes to stderr.

Measured with the command above (100 cases, 0.25 s timeout, seed 1) on a 2-core
machine::

    fault rate           10%      30%      60%      60%
    max_retries            6        6        6        1
    cases                100      100      100      100
    scored               100       99       15        0
    errored                0        1       85      100
    JUnit <error>          0        1       85      100
    NaN scores             0        0        0        0
    lost cases             0        0        0        0
    server calls         470      725     2292      774
    report calls         412      454      651      444
    report retries        58      271     1641      330
    re-asks               12       54      288      110
    wall               10.2s    21.3s   114.1s    39.4s
    verdict           passed    error    error    error

    gate at 30%, max_retries 6:
      ERROR judge unreliable: 1 of 100 case(s) errored (1% > max_error_rate 0%)

    gate at 60%, max_retries 6:
      ERROR judge unreliable: 85 of 100 case(s) errored (85% > max_error_rate 0%)

    gate at 60%, max_retries 1:
      ERROR judge unreliable: 100 of 100 case(s) errored (100% > max_error_rate 0%)

Every errored case is the judge's and every scored one passes, so the verdict is
``error`` (judge unavailable, no deploy decision), not ``failed``.

At 10% every case is scored: every fault was absorbed by a retry or a re-ask. On every
row report calls + retries = server calls: requests that failed for good are counted
too. At 30% a case now and then (0 or 1 of 100 in our runs) meets three bad replies or
seven transport faults in a row; it is an explicit error and the gate fails closed. At
60% (90% of the calls faulted, one in ten answered well) most cases run out of retries,
each one an explicit error in the JSON report and the JUnit file. Each 429 halves the
judge's concurrency, so at 60% requests run nearly one at a time and every hang costs
the full timeout: that row dominates the sweep's wall time (about 3 minutes in all).

Which request meets which fault depends on the order in which concurrent requests reach
the server, so scored and errored cases, calls, retries and re-asks vary a little from
run to run with the same seed (an earlier run: 30% 100 scored, 727 calls; 60% 20 scored,
2342 calls; 60% with 1 retry 1 scored). What holds on every run: scored + errored =
cases, JUnit ``<error>`` elements = errored cases, NaN 0, lost 0, no errors at 10%, and a
run with errors fails with ``judge unreliable: N of M case(s) errored``.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from fakellm import FakeLLM  # noqa: E402
from judge_throughput import gate_command, judge_env, write_cases  # noqa: E402
from test_faults import inject, reasks_seen  # noqa: E402

#: Core-metric judge requests per case, for bounding the calls a run can make.
REQUESTS_PER_CASE = 4
MAX_REASKS = 2


@dataclass(frozen=True)
class SweepRow:
    """The outcome of one run at one fault rate."""

    rate: float
    max_retries: int
    cases: int
    scored: int
    errored: int
    junit_errors: int
    nan_scores: int
    lost: int
    server_calls: int
    report_calls: int
    retries: int
    reasks: int
    wall_s: float
    verdict: str
    gate_line: str | None


def junit_errors(path: Path) -> int:
    """``<error>`` elements of the cases in a JUnit file: one per errored case.

    The gate's own suite is left out: a run its judge could not decide reports its error
    rate there as an ``<error>`` too.
    """
    suites = ET.parse(path).getroot().iter("testsuite")
    return sum(
        1 for suite in suites if suite.get("name") != "rag-gate" for _ in suite.iter("error")
    )


def gate_line(stdout: str) -> str | None:
    """The gate's error-rate failure line of the pytest output, if it printed one."""
    for line in stdout.splitlines():
        if "judge unreliable:" in line:
            return line.strip()
    return None


def run(cases: int, rate: float, *, seed: int, max_retries: int, timeout_s: float) -> SweepRow:
    """Score ``cases`` cases with faults at ``rate`` and read the JSON and JUnit reports."""
    horizon = cases * REQUESTS_PER_CASE * (max_retries + 1) * (MAX_REASKS + 1)
    with tempfile.TemporaryDirectory() as name, FakeLLM() as server:
        workdir = Path(name)
        write_cases(workdir, cases)
        (workdir / "rag_gate.yaml").write_text(
            json.dumps(
                {
                    "timeout_s": timeout_s,
                    "retry_backoff_s": 0.05,
                    "max_retries": max_retries,
                    "max_reasks": MAX_REASKS,
                    "cache": "off",
                }
            ),
            encoding="utf-8",
        )
        inject(server, rate, seed=seed, hang_s=timeout_s + 3.0, horizon=horizon)
        env = {**judge_env(server, "anthropic"), "CI": "1"}
        started = time.monotonic()
        completed = subprocess.run(
            gate_command("anthropic", "report.json", "--rag-gate-output=junit=junit.xml"),
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        wall_s = time.monotonic() - started
        report = json.loads((workdir / "report.json").read_text(encoding="utf-8"))
        errors_in_junit = junit_errors(workdir / "junit.xml")
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
        max_retries=max_retries,
        cases=len(golden_ids),
        scored=len(reported) - len(errored),
        errored=len(errored),
        junit_errors=errors_in_junit,
        nan_scores=nan_scores,
        lost=len(golden_ids - {case["id"] for case in reported}),
        server_calls=server.calls,
        report_calls=int(report["usage"]["calls"]),
        retries=int(report["usage"]["retries"]),
        reasks=reasks_seen(server),
        wall_s=wall_s,
        verdict=report["verdict"],
        gate_line=gate_line(completed.stdout) if report["verdict"] == "failed" else None,
    )


def main() -> None:
    """Run the sweep and print one row per run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cases", type=int, default=100, help="synthetic golden cases per run (default 100)"
    )
    parser.add_argument(
        "--rates",
        default="0.1,0.3,0.6",
        help="comma-separated transport-fault rates R; R/2 more calls get bad bodies "
        "(default 0.1,0.3,0.6; at most 0.66)",
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="seeds the placement of the faults (default 1)"
    )
    parser.add_argument(
        "--max-retries",
        type=int,
        default=6,
        help="the gate's max_retries for the rows of --rates (default 6, the gate's default)",
    )
    parser.add_argument(
        "--few-retries",
        type=int,
        default=1,
        help="max_retries of an extra row at the highest rate, showing the fail-closed "
        "path; a negative value skips the row (default 1)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=0.25,
        help="the gate's per-request timeout_s; hangs last 3 s longer (default 0.25)",
    )
    arguments = parser.parse_args()
    rates = [float(text) for text in arguments.rates.split(",")]
    runs = [(rate, arguments.max_retries) for rate in rates]
    if arguments.few_retries >= 0:
        runs.append((max(rates), arguments.few_retries))
    rows: list[SweepRow] = []
    for rate, max_retries in runs:
        # Progress goes to stderr so stdout holds only the table.
        print(f"running {rate:.0%} with max_retries {max_retries} …", file=sys.stderr, flush=True)
        rows.append(
            run(
                arguments.cases,
                rate,
                seed=arguments.seed,
                max_retries=max_retries,
                timeout_s=arguments.timeout,
            )
        )
    print_table(rows)


def print_table(rows: list[SweepRow]) -> None:
    """One column per run, one line per figure; then the gate's line of each failed run."""
    lines: list[tuple[str, list[str]]] = [
        ("fault rate", [f"{row.rate:.0%}" for row in rows]),
        ("max_retries", [str(row.max_retries) for row in rows]),
        ("cases", [str(row.cases) for row in rows]),
        ("scored", [str(row.scored) for row in rows]),
        ("errored", [str(row.errored) for row in rows]),
        ("JUnit <error>", [str(row.junit_errors) for row in rows]),
        ("NaN scores", [str(row.nan_scores) for row in rows]),
        ("lost cases", [str(row.lost) for row in rows]),
        ("server calls", [str(row.server_calls) for row in rows]),
        ("report calls", [str(row.report_calls) for row in rows]),
        ("report retries", [str(row.retries) for row in rows]),
        ("re-asks", [str(row.reasks) for row in rows]),
        ("wall", [f"{row.wall_s:.1f}s" for row in rows]),
        ("verdict", [row.verdict for row in rows]),
    ]
    for label, cells in lines:
        print(f"{label:<15}" + "".join(f"{cell:>9}" for cell in cells))
    for row in rows:
        if row.gate_line is not None:
            print(f"\ngate at {row.rate:.0%}, max_retries {row.max_retries}:\n  {row.gate_line}")


if __name__ == "__main__":
    main()
