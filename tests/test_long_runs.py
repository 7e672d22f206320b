"""At 2,000 cases with the judge down for most, the comment and summary still show the failures.

The comment used to list every errored case alphabetically, each with the same error,
was cut at 60,000 characters in the middle of a row, and never reached the seven cases
that fail on quality. Now those come first, worst first; the errored cases are one row
per cause with a count and three examples; and a body that must be cut loses whole rows
from its end, says how many and where the full list is.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeCall, FakeLLM, Raw, default_reply
from gate_runs import METRICS, case, gate_run, write, write_config, write_golden

from pytest_ragas_gate.gate.verdict import evaluate_gate
from pytest_ragas_gate.judges.base import JudgeInfo
from pytest_ragas_gate.reports.json_report import load_report
from pytest_ragas_gate.reports.markdown import render_markdown
from pytest_ragas_gate.reports.pr_comment import comment_body
from pytest_ragas_gate.scoring.results import CaseResult
from pytest_ragas_gate.settings.config import GateConfig
from pytest_ragas_gate.usage import Usage

#: GitHub refuses a comment longer than this.
GITHUB_LIMIT = 65_536

#: The seven cases that fail on quality, and their faithfulness, worst first.
REAL_FAILURES = {f"refund-order-{n}": 0.1 * n for n in range(1, 8)}


def _word(index: int) -> str:
    """A word of its own per index, with no digit: ``gh``, ``gi`` … (never read as an id)."""
    letters = "ghijklmnopqrstuv"
    text = ""
    while True:
        index, digit = divmod(index, len(letters))
        text = letters[digit] + text
        if not index:
            return "z" + text


def outage(index: int) -> str:
    """The judge's connection error, with the request's own id and port."""
    return (
        f"anthropic judge: request req_{index:05d} to 127.0.0.1:{40000 + index} failed after "
        f"{2 + index % 3} attempts: Connection refused"
    )


def errored(case_id: str, message: str, line: int) -> CaseResult:
    result = case(case_id, None, line=line)
    return result.model_copy(update={"errors": {"faithfulness": message}, "scores": {}})


def long_run(tmp_path: Path, *, distinct_causes: int = 0) -> Path:
    """2,000 cases: seven below the threshold, the judge down for most of the others.

    ``distinct_causes`` of the errored cases each fail of a cause of their own (a row
    each), enough to make the comment longer than GitHub takes.
    """
    results: list[CaseResult] = []
    for line, case_id in enumerate(sorted(REAL_FAILURES), start=1):
        results.append(case(case_id, REAL_FAILURES[case_id], line=line))
    for index in range(2_000 - len(results)):
        line = len(results) + 1
        # Named so that, alphabetically, every errored case comes before the failures.
        case_id = f"account-{index:04d}"
        message = outage(index)
        if index < distinct_causes:
            message = f"target raised ValueError: no answer for the {_word(index)} catalogue"
        results.append(errored(case_id, message, line))
    config = GateConfig(
        judge="anthropic", bootstrap_resamples=200, thresholds={"faithfulness": 0.8}
    )
    return write(tmp_path / "report.json", results, config=config)


def test_the_comment_shows_the_failures_first_and_the_errors_by_cause(tmp_path: Path) -> None:
    body = comment_body(load_report(long_run(tmp_path)))
    assert len(body) < GITHUB_LIMIT
    failing = body.index("### Failing cases (7)")
    errors = body.index("### Errored cases (1,993), 1 cause")
    assert failing < errors
    # The seven, worst first.
    rows = re.findall(r"^\| `golden.jsonl::(refund-order-\d)` \|", body, flags=re.MULTILINE)
    assert rows == sorted(REAL_FAILURES, key=REAL_FAILURES.__getitem__)
    # One row for the outage: its count, one case's own error, three examples.
    outage_rows = [line for line in body.splitlines() if "Connection refused" in line]
    assert len(outage_rows) == 1
    assert re.fullmatch(
        r"\| 1,993 \| faithfulness error: anthropic judge: request req_\d+ to 127\.0\.0\.1:\d+ "
        r"failed after \d attempts: Connection refused \| `account-\d+`, `account-\d+`, "
        r"`account-\d+` and 1,990 more \|",
        outage_rows[0],
    )
    assert "left out" not in body


def test_a_comment_that_must_be_cut_is_cut_between_rows_and_keeps_every_failure(
    tmp_path: Path,
) -> None:
    body = comment_body(load_report(long_run(tmp_path, distinct_causes=1_500)))
    assert len(body) <= GITHUB_LIMIT
    lines = body.splitlines()
    # Every table row is whole: the cut fell between rows.
    assert all(line.endswith("|") for line in lines if line.startswith("|"))
    for case_id in REAL_FAILURES:
        assert f"| `golden.jsonl::{case_id}` |" in body
    cause_rows = [line for line in lines if "ValueError" in line]
    left_out = 1_500 + 1 - len(cause_rows) - 1  # the outage's row was the last, cut first
    note = next(line for line in lines if "left out" in line)
    assert note == (
        f"{left_out:,} rows left out; the full list is in the HTML report in the run's "
        "artifacts and the job's step summary."
    )
    # The note comes after the tables it cut, before the run marker closing the body.
    assert lines.index(note) > lines.index(cause_rows[-1])
    assert lines[-1].startswith("<!-- rag-gate run: failed")


def test_the_step_summary_groups_the_errors_under_the_failures(tmp_path: Path) -> None:
    report = load_report(long_run(tmp_path))
    verdict = evaluate_gate(report.results, METRICS, report.config, report.facts)
    text = render_markdown(
        verdict,
        results=report.results,
        judge=JudgeInfo(kind="anthropic", model="claude-test", selected_by="test"),
        usage=Usage(),
        html_report=True,
    )
    assert text.index("### Failing cases (7)") < text.index("### Errored cases (1,993), 1 cause")
    rows = re.findall(r"^\| `(refund-order-\d)` \|", text, flags=re.MULTILINE)
    assert rows == sorted(REAL_FAILURES, key=REAL_FAILURES.__getitem__)
    assert sum("Connection refused" in line for line in text.splitlines()) == 1
    assert len(re.findall(r"`account-\d+`", text)) == 3


@pytest.mark.slow
def test_an_800_case_run_with_the_judge_failing_for_most_comments_its_failures_first(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: the real SDK against the fake server, which garbles most replies."""
    good = {
        "question": "How much storage does the Zorblax plan give each user?",
        "contexts": ["The Zorblax plan gives each user 2 TB of storage."],
        "reference": "The Zorblax plan gives each user 2 TB of storage.",
    }
    rows = [
        {**good, "id": f"account-{index:04d}", "answer": "Each user gets 2 TB of storage."}
        for index in range(793)
    ]
    # Nothing of these answers is in the contexts: faithfulness 0 when the judge answers.
    rows += [
        {**good, "id": f"refund-order-{n}", "answer": f"Quorvex tier {n} ships satellite uplinks."}
        for n in range(1, 8)
    ]
    write_golden(pytester.path, rows)
    write_config(
        pytester.path,
        max_retries=0,
        max_reasks=0,
        concurrency=16,
        metrics=["faithfulness"],
        thresholds={"faithfulness": 0.8},
    )

    def garbled_unless_quorvex(call: FakeCall) -> dict[str, Any] | Raw:
        if "Quorvex" in call.user:
            return default_reply(call)
        return Raw("the judge is overloaded")

    with FakeLLM(responder=garbled_unless_quorvex) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-not-real")
        run = gate_run(pytester, "-p", "no:randomly", judge="anthropic", cache="off")
    assert run.report["verdict"] in ("failed", "error")
    body = comment_body(load_report(pytester.path / "report.json"))
    assert len(body) < GITHUB_LIMIT
    assert body.index("### Failing cases (7)") < body.index("### Errored cases (793)")
    rows_named = re.findall(r"^\| `golden.jsonl::(refund-order-\d)` \|", body, flags=re.M)
    assert sorted(rows_named) == sorted(REAL_FAILURES)
    assert body.count("`account-") == 3


def test_a_cut_keeps_every_gated_metric_and_shown_failure_and_shortens_long_ids(
    tmp_path: Path,
) -> None:
    # Twelve cases whose 7,000-character ids alone make ten rows longer than a comment.
    results = [case(f"{index:02d}-" + "x" * 7_000, 0.1, 0.1, line=index + 1) for index in range(12)]
    config = GateConfig(
        judge="anthropic",
        bootstrap_resamples=200,
        thresholds={"faithfulness": 0.8, "context_recall": 0.8},
    )
    body = comment_body(load_report(write(tmp_path / "report.json", results, config=config)))
    assert len(body) <= GITHUB_LIMIT
    lines = body.splitlines()
    assert all(line.endswith("|") for line in lines if line.startswith("|"))
    for metric in ("faithfulness", "context_recall"):
        assert any(line.startswith(f"| `{metric}` |") for line in lines), metric
    failing = [line for line in lines if line.startswith("| `golden.jsonl::")]
    shown = next(line for line in lines if line.startswith("Showing "))
    assert shown.startswith(f"Showing {len(failing)} of 12;")
    assert len(failing) == 10
    # Each id shortened to a readable prefix, not its row left out.
    assert all("…" in line and len(line) < 600 for line in failing)
    assert "long rows shortened; the full list is in the HTML report" in body


def test_ties_at_one_shortfall_are_listed_alike_in_the_summary_and_the_comment(
    tmp_path: Path,
) -> None:
    # Four cases 0.3 below the threshold, in the file out of alphabetical order, and one
    # worse: the worst first, then the ties by case, in both reports.
    ids = ["delta", "bravo", "charlie", "alpha"]
    results = [case(case_id, 0.5, line=line) for line, case_id in enumerate(ids, start=1)]
    results.append(case("echo", 0.1, line=5))
    config = GateConfig(
        judge="anthropic", bootstrap_resamples=200, thresholds={"faithfulness": 0.8}
    )
    report = load_report(write(tmp_path / "report.json", results, config=config))
    verdict = evaluate_gate(report.results, METRICS, report.config, report.facts)
    summary = render_markdown(
        verdict,
        results=report.results,
        judge=JudgeInfo(kind="anthropic", model="claude-test", selected_by="test"),
        usage=Usage(),
        html_report=True,
    )
    comment = comment_body(report)
    expected = ["echo", "alpha", "bravo", "charlie", "delta"]
    assert (
        re.findall(r"^\| `(alpha|bravo|charlie|delta|echo)` \|", summary, flags=re.MULTILINE)
        == expected
    )
    assert re.findall(r"^\| `golden.jsonl::([a-z]+)` \|", comment, flags=re.MULTILINE) == expected
