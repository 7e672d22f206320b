"""A team's own judge, registered by a conftest hook or an installed package, gates a run."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeLLM
from gate_runs import GOOD, HALLUCINATED, gate_run, write_jsonl

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "custom_judge.py"
TOKEN = "test-token-not-real"

HOOK_CONFTEST = """
from custom_judge import factory

def pytest_rag_gate_judges(config):
    return {"mycorp": factory}
"""


@pytest.fixture
def service(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    """The team's evaluation service, at the address the example judge reads."""
    with FakeLLM(required_key=TOKEN) as server:
        monkeypatch.setenv("MYCORP_EVAL_URL", server.url)
        monkeypatch.setenv("MYCORP_EVAL_TOKEN", TOKEN)
        monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
        yield server


def faithfulness(report: dict[str, Any]) -> dict[str, float]:
    return {case["id"]: case["scores"]["faithfulness"] for case in report["cases"]}


def golden(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD, HALLUCINATED])


def test_a_conftest_judge_gates_the_run(pytester: pytest.Pytester, service: FakeLLM) -> None:
    shutil.copy(EXAMPLE, pytester.path / "custom_judge.py")
    pytester.syspathinsert()
    pytester.makeconftest(HOOK_CONFTEST)
    golden(pytester)
    run = gate_run(
        pytester, judge="mycorp", metrics="faithfulness", disable=["randomly"], tracebacks=False
    )
    # The hallucinated answer fails faithfulness as the service judged it.
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    assert run.report["judge"]["kind"] == "mycorp"
    assert run.report["judge"]["selected_by"] == "--rag-gate-judge mycorp"
    assert faithfulness(run.report) == {"founders": 1.0, "wrong-year": 0.0}
    assert service.calls >= 4


def test_an_unknown_judge_names_the_registered_ones(
    pytester: pytest.Pytester, service: FakeLLM
) -> None:
    shutil.copy(EXAMPLE, pytester.path / "custom_judge.py")
    pytester.syspathinsert()
    pytester.makeconftest(HOOK_CONFTEST)
    golden(pytester)
    run = gate_run(pytester, judge="mycrop", report=None)
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines(
        [
            "*setting 'judge.provider' from --rag-gate-judge: Input should be 'auto', "
            "'anthropic', 'openai', 'offline' or 'mycorp', got 'mycrop'; did you mean 'mycorp'?*"
        ]
    )


def test_a_conftest_judge_may_not_take_a_built_in_kind(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        "def pytest_rag_gate_judges(config):\n    return {'openai': lambda setup: None}\n"
    )
    golden(pytester)
    run = gate_run(pytester, judge="offline", report=None)
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines(
        [
            "*conftest's pytest_rag_gate_judges hook registers a judge as 'openai', and that kind "
            "is taken: pytest-ragas-gate registers it already*"
        ]
    )


def test_a_judge_that_cannot_start_says_why(pytester: pytest.Pytester, service: FakeLLM) -> None:
    shutil.copy(EXAMPLE, pytester.path / "custom_judge.py")
    pytester.syspathinsert()
    pytester.makeconftest(HOOK_CONFTEST)
    golden(pytester)
    os.environ.pop("MYCORP_EVAL_URL")
    run = gate_run(pytester, judge="mycorp", report=None, tracebacks=False)
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines(
        [
            "*The mycorp judge (*) could not be made: set MYCORP_EVAL_URL to the evaluation "
            "service's address*"
        ]
    )


def installed_package(site: Path) -> None:
    """The example judge as an installed distribution: its module and its dist-info."""
    shutil.copy(EXAMPLE, site / "custom_judge.py")
    info = site / "mycorp_judge-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: mycorp-judge\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[pytest_ragas_gate.judges]\nmycorp = custom_judge:factory\n", encoding="utf-8"
    )


@pytest.mark.slow
def test_an_installed_judge_is_selected_by_its_entry_point(
    pytester: pytest.Pytester,
    service: FakeLLM,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    site = tmp_path_factory.mktemp("site-packages")
    installed_package(site)
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    )
    golden(pytester)
    run = gate_run(
        pytester,
        judge="mycorp",
        metrics="faithfulness",
        disable=["randomly"],
        subprocess=True,
        tracebacks=False,
    )
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    assert run.report["judge"]["kind"] == "mycorp"
    assert faithfulness(run.report) == {"founders": 1.0, "wrong-year": 0.0}
    assert service.calls >= 4


def test_the_docs_show_the_example_judge_as_it_is() -> None:
    page = (EXAMPLE.parents[1] / "docs" / "judges.md").read_text(encoding="utf-8")
    assert "```python\n" + EXAMPLE.read_text(encoding="utf-8") + "```" in page
