"""Rebuild the docs-site corpora of ``synth_reading_docs_sites.jsonl`` from their repositories.

Reproduce with (from the repository root)::

    .venv/bin/python benchmarks/synth_docs_sites.py CLONES_FOLDER OUT_FOLDER [--half holdout]

``CLONES_FOLDER`` holds one git clone per repository, named ``owner+name`` (``encode+httpx``);
each corpus is written to ``OUT_FOLDER/<corpus>/`` from the commit and paths its ``corpus``
line names, then read with ``rag-gate synth OUT_FOLDER/<corpus> -o … --judge offline --n 30``.
The documents stay out of this repository; only their list is kept.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

SHEET = Path(__file__).with_name("synth_reading_docs_sites.jsonl")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clones", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--half", choices=("tune", "holdout"), default=None)
    args = parser.parse_args()
    for line in SHEET.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if "paths" not in row or (args.half and row["half"] != args.half):
            continue
        clone = args.clones / row["repo"].replace("/", "+")
        common = _common(row["paths"])
        for path in row["paths"]:
            text = subprocess.run(
                ["git", "-C", str(clone), "show", f"{row['commit']}:{path}"],
                check=True,
                capture_output=True,
            ).stdout
            relative = Path(path).relative_to(common) if common else Path(path)
            target = args.out / row["corpus"] / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text)
        print(f"{row['corpus']}: {len(row['paths'])} documents")


def _common(paths: list[str]) -> str:
    parts = [Path(path).parent.parts for path in paths]
    shared = []
    for group in zip(*parts, strict=False):
        if len(set(group)) != 1:
            break
        shared.append(group[0])
    return "/".join(shared)


if __name__ == "__main__":
    main()
