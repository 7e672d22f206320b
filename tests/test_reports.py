from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from pytest_ragas_gate.exceptions import ReportError
from pytest_ragas_gate.gate.hints import HINTS
from pytest_ragas_gate.gate.verdict import GateVerdict, RunFacts, evaluate_gate
from pytest_ragas_gate.reports.json_report import (
    SCHEMA_VERSION,
    JudgeInfo,
    build_report,
    load_report,
    write_report,
)
from pytest_ragas_gate.reports.junit import write_junit
from pytest_ragas_gate.reports.markdown import MAX_FAILING_CASES, render_markdown
from pytest_ragas_gate.scoring.results import CaseResult
from pytest_ragas_gate.settings.config import GateConfig
from pytest_ragas_gate.usage import Usage

XSD = Path(__file__).parent / "data" / "junit-10.xsd"
METRICS = ["faithfulness", "context_recall", "context_relevance"]
OFFLINE = JudgeInfo(kind="offline", model="heuristic-v1", selected_by="auto: no ANTHROPIC_API_KEY")
CLAUDE = JudgeInfo(kind="anthropic", model="claude-sonnet-4-5", selected_by="--rag-gate-judge")


def make_results() -> list[CaseResult]:
    results = [
        CaseResult(
            id=f"q{i}",
            source=f"golden/qa.jsonl:{i + 1}",
            tags=["zh"] if i % 2 else ["en"],
            question=f"问题 {i}?",
            answer="Steve Jobs, Steve Wozniak and Ronald Wayne founded Apple.",
            metrics=METRICS,
            scores={
                "faithfulness": 0.95 if i % 3 else 0.6667,
                "context_recall": 0.5 if i % 2 else 1.0,
                "context_relevance": None if i == 0 else 0.8,
            },
            reasons={"faithfulness": "claim 2 is not in the contexts"},
            details={
                "faithfulness": [
                    {"claim": "Steve Jobs founded Apple.", "verdict": True, "reason": "ctx 1"},
                    {"claim": "Ronald Wayne founded Apple.", "verdict": False, "reason": "none"},
                ]
            },
            usage={"faithfulness": Usage(calls=2, input_tokens=300, output_tokens=40)},
            latency_s=0.42,
            scoring_s=0.25,
        )
        for i in range(6)
    ]
    results[3].thresholds = {"context_recall": 0.9}  # 0.5 < 0.9: the case's own failure
    results.append(
        CaseResult(
            id="broken",
            source="golden/other.yaml:30",
            metrics=["faithfulness"],
            errors={"faithfulness": "JudgeReplyError: reply kept failing validation"},
            scoring_s=1.5,
        )
    )
    results.append(
        CaseResult(
            id="crash",
            source="golden/other.yaml:40",
            error="ValueError: target raised\nTraceback (most recent call last): ...",
        )
    )
    return results


def make_config(**settings: Any) -> GateConfig:
    settings.setdefault("bootstrap_resamples", 300)
    settings.setdefault("max_error_rate", 0.1)
    settings.setdefault("tag_thresholds", {"zh": {"context_recall": 0.8}})
    return GateConfig(**settings)


def gate(results: list[CaseResult], config: GateConfig) -> GateVerdict:
    return evaluate_gate(results, METRICS, config)


USAGE = {
    "faithfulness": Usage(calls=12, input_tokens=1800, output_tokens=240, cost_usd=0.01),
    "context_recall": Usage(calls=6, input_tokens=600, output_tokens=60, cache_hits=2),
}


def report_for(results: list[CaseResult], config: GateConfig) -> dict[str, Any]:
    return build_report(
        results=results,
        verdict=gate(results, config),
        config=config,
        judge=OFFLINE,
        usage_by_metric=USAGE,
        wall_s=3.5,
        scoring_s=2.0,
    )


# --- JSON ---------------------------------------------------------------------------


def test_json_report_has_the_spec_keys() -> None:
    report = report_for(make_results(), make_config())
    assert {
        "schema_version",
        "verdict",
        "judge",
        "config",
        "metrics",
        "cases",
        "usage",
        "timing",
        "failures",
        "recommendation",
        "hints",
        "tags",
        "incomplete",
        "generated_at",
    } <= set(report)
    assert report["schema_version"] == SCHEMA_VERSION == 2
    assert report["verdict"] == "failed"
    assert report["judge"] == {
        "kind": "offline",
        "model": "heuristic-v1",
        "selected_by": "auto: no ANTHROPIC_API_KEY",
        # The offline judge has no prompts; an LLM judge names its prompt version here.
        "prompt_version": "",
        # The openai judge names its structured-output mode and why.
        "structured_output": "",
        # Who scored each metric (a run records it; this report was built without it).
        "metrics": {},
    }
    assert list(report["metrics"]) == METRICS
    for aggregate in report["metrics"].values():
        assert {
            "mean",
            "n",
            "not_applicable",
            "errors",
            "std",
            "ci_low",
            "ci_high",
            "threshold",
            "rule",
            "passed",
            "message",
        } <= set(aggregate)
    assert report["metrics"]["context_relevance"]["passed"] is None
    first = report["cases"][0]
    assert {"id", "source", "scores", "details", "error", "tags", "reasons", "errors"} <= set(first)
    assert first["source"] == "golden/other.yaml:30"  # canonical (source, id) order
    assert report["usage"] == {
        "calls": 18,
        "input_tokens": 2400,
        "output_tokens": 300,
        "retries": 0,
        "cache_hits": 2,
        "cost_usd": 0.01,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "by_metric": {name: record.model_dump() for name, record in USAGE.items()},
    }
    assert report["timing"] == {"wall_s": 3.5, "scoring_s": 2.0}
    assert report["incomplete"] is False
    assert report["config"]["max_error_rate"] == 0.1
    assert report["hints"]["context_recall"] == HINTS["context_recall"]
    json.dumps(report)  # plain JSON values only


def test_round_trip_gives_the_same_verdict(tmp_path: Path) -> None:
    results = make_results()
    config = make_config(confidence=0.9, seed=11, rules={"faithfulness": "ci_lower"})
    verdict = gate(results, config)
    path = tmp_path / "reports" / "rag.json"
    write_report(
        path,
        build_report(
            results=results,
            verdict=verdict,
            config=config,
            judge=CLAUDE,
            usage_by_metric=USAGE,
            wall_s=1.0,
            scoring_s=0.5,
            incomplete=True,
        ),
    )
    saved = load_report(path)
    assert saved.metrics == METRICS
    assert saved.judge == CLAUDE
    assert saved.config == config
    assert sorted(saved.results, key=lambda r: r.id) == sorted(results, key=lambda r: r.id)
    assert saved.raw["incomplete"] is True
    regated = evaluate_gate(saved.results, saved.metrics, saved.config)
    assert regated.model_dump_json() == verdict.model_dump_json()


def test_report_is_utf8_and_not_ascii_escaped(tmp_path: Path) -> None:
    path = tmp_path / "rag.json"
    write_report(path, report_for(make_results(), make_config()))
    text = path.read_text(encoding="utf-8")
    assert "问题 1?" in text
    report = json.loads(text)
    # No indentation; each case on a line of its own, so grep and diff work per case.
    lines = text.splitlines()
    assert "\n  " not in text
    assert len(lines) == len(report["cases"]) + 2
    assert [json.loads(line.rstrip(","))["id"] for line in lines[1:-1]] == [
        case["id"] for case in report["cases"]
    ]
    assert [p.name for p in tmp_path.iterdir()] == ["rag.json"]  # no temp file left


def test_write_report_replaces_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "rag.json"
    path.write_text("old", encoding="utf-8")
    write_report(path, {"schema_version": 1})
    assert json.loads(path.read_text(encoding="utf-8")) == {"schema_version": 1}


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def valid_report() -> dict[str, Any]:
    return report_for(make_results(), make_config())


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", r"is not JSON: line 1, column 2"),
        ("[1, 2]", r"holds a JSON list, not an object"),
    ],
)
def test_load_report_rejects_non_reports(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ReportError, match=expected) as info:
        load_report(path)
    assert str(path) in str(info.value)


def test_load_report_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="Cannot read the report .*missing.json"):
        load_report(tmp_path / "missing.json")


def test_load_report_schema_version(tmp_path: Path) -> None:
    report = valid_report()
    del report["schema_version"]
    with pytest.raises(ReportError, match="has no 'schema_version'"):
        load_report(write_json(tmp_path / "a.json", report))
    report["schema_version"] = 99
    with pytest.raises(ReportError, match="has schema_version 99; .* reads schema_version 1"):
        load_report(write_json(tmp_path / "b.json", report))


def test_load_report_names_the_invalid_case(tmp_path: Path) -> None:
    report = valid_report()
    report["cases"][2]["scores"]["faithfulness"] = "high"
    path = write_json(tmp_path / "r.json", report)
    case_id = report["cases"][2]["id"]
    with pytest.raises(
        ReportError,
        match=rf"invalid case at index 2 \(id '{case_id}'\): field 'scores.faithfulness'",
    ):
        load_report(path)


def test_load_report_names_an_invalid_config(tmp_path: Path) -> None:
    report = valid_report()
    report["config"]["max_error_rate"] = 7
    with pytest.raises(ReportError, match="invalid 'config': field 'max_error_rate'"):
        load_report(write_json(tmp_path / "r.json", report))
    del report["cases"]
    with pytest.raises(ReportError, match="no valid 'cases': expected a list"):
        load_report(write_json(tmp_path / "s.json", report))


# --- JUnit --------------------------------------------------------------------------


def write_and_parse(tmp_path: Path, **overrides: Any) -> tuple[etree._Element, GateVerdict]:
    results = overrides.pop("results", make_results())
    config = overrides.pop("config", make_config())
    verdict = evaluate_gate(results, overrides.pop("metrics", METRICS), config)
    path = tmp_path / "junit.xml"
    write_junit(
        path,
        results=results,
        verdict=verdict,
        judge=overrides.pop("judge", OFFLINE),
        failure_lines=overrides.pop("failure_lines", {}),
        bounds=config.bounds(),
    )
    document = etree.parse(str(path))
    schema = etree.XMLSchema(etree.parse(str(XSD)))
    assert schema.validate(document), schema.error_log
    return document.getroot(), verdict


def props(element: etree._Element) -> dict[str, str]:
    return {p.get("name"): p.get("value") for p in element.findall("properties/property")}


def test_junit_is_valid_and_has_two_suites(tmp_path: Path) -> None:
    root, _ = write_and_parse(tmp_path)
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["rag-cases", "rag-gate"]
    cases, gate_suite = suites
    assert cases.get("tests") == "8"
    assert cases.get("failures") == "1"
    assert cases.get("errors") == "2"
    # Metrics, error rate, coverage, the case below its own minimum, the tag minimum.
    assert gate_suite.get("tests") == str(len(METRICS) + 4)
    assert root.get("tests") == str(8 + len(METRICS) + 4)


def test_junit_case_suite_content(tmp_path: Path) -> None:
    root, _ = write_and_parse(tmp_path)
    cases = {tc.get("name"): tc for tc in root.find("testsuite[@name='rag-cases']")}
    q0 = cases["q0"]
    assert q0.get("classname") == "golden.qa"
    assert q0.get("file") == "golden/qa.jsonl"
    assert q0.get("line") == "1"
    assert float(q0.get("time")) == pytest.approx(0.25)
    assert props(q0) == {
        "faithfulness": "0.6667",
        "context_recall": "1.0000",
        "context_relevance": "n/a",
        "diagnosis": "generation",
        "source": "golden/qa.jsonl:1",
        "tags": "en",
        "latency_s": "0.420",
    }
    assert q0.find("failure") is None and q0.find("error") is None
    assert props(cases["q3"])["diagnosis"] == "both"

    failure = cases["q3"].find("failure")
    assert failure is not None
    assert failure.get("message") == "context_recall 0.50 < 0.90 (case min)"
    assert cases["q3"].find("error") is None

    judge_error = cases["broken"].find("error")
    assert judge_error is not None
    assert judge_error.get("type") == "JudgeError"
    assert judge_error.get("message").startswith("faithfulness: JudgeReplyError")
    assert props(cases["broken"])["faithfulness"] == "error"
    assert cases["broken"].find("failure") is None

    crash = cases["crash"].find("error")
    assert crash is not None
    assert crash.get("message") == "ValueError: target raised"
    assert "Traceback" in crash.text
    assert cases["crash"].get("classname") == "golden.other"


def test_junit_uses_the_items_failure_lines(tmp_path: Path) -> None:
    lines = ["context_recall 0.50 < 0.90 (case min)", "question: 问题 3?", "reasons: …"]
    root, _ = write_and_parse(tmp_path, failure_lines={"q3": lines})
    failure = root.find("testsuite[@name='rag-cases']/testcase[@name='q3']/failure")
    assert failure is not None
    assert failure.get("message") == lines[0]
    assert failure.text == "\n".join(lines)


def test_json_checks_list_the_junit_gate_suite_with_its_verdicts(tmp_path: Path) -> None:
    root, verdict = write_and_parse(tmp_path)
    config = make_config()
    checks = build_report(
        results=make_results(),
        verdict=verdict,
        config=config,
        judge=OFFLINE,
        usage_by_metric=USAGE,
        wall_s=1.0,
        scoring_s=0.5,
    )["checks"]
    gate_suite = root.find("testsuite[@name='rag-gate']")
    assert gate_suite is not None
    testcases = gate_suite.findall("testcase")
    assert [check["name"] for check in checks] == [case.get("name") for case in testcases]
    for check, case in zip(checks, testcases, strict=True):
        failure = case.find("failure")
        assert (check["passed"] is False) == (failure is not None), check["name"]
        if failure is not None:
            assert failure.get("message") == check["message"]
        assert props(case) == check["properties"]
    failing = [check["message"] for check in checks if check["passed"] is False]
    assert sorted(failing) == sorted(verdict.failures)


def test_junit_gate_suite_content(tmp_path: Path) -> None:
    root, verdict = write_and_parse(tmp_path)
    gate_suite = root.find("testsuite[@name='rag-gate']")
    assert gate_suite is not None
    suite_props = {p.get("name"): p.get("value") for p in gate_suite.findall("properties/property")}
    assert suite_props == {
        "verdict": "failed",
        "coverage": "gated 8 golden case(s)",
        "recommendation": verdict.recommendation,
        "deploy_decision": "false",
        "judge_kind": "offline",
        "judge_model": "heuristic-v1",
        "judge_selected_by": "auto: no ANTHROPIC_API_KEY",
    }
    tests = {tc.get("name"): tc for tc in gate_suite.findall("testcase")}
    assert list(tests) == [
        *METRICS,
        "error_rate",
        "coverage",
        "case_thresholds",
        "tag:zh:context_recall",
    ]
    assert tests["coverage"].find("skipped") is None
    assert tests["case_thresholds"].find("failure") is not None

    recall = verdict.metrics["context_recall"]
    assert recall.passed is False  # 0.75 < 0.80
    failure = tests["context_recall"].find("failure")
    assert failure is not None
    assert failure.get("message") == recall.message
    assert failure.get("message").startswith("context_recall mean 0.75 < 0.80 (n=6, 95% CI ")
    assert HINTS["context_recall"] in failure.text

    assert verdict.metrics["faithfulness"].passed is True
    assert tests["faithfulness"].find("failure") is None
    assert props(tests["faithfulness"])["threshold"] == "0.8500"

    relevance = tests["context_relevance"]
    assert relevance.find("failure") is None and relevance.find("skipped") is None
    assert props(relevance)["gated"] == "false"

    # 2 of 8 cases errored: 25% > max_error_rate 10%.
    error_rate = tests["error_rate"].find("failure")
    assert error_rate is not None
    assert error_rate.get("message") == (
        "judge unreliable: 2 of 8 case(s) errored (25% > max_error_rate 10%)"
    )
    zh = tests["tag:zh:context_recall"].find("failure")
    assert zh is not None
    assert zh.get("message") == "tag 'zh' context_recall mean 0.50 < 0.80 (n=3, 95% CI 0.21–0.79)"
    assert gate_suite.get("failures") == "4"


def test_junit_passing_gate_has_no_failures(tmp_path: Path) -> None:
    results = [
        CaseResult(id=f"c{i}", source=f"g.csv:{i + 2}", scores={"faithfulness": 0.95})
        for i in range(3)
    ]
    root, verdict = write_and_parse(
        tmp_path,
        results=results,
        metrics=["faithfulness"],
        config=GateConfig(bootstrap_resamples=100),
    )
    assert verdict.passed
    assert root.get("failures") == "0" and root.get("errors") == "0"
    assert root.find("testsuite[@name='rag-gate']/properties/property[@name='verdict']").get(
        "value"
    ) == ("passed")


def test_junit_escapes_characters_xml_cannot_hold(tmp_path: Path) -> None:
    results = [
        CaseResult(id="ctl", source="g.jsonl:1", error="bad byte \x00\x1b here", metrics=["x"])
    ]
    root, _ = write_and_parse(
        tmp_path,
        results=results,
        metrics=["x"],
        config=GateConfig(bootstrap_resamples=100, max_error_rate=1),
    )
    error = root.find("testsuite/testcase/error")
    assert error is not None
    assert error.get("message") == "bad byte \\x00\\x1b here"


def test_junit_replaces_the_file_atomically(tmp_path: Path) -> None:
    (tmp_path / "junit.xml").write_text("stale", encoding="utf-8")
    write_and_parse(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["junit.xml"]


# --- Markdown -----------------------------------------------------------------------


def test_markdown_summary_of_a_failing_gate() -> None:
    results = make_results()
    verdict = gate(results, make_config())
    text = render_markdown(
        verdict, results=results, judge=OFFLINE, usage=Usage(calls=1234, cost_usd=0.5)
    )
    lines = text.splitlines()
    assert lines[0] == "## ❌ RAG gate: FAILED"
    assert any(
        line.startswith("> ⚠️ Scored by the offline heuristic judge, not an LLM:") for line in lines
    )
    assert "| metric | mean | 95% CI | threshold | rule | n | n/a | errors | verdict |" in lines
    recall = verdict.metrics["context_recall"]
    assert (
        f"| `context_recall` | 0.75 | {recall.ci_low:.2f}–{recall.ci_high:.2f} | 0.80 | mean "
        "| 6 of 7 | 0 | 1 | ❌ fail |"
    ) in lines
    assert any(line.startswith("| `context_relevance` | 0.80 |") for line in lines)
    assert any(line.endswith("| 5 of 7 | 1 | 1 | reported |") for line in lines)
    assert "| `zh` | `context_recall` | 0.50 | 0.80 | 3 | ❌ fail |" in lines
    assert "❌ Errors: judge unreliable: 2 of 8 case(s) errored (25% > max_error_rate 10%)" in lines
    # The cases below a threshold, the largest shortfall first; then the errored ones, by cause.
    assert "### Failing cases (3)" in lines
    failing = [line for line in lines if line.startswith("| `") and "golden/" in line]
    assert failing[0].startswith("| `q3` |")
    assert lines.index("### Errored cases (2), 2 causes") > lines.index(failing[-1])
    assert "| 1 | ValueError: target raised | `crash` |" in lines
    assert "| `q3` | `golden/qa.jsonl:4` | `context_recall` 0.50 < 0.90 |" in lines
    assert "1,234 calls" in text and "$0.5000 estimated" in text
    assert f"**{verdict.recommendation}**" in lines
    assert f"- `context_recall`: {HINTS['context_recall']}" in lines


def test_markdown_summary_of_a_passing_gate_with_an_llm_judge() -> None:
    results = [
        CaseResult(id=f"c{i}", source=f"g.csv:{i + 2}", scores={"faithfulness": 0.95})
        for i in range(3)
    ]
    facts = RunFacts(scored_by={"faithfulness": "anthropic"})
    verdict = evaluate_gate(results, ["faithfulness"], GateConfig(bootstrap_resamples=100), facts)
    text = render_markdown(verdict, results=results, judge=CLAUDE, usage=Usage())
    assert text.startswith("## ✅ RAG gate: PASSED\n")
    assert "offline heuristic judge" not in text
    assert "Judge: `anthropic` · model `claude-sonnet-4-5` · --rag-gate-judge" in text
    assert "Failing cases" not in text
    # Three identical scores: the mean passes, its interval does not, and the lead says so.
    assert (
        "**Passed on thin evidence — faithfulness mean 0.95 ≥ 0.85 on 3 cases; the 95% interval "
        "reaches 0.42**" in text
    )
    assert "### Hints" not in text


def test_markdown_lists_at_most_20_failing_cases_and_escapes_pipes() -> None:
    results = [
        CaseResult(id=f"a|{i:02d}", source=f"g.jsonl:{i}", scores={"faithfulness": i / 100})
        for i in range(30)
    ]
    verdict = evaluate_gate(results, ["faithfulness"], GateConfig(bootstrap_resamples=100))
    text = render_markdown(verdict, results=results, judge=CLAUDE, usage=Usage())
    rows = [line for line in text.splitlines() if line.startswith("| `a\\|")]
    assert len(rows) == MAX_FAILING_CASES
    assert rows[0].startswith("| `a\\|00` |")  # the worst first
    assert "… and 10 more in the JSON report." in text


def test_a_core_report_keeps_the_details_people_read_and_every_error() -> None:
    result = CaseResult(
        id="q",
        source="golden.jsonl:1",
        metrics=["faithfulness", "answer_correctness", "mrr", "context_relevance"],
        scores={"faithfulness": 0.5, "answer_correctness": 0.4, "mrr": 1.0},
        errors={"context_relevance": "judge failed"},
        details={
            "faithfulness": [{"claim": "A.", "supported": True}],
            "answer_correctness": [{"statement": "A.", "classification": "TP"}],
            "mrr": [{"rank": 1}],
            "context_relevance": [{"traceback": "Traceback ..."}],
        },
    )
    core = report_for([result], make_config(tag_thresholds={}))["cases"][0]["details"]
    assert set(core) == {"faithfulness", "context_relevance"}
    full_config = make_config(tag_thresholds={}, report_details="full")
    full = report_for([result], full_config)["cases"][0]["details"]
    assert set(full) == {"faithfulness", "answer_correctness", "mrr", "context_relevance"}


def test_reports_get_the_mode_of_any_new_file(tmp_path: Path) -> None:
    import os

    from pytest_ragas_gate.atomic_files import write_text_atomic

    previous = os.umask(0o022)
    try:
        write_text_atomic(tmp_path / "report.json", "{}")
    finally:
        os.umask(previous)
    assert (tmp_path / "report.json").stat().st_mode & 0o777 == 0o644


def test_a_core_report_keeps_the_statements_the_answer_omitted() -> None:
    result = CaseResult(
        id="q",
        source="golden.jsonl:1",
        metrics=["answer_correctness"],
        scores={"answer_correctness": 0.5},
        details={
            "answer_correctness": [
                {"statement": "Said.", "classification": "TP"},
                {"statement": "Left out.", "classification": "FN", "reason": "not in answer"},
            ]
        },
    )
    core = report_for([result], make_config(tag_thresholds={}))["cases"][0]["details"]
    assert core == {
        "answer_correctness": [
            {"statement": "Left out.", "classification": "FN", "reason": "not in answer"}
        ]
    }


def test_an_omitted_statement_the_reference_statements_hold_keeps_no_second_reason() -> None:
    # context_recall lists the statement with its own reason; the panel marks it omitted.
    result = CaseResult(
        id="q",
        source="golden.jsonl:1",
        metrics=["answer_correctness", "context_recall"],
        scores={"answer_correctness": 0.5, "context_recall": 1.0},
        details={
            "answer_correctness": [
                {"statement": "Held.", "classification": "FN", "reason": "not in answer"},
                {"statement": "Only here.", "classification": "FN", "reason": "not in answer"},
            ],
            "context_recall": [{"statement": " held.", "attributed": True, "reason": "ctx 1"}],
        },
    )
    core = report_for([result], make_config(tag_thresholds={}))["cases"][0]["details"]
    assert core["answer_correctness"] == [
        {"statement": "Held.", "classification": "FN"},
        {"statement": "Only here.", "classification": "FN", "reason": "not in answer"},
    ]
