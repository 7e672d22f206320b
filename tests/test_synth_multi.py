"""Keyless ``multi`` questions ask two properties of one specific named thing, one per chunk."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from test_synth_standalone import folder, run

from pytest_ragas_gate.synth.offline import OfflineSynthJudge
from pytest_ragas_gate.synth.requests import Candidate, CritiqueQuestions

LIBC = "# Name service\n\nThe GNU C Library ignores databases with unknown names.\n"
WGET = (
    "# About Wget\n\nGNU Wget is a free utility for non-interactive download of files "
    "from the Web, and it supports HTTP, HTTPS and FTP.\n"
)
ROBUST = (
    "# Robustness\n\nWget has been designed for robustness over slow or unstable network "
    "connections; if a download fails, it keeps retrying.\n"
)


def multi_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [row for row in rows if row["tags"][1] == "multi"]


def test_two_chunks_sharing_only_a_modifier_give_no_multi_but_a_could_not(
    tmp_path: Path, capsys: Any
) -> None:
    # "GNU" is in both, but one states a property of the GNU C Library, the other of Wget.
    docs = folder(tmp_path, {"libc.md": LIBC, "wget.md": WGET})
    status, rows, _ = run(tmp_path, docs, "--n", "4", "--kinds", "single,multi")

    out = capsys.readouterr().out
    assert status == 0 and rows
    assert multi_rows(rows) == [], [row["question"] for row in multi_rows(rows)]
    assert re.search(r"short: multi 0/2: could not — no named thing", out), out


def test_multi_asks_two_properties_of_one_named_thing_with_the_two_answering_clauses(
    tmp_path: Path,
) -> None:
    docs = folder(tmp_path, {"libc.md": LIBC, "wget.md": WGET, "robust.md": ROBUST})
    status, rows, chunks = run(tmp_path, docs, "--n", "1", "--kinds", "multi")

    assert status == 0
    [row] = multi_rows(rows)
    documents = {chunk_id.split("#")[0] for chunk_id in row["relevant_context_ids"]}
    assert documents == {"wget.md", "robust.md"}
    # Both halves ask about Wget; nothing of the GNU C Library.
    first, second = row["question"].split(", and ")
    assert "Wget" in first and "Wget" in second, row["question"]
    assert first == "What is GNU Wget", row["question"]  # what it is, then the rest
    assert "Library" not in row["question"]
    # Exactly the two clauses that answer it: not the protocols, not the retrying.
    assert sorted(re.split(r"(?<=\.) ", row["reference"])) == [
        "GNU Wget is a free utility for non-interactive download of files from the Web.",
        "Wget has been designed for robustness over slow or unstable network connections.",
    ]


def test_a_name_most_documents_mention_links_no_chunks(tmp_path: Path) -> None:
    # Every page is about Skyfile; only the Solo plan is a link a reader asks about.
    files = {
        "plans.md": (
            "# Plans\n\nThe Solo plan costs $6 per month. Skyfile is sold in three plans.\n"
        ),
        "versions.md": "# Versions\n\nOn the Solo plan, versions are kept for 30 days.\n",
        "upload.md": "# Uploads\n\nSkyfile accepts files of up to 50 GB.\n",
        "links.md": "# Links\n\nSkyfile deletes expired links after 14 days.\n",
        "log.md": "# Log\n\nSkyfile keeps the activity log for 90 days.\n",
    }
    status, rows, _ = run(tmp_path, folder(tmp_path, files), "--n", "2", "--kinds", "multi")

    assert status == 0 and multi_rows(rows)
    for row in multi_rows(rows):
        assert "Solo" in row["question"], row["question"]
        documents = {chunk_id.split("#")[0] for chunk_id in row["relevant_context_ids"]}
        assert documents == {"plans.md", "versions.md"}, row["question"]


@pytest.mark.parametrize(
    "files",
    [
        pytest.param(
            {
                "daemon.md": "# Daemon\n\nThe connection timeout is specified in seconds by "
                "the daemon.\n",
                "client.md": "# Client\n\nThe connection timeout lasts 60 seconds.\n",
            },
            id="a shared common word",
        ),
        pytest.param(
            {
                "final.md": "# Final\n\nThe final keyword matches only during the last pass "
                "of parsing.\n",
                "local.md": "# Local\n\nThe localuser keyword matches the name of the local "
                "user.\n",
            },
            id="two keywords that both match something",
        ),
    ],
)
def test_what_two_chunks_merely_have_in_common_is_no_link(
    tmp_path: Path, capsys: Any, files: dict[str, str]
) -> None:
    status, rows, _ = run(tmp_path, folder(tmp_path, files), "--n", "4", "--kinds", "single,multi")

    assert status == 0 and rows
    assert multi_rows(rows) == [], [row["question"] for row in multi_rows(rows)]
    assert "short: multi 0/2: could not" in capsys.readouterr().out


def test_the_critic_drops_a_multi_question_whose_chunks_share_no_named_thing() -> None:
    chunks = [LIBC, WGET, ROBUST]
    candidates = [
        Candidate(
            kind="multi",
            question="What does the GNU C Library ignore, and what is GNU Wget?",
            reference="The GNU C Library ignores databases with unknown names. GNU Wget is a "
            "free utility for non-interactive download of files from the Web.",
            chunks=[0, 1],
        ),
        Candidate(
            kind="multi",
            question="What is GNU Wget, and what has Wget been designed for?",
            reference="GNU Wget is a free utility for non-interactive download of files from "
            "the Web. Wget has been designed for robustness over slow or unstable network "
            "connections.",
            chunks=[1, 2],
        ),
    ]
    verdicts = (
        OfflineSynthJudge(chunks)
        .critique(
            CritiqueQuestions(
                chunks=chunks, titles=["libc", "wget", "robust"], candidates=candidates
            )
        )
        .verdicts
    )

    assert [verdict.keep for verdict in verdicts] == [False, True], verdicts
    assert verdicts[0].problem == "wrong_kind"
    assert "named thing" in verdicts[0].reason


def test_a_multi_half_whose_point_is_only_in_its_answer_is_not_asked(tmp_path: Path) -> None:
    robust = ROBUST + "Wget allows you to install a global startup file for site settings.\n"
    docs = folder(tmp_path, {"libc.md": LIBC, "wget.md": WGET, "robust.md": robust})
    status, rows, _ = run(tmp_path, docs, "--n", "4", "--kinds", "single,multi")

    assert status == 0 and rows
    for row in rows:
        assert not re.search(r"what does (?:GNU )?Wget allow\b", row["question"], re.I), row
    assert any(row["tags"][1] == "multi" for row in rows)


def test_a_command_the_documents_cite_as_a_manual_page_is_a_named_thing(tmp_path: Path) -> None:
    # "fsck" is lowercase, but the documents cite it as fsck(8): a command, not a word.
    files = {
        "repair.md": "# Repair\n\nfsck was written by Theodore Ts'o in 1993.\n",
        "checks.md": "# Checks\n\nfsck is a front end for the filesystem checkers.\n",
        "fields.md": "# Fields\n\nThe sixth field is used by fsck(8) to order the checks.\n",
        "libc.md": LIBC,
        "wget.md": WGET,
    }
    status, rows, _ = run(tmp_path, folder(tmp_path, files), "--n", "1", "--kinds", "multi")

    assert status == 0
    [row] = multi_rows(rows)
    assert row["question"].count("fsck") == 2, row["question"]
    documents = {chunk_id.split("#")[0] for chunk_id in row["relevant_context_ids"]}
    assert documents == {"repair.md", "checks.md"}


def test_a_the_way_sentence_is_not_garbled_into_a_question(tmp_path: Path) -> None:
    text = (
        "# Symlinks\n\nThe way rsync disables the use of symlinks is to prefix each one with "
        'the string "/rsyncd-munged/".\n'
    )
    status, rows, _ = run(tmp_path, folder(tmp_path, {"munge.md": text}), "--n", "2")

    assert status in (0, 1)
    for row in rows:
        assert not re.search(r"what does the way\b", row["question"], re.I), row["question"]


def test_an_e_mail_address_is_never_left_inside_a_question(tmp_path: Path) -> None:
    text = "# Author\n\npam_env was written by Dave Kinchlea <kinch@kinch.ark.com>.\n"
    status, rows, _ = run(tmp_path, folder(tmp_path, {"author.md": text}), "--n", "2")

    assert status in (0, 1)
    for row in rows:
        assert not re.search(r"[<>@]", row["question"]), row["question"]
