"""A long run against a slow judge: no global deadline, every case scored.

Reproduce with (from the repository root)::

    .venv/bin/python benchmarks/slow_judge.py --cases 600 --latency 3

The local fake LLM server (``tests/fakellm.py``) answers every call after ``--latency``
seconds, through the real Anthropic SDK. ``pytest --rag-gate`` scores the cases on the
four core metrics with default settings: 32 concurrent requests, a 60 s per-request
timeout and no deadline for the run as a whole. The floor is the calls the server
answered x latency / concurrency; the core metrics take 4 calls per case (context
precision and recall share one), so 600 x 4 x 3 s / 32 = 225 s.

Prints the cases scored, errored and missing from the report, the judge calls, the peak
number of requests the server saw in flight at once, the wall and scoring times and the
pytest exit status. Exits with status 1 unless every case was scored.

Measured with the command above on a 2-core container shared with other test runs::

    cases in golden file   600
    cases scored           600
    cases errored          0
    cases missing          0
    judge calls            2400 (4.00 per case)
    peak in flight         32
    wall time              234.7 s (floor 2400 x 3 s / 32 = 225.0 s)
    scoring time           231.7 s
    pytest exit status     0

The wall time is within 5% of the floor: the judge stays at full concurrency for the
whole run, and 2400 calls is exactly 4 per case, so no request was retried.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from fakellm import FakeLLM  # noqa: E402
from judge_throughput import gate_command, judge_env, write_cases  # noqa: E402


def main() -> int:
    """Run the gate once against the slow judge, print the figures; 1 if a case went unscored."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cases", type=int, default=600, help="synthetic golden cases to score (default 600)"
    )
    parser.add_argument(
        "--latency",
        type=float,
        default=3.0,
        help="seconds the fake judge takes to answer every call (default 3)",
    )
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as name, FakeLLM(latency_s=arguments.latency) as server:
        workdir = Path(name)
        write_cases(workdir, arguments.cases)
        env = {**judge_env(server, "anthropic"), "CI": "1"}
        started = time.monotonic()
        completed = subprocess.run(
            gate_command("anthropic", "report.json", "--rag-gate-set=cache.mode=off"),
            cwd=workdir,
            env=env,
            capture_output=True,
            check=False,
        )
        wall_s = time.monotonic() - started
        report = json.loads((workdir / "report.json").read_text(encoding="utf-8"))
    reported = report["cases"]
    errored = sum(1 for case in reported if case["error"] or case["errors"])
    scored = len(reported) - errored
    concurrency = int(report["config"]["concurrency"])
    # The floor comes from the calls the server actually answered, so it follows the
    # metrics' real request count instead of an assumed one.
    calls_per_case = server.calls / arguments.cases
    floor_s = server.calls * arguments.latency / concurrency
    print(f"cases in golden file   {arguments.cases}")
    print(f"cases scored           {scored}")
    print(f"cases errored          {errored}")
    print(f"cases missing          {arguments.cases - len(reported)}")
    print(f"judge calls            {server.calls} ({calls_per_case:.2f} per case)")
    print(f"peak in flight         {server.peak_in_flight}")
    print(
        f"wall time              {wall_s:.1f} s (floor {server.calls} x "
        f"{arguments.latency:g} s / {concurrency} = {floor_s:.1f} s)"
    )
    print(f"scoring time           {report['timing']['scoring_s']:.1f} s")
    print(f"pytest exit status     {completed.returncode}")
    return 0 if scored == arguments.cases else 1


if __name__ == "__main__":
    sys.exit(main())
