"""The run's ambient inputs, captured once: environment variables, commit, run URL, base ref, git.

The plugin's activation and each ``rag-gate`` command capture a :class:`RunEnvironment`
and pass it down; the gate and the reports read what they need of it and never the
process's environment or ``git`` themselves, so a saved report re-gated on another machine
renders from what it holds and the environment it is given, nothing else.
"""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["BASE_REF_VARIABLE", "GitError", "GitReader", "RunEnvironment"]

#: CI variables holding the commit under test, in the order they are trusted.
_COMMIT_VARIABLES = ("GITHUB_SHA", "CI_COMMIT_SHA", "BUILD_VCS_NUMBER", "GIT_COMMIT")
#: A pull request's base branch, as GitHub Actions gives it.
BASE_REF_VARIABLE = "GITHUB_BASE_REF"


class GitError(Exception):
    """git could not run, or refused: the message says why in git's own first line."""


@dataclass(frozen=True)
class GitReader:
    """Reads a repository with ``git``: the one place the package runs it."""

    timeout_s: float = 60.0

    def run(self, root: Path, *args: str) -> str:
        """``git -C root ARGS``'s output.

        Raises:
            GitError: git is missing, timed out or failed.
        """
        try:
            done = subprocess.run(
                ["git", "-C", str(root), *args],
                capture_output=True,
                check=False,
                timeout=self.timeout_s,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise GitError(f"git could not run ({error})") from None
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise GitError(message[0] if message else f"git {args[0]} failed")
        return done.stdout.decode("utf-8", "replace")

    def head(self, root: Path) -> str | None:
        """The commit checked out at ``root``, or None outside git."""
        try:
            commit = self.run(root, "rev-parse", "--verify", "--quiet", "HEAD").strip()
        except GitError:
            return None
        return commit or None


@dataclass(frozen=True)
class RunEnvironment:
    """What the run takes from its surroundings.

    Attributes:
        variables: the environment variables (``os.environ`` when captured).
        root: the directory the run's commit is read from.
        git: the git reader.
    """

    variables: Mapping[str, str] = field(default_factory=dict)
    root: Path = Path()
    git: GitReader = GitReader()

    @classmethod
    def capture(cls, root: Path | None = None) -> RunEnvironment:
        """The process's environment, once, with ``root`` (default: the working directory)."""
        return cls(variables=os.environ, root=Path.cwd() if root is None else root)

    def variable(self, name: str) -> str | None:
        """The variable ``name`` stripped, or None when unset or blank."""
        value = self.variables.get(name, "").strip()
        return value or None

    @functools.cached_property
    def commit(self) -> str | None:
        """The commit under test: a CI variable, else ``git rev-parse HEAD``; None outside git.

        Read on first use only: a run that writes no report never runs git.
        """
        for variable in _COMMIT_VARIABLES:
            value = self.variable(variable)
            if value:
                return value
        return self.git.head(self.root)

    @property
    def run_url(self) -> str | None:
        """The CI run's page: a GitHub Actions run, or GitLab's ``CI_JOB_URL``."""
        repository, run = (
            self.variables.get("GITHUB_REPOSITORY"),
            self.variables.get("GITHUB_RUN_ID"),
        )
        if repository and run:
            server = self.variables.get("GITHUB_SERVER_URL") or "https://github.com"
            return f"{server.rstrip('/')}/{repository}/actions/runs/{run}"
        return self.variables.get("CI_JOB_URL") or None

    @property
    def base_ref(self) -> str | None:
        """A pull request's base branch (``GITHUB_BASE_REF``), or None outside one."""
        return self.variable(BASE_REF_VARIABLE)

    def stamp(self) -> dict[str, str | None]:
        """``{"commit", "run_url"}`` of the run, for the report's ``run`` object."""
        return {"commit": self.commit, "run_url": self.run_url}
