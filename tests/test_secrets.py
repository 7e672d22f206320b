"""API keys never leave the process: not in reports, JUnit, logs, cache, errors or summaries.

The gate runs with recognisable keys against the fake server (a success that fills the
cache) and against a server that rejects the key and echoes it back in its error body
(401, and a 500 that exhausts the retries). Every file the runs produce, and everything
they print, is scanned for the keys.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeLLM
from gate_runs import FAST_RETRIES, assert_no_traceback, case_row, write_config, write_golden

from pytest_ragas_gate.config import GateConfig
from pytest_ragas_gate.judges.factory import create_judge

ANTHROPIC_SECRET = "sk-ant-test-SECRET-123"
OPENAI_SECRET = "sk-openai-test-SECRET-456"
SECRETS = (ANTHROPIC_SECRET, OPENAI_SECRET, "SECRET-123", "SECRET-456")


class EchoingServer:
    """Rejects every call with ``status`` and quotes the presented key in the error body."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.calls = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", "0")))
                server.calls += 1
                key = self.headers.get("x-api-key") or self.headers.get("authorization", "")
                message = f"invalid key {key} (you sent {key.removeprefix('Bearer ')})"
                body = json.dumps(
                    {
                        "type": "error",
                        "error": {"type": "authentication_error", "message": message},
                    }
                ).encode()
                self.send_response(server.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.send_header("x-echoed-key", key)
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def echoing() -> Iterator[dict[int, EchoingServer]]:
    servers = {status: EchoingServer(status) for status in (401, 500)}
    yield servers
    for server in servers.values():
        server.close()


def produced_text(directory: Path) -> Iterator[tuple[Path, str]]:
    for path in directory.rglob("*"):
        if path.is_file():
            yield path, path.read_bytes().decode("utf-8", errors="replace")


def assert_no_secret(where: str, text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret} leaked into {where}"


def test_keys_never_reach_any_output(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    echoing: dict[int, EchoingServer],
) -> None:
    write_golden(pytester.path, [case_row(index) for index in range(3)])
    write_config(pytester.path, cache="readwrite", **{**FAST_RETRIES, "max_retries": 1})
    summary = pytester.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_SECRET)
    outputs: list[str] = []
    with FakeLLM(required_key=ANTHROPIC_SECRET) as fake:
        runs = [
            ("anthropic", fake.url, "ok"),
            ("anthropic", echoing[401].url, "401"),
            ("anthropic", echoing[500].url, "500"),
            ("openai", echoing[401].url + "/v1", "401"),
            ("openai", echoing[500].url + "/v1", "500"),
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
    assert echoing[401].calls and echoing[500].calls
    everything = "\n".join(outputs)
    # The failures were reported, with the server's message, minus the key.
    assert "rejected the credentials" in everything
    assert "invalid key" in everything and "(you sent ***)" in everything
    assert_no_secret("the terminal output", everything)
    files = dict(produced_text(pytester.path))
    assert summary in files
    assert any(".rag_gate_cache" in path.parts for path in files)
    assert len([path for path in files if path.parent.name == "out"]) == 10
    for path, text in files.items():
        assert_no_secret(str(path), text)


def test_judge_objects_do_not_show_their_keys(tmp_path: Path) -> None:
    config = GateConfig(judge="anthropic")
    env = {"ANTHROPIC_API_KEY": ANTHROPIC_SECRET, "OPENAI_API_KEY": OPENAI_SECRET}
    for kind in ("anthropic", "openai"):
        judge, info = create_judge(
            config.model_copy(update={"judge": kind}), rootdir=tmp_path, env=env
        )
        inner: Any = judge.inner
        shown = [
            repr(judge),
            str(judge),
            repr(inner),
            repr(inner.transport),
            repr(info),
            repr(config),
        ]
        for text in shown:
            assert_no_secret("a repr", text)
        assert kind in repr(judge).lower()
