"""pytest-html's page shows the gate's verdict, not only its item counts.

A run whose items all passed but whose gate blocked the deploy used to read "0 Failed,
20 Passed" with no verdict on the page.
"""

from __future__ import annotations

import re

import pytest
from gate_runs import HALLUCINATED, good_rows, write_jsonl

pytest.importorskip("pytest_html", reason="pytest-html is not installed")


def section(page: str, name: str) -> str:
    """The inner HTML of one of pytest-html's ``additional-summary`` blocks, unstyled."""
    start = page.index(f'<div class="additional-summary {name}">')
    end = page.find('<div class="additional-summary', start + 1)
    inner = page[start:end] if end != -1 else page[start:]
    # Layout is the page's business; what the tests read is the structure and the text.
    inner = re.sub(r' style="[^"]*"', "", inner)
    return re.sub(r"<div>|</div>", "", inner)


def run_with_page(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, str]:
    result = pytester.runpytest("--rag-gate", "--html", "tests.html", *args)
    return result, (pytester.path / "tests.html").read_text(encoding="utf-8")


def test_a_blocked_deploy_shows_its_verdict_table_and_recommendation(
    pytester: pytest.Pytester,
) -> None:
    rows = [*good_rows(2), HALLUCINATED]
    write_jsonl(pytester, "golden.jsonl", rows)
    result, page = run_with_page(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    prefix = section(page, "prefix")
    assert "RAG gate: FAILED" in prefix
    assert "Block deployment — 1 metric(s) below threshold: faithfulness" in prefix
    summary = section(page, "summary")
    assert "<th>metric</th>" in summary
    assert re.search(r"<tr><td>faithfulness</td><td>0\.667</td>.*?<td>FAIL</td></tr>", summary)
    assert "<li>faithfulness mean 0.67 &lt; 0.85 (n=3" in summary
    assert "hint (faithfulness)" in summary


def test_a_passing_run_says_safe_to_deploy_and_user_text_is_escaped(
    pytester: pytest.Pytester,
) -> None:
    rows = good_rows(2)
    rows[1] = {**rows[1], "id": "<b>bold</b>", "thresholds": {"faithfulness": 1.0}}
    rows.append({**HALLUCINATED, "id": "<script>x</script>", "thresholds": {"faithfulness": 0.9}})
    write_jsonl(pytester, "golden.jsonl", rows)
    _, page = run_with_page(pytester, "--rag-gate-threshold", "faithfulness=0.1")
    summary = section(page, "summary")
    assert "&lt;script&gt;x&lt;/script&gt;" in summary
    assert "<script>x</script>" not in page
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    result, page = run_with_page(pytester)
    assert result.ret == pytest.ExitCode.OK
    assert "RAG gate: PASSED</strong> — Safe to deploy" in section(page, "prefix")


def test_an_ungated_run_is_no_deploy_decision_on_the_page(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    _, page = run_with_page(pytester, "--rag-gate-metrics", "answer_correctness")
    prefix = section(page, "prefix")
    assert "RAG gate: UNGATED" in prefix and "Report only, not a deploy decision" in prefix


@pytest.mark.slow
def test_the_verdict_reaches_the_page_under_xdist(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [*good_rows(3), HALLUCINATED])
    result, page = run_with_page(pytester, "-n", "2")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "RAG gate: FAILED" in section(page, "prefix")
    assert "<td>faithfulness</td><td>0.750</td>" in section(page, "summary")
