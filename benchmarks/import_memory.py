"""Peak memory of ``rag-gate import`` on a large generated trace export.

Writes a Phoenix span export (``openinference``, JSON Lines or one JSON document) or an
OTLP/JSON file (``otlp``) of about ``--megabytes`` MB — each trace a CHAIN root, a RETRIEVER
span with five documents and an LLM span whose prompt repeats them, as instrumented RAG
applications record — then imports it in a fresh process and reports the wall time and the
process's peak resident memory (its own ``VmHWM``)::

    python benchmarks/import_memory.py --megabytes 200
    python benchmarks/import_memory.py --megabytes 200 --format otlp --json

``tests/test_import_memory.py`` (marked slow) runs it at 200 MB and holds it under 300 MB.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

WORDS = (
    "refund policy order shipping account invoice warranty return label customer support "
    "delivery payment card subscription plan upgrade cancel region store pickup exchange"
).split()


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def _trace(rng: random.Random, index: int) -> list[dict[str, Any]]:
    """One RAG trace as flat Phoenix span records."""
    trace, root = f"{index:032x}", f"{index:014x}00"
    question = _text(rng, 14).rstrip(".") + "?"
    documents = [_text(rng, 90) for _ in range(5)]
    answer = _text(rng, 50)
    prompt = "Answer from the context.\n" + "\n".join(documents) + "\nQuestion: " + question
    start = 1764093600_000_000_000 + index * 1_000_000
    common = {"context.trace_id": trace, "status_code": "OK"}
    return [
        {
            **common,
            "name": "rag",
            "context.span_id": root,
            "parent_id": None,
            "start_time": start,
            "attributes.openinference.span.kind": "CHAIN",
            "attributes.input.value": question,
            "attributes.output.value": answer,
            "attributes.session.id": f"s-{index % 97}",
        },
        {
            **common,
            "name": "retrieve",
            "context.span_id": f"{index:014x}01",
            "parent_id": root,
            "start_time": start + 1,
            "attributes.openinference.span.kind": "RETRIEVER",
            "attributes.input.value": question,
            "attributes.retrieval.documents": [
                {"document.id": f"doc-{rng.randrange(10**6)}", "document.content": text}
                for text in documents
            ],
        },
        {
            **common,
            "name": "llm",
            "context.span_id": f"{index:014x}02",
            "parent_id": root,
            "start_time": start + 2,
            "attributes.openinference.span.kind": "LLM",
            "attributes.input.value": prompt,
            "attributes.llm.input_messages": [{"message.role": "user", "message.content": prompt}],
            "attributes.output.value": answer,
        },
    ]


def _otlp_value(value: object) -> dict[str, Any]:
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, list | dict):
        return {"stringValue": json.dumps(value)}
    return {"stringValue": str(value)}


def _otlp_span(span: dict[str, Any]) -> dict[str, Any]:
    attributes: list[dict[str, Any]] = []
    for key, value in span.items():
        if not key.startswith("attributes."):
            continue
        name = key.removeprefix("attributes.")
        if name == "retrieval.documents":
            for rank, document in enumerate(value):
                for part, text in document.items():
                    attributes.append({"key": f"{name}.{rank}.{part}", "value": _otlp_value(text)})
        elif value is not None:
            attributes.append({"key": name, "value": _otlp_value(value)})
    return {
        "traceId": span["context.trace_id"],
        "spanId": span["context.span_id"],
        "parentSpanId": span["parent_id"] or "",
        "name": span["name"],
        "startTimeUnixNano": str(span["start_time"]),
        "attributes": attributes,
        "status": {"code": 1},
    }


def _chunks(format_name: str, megabytes: float, as_json: bool, seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    budget, written, index = megabytes * 1_000_000, 0, 0
    opened = False
    while written < budget:
        spans = _trace(rng, index)
        if format_name == "otlp":
            scope = {"spans": [_otlp_span(span) for span in spans]}
            record: Any = {"resourceSpans": [{"resource": {}, "scopeSpans": [scope]}]}
            pieces = [json.dumps(record)] if not as_json else [json.dumps(scope["spans"])[1:-1]]
        else:
            pieces = [json.dumps(span) for span in spans]
        if as_json:
            chunk = ("," if opened else "") + ",".join(pieces)
        else:
            chunk = "".join(piece + "\n" for piece in pieces)
        opened = True
        written += len(chunk)
        index += 1
        yield chunk


def write_export(
    path: Path, format_name: str, megabytes: float, *, as_json: bool = False, seed: int = 0
) -> int:
    """Write the export; returns its size in bytes."""
    if as_json and format_name == "otlp":
        head, tail = '{"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [', "]}]}]}"
    elif as_json:
        head, tail = '{"spans": [', "]}"
    else:
        head, tail = "", ""
    with path.open("w", encoding="utf-8") as file:
        file.write(head)
        for chunk in _chunks(format_name, megabytes, as_json, seed):
            file.write(chunk)
        file.write(tail)
    return path.stat().st_size


#: Runs the import in the child and reports the child's own peak RSS on stderr's last line
#: (RUSAGE_CHILDREN would report the largest of every child this process ever waited for).
# The peak RSS of this process alone: getrusage's ru_maxrss is kept across execve, so a
# child of a large process (a test worker) would report its parent's peak.
_CHILD = """
import sys
from pytest_ragas_gate.cli import main
status = main(sys.argv[1:])
with open("/proc/self/status", encoding="ascii") as status_file:
    peak = next(line.split()[1] for line in status_file if line.startswith("VmHWM:"))
print(peak, file=sys.stderr)
sys.exit(status)
"""


def measure(source: Path, format_name: str, output: Path) -> dict[str, Any]:
    """Import ``source`` in a fresh process; its wall time, peak RSS and summary line."""
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", _CHILD, "import", format_name, str(source), "-o", str(output)]
        + ["--force"],
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"import failed ({result.returncode}): {result.stderr}")
    peak_kb = int(result.stderr.strip().splitlines()[-1])  # Linux reports kilobytes
    return {
        "file_mb": round(source.stat().st_size / 1e6, 1),
        "seconds": round(elapsed, 1),
        "peak_rss_mb": round(peak_kb / 1024, 1),
        "summary": result.stdout.splitlines()[0],
    }


def main(argv: list[str] | None = None) -> int:
    """Generate the export, import it and print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=200.0)
    parser.add_argument("--format", choices=("openinference", "otlp"), default="openinference")
    parser.add_argument("--json", action="store_true", help="one JSON document, not JSONL")
    parser.add_argument("--directory", help="where to write the files (default: a temp dir)")
    arguments = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=arguments.directory) as folder:
        suffix = ".json" if arguments.json else ".jsonl"
        source = Path(folder) / f"export{suffix}"
        write_export(source, arguments.format, arguments.megabytes, as_json=arguments.json)
        figures = measure(source, arguments.format, Path(folder) / "golden.jsonl")
    print(json.dumps({"format": arguments.format, "json": arguments.json, **figures}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
