"""How natural, how hard to retrieve and how well spread the keyless ``rag-gate synth`` set is.

Reproduce with (from the repository root), one folder per corpus::

    .venv/bin/python benchmarks/synth_quality.py --n 40 DOCS_FOLDER [DOCS_FOLDER ...]

Each folder is run through ``rag-gate synth --judge offline`` in-process, and per corpus
the script prints:

- **copies**: share of questions sharing 8 or more consecutive words with their chunk (for
  Chinese, 16 characters), the fill-in-the-blank symptom (goal at most 5%);
- **BM25 MRR**: the mean reciprocal rank of the right chunk when the question is searched
  with BM25 (k1 1.2, b 0.75; Chinese as character bigrams) over all chunks — a
  synthesized set that quotes its chunks is trivially retrievable (MRR near 1), one that
  paraphrases is not;
- the **kind mix**, the share of chunks **covered by position decile** of their document,
  **duplicates by source fact** (two cases whose reference sentence or answer value and
  subject coincide) and **20 sample questions** to read.

The corpora are documentation nobody here wrote; they are not part of the repository.
Measured on a Debian machine (see the README section "Building a golden set from your
documents" for the figures).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from pytest_ragas_gate.cli import main
from pytest_ragas_gate.synth.offline import copied_run

CJK = re.compile(r"[\u4e00-\u9fff]")


def terms(text: str) -> list[str]:
    """BM25 terms: lowercased words; CJK runs as character bigrams."""
    found: list[str] = []
    for part in re.findall(r"[\u4e00-\u9fff]+|[A-Za-z0-9_]+", text):
        if CJK.match(part):
            found += [part[i : i + 2] for i in range(max(1, len(part) - 1))]
        else:
            found.append(part.lower())
    return found


class BM25:
    """Okapi BM25 over a list of texts."""

    def __init__(self, texts: list[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.docs = [Counter(terms(text)) for text in texts]
        self.lengths = [sum(doc.values()) for doc in self.docs]
        self.average = sum(self.lengths) / max(1, len(self.lengths))
        frequency: Counter[str] = Counter()
        for doc in self.docs:
            frequency.update(doc.keys())
        total = len(self.docs)
        self.idf = {
            term: math.log(1 + (total - count + 0.5) / (count + 0.5))
            for term, count in frequency.items()
        }
        self.k1, self.b = k1, b

    def rank(self, query: str) -> list[int]:
        """Document indices, best first."""
        asked = terms(query)
        scores = []
        for index, doc in enumerate(self.docs):
            score = 0.0
            norm = self.k1 * (1 - self.b + self.b * self.lengths[index] / self.average)
            for term in asked:
                count = doc.get(term, 0)
                if count:
                    score += self.idf[term] * count * (self.k1 + 1) / (count + norm)
            scores.append((score, -index))
        return [-index for _, index in sorted(scores, reverse=True)]


def fact_key(row: dict[str, Any]) -> str:
    """What a case asks about: its reference sentence(s), normalised."""
    return " ".join(re.findall(r"\w+", str(row["reference"]).lower()))


def measure(folder: str, n: int, show: int) -> None:
    with tempfile.TemporaryDirectory() as work:
        out, chunks_out = Path(work) / "golden.jsonl", Path(work) / "chunks.jsonl"
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            status = main(
                [
                    "synth",
                    folder,
                    "-o",
                    str(out),
                    "--n",
                    str(n),
                    "--judge",
                    "offline",
                    "--chunks-out",
                    str(chunks_out),
                    "--cache",
                    "off",
                ]
            )
        rows = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
        chunks = [json.loads(line) for line in chunks_out.read_text().splitlines()]
    print(f"\n=== {folder}: exit {status}, {len(rows)} cases of {n}, {len(chunks)} chunks")
    print("\n".join("  | " + line for line in printed.getvalue().splitlines()))
    if not rows:
        return
    texts = {chunk["id"]: chunk["text"] for chunk in chunks}
    copies = sum(
        1
        for row in rows
        if copied_run(row["question"], [texts[i] for i in row["relevant_context_ids"]]) >= 8
    )
    index = BM25([chunk["text"] for chunk in chunks])
    order = [chunk["id"] for chunk in chunks]
    reciprocal = []
    for row in rows:
        relevant = set(row["relevant_context_ids"])
        if not relevant:
            continue
        ranked = index.rank(row["question"])
        rank = next((r for r, i in enumerate(ranked, 1) if order[i] in relevant), None)
        reciprocal.append(1 / rank if rank else 0.0)
    kinds = Counter(row["tags"][1] for row in rows)
    by_document: dict[str, int] = Counter(chunk["document"] for chunk in chunks)
    positions = {chunk["id"]: int(chunk["id"].rsplit("#", 1)[1].split("-")[0]) for chunk in chunks}
    deciles_all: Counter[int] = Counter()
    deciles_hit: Counter[int] = Counter()
    used = {i for row in rows for i in row["relevant_context_ids"]}
    for chunk in chunks:
        total = by_document[chunk["document"]]
        decile = min(9, positions[chunk["id"]] * 10 // max(1, total))
        deciles_all[decile] += 1
        deciles_hit[decile] += chunk["id"] in used
    facts = Counter(fact_key(row) for row in rows if row["tags"][1] != "unanswerable")
    duplicates = sum(count - 1 for count in facts.values() if count > 1)
    print(f"copies >= 8 words: {copies}/{len(rows)} = {copies / len(rows):.0%} (goal <= 5%)")
    if reciprocal:
        print(f"BM25 MRR of the right chunk: {sum(reciprocal) / len(reciprocal):.2f}")
    print("kinds: " + ", ".join(f"{kind} {kinds[kind]}" for kind in sorted(kinds)))
    print(
        "chunks covered by position decile: "
        + " ".join(
            f"{decile}:{deciles_hit[decile]}/{deciles_all[decile]}"
            for decile in range(10)
            if deciles_all[decile]
        )
    )
    print(f"duplicates by source fact: {duplicates}")
    step = max(1, len(rows) // show)
    for row in rows[::step][:show]:
        print(f"  [{row['tags'][1]}] {row['question']}")
        print(f"      -> {row['reference'][:160]}")


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--show", type=int, default=20)
    options = parser.parse_args()
    for folder in options.folders:
        measure(folder, options.n, options.show)


if __name__ == "__main__":
    sys.exit(run())
