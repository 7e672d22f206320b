"""How long a cancelled run takes to write its reports: from the signal to the last file.

Reproduce with (from the repository root)::

    .venv/bin/python benchmarks/cancellation.py --cases 60 --latency 1

The local fake LLM server (``tests/fakellm.py``) answers every call after ``--latency``
seconds, through the real Anthropic SDK. ``pytest --rag-gate`` scores the cases on the
four core metrics, writing the JSON, JUnit, Markdown and HTML reports; once the server has
answered ``--after`` calls it sends SIGINT (or SIGTERM) to the run's process group, as a
terminal's Ctrl-C or a cancelled CI job does, serially and under ``-n 2``. A cancelled
GitHub Actions job gets SIGTERM 7.5 s after the SIGINT: what is not written by then may be
lost.

Prints, per run: seconds from the signal to the last report written, to the process's
exit, the cases in the JSON report (scored + interrupted) and the exit status.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from fakellm import FakeCall, FakeLLM, default_reply  # noqa: E402
from judge_throughput import gate_command, judge_env, write_cases  # noqa: E402

REPORTS = ("report.json", "junit.xml", "report.md", "report.html")


def one_run(cases: int, latency: float, after: int, signum: int, xdist: bool) -> dict[str, Any]:
    """One signalled run's figures."""
    sent = threading.Event()
    sent_at: list[float] = []
    process: subprocess.Popen[bytes] | None = None

    def responder(call: FakeCall) -> dict[str, Any]:
        if call.number >= after and not sent.is_set() and process is not None:
            sent.set()
            sent_at.append(time.time())
            os.killpg(process.pid, signum)
        return default_reply(call)

    with (
        tempfile.TemporaryDirectory() as name,
        FakeLLM(latency_s=latency, responder=responder) as server,
    ):
        workdir = Path(name)
        write_cases(workdir, cases)
        (workdir / "rag_gate.yaml").write_text(
            json.dumps({"judge": {"concurrency": 4}}), encoding="utf-8"
        )
        command = gate_command(
            "anthropic",
            "report.json",
            "--rag-gate-output=junit=junit.xml",
            "--rag-gate-output=markdown=report.md",
            "--rag-gate-output=html=report.html",
            *(("-n", "2") if xdist else ("-p", "no:xdist")),
        )
        process = subprocess.Popen(
            command,
            cwd=workdir,
            env={**judge_env(server, "anthropic"), "CI": "1"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        process.wait(timeout=600)
        exited = time.time()
        written = [workdir / report for report in REPORTS if (workdir / report).exists()]
        report = json.loads((workdir / "report.json").read_text(encoding="utf-8"))
        last_written = max(path.stat().st_mtime for path in written)
    signalled = sent_at[0]
    interrupted = sum(1 for case in report["cases"] if case["incomplete"])
    return {
        "reports": len(written),
        "to_reports_s": last_written - signalled,
        "to_exit_s": exited - signalled,
        "cases": len(report["cases"]),
        "scored": len(report["cases"]) - interrupted,
        "interrupted": interrupted,
        "incomplete": report["incomplete"],
        "status": process.returncode,
    }


def main() -> int:
    """Run the signalled gate serially and under ``-n 2``; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=60, help="golden cases (default 60)")
    parser.add_argument(
        "--latency", type=float, default=1.0, help="seconds per judge call (default 1)"
    )
    parser.add_argument(
        "--after", type=int, default=30, help="judge calls before the signal (default 30)"
    )
    parser.add_argument("--signal", choices=("SIGINT", "SIGTERM"), default="SIGINT")
    parser.add_argument("--rounds", type=int, default=3, help="runs per mode (default 3)")
    arguments = parser.parse_args()
    signum = getattr(signal, arguments.signal)
    print(
        f"{arguments.cases} cases, judge latency {arguments.latency} s, {arguments.signal} "
        f"to the process group after {arguments.after} judge calls"
    )
    print("mode    signal→reports  signal→exit  reports  cases (scored+interrupted)  status")
    failed = False
    for label, xdist in (("serial", False), ("-n 2", True)):
        for _ in range(arguments.rounds):
            figures = one_run(arguments.cases, arguments.latency, arguments.after, signum, xdist)
            print(
                f"{label:<7} {figures['to_reports_s']:>13.2f}s {figures['to_exit_s']:>11.2f}s "
                f"{figures['reports']:>8} {figures['cases']:>6} "
                f"({figures['scored']}+{figures['interrupted']}){'':<14} {figures['status']}"
            )
            failed = failed or figures["cases"] != arguments.cases or not figures["incomplete"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
