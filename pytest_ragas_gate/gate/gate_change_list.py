"""The changes a pull request makes to the gate's inputs, as a run records them.

Apart from finding them (``gate_changes``, which runs git): a run outside a pull request,
or a report that only shows them, needs the shapes, not the search.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..model_defaults import empty_list

__all__ = ["BASE_REF_ENV", "ChangeKind", "GateChange", "GateChanges"]

#: Set by GitHub Actions on pull_request events: the branch the pull request targets.
BASE_REF_ENV = "GITHUB_BASE_REF"

ChangeKind = Literal[
    "config", "public_key", "invocation", "golden", "cache", "conftest", "entry_points"
]


class GateChange(BaseModel):
    """One change to the gate's inputs: what kind, which file, and what it does."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    kind: ChangeKind
    path: str
    detail: str


class GateChanges(BaseModel):
    """Every change to the gate's inputs against ``base_ref``; saved as ``run.gate_changes``.

    ``problem`` says why nothing could be compared (no git, an unknown ref); the changes
    are then unknown, not absent.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    base_ref: str
    changes: list[GateChange] = Field(default_factory=empty_list)
    problem: str | None = None
