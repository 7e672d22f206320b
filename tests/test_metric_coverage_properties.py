"""Property: no run with a gated metric below ``min_coverage`` says PASSED.

Golden sets are generated with random missing, empty and misspelt fields, refusals and
metric selections, read by the real loader, scored by the offline judge and gated; the
gate's coverage figures must add up and every under-covered gated metric must fail it.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from gate_runs import GOOD, builtin_metrics
from hypothesis import event, given
from hypothesis import strategies as st

from pytest_ragas_gate.gate.verdict import evaluate_gate
from pytest_ragas_gate.golden.loading import load_golden_file
from pytest_ragas_gate.judges.offline.judge import OfflineJudge
from pytest_ragas_gate.scoring.gated_metrics import metrics_for_case, metrics_to_gate
from pytest_ragas_gate.scoring.scheduler import score_cases
from pytest_ragas_gate.settings.config import GateConfig

METRICS = ["faithfulness", "answer_relevancy", "context_precision", "context_recall"]

#: What can happen to one row: nothing, a field dropped, emptied or misspelt, a refusal.
MUTATIONS = [
    "none",
    "no contexts",
    "empty contexts",
    "context",
    "Contexts_",
    "no reference",
    "refrence",
    "no answer",
    "refusal",
]


def mutated(index: int, mutation: str) -> dict[str, Any]:
    row: dict[str, Any] = {**GOOD, "id": f"case-{index}"}
    if mutation == "no contexts":
        del row["contexts"]
    elif mutation == "empty contexts":
        row["contexts"] = []
    elif mutation in ("context", "Contexts_"):
        row[mutation] = row.pop("contexts")
    elif mutation == "no reference":
        del row["reference"]
    elif mutation == "refrence":
        row["refrence"] = row.pop("reference")
    elif mutation == "no answer":
        del row["answer"]
    elif mutation == "refusal":
        row["answer"] = "I don't know."
    return row


@given(
    mutations=st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=12),
    selected=st.one_of(st.none(), st.lists(st.sampled_from(METRICS), min_size=1, unique=True)),
    min_coverage=st.sampled_from([0.0, 0.5, 0.9, 1.0]),
)
def test_no_gated_metric_below_min_coverage_passes(
    mutations: list[str], selected: list[str] | None, min_coverage: float
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "golden.jsonl"
        rows = [mutated(index, mutation) for index, mutation in enumerate(mutations)]
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        loaded = load_golden_file(path, display_path="golden.jsonl")
    config = GateConfig(metrics=selected, min_coverage=min_coverage, bootstrap_resamples=100)
    metrics = builtin_metrics()
    results = asyncio.run(
        score_cases(
            loaded.cases,
            lambda case: metrics_for_case(case, metrics, config),
            metrics,
            OfflineJudge(),
            max_cases_in_flight=4,
        )
    )
    scored = {name for result in results.values() for name in result.scores}
    gated = metrics_to_gate(config, list(metrics), scored)
    verdict = evaluate_gate(list(results.values()), gated, config)

    for name, aggregate in verdict.metrics.items():
        missing = sum(aggregate.not_applicable_missing_fields.values())
        by_nature = sum(aggregate.not_applicable_by_nature.values())
        assert aggregate.cases == aggregate.n + aggregate.not_applicable + aggregate.errors
        assert aggregate.not_applicable == missing + by_nature
        if aggregate.n + missing:
            assert aggregate.coverage == aggregate.n / (aggregate.n + missing)
        if aggregate.threshold is None or aggregate.coverage is None:
            continue
        if aggregate.coverage < min_coverage - 1e-9:
            event("a gated metric below min_coverage")
            assert aggregate.passed is False, (name, aggregate.message)
            assert verdict.status != "passed", verdict.recommendation
            assert "Safe to deploy" not in verdict.recommendation
            failing = {check.name for check in verdict.failed_checks}
            assert name in failing
    event(f"verdict {verdict.status}")
    if verdict.status == "passed":
        assert verdict.scored_cases is not None and verdict.scored_cases >= 1
