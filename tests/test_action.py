"""The GitHub Action and the workflows, executed step by step as a runner would.

A tiny runner stands in for GitHub's: it reads action.yml, resolves the `${{ }}`
expressions of a step's `env:` (inputs with their defaults, `github.action_path`, step
outputs, secrets), and runs the step's `run:` script with bash, with temporary
`GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY` files and `GITHUB_ACTIONS=true`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_plugin_gate import GOOD, HALLUCINATED

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"
WORKFLOWS = [
    *sorted((ROOT / ".github" / "workflows").glob("*.yml")),
    ROOT / "examples" / "github-workflow.yml",
]
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def load_yaml(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def action() -> dict[str, Any]:
    return load_yaml(ACTION)


def step(name: str) -> dict[str, Any]:
    return next(step for step in action()["runs"]["steps"] if step.get("name") == name)


def read_outputs(path: Path) -> dict[str, str]:
    """Parse `name<<DELIMITER` / `name=value` lines as the runner does."""
    outputs: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    index = 0
    while index < len(lines):
        line = lines[index]
        if "<<" in line:
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, index + 1)
            outputs[name] = "\n".join(lines[index + 1 : end])
            index = end + 1
        else:
            name, _, value = line.partition("=")
            outputs[name] = value
            index += 1
    return outputs


class Runner:
    """Just enough of a GitHub runner to run one composite-action or workflow step."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.output_file = workspace.parent / "github_output"
        self.summary_file = workspace.parent / "step_summary.md"
        self.outputs: dict[str, str] = {}

    def evaluate(self, expression: str, context: dict[str, str]) -> str:
        if expression in context:
            return context[expression]
        if expression.startswith("secrets."):
            return ""
        raise AssertionError(f"the test runner cannot evaluate ${{{{ {expression} }}}}")

    def run(
        self, step: dict[str, Any], context: dict[str, str], env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        step_env = {
            name: EXPRESSION.sub(lambda match: self.evaluate(match.group(1), context), str(value))
            for name, value in (step.get("env") or {}).items()
        }
        self.output_file.write_text("", encoding="utf-8")
        environment = {
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "HOME": os.environ.get("HOME", str(self.workspace)),
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_OUTPUT": str(self.output_file),
            "GITHUB_STEP_SUMMARY": str(self.summary_file),
            "CI": "true",
            **step_env,
            **(env or {}),
        }
        # GitHub runs `shell: bash` steps as `bash --noprofile --norc -eo pipefail {0}`.
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=self.workspace,
            env=environment,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=120,
        )
        self.outputs = read_outputs(self.output_file)
        return result

    def run_gate(self, **inputs: str) -> subprocess.CompletedProcess[str]:
        context = {"github.action_path": str(ROOT)}
        for name, spec in action()["inputs"].items():
            context[f"inputs.{name}"] = inputs.get(
                name.replace("-", "_"), str(spec.get("default", ""))
            )
        return self.run(step("Run the RAG gate"), context)

    @property
    def summary(self) -> str:
        return self.summary_file.read_text(encoding="utf-8") if self.summary_file.exists() else ""


@pytest.fixture
def runner(tmp_path: Path) -> Runner:
    workspace = tmp_path / "workspace"
    (workspace / "gate").mkdir(parents=True)
    (workspace / "gate" / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    rows = [GOOD, {**GOOD, "id": "second"}, HALLUCINATED]
    (workspace / "gate" / "golden.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8"
    )
    return Runner(workspace)


def test_a_passing_gate_sets_every_output_and_writes_the_summary(runner: Runner) -> None:
    result = runner.run_gate(
        paths="golden.jsonl",
        judge="offline",
        cache="off",
        working_directory="gate",
        thresholds="faithfulness=0.5",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert runner.outputs["verdict"] == "passed"
    assert runner.outputs["report-path"] == "gate/rag-gate-report.json"
    assert runner.outputs["junit-path"] == "gate/rag-gate-junit.xml"
    assert runner.outputs["exit-code"] == "0"
    assert runner.outputs["summary"] == "RAG gate PASSED: Safe to deploy (judge offline, 3 cases)"
    assert (runner.workspace / runner.outputs["report-path"]).is_file()
    assert (runner.workspace / runner.outputs["junit-path"]).is_file()
    assert runner.summary.startswith("## ✅ RAG gate: PASSED")
    assert "offline heuristic judge" in runner.summary
    assert "::warning title=RAG gate::Scored by the offline heuristic judge" in result.stdout
    assert "::error" not in result.stdout


def test_a_failing_gate_annotates_metrics_and_cases(runner: Runner) -> None:
    result = runner.run_gate(
        paths="golden.jsonl",
        judge="offline",
        cache="off",
        working_directory="gate",
        thresholds="faithfulness=0.9,\ncontext_recall = 0.5\n\nanswer_relevancy=0.1",
        extra_args="-q\n-p no:randomly",
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert runner.outputs["verdict"] == "failed"
    assert runner.outputs["summary"] == (
        "RAG gate FAILED: Block deployment — 1 metric(s) below threshold: faithfulness "
        "(judge offline, 3 cases)"
    )
    stdout = result.stdout
    assert "--rag-gate-threshold faithfulness=0.9 --rag-gate-threshold context_recall=0.5" in stdout
    assert "::error title=RAG gate::faithfulness mean 0.67 < 0.90 (n=3, 95%25 CI" in stdout
    assert (
        "::error title=RAG gate::Block deployment — 1 metric(s) below threshold: faithfulness"
        in stdout
    )
    # Annotations point into the checkout, not the pytest rootdir.
    assert (
        "::error file=gate/golden.jsonl,line=3,title=RAG case wrong-year::"
        "wrong-year: faithfulness 0.00 < 0.90" in stdout
    )
    assert "## ❌ RAG gate: FAILED" in runner.summary
    assert "| `wrong-year` | `golden.jsonl:3` |" in runner.summary


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        (
            {"judge": "gpt"},
            "Input 'judge' is 'gpt'; expected one of: auto, anthropic, openai, offline.",
        ),
        (
            {"cache": "sometimes"},
            "Input 'cache' is 'sometimes'; expected one of: readwrite, read, off.",
        ),
        (
            {"thresholds": "faithfulness:0.9"},
            "Input 'thresholds' has 'faithfulness:0.9'; expected METRIC=VALUE",
        ),
        ({"thresholds": "faithfulness=1.5"}, "Input 'thresholds' has 'faithfulness=1.5'"),
        ({"shard": "0/2"}, "Input 'shard' is '0/2'; expected K/N such as 1/4."),
        ({"baseline": "nowhere.json"}, "Input 'baseline' is 'nowhere.json', which does not exist."),
        (
            {"working_directory": "missing"},
            "Input 'working-directory' is 'missing', which is not a directory.",
        ),
    ],
)
def test_bad_inputs_are_usage_errors(runner: Runner, inputs: dict[str, str], message: str) -> None:
    result = runner.run_gate(**{"working_directory": "gate", **inputs})
    assert result.returncode == 4, result.stdout + result.stderr
    assert f"::error title=RAG gate::{message}" in result.stdout
    assert runner.outputs["verdict"] == "error"
    assert runner.outputs["summary"].startswith("RAG gate: not run: Input")
    assert "RAG gate: not run" in runner.summary


def test_inputs_cannot_inject_shell_code(runner: Runner) -> None:
    result = runner.run_gate(
        working_directory="gate",
        judge="offline",
        cache="off",
        paths="golden.jsonl",
        model='x"; touch pwned-model; echo "',
        extra_args="$(touch pwned-args) `touch pwned-ticks` ;touch pwned-semicolon *",
    )
    assert not list(runner.workspace.rglob("pwned*"))
    # pytest received the text literally and refused it: a usage error, no verdict.
    assert result.returncode == 4, result.stdout + result.stderr
    assert runner.outputs["verdict"] == "error"
    assert "::error title=RAG gate::RAG gate: no verdict (pytest exited 4;" in result.stdout
    assert "no verdict" in runner.summary


def test_the_install_step_installs_the_action_checkout(runner: Runner, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "python-args"
    fake = bin_dir / "python"
    fake.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{record}"\n', encoding="utf-8")
    fake.chmod(0o755)
    install = step("Install pytest-ragas-gate")
    context = {"github.action_path": str(ROOT), "inputs.install-extras": "openai"}
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    result = runner.run(install, context, env)
    assert result.returncode == 0, result.stderr
    assert record.read_text(encoding="utf-8").splitlines()[-1] == f"{ROOT}[openai]"

    context["inputs.install-extras"] = "openai] ; touch pwned ; ["
    runner.summary_file.write_text("", encoding="utf-8")
    result = runner.run(install, context, env)
    assert result.returncode == 4
    assert "::error title=RAG gate::Input 'install-extras'" in result.stdout
    assert not list(runner.workspace.rglob("pwned*"))
    # The gate never ran, and the step summary and the outputs say so.
    assert runner.outputs["verdict"] == "error" and runner.outputs["exit-code"] == "4"
    assert runner.outputs["summary"].startswith("RAG gate not run: Input 'install-extras'")
    assert "## ❌ RAG gate: not run" in runner.summary_file.read_text(encoding="utf-8")

    fake.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    context["inputs.install-extras"] = "openai"
    result = runner.run(install, context, env)
    assert result.returncode == 4
    assert runner.outputs["verdict"] == "error"
    assert "pip could not install pytest-ragas-gate" in runner.outputs["summary"]


def test_action_outputs_fall_back_to_the_install_step() -> None:
    outputs = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["outputs"]
    for name, output in outputs.items():
        assert output["value"] == (
            f"${{{{ steps.gate.outputs.{name} || steps.install.outputs.{name} }}}}"
        )


def _steps(document: dict[str, Any]) -> list[dict[str, Any]]:
    if "runs" in document:
        return list(document["runs"]["steps"])
    return [step for job in document["jobs"].values() for step in job.get("steps", [])]


def _secret_locations(node: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    if isinstance(node, dict):
        return [
            found
            for key, value in node.items()
            for found in _secret_locations(value, (*path, str(key)))
        ]
    if isinstance(node, list):
        return [
            found
            for index, value in enumerate(node)
            for found in _secret_locations(value, (*path, str(index)))
        ]
    return [path] if isinstance(node, str) and "secrets." in node else []


@pytest.mark.parametrize("path", [ACTION, *WORKFLOWS], ids=lambda path: path.name)
def test_no_expression_is_interpolated_into_a_script(path: Path) -> None:
    document = load_yaml(path)
    for each in _steps(document):
        script = each.get("run")
        if script is None:
            continue
        for expression in EXPRESSION.findall(script):
            assert not re.search(
                r"\b(secrets|inputs|github\.event|github\.head_ref|env)\b", expression
            ), (
                f"{path.name}: step {each.get('name')!r} interpolates "
                f"${{{{ {expression} }}}} into run:"
            )
        assert "${{" not in script, (
            f"{path.name}: step {each.get('name')!r} has an expression in run:"
        )
    for location in _secret_locations(document):
        assert "env" in location, f"{path.name}: a secret outside env: at {'.'.join(location)}"


def test_every_action_input_reaches_the_scripts_through_env() -> None:
    document = action()
    passed = {
        EXPRESSION.search(str(value)).group(1)  # type: ignore[union-attr]
        for each in document["runs"]["steps"]
        for value in (each.get("env") or {}).values()
    }
    used_in_with = {
        EXPRESSION.search(str(value)).group(1)  # type: ignore[union-attr]
        for each in document["runs"]["steps"]
        for value in (each.get("with") or {}).values()
    }
    for name in document["inputs"]:
        assert f"inputs.{name}" in passed | used_in_with, name
    gate = step("Run the RAG gate")
    assert gate["run"] == 'bash "$ACTION_PATH/action/run-gate.sh"'
    assert set(document["outputs"]) >= {"verdict", "report-path", "junit-path", "summary"}


def test_the_example_workflow_gates_with_the_action_and_replays_for_forks() -> None:
    workflow = load_yaml(ROOT / "examples" / "github-workflow.yml")
    steps = _steps(workflow)
    gate = next(each for each in steps if each.get("id") == "gate")
    assert gate["env"]["ANTHROPIC_API_KEY"] == "${{ secrets.ANTHROPIC_API_KEY }}"
    assert "github.event.pull_request.head.repo.fork" in gate["with"]["cache"]
    assert "'read'" in gate["with"]["cache"]
    upload = next(
        each for each in steps if str(each.get("uses", "")).startswith("actions/upload-artifact")
    )
    assert upload["if"] == "always()"
    assert "rag-gate-report.json" in upload["with"]["path"]
    assert "rag-gate-junit.xml" in upload["with"]["path"]


def test_the_workflow_steps_after_the_gate_run_with_its_outputs(runner: Runner) -> None:
    runner.run_gate(paths="golden.jsonl", judge="offline", cache="off", working_directory="gate")
    outputs = dict(runner.outputs)
    context = {f"steps.gate.outputs.{name}": value for name, value in outputs.items()}
    for path in WORKFLOWS:
        for each in _steps(load_yaml(path)):
            if "run" not in each or "steps.gate.outputs" not in json.dumps(each.get("env", {})):
                continue
            result = runner.run(each, context)
            assert result.returncode == 0, result.stderr
            assert outputs["summary"] in result.stdout
