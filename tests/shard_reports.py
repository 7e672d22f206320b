"""Large shard reports made from one real run: the merge's equality tests and benchmark.

A real gate run over a small golden set (answers, contexts, references, tags, a
conversation, a case with no reference for n/a) gives the case records and the report's
top level, exactly as the gate writes them. :func:`template_reports` repeats that block of
cases to N cases with distinct ids, lines and conversation ids, draws fresh scores (a
seeded share of them errored or n/a), splits them with the plugin's own shard function and
writes, per shard, a report whose run facts are a shard's: its coverage ledger names the
other shards' cases, and every shard records the same golden-set fingerprint. It also
writes the whole run's report, to gate in memory beside the merge.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_ragas_gate.gate.coverage import SHARD_REASON_PREFIX, GoldenFileFingerprint
from pytest_ragas_gate.golden.sharding import shard_of

__all__ = ["TEMPLATE_ROWS", "Templated", "template_reports"]

_PLAN = "The Zorblax Pro plan stores 2 TB per user."
_PRICE = "Zorblax Pro costs 12 euros per user and month."

#: The golden set of the real run the reports are made from.
TEMPLATE_ROWS: list[dict[str, Any]] = [
    {
        "id": "founders",
        "question": "Who founded Apple and when?",
        "answer": "Apple was founded in 1976 by Steve Jobs and Steve Wozniak.",
        "contexts": [
            "Apple was founded in 1976 by Steve Jobs and Steve Wozniak in Cupertino.",
            "The company went public in 1980.",
        ],
        "reference": "Steve Jobs and Steve Wozniak founded Apple in 1976.",
        "tags": ["history"],
    },
    {
        "id": "storage",
        "question": "How much storage does Zorblax Pro give?",
        "answer": "Zorblax Pro stores 5 TB per user.",
        "contexts": [_PLAN, _PRICE],
        "reference": "2 TB per user.",
        "tags": ["billing"],
    },
    {
        "id": "price",
        "question": "What does Zorblax Pro cost?",
        "answer": "It costs 12 euros per user and month.",
        "contexts": [_PRICE],
        "tags": ["billing", "pricing"],
    },
    {
        "id": "plan-chat",
        "tags": ["billing"],
        "turns": [
            {"role": "user", "content": "Which storage plan does Zorblax offer?"},
            {"role": "assistant", "content": _PLAN, "contexts": [_PLAN]},
            {"role": "user", "content": "How much does it cost?"},
            {"role": "assistant", "content": _PRICE, "contexts": [_PRICE], "reference": _PRICE},
        ],
    },
]


#: The scores a judge's metric takes: shares of a few claims or statements (the gate's
#: counted resampling is for such scores), mostly high.
_FRACTIONS = (0.0, 0.2, 0.25, 1 / 3, 0.4, 0.5, 0.6, 2 / 3, 0.75, 0.8, 1.0)
_WEIGHTS = (2, 1, 1, 2, 1, 3, 2, 5, 6, 8, 20)


@dataclass(frozen=True)
class Templated:
    """What :func:`template_reports` wrote: the shard reports, the whole run's, the cases."""

    shards: list[Path]
    whole: Path
    cases: int


def _records(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [dict(case) for case in report["cases"]]


def _line(source: str) -> tuple[str, int]:
    file, _, line = source.rpartition(":")
    return file, int(line)


def _scores(
    record: dict[str, Any], rng: random.Random, *, shift: float, errors: float, na: float
) -> None:
    """Fresh scores for ``record``'s metrics: some errored, some n/a, the rest drawn."""
    scores: dict[str, Any] = {}
    failed: dict[str, str] = dict(record.get("errors") or {})
    for metric, score in (record.get("scores") or {}).items():
        draw = rng.random()
        if draw < errors:
            failed[metric] = "JudgeError: the judge's reply did not validate"
        elif draw < errors + na or score is None:
            scores[metric] = None
        else:
            drawn = rng.choices(_FRACTIONS, weights=_WEIGHTS)[0]
            scores[metric] = round(min(1.0, max(0.0, drawn + shift)), 6)
    record["scores"] = scores
    record["errors"] = failed


def _blocks(template: Sequence[dict[str, Any]], count: int) -> Iterator[dict[str, Any]]:
    """``count`` cases, the template's block repeated with each copy's ids made distinct."""
    lines = max(_line(record["source"])[1] for record in template)
    copy_index = 0
    made = 0
    while made < count:
        for record in template:
            if made == count:
                return
            case = copy.deepcopy(record)
            file, line = _line(case["source"])
            suffix = f"-{copy_index:07d}"
            if case.get("conversation"):
                case["conversation"] = case["conversation"] + suffix
                case["id"] = f"{case['conversation']}#{case['turn']}"
            else:
                case["id"] = case["id"] + suffix
            case["source"] = f"{file}:{line + copy_index * lines}"
            made += 1
            yield case
        copy_index += 1


def _write(path: Path, head: Mapping[str, Any], cases: Sequence[dict[str, Any]]) -> None:
    """A report as the gate writes it: the top level, then one case per line."""
    top = json.dumps({key: value for key, value in head.items() if key != "cases"})
    with path.open("w", encoding="utf-8") as handle:
        handle.write(top[:-1] + ', "cases": [')
        for index, case in enumerate(cases):
            handle.write("\n" + json.dumps(case) + ("," if index < len(cases) - 1 else ""))
        handle.write("\n]}\n")


def _fingerprint(cases: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    by_file: dict[str, dict[str, str]] = {}
    for case in cases:
        file, _ = _line(case["source"])
        contents = json.dumps([case.get("question"), case.get("answer"), case.get("contexts")])
        digest = hashlib.sha256(contents.encode("utf-8")).hexdigest()[:16]
        by_file.setdefault(file, {})[case["id"]] = digest
    return {
        file: GoldenFileFingerprint.of(list(ids), ids).model_dump(mode="json")
        for file, ids in by_file.items()
    }


def template_reports(
    real: Path,
    directory: Path,
    *,
    cases: int,
    shards: int,
    seed: int = 7,
    shift: float = 0.0,
    errors: float = 0.005,
    na: float = 0.03,
    name: str = "shard",
) -> Templated:
    """Write ``shards`` shard reports of ``cases`` cases templated from the ``real`` report.

    Args:
        real: A report of a real run (of :data:`TEMPLATE_ROWS`, or any golden set).
        directory: Where the reports go (``{name}-K.json`` and ``{name}-whole.json``).
        cases: How many cases in all.
        shards: How many shards to split them into.
        seed: The seed of the scores drawn.
        shift: Added to every score drawn (a baseline a little better or worse).
        errors: The share of metric scores that are errors instead.
        na: The share of metric scores that are n/a.
        name: The reports' file name stem.
    """
    report = json.loads(real.read_text(encoding="utf-8"))
    rng = random.Random(seed)
    made = list(_blocks(_records(report), cases))
    for case in made:
        _scores(case, rng, shift=shift, errors=errors, na=na)
    made.sort(key=lambda case: (case["source"], case["id"]))
    fingerprint = _fingerprint(made)
    ids_by_file: dict[str, int] = {}
    for case in made:
        file, _ = _line(case["source"])
        ids_by_file[file] = ids_by_file.get(file, 0) + 1
    head = {key: value for key, value in report.items() if key != "cases"}
    head["run"] = dict(head["run"])
    head["run"]["golden_files"] = ids_by_file
    head["shard"] = None

    def shard_key(case: dict[str, Any]) -> int:
        file, _ = _line(case["source"])
        return shard_of(file, case.get("conversation") or case["id"], shards)

    owner = [shard_key(case) for case in made]
    whole = directory / f"{name}-whole.json"
    whole_head = copy.deepcopy(head)
    whole_head["run"]["coverage"] = {
        "total_cases": len(made),
        "gated_cases": len(made),
        "not_gated": [],
        "excluded": [],
        "golden_set": fingerprint,
    }
    _write(whole, whole_head, made)
    paths = []
    for index in range(1, shards + 1):
        mine = [case for case, shard in zip(made, owner, strict=True) if shard == index]
        others: dict[tuple[str, str], list[str]] = {}
        for case, shard in zip(made, owner, strict=True):
            if shard != index:
                file, _ = _line(case["source"])
                reason = f"{SHARD_REASON_PREFIX}{index}/{shards}"
                others.setdefault((file, reason), []).append(case["id"])
        shard_head = copy.deepcopy(head)
        shard_head["shard"] = {"index": index, "count": shards}
        shard_head["run"]["shard"] = f"{index}/{shards}"
        shard_head["run"]["coverage"] = {
            "total_cases": len(made),
            "gated_cases": len(mine),
            "not_gated": [
                {"file": file, "reason": reason, "cases": len(ids), "ids": ids}
                for (file, reason), ids in others.items()
            ],
            "excluded": [],
            "golden_set": fingerprint,
        }
        path = directory / f"{name}-{index}.json"
        _write(path, shard_head, mine)
        paths.append(path)
    return Templated(shards=paths, whole=whole, cases=len(made))
