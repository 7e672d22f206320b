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

from pytest_ragas_gate.gate.deploy_decision import SMOKE_CHECK

MODULE_DUMP = """
import sys

from pydantic import BaseModel


def pytest_unconfigure(config):
    names = sorted(name for name in sys.modules if name.startswith("pytest_ragas_gate"))
    with open("modules.txt", "w", encoding="utf-8") as out:
        out.write("\\n".join(names) + "\\n")
    models, pending = set(), [BaseModel]
    while pending:
        for model in pending.pop().__subclasses__():
            if model not in models:
                models.add(model)
                pending.append(model)
    built = sorted(
        f"{model.__module__}.{model.__qualname__}"
        for model in models
        if model.__module__.startswith("pytest_ragas_gate") and model.__pydantic_complete__
    )
    with open("models.txt", "w", encoding="utf-8") as out:
        out.write("\\n".join(built) + "\\n")
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
    "pytest_ragas_gate.judges.compare",
    "pytest_ragas_gate.gate.baseline",
    "pytest_ragas_gate.reports.github",
    "pytest_ragas_gate.reports.gate_inputs",
)
#: Models a plain run defines but never validates on their own: pydantic builds their
#: validators on first use, so a run without baseline, pairwise judging, labels, latency,
#: live targets, conversations or citations does not pay for them.
NOT_BUILT = tuple(
    f"pytest_ragas_gate.{name}"
    for name in (
        "gate.baseline_figures.BaselineComparison",
        "gate.baseline_figures.CaseDelta",
        "gate.baseline_figures.MetricDelta",
        "gate.coverage.NotGated",
        "gate.aggregates.MisspeltKey",
        "gate.aggregates.TagVerdict",
        "gate.gate_change_list.GateChanges",
        "gate.judge_noise.JudgeNoise",
        "gate.pairwise_summary.PairwiseSummary",
        "golden.cases.Message",
        "golden.tool_calls.ToolCall",
        "golden.tool_calls.ExpectedTool",
        "judges.cache_integrity.CacheIntegrity",
        "judges.pricing.ModelPrice",
        "judges.requests.CaseReview",
        "judges.requests.ReviewCase",
        "judges.requests.GenerateQuestions",
        "judges.requests.VerifyCitations",
        "live.latency.LatencyVerdict",
        "live.oracle_gap_figures.OracleGap",
        "scoring.pairwise_verdict.PairwiseVerdict",
        "scoring.repeats.AutoRepeat",
        "settings.config.LatencyBudget",
        "trust.figures.MetricAgreement",
        "trust.figures.PpiEstimate",
    )
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
    assert SMOKE_CHECK in completed.stdout
    loaded = set((tmp_path / "modules.txt").read_text(encoding="utf-8").split())
    # The dump saw the run itself: the session and the offline judge were loaded.
    assert {"pytest_ragas_gate.plugin.session", "pytest_ragas_gate.judges.offline.judge"} <= (
        loaded
    )
    assert sorted(loaded & set(NOT_LOADED)) == []
    assert [name for name in sorted(loaded) if name.startswith(NOT_LOADED_PACKAGES)] == []
    built = set((tmp_path / "models.txt").read_text(encoding="utf-8").split())
    # The models the run used were built: the dump saw them.
    assert {
        "pytest_ragas_gate.golden.cases.GoldenCase",
        "pytest_ragas_gate.gate.verdict.GateVerdict",
    } <= (built)
    assert sorted(built & set(NOT_BUILT)) == []
