"""A plain gate run loads only the stages it uses.

Start-up time is paid on every run, cached or not: the renderers of outputs nobody asked
for, the trust statistics of a run without labels, pairwise judging, gate-change
detection without a base branch, cache signing, ``synth`` and ``import`` must not load.
The run is a subprocess, since this process has long imported every module.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from gate_runs import good_rows, write_golden

MODULE_DUMP = """
import sys


def pytest_unconfigure(config):
    names = sorted(name for name in sys.modules if name.startswith("pytest_ragas_gate"))
    with open("modules.txt", "w", encoding="utf-8") as out:
        out.write("\\n".join(names) + "\\n")
"""

#: Stages a run without their setting or output never needs.
NOT_LOADED = (
    "pytest_ragas_gate.reports.html",
    "pytest_ragas_gate.reports.junit",
    "pytest_ragas_gate.reports.markdown",
    "pytest_ragas_gate.reports.otel",
    "pytest_ragas_gate.reports.history",
    "pytest_ragas_gate.trust.agreement",
    "pytest_ragas_gate.trust.ppi",
    "pytest_ragas_gate.trust.labels",
    "pytest_ragas_gate.trust.label_checks",
    "pytest_ragas_gate.gate.pairwise",
    "pytest_ragas_gate.scoring.pairwise",
    "pytest_ragas_gate.gate.gate_changes",
    "pytest_ragas_gate.gate.gate_change_details",
    "pytest_ragas_gate.live.oracle",
    "pytest_ragas_gate.live.oracle_gaps",
    "pytest_ragas_gate.live.conversation_replay",
    "pytest_ragas_gate.judges.cache_signing",
)
#: Whole packages only the ``rag-gate`` command uses.
NOT_LOADED_PACKAGES = (
    "pytest_ragas_gate.synth",
    "pytest_ragas_gate.importers",
    "pytest_ragas_gate.cli",
)


def test_a_plain_offline_run_loads_no_optional_stage(tmp_path: Path) -> None:
    write_golden(tmp_path, good_rows(3))
    (tmp_path / "conftest.py").write_text(MODULE_DUMP, encoding="utf-8")
    # Outside GitHub Actions and without a key: no step summary, no base branch, offline.
    unset = {
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "GITHUB_ACTIONS",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_BASE_REF",
        "RAG_GATE_CONFIG",
        "RAG_GATE_JUDGE",
        "RAG_GATE_SIGNING_KEY",
    }
    env = {key: value for key, value in os.environ.items() if key not in unset}
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "--rag-gate", "-p", "no:cacheprovider", "-q"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "Safe to deploy" in completed.stdout
    loaded = set((tmp_path / "modules.txt").read_text(encoding="utf-8").split())
    # The dump saw the run itself: the session and the offline judge were loaded.
    assert {"pytest_ragas_gate.plugin.session", "pytest_ragas_gate.judges.offline.judge"} <= (
        loaded
    )
    assert sorted(loaded & set(NOT_LOADED)) == []
    assert [name for name in sorted(loaded) if name.startswith(NOT_LOADED_PACKAGES)] == []
