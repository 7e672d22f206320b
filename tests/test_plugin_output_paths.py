"""Report paths are checked before the first judge call: exit 4, no traceback, no paid run.

A ``--rag-gate-report`` that is a directory (or a JUnit path under a file) used to crash
with a traceback after the whole judge run. The run also wrote its reports without a line
saying where they went.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from fakellm import FakeLLM
from gate_runs import assert_no_traceback, good_rows, use_fake_judge, write_jsonl

from pytest_ragas_gate import cli


@pytest.mark.parametrize(
    ("option", "make", "given", "message"),
    [
        (
            "json",
            "dir",
            "out",
            "outputs.json: out is a directory; give a file name, e.g. out/rag-gate-report.json",
        ),
        (
            "junit",
            "file",
            "out/junit.xml",
            "outputs.junit: out/junit.xml cannot be created: */out is a file, not a directory",
        ),
        ("html", "dir", "out", "outputs.html: out is a directory*"),
        ("markdown", "dir", "out", "outputs.markdown: out is a directory*"),
    ],
)
def test_an_unwritable_output_stops_the_run_before_any_judge_call(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    fake_llm: FakeLLM,
    option: str,
    make: str,
    given: str,
    message: str,
) -> None:
    use_fake_judge(monkeypatch, fake_llm)
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    if make == "dir":
        (pytester.path / "out").mkdir()
    else:
        (pytester.path / "out").write_text("", encoding="utf-8")
    result = pytester.runpytest(
        "--rag-gate", "--rag-gate-set", "cache.mode=off", f"--rag-gate-output={option}={given}"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: Cannot write the reports: {message}."])
    assert_no_traceback(result)
    assert fake_llm.judge_requests() == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_directory_is_refused(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    locked = pytester.path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        result = pytester.runpytest("--rag-gate", "--rag-gate-report=locked/r.json")
    finally:
        locked.chmod(0o700)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*locked/r.json cannot be created: *locked is not writable*"])


def test_the_markdown_summary_path_is_checked_too(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    (pytester.path / "summary").mkdir()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(pytester.path / "summary"))
    result = pytester.runpytest("--rag-gate")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*GITHUB_STEP_SUMMARY (the Markdown summary): * is a directory*"])


def test_an_output_path_in_the_config_file_is_checked(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    (pytester.path / "reports").mkdir()
    (pytester.path / "rag_gate.yaml").write_text("outputs:\n  json: reports\n", encoding="utf-8")
    result = pytester.runpytest("--rag-gate")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*outputs.json: reports is a directory*"])


def test_the_summary_says_where_the_reports_went(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    result = pytester.runpytest(
        "--rag-gate", "--rag-gate-report=r.json", "--rag-gate-junit=reports/j.xml"
    )
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["-* rag-gate reports: JSON r.json, JUnit reports/j.xml -*", "=* RAG gate =*"]
    )
    assert (pytester.path / "reports" / "j.xml").is_file()
    quiet = pytester.runpytest("--rag-gate")
    assert "reports:" not in quiet.stdout.str()


def test_regate_merge_and_html_check_their_output_the_same_way(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    pytester.runpytest("--rag-gate", "--rag-gate-report=r.json")
    (pytester.path / "out").mkdir()
    for command in (
        ["regate", "r.json", "-o", "out"],
        ["merge", "r.json", "-o", "out"],
        ["html", "r.json", "-o", "out"],
    ):
        assert cli.main(command) == 4
        assert "Cannot write out: out is a directory" in capsys.readouterr().err


@pytest.mark.slow
def test_an_unwritable_output_under_xdist_is_a_usage_error(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    (pytester.path / "out").mkdir()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-n",
            "2",
            "--rag-gate",
            "--rag-gate-report=out",
        ],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    assert "outputs.json: out is a directory" in result.stderr
    assert "Traceback" not in result.stdout + result.stderr
