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
        path, "a\nx\ne\nWhich plan includes 2 TB per user?\n\nr\ns\n", monkeypatch
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
    assert "please answer a, e, r, s or q" in shown
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
