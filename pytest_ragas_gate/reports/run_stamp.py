"""Which commit and which CI run a report belongs to, so later readers can name it.

A report is compared with a baseline, listed in a history file and summarised in a pull
request comment long after the run; a local path names none of these for a reviewer, a
commit or a workflow run does. The commit is ``GITHUB_SHA`` in GitHub Actions (the CI
variables of GitLab and others next), else ``git rev-parse HEAD`` of the working directory.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

__all__ = ["commit_url", "current_commit", "current_run_url", "run_stamp", "short_sha"]

#: CI variables holding the commit under test, in the order they are trusted.
_COMMIT_VARIABLES = ("GITHUB_SHA", "CI_COMMIT_SHA", "BUILD_VCS_NUMBER", "GIT_COMMIT")


def current_commit(
    environ: Mapping[str, str] | None = None, root: Path | None = None
) -> str | None:
    """The commit under test: a CI variable, else ``git rev-parse HEAD``; None outside git."""
    environ = os.environ if environ is None else environ
    for variable in _COMMIT_VARIABLES:
        value = environ.get(variable, "").strip()
        if value:
            return value
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", "HEAD"],
            cwd=root or Path.cwd(),
            capture_output=True,
            check=False,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    commit = done.stdout.decode("ascii", "replace").strip()
    return commit if done.returncode == 0 and commit else None


def current_run_url(environ: Mapping[str, str] | None = None) -> str | None:
    """The CI run's page: a GitHub Actions run, or GitLab's ``CI_JOB_URL``."""
    environ = os.environ if environ is None else environ
    repository, run = environ.get("GITHUB_REPOSITORY"), environ.get("GITHUB_RUN_ID")
    if repository and run:
        server = environ.get("GITHUB_SERVER_URL") or "https://github.com"
        return f"{server.rstrip('/')}/{repository}/actions/runs/{run}"
    return environ.get("CI_JOB_URL") or None


def run_stamp(environ: Mapping[str, str] | None = None) -> dict[str, str | None]:
    """``{"commit", "run_url"}`` of the current run, for the report's ``run`` object."""
    return {"commit": current_commit(environ), "run_url": current_run_url(environ)}


def short_sha(commit: str) -> str:
    """The seven-character abbreviation GitHub shows.

    >>> short_sha("0123456789abcdef")
    '0123456'
    """
    return commit[:7]


def commit_url(commit: str, environ: Mapping[str, str]) -> str | None:
    """The commit's page on GitHub, when the repository is known."""
    repository = environ.get("GITHUB_REPOSITORY")
    if not repository:
        return None
    server = environ.get("GITHUB_SERVER_URL") or "https://github.com"
    return f"{server.rstrip('/')}/{repository}/commit/{commit}"
