"""Every "could not" of rag-gate synth is true: a corpus contradicting a reason changes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ragas_gate.cli import main


def _summary(tmp_path: Path, pages: dict[str, str], capsys: pytest.CaptureFixture[str]) -> str:
    docs = tmp_path / "docs"
    docs.mkdir(parents=True)
    for name, text in pages.items():
        (docs / name).write_text(text, encoding="utf-8")
    status = main(
        ["synth", str(docs), "-o", str(tmp_path / "golden.jsonl"), "--judge", "offline"]
        + ["--n", "10", "--cache", "off"]
    )
    assert status == 0
    captured = capsys.readouterr()
    return captured.err + captured.out


def _line(summary: str, start: str) -> str:
    return next(line for line in summary.splitlines() if line.strip().startswith(start))


PLAN = "# Plans\n\nThe Team plan was introduced by Jane Doe in Leeds.\n"


def test_no_year_nor_duration_is_claimed_only_when_none_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = _summary(tmp_path / "plain", {"plans.md": PLAN}, capsys)
    assert "none states a size, a duration, a price or a year" in _line(plain, "short: reasoning")

    timed = _summary(
        tmp_path / "timed",
        {
            "plans.md": PLAN,
            "timeouts.md": "# Timeouts\n\nThe default behavior is to raise a "
            "`TimeoutException` after 5 seconds of network inactivity.\n",
        },
        capsys,
    )
    reason = _line(timed, "short: reasoning")
    assert "none states" not in reason
    assert 'the documents state 1 amount or date (e.g. "5 seconds")' in reason
    assert "timeouts.md (no fact the offline writer can ask, though it states 1 amount" in timed


def test_no_definition_is_claimed_only_when_no_sentence_defines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    silent = _summary(
        tmp_path / "silent",
        {"plans.md": PLAN, "nodes.md": "# Nodes\n\nYou can reach them all from here.\n"},
        capsys,
    )
    assert "nodes.md (no fact: none of its sentences states an amount, a date or a definition" in (
        silent
    )

    defined = _summary(
        tmp_path / "defined",
        {"plans.md": PLAN, "nodes.md": "# Nodes\n\nA host you can reach is called a node.\n"},
        capsys,
    )
    assert "none of its sentences" not in _line(defined, "no case from")
    assert (
        "nodes.md (no fact the offline writer can ask, though it states 1 definition "
        '(e.g. "A host you can reach is called a node."))'
    ) in defined


def test_no_shared_named_thing_is_claimed_only_when_none_is_shared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lone = _summary(tmp_path / "lone", {"plans.md": PLAN}, capsys)
    assert "could not — no named thing" in _line(lone, "short: multi")

    common = _summary(
        tmp_path / "common",
        {
            "storage.md": "# Storage\n\nThe Harbor server was built by Jane Doe in Leeds.\n",
            "releases.md": "# Releases\n\nThe Harbor server was released in 2019 by Tom Baker.\n",
            "support.md": "# Support\n\nThe Harbor server is maintained by the Skyfile team.\n",
        },
        capsys,
    )
    reason = _line(common, "short: multi")
    assert "no named thing" not in reason
    assert "1 named thing has a property stated in two different chunks, but more than 60%" in (
        reason
    )
