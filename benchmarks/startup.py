"""What every run pays before any judge: a plain re-run of 100 golden cases.

Writes N golden cases (those of ``offline_gate.py``) to a temporary directory, runs
``pytest --rag-gate --rag-gate-judge offline -p no:cacheprovider -q`` there once (which
also fills the judge cache and the byte-code caches), then times ``--runs`` more runs, each
in a subprocess, and prints the median wall time, the median CPU time (user + system, which
a busy machine disturbs less) and how many ``pytest_ragas_gate`` modules a run imported
(listed from ``sys.modules`` at the end of a run by a one-hook plugin)::

    python benchmarks/startup.py --cases 100 --runs 9

The offline judge is never cached and sends nothing, so what is timed is start-up,
collection, the offline scoring, the gate and the summary. Given several ``--python``
interpreters (each a virtualenv with one version of the plugin installed), it alternates
them run by run, so that a busy machine slows each alike, and prints each one's medians and
their ratio to the first's::

    python benchmarks/startup.py --python /venvs/new/bin/python --python /venvs/old/bin/python

Byte code is written and reused, as it is for a package installed from a wheel; with
``--compile-every-run`` an inherited ``PYTHONDONTWRITEBYTECODE`` is kept, so a run of a
source checkout without ``__pycache__`` compiles every module it imports.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from offline_gate import synthetic_case

GOLDEN_NAME = "golden_startup.jsonl"
MODULES_FILE = "rag_gate_modules.txt"
DUMP_PLUGIN = "rag_gate_module_dump"
# Writes the names of the plugin's modules the run imported, at its very end.
MODULE_DUMP = f"""
import sys


def pytest_unconfigure(config):
    names = sorted(name for name in sys.modules if name.startswith("pytest_ragas_gate"))
    with open({MODULES_FILE!r}, "w", encoding="utf-8") as out:
        out.write("\\n".join(names) + "\\n")
"""
GATE_ARGS = ["--rag-gate", "--rag-gate-judge", "offline", "-p", "no:cacheprovider", "-q"]
# No key, so the offline judge whatever the environment holds; no CI, so no step summary.
UNSET = {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GITHUB_STEP_SUMMARY", "GITHUB_BASE_REF"}


def write_golden(directory: Path, cases: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    lines = (json.dumps(synthetic_case(index), ensure_ascii=False) for index in range(cases))
    (directory / GOLDEN_NAME).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (directory / f"{DUMP_PLUGIN}.py").write_text(MODULE_DUMP, encoding="utf-8")


def run_environment(directory: Path, *, compile_every_run: bool) -> dict[str, str]:
    unset = UNSET if compile_every_run else UNSET | {"PYTHONDONTWRITEBYTECODE"}
    kept = {key: value for key, value in os.environ.items() if key not in unset}
    return {**kept, "PYTHONPATH": str(directory)}


def run_gate(python: str, directory: Path, env: dict[str, str], *extra: str) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, of pytest and whatever it started) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    completed = subprocess.run(
        [python, "-m", "pytest", *GATE_ARGS, *extra, GOLDEN_NAME],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if completed.returncode not in (0, 1):
        sys.exit(f"{python}: pytest exited {completed.returncode}:\n{completed.stdout[-3000:]}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def imported_modules(python: str, directory: Path, env: dict[str, str]) -> list[str]:
    run_gate(python, directory, env, "-p", DUMP_PLUGIN)
    return (directory / MODULES_FILE).read_text(encoding="utf-8").split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument(
        "--python",
        action="append",
        default=None,
        help="an interpreter to time (repeatable; default: this one)",
    )
    parser.add_argument("--modules", action="store_true", help="list the modules imported")
    parser.add_argument(
        "--compile-every-run",
        action="store_true",
        help="keep PYTHONDONTWRITEBYTECODE if it is set (every run compiles the source)",
    )
    args = parser.parse_args()
    pythons = args.python or [sys.executable]
    base = Path(tempfile.mkdtemp(prefix="rag-gate-startup-"))
    try:
        directories = [base / f"python{index}" for index in range(len(pythons))]
        environments = [
            run_environment(directory, compile_every_run=args.compile_every_run)
            for directory in directories
        ]
        modules: list[list[str]] = []
        for python, directory, env in zip(pythons, directories, environments, strict=True):
            write_golden(directory, args.cases)
            run_gate(python, directory, env)
            modules.append(imported_modules(python, directory, env))
        timed: list[list[tuple[float, float]]] = [[] for _ in pythons]
        for _ in range(args.runs):
            for index, python in enumerate(pythons):
                timed[index].append(run_gate(python, directories[index], environments[index]))
        first_wall = statistics.median(wall for wall, _ in timed[0])
        first_cpu = statistics.median(cpu for _, cpu in timed[0])
        print(f"{args.cases} cases, {args.runs} runs each, alternating")
        for python, runs, names in zip(pythons, timed, modules, strict=True):
            wall = statistics.median(value for value, _ in runs)
            cpu = statistics.median(value for _, value in runs)
            print(
                f"{python}: median wall {wall:.3f} s ({wall / first_wall:.2f}x), "
                f"CPU {cpu:.3f} s ({cpu / first_cpu:.2f}x), "
                f"{len(names)} pytest_ragas_gate modules; "
                f"wall {' '.join(f'{value:.2f}' for value, _ in runs)}"
            )
            if args.modules:
                print("  " + " ".join(names))
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
