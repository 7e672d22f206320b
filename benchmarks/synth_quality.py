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

**Yield in --n.** ``--n 15,30,60,120`` runs each size and prints the cases written per
size and whether the count never falls as ``--n`` rises.

**Reading protocol.** Numbers about questions are no substitute for reading them.
``--sheet FILE`` writes one line per case of the first ``--n``: its kind, question,
reference and the source chunk text, with an empty ``verdict`` and ``reason``. A reader
reads each case against its source and fills in

- ``GOOD`` — kept as is: the question stands alone, parses, asks what a user of these
  documents would ask, and the reference answers it exactly from the source (for
  ``unanswerable``: the documents really do not say it, and it is a near miss on them);
- ``USABLE`` — kept after a small edit (a word of the question, a reference trimmed or
  extended) that a reviewer makes in under a minute;
- ``BAD`` — rejected: garbled, vague, dangling, wrong kind, or the reference does not
  answer it; ``reason`` says which.

``--labels FILE`` reads the filled sheet back (cases matched by kind and question) and reports,
per kind and in total, the GOOD / USABLE / BAD shares against the goal (at least 50%
GOOD, at most 15% BAD) and the BAD reasons; a case with no verdict is listed as unread.
The sheet of the Debian corpus read for the README figures is
``benchmarks/synth_reading_debian.jsonl`` (which documents: see its first line); the
holdout sheets, of Debian documentation the writer was never tuned on and read before and
after a change, are in ``benchmarks/synth_reading_holdout.jsonl`` (corpora and package
versions on its ``corpus`` lines, each row's ``corpus`` and ``round``).
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


def generate(
    folder: str, n: int, kinds: str | None = None
) -> tuple[int, str, list[dict[str, Any]], list[dict[str, Any]]]:
    """Run ``rag-gate synth --judge offline`` on ``folder``: status, printed text, rows, chunks."""
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
                    *(["--kinds", kinds] if kinds else []),
                ]
            )
        rows = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
        chunks = [json.loads(line) for line in chunks_out.read_text().splitlines()]
    return status, printed.getvalue(), rows, chunks


def write_sheet(path: Path, rows: list[dict[str, Any]], chunks: list[dict[str, Any]]) -> None:
    """The reading sheet: each case beside its source, verdict and reason to fill in."""
    texts = {chunk["id"]: chunk["text"] for chunk in chunks}
    with path.open("w", encoding="utf-8") as sheet:
        for row in rows:
            follow_ups = [
                turn["content"] for turn in row.get("turns", [])[2:] if turn["role"] == "user"
            ]
            line = {
                "kind": row["tags"][1],
                "question": question_of(row),
                "follow_ups": follow_ups,
                "reference": row.get("reference", ""),
                "source": [texts[i] for i in row["relevant_context_ids"]],
                "verdict": "",
                "reason": "",
            }
            sheet.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(f"reading sheet: {len(rows)} cases written to {path}")


VERDICTS = ("GOOD", "USABLE", "BAD")


def question_of(row: dict[str, Any]) -> str:
    """A case's question; a conversation's first user turn."""
    if row.get("question"):
        return str(row["question"])
    return str(next(turn["content"] for turn in row["turns"] if turn["role"] == "user"))


def report_labels(path: Path, rows: list[dict[str, Any]]) -> None:
    """GOOD / USABLE / BAD per kind for the cases of this run, from a filled reading sheet."""
    # Matched by kind and question: a near miss may ask what a single case answers.
    labels: dict[tuple[str, str], dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if "question" in entry:
            labels[(entry.get("kind", ""), entry["question"])] = entry
            labels.setdefault(("", entry["question"]), entry)
    tally: dict[str, Counter[str]] = {}
    bad: Counter[str] = Counter()
    unread = []
    for row in rows:
        kind = row["tags"][1]
        question = question_of(row)
        label = labels.get((kind, question)) or labels.get(("", question), {})
        verdict = str(label.get("verdict", "")).upper()
        if verdict not in VERDICTS:
            unread.append(question)
            continue
        tally.setdefault(kind, Counter())[verdict] += 1
        tally.setdefault("all", Counter())[verdict] += 1
        if verdict == "BAD":
            bad[str(label.get("reason", "")).split(":")[0]] += 1
    print(f"\nreading ({path}):")
    for kind in [*sorted(k for k in tally if k != "all"), "all"]:
        if kind not in tally:
            continue
        counts = tally[kind]
        total = sum(counts.values())
        good, usable, rejected = (counts[v] / total for v in VERDICTS)
        met = "meets" if good >= 0.5 and rejected <= 0.15 else "misses"
        print(
            f"  {kind:<13} {total:>3} read: GOOD {counts['GOOD']} ({good:.0%}), USABLE "
            f"{counts['USABLE']} ({usable:.0%}), BAD {counts['BAD']} ({rejected:.0%}) — {met} "
            "the goal (GOOD >= 50%, BAD <= 15%)"
        )
    if bad:
        print(
            "  BAD because: "
            + ", ".join(f"{reason} {count}" for reason, count in bad.most_common())
        )
    if unread:
        print(f"  {len(unread)} case(s) have no verdict yet: " + "; ".join(unread[:5]))


def measure(folder: str, n: int, show: int) -> None:
    status, printed, rows, chunks = generate(folder, n)
    print(f"\n=== {folder}: exit {status}, {len(rows)} cases of {n}, {len(chunks)} chunks")
    print("\n".join("  | " + line for line in printed.splitlines()))
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
    if show <= 0:
        return
    step = max(1, len(rows) // show)
    for row in rows[::step][:show]:
        print(f"  [{row['tags'][1]}] {row['question']}")
        print(f"      -> {row['reference'][:160]}")


def yield_series(folder: str, sizes: list[int]) -> None:
    """Cases written per --n, and whether the count never falls as --n rises."""
    counts = []
    for n in sizes:
        _, printed, rows, _ = generate(folder, n)
        counts.append(len(rows))
        offered = re.search(r"the documents offer .*", printed)
        print(f"  --n {n:>4}: {len(rows):>4} cases" + (f"  ({offered.group()})" if offered else ""))
    monotone = all(a <= b for a, b in zip(counts, counts[1:], strict=False))
    print(f"  yield monotone in --n: {'yes' if monotone else 'NO'}")


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--n", default="40", help="cases to ask for; a comma list for a series")
    parser.add_argument("--show", type=int, default=20)
    parser.add_argument("--sheet", type=Path, help="write a reading sheet of the first --n run")
    parser.add_argument("--labels", type=Path, help="a filled reading sheet to report on")
    parser.add_argument("--kinds", default=None, help="passed to rag-gate synth for the sheet")
    options = parser.parse_args()
    sizes = [int(part) for part in str(options.n).split(",") if part.strip()]
    for folder in options.folders:
        measure(folder, sizes[0], options.show)
        if len(sizes) > 1:
            yield_series(folder, sizes)
        if options.sheet or options.labels:
            _, printed, rows, chunks = generate(folder, sizes[0], options.kinds)
            print("\n".join(line for line in printed.splitlines() if "short:" in line))
            if options.sheet:
                write_sheet(options.sheet, rows, chunks)
            if options.labels:
                report_labels(options.labels, rows)


if __name__ == "__main__":
    sys.exit(run())
