"""The gate's config is found where the user stands, whatever pytest picks as rootdir.

pytest picks its rootdir before it knows plugin options, so the value of
``--rag-gate-baseline ../main/report.json`` (space-separated, outside the project) counts
as a test path and the rootdir moves up. Before, the project's ``rag_gate.yaml`` (strict
thresholds: FAILED) then went unread and the run PASSED with the default thresholds; the
``--opt=path`` form worked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fakellm import FakeLLM
from gate_runs import FAST_RETRIES, good_rows, use_fake_judge, write_config, write_golden

#: The project's thresholds: its golden set fails them, while it passes the defaults.
STRICT = {"thresholds": {"context_relevance": 0.9}}


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``proj/`` with a golden set and a strict config, and ``main/`` beside it; cwd proj."""
    proj = pytester.path / "proj"
    proj.mkdir()
    (pytester.path / "main").mkdir()
    write_golden(proj, good_rows(2))
    write_config(proj, **STRICT)
    monkeypatch.chdir(proj)
    return proj


def gate(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--rag-gate", "--rag-gate-cache", "off", "-p", "no:randomly", *args)


def test_the_defaults_would_pass_this_golden_set(pytester: pytest.Pytester, project: Path) -> None:
    (project / "rag_gate.yaml").unlink()
    result = gate(pytester)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()


@pytest.mark.parametrize(
    "options",
    [
        ["--rag-gate-report", "../main/report.json"],
        ["--rag-gate-report=../main/report.json"],
        ["--rag-gate-labels", "../main/labels.csv"],
    ],
    ids=["space", "equals", "labels"],
)
def test_a_path_option_outside_the_project_keeps_the_projects_config(
    pytester: pytest.Pytester, project: Path, options: list[str]
) -> None:
    # A path that does not exist yet leaves the rootdir alone; last run's report exists.
    (pytester.path / "main" / "report.json").write_text("{}", encoding="utf-8")
    labels = "id,human_faithfulness\ngood-0,1\ngood-1,1\n"
    (pytester.path / "main" / "labels.csv").write_text(labels, encoding="utf-8")
    result = gate(pytester, *options)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "rag-gate: thresholds *context_relevance>=0.90 *config defaults + rag_gate.yaml*",
            "FAILED context_relevance mean 0.50 < 0.90*",
            "RAG gate: FAILED",
        ]
    )


def test_a_baseline_outside_the_project_keeps_the_projects_config(
    pytester: pytest.Pytester, project: Path
) -> None:
    assert gate(pytester, "--rag-gate-report=../main/report.json").ret == 1
    result = gate(pytester, "--rag-gate-baseline", "../main/report.json")
    assert "rootdir: " + str(pytester.path) in result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.stdout.fnmatch_lines(["*config defaults + rag_gate.yaml*", "RAG gate: FAILED"])


def test_a_config_named_outside_the_project_is_found_from_where_pytest_ran(
    pytester: pytest.Pytester, project: Path
) -> None:
    (project / "rag_gate.yaml").unlink()
    write_config(pytester.path / "main", **STRICT)
    result = gate(pytester, "--rag-gate-config", "../main/rag_gate.yaml")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.stdout.fnmatch_lines(
        [f"*config defaults + {pytester.path / 'main' / 'rag_gate.yaml'} + *", "RAG gate: FAILED"]
    )


def test_a_config_both_above_and_where_pytest_ran_is_a_usage_error(
    pytester: pytest.Pytester, project: Path
) -> None:
    assert gate(pytester, "--rag-gate-report=../main/report.json").ret == 1
    write_config(pytester.path, thresholds={"context_relevance": 0.1})
    result = gate(pytester, "--rag-gate-baseline", "../main/report.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: The gate's config is ambiguous: pytest chose the rootdir {pytester.path}, "
            f"above the directory you ran it in ({project}), and both configure the gate*"
            "write it as --rag-gate-baseline=PATH*"
        ]
    )
    equals = gate(pytester, "--rag-gate-baseline=../main/report.json")
    assert equals.ret == pytest.ExitCode.TESTS_FAILED, equals.stdout.str()


def test_the_cache_stays_beside_the_projects_config(
    pytester: pytest.Pytester, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(project, judge="anthropic", model="claude-sonnet-4-6", **FAST_RETRIES)
    (pytester.path / "main" / "report.json").write_text("{}", encoding="utf-8")
    with FakeLLM() as server:
        use_fake_judge(monkeypatch, server)
        result = pytester.runpytest(
            "--rag-gate",
            "--rag-gate-metrics=faithfulness",
            "--rag-gate-report",
            "../main/report.json",
        )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert "rootdir: " + str(pytester.path) in result.stdout.str()
    assert list((project / ".rag_gate_cache").glob("*/*.json"))
    assert not (pytester.path / ".rag_gate_cache").exists()
