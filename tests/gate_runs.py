"""Helpers for running the gate end to end against the fake LLM server with pytester."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeLLM

TEST_KEY = "test-key-not-real"

#: Fast retries, so fault-injection tests take seconds, not minutes.
FAST_RETRIES = {"timeout_s": 0.5, "retry_backoff_s": 0.005, "max_retries": 6, "max_reasks": 2}


def case_row(index: int) -> dict[str, Any]:
    """A case that every LLM metric applies to; distinct per index, so none is shared."""
    return {
        "id": f"case-{index:03d}",
        "question": f"Who founded Apple, according to source {index}?",
        "answer": f"Apple was founded in 1976 by Steve Jobs and Steve Wozniak. Source {index}.",
        "contexts": [
            f"Apple was founded in 1976 by Steve Jobs and Steve Wozniak. Source {index}.",
            "The company went public in 1980.",
        ],
        "reference": "Apple was founded in 1976 by Steve Jobs and Steve Wozniak.",
    }


def write_golden(directory: Path, rows: list[dict[str, Any]], name: str = "golden.jsonl") -> Path:
    path = directory / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def write_config(directory: Path, **settings: Any) -> None:
    """``rag_gate.yaml`` from keyword settings (JSON is valid YAML)."""
    (directory / "rag_gate.yaml").write_text(json.dumps(settings), encoding="utf-8")


def use_fake_judge(
    monkeypatch: pytest.MonkeyPatch, server: FakeLLM, api: str = "anthropic", key: str = TEST_KEY
) -> None:
    """Point the SDKs of ``api`` at the fake server; the key is only ever the test one."""
    if api == "anthropic":
        monkeypatch.setenv("ANTHROPIC_API_KEY", key)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    else:
        monkeypatch.setenv("OPENAI_API_KEY", key)
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_url)


def read_report(path: Path) -> dict[str, Any]:
    # NaN would be accepted by json.loads; parse_constant makes it fail loudly instead.
    def refuse(constant: str) -> Any:
        raise AssertionError(f"the report holds {constant}")

    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)
    return data


def assert_scores_are_numbers(report: dict[str, Any]) -> None:
    for case in report["cases"]:
        for metric, score in case["scores"].items():
            if score is not None:
                assert isinstance(score, float | int), (case["id"], metric, score)
                assert not math.isnan(score) and 0.0 <= score <= 1.0, (case["id"], metric)


def junit_case_outcomes(path: Path, suite_name: str = "rag-cases") -> dict[str, str]:
    """Each case test case of the JUnit file: ``passed``, ``failure`` or ``error``."""
    outcomes: dict[str, str] = {}
    for suite in ET.parse(path).getroot().iter("testsuite"):
        if suite.get("name") == "rag-gate":
            continue
        for testcase in suite.iter("testcase"):
            kind = "passed"
            if testcase.find("error") is not None:
                kind = "error"
            elif testcase.find("failure") is not None:
                kind = "failure"
            outcomes[str(testcase.get("name"))] = kind
    return outcomes


def assert_no_traceback(result: pytest.RunResult) -> None:
    text = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in text, text
    assert "INTERNALERROR" not in text, text


def csv_rows(
    rows: Iterable[Sequence[object]], *, delimiter: str = ",", lineterminator: str = "\n"
) -> str:
    """Rows as CSV text, quoted as ``csv.QUOTE_MINIMAL`` quotes them.

    Written by hand because Python 3.10's csv writer refuses a NUL in a cell, and the bad
    input tests need exactly such files.
    """

    def cell(value: object) -> str:
        text = str(value)
        if any(character in text for character in (delimiter, '"', "\n", "\r")):
            return '"' + text.replace('"', '""') + '"'
        return text

    return "".join(delimiter.join(cell(value) for value in row) + lineterminator for row in rows)
