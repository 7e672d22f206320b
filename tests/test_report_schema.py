"""The JSON report validates against the JSON Schema the package ships, on real runs.

The schema file is built from the report's own models (``reports/report_schema.py``); a
test keeps the shipped file equal to what they give. Every run here writes its report and
the JUnit file, and both are validated: the report against the shipped JSON Schema with
``jsonschema``, the JUnit file against the Jenkins xUnit plugin's JUnit XSD in tests/data.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeLLM, status
from gate_runs import GOOD, HALLUCINATED, gate_run, write_config, write_jsonl

from pytest_ragas_gate.reports.json_report import SCHEMA_VERSION
from pytest_ragas_gate.reports.report_schema import SCHEMA_PATH, generator, schema_text

jsonschema = pytest.importorskip("jsonschema")
etree = pytest.importorskip("lxml.etree")

JUNIT_XSD = Path(__file__).parent / "data" / "junit-10.xsd"


def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema


def assert_valid(outcome: Any) -> None:
    """The run's JSON report matches the shipped schema, and its JUnit file the XSD."""
    report = outcome.report
    assert report, outcome.stdout.str()
    validator = jsonschema.Draft202012Validator(
        _schema(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    problems = [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in validator.iter_errors(report)
    ]
    assert not problems, problems[:5]
    if outcome.junit_path is not None:
        schema = etree.XMLSchema(etree.parse(str(JUNIT_XSD)))
        document = etree.parse(str(outcome.junit_path))
        assert schema.validate(document), schema.error_log


def test_the_shipped_schema_is_the_one_the_models_give() -> None:
    # After a model change: python -m pytest_ragas_gate.reports.report_schema
    if f"pydantic {generator()}." not in _schema()["$comment"]:
        pytest.skip(f"the shipped schema was built with another pydantic than {generator()}")
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text()


def test_the_schema_names_the_report_version_and_is_a_valid_schema() -> None:
    schema = _schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["schema_version"] == {"const": SCHEMA_VERSION}
    assert f"report-v{SCHEMA_VERSION}" in schema["$id"]


def test_a_report_the_schema_does_not_describe_is_refused(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    outcome = gate_run(pytester, judge="offline", metrics="faithfulness")
    validator = jsonschema.Draft202012Validator(_schema())

    for change in (
        {"schema_version": 1},
        {"verdict": "maybe"},
        {"cases": [{"id": "x"}]},
        {"error_rate": {"total_cases": -1}},
    ):
        assert not validator.is_valid({**outcome.report, **change}), change
    broken = dict(outcome.report)
    del broken["metrics"]
    assert not validator.is_valid(broken)


def run(pytester: pytest.Pytester, *args: str, **options: Any) -> Any:
    return gate_run(pytester, "-p", "no:randomly", *args, junit="junit.xml", **options)


def test_passing_and_failing_runs_validate(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD, {**GOOD, "id": "other", "tags": ["t"]}])
    passed = run(pytester, judge="offline", metrics="faithfulness,context_recall")
    assert passed.ret == 0
    assert_valid(passed)

    write_jsonl(pytester, "golden.jsonl", [GOOD, HALLUCINATED])
    failed = run(pytester, judge="offline", metrics="faithfulness", report_details="full")
    assert failed.ret == 1 and failed.report["verdict"] == "failed"
    assert_valid(failed)


def test_a_run_with_malformed_cases_and_a_partial_run_validate(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD, {"id": "no-question", "answer": "a"}])
    (pytester.path / "golden_empty.jsonl").write_text("", encoding="utf-8")

    outcome = run(pytester, judge="offline", metrics="faithfulness")

    assert outcome.report["error_rate"]["errored_cases"] == 1
    assert_valid(outcome)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-not-real")
        yield fake


def test_a_judge_outage_validates(pytester: pytest.Pytester, server: FakeLLM) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD, HALLUCINATED])
    write_config(pytester.path, max_retries=1, retry_backoff_s=0.005)
    server.fail(status(503, retry_after="0"))

    outcome = run(pytester, judge="anthropic", metrics="faithfulness")

    assert outcome.report["verdict"] == "error"
    assert_valid(outcome)


def test_a_run_of_conversations_validates(pytester: pytest.Pytester) -> None:
    from test_conversations import CONVERSATION

    write_jsonl(pytester, "golden.jsonl", [CONVERSATION, GOOD])

    outcome = run(pytester, judge="offline", metrics="faithfulness")

    assert outcome.report["conversations"]
    assert_valid(outcome)


def test_a_baseline_and_a_pairwise_run_validate(pytester: pytest.Pytester) -> None:
    from test_pairwise import CASES, museum

    write_jsonl(pytester, "golden.jsonl", [museum(index) for index in range(CASES)])
    base = gate_run(pytester, report="base.json", disable=["randomly"], metrics="faithfulness")
    assert base.ret == 0
    changed = [museum(0, "worse"), *(museum(index, "reworded") for index in range(1, CASES))]
    write_jsonl(pytester, "golden.jsonl", changed)

    compared = run(pytester, "--rag-gate-baseline=base.json", metrics="faithfulness")
    assert compared.report["baseline"] is not None
    assert_valid(compared)

    pairwise = run(pytester, "--rag-gate-baseline=base.json", metrics="faithfulness", pairwise=True)
    assert pairwise.report["pairwise"] is not None
    assert_valid(pairwise)
