"""What to fix: per-case retrieval / generation / ranking diagnosis, and maximum thresholds."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from gate_runs import gate_run, junit_case_outcomes, write_jsonl

from pytest_ragas_gate.gate.diagnosis import diagnose, summarise_diagnoses
from pytest_ragas_gate.gate.verdict import evaluate_gate
from pytest_ragas_gate.scoring.results import CaseResult
from pytest_ragas_gate.settings.bounds import Bound, parse_bound
from pytest_ragas_gate.settings.config import GateConfig
from pytest_ragas_gate.settings.options import parse_threshold

#: How every run of this module gates: the offline judge, both reports, fixed order.
OPTIONS: dict[str, Any] = {"judge": "offline", "junit": "junit.xml", "disable": ("randomly",)}


def scored(**scores: float | None) -> CaseResult:
    return CaseResult(id="c", source="g.jsonl:1", question="q?", scores=dict(scores))


NO_BOUNDS: dict[str, Bound] = {}


def component(result: CaseResult, bounds: dict[str, Bound]) -> str | None:
    found = diagnose(result, bounds)
    return None if found is None else found.component


@pytest.mark.parametrize(
    ("scores", "component"),
    [
        ({"context_recall": 0.5, "faithfulness": 1.0, "answer_relevancy": 0.9}, "retrieval"),
        ({"id_recall": 0.5, "faithfulness": 1.0}, "retrieval"),
        ({"context_recall": 1.0, "faithfulness": 0.5}, "generation"),
        ({"context_recall": 1.0, "answer_relevancy": 0.5}, "generation"),
        ({"context_recall": 0.5, "faithfulness": 0.5}, "both"),
        ({"context_recall": 1.0, "faithfulness": 1.0, "context_precision": 0.5}, "ranking"),
        ({"context_recall": 1.0, "faithfulness": 1.0, "mrr": 1 / 3}, "ranking"),
        ({"context_recall": 1.0, "faithfulness": 1.0, "top_doc_usage": 0.0}, "ranking"),
        ({"context_recall": 0.5, "context_precision": 0.2}, "retrieval"),
        ({"context_recall": 1.0, "faithfulness": 1.0, "mrr": 0.5}, "ok"),
        ({"faithfulness": 0.9, "answer_relevancy": 0.8}, "ok"),
    ],
)
def test_the_documented_rules(scores: dict[str, float], component: str) -> None:
    found = diagnose(scored(**scores), NO_BOUNDS)
    assert found is not None and found.component == component


def test_reasons_name_the_failed_checks_with_the_thresholds_used() -> None:
    found = diagnose(scored(context_recall=0.5, faithfulness=0.6), NO_BOUNDS)
    assert found is not None
    assert found.reasons == ["context_recall 0.50 < 0.80", "faithfulness 0.60 < 0.85"]


def test_the_gates_threshold_and_the_cases_own_threshold_take_precedence() -> None:
    result = scored(faithfulness=0.6)
    assert component(result, {"faithfulness": Bound(0.5)}) == "ok"
    own = result.model_copy(update={"thresholds": {"faithfulness": 0.7}})
    assert component(own, {"faithfulness": Bound(0.5)}) == "generation"


def test_a_contradiction_maximum_is_a_generation_check() -> None:
    result = scored(context_recall=1.0, faithfulness=0.9, contradiction_rate=0.1)
    assert component(result, NO_BOUNDS) == "ok"
    bounds = {"contradiction_rate": Bound(0.02, "max")}
    found = diagnose(result, bounds)
    assert found is not None and found.component == "generation"
    assert found.reasons == ["contradiction_rate 0.10 > 0.02"]


def test_errored_and_unmeasured_cases_are_not_diagnosed() -> None:
    errored = scored(faithfulness=0.1).model_copy(update={"error": "target raised"})
    assert diagnose(errored, NO_BOUNDS) is None
    assert diagnose(scored(answer_correctness=0.0), NO_BOUNDS) is None


def test_the_dominant_component_is_the_one_to_fix_first() -> None:
    results = [
        *(scored(context_recall=0.2, faithfulness=1.0) for _ in range(7)),
        *(scored(context_recall=1.0, faithfulness=0.2) for _ in range(2)),
        scored(context_recall=1.0, faithfulness=1.0),
    ]
    summary = summarise_diagnoses(diagnose(result, NO_BOUNDS) for result in results)
    assert summary.counts == {"retrieval": 7, "generation": 2, "both": 0, "ranking": 0, "ok": 1}
    assert summary.failures == "7 retrieval failures, 2 generation failures"
    assert summary.advice == "fix the retriever first"
    assert summary.hint.startswith("Use hybrid retrieval")
    generator = summarise_diagnoses(
        diagnose(scored(context_recall=1.0, faithfulness=0.1), NO_BOUNDS) for _ in range(3)
    )
    assert generator.advice == "fix the generator first"


def test_the_verdict_says_what_to_fix() -> None:
    results = [
        *(
            CaseResult(
                id=f"r{i}",
                source=f"g.jsonl:{i + 1}",
                scores={"context_recall": 0.2, "faithfulness": 1.0},
            )
            for i in range(7)
        ),
        *(
            CaseResult(
                id=f"g{i}",
                source=f"g.jsonl:{i + 10}",
                scores={"context_recall": 1.0, "faithfulness": 0.0},
            )
            for i in range(2)
        ),
    ]
    verdict = evaluate_gate(results, ["faithfulness", "context_recall"], GateConfig())
    assert verdict.recommendation == (
        "Block deployment — 2 metric(s) below threshold: faithfulness, context_recall; "
        "7 retrieval failures, 2 generation failures: fix the retriever first"
    )


# --- maximum thresholds -------------------------------------------------------------------


def test_threshold_forms_on_the_command_line() -> None:
    assert parse_threshold("contradiction_rate<=0.02") == ("contradiction_rate", "<=0.02")
    assert parse_threshold("faithfulness>=0.9") == ("faithfulness", ">=0.9")
    assert parse_threshold("contradiction_rate=0.02") == ("contradiction_rate", 0.02)
    with pytest.raises(argparse.ArgumentTypeError, match="from 0 to 1"):
        parse_threshold("contradiction_rate<=2")


def test_a_bare_number_takes_the_metrics_own_direction() -> None:
    config = GateConfig(thresholds={"contradiction_rate": 0.02, "my_error_rate": "<=0.1"})
    bounds = config.bounds()
    assert bounds["contradiction_rate"] == Bound(0.02, "max")
    assert bounds["my_error_rate"] == Bound(0.1, "max")
    assert bounds["faithfulness"] == Bound(0.85, "min")
    assert parse_bound("faithfulness", ">=0.5") == Bound(0.5, "min")
    with pytest.raises(ValueError, match="optionally written as >=X"):
        GateConfig(thresholds={"contradiction_rate": "at most 0.02"})


def rate_results(rates: list[float]) -> list[CaseResult]:
    return [
        CaseResult(id=f"c{i}", source=f"g.jsonl:{i + 1}", scores={"contradiction_rate": rate})
        for i, rate in enumerate(rates)
    ]


def test_a_maximum_fails_above_it_and_passes_at_it() -> None:
    config = GateConfig(thresholds={"contradiction_rate": "<=0.02"})
    failing = evaluate_gate(rate_results([0.0, 0.1]), ["contradiction_rate"], config)
    aggregate = failing.metrics["contradiction_rate"]
    assert aggregate.passed is False and aggregate.direction == "max"
    assert aggregate.message.startswith("contradiction_rate mean 0.05 > 0.02")
    passing = evaluate_gate(rate_results([0.02, 0.02]), ["contradiction_rate"], config)
    assert passing.metrics["contradiction_rate"].passed is True
    assert "contradiction_rate mean 0.02 ≤ 0.02" in passing.metrics["contradiction_rate"].message


def test_strict_and_lenient_rules_mirror_for_a_maximum() -> None:
    results = rate_results([0.0] * 18 + [0.5, 0.5])  # mean 0.05, CI roughly 0.00–0.10
    strict = GateConfig(thresholds={"contradiction_rate": "<=0.06"}, rule="ci_lower")
    lenient = GateConfig(thresholds={"contradiction_rate": "<=0.04"}, rule="ci_upper")
    tight = evaluate_gate(results, ["contradiction_rate"], strict).metrics["contradiction_rate"]
    loose = evaluate_gate(results, ["contradiction_rate"], lenient).metrics["contradiction_rate"]
    # Strict: the upper bound must stay under the maximum; lenient: the lower bound.
    assert tight.passed is False and "CI upper bound" in tight.message
    assert loose.passed is True and "but its 95% interval reaches 0.00" in loose.message


# --- end to end ---------------------------------------------------------------------------

EIFFEL = "The Eiffel Tower was completed in 1889 for the World's Fair in Paris."
LOUVRE = "The Louvre is an art museum in Paris that opened in 1793."
QUESTION = "When was the Eiffel Tower completed?"
ROWS: list[dict[str, Any]] = [
    {
        "id": "fine",
        "question": QUESTION,
        "answer": "The Eiffel Tower was completed in 1889.",
        "contexts": [{"id": "eiffel", "text": EIFFEL}],
        "reference": "The Eiffel Tower was completed in 1889.",
        "relevant_context_ids": ["eiffel"],
    },
    {
        "id": "made-up-year",
        "question": QUESTION,
        "answer": "The Eiffel Tower was completed in 1925.",
        "contexts": [{"id": "eiffel", "text": EIFFEL}],
        "reference": "The Eiffel Tower was completed in 1889.",
        "relevant_context_ids": ["eiffel"],
    },
    {
        "id": "chunk-missing",
        "question": QUESTION,
        "answer": "The Eiffel Tower was completed in 1889.",
        "contexts": [{"id": "eiffel", "text": EIFFEL}],
        "reference": "The Eiffel Tower was completed in 1889.",
        "relevant_context_ids": ["eiffel", "eiffel-history"],
    },
    {
        "id": "ranked-low",
        "question": QUESTION,
        "answer": "The Eiffel Tower was completed in 1889.",
        "contexts": [{"id": "louvre", "text": LOUVRE}, {"id": "eiffel", "text": EIFFEL}],
        "reference": "The Eiffel Tower was completed in 1889.",
        "relevant_context_ids": ["eiffel"],
    },
]
EXPECTED = {
    "fine": "ok",
    "made-up-year": "generation",
    "chunk-missing": "retrieval",
    "ranked-low": "ranking",
}


def test_each_case_is_diagnosed_in_every_report(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", ROWS)
    result, report = gate_run(pytester, **OPTIONS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    diagnoses = {case["id"]: case["diagnosis"]["component"] for case in report["cases"]}
    assert diagnoses == EXPECTED
    assert report["diagnosis"]["counts"] == {
        "retrieval": 1,
        "generation": 1,
        "both": 0,
        "ranking": 1,
        "ok": 1,
    }
    text = result.stdout.str()
    assert "what to fix  retrieval  generation  both  ranking  ok" in text
    assert "cases        1          1           0     1        1" in text
    assert "1 retrieval failure, 1 generation failure, 1 ranking failure: " in text
    assert junit_case_outcomes(pytester.path / "junit.xml").keys() == EXPECTED.keys()
    junit = (pytester.path / "junit.xml").read_text(encoding="utf-8")
    assert '<property name="diagnosis" value="ranking" />' in junit


def test_regate_reproduces_the_diagnosis_and_a_maximum(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", ROWS)
    result, report = gate_run(
        pytester, "--rag-gate-threshold", "contradiction_rate<=0.0", **OPTIONS
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    aggregate = report["metrics"]["contradiction_rate"]
    assert aggregate["threshold"] == 0.0 and aggregate["direction"] == "max"
    assert report["config"]["thresholds"]["contradiction_rate"] == "<=0"
    regate = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest_ragas_gate.cli",
            "regate",
            "report.json",
            "--output",
            "again.json",
        ],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert regate.returncode == 1, regate.stderr
    again = json.loads((pytester.path / "again.json").read_text(encoding="utf-8"))
    assert again["recommendation"] == report["recommendation"]
    assert {case["id"]: case["diagnosis"] for case in again["cases"]} == {
        case["id"]: case["diagnosis"] for case in report["cases"]
    }
    assert again["metrics"]["contradiction_rate"] == aggregate


def test_a_rising_contradiction_rate_is_a_regression(tmp_path: Path) -> None:
    from pytest_ragas_gate.gate.baseline import compare_to_baseline

    base = rate_results([0.0] * 20)
    new = rate_results([0.0] * 10 + [0.5] * 10)
    comparison = compare_to_baseline(
        base, new, ["contradiction_rate"], GateConfig(bootstrap_resamples=500), path="b"
    )
    delta = comparison.metrics["contradiction_rate"]
    assert delta.regressed and delta.delta == pytest.approx(0.25)
    falling = compare_to_baseline(
        new, base, ["contradiction_rate"], GateConfig(bootstrap_resamples=500), path="b"
    )
    assert not falling.metrics["contradiction_rate"].regressed


@pytest.mark.slow
def test_xdist_gives_the_serial_diagnosis(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", ROWS)
    _, serial = gate_run(pytester, **OPTIONS)
    (pytester.path / "report.json").rename(pytester.path / "serial.json")
    write_jsonl(pytester, "golden.jsonl", ROWS)
    result, parallel = gate_run(pytester, "-n", "2", judge="offline", subprocess=True)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert parallel["diagnosis"] == serial["diagnosis"]
    assert parallel["recommendation"] == serial["recommendation"]
    assert [case["diagnosis"] for case in parallel["cases"]] == [
        case["diagnosis"] for case in serial["cases"]
    ]
