"""A run with no threshold in force is ``ungated``: a report, never "Safe to deploy".

``--rag-gate-metrics answer_correctness,context_relevance`` (metrics without a default
threshold), or every threshold set to null, used to print "Safe to deploy" under a header
that listed default thresholds not in force.
"""

from __future__ import annotations

from typing import Any

import pytest
from gate_runs import GateOutcome, gate_run, good_rows, write_config, write_jsonl

from pytest_ragas_gate.gate.deploy_decision import SMOKE_CHECK
from pytest_ragas_gate.reports.json_report import load_report
from pytest_ragas_gate.reports.pr_comment import comment_body

REPORT_ONLY = "Report only, not a deploy decision — no gated metric*"
#: Every report a run can write, each to be read back.
OUTPUTS: dict[str, Any] = {
    "report": "r.json",
    "junit": "j.xml",
    "html": "r.html",
    "markdown": "summary.md",
}


def assert_ungated(run: GateOutcome) -> None:
    """Exit 0, the header and summary say so, and every report carries ``ungated``."""
    result = run.result
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "rag-gate: thresholds none in force — report only, not a deploy decision; cache*",
            "RAG gate: UNGATED",
            REPORT_ONLY,
        ]
    )
    assert "Safe to deploy" not in result.stdout.str()
    assert run.report["verdict"] == "ungated"
    gate = run.gate_suite()
    properties = {prop.get("name"): prop.get("value") for prop in gate.find("properties")}
    assert properties["verdict"] == "ungated"
    skipped = gate.find("testcase[@name='gated_metrics']/skipped")
    assert skipped is not None and skipped.get("message").startswith("Report only")
    assert "RAG gate: UNGATED" in (run.directory / "r.html").read_text(encoding="utf-8")
    summary = run.markdown
    assert summary is not None and summary.startswith("## ⚠️ RAG gate: UNGATED")
    body = comment_body(load_report(run.directory / "r.json"))
    assert "## ⚠️ RAG gate: UNGATED" in body
    assert "Safe to deploy" not in summary + body


def test_metrics_without_thresholds_are_ungated(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    assert_ungated(gate_run(pytester, metrics="answer_correctness,context_relevance", **OUTPUTS))


def test_every_threshold_null_is_ungated(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    nulls = dict.fromkeys(
        ("faithfulness", "answer_relevancy", "context_recall", "context_precision")
    )
    write_config(pytester.path, thresholds=nulls)
    assert_ungated(gate_run(pytester, **OUTPUTS))


def test_the_header_lists_only_the_thresholds_in_force(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    result = pytester.runpytest("--rag-gate", "--rag-gate-metrics", "faithfulness,mrr")
    result.stdout.fnmatch_lines(["rag-gate: thresholds faithfulness>=0.85 (rule mean); cache*"])
    result.stdout.fnmatch_lines(["RAG gate: PASSED", SMOKE_CHECK])


def test_a_failure_is_still_a_failure_without_thresholds(pytester: pytest.Pytester) -> None:
    rows = good_rows(2)
    rows[1] = {**rows[1], "contexts": "not a list"}
    write_jsonl(pytester, "golden.jsonl", rows)
    result = pytester.runpytest("--rag-gate", "--rag-gate-metrics", "answer_correctness")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["RAG gate: FAILED"])


@pytest.mark.slow
def test_ungated_under_xdist(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(4))
    assert_ungated(gate_run(pytester, "-n", "2", metrics="answer_correctness", **OUTPUTS))
