"""The JUnit and JSON reports of a gate run, serial and under pytest-xdist."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gate_runs import HALLUCINATED, gate_run, good_rows, write_jsonl
from lxml import etree

SCHEMA = Path(__file__).parent / "data" / "junit-10.xsd"


#: Every run of this module writes both reports into a directory it creates.
OPTIONS: dict[str, Any] = {
    "report": "out/report.json",
    "junit": "out/junit.xml",
    "subprocess": True,
}


@pytest.fixture
def golden(pytester: pytest.Pytester) -> None:
    rows = [
        *good_rows(5),
        HALLUCINATED,
        {**HALLUCINATED, "id": "strict", "thresholds": {"faithfulness": 0.5}},
    ]
    write_jsonl(pytester, "golden.jsonl", rows)
    (pytester.path / "golden_bad.jsonl").write_text('{"question": ""}\n', encoding="utf-8")


@pytest.mark.slow
@pytest.mark.usefixtures("golden")
def test_json_report_has_the_documented_keys(pytester: pytest.Pytester) -> None:
    result, report = gate_run(pytester, **OPTIONS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    for key in (
        "schema_version",
        "verdict",
        "judge",
        "config",
        "metrics",
        "cases",
        "usage",
        "timing",
    ):
        assert key in report
    assert report["verdict"] == "failed"
    assert report["judge"]["kind"] == "offline"
    assert "ANTHROPIC_API_KEY" in report["judge"]["selected_by"]
    faithfulness = report["metrics"]["faithfulness"]
    for key in (
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
    ):
        assert key in faithfulness
    assert faithfulness["n"] == 7
    assert faithfulness["mean"] == pytest.approx(5 / 7)
    assert faithfulness["passed"] is False
    cases = {case["id"]: case for case in report["cases"]}
    assert cases["wrong-year"]["source"] == "golden.jsonl:6"
    assert cases["wrong-year"]["scores"]["faithfulness"] == 0.0
    assert cases["wrong-year"]["details"]["faithfulness"][0]["supported"] is False
    bad = [case for case in report["cases"] if case["error"]]
    assert len(bad) == 1 and bad[0]["source"] == "golden_bad.jsonl:1"
    assert "question" in bad[0]["error"]
    assert set(report["usage"]) >= {
        "calls",
        "input_tokens",
        "output_tokens",
        "cost_usd",
        "cache_hits",
        "retries",
    }
    assert report["timing"]["wall_s"] >= report["timing"]["scoring_s"] >= 0


@pytest.mark.usefixtures("golden")
def test_junit_is_valid_and_separates_failures_from_errors(pytester: pytest.Pytester) -> None:
    gate_run(pytester, **OPTIONS)
    document = etree.parse(str(pytester.path / "out" / "junit.xml"))
    etree.XMLSchema(etree.parse(str(SCHEMA))).assertValid(document)
    suites = {suite.get("name"): suite for suite in document.getroot().iter("testsuite")}
    assert set(suites) == {"rag-cases", "rag-gate"}
    cases = suites["rag-cases"]
    assert len(cases.findall("testcase")) == 8
    failed = [
        case.get("name") for case in cases.findall("testcase") if case.find("failure") is not None
    ]
    errored = [case for case in cases.findall("testcase") if case.find("error") is not None]
    assert failed == ["strict"]
    strict = cases.find("testcase[@name='strict']")
    assert strict.find("failure").get("message") == "faithfulness 0.00 < 0.50 (case min)"
    props = {p.get("name"): p.get("value") for p in strict.iter("property")}
    assert props["faithfulness"] in {"0", "0.0", "0.0000"}
    assert len(errored) == 1
    gate = {case.get("name"): case for case in suites["rag-gate"].findall("testcase")}
    message = gate["faithfulness"].find("failure").get("message")
    assert message.startswith("faithfulness mean 0.71 < 0.85 (n=7, 95% CI ")


@pytest.mark.slow
@pytest.mark.usefixtures("golden")
def test_xdist_run_gives_the_same_aggregates_as_a_serial_run(pytester: pytest.Pytester) -> None:
    serial_result, serial = gate_run(pytester, "-p", "no:xdist", **OPTIONS)
    parallel_result, parallel = gate_run(pytester, "-n", "2", **OPTIONS)
    assert serial_result.ret == parallel_result.ret == pytest.ExitCode.TESTS_FAILED
    assert parallel["metrics"] == serial["metrics"]
    assert parallel["failures"] == serial["failures"]
    strip = lambda cases: sorted(  # noqa: E731
        ({k: v for k, v in case.items() if k != "scoring_s"} for case in cases),
        key=lambda case: case["source"],
    )
    assert strip(parallel["cases"]) == strip(serial["cases"])
    parallel_result.stdout.fnmatch_lines(["RAG gate: FAILED"])
