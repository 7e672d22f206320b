"""The run's surroundings, read once: variables, commit, CI run, base ref, git."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pytest_ragas_gate.settings.run_environment import GitError, GitReader, RunEnvironment


def test_a_ci_variable_names_the_commit_before_git_is_asked(tmp_path: Path) -> None:
    environment = RunEnvironment({"CI_COMMIT_SHA": " abc123 ", "GITHUB_SHA": ""}, tmp_path)
    assert environment.commit == "abc123"


def test_outside_ci_the_commit_is_the_checked_out_one(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert RunEnvironment({}, tmp_path).commit is None  # no commit yet
    (tmp_path / "f").write_text("x", encoding="utf-8")
    author = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "-C", str(tmp_path), "add", "f"], check=True)
    subprocess.run(["git", "-C", str(tmp_path), *author, "commit", "-qm", "x"], check=True)
    head = GitReader().run(tmp_path, "rev-parse", "HEAD").strip()
    assert RunEnvironment({}, tmp_path).stamp() == {"commit": head, "run_url": None}


def test_the_ci_run_and_the_base_ref_come_from_the_variables(tmp_path: Path) -> None:
    variables = {
        "GITHUB_REPOSITORY": "acme/rag",
        "GITHUB_RUN_ID": "42",
        "GITHUB_BASE_REF": " main ",
        "GITHUB_SHA": "f00",
    }
    environment = RunEnvironment(variables, tmp_path)
    assert environment.run_url == "https://github.com/acme/rag/actions/runs/42"
    assert environment.base_ref == "main"
    assert RunEnvironment({"CI_JOB_URL": "https://ci/job/7"}).run_url == "https://ci/job/7"
    assert RunEnvironment({}).base_ref is None


def test_git_failing_says_why_in_git_s_words(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="not a git repository"):
        GitReader().run(tmp_path, "rev-parse", "HEAD")
