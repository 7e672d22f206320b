"""Nothing that looks golden is skipped unseen, and every message names current keys.

Extensions match whatever their case; a file that reads as a golden set but matches no
``golden.files`` glob is named in one hint line; an empty file is a file with no cases, as
``[]`` is; ``rag-gate comment --dry-run`` reads the report whatever ``--comment`` says.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate_runs import GOOD, assert_no_traceback, cases, gate_run, write, write_jsonl

from pytest_ragas_gate import cli


def test_an_upper_case_extension_is_a_golden_file(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden_c.JSONL", [GOOD])

    outcome = gate_run(pytester, "-p", "no:randomly", judge="offline", metrics="faithfulness")

    assert outcome.ret == 0
    assert [case["id"] for case in outcome.report["cases"]] == ["founders"]
    assert outcome.report["run"]["golden_files"] == {"golden_c.JSONL": 1}


def test_a_file_that_reads_as_golden_outside_the_globs_is_named_in_one_hint(
    pytester: pytest.Pytester,
) -> None:
    data = pytester.mkdir("data")
    write_jsonl(pytester, "data/golden.jsonl", [GOOD])
    write_jsonl(pytester, "data/cases.jsonl", [{**GOOD, "id": "other"}])
    (data / "more.json").write_text(json.dumps([{**GOOD, "id": "more"}]), encoding="utf-8")
    # Not golden-like: a list of numbers, and a file the exclude setting names.
    (data / "numbers.json").write_text("[1, 2, 3]\n", encoding="utf-8")
    (data / "notes.txt").write_text(json.dumps(GOOD) + "\n", encoding="utf-8")

    outcome = gate_run(
        pytester, "-p", "no:randomly", "data", judge="offline", metrics="faithfulness"
    )

    assert outcome.ret == 0
    hints = [line for line in outcome.stdout.lines if "look like golden sets" in line]
    assert hints == [
        "hint: 2 file(s) look like golden sets but match no golden.files glob, so their "
        "cases were not gated: data/cases.jsonl, data/more.json; add a glob to golden.files "
        "or name the file on the command line"
    ]
    assert outcome.report["run"]["look_alike_files"] == ["data/cases.jsonl", "data/more.json"]


def test_a_look_alike_of_another_gate_s_folder_is_not_hinted(pytester: pytest.Pytester) -> None:
    # examples/live has its own rag_gate.yaml: its questions are another gate's golden set.
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    other = pytester.mkdir("live")
    write_jsonl(pytester, "live/questions.jsonl", [{**GOOD, "id": "other"}])
    (other / "rag_gate.yaml").write_text("metrics: [faithfulness]\n", encoding="utf-8")

    outcome = gate_run(pytester, "-p", "no:randomly", judge="offline", metrics="faithfulness")

    assert "look like golden sets" not in outcome.stdout.str()


def test_a_look_alike_the_exclude_setting_names_is_not_hinted(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    write_jsonl(pytester, "cases.jsonl", [{**GOOD, "id": "other"}])
    (pytester.path / "rag_gate.yaml").write_text(
        "golden:\n  exclude: [cases.jsonl]\n", encoding="utf-8"
    )

    outcome = gate_run(pytester, "-p", "no:randomly", judge="offline", metrics="faithfulness")

    assert "look like golden sets" not in outcome.stdout.str()


@pytest.mark.parametrize("content", ["", "\n  \n", "[]\n"], ids=["0-byte", "blank", "[]"])
def test_an_empty_file_is_a_file_with_no_cases_and_the_run_partial(
    pytester: pytest.Pytester, content: str
) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    name = "golden_empty.json" if content.startswith("[") else "golden_empty.jsonl"
    (pytester.path / name).write_text(content, encoding="utf-8")

    outcome = gate_run(pytester, "-p", "no:randomly", judge="offline", metrics="faithfulness")

    assert_no_traceback(outcome)
    assert outcome.report["verdict"] == "partial"
    assert outcome.report["run"]["golden_files"][name] == 0
    outcome.stdout.fnmatch_lines([f"*not gated: {name} (empty file)*"])
    assert outcome.ret != pytest.ExitCode.USAGE_ERROR


def test_no_golden_file_collected_names_the_current_key(pytester: pytest.Pytester) -> None:
    pytester.mkdir("data")
    write_jsonl(pytester, "data/notes.jsonl", [{"text": "not a case"}])

    outcome = gate_run(
        pytester, "-p", "no:randomly", "data", judge="offline", metrics="faithfulness"
    )

    outcome.stdout.fnmatch_lines(
        ["*no golden file was collected (under directories, golden files match golden*"]
    )
    assert "set golden.files)" in outcome.stdout.str()
    assert "case_files" not in outcome.stdout.str()


@pytest.mark.parametrize("comment", [None, "false", "auto"])
def test_a_dry_run_prints_the_body_whatever_comment_says(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    comment: str | None,
) -> None:
    monkeypatch.delenv("GITHUB_EVENT_NAME", raising=False)
    report = write(tmp_path / "report.json", cases([0.9, 0.95, 0.9]))
    chosen = [] if comment is None else ["--comment", comment]

    status = cli.main(["comment", str(report), "--dry-run", *chosen])

    assert status == 0
    assert "## ✅ RAG gate: PASSED" in capsys.readouterr().out


def test_a_dry_run_of_a_bad_report_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GITHUB_EVENT_NAME", raising=False)
    broken = tmp_path / "report.json"
    broken.write_text('{"verdict": "passed"}', encoding="utf-8")

    status = cli.main(["comment", str(broken), "--dry-run"])

    assert status == 4
    assert "schema_version" in capsys.readouterr().err
