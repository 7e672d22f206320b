"""End to end: every gated metric says on how many of its cases it was computed.

Each test reproduces a run that said "Safe to deploy" about a metric computed on a sliver
of its cases: a key misspelt on most rows, rows with nothing to score.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gate_runs import GOOD, WORKERS, gate_run, write_jsonl

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


OPTIONS: dict[str, Any] = {"judge": "offline", "cache": "off", "disable": ("randomly",)}


def misspelt_support_rows() -> list[dict[str, Any]]:
    """The example golden set with ``contexts`` spelt ``context`` on rows 2–12, whose
    answers invent a figure: only row 1 can be judged on faithfulness."""
    rows = [
        json.loads(line) for line in (EXAMPLES / "golden_support.jsonl").read_text().splitlines()
    ]
    assert len(rows) == 12
    for row in rows[1:]:
        row["context"] = row.pop("contexts")
        row["answer"] = row["answer"].replace("0", "7") + " Nimbus was founded on the Moon in 1802."
    return rows


@pytest.mark.parametrize("args", WORKERS)
def test_a_key_misspelt_on_most_rows_fails_the_gate_closed(
    pytester: pytest.Pytester, args: list[str]
) -> None:
    write_jsonl(pytester, "golden_support.jsonl", misspelt_support_rows())
    outcome = gate_run(pytester, *args, metrics="faithfulness", markdown="summary.md", **OPTIONS)
    assert outcome.ret == 1
    outcome.stdout.fnmatch_lines(
        [
            "FAILED faithfulness computed on 1 of 12 cases (11 n/a: no contexts — 11 rows have "
            "'context'; did you mean 'contexts'?)*",
            "*golden_support.jsonl: 11 rows have the key 'context' and no 'contexts' — did you "
            "mean 'contexts'?",
            "RAG gate: FAILED",
        ]
    )
    outcome.stdout.no_fnmatch_line("*Safe to deploy*")
    faithfulness = outcome.report["metrics"]["faithfulness"]
    assert faithfulness["cases"] == 12
    assert faithfulness["n"] == 1
    assert faithfulness["coverage"] == pytest.approx(1 / 12)
    assert faithfulness["not_applicable_missing_fields"] == {"no contexts": 11}
    assert faithfulness["misspelt_keys"] == [{"key": "context", "field": "contexts", "rows": 11}]
    check = next(c for c in outcome.report["checks"] if c["name"] == "faithfulness")
    assert check["kind"] == "min_coverage"
    assert outcome.markdown is not None
    assert "11 rows have the key 'context' and no 'contexts'" in outcome.markdown


def test_the_table_shows_n_of_cases(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden_support.jsonl", misspelt_support_rows())
    outcome = gate_run(pytester, metrics="faithfulness", **OPTIONS)
    outcome.stdout.fnmatch_lines(["faithfulness *1 of 12*11*0*FAIL"])


def test_rows_with_nothing_to_score_are_not_scored(pytester: pytest.Pytester) -> None:
    rows = [
        {**GOOD, "id": "full"},
        *({"id": f"bare-{index}", "question": "Who founded Apple?"} for index in range(3)),
    ]
    write_jsonl(pytester, "golden.jsonl", rows)
    outcome = gate_run(pytester, metrics="faithfulness", **OPTIONS)
    assert outcome.ret == 1
    outcome.stdout.fnmatch_lines(
        [
            "cases: gated 4 of 4*; 1 scored, 3 with no gated metric scored, 0 errored",
            "FAILED faithfulness computed on 1 of 4 cases (3 n/a: no answer and no contexts*",
        ]
    )


def test_min_coverage_per_metric_lets_a_known_gap_pass(pytester: pytest.Pytester) -> None:
    rows = [{**GOOD, "id": "full"}, {"id": "bare", "question": "Who founded Apple?"}]
    write_jsonl(pytester, "golden.jsonl", rows)
    (pytester.path / "rag_gate.yaml").write_text(
        "min_coverage:\n  default: 0.9\n  faithfulness: 0.5\n", encoding="utf-8"
    )
    outcome = gate_run(pytester, metrics="faithfulness", **OPTIONS)
    assert outcome.ret == 0, outcome.stdout.str()
    assert outcome.report["metrics"]["faithfulness"]["min_coverage"] == 0.5
    assert outcome.report["metrics"]["faithfulness"]["coverage_passed"] is True


def test_n_a_by_nature_does_not_count_against_coverage(pytester: pytest.Pytester) -> None:
    refusal = {**GOOD, "id": "refusal", "answer": "I don't know."}
    write_jsonl(pytester, "golden.jsonl", [{**GOOD, "id": "full"}, refusal])
    outcome = gate_run(pytester, metrics="faithfulness", **OPTIONS)
    faithfulness = outcome.report["metrics"]["faithfulness"]
    assert faithfulness["cases"] == 2
    assert faithfulness["not_applicable_by_nature"] == {"the answer makes no factual claims": 1}
    assert faithfulness["coverage"] == 1.0
    assert outcome.ret == 0, outcome.stdout.str()
