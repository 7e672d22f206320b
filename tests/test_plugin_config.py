"""Where settings come from: command line > environment > rag_gate.yaml > pyproject > defaults."""

from __future__ import annotations

import pytest
from gate_runs import good_rows, write_jsonl


def test_yaml_overrides_pyproject_and_cli_overrides_both(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    pytester.makepyprojecttoml(
        "[tool.rag_gate]\nthresholds = { faithfulness = 0.5, context_recall = 0.6 }\n"
    )
    (pytester.path / "rag_gate.yaml").write_text(
        "thresholds:\n  faithfulness: 0.7\n", encoding="utf-8"
    )
    result = pytester.runpytest("--rag-gate")
    result.stdout.fnmatch_lines(
        [
            "rag-gate: thresholds faithfulness>=0.70 * context_recall>=0.60 *"
            "config defaults + pyproject.toml ?tool.rag_gate? + rag_gate.yaml"
        ]
    )
    cli = pytester.runpytest("--rag-gate", "--rag-gate-threshold", "faithfulness=0.95")
    cli.stdout.fnmatch_lines(["rag-gate: thresholds faithfulness>=0.95 *+ command line"])


def test_environment_sits_between_files_and_command_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    (pytester.path / "rag_gate.yaml").write_text("judge: anthropic\n", encoding="utf-8")
    monkeypatch.setenv("RAG_GATE_JUDGE", "offline")
    result = pytester.runpytest("--rag-gate")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["rag-gate: judge offline*", "*+ rag_gate.yaml + environment"])


def test_explicit_anthropic_judge_without_a_key_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    result = pytester.runpytest("--rag-gate", "--rag-gate-judge", "anthropic")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ANTHROPIC_API_KEY*"])


def test_config_path_option_and_tag_thresholds(pytester: pytest.Pytester) -> None:
    rows = [{**row, "tags": ["zh"]} for row in good_rows(2)]
    write_jsonl(pytester, "golden.jsonl", rows)
    (pytester.path / "gate.yaml").write_text(
        "tag_thresholds:\n  zh:\n    context_precision: 0.99\n", encoding="utf-8"
    )
    result = pytester.runpytest("--rag-gate", "--rag-gate-config", "gate.yaml")
    result.stdout.fnmatch_lines(["*config defaults + gate.yaml*"])
    assert "tag" in result.stdout.str()
