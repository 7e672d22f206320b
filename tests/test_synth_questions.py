"""The keyless synth writer asks what a user would ask: natural wh-questions, honest kinds."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from synth_corpora import write_rail_corpus

from pytest_ragas_gate.cli import main
from pytest_ragas_gate.synth.offline import COPY_RUN, OfflineSynthJudge, copied_run
from pytest_ragas_gate.synth.requests import Candidate, CritiqueQuestions

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "synth" / "corpus"
WH_EN = re.compile(r"\b(?:how|what|when|who|where|why|which)\b", re.IGNORECASE)
WH_ZH = re.compile(r"什么|哪|多少|几|谁|何时|为什么")


def synth(
    tmp_path: Path, docs: Path, *extra: str, capsys: pytest.CaptureFixture[str] | None = None
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    out, chunks = tmp_path / "golden.jsonl", tmp_path / "chunks.jsonl"
    status = main(
        [
            "synth",
            str(docs),
            "-o",
            str(out),
            "--judge",
            "offline",
            "--chunks-out",
            str(chunks),
            "--chunk-tokens",
            "60",
            *extra,
        ]
    )
    assert status == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    texts = {
        row["id"]: row["text"]
        for row in map(json.loads, chunks.read_text(encoding="utf-8").splitlines())
    }
    return rows, texts


def questions_of(rows: list[dict[str, Any]], kind: str | None = None) -> list[str]:
    return [row["question"] for row in rows if kind is None or row["tags"][1] == kind]


def test_questions_are_wh_questions_not_cloze_and_copy_no_long_run(tmp_path: Path) -> None:
    rows, texts = synth(tmp_path, write_rail_corpus(tmp_path / "docs"), "--n", "12")

    assert len(rows) >= 8
    for row in rows:
        question = row["question"]
        assert question.endswith(("?", "？")), question
        assert WH_EN.search(question) or WH_ZH.search(question), question
        assert "___" not in question and '"' not in question and "“" not in question
        chunks = [texts[chunk_id] for chunk_id in row["relevant_context_ids"]]
        assert copied_run(question, chunks) < COPY_RUN, question


@pytest.fixture(scope="module")
def rail_single_rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """One keyless draft of single questions over the rail corpus, read by every span test."""
    directory = tmp_path_factory.mktemp("rail")
    rows, _ = synth(
        directory, write_rail_corpus(directory / "docs"), "--n", "30", "--mix", "single=1"
    )
    return rows


@pytest.mark.parametrize(
    ("expected", "answer"),
    [
        ("how long are single tickets valid after purchase?", "3 hours"),
        ("who was the line founded by?", "Anna Berg"),
        ("when was the first station opened?", "1921"),
        ("where is the company archive stored?", "Geneva"),
        ("why was the night service stopped?", "too loud"),
        ("what is a folding bike?", "suitcase"),
        ("单程票在购买后几小时内有效？", "3小时"),
        ("公司档案保存在哪里？", "日内瓦"),
    ],
)
def test_each_kind_of_span_gets_its_question_word_and_the_answer_stays_out(
    rail_single_rows: list[dict[str, Any]], expected: str, answer: str
) -> None:
    rows = rail_single_rows
    matching = [row for row in rows if expected in row["question"].lower()]
    assert matching, (expected, questions_of(rows))
    assert answer in matching[0]["reference"]
    assert answer not in matching[0]["question"]


def test_a_by_agent_longer_than_its_capitalised_words_is_not_cut_into_the_question() -> None:
    from pytest_ragas_gate.synth.wh_english import sentence_facts

    sentence = (
        "The Jansson port in vcpkg is kept up to date by Microsoft team members and "
        "community contributors."
    )
    questions = [fact.question for fact in sentence_facts(sentence, "Jansson")]
    # Not "Who is the Jansson port in vcpkg kept up to date team members by?"
    assert not any("team members" in question for question in questions), questions
    debian = sentence_facts(
        "Debian was founded by Ian Murdock in 1993.", "", proper=frozenset({"Debian"})
    )
    assert "Who was Debian founded in 1993 by?" in [fact.question for fact in debian]


def test_the_informative_span_is_asked_not_a_version_or_pr_number(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "backup.md").write_text(
        "# Backups\n\nSince version 2.4, the Backup service keeps snapshots for 30 days.\n",
        encoding="utf-8",
    )
    rows, _ = synth(tmp_path, docs, "--n", "1", "--mix", "single=1")

    assert (
        rows[0]["question"] == "How long does the Backup service keep snapshots since version 2.4?"
    )


def test_a_pronoun_subject_is_named_so_the_question_stands_alone(tmp_path: Path) -> None:
    rows, _ = synth(tmp_path, EXAMPLE, "--n", "30", "--mix", "single=1")

    questions = questions_of(rows)
    assert any(
        q.endswith("how much does the Team plan cost per user each month?") for q in questions
    )
    assert not any(re.match(r"^(?:How|What|When)\b.* (?:it|this|they)\b", q) for q in questions)


def test_reasoning_compares_two_facts_and_the_reference_works_it_out(tmp_path: Path) -> None:
    rows, _ = synth(
        tmp_path, write_rail_corpus(tmp_path / "docs"), "--n", "4", "--mix", "reasoning=1"
    )

    english = [row for row in rows if row["question"].startswith("In River Valley Rail")]
    assert english, questions_of(rows)
    row = english[0]
    assert "Which is longer, and by how much?" in row["question"]
    assert "3 hours" in row["reference"] and "24 hours" in row["reference"]
    assert "by 21 hours" in row["reference"]


def test_multi_links_two_chunks_through_an_entity_both_name(tmp_path: Path) -> None:
    rows, texts = synth(tmp_path, EXAMPLE, "--n", "5", "--mix", "multi=1")

    assert rows
    for row in rows:
        first, second = (texts[chunk_id] for chunk_id in row["relevant_context_ids"])
        named = {word for word in re.findall(r"\b[A-Z][a-z]+\b", row["question"][3:])}
        # A Chinese question names its entity in characters ("团队版").
        named |= {
            run[i : i + 3]
            for run in re.findall(r"[\u4e00-\u9fff]{3,}", row["question"])
            for i in range(len(run) - 2)
        }
        assert any(word in first and word in second for word in named), row["question"]


def test_unanswerable_is_a_near_miss_on_an_entity_of_the_corpus(tmp_path: Path) -> None:
    rows, texts = synth(tmp_path, EXAMPLE, "--n", "3", "--mix", "unanswerable=1")

    corpus = "\n".join(texts.values())
    assert rows
    for row in rows:
        # A sibling the corpus names ("the Business plan" beside "the Team plan"), asked a
        # property the corpus gives only for the other one.
        names = re.findall(
            r"\b(?:Solo|Team|Business|European)\b|[\u4e00-\u9fff]{2}版", row["question"]
        )
        assert names and all(name in corpus for name in names), row["question"]
        assert row["relevant_context_ids"] == []


def test_the_offline_critic_checks_each_kind_against_its_definition() -> None:
    chunks = [
        "Tickets\nSingle tickets are valid for 3 hours. Day passes are valid for 24 hours.",
        "Cards\nSeason cards cost $90.",
    ]
    judge = OfflineSynthJudge(chunks)
    request = CritiqueQuestions(
        chunks=chunks,
        titles=["Rail", "Rail"],
        candidates=[
            Candidate(
                kind="reasoning",
                question="How long are single tickets valid?",
                reference="Single tickets are valid for 3 hours.",
                chunks=[0],
            ),
            Candidate(
                kind="single",
                question="What completes: Single tickets are ___?",
                reference="Single tickets are valid for 3 hours.",
                chunks=[0],
            ),
            Candidate(
                kind="unanswerable",
                question="How long are day passes valid?",
                reference="The documents do not say.",
                chunks=[],
            ),
            Candidate(
                kind="unanswerable",
                question="How much do Zeppelin rides cost?",
                reference="The documents do not say.",
                chunks=[],
            ),
            Candidate(
                kind="multi",
                question="How long are single tickets valid, and how much do season cards cost?",
                reference="Single tickets are valid for 3 hours. Season cards cost $90.",
                chunks=[0, 1],
            ),
        ],
    )

    verdicts = judge.critique(request).verdicts

    assert [verdict.problem for verdict in verdicts] == [
        "wrong_kind",  # a look-up is not reasoning
        "copied",  # a cloze
        "answered",  # the corpus says it
        "wrong_kind",  # names nothing of the corpus: not a near miss
        "wrong_kind",  # the two chunks share no entity the question names
    ]


def test_a_near_miss_asks_about_a_sibling_identifier_the_corpus_never_defines(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "limits.md").write_text(
        "# Booking limits\n\nFERRY_MAX_SEATS is the largest number of seats one booking may "
        "hold.\n\nA booking that also carries bikes is checked against FERRY_MAX_BIKES.\n",
        encoding="utf-8",
    )

    rows, _ = synth(tmp_path, docs, "--n", "1", "--mix", "unanswerable=1")

    assert [row["question"] for row in rows] == ["What is FERRY_MAX_BIKES?"]
    assert rows[0]["relevant_context_ids"] == []
