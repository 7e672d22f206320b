"""rag-gate synth review: decisions typed on standard input are written back case by case."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_ragas_gate.cli import main

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "synth" / "corpus"


def generated(tmp_path: Path, count: int = 5) -> Path:
    path = tmp_path / "golden_synth.jsonl"
    assert (
        main(
            [
                "synth",
                str(CORPUS),
                "-o",
                str(path),
                "--judge",
                "offline",
                "--n",
                str(count),
                "--mix",
                "single=0.8,unanswerable=0.2",
            ]
        )
        == 0
    )
    return path


def rows_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def review(
    path: Path, answers: str, monkeypatch: pytest.MonkeyPatch, *extra: str
) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(answers))
    output = io.StringIO()
    monkeypatch.setattr(sys, "stdout", output)
    status = main(["synth", "review", str(path), *extra])
    return status, output.getvalue()


def test_accept_edit_reject_and_skip_are_written_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = generated(tmp_path)
    before = rows_of(path)

    status, shown = review(
        path, "a\nx\ne\nWhich plan includes 2 TB per user?\n\n\n\nr\ns\n", monkeypatch
    )

    assert status == 0
    after = rows_of(path)
    assert [row["review"] for row in after] == [
        "accepted",
        "accepted",
        "rejected",
        "pending",
        "pending",
    ]
    assert after[1]["question"] == "Which plan includes 2 TB per user?"
    assert after[1]["reference"] == before[1]["reference"] and after[1]["edited"] is True
    assert [row["id"] for row in after] == [row["id"] for row in before]
    # What the reviewer sees: the case, its chunks, the choices, and a re-ask on a typo.
    assert before[0]["question"] in shown and before[0]["relevant_context_ids"][0] in shown
    assert "please answer a, e, r, s, f or q" in shown
    assert "2 accepted (1 edited), 1 rejected; 2 still pending." in shown


def test_quitting_or_running_out_of_input_keeps_what_was_decided(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = generated(tmp_path, 4)

    review(path, "r\n", monkeypatch)  # end of input after one decision
    assert [row["review"] for row in rows_of(path)] == ["rejected", *["pending"] * 3]

    _, shown = review(path, "a\nq\n", monkeypatch)  # only pending cases are shown again
    assert [row["review"] for row in rows_of(path)] == ["rejected", "accepted", *["pending"] * 2]
    assert "[1/3]" in shown and "2 still pending" in shown

    _, shown = review(path, "s\n", monkeypatch, "--all")
    assert "[1/4]" in shown


def test_the_gate_then_skips_the_rejected_cases(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = generated(pytester.path, 4)
    review(path, "r\nr\na\na\n", monkeypatch)
    monkeypatch.undo()

    result = pytester.runpytest("--rag-gate", "--rag-gate-judge", "offline", str(path))

    result.assert_outcomes(passed=2)
    assert "review: pending" not in result.stdout.str()


def test_review_reads_a_pipe_in_a_real_process(tmp_path: Path) -> None:
    path = generated(tmp_path, 3)

    result = subprocess.run(
        [sys.executable, "-m", "pytest_ragas_gate.cli", "synth", "review", str(path)],
        input="r\na\nr\n",
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    assert [row["review"] for row in rows_of(path)] == ["rejected", "accepted", "rejected"]


def test_a_missing_file_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["synth", "review", str(tmp_path / "nope.jsonl")])

    assert status == 4
    assert "nope.jsonl: no such file." in capsys.readouterr().err


def test_an_edit_of_kind_chunks_and_reference_is_checked_against_the_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = generated(tmp_path, 3)
    chunks = tmp_path / "chunks.jsonl"
    main(
        [
            "synth",
            str(CORPUS),
            "-o",
            str(tmp_path / "other.jsonl"),
            "--judge",
            "offline",
            "--n",
            "1",
            "--chunks-out",
            str(chunks),
        ]
    )
    by_id = {row["id"]: row["text"] for row in rows_of(chunks)}
    before = rows_of(path)
    plans = next(chunk_id for chunk_id, text in by_id.items() if "The Solo plan costs" in text)
    other = next(chunk_id for chunk_id, text in by_id.items() if "stay paused" in text)

    status, shown = review(
        path,
        # An unsupported reference is refused; then a multi edit over two real chunks.
        "e\n\nThe moon is made of cheese.\n\n\n"
        f"e\nHow much does the Solo plan cost, and how long are uploads paused before discard?\n"
        f"The Solo plan costs $6 per month. Uploads that stay paused for more than 7 days are "
        f"discarded.\nmulti\n{plans}, {other}\n"
        "f\nr\n",
        monkeypatch,
        "--chunks",
        str(chunks),
    )

    assert status == 0
    assert "edit not kept: the reference is not supported by its chunks" in shown
    after = rows_of(path)
    assert after[0]["tags"][1] == "multi"
    assert after[0]["relevant_context_ids"] == [plans, other]
    assert after[0]["reference_contexts"] == [by_id[plans], by_id[other]]
    assert after[0]["review"] == "accepted" and after[0]["edited"] is True
    assert after[0]["id"] == before[0]["id"]
    # "f" shows the chunk in full, past any preview length.
    assert all(line in shown for line in before[1]["reference_contexts"][0].splitlines())
    assert after[1]["review"] == "rejected"


def test_an_unknown_chunk_id_in_an_edit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = generated(tmp_path, 1)

    _, shown = review(path, "e\n\n\n\nnope.md#0-abcdef\nq\n", monkeypatch)

    assert "edit not kept: unknown chunk id(s) nope.md#0-abcdef" in shown
    assert rows_of(path)[0]["review"] == "pending"
