"""Conversation cases: every golden format, RAGAS MultiTurnSample, bad shapes, the gate."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_ragas_gate.gate.verdict import aggregate_metric
from pytest_ragas_gate.golden.loading import load_golden_file
from pytest_ragas_gate.scoring.results import CaseResult
from pytest_ragas_gate.settings.config import GateConfig

PLAN = "The Zorblax Pro plan gives each user 2 TB of storage."
PRICE = "The Zorblax Pro plan costs 10 dollars per month."
TRIAL = "The Zorblax Pro plan has a free trial of 30 days."

#: A 3-turn conversation whose turn 3 contradicts its contexts (90 days, not 30).
CONVERSATION: dict[str, Any] = {
    "id": "plan-chat",
    "tags": ["billing"],
    "turns": [
        {"role": "user", "content": "Which storage plan does Zorblax offer?"},
        {"role": "assistant", "content": PLAN, "retrieval_context": [PLAN]},
        {"role": "user", "content": "How much does it cost?"},
        {"role": "assistant", "content": PRICE, "contexts": [PRICE], "reference": PRICE},
        {"role": "user", "content": "Is there a free trial?"},
        {
            "role": "assistant",
            "content": "The Zorblax Pro plan has a free trial of 90 days.",
            "contexts": [TRIAL],
        },
    ],
}

#: RAGAS MultiTurnSample.to_dict() of a tool-using agent, unchanged.
RAGAS_SAMPLE: dict[str, Any] = {
    "user_input": [
        {"content": "What does the Zorblax Pro plan cost?", "type": "human"},
        {"content": "", "type": "ai", "tool_calls": [{"name": "search", "args": {"q": "pro"}}]},
        {"content": PRICE, "type": "tool"},
        {"content": PRICE, "type": "ai"},
        {"content": "Thanks!", "type": "human"},
        {"content": "You are welcome.", "type": "ai"},
    ],
    "reference": "It costs 10 dollars per month.",
}


def write_in(folder: Path, extension: str, rows: list[dict[str, Any]]) -> Path:
    path = folder / f"golden.{extension}"
    if extension == "jsonl":
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    elif extension == "json":
        path.write_text(json.dumps(rows), encoding="utf-8")
    elif extension == "yaml":
        path.write_text(yaml.safe_dump(rows, allow_unicode=True), encoding="utf-8")
    else:
        out = io.StringIO()
        columns = sorted({key for row in rows for key in row})
        writer = csv.DictWriter(out, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow(
                {k: json.dumps(v) if isinstance(v, list) else v for k, v in row.items()}
            )
        path.write_text(out.getvalue(), encoding="utf-8")
    return path


@pytest.mark.parametrize("extension", ["jsonl", "json", "yaml", "csv"])
def test_each_assistant_turn_is_a_case_in_every_format(tmp_path: Path, extension: str) -> None:
    loaded = load_golden_file(write_in(tmp_path, extension, [CONVERSATION]))
    assert loaded.problems == []
    assert [case.id for case in loaded.cases] == ["plan-chat#1", "plan-chat#2", "plan-chat#3"]
    third = loaded.cases[2]
    assert (third.question, third.context_texts) == ("Is there a free trial?", [TRIAL])
    assert [(m.role, m.content) for m in third.history] == [
        ("user", "Which storage plan does Zorblax offer?"),
        ("assistant", PLAN),
        ("user", "How much does it cost?"),
        ("assistant", PRICE),
    ]
    assert [case.reference for case in loaded.cases] == [None, PRICE, None]
    assert all(
        case.tags == ["billing"] and case.conversation == "plan-chat" for case in loaded.cases
    )
    assert [case.turn for case in loaded.cases] == [1, 2, 3]


def test_a_ragas_multi_turn_sample_loads_unchanged(tmp_path: Path) -> None:
    loaded = load_golden_file(write_in(tmp_path, "jsonl", [RAGAS_SAMPLE]))
    assert loaded.problems == []
    first, second = loaded.cases
    # The tool message is the retrieved context of the reply after it.
    assert (first.question, first.answer, first.context_texts) == (
        "What does the Zorblax Pro plan cost?",
        PRICE,
        [PRICE],
    )
    assert first.reference is None and second.reference == "It costs 10 dollars per month."
    assert first.id.startswith("c-") and second.id == first.id.replace("#1", "#2")


@pytest.mark.parametrize(
    ("turns", "expected"),
    [
        (
            [{"role": "assistant", "content": "Hello!"}],
            "golden.jsonl:2: field 'turns[0].role': a conversation starts with a user turn, "
            "got assistant",
        ),
        (
            [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello"},
                {"role": "assistant", "content": "Again"},
            ],
            "golden.jsonl:2: field 'turns[2].role': two assistant turns in a row (turns[1] "
            "and turns[2]); a user turn goes between them",
        ),
        (
            [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "  "}],
            "golden.jsonl:2: field 'turns[1].content': expected a non-empty string, got an "
            "empty string",
        ),
        (
            [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello", "contexts": "one chunk"},
            ],
            "golden.jsonl:2: field 'turns[1].contexts': expected a list of strings or {id, "
            "text} objects, got str",
        ),
        (
            [{"role": "system", "content": "Be nice"}],
            "golden.jsonl:2: field 'turns[0].role': expected user or assistant (RAGAS: human, "
            "ai or tool), got 'system'",
        ),
        (
            [{"role": "user", "content": "Hi"}, {"role": "asistant", "content": "Hello"}],
            "golden.jsonl:2: field 'turns[1].role': expected user or assistant (RAGAS: human, "
            "ai or tool), got 'asistant' — did you mean 'assistant'?",
        ),
    ],
    ids=[
        "starts-with-assistant",
        "two-assistants",
        "empty-content",
        "contexts-not-list",
        "role",
        "role-typo",
    ],
)
def test_a_bad_conversation_names_file_line_turn_and_field(
    tmp_path: Path, turns: list[dict[str, Any]], expected: str
) -> None:
    rows = [CONVERSATION, {"id": "bad", "turns": turns}]
    loaded = load_golden_file(write_in(tmp_path, "jsonl", rows), display_path="golden.jsonl")
    assert len(loaded.cases) == 3  # the good conversation still loads
    assert [problem.message for problem in loaded.problems] == [expected]


def test_a_ragas_message_type_typo_names_the_ragas_types_and_the_nearest(
    tmp_path: Path,
) -> None:
    messages = [
        {"type": "human", "content": "Which plans are there?"},
        {"type": "ai", "content": "Pro, with 2 TB."},
        {"type": "humna", "content": "And the cost?"},
        {"type": "ai", "content": "10 dollars a month."},
    ]
    rows = [CONVERSATION, {"id": "ragas", "user_input": messages}]
    loaded = load_golden_file(write_in(tmp_path, "jsonl", rows), display_path="golden.jsonl")
    assert [problem.message for problem in loaded.problems] == [
        "golden.jsonl:2: field 'user_input[2].type': expected human, ai or tool, got 'humna' "
        "— did you mean 'human'?"
    ]


# --- the gate counts conversations, not turns ------------------------------------------------


def turn(conversation: str, number: int, score: float | None, **extra: Any) -> CaseResult:
    return CaseResult(
        id=f"{conversation}#{number}",
        source="golden.jsonl:1",
        conversation=conversation,
        turn=number,
        scores={"faithfulness": score},
        **extra,
    )


def test_a_conversation_is_one_unit_of_the_aggregate() -> None:
    # The worked example: turns 1.0, 1.0, 0.0 → conversation 2/3; a one-turn chat at 1.0.
    long_chat = [turn("long", 1, 1.0), turn("long", 2, 1.0), turn("long", 3, 0.0)]
    short_chat = [turn("short", 1, 1.0)]
    aggregate = aggregate_metric([*long_chat, *short_chat], "faithfulness", GateConfig())
    assert aggregate.n == 2
    assert aggregate.mean == pytest.approx((2 / 3 + 1.0) / 2)  # not (1+1+0+1)/4 = 0.75


def test_a_turn_error_errors_its_conversation_and_an_all_na_conversation_is_na() -> None:
    errored = turn("a", 2, None)
    errored.scores = {}
    errored.errors = {"faithfulness": "judge failed"}
    results = [turn("a", 1, 1.0), errored, turn("b", 1, None), turn("c", 1, 0.5)]
    aggregate = aggregate_metric(results, "faithfulness", GateConfig())
    assert (aggregate.n, aggregate.errors, aggregate.not_applicable) == (1, 1, 1)
    assert aggregate.mean == 0.5


def test_an_all_na_metric_counts_conversations_and_says_its_reasons_count_turns() -> None:
    reasons = {"reasons": {"faithfulness": "no contexts"}}
    results = [turn("a", 1, None, **reasons), turn("a", 2, None, **reasons)]
    results.append(turn("b", 1, None, **reasons))
    aggregate = aggregate_metric(results, "faithfulness", GateConfig())
    assert aggregate.not_applicable == 2
    # Two conversations are n/a; the reason counts their three turns, and says so.
    assert aggregate.message.startswith(
        "faithfulness has no scored cases (n=0, 2 conversation(s) not applicable, their "
        "turns: 3 no contexts, 0 errors)"
    )


def test_a_trailing_user_turn_is_a_case_for_the_live_target_and_ids_never_clash(
    tmp_path: Path,
) -> None:
    rows = [
        {
            "id": "chat",
            "turns": [
                {"role": "user", "content": "Hi."},
                {"role": "user", "content": "Which plans are there?"},
                {"role": "assistant", "content": PLAN, "contexts": [PLAN]},
                {"role": "user", "content": "And the price?"},
            ],
        },
        {"id": "chat#2", "question": "A case whose id a turn would take.", "answer": "x"},
    ]
    loaded = load_golden_file(write_in(tmp_path, "jsonl", rows), display_path="golden.jsonl")
    first, second = loaded.cases
    # Two user turns in a row are one question; the last one awaits a live answer.
    assert (first.question, first.answer) == ("Hi.\nWhich plans are there?", PLAN)
    assert (second.id, second.question, second.answer) == ("chat#2", "And the price?", None)
    assert [problem.message for problem in loaded.problems] == [
        "golden.jsonl:2: field 'id': duplicate id 'chat#2' (first at golden.jsonl:1); ids "
        "must be unique within a file"
    ]


def test_a_shard_holds_whole_conversations(pytester: pytest.Pytester) -> None:
    rows = [{**CONVERSATION, "id": f"chat-{index}"} for index in range(6)]
    write_in(pytester.path, "jsonl", rows)
    kept: list[str] = []
    for shard in ("1/2", "2/2"):
        result = pytester.runpytest(
            "--rag-gate",
            "--rag-gate-judge",
            "offline",
            "--rag-gate-shard",
            shard,
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
        )
        names = [line.split("::")[1] for line in result.outlines if "::" in line]
        kept += names
        conversations = {name.split("#")[0] for name in names}
        # Every conversation of the shard with all three of its turns.
        assert len(names) == 3 * len(conversations)
    assert sorted(kept) == sorted(f"chat-{i}#{n}" for i in range(6) for n in (1, 2, 3))
