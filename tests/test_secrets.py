"""API keys never leave the process: not in reports, JUnit, logs, cache, errors or summaries.

The gate runs with recognisable keys against the fake server (a success that fills the
cache) and against servers that echo the presented key back in their error bodies and
headers (one rejects the key with 401, one answers 500 until the retries are used up).
Every file the runs produce, and everything they print, is scanned for the keys: in
process, under pytest-xdist (``-n 2``) through the GitHub Action's script, whose per-worker
files under ``$TMPDIR/rag-gate-*``, ``GITHUB_OUTPUT`` and step summary are scanned too, and
through the ``rag-gate`` command on every report produced. The tracebacks of the errors
the judges raise, formatted in full, and the reprs of the objects holding a key are
checked as well.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import subprocess
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeLLM, status
from gate_runs import FAST_RETRIES, assert_no_traceback, case_row, write_config, write_golden

from pytest_ragas_gate.cli import main
from pytest_ragas_gate.exceptions import JudgeError
from pytest_ragas_gate.judges.anthropic_judge import AnthropicJudge
from pytest_ragas_gate.judges.openai_judge import OpenAIJudge
from pytest_ragas_gate.judges.requests import VerifyClaims
from pytest_ragas_gate.judges.transport import RetryPolicy
from pytest_ragas_gate.scoring.judge_factory import create_judge
from pytest_ragas_gate.settings.config import GateConfig

ANTHROPIC_SECRET = "sk-ant-test-SECRET-123"
OPENAI_SECRET = "sk-openai-test-SECRET-456"
SECRETS = (ANTHROPIC_SECRET, OPENAI_SECRET, "SECRET-123", "SECRET-456")
#: The key the 401 server wants; neither judge presents it.
ACCEPTED_KEY = "the-accepted-key"
ACTION_SCRIPT = Path(__file__).resolve().parent.parent / "action" / "run-gate.sh"


@pytest.fixture
def echoing() -> Iterator[dict[int, FakeLLM]]:
    """Servers that quote the presented key in every error: a 401 and a 500 for every call."""
    rejecting = FakeLLM(required_key=ACCEPTED_KEY, echo_key=True)
    failing = FakeLLM(echo_key=True)
    failing.fail(status(500))
    with rejecting, failing:
        yield {401: rejecting, 500: failing}


@pytest.fixture
def judge_sdks_loaded() -> Iterator[None]:
    """Both SDKs imported for this test's runs, then forgotten as pytester forgets them.

    Each in-process run would import the SDK it uses again (over a second each time); the
    modules imported here are dropped afterwards, so later tests import them as before.
    """
    before = set(sys.modules)
    import anthropic
    import openai

    # A client loads the HTTP transport the SDKs import only then, so the runs share it.
    anthropic.Anthropic(api_key="not-a-key").close()
    openai.OpenAI(api_key="not-a-key").close()
    yield
    for name in set(sys.modules) - before:
        del sys.modules[name]


def produced_text(directory: Path) -> Iterator[tuple[Path, str]]:
    for path in directory.rglob("*"):
        if path.is_file():
            yield path, path.read_bytes().decode("utf-8", errors="replace")


def assert_no_secret(where: str, text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret} leaked into {where}"


def run_cli(reports: list[Path], capsys: pytest.CaptureFixture[str]) -> str:
    """``rag-gate summary`` and ``rag-gate regate -o`` on each report; what they printed."""
    capsys.readouterr()
    for report in reports:
        assert main(["summary", str(report)]) == 0
        regated = report.with_name(f"regated-{report.name}")
        assert main(["regate", str(report), "-o", str(regated)]) in (0, 1)
        assert regated.is_file()
    captured = capsys.readouterr()
    return captured.out + captured.err


def test_keys_never_reach_any_output(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    echoing: dict[int, FakeLLM],
    judge_sdks_loaded: None,
) -> None:
    write_golden(pytester.path, [case_row(index) for index in range(3)])
    write_config(pytester.path, cache="readwrite", **{**FAST_RETRIES, "max_retries": 1})
    summary = pytester.path / "step_summary.md"
    github_output = pytester.path / "github_output"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_OUTPUT", str(github_output))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_SECRET)
    outputs: list[str] = []
    with FakeLLM(required_key=ANTHROPIC_SECRET) as fake:
        runs = [
            ("anthropic", fake.url, "ok"),
            ("anthropic", echoing[401].url, "401"),
            ("anthropic", echoing[500].url, "500"),
            ("openai", echoing[401].openai_url, "401"),
            ("openai", echoing[500].openai_url, "500"),
        ]
        for judge, url, label in runs:
            monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
            monkeypatch.setenv("OPENAI_BASE_URL", url)
            cache = "readwrite" if label == "ok" else "off"
            result = pytester.runpytest(
                "--rag-gate",
                f"--rag-gate-judge={judge}",
                f"--rag-gate-cache={cache}",
                f"--rag-gate-report=out/{judge}-{label}.json",
                f"--rag-gate-junit=out/{judge}-{label}.xml",
                "-rA",
                "-vv",
            )
            assert_no_traceback(result)
            expected = pytest.ExitCode.OK if label == "ok" else pytest.ExitCode.TESTS_FAILED
            assert result.ret == expected, result.stdout.str()
            outputs.append(result.stdout.str() + result.stderr.str())
    assert echoing[401].judge_requests() and echoing[500].judge_requests()
    everything = "\n".join(outputs)
    # The failures were reported, with the server's message and the SDK's error type,
    # minus the key the server echoed.
    assert "rejected the credentials" in everything
    assert "the key presented was ***" in everything
    assert "AuthenticationError" in everything and "InternalServerError" in everything
    assert_no_secret("the terminal output", everything)
    reports = sorted((pytester.path / "out").glob("*.json"))
    assert len(reports) == 5
    assert_no_secret("the rag-gate command's output", run_cli(reports, capsys))
    files = dict(produced_text(pytester.path))
    assert summary in files
    assert any(".rag_gate_cache" in path.parts for path in files)
    assert len([path for path in files if path.parent.name == "out"]) == 15
    for path, text in files.items():
        assert_no_secret(str(path), text)


@pytest.mark.slow
def test_keys_never_reach_the_files_of_an_xdist_run_through_the_action(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], echoing: dict[int, FakeLLM]
) -> None:
    """The action's script runs ``pytest -n 2``, as a runner would; all it leaves is scanned."""
    workspace = tmp_path / "workspace"
    temporary = tmp_path / "tmp"
    workspace.mkdir()
    temporary.mkdir()
    (workspace / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    write_golden(workspace, [case_row(index) for index in range(6)])
    write_config(workspace, **{**FAST_RETRIES, "max_retries": 1})
    github_output = tmp_path / "github_output"
    summary = tmp_path / "step_summary.md"
    printed: list[str] = []
    with FakeLLM(required_key=ANTHROPIC_SECRET) as fake:
        runs = [
            ("anthropic", fake.url, "ok"),
            ("anthropic", echoing[401].url, "401"),
            ("openai", echoing[500].openai_url, "500"),
        ]
        for judge, url, label in runs:
            environment = {
                "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
                "HOME": str(tmp_path),
                # Where the workers of this run share their results: rag-gate-<run id>.
                "TMPDIR": str(temporary),
                "GITHUB_ACTIONS": "true",
                "GITHUB_WORKSPACE": str(workspace),
                "GITHUB_OUTPUT": str(github_output),
                "GITHUB_STEP_SUMMARY": str(summary),
                "RAG_GATE_PYTHON": sys.executable,
                "ANTHROPIC_API_KEY": ANTHROPIC_SECRET,
                "OPENAI_API_KEY": OPENAI_SECRET,
                "ANTHROPIC_BASE_URL": url,
                "OPENAI_BASE_URL": url,
                # action.yml sets every input, empty when not given.
                **{f"INPUT_{name}": "" for name in ("CONFIG", "MODEL", "THRESHOLDS")},
                **{f"INPUT_{name}": "" for name in ("BASELINE", "SHARD")},
                "INPUT_WORKING_DIRECTORY": ".",
                # A few cases pass on thin evidence; this test is about the keys.
                "INPUT_ALLOW": "thin-evidence",
                "INPUT_JUDGE": judge,
                "INPUT_CACHE": "readwrite" if label == "ok" else "off",
                "INPUT_PATHS": "golden.jsonl",
                "INPUT_REPORT_PATH": f"out/{judge}-{label}.json",
                "INPUT_JUNIT_PATH": f"out/{judge}-{label}.xml",
                "INPUT_EXTRA_ARGS": f"-n 2 --basetemp={temporary / 'basetemp'} -rA -vv",
            }
            result = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(ACTION_SCRIPT)],
                cwd=workspace,
                env=environment,
                capture_output=True,
                text=True,
                encoding="utf-8",
                timeout=120,
            )
            assert result.returncode == (0 if label == "ok" else 1), result.stdout + result.stderr
            assert "Traceback" not in result.stdout + result.stderr
            printed.append(result.stdout + result.stderr)
    everything = "\n".join(printed)
    assert "the key presented was ***" in everything
    assert_no_secret("the action's log", everything)
    reports = sorted((workspace / "out").glob("*.json"))
    assert len(reports) == 3
    assert_no_secret("the rag-gate command's output", run_cli(reports, capsys))

    files = dict(produced_text(tmp_path))
    # Each of the three runs left both workers' results in its own rag-gate-* directory.
    worker_files = [path for path in files if path.parent.name.startswith("rag-gate-")]
    assert len({path.parent for path in worker_files}) == 3
    assert len([path for path in worker_files if path.name.startswith("results-gw")]) == 6
    assert any("the key presented was ***" in files[path] for path in worker_files)
    assert github_output in files and "verdict<<" in files[github_output]
    assert summary in files
    assert any(".rag_gate_cache" in path.parts for path in files)
    for path, text in files.items():
        assert_no_secret(str(path), text)


REQUEST = VerifyClaims(claims=["Apple was founded in 1976."], contexts=["Apple, 1976."])


def judge_error(judge: AnthropicJudge | OpenAIJudge) -> JudgeError:
    """The error the judge raises for :data:`REQUEST`, as a caller would catch it."""

    async def ask() -> None:
        try:
            await judge.ask(REQUEST)
        finally:
            await judge.aclose()

    try:
        asyncio.run(ask())
    except JudgeError as error:
        return error
    raise AssertionError("the judge did not fail")


@pytest.mark.parametrize("code", [401, 500])
@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_no_formatted_traceback_of_a_judge_error_shows_the_key(
    echoing: dict[int, FakeLLM], api: str, code: int
) -> None:
    server = echoing[code]
    settings: dict[str, Any] = {
        "retry_policy": RetryPolicy(max_retries=1, base_delay_s=0.001),
        "timeout_s": 5.0,
    }
    judge: AnthropicJudge | OpenAIJudge
    if api == "anthropic":
        judge = AnthropicJudge(
            "claude-test", api_key=ANTHROPIC_SECRET, base_url=server.url, **settings
        )
    else:
        judge = OpenAIJudge(
            "gpt-test", api_key=OPENAI_SECRET, base_url=server.openai_url, **settings
        )

    error = judge_error(judge)

    log = io.StringIO()
    logger = logging.getLogger(f"test_secrets.{api}.{code}")
    logger.addHandler(logging.StreamHandler(log))
    logger.propagate = False
    # What logging.exception writes, without re-raising here: that would add this test's
    # frame, whose locals hold the fake server and the headers it recorded.
    logger.error("the judge failed", exc_info=error)
    shown = {
        "format_exception": "".join(traceback.format_exception(error)),
        "a traceback with locals": "".join(
            traceback.TracebackException.from_exception(error, capture_locals=True).format()
        ),
        "logging.exception": log.getvalue(),
        "repr": repr(error),
    }
    for where, text in shown.items():
        assert_no_secret(where, text)
    assert error.__cause__ is None and error.__context__ is None
    # The chain is gone, but the message still says what happened: the status, the
    # server's message (which did echo the key) and the SDK's error type.
    message = str(error)
    assert f"HTTP {code}" in message and "the key presented was ***" in message
    kind = "AuthenticationError" if code == 401 else "InternalServerError"
    assert f"{api}.{kind}" in message


def test_judge_objects_do_not_show_their_keys(tmp_path: Path) -> None:
    env = {"ANTHROPIC_API_KEY": ANTHROPIC_SECRET, "OPENAI_API_KEY": OPENAI_SECRET}
    for kind, key in (("anthropic", ANTHROPIC_SECRET), ("openai", OPENAI_SECRET)):
        judge, info = create_judge(
            GateConfig.model_validate({"judge": kind}), rootdir=tmp_path, env=env
        )
        inner: Any = judge.inner
        transport = inner.transport
        # The key is really held by these objects, so hiding it from their reprs is a
        # property of the reprs, not of the key's absence.
        assert transport.secrets == (key,)
        assert inner._client.api_key == key
        shown = {
            "the metered judge": (repr(judge), str(judge)),
            "the judge": (repr(inner), str(inner)),
            "the transport": (repr(transport), str(transport), f"{transport}"),
            "the judge info": (repr(info), str(info), info.model_dump_json()),
        }
        for where, texts in shown.items():
            for text in texts:
                assert_no_secret(f"{where} of the {kind} judge", text)
        assert kind in repr(judge).lower() and inner.model in repr(inner)
        assert info.kind == kind and inner.model in repr(info)
        assert transport.describe in repr(transport)
