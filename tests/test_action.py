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
from fakellm import FakeLLM
from gate_runs import GOOD, HALLUCINATED

from pytest_ragas_gate.gate.deploy_decision import SMOKE_CHECK

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
            # The package under test, where the suite runs from a checkout on PYTHONPATH.
            **{name: os.environ[name] for name in ("PYTHONPATH",) if name in os.environ},
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

    def run_gate(
        self, env: dict[str, str] | None = None, /, **inputs: str
    ) -> subprocess.CompletedProcess[str]:
        context = {"github.action_path": str(ROOT)}
        for name, spec in action()["inputs"].items():
            context[f"inputs.{name}"] = inputs.get(
                name.replace("-", "_"), str(spec.get("default", ""))
            )
        return self.run(step("Run the RAG gate"), context, env)

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
    assert runner.outputs["summary"] == f"RAG gate PASSED: {SMOKE_CHECK} (judge offline, 3 cases)"
    # The workflow chose the heuristic: its pass is green, and no deploy decision.
    assert runner.outputs["deploy-decision"] == "false"
    assert (runner.workspace / runner.outputs["report-path"]).is_file()
    assert (runner.workspace / runner.outputs["junit-path"]).is_file()
    assert runner.summary.startswith("## ✅ RAG gate: PASSED")
    assert "offline heuristic judge" in runner.summary
    assert "::warning title=RAG gate::Scored by the offline heuristic judge" in result.stdout
    assert "::error" not in result.stdout
    # One verdict on the run page: the plugin's summary, nothing added after it.
    assert re.findall(r"^## .*", runner.summary, re.MULTILINE) == ["## ✅ RAG gate: PASSED"]


@pytest.mark.slow
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
        "RAG gate FAILED: Block deployment — 1 metric(s) below threshold: faithfulness; "
        "1 generation failure: fix the generator first (judge offline, 3 cases)"
    )
    stdout = result.stdout
    assert "--rag-gate-threshold faithfulness=0.9 --rag-gate-threshold context_recall=0.5" in stdout
    # The inputs map to the current options: no deprecated spelling reaches pytest.
    assert (
        "--rag-gate-judge offline --rag-gate-set cache.mode=off "
        "--rag-gate-output json=rag-gate-report.json --rag-gate-output junit=rag-gate-junit.xml"
    ) in stdout
    assert "deprecated" not in stdout + result.stderr
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
    assert runner.outputs["exit-code"] == "4"
    assert runner.outputs["summary"].startswith("RAG gate: not run: Input")
    assert "RAG gate: not run" in runner.summary


@pytest.mark.slow
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
    # pytest received the text literally and refused it as a path: a usage error, and its
    # reason reaches the run page.
    assert result.returncode == 4, result.stdout + result.stderr
    assert runner.outputs["exit-code"] == "4"
    assert runner.outputs["verdict"] != "passed"
    assert "ERROR: file or directory not found: $(touch" in runner.summary


def fake_python(
    tmp_path: Path, status: int, report: dict[str, Any] | None = None, output: str = ""
) -> dict[str, str]:
    """An environment whose `python -m pytest` prints `output`, writes `report` and exits.

    Every other use of python (the script reads the report with it) runs the real one.
    """
    canned = tmp_path / "canned-report.json"
    if report is not None:
        canned.write_text(json.dumps(report), encoding="utf-8")
    script = tmp_path / "fake-python"
    script.write_text(
        f"#!{sys.executable}\n"
        "import os, shutil, sys\n"
        "arguments = sys.argv[1:]\n"
        "if arguments[:2] != ['-m', 'pytest']:\n"
        f"    os.execv({sys.executable!r}, [{sys.executable!r}, *arguments])\n"
        f"sys.stderr.write({output!r})\n"
        f"if {report is not None!r}:\n"
        "    target = arguments[arguments.index('--rag-gate-output') + 1].removeprefix('json=')\n"
        f"    shutil.copyfile({str(canned)!r}, target)\n"
        f"sys.exit({status})\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return {"RAG_GATE_PYTHON": str(script)}


def canned_report(
    verdict: str, recommendation: str, *, gated: int = 3, collected: int = 3
) -> dict[str, Any]:
    """A JSON report as the plugin writes it, reduced to what the Action reads."""
    return {
        "schema_version": 1,
        "verdict": verdict,
        "recommendation": recommendation,
        "judge": {"kind": "offline", "model": "heuristic-v1"},
        "cases": [{"id": f"case-{index}"} for index in range(gated)],
        "run": {
            "gated_cases": gated,
            "collected_cases": collected,
            "partial_reasons": [] if gated == collected else ["-k billing"],
        },
    }


def test_the_verdict_is_the_reports_and_the_exit_code_pytests(
    runner: Runner, tmp_path: Path
) -> None:
    report = canned_report("failed", "Block deployment — 1 case(s) below their own thresholds")
    env = fake_python(tmp_path, 1, report, output="pytest's own output\n")
    result = runner.run_gate(env, paths="golden.jsonl", working_directory="gate")
    assert result.returncode == 1, result.stdout + result.stderr
    assert runner.outputs["verdict"] == "failed"
    assert runner.outputs["exit-code"] == "1"
    assert runner.outputs["report-path"] == "gate/rag-gate-report.json"
    assert runner.outputs["summary"] == (
        "RAG gate FAILED: Block deployment — 1 case(s) below their own thresholds "
        "(judge offline, 3 cases)"
    )
    # pytest's output still streams to the log.
    assert "pytest's own output" in result.stdout
    # The plugin writes the step summary; the script adds nothing to a decided gate.
    assert runner.summary == ""


def test_a_partial_gate_is_neither_passed_nor_failed(runner: Runner, tmp_path: Path) -> None:
    report = canned_report(
        "partial", "Not a deploy decision: 2 of 3 golden cases gated", gated=2, collected=3
    )
    env = fake_python(tmp_path, 0, report)
    result = runner.run_gate(env, paths="golden.jsonl", working_directory="gate")
    # pytest exits 0, but a partial run is no deploy decision: the step fails unless the
    # workflow allows it.
    assert result.returncode == 1, result.stdout + result.stderr
    assert "::error title=RAG gate::The verdict is partial, not passed" in result.stdout
    result = runner.run_gate(
        env, paths="golden.jsonl", working_directory="gate", allow="partial", judge="offline"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert runner.outputs["verdict"] == "partial"
    assert runner.outputs["exit-code"] == "0"
    assert runner.outputs["summary"] == (
        "RAG gate PARTIAL: Not a deploy decision: 2 of 3 golden cases gated "
        "(judge offline, 2 of 3 cases)"
    )
    assert "PASSED" not in result.stdout
    assert runner.summary == ""


@pytest.mark.slow
def test_an_ungated_run_is_the_actions_verdict_too(runner: Runner) -> None:
    result = runner.run_gate(
        paths="golden.jsonl",
        judge="offline",
        cache="off",
        working_directory="gate",
        extra_args="--rag-gate-metrics answer_correctness,context_relevance",
        allow="partial, ungated",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert runner.outputs["verdict"] == "ungated"
    assert runner.outputs["exit-code"] == "0"
    assert runner.outputs["summary"].startswith(
        "RAG gate UNGATED: Report only, not a deploy decision — no gated metric"
    )
    assert runner.summary.startswith("## ⚠️ RAG gate: UNGATED")
    assert "Safe to deploy" not in runner.summary + runner.outputs["summary"]


def test_a_report_saying_passed_never_outlives_a_failing_pytest(
    runner: Runner, tmp_path: Path
) -> None:
    env = fake_python(tmp_path, 1, canned_report("passed", "Safe to deploy"))
    result = runner.run_gate(env, paths="golden.jsonl", working_directory="gate")
    assert result.returncode == 1
    assert runner.outputs["verdict"] == "failed"
    assert runner.outputs["exit-code"] == "1"
    assert "Safe to deploy" not in runner.outputs["summary"]
    assert (
        "::error title=RAG gate::RAG gate FAILED: pytest exited 1 although the report says passed"
        in result.stdout
    )
    assert runner.summary.startswith("## ❌ RAG gate: FAILED")


def test_a_missing_path_is_one_usage_error_naming_it(runner: Runner) -> None:
    result = runner.run_gate(
        paths="golden.jsonl\ngolden/missing.jsonl", working_directory="gate", judge="offline"
    )
    assert result.returncode == 4, result.stdout + result.stderr
    message = (
        "Input 'paths' has 'golden/missing.jsonl', which does not exist "
        "in working directory 'gate'."
    )
    assert result.stdout.count("::error") == 1
    assert f"::error title=RAG gate::{message}" in result.stdout
    assert runner.outputs["verdict"] == "error"
    assert runner.outputs["exit-code"] == "4"
    assert runner.outputs["summary"] == f"RAG gate: not run: {message}"
    assert runner.summary == f"## ⚠️ RAG gate: not run\n\n{message}\n"
    assert not (runner.workspace / "gate" / "rag-gate-report.json").exists()


@pytest.mark.slow
def test_a_pytest_node_id_in_paths_is_checked_by_its_file(runner: Runner) -> None:
    result = runner.run_gate(
        paths="golden.jsonl::founders", working_directory="gate", judge="offline", cache="off"
    )
    assert "Input 'paths'" not in result.stdout
    assert runner.outputs["verdict"] != "error", result.stdout + result.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("inputs", "reason"),
    [
        (
            {"extra_args": "--no-such-option"},
            # The program name before it is pytest's own ("python -m pytest", "__main__.py").
            "error: unrecognized arguments: --no-such-option",
        ),
        ({"config": "bad.yaml"}, "ERROR: Unknown setting 'thresholdz' in bad.yaml"),
    ],
    ids=["unknown-option", "bad-config-key"],
)
def test_a_pytest_usage_error_carries_its_reason_to_the_run_page(
    runner: Runner, inputs: dict[str, str], reason: str
) -> None:
    (runner.workspace / "gate" / "bad.yaml").write_text(
        "thresholdz:\n  faithfulness: 0.5\n", encoding="utf-8"
    )
    result = runner.run_gate(
        **{"paths": "golden.jsonl", "working_directory": "gate", "judge": "offline", **inputs}
    )
    assert result.returncode == 4, result.stdout + result.stderr
    assert runner.outputs["verdict"] == "error"
    assert runner.outputs["exit-code"] == "4"
    assert reason in runner.outputs["summary"]
    assert runner.outputs["summary"].startswith("RAG gate: no verdict (pytest exited 4: ")
    assert runner.summary.startswith("## ⚠️ RAG gate: no verdict")
    assert reason in runner.summary
    assert "ERROR: usage:" not in runner.summary
    annotations = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert len(annotations) == 1 and reason in annotations[0]


def test_a_crash_without_a_report_names_its_last_line(runner: Runner, tmp_path: Path) -> None:
    env = fake_python(tmp_path, 3, output="INTERNALERROR> RuntimeError: boom\n\n")
    result = runner.run_gate(env, paths="golden.jsonl", working_directory="gate")
    assert result.returncode == 3
    assert runner.outputs["verdict"] == "error"
    assert runner.outputs["report-path"] == ""
    assert runner.outputs["summary"] == (
        "RAG gate: no verdict (pytest exited 3: INTERNALERROR> RuntimeError: boom)"
    )
    assert "INTERNALERROR> RuntimeError: boom" in runner.summary


def test_a_usage_error_after_a_report_adds_pytests_reason(runner: Runner, tmp_path: Path) -> None:
    report = canned_report("failed", "Block deployment — no golden cases were scored", gated=0)
    env = fake_python(
        tmp_path, 4, report, output="ERROR: file or directory not found: golden/typo.jsonl\n"
    )
    result = runner.run_gate(env, paths="golden.jsonl", working_directory="gate")
    assert result.returncode == 4
    assert runner.outputs["verdict"] == "failed"
    assert runner.outputs["exit-code"] == "4"
    assert (
        "::error title=RAG gate::pytest exited 4: "
        "ERROR: file or directory not found: golden/typo.jsonl" in result.stdout
    )
    assert "ERROR: file or directory not found: golden/typo.jsonl" in runner.summary
    assert "no verdict" not in runner.summary


@pytest.mark.slow
def test_a_case_below_its_own_thresholds_fails_the_action(runner: Runner) -> None:
    rows = [GOOD, {**GOOD, "id": "second"}, {**HALLUCINATED, "thresholds": {"faithfulness": 0.9}}]
    (runner.workspace / "gate" / "golden.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8"
    )
    result = runner.run_gate(
        paths="golden.jsonl",
        judge="offline",
        cache="off",
        working_directory="gate",
        thresholds="faithfulness=0.5",
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert runner.outputs["exit-code"] == "1"
    assert runner.outputs["verdict"] == "failed"
    report = json.loads((runner.workspace / runner.outputs["report-path"]).read_text("utf-8"))
    assert report["verdict"] == "failed"
    assert runner.outputs["summary"].startswith("RAG gate FAILED: Block deployment")
    assert "## ✅" not in runner.summary


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


@pytest.mark.slow
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


@pytest.mark.slow
@pytest.mark.parametrize("verdict", ["partial", "ungated"])
def test_the_step_fails_on_any_verdict_but_passed_unless_allowed(
    runner: Runner, tmp_path: Path, verdict: str
) -> None:
    env = fake_python(tmp_path, 0, canned_report(verdict, "Not a deploy decision"))
    # The canned report was scored offline: the workflow says it chose that judge.
    inputs = {"paths": "golden.jsonl", "working_directory": "gate", "judge": "offline"}
    failed = runner.run_gate(env, **inputs)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert runner.outputs["verdict"] == verdict
    # The exit-code output stays pytest's.
    assert runner.outputs["exit-code"] == "0"
    other = "ungated" if verdict == "partial" else "partial"
    still = runner.run_gate(env, allow=other, **inputs)
    assert still.returncode == 1
    allowed = runner.run_gate(env, allow=verdict, **inputs)
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    # Under judge: auto the offline scoring still needs its own word.
    fallback = runner.run_gate(env, allow=verdict, paths="golden.jsonl", working_directory="gate")
    assert fallback.returncode == 1
    both = runner.run_gate(
        env, allow=f"{verdict},offline", paths="golden.jsonl", working_directory="gate"
    )
    assert both.returncode == 0, both.stdout + both.stderr


def test_allow_names_only_partial_ungated_and_offline(runner: Runner) -> None:
    result = runner.run_gate(paths="golden.jsonl", working_directory="gate", allow="failed")
    assert result.returncode == 4
    assert (
        "Input 'allow' has 'failed'; expected any of: partial, ungated, offline, "
        "thin-evidence (separated by commas or spaces)."
    ) in result.stdout
    assert runner.outputs["deploy-decision"] == "false"


FALLBACK = (
    "::error title=RAG gate::no deploy decision: judge 'auto' fell back to the offline "
    "heuristic because ANTHROPIC_API_KEY is not set; set the secret or add 'offline' to allow:"
)


def test_auto_without_a_key_is_no_deploy_decision(runner: Runner) -> None:
    # A pull request from a fork has no secrets: `judge: auto` falls back to the offline
    # heuristic, whose pass used to leave the step green.
    inputs = {"paths": "golden.jsonl", "cache": "off", "working_directory": "gate"}
    result = runner.run_gate(thresholds="faithfulness=0.5", **inputs)
    assert result.returncode == 1, result.stdout + result.stderr
    assert FALLBACK in result.stdout.splitlines()
    assert runner.outputs["verdict"] == "passed"
    assert runner.outputs["deploy-decision"] == "false"
    assert runner.outputs["exit-code"] == "0"
    assert SMOKE_CHECK in runner.outputs["summary"]
    assert "**No deploy decision:** judge 'auto' fell back" in runner.summary
    assert "Safe to deploy" not in runner.summary + result.stdout

    # The workflow accepts a smoke check: `allow:` names offline, beside other verdicts.
    result = runner.run_gate(thresholds="faithfulness=0.5", allow="partial offline", **inputs)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "::error" not in result.stdout
    assert runner.outputs["deploy-decision"] == "false"


def test_offline_chosen_by_the_run_is_not_blamed_on_a_missing_key(runner: Runner) -> None:
    # `judge: auto`, but extra-args pick the offline judge: no key was missing, and the
    # message says what chose it and how to allow it.
    result = runner.run_gate(
        paths="golden.jsonl",
        cache="off",
        working_directory="gate",
        thresholds="faithfulness=0.5",
        extra_args="--rag-gate-judge offline",
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "fell back" not in result.stdout
    assert (
        "no deploy decision: the offline heuristic was chosen by the run's settings "
        "(--rag-gate-judge offline), not by a missing key; choose an LLM judge there or add "
        "'offline' to allow:"
    ) in result.stdout
    assert runner.outputs["deploy-decision"] == "false"


def test_auto_names_the_key_that_is_set_when_it_is_not_the_one_auto_reads(
    runner: Runner,
) -> None:
    result = runner.run_gate(
        {"OPENAI_API_KEY": "test-key-not-real"},
        paths="golden.jsonl",
        cache="off",
        working_directory="gate",
        thresholds="faithfulness=0.5",
    )
    assert result.returncode == 1, result.stdout + result.stderr
    [line] = [line for line in result.stdout.splitlines() if "no deploy decision" in line]
    assert "because ANTHROPIC_API_KEY is not set (OPENAI_API_KEY is set: 'judge: openai'" in line


@pytest.mark.parametrize("xdist", ["", "-n 2"], ids=["serial", "xdist"])
def test_auto_with_a_key_is_a_deploy_decision(runner: Runner, xdist: str) -> None:
    with FakeLLM() as fake:
        env = {
            "ANTHROPIC_API_KEY": "test-key-not-real",
            "ANTHROPIC_BASE_URL": fake.url,
        }
        result = runner.run_gate(
            env,
            paths="golden.jsonl",
            cache="off",
            working_directory="gate",
            thresholds="faithfulness=0.5",
            extra_args=f"-p no:randomly {xdist}",
        )
    # Three cases pass on thin evidence: the gate says so, and it is no deploy decision.
    assert result.returncode == 1, result.stdout + result.stderr
    assert THIN in result.stdout.splitlines()
    assert "no deploy decision: the run was scored by the offline heuristic" not in result.stdout
    assert runner.outputs["verdict"] == "passed"
    assert runner.outputs["deploy-decision"] == "false"
    assert runner.outputs["exit-code"] == "0"
    summary = runner.outputs["summary"]
    assert summary.startswith("RAG gate PASSED: Passed on thin evidence — faithfulness mean")
    assert summary.endswith("(judge anthropic, 3 cases)")
    report = json.loads((runner.workspace / runner.outputs["report-path"]).read_text("utf-8"))
    assert report["deploy_decision"] is False
    assert report["recommendation"].startswith("Passed on thin evidence — ")
    assert "**No deploy decision:** the gate passed on thin evidence" in runner.summary


THIN = (
    "::error title=RAG gate::no deploy decision: the gate passed on thin evidence (its "
    "intervals reach past the thresholds); add cases or add 'thin-evidence' to allow:"
)


def test_a_thin_evidence_pass_leaves_the_step_green_only_when_allowed(
    runner: Runner, tmp_path: Path
) -> None:
    report = {
        **canned_report("passed", "Passed on thin evidence — faithfulness mean 1.00 ≥ 0.75"),
        "deploy_decision": False,
        "judge": {"kind": "anthropic"},
    }
    report["run"] = {**report["run"], "scored_by": {"faithfulness": "anthropic"}}
    inputs = {"paths": "golden.jsonl", "working_directory": "gate"}
    result = runner.run_gate(fake_python(tmp_path, 0, report), **inputs)
    assert result.returncode == 1, result.stdout + result.stderr
    assert THIN in result.stdout.splitlines()
    assert "offline" not in result.stdout
    assert runner.outputs["deploy-decision"] == "false"
    result = runner.run_gate(fake_python(tmp_path, 0, report), allow="thin-evidence", **inputs)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "::error" not in result.stdout
    assert runner.outputs["deploy-decision"] == "false"


def test_a_canned_report_without_the_field_is_read_by_its_judge(
    runner: Runner, tmp_path: Path
) -> None:
    # A report written before deploy_decision existed: an offline pass is no decision.
    env = fake_python(tmp_path, 0, canned_report("passed", "Safe to deploy"))
    result = runner.run_gate(env, paths="golden.jsonl", working_directory="gate")
    assert result.returncode == 1, result.stdout + result.stderr
    assert FALLBACK in result.stdout.splitlines()
    assert runner.outputs["deploy-decision"] == "false"
    report = {**canned_report("passed", "Safe to deploy"), "judge": {"kind": "anthropic"}}
    env = fake_python(tmp_path, 0, report)
    result = runner.run_gate(env, paths="golden.jsonl", working_directory="gate")
    assert result.returncode == 0, result.stdout + result.stderr
    assert runner.outputs["deploy-decision"] == "true"


def test_the_reports_deploy_decision_decides_not_the_metrics_outside_the_gate(
    runner: Runner, tmp_path: Path
) -> None:
    # Only mrr is gated and it asks no judge: the offline heuristic scored metrics that
    # are reported, not gated, and the gate made a deploy decision.
    report = {
        **canned_report("passed", "Safe to deploy"),
        "deploy_decision": True,
        "metrics": {"faithfulness": {"threshold": None}, "mrr": {"threshold": 0.5}},
    }
    report["run"] = {**report["run"], "scored_by": {"faithfulness": "offline", "mrr": None}}
    inputs = {"paths": "golden.jsonl", "working_directory": "gate"}
    result = runner.run_gate(fake_python(tmp_path, 0, report), **inputs)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no deploy decision" not in result.stdout
    assert runner.outputs["deploy-decision"] == "true"

    # The same run with the heuristic on a gated metric: the gate said no decision.
    report = {**report, "deploy_decision": False, "recommendation": SMOKE_CHECK}
    report["run"] = {**report["run"], "scored_by": {"faithfulness": "offline", "mrr": "offline"}}
    result = runner.run_gate(fake_python(tmp_path, 0, report), **inputs)
    assert result.returncode == 1, result.stdout + result.stderr
    assert FALLBACK in result.stdout.splitlines()
    assert runner.outputs["deploy-decision"] == "false"
