"""Which commit and which CI run a report belongs to, so later readers can name it.

A report is compared with a baseline, listed in a history file and summarised in a pull
request comment long after the run; a local path names none of these for a reviewer, a
commit or a workflow run does. The commit is ``GITHUB_SHA`` in GitHub Actions (the CI
variables of GitLab and others next), else ``git rev-parse HEAD`` of the working directory,
as the run's :class:`~pytest_ragas_gate.settings.run_environment.RunEnvironment` read it.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..settings.run_environment import RunEnvironment

__all__ = ["commit_url", "run_stamp", "short_sha"]


def run_stamp(environment: RunEnvironment) -> dict[str, str | None]:
    """``{"commit", "run_url"}`` of the current run, for the report's ``run`` object."""
    return environment.stamp()


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
