"""What a conversation turn costs against a single-turn case of the same size.

Reproduce with (from the repository root)::

    .venv/bin/python benchmarks/conversation_cost.py --conversations 10 --turns 4

It writes N conversations of T turns (each turn: a question, a two-sentence answer, three
retrieved chunks and a reference) and the very same turns as single-turn cases (no
history), scores both with ``pytest --rag-gate`` in a subprocess against the local fake
server (``tests/fakellm.py``, through the real SDKs), once per LLM judge, on faithfulness,
answer relevancy, context precision and recall, knowledge retention and the worst turn's
faithfulness, with the judge cache off. It prints, per turn and per case, the judge calls
and the prompt tokens the server received (its estimate: one token per four characters).

The contract: a turn makes exactly the calls of a single-turn case (knowledge retention
and ``turn_faithfulness_min`` read the verification faithfulness already asks for); the
history only adds prompt tokens, and only to the requests that read it (claim extraction
and verification, relevancy), growing with the turn's position in the conversation.

Measured with 5 conversations of 4 turns (prompt version 7): 3.00 calls per turn and per
single-turn case with both judges; prompt tokens per turn 8,026 against 7,578 per case with
the anthropic judge (+6%: its requests all carry the tool definitions) and 2,189 against
1,740 with the openai judge (+26%).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))

from fakellm import FakeLLM, input_tokens_of  # noqa: E402

METRICS = (
    "faithfulness,answer_relevancy,context_precision,context_recall,"
    "knowledge_retention,turn_faithfulness_min"
)
KEY = "test-key-not-real"


def turn(conversation: int, number: int) -> tuple[str, str, list[str], str]:
    """One exchange: question, answer, three chunks, reference; distinct per turn."""
    product = f"Zorblax{conversation}"
    fact = f"The {product} plan {number} gives each user {number + 1} TB of storage."
    price = f"The {product} plan {number} costs {10 * number} dollars per month."
    return (
        f"And what does plan {number} of it give and cost?",
        f"{fact} {price}",
        [fact, price, f"Support for {product} is open on weekdays from 9 to 5."],
        fact,
    )


def conversation_rows(conversations: int, turns: int) -> list[dict[str, Any]]:
    rows = []
    for index in range(conversations):
        messages: list[dict[str, Any]] = []
        for number in range(1, turns + 1):
            question, answer, contexts, reference = turn(index, number)
            messages.append({"role": "user", "content": question})
            messages.append(
                {
                    "role": "assistant",
                    "content": answer,
                    "contexts": contexts,
                    "reference": reference,
                }
            )
        rows.append({"id": f"chat-{index}", "turns": messages})
    return rows


def single_rows(conversations: int, turns: int) -> list[dict[str, Any]]:
    rows = []
    for index in range(conversations):
        for number in range(1, turns + 1):
            question, answer, contexts, reference = turn(index, number)
            rows.append(
                {
                    "id": f"single-{index}-{number}",
                    "question": question,
                    "answer": answer,
                    "contexts": contexts,
                    "reference": reference,
                }
            )
    return rows


def measure(judge: str, rows: list[dict[str, Any]], units: int) -> tuple[float, float]:
    """Calls and prompt tokens per scored case (turn), as the fake server received them."""
    with tempfile.TemporaryDirectory() as folder, FakeLLM() as server:
        golden = Path(folder) / "golden.jsonl"
        golden.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        env = {
            **os.environ,
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": server.url,
            "OPENAI_API_KEY": KEY,
            "OPENAI_BASE_URL": server.openai_url,
        }
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rag-gate",
            "--rag-gate-judge",
            judge,
            "--rag-gate-metrics",
            METRICS,
            "--rag-gate-set",
            "cache.mode=off",
            str(golden),
        ]
        subprocess.run(command, cwd=folder, env=env, capture_output=True, check=False)
        requests = server.judge_requests()
        api = "anthropic" if judge == "anthropic" else "openai"
        tokens = sum(input_tokens_of(api, request.body) for request in requests)
    return len(requests) / units, tokens / units


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument("--turns", type=int, default=4)
    options = parser.parse_args()
    count = options.conversations * options.turns
    print(
        f"{options.conversations} conversations x {options.turns} turns = {count} turns, "
        f"against {count} single-turn cases of the same content"
    )
    print(
        f"{'judge':<10} {'calls/turn':>10} {'calls/case':>10} {'tokens/turn':>12} "
        f"{'tokens/case':>12} {'history adds':>12}"
    )
    for judge in ("anthropic", "openai"):
        turn_calls, turn_tokens = measure(
            judge, conversation_rows(options.conversations, options.turns), count
        )
        case_calls, case_tokens = measure(
            judge, single_rows(options.conversations, options.turns), count
        )
        added = (turn_tokens - case_tokens) / case_tokens
        print(
            f"{judge:<10} {turn_calls:>10.2f} {case_calls:>10.2f} {turn_tokens:>12.0f} "
            f"{case_tokens:>12.0f} {added:>11.0%}"
        )


if __name__ == "__main__":
    main()
