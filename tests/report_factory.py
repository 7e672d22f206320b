"""Build JSON reports in memory, for the tests of the rag-gate command and the baseline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_ragas_gate.config import GateConfig
from pytest_ragas_gate.gate import evaluate_gate
from pytest_ragas_gate.reports.json_report import JudgeInfo, build_report
from pytest_ragas_gate.results import CaseResult, UsageRecord

METRICS = ["faithfulness", "context_recall"]


def case(
    case_id: str,
    faithfulness: float | None,
    recall: float | None = 0.9,
    *,
    file: str = "golden.jsonl",
    line: int = 1,
) -> CaseResult:
    scores: dict[str, float | None] = {}
    if faithfulness is not None:
        scores["faithfulness"] = faithfulness
    scores["context_recall"] = recall
    return CaseResult(
        id=case_id,
        source=f"{file}:{line}",
        question=f"question {case_id}?",
        metrics=list(METRICS),
        scores=scores,
        usage={"faithfulness": UsageRecord(calls=2, input_tokens=100, output_tokens=10)},
    )


def cases(
    scores: list[float], *, prefix: str = "c", file: str = "golden.jsonl"
) -> list[CaseResult]:
    return [
        case(f"{prefix}{index}", score, file=file, line=index + 1)
        for index, score in enumerate(scores)
    ]


def write(
    path: Path,
    results: list[CaseResult],
    *,
    config: GateConfig | None = None,
    judge: JudgeInfo | None = None,
    **extra: Any,
) -> Path:
    config = config or GateConfig(judge="anthropic", bootstrap_resamples=500)
    judge = judge or JudgeInfo(kind="anthropic", model="claude-test", selected_by="test")
    verdict = evaluate_gate(results, METRICS, config)
    report = build_report(
        results=results,
        verdict=verdict,
        config=config,
        judge=judge,
        usage_by_metric={},
        wall_s=1.0,
        scoring_s=0.5,
    )
    report.update(extra)
    path.write_text(json.dumps(report), encoding="utf-8")
    return path
