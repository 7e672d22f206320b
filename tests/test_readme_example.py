"""The README's "Try it" output is what the example run prints, so it cannot go stale.

The example is run exactly as the README shows it, in a copy of ``examples/`` (its cache
and reports land there, not in the checkout); pytest's session lines (platform, rootdir,
plugins), which the README leaves out, and the run's duration are normalised away.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

#: pytest's own lines about the machine and the session, which the README leaves out.
_SESSION_LINES = re.compile(
    r"^(=+ test session starts =+|platform |rootdir: |configfile: |cachedir: |plugins: )"
)
_DURATION = re.compile(r"^=+ (.*?) in [\d.]+s(?: \([\d:]+\))? =+$")


def readme_block(command: str) -> list[str]:
    """The lines of the README's ```text block that starts with ``$ <command>``."""
    text = README.read_text(encoding="utf-8")
    match = re.search(rf"```text\n\$ {re.escape(command)}\n(.*?)```", text, re.S)
    assert match is not None, f"no README block for {command!r}"
    return match.group(1).splitlines()


def normalised(lines: list[str]) -> list[str]:
    kept = [line.rstrip() for line in lines if not _SESSION_LINES.match(line)]
    return [_DURATION.sub(r"== \1 ==", line) for line in kept]


def run_example(tmp_path: Path, *args: str) -> list[str]:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("RAG_GATE_", "ANTHROPIC_", "OPENAI_", "GITHUB_", "PYTEST_"))
        and key != "CI"
    }
    environment["COLUMNS"] = "80"
    completed = subprocess.run(
        # As in the fresh virtualenv the README starts from: no pytest-randomly reordering
        # the progress lines, should the test environment have it installed.
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "--rag-gate", "examples/", *args],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    return completed.stdout.splitlines()


def test_the_try_it_output_is_the_example_run(tmp_path: Path) -> None:
    printed = run_example(tmp_path)
    assert normalised(printed) == normalised(readme_block("pytest --rag-gate examples/"))


@pytest.mark.slow
def test_the_stricter_threshold_excerpt_is_the_example_run(tmp_path: Path) -> None:
    # The README shows an excerpt ("…" for the lines left out): each line it does show is
    # printed, in that order.
    command = "pytest --rag-gate examples/ --rag-gate-threshold answer_relevancy=0.8"
    printed = normalised(run_example(tmp_path, "--rag-gate-threshold", "answer_relevancy=0.8"))
    position = 0
    for line in normalised(readme_block(command)):
        if line == "…":
            continue
        assert line in printed[position:], line
        position = printed.index(line, position) + 1
