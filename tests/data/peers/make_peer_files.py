"""Write this folder's files with DeepEval's, RAGAS's and promptfoo's own APIs and CLI.

Not run by the test suite: the files it writes are committed, and the tests load them as
the tools wrote them. Run it again when a tool's major version changes, in a scratch
environment that has the tools (they are no dependency of the project)::

    python -m venv /tmp/peers && /tmp/peers/bin/pip install deepeval ragas
    (cd /tmp/promptfoo && npm install node@22 promptfoo)
    /tmp/peers/bin/python tests/data/peers/make_peer_files.py --promptfoo /tmp/promptfoo

promptfoo needs no network: the system under test is a local provider that answers from
the test's ``answer`` variable, and the RAG asserts' grader is a small OpenAI-compatible
server this script starts on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import version
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: Three RAG cases: two answers their contexts support, one that contradicts its context.
CASES: list[dict[str, Any]] = [
    {
        "question": "Who founded Apple and when?",
        "answer": "Apple was founded in 1976 by Steve Jobs and Steve Wozniak.",
        "contexts": [
            "Apple was founded in 1976 by Steve Jobs and Steve Wozniak in Cupertino.",
            "The company went public in 1980.",
        ],
        "reference": "Apple was founded in 1976 by Steve Jobs and Steve Wozniak.",
    },
    {
        "question": "Where is the Eiffel Tower?",
        "answer": "The Eiffel Tower is in Paris.",
        "contexts": ["The Eiffel Tower is a wrought-iron tower in Paris, France."],
        "reference": "The Eiffel Tower is in Paris.",
    },
    {
        "question": "When was the Eiffel Tower completed?",
        "answer": "The Eiffel Tower was completed in 1925.",
        "contexts": ["The Eiffel Tower was completed in 1889 for the World's Fair in Paris."],
        "reference": "It was completed in 1889.",
    },
]

PLAN = "The Zorblax Pro plan gives each user 2 TB of storage."
PRICE = "The Zorblax Pro plan costs 10 dollars per month."
TRIAL = "The Zorblax Pro plan has a free trial of 30 days."

#: Two conversations that open alike ("Hi"), as real chat logs do.
CONVERSATIONS: list[list[tuple[str, str, list[str] | None]]] = [
    [
        ("user", "Hi", None),
        ("assistant", "Hello! How can I help with Zorblax?", None),
        ("user", "How much storage does the Pro plan give?", None),
        ("assistant", PLAN, [PLAN]),
        ("user", "And what does it cost?", None),
        ("assistant", PRICE, [PRICE]),
    ],
    [
        ("user", "Hi", None),
        ("assistant", "Hi there, what do you need?", None),
        ("user", "Is there a free trial of the Pro plan?", None),
        ("assistant", "The Zorblax Pro plan has a free trial of 90 days.", [TRIAL]),
    ],
]


def deepeval_files(directory: Path) -> dict[str, str]:
    """DeepEval goldens (JSON, JSONL, CSV), conversational goldens, goldens with tool calls."""
    from deepeval.dataset import ConversationalGolden, EvaluationDataset, Golden
    from deepeval.test_case import ToolCall, Turn

    goldens = [
        Golden(
            input=case["question"],
            actual_output=case["answer"],
            expected_output=case["reference"],
            retrieval_context=case["contexts"],
            context=case["contexts"][:1],
            additional_metadata={"team": "search"},
        )
        for case in CASES
    ]
    written: dict[str, str] = {}
    for file_type in ("json", "jsonl", "csv"):
        path = EvaluationDataset(goldens=goldens).save_as(
            file_type, str(directory), file_name="deepeval_goldens"
        )
        written[Path(path).name] = "DeepEval EvaluationDataset(goldens=…).save_as"
    conversations = [
        ConversationalGolden(
            scenario="A customer asks about the Zorblax Pro plan.",
            expected_outcome="The customer learns what the plan gives and costs.",
            user_description="A small-business owner comparing storage plans.",
            context=[PLAN] if number == 0 else None,
            turns=[
                Turn(role=role, content=content, retrieval_context=contexts)
                for role, content, contexts in turns
            ],
        )
        for number, turns in enumerate(CONVERSATIONS)
    ]
    path = EvaluationDataset(goldens=conversations).save_as(
        "json", str(directory), file_name="deepeval_conversations"
    )
    written[Path(path).name] = "DeepEval EvaluationDataset(goldens=[ConversationalGolden…]).save_as"
    search = ToolCall(name="search_docs", input_parameters={"query": "Apple founders"})
    with_tools = [
        Golden(
            input=CASES[0]["question"],
            actual_output=CASES[0]["answer"],
            expected_output=CASES[0]["reference"],
            retrieval_context=CASES[0]["contexts"],
            tools_called=[
                ToolCall(
                    name="search_docs",
                    input_parameters={"query": "Apple founders"},
                    output=CASES[0]["contexts"],
                )
            ],
            expected_tools=[search],
        ),
        Golden(
            input=CASES[1]["question"],
            actual_output=CASES[1]["answer"],
            retrieval_context=CASES[1]["contexts"],
            tools_called=[ToolCall(name="web_search", input_parameters={"q": "Eiffel Tower"})],
            expected_tools=[ToolCall(name="search_docs")],
        ),
    ]
    path = EvaluationDataset(goldens=with_tools).save_as(
        "json", str(directory), file_name="deepeval_goldens_tools"
    )
    written[Path(path).name] = "DeepEval Golden(tools_called=…, expected_tools=…) save_as"
    return written


def ragas_files(directory: Path) -> dict[str, str]:
    """RAGAS EvaluationDataset, single-turn and multi-turn, with to_jsonl and to_csv."""
    from ragas import EvaluationDataset, MultiTurnSample, SingleTurnSample
    from ragas.messages import AIMessage, HumanMessage, ToolCall, ToolMessage

    single = EvaluationDataset(
        samples=[
            SingleTurnSample(
                user_input=case["question"],
                response=case["answer"],
                retrieved_contexts=case["contexts"],
                reference=case["reference"],
            )
            for case in CASES
        ]
    )
    multi_samples = []
    for turns in CONVERSATIONS:
        messages: list[Any] = []
        for role, content, contexts in turns:
            if role == "user":
                messages.append(HumanMessage(content=content))
                continue
            if contexts:
                call = ToolCall(name="search_docs", args={"query": messages[-1].content})
                messages.append(AIMessage(content="", tool_calls=[call]))
                messages += [ToolMessage(content=text) for text in contexts]
            messages.append(AIMessage(content=content))
        multi_samples.append(MultiTurnSample(user_input=messages, reference=turns[-1][1]))
    multi = EvaluationDataset(samples=multi_samples)
    written: dict[str, str] = {}
    for name, dataset in (("ragas_single_turn", single), ("ragas_multi_turn", multi)):
        dataset.to_jsonl(str(directory / f"{name}.jsonl"))
        dataset.to_csv(str(directory / f"{name}.csv"))
        written[f"{name}.jsonl"] = "RAGAS EvaluationDataset.to_jsonl"
        written[f"{name}.csv"] = "RAGAS EvaluationDataset.to_csv"
    return written


# --- tool calls inside conversations -------------------------------------------------------

#: Where the conversations with tool calls go, each file named with its tool's version.
TOOL_CONVERSATIONS = "conversation-tools"

LOOKUP_42 = {"name": "lookup_order", "input_parameters": {"order_id": 42}}
REFUND_42 = {"name": "issue_refund", "input_parameters": {"order_id": 42}}
LOOKUP_7 = {"name": "lookup_order", "input_parameters": {"order_id": 7}}


def deepeval_tool_conversations(directory: Path) -> dict[str, str]:
    """DeepEval conversational goldens whose assistant turns called tools.

    DeepEval's ``Turn`` records ``tools_called`` and has no field for the calls a turn
    should make, so they are in the turn's ``metadata`` (per turn) or the golden's
    ``additional_metadata`` (for the whole conversation).
    """
    from deepeval.dataset import ConversationalGolden, EvaluationDataset
    from deepeval.test_case import ToolCall, Turn

    def call(spec: dict[str, Any], output: Any = None) -> Any:
        return ToolCall(name=spec["name"], input_parameters=spec["input_parameters"], output=output)

    scenario = "A customer asks about an order."
    goldens = [
        # Per turn: each reply called the tool it should.
        ConversationalGolden(
            scenario=scenario,
            name="order-42-per-turn",
            turns=[
                Turn(role="user", content="Where is order 42?"),
                Turn(
                    role="assistant",
                    content="Order 42 shipped on 3 May.",
                    tools_called=[call(LOOKUP_42, {"status": "shipped", "date": "3 May"})],
                    metadata={"expected_tools": [LOOKUP_42]},
                ),
                Turn(role="user", content="It is late, please refund it."),
                Turn(
                    role="assistant",
                    content="Order 42 is refunded.",
                    tools_called=[call(REFUND_42, "refunded")],
                    metadata={"expected_tools": [REFUND_42]},
                ),
            ],
        ),
        # Per turn: a greeting with no tools, then the wrong tool.
        ConversationalGolden(
            scenario=scenario,
            name="order-7-wrong-tool",
            turns=[
                Turn(role="user", content="Hi"),
                Turn(role="assistant", content="Hello! How can I help?"),
                Turn(role="user", content="What is the status of order 7?"),
                Turn(
                    role="assistant",
                    content="Order 7 is paid.",
                    tools_called=[
                        ToolCall(name="web_search", input_parameters={"q": "order 7 status"})
                    ],
                    metadata={"expected_tools": [LOOKUP_7]},
                ),
            ],
        ),
        # For the whole conversation: the calls of all its turns, in order.
        ConversationalGolden(
            scenario=scenario,
            name="order-42-whole",
            additional_metadata={"expected_tools": [LOOKUP_42, REFUND_42]},
            turns=[
                Turn(role="user", content="Where is order 42?"),
                Turn(
                    role="assistant",
                    content="Order 42 shipped on 3 May.",
                    tools_called=[call(LOOKUP_42)],
                ),
                Turn(role="user", content="Refund it, please."),
                Turn(
                    role="assistant",
                    content="Order 42 is refunded.",
                    tools_called=[call(REFUND_42)],
                ),
            ],
        ),
    ]
    name = f"deepeval-{version('deepeval')}-conversations-tools"
    path = EvaluationDataset(goldens=goldens).save_as("json", str(directory), file_name=name)
    return {
        f"{TOOL_CONVERSATIONS}/{Path(path).name}": "DeepEval EvaluationDataset(goldens="
        "[ConversationalGolden(turns=[Turn(tools_called=…, metadata={expected_tools})…])]).save_as"
    }


def ragas_tool_conversations(directory: Path) -> dict[str, str]:
    """RAGAS multi-turn samples with AIMessage tool calls, ToolMessages, reference_tool_calls."""
    from ragas import EvaluationDataset, MultiTurnSample
    from ragas.messages import AIMessage, HumanMessage, ToolCall, ToolMessage

    def call(spec: dict[str, Any], **more: Any) -> Any:
        return ToolCall(name=spec["name"], args={**spec["input_parameters"], **more})

    samples = [
        MultiTurnSample(
            user_input=[
                HumanMessage(content="Where is order 42?"),
                AIMessage(content="", tool_calls=[call(LOOKUP_42)]),
                ToolMessage(content="Order 42: shipped on 3 May."),
                AIMessage(content="Order 42 shipped on 3 May."),
                HumanMessage(content="It is late, please refund it."),
                # RAGAS compares the reference's arguments only: 'reason' is extra.
                AIMessage(content="", tool_calls=[call(REFUND_42, reason="late")]),
                ToolMessage(content="Order 42: refunded."),
                AIMessage(content="Order 42 is refunded."),
            ],
            reference_tool_calls=[call(LOOKUP_42), call(REFUND_42)],
        ),
        MultiTurnSample(
            user_input=[
                HumanMessage(content="What is the status of order 7?"),
                AIMessage(content="", tool_calls=[ToolCall(name="web_search", args={"q": "7"})]),
                ToolMessage(content="No results."),
                AIMessage(content="Order 7 is paid."),
            ],
            reference_tool_calls=[call(LOOKUP_7)],
        ),
    ]
    dataset = EvaluationDataset(samples=samples)
    stem = f"ragas-{version('ragas')}-multi-turn-tools"
    dataset.to_jsonl(str(directory / f"{stem}.jsonl"))
    dataset.to_csv(str(directory / f"{stem}.csv"))
    return {
        f"{TOOL_CONVERSATIONS}/{stem}.jsonl": "RAGAS EvaluationDataset(samples=[MultiTurnSample"
        "(AIMessage(tool_calls=…), ToolMessage, reference_tool_calls=…)]).to_jsonl",
        f"{TOOL_CONVERSATIONS}/{stem}.csv": "RAGAS EvaluationDataset(…).to_csv",
    }


def tool_conversation_files(directory: Path) -> dict[str, str]:
    """The conversations with tool calls, in ``directory / TOOL_CONVERSATIONS``."""
    folder = directory / TOOL_CONVERSATIONS
    folder.mkdir(exist_ok=True)
    return {**deepeval_tool_conversations(folder), **ragas_tool_conversations(folder)}


# --- promptfoo ---------------------------------------------------------------------------

#: What the local grader answers a grading prompt: it parses as a pass in promptfoo's
#: context-recall ([Attributed]) and context-faithfulness (the verdicts) graders, and
#: answer-relevance's generated questions are it; context-relevance gets the context back.
_GRADE = (
    "1. The answer is supported by the context. [Attributed]\n"
    "Final verdict for each statement in order: Yes. Yes."
)


def _grade(request: dict[str, Any]) -> str:
    """The canned grade; context-relevance (promptfoo 0.123) must quote the context itself."""
    prompt = "\n".join(str(message.get("content")) for message in request.get("messages", []))
    start, end = prompt.find("\ncontext: "), prompt.find("\ncandidate sentences:")
    if 0 <= start < end:
        return prompt[start + len("\ncontext: ") : end].strip()
    return _GRADE


class _Grader(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat and embeddings endpoint on 127.0.0.1, canned answers."""

    def do_POST(self) -> None:  # noqa: N802 (the handler's name is http.server's)
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        if self.path.endswith("/embeddings"):
            body: dict[str, Any] = {
                "object": "list",
                "data": [{"object": "embedding", "index": 0, "embedding": [1.0, 0.0, 0.0]}],
                "model": "local-embedding",
                "usage": {"prompt_tokens": 1, "total_tokens": 1},
            }
        else:
            body = {
                "id": "chatcmpl-local",
                "object": "chat.completion",
                "created": 0,
                "model": "local-grader",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": _grade(request)},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return


_PROVIDER_JS = """\
// The system under test: answers from the test's `answer` variable, offline.
module.exports = class LocalRag {
  id() { return 'local-rag'; }
  async callApi(prompt, context) { return { output: context.vars.answer }; }
};
"""


def promptfoo_files(directory: Path, promptfoo: Path) -> dict[str, str]:
    """A results file written by ``promptfoo eval -o``, with the four RAG asserts."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Grader)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    grader_config = {"apiBaseUrl": base, "apiKey": "local"}
    tests = [
        {
            "description": f"case {number}",
            "vars": {
                "query": case["question"],
                # One chunk per line: a list would make promptfoo run one test per item.
                "context": "\n".join(case["contexts"]),
                "answer": case["answer"],
                "reference": case["reference"],
            },
        }
        for number, case in enumerate(CASES, start=1)
    ]
    config = {
        "description": "RAG answers with promptfoo's RAG asserts",
        "prompts": ["Answer {{query}} from this context:\n{{context}}"],
        "providers": ["file://provider.js"],
        "defaultTest": {
            "options": {
                "provider": {
                    "text": {"id": "openai:chat:local-grader", "config": grader_config},
                    "embedding": {
                        "id": "openai:embedding:local-embedding",
                        "config": grader_config,
                    },
                }
            },
            "assert": [
                {"type": "context-faithfulness", "threshold": 0.8},
                {"type": "context-recall", "value": "{{reference}}", "threshold": 0.7},
                {"type": "context-relevance", "threshold": 0.5},
                {"type": "answer-relevance", "threshold": 0.6},
            ],
        },
        "tests": tests,
    }
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        (work / "promptfooconfig.yaml").write_text(json.dumps(config, indent=2), "utf-8")
        (work / "provider.js").write_text(_PROVIDER_JS, "utf-8")
        environment = {
            **os.environ,
            # A Node installed beside promptfoo (npm install node@22) comes first.
            "PATH": f"{promptfoo / 'node_modules' / '.bin'}{os.pathsep}{os.environ['PATH']}",
            "PROMPTFOO_DISABLE_TELEMETRY": "1",
            "PROMPTFOO_DISABLE_UPDATE": "1",
            "PROMPTFOO_CONFIG_DIR": str(work / ".promptfoo"),
            "OPENAI_API_KEY": "local",
        }
        command = [
            str(promptfoo / "node_modules" / ".bin" / "promptfoo"),
            "eval",
            "-c",
            "promptfooconfig.yaml",
            "-o",
            "results.json",
            "--no-cache",
            "--no-table",
            "--no-share",
        ]
        subprocess.run(command, cwd=work, env=environment, check=False, timeout=600)
        server.shutdown()
        shutil.copy(work / "results.json", directory / "promptfoo_results.json")
    return {"promptfoo_results.json": "promptfoo eval -o results.json"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--promptfoo", type=Path, help="a folder where promptfoo is installed")
    parser.add_argument("--out", type=Path, default=HERE)
    arguments = parser.parse_args()
    written = {
        **deepeval_files(arguments.out),
        **ragas_files(arguments.out),
        **tool_conversation_files(arguments.out),
    }
    versions = {"deepeval": version("deepeval"), "ragas": version("ragas")}
    if arguments.promptfoo is not None:
        written.update(promptfoo_files(arguments.out, arguments.promptfoo))
        package = arguments.promptfoo / "node_modules" / "promptfoo" / "package.json"
        versions["promptfoo"] = json.loads(package.read_text("utf-8"))["version"]
    node = "node"
    if arguments.promptfoo is not None:
        local = arguments.promptfoo / "node_modules" / ".bin" / "node"
        node = str(local) if local.exists() else node
    versions["node"] = subprocess.run(
        [node, "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    versions["python"] = sys.version.split()[0]
    manifest = {"versions": versions, "files": written}
    (arguments.out / "versions.json").write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")
    print(json.dumps(manifest, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
