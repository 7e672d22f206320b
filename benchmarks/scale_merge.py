"""Wall time, peak memory and output sizes of merging a large sharded run.

Runs the gate once for real (offline judge, in a subprocess) over 40 realistic golden
cases of ``scale_gate.py`` (about 3 KB of contexts each) and one conversation, then
templates that report to N cases split over K shards (``tests/shard_reports.py``: distinct
ids, lines and conversations, fresh seeded scores with errors and n/a, each shard's
coverage ledger and the shared golden-set fingerprint as the gate writes them), and merges
the shards with ``rag-gate gate`` under GNU ``/usr/bin/time -v``::

    python benchmarks/scale_merge.py --cases 100000 --shards 20
    python benchmarks/scale_merge.py --cases 1000000 --shards 20 --keep

and prints the shards' size, the merge's wall time and peak resident memory, and the
sizes of the merged JSON report, JUnit file and Markdown summary (and of the HTML page
with ``--html``). The goals: 100,000 cases in under 500 MB, 1,000,000 in under 2 GB and
10 minutes.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from scale_gate import realistic_case  # noqa: E402
from shard_reports import TEMPLATE_ROWS, template_reports  # noqa: E402

GNU_TIME = Path("/usr/bin/time")
REAL_CASES = 40


def _real_run(directory: Path) -> Path:
    """One real gate run: its JSON report is the template of every shard."""
    rows = [realistic_case(index) for index in range(REAL_CASES)]
    rows.append(TEMPLATE_ROWS[-1])
    golden = directory / "golden_scale.jsonl"
    golden.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    report = directory / "real.json"
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--rag-gate",
        str(golden),
        "--rag-gate-judge",
        "offline",
        "--rag-gate-set",
        "cache.mode=off",
        "--rag-gate-output",
        f"json={report}",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-q",
    ]
    subprocess.run(command, cwd=directory, capture_output=True, check=False)
    if not report.is_file():
        raise SystemExit("the real run wrote no report")
    return report


def _measure(command: list[str], cwd: Path) -> tuple[float, int, str]:
    """Wall seconds, peak RSS in KB (GNU time) and the output of ``command``."""
    started = time.perf_counter()
    done = subprocess.run(
        [str(GNU_TIME), "-v", *command], cwd=cwd, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - started
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    return wall, int(peak.group(1)) if peak else 0, done.stdout + done.stderr


def _mb(path: Path) -> str:
    return f"{path.stat().st_size / 1e6:.1f} MB" if path.is_file() else "not written"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--shards", type=int, default=20)
    parser.add_argument("--html", action="store_true", help="write the HTML page too")
    parser.add_argument(
        "--keep", action="store_true", help="keep the files (their path is printed)"
    )
    arguments = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="scale_merge_"))
    try:
        real = _real_run(directory)
        started = time.perf_counter()
        made = template_reports(real, directory, cases=arguments.cases, shards=arguments.shards)
        made.whole.unlink()
        written = time.perf_counter() - started
        shard_bytes = sum(path.stat().st_size for path in made.shards)
        outputs = ["-o", "merged.json", "-o", "junit=merged.xml", "-o", "markdown=merged.md"]
        if arguments.html:
            outputs += ["-o", "html=merged.html"]
        command = [
            sys.executable,
            "-m",
            "pytest_ragas_gate.cli",
            "gate",
            *(path.name for path in made.shards),
            *outputs,
        ]
        wall, peak_kb, output = _measure(command, directory)
        status = next((line for line in output.splitlines() if "Exit status" in line), "")
        print(f"cases               {made.cases:,} in {arguments.shards} shards")
        print(f"shard reports       {shard_bytes / 1e6:.1f} MB (templated in {written:.0f} s)")
        print(f"merge wall time     {wall:.1f} s")
        print(f"merge peak RSS      {peak_kb / 1024:.0f} MB")
        print(f"merge {status.strip()}")
        for name in ("merged.json", "merged.xml", "merged.md", "merged.html"):
            if name != "merged.html" or arguments.html:
                print(f"{name:<19} {_mb(directory / name)}")
        summary = [line for line in output.splitlines() if "merged " in line or "cases:" in line]
        for line in summary[:3]:
            print(f"  {line.strip()}")
        if arguments.keep:
            print(f"files in {directory}")
    finally:
        if not arguments.keep:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
