"""Agreement of the offline judge's faithfulness score with human hallucination labels.

Reproduce with (from the repository root; the data is not shipped with the package)::

    .venv/bin/python benchmarks/offline_agreement.py --baseline --data ../shared/data/dev

Faithfulness is scored exactly as the metric does: ExtractClaims on the answer, VerifyClaims
of those claims against the contexts, score = supported / total. AUROC of (1 - score) for
label 1 (hallucinated), ties counted half. A row with no claims is not applicable; it is
counted in the ``n/a`` column and scored 1.0 (nothing unsupported was claimed). The baseline
is a plain lexical-coverage heuristic: sentence split, a sentence supported at >= 0.5
content-word coverage with its numbers present.

==========================  =====  ===========  ==========  ===========
file / task_type             rows  baseline     offline     offline n/a
==========================  =====  ===========  ==========  ===========
factcheck_gpt_stance         1648  0.653        0.670       10
faithdial_begin_audit        2191  0.823        0.836       20
  cmu_dog                     713  0.816        0.853
  topicalchat                 734  0.834        0.832
  wow                         744  0.788        0.806
halluqa_zh                    900  0.748        0.785       9
halueval_qa                  1000  0.675        0.738       1
wice_claims                   707  0.708        0.726       0
==========================  =====  ===========  ==========  ===========

A refusal ("I don't know", "无法回答") has no claims, on every judge, so a row whose answer
only declines is n/a.

The offline judge takes about 1.3 ms per case (6,446 cases in about 9 s on one core). Extra
labelled sets in the same format are added with ``--extra PATH`` (a file or a folder); the
small labelled fixtures in ``tests/data/offline_fixtures/`` are scored after the table (share
of rows judged as labelled; a fixture of single claims is scored by its three-way verdicts).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from pytest_ragas_gate.judges.offline.judge import OfflineJudge  # noqa: E402
from pytest_ragas_gate.judges.requests import ExtractClaims, VerifyClaims  # noqa: E402

DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data" / "dev"
NOT_APPLICABLE_SCORE = 1.0
"""Score given to a row with no claims: nothing was claimed, so nothing is unsupported."""

Scorer = Callable[[str, str, list[str]], "float | None"]


@dataclass(frozen=True)
class Row:
    """One labelled case; ``source`` is deliberately not read (it can reveal the label)."""

    question: str
    contexts: list[str]
    answer: str
    label: int
    task_type: str


def load_rows(path: Path) -> list[Row]:
    rows = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            data = json.loads(line)
            rows.append(
                Row(
                    question=data["question"],
                    contexts=list(data["contexts"]),
                    answer=data["answer"],
                    label=int(data["label"]),
                    task_type=data["task_type"],
                )
            )
    return rows


def auroc(hallucination_scores: Sequence[float], labels: Sequence[int]) -> float:
    """AUROC of ``hallucination_scores`` for label 1, by the rank-sum formula (ties: half)."""
    order = sorted(range(len(labels)), key=lambda index: hallucination_scores[index])
    ranks = [0.0] * len(labels)
    start = 0
    while start < len(order):
        end = start
        value = hallucination_scores[order[start]]
        while end + 1 < len(order) and hallucination_scores[order[end + 1]] == value:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2 + 1
        start = end + 1
    positives = sum(1 for label in labels if label == 1)
    negatives = len(labels) - positives
    if not positives or not negatives:
        return float("nan")
    positive_rank_sum = sum(rank for rank, label in zip(ranks, labels, strict=True) if label == 1)
    return (positive_rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


# --- the offline judge, exactly as the faithfulness metric uses it ---------------------------


def offline_scorer() -> Scorer:
    judge = OfflineJudge()
    loop = asyncio.new_event_loop()

    async def faithfulness(question: str, answer: str, contexts: list[str]) -> float | None:
        claims = (await judge.ask(ExtractClaims(question=question, answer=answer))).reply.claims
        if not claims:
            return None
        verify = VerifyClaims(claims=claims, contexts=contexts)
        verdicts = (await judge.ask(verify)).reply.verdicts
        return sum(verdict.supported for verdict in verdicts) / len(verdicts)

    def score(question: str, answer: str, contexts: list[str]) -> float | None:
        # One loop for the whole run: starting a loop per row would dominate the timing.
        return loop.run_until_complete(faithfulness(question, answer, contexts))

    return score


# --- the baseline: a plain lexical-coverage heuristic, for comparison -------------------------

_BASELINE_STOPWORDS = frozenset(
    """a an the is are was were be been being of in on at to for from by with and or but not
    no it its this that these those as he she they we you i his her their our your my me him
    them us do does did has have had will would can could should may might there here what
    which who whom whose when where why how than then so if about into over also just very
    """.split()
)


def _baseline_tokens(text: str) -> set[str]:
    lowered = text.lower()
    tokens = {
        word for word in re.findall(r"[a-z][a-z']*|\d+", lowered) if word not in _BASELINE_STOPWORDS
    }
    for run in re.findall(r"[\u4e00-\u9fff]+", lowered):
        tokens.update([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
    return tokens


def baseline_score(question: str, answer: str, contexts: list[str]) -> float | None:
    """Sentence split; a sentence is supported at >= 0.5 word coverage with its numbers."""
    context = " ".join(contexts)
    context_tokens = _baseline_tokens(context)
    context_numbers = set(re.findall(r"\d+(?:\.\d+)?", context))
    supported = total = 0
    for sentence in re.split(r"(?<=[.!?。！？；])\s*|\n+", answer):
        tokens = _baseline_tokens(sentence)
        if not tokens:
            continue
        total += 1
        coverage = len(tokens & context_tokens) / len(tokens)
        if coverage >= 0.5 and set(re.findall(r"\d+(?:\.\d+)?", sentence)) <= context_numbers:
            supported += 1
    return supported / total if total else None


# --- running and reporting ---------------------------------------------------------------------


@dataclass
class Figures:
    rows: int
    not_applicable: int
    auroc: float
    by_task: dict[str, tuple[int, float]]
    seconds: float


def evaluate(rows: list[Row], scorer: Scorer) -> Figures:
    started = time.perf_counter()
    hallucination: list[float] = []
    not_applicable = 0
    for row in rows:
        score = scorer(row.question, row.answer, row.contexts)
        if score is None:
            not_applicable += 1
            score = NOT_APPLICABLE_SCORE
        hallucination.append(1.0 - score)
    seconds = time.perf_counter() - started
    labels = [row.label for row in rows]
    groups: dict[str, list[int]] = defaultdict(list)
    for index, row in enumerate(rows):
        groups[row.task_type].append(index)
    by_task = {
        task: (
            len(indices),
            auroc([hallucination[i] for i in indices], [labels[i] for i in indices]),
        )
        for task, indices in sorted(groups.items())
    }
    return Figures(len(rows), not_applicable, auroc(hallucination, labels), by_task, seconds)


# --- the labelled fixtures: one small file per known failure class ----------------------------

DEFAULT_FIXTURES = REPO_ROOT / "tests" / "data" / "offline_fixtures"


def fixture_accuracy(path: Path, scorer: Scorer) -> tuple[int, int]:
    """Rows judged as labelled: hallucinated when the faithfulness score is below 1.0."""
    right = total = 0
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            data = json.loads(line)
            score = scorer(data["question"], data["answer"], list(data["contexts"]))
            hallucinated = score is not None and score < 1.0
            right += hallucinated == bool(data["label"])
            total += 1
    return right, total


def verdict_accuracy(path: Path) -> tuple[int, int]:
    """Claims given the three-way verdict the fixture expects (offline judge only)."""
    judge = OfflineJudge()
    right = total = 0
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            data = json.loads(line)
            request = VerifyClaims(claims=[data["claim"]], contexts=list(data["contexts"]))
            verdict = asyncio.run(judge.ask(request)).reply.verdicts[0].verdict
            right += verdict == data["verdict"]
            total += 1
    return right, total


def print_fixtures(folder: Path, scorers: dict[str, Scorer]) -> None:
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        return
    names = list(scorers)
    print()
    print(f"Fixtures in {folder} (share of rows judged as labelled):")
    for path in files:
        first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        if "verdict" in first:
            right, total = verdict_accuracy(path)
            print(f"  {path.stem:<32} {total:>6}   three-way verdict, offline: {right}/{total}")
            continue
        cells = []
        for name in names:
            right, total = fixture_accuracy(path, scorers[name])
            cells.append(f"{name}: {right}/{total}")
        print(f"  {path.stem:<32} {total:>6}   " + ", ".join(cells))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        help=f"folder of labelled *.jsonl files (default: {DEFAULT_DATA})",
    )
    parser.add_argument(
        "--extra",
        type=Path,
        action="append",
        default=[],
        metavar="PATH",
        help="another labelled *.jsonl file or folder, in the same format (repeatable; "
        "default: none)",
    )
    parser.add_argument(
        "--fixtures",
        type=Path,
        default=DEFAULT_FIXTURES,
        help=f"folder of the small labelled fixtures (default: {DEFAULT_FIXTURES})",
    )
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="also score the lexical-coverage baseline, side by side (default: off)",
    )
    args = parser.parse_args(argv)
    files = sorted(args.data.glob("*.jsonl")) if args.data.is_dir() else []
    for extra in args.extra:
        files.extend(sorted(extra.glob("*.jsonl")) if extra.is_dir() else [extra])
    if not files:
        print(f"No labelled data found in {args.data}; nothing to measure (pass --data DIR).")
        return 0

    scorers: dict[str, Scorer] = {"offline": offline_scorer()}
    if args.baseline:
        scorers = {"baseline": baseline_score, **scorers}
    names = list(scorers)
    header = f"{'file / task_type':<34} {'rows':>6} " + " ".join(
        f"{name + ' AUROC':>15} {'n/a':>5} {'sec':>6}" for name in names
    )
    print(f"Score of a row with no claims (not applicable): {NOT_APPLICABLE_SCORE}")
    print(header)
    print("-" * len(header))
    offline_seconds = 0.0
    offline_rows = 0
    for path in files:
        rows = load_rows(path)
        results = {name: evaluate(rows, scorer) for name, scorer in scorers.items()}
        offline_seconds += results["offline"].seconds
        offline_rows += len(rows)
        cells = " ".join(
            f"{results[name].auroc:>15.3f} {results[name].not_applicable:>5} "
            f"{results[name].seconds:>6.2f}"
            for name in names
        )
        print(f"{path.stem:<34} {len(rows):>6} {cells}")
        for task in results[names[0]].by_task:
            count = results[names[0]].by_task[task][0]
            task_cells = " ".join(
                f"{results[name].by_task[task][1]:>15.3f} {'':>5} {'':>6}" for name in names
            )
            print(f"  {task:<32} {count:>6} {task_cells}")
    print()
    print(
        f"Offline judge: {offline_seconds / offline_rows * 1000:.2f} ms per case "
        f"({offline_rows:,} cases in {offline_seconds:.1f} s, one core)."
    )
    print_fixtures(args.fixtures, scorers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
