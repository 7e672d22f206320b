"""rag-gate synth --kinds conversation: chats whose follow-ups mean nothing without turn 1."""

from __future__ import annotations

import asyncio
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeLLM
from gate_runs import gate_run, use_fake_judge
from synth_corpora import write_rail_corpus

from pytest_ragas_gate.cli import main
from pytest_ragas_gate.gate.deploy_decision import SMOKE_CHECK
from pytest_ragas_gate.synth.offline import OfflineSynthJudge
from pytest_ragas_gate.synth.requests import (
    Candidate,
    CritiqueQuestions,
    SynthTurn,
    WriteQuestions,
)

SEASON = (
    "Season cards\nSeason cards are valid for 30 days and cost $90. Season cards must be "
    "renewed at a ticket office."
)
TICKETS = (
    "Tickets\nSingle tickets are valid for 3 hours after purchase. Day passes are valid "
    "for 24 hours from the first journey."
)


def synth(folder: Path, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    output = folder / "golden_synth.jsonl"
    status = main(["synth", str(folder / "docs"), "-o", str(output), *extra])
    rows = [json.loads(line) for line in output.read_text().splitlines()] if output.exists() else []
    return status, rows


def users(row: dict[str, Any]) -> list[str]:
    return [turn["content"] for turn in row["turns"] if turn["role"] == "user"]


def write(chunk: str, title: str, chinese: bool = False) -> list[str]:
    request = WriteQuestions(
        chunks=[chunk], titles=[title], kinds=["conversation"], chinese=chinese
    )
    reply = asyncio.run(OfflineSynthJudge().ask(request)).reply.questions
    assert len(reply) == 1
    return [reply[0].question, *(turn.question for turn in reply[0].follow_ups)]


def test_offline_follow_ups_refer_back_with_a_pronoun_or_an_ellipsis() -> None:
    # Two facts about one subject: the follow-up says "they" instead of its name.
    assert write(SEASON, "River Valley Rail") == [
        "In River Valley Rail, how long are season cards valid?",
        "And how much do they cost?",
    ]
    # Three facts of one subject: a three-turn chat.
    plan = (
        "Plans\nThe Team plan costs $12 per user. The Team plan keeps versions for 90 days. "
        "The Team plan was launched in 2019."
    )
    assert write(plan, "Skyfile") == [
        "In Skyfile, how much does the Team plan cost per user?",
        "And how long does it keep versions?",
        "And when was it launched?",
    ]
    assert write("季票\n季票自购买起30天内有效。季票的价格是90元。", "河谷铁路", True) == [
        "季票自购买起多少天内有效？",
        "那它的价格是多少元？",
    ]
    # Two subjects with parallel facts: the follow-up leaves the question out.
    assert write(TICKETS, "River Valley Rail") == [
        "In River Valley Rail, how long are single tickets valid after purchase?",
        "And day passes?",
    ]
    assert write(
        "车票\n单程票在购买后3小时内有效。日票自首次乘车起24小时内有效。", "河谷铁路", True
    ) == [
        "单程票在购买后几小时内有效？",
        "那日票呢？",
    ]


def critique(follow_up: str, reference: str, chunk: str = SEASON) -> tuple[bool, str, str]:
    request = CritiqueQuestions(
        chunks=[chunk],
        titles=["River Valley Rail"],
        candidates=[
            Candidate(
                kind="conversation",
                question="In River Valley Rail, how long are season cards valid?",
                reference="Season cards are valid for 30 days and cost $90.",
                chunks=[0],
                follow_ups=[SynthTurn(question=follow_up, reference=reference, chunks=[0])],
            )
        ],
    )
    verdict = OfflineSynthJudge().critique(request).verdicts[0]
    return verdict.keep, verdict.problem, verdict.reason


def test_offline_critic_keeps_only_follow_ups_that_need_the_history_and_are_supported() -> None:
    assert critique("And how much do they cost?", "Season cards cost $90.")[0] is True
    # Names the subject again: a standalone question, not a follow-up.
    keep, problem, reason = critique("And how much do season cards cost?", "Season cards cost $90.")
    assert (keep, problem) == (False, "not_standalone")
    assert "'season'" in reason or "'card" in reason
    # Refers back to nothing: it stands alone.
    assert critique("How much does a ticket office charge?", "Season cards cost $90.")[1] == (
        "not_standalone"
    )
    # Its reference is not what the chunk says.
    assert critique("And how much do they cost?", "Season cards cost $45 in Geneva.")[1] == (
        "not_answerable"
    )


def test_synth_conversation_line_loads_and_gates_as_turns(pytester: pytest.Pytester) -> None:
    write_rail_corpus(pytester.path / "docs")
    status, rows = synth(pytester.path, "--judge", "offline", "--kinds", "conversation", "--n", "3")

    assert status == 0
    assert len(rows) == 3 and all(row["tags"][1] == "conversation" for row in rows)
    chats = {tuple(users(row)) for row in rows}
    assert (
        "In River Valley Rail, how long are single tickets valid after purchase?",
        "And day passes?",
    ) in chats
    assert ("单程票在购买后几小时内有效？", "那日票呢？") in chats
    for row in rows:
        for turn in row["turns"][1::2]:
            assert turn["role"] == "assistant" and turn["reference"]
            assert all(context["id"] in row["relevant_context_ids"] for context in turn["contexts"])
            assert all(context["text"] for context in turn["contexts"])

    run = gate_run(pytester, "golden_synth.jsonl", "-v", judge="offline")

    assert run.ret == 0
    ids = {row["id"] for row in rows}
    scored = {case["id"] for case in run.report["cases"]}
    assert scored == {f"{case}#{turn}" for case in ids for turn in (1, 2)}
    run.stdout.fnmatch_lines(["*conversations: 3 with 6 turns*", SMOKE_CHECK])


def test_kinds_lists_what_to_write_and_rejects_an_unknown_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_rail_corpus(tmp_path / "docs")
    status, rows = synth(
        tmp_path, "--judge", "offline", "--kinds", "single,conversation", "--n", "4"
    )
    assert status == 0
    kinds = sorted(row["tags"][1] for row in rows)
    assert kinds.count("single") == 2 and 1 <= kinds.count("conversation") <= 2
    assert set(kinds) == {"single", "conversation"}
    # Without --kinds the default mix writes no conversation.
    (tmp_path / "golden_synth.jsonl").unlink()
    _, rows = synth(tmp_path, "--judge", "offline", "--n", "6")
    assert all("turns" not in row for row in rows)
    capsys.readouterr()

    status, _ = synth(tmp_path, "--judge", "offline", "--kinds", "chat")

    assert status == 4
    assert "--kinds: 'chat' is not one of single, multi, reasoning, unanswerable, conversation" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_llm_conversations_are_asked_for_and_critiqued(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fake_llm: FakeLLM,
    api: str,
) -> None:
    use_fake_judge(monkeypatch, fake_llm, api=api)
    monkeypatch.chdir(tmp_path)
    write_rail_corpus(tmp_path / "docs")

    status, rows = synth(
        tmp_path, "--judge", api, "--cache-dir", "cache", "--kinds", "conversation", "--n", "4"
    )

    assert status == 0 and rows
    writes = [
        json.dumps(call.body)
        for call in fake_llm.judge_requests()
        if fake_llm.kind_of(call) == "synth_questions"
    ]
    assert writes and all("kinds in order: conversation" in body for body in writes)
    assert all("referring back to it with a pronoun or an ellipsis" in body for body in writes)
    for row in rows:
        assert len(users(row)) == 2
        assert users(row)[1] == "And what else about it?"  # the critic dropped the others
    assert "not_standalone" in capsys.readouterr().out


def test_review_shows_a_conversation_as_a_chat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_rail_corpus(tmp_path / "docs")
    synth(tmp_path, "--judge", "offline", "--kinds", "conversation", "--n", "1")
    monkeypatch.setattr(sys, "stdin", io.StringIO("e\na\n"))
    shown = io.StringIO()
    monkeypatch.setattr(sys, "stdout", shown)

    assert main(["synth", "review", str(tmp_path / "golden_synth.jsonl")]) == 0

    text = shown.getvalue()
    assert "turn 1 user:" in text and "turn 2 user:" in text
    assert text.index("turn 1 user:") < text.index("reference:") < text.index("turn 2 user:")
    assert "a conversation is edited in the file itself" in text
    row = json.loads((tmp_path / "golden_synth.jsonl").read_text().splitlines()[0])
    assert row["review"] == "accepted"


def test_a_reviewed_conversation_follows_its_edited_chunk_back_to_pending(
    tmp_path: Path,
) -> None:
    docs = write_rail_corpus(tmp_path / "docs")
    options = ("--judge", "offline", "--kinds", "conversation", "--n", "3")
    _, rows = synth(tmp_path, *options)
    output = tmp_path / "golden_synth.jsonl"
    output.write_text("".join(json.dumps({**row, "review": "accepted"}) + "\n" for row in rows))
    cards = docs / "cards.md"
    cards.write_text(cards.read_text().replace("cost $90", "cost $95"))

    status, again = synth(tmp_path, *options)

    assert status == 0
    season = [row for row in again if "season cards" in users(row)[0]]
    assert len(season) == 1 and season[0]["review"] == "pending"
    contexts = [c for turn in season[0]["turns"][1::2] for c in turn["contexts"]]
    assert all(
        "$95" in c["text"] and c["id"] in season[0]["relevant_context_ids"] for c in contexts
    )
    assert sum(row["review"] == "accepted" for row in again) == 2
