"""The Action and the workflows pass zizmor's workflow security audit, offline.

The policy (which actions may stay on tags, and why) is zizmor.yml at the repository root;
the same command runs in .ci/run.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
AUDITED = [
    ROOT / "action.yml",
    *sorted((ROOT / ".github" / "workflows").glob("*.yml")),
    ROOT / "examples" / "github-workflow.yml",
]


def _zizmor(*args: str) -> subprocess.CompletedProcess[str]:
    executable = shutil.which("zizmor")
    if executable is None:
        pytest.skip("zizmor is not installed (pip install -e '.[dev]' installs it)")
    return subprocess.run(
        [executable, "--offline", "--no-progress", *args, *map(str, AUDITED)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("persona", ["regular", "pedantic"])
def test_the_action_and_the_workflows_have_no_findings(persona: str) -> None:
    audit = _zizmor("--persona", persona)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "No findings to report" in audit.stdout + audit.stderr


def test_every_hash_pin_names_the_release_it_was_checked_against() -> None:
    # A hash is written down only once checked against the commit its release tag names in
    # the action's own repository; the comment says which release, for the next review.
    # The other references stay on the tags zizmor.yml accepts, by owner.
    uses = [
        line.split("uses:", 1)[1].strip()
        for path in AUDITED
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip().removeprefix("- ").startswith("uses:")
    ]
    assert uses
    pinned = [ref for ref in uses if re.search(r"@[0-9a-f]{40}\b", ref)]
    assert pinned, "the docs workflow pins its actions by hash"
    unnamed = [ref for ref in pinned if not re.search(r"@[0-9a-f]{40} # v\d+\.\d+\.\d+$", ref)]
    assert unnamed == []
    policy = (ROOT / "zizmor.yml").read_text(encoding="utf-8")
    assert '"actions/*": ref-pin' in policy
    assert '"*": hash-pin' in policy
