"""A long run against a slow judge: no global deadline, every case scored.

Reproduce with (from the repository root)::

    .venv/bin/python benchmarks/slow_judge.py --cases 600 --latency 3

The local fake LLM server (``tests/fakellm.py``) answers every call after ``--latency``
seconds, through the real Anthropic SDK. ``pytest --rag-gate`` scores the cases on the
four core metrics (5 calls per case) with default settings: 32 concurrent requests, a
60 s per-request timeout and no deadline for the run as a whole. The floor is
cases x 5 x latency / 32 (600 x 5 x 3 s / 32 = 281 s).

Prints the wall time, the cases scored and errored, and the peak number of requests the
server saw in flight at once.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from fakellm import FakeLLM  # noqa: E402
from judge_throughput import CORE_METRICS, KEY, write_cases  # noqa: E402


def main() -> None:
    """Run the gate once against the slow judge and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=600)
    parser.add_argument("--latency", type=float, default=3.0)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as name, FakeLLM(latency_s=arguments.latency) as server:
        workdir = Path(name)
        write_cases(workdir, arguments.cases)
        env = {
            **os.environ,
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": server.url,
            "CI": "1",
        }
        started = time.monotonic()
        completed = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "--rag-gate",
                "--rag-gate-judge=anthropic",
                "--rag-gate-cache=off",
                f"--rag-gate-metrics={CORE_METRICS}",
                "--rag-gate-report=report.json",
                "golden.jsonl",
            ],
            cwd=workdir,
            env=env,
            capture_output=True,
            check=False,
        )
        wall_s = time.monotonic() - started
        report = json.loads((workdir / "report.json").read_text(encoding="utf-8"))
    cases = report["cases"]
    errored = sum(1 for case in cases if case["error"] or case["errors"])
    floor_s = arguments.cases * 5 * arguments.latency / 32
    print(f"cases in golden file   {arguments.cases}")
    print(f"cases scored           {len(cases) - errored}")
    print(f"cases errored          {errored}")
    print(f"judge calls            {server.calls}")
    print(f"peak in flight         {server.peak_in_flight}")
    print(f"wall time              {wall_s:.1f} s (floor {floor_s:.0f} s)")
    print(f"scoring time           {report['timing']['scoring_s']:.1f} s")
    print(f"pytest exit status     {completed.returncode}")


if __name__ == "__main__":
    main()
