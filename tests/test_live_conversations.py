"""Live conversations: the golden user turns replayed, the target's own answers as history."""

from __future__ import annotations

import json
import textwrap
from typing import Any

import pytest

import pytest_ragas_gate.live.conversation_replay  # noqa: F401
import pytest_ragas_gate.live.targets  # noqa: F401
import pytest_ragas_gate.plugin.activation  # noqa: F401

# The assistant, written beside the golden set. It answers a follow-up from the plan its
# history names, logs every call with the history it was given, and takes a while.
CHAT_MODULE = """
    import asyncio
    import json
    import os
    import time

    PLANS = {"pro": "The Pro plan gives 2 TB of storage and costs 10 dollars a month."}

    def reply(question, history):
        with open(os.path.join(os.path.dirname(__file__), "calls.jsonl"), "a") as log:
            log.write(json.dumps({"question": question, "history": history}) + "\\n")
        asked = " ".join(turn["content"] for turn in history if turn["role"] == "user")
        if "pro" not in (asked + " " + question).lower():
            return {"answer": "Which plan do you mean?", "contexts": []}
        fact = PLANS["pro"]
        if "cost" in question.lower():
            answer = "The Pro plan costs 10 dollars a month."
        else:
            answer = "The Pro plan gives 2 TB of storage."
        return {"answer": answer, "contexts": [fact]}

    def answer(question, history):
        time.sleep(0.01)
        return reply(question, history)

    async def aanswer(question, history=None):
        await asyncio.sleep(0.01)
        return reply(question, history or [])

    def no_history(question):
        return reply(question, [])
"""

GOLDEN_REPLY = "GOLDEN reply that the live run must never send back as history."


def conversation(name: str) -> dict[str, Any]:
    return {
        "id": name,
        "turns": [
            {"role": "user", "content": "Tell me about the Pro plan."},
            {"role": "assistant", "content": GOLDEN_REPLY},
            {"role": "user", "content": "How much does it cost?"},
            {"role": "assistant", "content": GOLDEN_REPLY},
            {"role": "user", "content": "And its storage?"},
        ],
    }


def setup_run(pytester: pytest.Pytester, *rows: dict[str, Any]) -> None:
    (pytester.path / "chat_target.py").write_text(textwrap.dedent(CHAT_MODULE), encoding="utf-8")
    text = "".join(json.dumps(row) + "\n" for row in rows)
    (pytester.path / "golden.jsonl").write_text(text, encoding="utf-8")


def run(pytester: pytest.Pytester, target: str, *extra: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--rag-gate",
        "--rag-gate-judge",
        "offline",
        "--rag-gate-target",
        f"chat_target:{target}",
        "--rag-gate-metrics",
        "faithfulness,answer_relevancy",
        "--rag-gate-report",
        "report.json",
        "-p",
        "no:cacheprovider",
        *extra,
    )


def calls(pytester: pytest.Pytester) -> list[dict[str, Any]]:
    lines = (pytester.path / "calls.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.parametrize(
    ("target", "workers"),
    [
        pytest.param("answer", [], id="sync-serial"),
        pytest.param("answer", ["-n", "2"], id="sync-xdist", marks=pytest.mark.slow),
        pytest.param("aanswer", [], id="async-serial"),
        pytest.param("aanswer", ["-n", "2"], id="async-xdist"),
    ],
)
def test_turns_are_replayed_with_the_targets_own_answers(
    pytester: pytest.Pytester, target: str, workers: list[str]
) -> None:
    setup_run(pytester, conversation("first"), conversation("second"))
    result = run(pytester, target, *workers)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()

    logged = calls(pytester)
    # Each turn of each conversation is asked exactly once.
    assert len(logged) == 6
    third = [call for call in logged if call["question"] == "And its storage?"]
    assert len(third) == 2
    for call in third:
        assert call["history"] == [
            {"role": "user", "content": "Tell me about the Pro plan."},
            {"role": "assistant", "content": "The Pro plan gives 2 TB of storage."},
            {"role": "user", "content": "How much does it cost?"},
            {"role": "assistant", "content": "The Pro plan costs 10 dollars a month."},
        ]
    assert GOLDEN_REPLY not in json.dumps(logged)

    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    cases = {case["id"]: case for case in report["cases"]}
    assert sorted(cases) == [f"{name}#{n}" for name in ("first", "second") for n in (1, 2, 3)]
    for case in cases.values():
        assert case["latency_s"] is not None and case["latency_s"] >= 0.005
        assert case["scores"]["faithfulness"] == 1.0
    # The follow-up is answered from the history the target built.
    assert cases["first#3"]["answer"] == "The Pro plan gives 2 TB of storage."
    assert report["metrics"]["faithfulness"]["n"] == 2


def test_a_target_without_history_errors_the_follow_ups_naming_the_turn(
    pytester: pytest.Pytester,
) -> None:
    setup_run(pytester, conversation("chat"))
    result = run(pytester, "no_history")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*target chat_target:no_history takes no history= parameter, so it cannot answer "
            "turn 2 of conversation 'chat' (golden.jsonl:1)*",
        ]
    )
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    errors = {case["id"]: case["error"] for case in report["cases"]}
    assert errors["chat#1"] is None
    assert "turn 2 of conversation 'chat'" in errors["chat#3"]
