"""Only an LLM judge makes a deploy decision; the offline heuristic smoke-checks.

A run the offline judge scored used to end `RAG gate: PASSED` / `Safe to deploy`, and its
Markdown put **Safe to deploy** right above "Scored by the offline heuristic judge … a
smoke test". It still passes (exit 0, verdict `passed`), but every report reads the
smoke-check line and the JSON report says `deploy_decision: false`; a run an LLM judge
scored (here through the real SDK against the local fake server) is the deploy decision.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakellm import FakeLLM
from gate_runs import gate_run, good_rows, use_fake_judge, write_config, write_jsonl

from pytest_ragas_gate.cli import main as rag_gate
from pytest_ragas_gate.gate.deploy_decision import SMOKE_CHECK

XDIST = pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        use_fake_judge(monkeypatch, fake)
        yield fake


def gate_suite_property(run_directory: Path, junit: str, name: str) -> str | None:
    text = (run_directory / junit).read_text(encoding="utf-8")
    marker = f'<property name="{name}" value="'
    if marker not in text:
        return None
    return text.split(marker, 1)[1].split('"', 1)[0]


@XDIST
def test_an_offline_pass_is_a_smoke_check_in_every_report(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    # Forty cases: enough that every interval clears its threshold, so the pass is unqualified.
    write_jsonl(pytester, "golden.jsonl", good_rows(40))
    run = gate_run(
        pytester,
        *workers,
        judge="offline",
        junit="junit.xml",
        markdown="summary.md",
        output=["html=report.html"],
    )
    assert run.ret == pytest.ExitCode.OK
    run.stdout.fnmatch_lines(["RAG gate: PASSED", SMOKE_CHECK])
    assert "Safe to deploy" not in run.stdout.str()
    assert run.report["verdict"] == "passed"
    assert run.report["recommendation"] == SMOKE_CHECK
    assert run.report["deploy_decision"] is False
    assert set(run.report["run"]["scored_by"].values()) == {"offline"}
    markdown = run.markdown
    assert markdown is not None
    assert markdown.startswith(f"## ✅ RAG gate: PASSED\n\n**{SMOKE_CHECK}**\n")
    assert "Safe to deploy" not in markdown
    assert gate_suite_property(pytester.path, "junit.xml", "recommendation") == SMOKE_CHECK
    assert gate_suite_property(pytester.path, "junit.xml", "deploy_decision") == "false"
    page = (pytester.path / "report.html").read_text(encoding="utf-8")
    assert SMOKE_CHECK in page and "Safe to deploy" not in page

    # A re-gate of the saved report reaches the same recommendation.
    assert rag_gate(["gate", "report.json", "-o", "again.json"]) == 0
    again = json.loads((pytester.path / "again.json").read_text(encoding="utf-8"))
    assert (again["recommendation"], again["deploy_decision"]) == (SMOKE_CHECK, False)


def test_a_report_from_before_the_field_is_read_by_its_judge(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(3))
    run = gate_run(pytester, judge="offline")
    raw = dict(run.report)
    del raw["run"]["scored_by"], raw["deploy_decision"]
    (pytester.path / "old.json").write_text(json.dumps(raw), encoding="utf-8")
    assert rag_gate(["gate", "old.json", "-o", "again.json"]) == 0
    again = json.loads((pytester.path / "again.json").read_text(encoding="utf-8"))
    assert (again["recommendation"], again["deploy_decision"]) == (SMOKE_CHECK, False)


def test_shards_scored_offline_merge_into_a_smoke_check(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(4))
    for index in (1, 2):
        gate_run(pytester, judge="offline", shard=f"{index}/2", report=f"shard{index}.json")
    assert rag_gate(["gate", "shard1.json", "shard2.json", "-o", "merged.json"]) == 0
    merged = json.loads((pytester.path / "merged.json").read_text(encoding="utf-8"))
    assert merged["verdict"] == "passed"
    assert (merged["recommendation"], merged["deploy_decision"]) == (SMOKE_CHECK, False)


@XDIST
def test_an_llm_judges_pass_is_a_deploy_decision(
    pytester: pytest.Pytester, server: FakeLLM, workers: list[str]
) -> None:
    # Forty cases: enough that every interval clears its threshold, so the pass is unqualified.
    write_jsonl(pytester, "golden.jsonl", good_rows(40))
    run = gate_run(
        pytester,
        *workers,
        "-p",
        "no:randomly",
        judge="anthropic",
        junit="junit.xml",
        markdown="summary.md",
        cache="off",
    )
    assert run.ret == pytest.ExitCode.OK, run.stdout.str()
    run.stdout.fnmatch_lines(["RAG gate: PASSED", "Safe to deploy"])
    assert "Smoke check" not in run.stdout.str()
    assert run.report["recommendation"] == "Safe to deploy"
    assert run.report["deploy_decision"] is True
    assert set(run.report["run"]["scored_by"].values()) == {"anthropic"}
    assert gate_suite_property(pytester.path, "junit.xml", "deploy_decision") == "true"
    markdown = run.markdown
    assert markdown is not None and "**Safe to deploy**" in markdown


def test_a_failed_offline_run_is_no_deploy_decision_either(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(3))
    run = gate_run(pytester, judge="offline", threshold="faithfulness=1.01")
    assert run.ret != pytest.ExitCode.OK
    assert run.report.get("deploy_decision") in (False, None)


def test_a_metric_computed_without_a_judge_rests_on_no_heuristic(
    pytester: pytest.Pytester,
) -> None:
    # Only tool_correctness is gated: it compares tool calls, and no judge scores it.
    rows = [
        {
            **row,
            "tools_called": [{"name": "search"}],
            "expected_tools": [{"name": "search"}],
        }
        for row in good_rows(40)
    ]
    write_jsonl(pytester, "golden.jsonl", rows)
    run = gate_run(
        pytester, judge="offline", metrics="tool_correctness", threshold="tool_correctness=0.8"
    )
    assert run.ret == pytest.ExitCode.OK, run.stdout.str()
    assert run.report["run"]["scored_by"] == {"tool_correctness": None}
    assert run.report["deploy_decision"] is True
    assert run.report["recommendation"] == "Safe to deploy"


def test_a_baseline_check_on_heuristic_scores_is_a_smoke_check(
    pytester: pytest.Pytester,
) -> None:
    # No threshold in force: only the comparison with the baseline gates the run, and the
    # heuristic's scores decide it.
    write_jsonl(pytester, "golden.jsonl", good_rows(3))
    write_config(pytester.path, thresholds={"faithfulness": None})
    gate_run(pytester, judge="offline", metrics="faithfulness", report="baseline.json")
    run = gate_run(pytester, judge="offline", metrics="faithfulness", baseline="baseline.json")
    assert run.ret == pytest.ExitCode.OK, run.stdout.str()
    assert run.report["verdict"] == "passed"
    assert (run.report["recommendation"], run.report["deploy_decision"]) == (SMOKE_CHECK, False)


def test_a_pass_on_thin_evidence_is_no_deploy_decision(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    # Two cases scoring 1.0: the gate passes, says how unsure it is, and makes no decision.
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    run = gate_run(pytester, "-p", "no:randomly", judge="anthropic", junit="junit.xml", cache="off")
    assert run.ret == pytest.ExitCode.OK, run.stdout.str()
    run.stdout.fnmatch_lines(["RAG gate: PASSED", "Passed on thin evidence — *"])
    assert "Safe to deploy" not in run.stdout.str()
    assert run.report["recommendation"].startswith("Passed on thin evidence — ")
    assert run.report["deploy_decision"] is False
    assert gate_suite_property(pytester.path, "junit.xml", "deploy_decision") == "false"
