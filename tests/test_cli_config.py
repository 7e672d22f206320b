"""``rag-gate`` reads a ``--config`` file exactly as pytest does: the same refusal, exit 4.

Before, ``rag-gate regate report.json --config typo.yaml`` with ``faithfulnes: 0.5`` under
``thresholds`` exited 0 (the typo gated nothing, faithfulness kept its default) while
``pytest --rag-gate --rag-gate-config typo.yaml`` refused the same file.
"""

from __future__ import annotations

import pytest
from gate_runs import cases, good_rows, write, write_jsonl
from test_cli import in_process

TYPO = "thresholds:\n  faithfulnes: 0.5\n"
MESSAGE = (
    "Invalid rag-gate configuration: setting 'thresholds' from typo.yaml:2: unknown metric "
    "'faithfulnes'; did you mean 'faithfulness'?"
)


def test_pytest_and_every_command_with_a_config_refuse_a_misspelt_metric(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "typo.yaml").write_text(TYPO, encoding="utf-8")
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    result = pytester.runpytest("--rag-gate", "--rag-gate-config", "typo.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {MESSAGE}"])

    write(pytester.path / "run.json", cases([0.9, 0.8]))
    for command in (
        ("gate", "run.json", "--config", "typo.yaml"),
        ("gate", "run.json", "-o", "merged.json", "--config", "typo.yaml"),
    ):
        status, out, err = in_process(pytester.path, *command)
        assert status == 4, (command, out, err)
        assert err.strip() == f"rag-gate gate: {MESSAGE}"
    # The old name of merging (a hidden alias) says so, then the same one-line error.
    status, out, err = in_process(
        pytester.path, "merge", "run.json", "-o", "merged.json", "--config", "typo.yaml"
    )
    assert status == 4, (out, err)
    assert err.strip().splitlines() == [
        "rag-gate merge: warning: this command name is deprecated and goes in 0.3.0: use "
        "rag-gate gate REPORT REPORT… -o OUT",
        f"rag-gate merge: {MESSAGE}",
    ]
    assert not (pytester.path / "merged.json").exists()


def test_a_config_may_name_the_metrics_the_report_holds(pytester: pytest.Pytester) -> None:
    write(pytester.path / "run.json", cases([0.9, 0.8]))
    (pytester.path / "strict.yaml").write_text(
        "thresholds:\n  context_recall: 0.95\n  answer_correctness: 0.5\n", encoding="utf-8"
    )
    status, out, err = in_process(pytester.path, "regate", "run.json", "--config", "strict.yaml")
    assert status == 1, err
    assert "FAILED context_recall mean 0.90 < 0.95" in out
