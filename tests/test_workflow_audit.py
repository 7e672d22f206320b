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


def test_no_action_is_pinned_by_an_unverified_hash() -> None:
    # No hash here has been checked against its action's own repository, so none is
    # written down: the tags that stay are the ones zizmor.yml accepts, by owner.
    uses = [
        line.split("uses:", 1)[1].split("#")[0].strip()
        for path in AUDITED
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip().removeprefix("- ").startswith("uses:")
    ]
    assert uses
    assert not [ref for ref in uses if re.search(r"@[0-9a-f]{40}$", ref)]
    policy = (ROOT / "zizmor.yml").read_text(encoding="utf-8")
    assert '"actions/*": ref-pin' in policy
    assert '"*": hash-pin' in policy
