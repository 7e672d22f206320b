"""The run history: `--rag-gate-history` / `history:` during a run, `rag-gate history` after."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate_runs import (
    HALLUCINATED,
    WORKERS,
    cases,
    good_rows,
    write,
    write_config,
    write_jsonl,
)

from pytest_ragas_gate import cli
from pytest_ragas_gate.judges.base import JudgeInfo
from pytest_ragas_gate.reports.pr_comment import main as comment_main


def history_lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.mark.parametrize("workers", WORKERS)
def test_each_run_appends_one_compact_line_with_commit_verdict_and_metrics(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: list[str]
) -> None:
    monkeypatch.setenv("GITHUB_SHA", "0123456789abcdef0123456789abcdef01234567")
    write_jsonl(pytester, "golden.jsonl", good_rows(3))
    options = ["--rag-gate", "--rag-gate-history=runs/history.jsonl", *workers]

    # In this process: the history's run in a process of its own is the corrupt-line test.
    first = pytester.runpytest(*options)
    write_jsonl(pytester, "golden.jsonl", [*good_rows(3), HALLUCINATED])
    second = pytester.runpytest(*options)

    assert first.ret == pytest.ExitCode.OK
    assert second.ret == pytest.ExitCode.TESTS_FAILED
    raw = (pytester.path / "runs" / "history.jsonl").read_text(encoding="utf-8")
    assert ": " not in raw  # compact: one short line a run, fit for a committed file
    older, newer = history_lines(pytester.path / "runs" / "history.jsonl")
    assert [older["verdict"], newer["verdict"]] == ["passed", "failed"]
    assert newer["commit"] == "0123456789abcdef0123456789abcdef01234567"
    assert str(newer["time"]) >= str(older["time"])
    faithfulness = newer["metrics"]["faithfulness"]  # type: ignore[index]
    assert faithfulness["n"] == 4 and faithfulness["mean"] == pytest.approx(0.75)
    assert {"ci_low", "ci_high", "threshold"} <= set(faithfulness)


def test_the_history_config_key_and_a_corrupt_line_warn_and_the_run_stands(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    write_config(pytester.path, history="history.jsonl")
    (pytester.path / "history.jsonl").write_text(
        '{"rag_gate_history": 1, "time": "2026-01-01T00:00:00+00:00", "verdict": "passed",'
        ' "metrics": {}}\n{"truncated\n{"some_other_tool": true}\n',
        encoding="utf-8",
    )

    result = pytester.runpytest_subprocess("--rag-gate")

    assert result.ret == pytest.ExitCode.OK
    output = result.stdout.str()
    assert "history.jsonl line 2: not JSON" in output
    assert "history.jsonl line 3: not a pytest-ragas-gate history entry" in output
    lines = (pytester.path / "history.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 4  # nothing of the file lost; this run appended
    assert json.loads(lines[3])["verdict"] == "passed"


def test_rag_gate_history_appends_saved_reports_in_time_order_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = []
    for index, score in enumerate([0.95, 0.9, 0.5]):
        path = write(tmp_path / f"r{index}.json", cases([score] * 3))
        raw = json.loads(path.read_text(encoding="utf-8"))
        raw["generated_at"] = f"2026-05-0{index + 1}T12:00:00+00:00"
        raw["run"]["commit"] = f"{index}" * 40
        path.write_text(json.dumps(raw), encoding="utf-8")
        reports.append(str(path))
    history = tmp_path / "history.jsonl"
    history.write_text("not json at all\n", encoding="utf-8")

    status = cli.main(["history", reports[2], reports[0], reports[1], "-o", str(history)])

    captured = capsys.readouterr()
    assert status == 0
    assert f"rag-gate history: appended 3 run(s) to {history}" in captured.out
    assert f"rag-gate history: warning: {history} line 1: not JSON" in captured.err
    kept, *added = history.read_text(encoding="utf-8").splitlines()
    assert kept == "not json at all"  # a line of the file is never dropped
    entries = [json.loads(line) for line in added]
    assert [entry["commit"] for entry in entries] == ["0" * 40, "1" * 40, "2" * 40]
    assert [entry["verdict"] for entry in entries] == ["passed", "passed", "failed"]

    assert cli.main(["history", *reports, "-o", str(history)]) == 0
    assert "appended 0 run(s)" in capsys.readouterr().out
    assert len(history.read_text(encoding="utf-8").splitlines()) == 4


def test_history_of_a_missing_report_exits_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = cli.main(["history", str(tmp_path / "nope.json"), "-o", str(tmp_path / "h.jsonl")])

    assert status == 4
    assert "rag-gate history: Cannot read the report" in capsys.readouterr().err
    assert not (tmp_path / "h.jsonl").exists()


def test_the_pr_comment_gives_one_trend_line_per_gated_metric(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = tmp_path / "history.jsonl"
    for index, score in enumerate([0.95, 0.9]):
        path = write(tmp_path / f"r{index}.json", cases([score] * 3))
        raw = json.loads(path.read_text(encoding="utf-8"))
        raw["generated_at"] = f"2026-05-0{index + 1}T12:00:00+00:00"
        path.write_text(json.dumps(raw), encoding="utf-8")
        cli.main(["history", str(path), "-o", str(history)])
    now = write(tmp_path / "now.json", cases([0.6] * 3))
    capsys.readouterr()

    comment_main([str(now), "--history", str(history), "--comment", "true", "--dry-run"], {})

    body = capsys.readouterr().out
    assert "**Trend** (recorded runs, oldest first):" in body
    # One 0–1 scale for every sparkline: a flat 0.90 reads high, not as "▁▁▁".
    assert "- `faithfulness` █▇▅ 0.95 → 0.60 over 3 runs (threshold ≥ 0.85)" in body
    assert "- `context_recall` ▇▇▇ 0.90 → 0.90 over 3 runs (threshold ≥ 0.80)" in body


def test_rag_gate_html_draws_the_trend_from_a_history_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = tmp_path / "history.jsonl"
    for index, score in enumerate([0.95, 0.9]):
        path = write(tmp_path / f"r{index}.json", cases([score] * 3))
        raw = json.loads(path.read_text(encoding="utf-8"))
        raw["generated_at"] = f"2026-05-0{index + 1}T12:00:00+00:00"
        path.write_text(json.dumps(raw), encoding="utf-8")
        cli.main(["history", str(path), "-o", str(history)])
    with history.open("a", encoding="utf-8") as handle:
        handle.write('{"rag_gate_history": 1, "time": 5}\n')
    now = write(tmp_path / "now.json", cases([0.6] * 3))
    capsys.readouterr()

    status = cli.main(
        ["html", str(now), "-o", str(tmp_path / "page.html"), "--history", str(history)]
    )

    assert status == 0
    assert f"{history} line 3: invalid entry, time: Input should be a valid string" in (
        capsys.readouterr().err
    )
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    card = page[
        page.index('data-metric="faithfulness"') : page.index('data-metric="context_recall"')
    ]
    assert card.count('class="trend-point') == 3
    assert card.count("trend-current") == 1
    assert 'class="threshold-label"' in card and ">0.85</text>" in card


def test_rag_gate_gate_appends_the_gated_run_to_the_history(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = str(write(tmp_path / "r.json", cases([0.9] * 3)))
    history = tmp_path / "history.jsonl"

    assert cli.main(["gate", report, "--history", str(history)]) == 0
    assert f"rag-gate history: appended 1 run(s) to {history}" in capsys.readouterr().out
    assert cli.main(["gate", report, "--history", str(history)]) == 0
    assert "appended 0 run(s)" in capsys.readouterr().out
    assert [entry["verdict"] for entry in history_lines(history)] == ["passed"]

    # Re-gating needs the re-gated report written; it is the same run, so not added twice.
    stricter = ["--threshold", "faithfulness=0.95", "--history", str(history)]
    assert cli.main(["gate", report, *stricter]) == 4
    assert "with --threshold, --config or --baseline, write it with -o OUT too" in (
        capsys.readouterr().err
    )
    regated = str(tmp_path / "regated.json")
    assert cli.main(["gate", report, *stricter, "-o", regated]) == 1
    assert "appended 0 run(s)" in capsys.readouterr().out
    assert [entry["verdict"] for entry in history_lines(history)] == ["passed"]


def test_history_rows_judged_otherwise_are_named_beside_the_trend(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = tmp_path / "history.jsonl"
    for index, score in enumerate([0.95, 0.9]):
        judge = JudgeInfo(kind="anthropic", model="claude-test", prompt_version="6")
        path = write(tmp_path / f"r{index}.json", cases([score] * 3), judge=judge)
        raw = json.loads(path.read_text(encoding="utf-8"))
        raw["generated_at"] = f"2026-05-0{index + 1}T12:00:00+00:00"
        path.write_text(json.dumps(raw), encoding="utf-8")
        cli.main(["history", str(path), "-o", str(history)])
    assert history_lines(history)[0]["metrics"]["faithfulness"]["judge"] == {
        "kind": "anthropic",
        "model": "claude-test",
        "prompt_version": "6",
    }
    judge = JudgeInfo(kind="anthropic", model="claude-test", prompt_version="7")
    now = write(tmp_path / "now.json", cases([0.6] * 3), judge=judge)
    capsys.readouterr()

    comment_main([str(now), "--history", str(history), "--comment", "true", "--dry-run"], {})

    body = capsys.readouterr().out
    assert (
        "- `faithfulness` █▇▅ 0.95 → 0.60 over 3 runs (threshold ≥ 0.85) · ⚠️ 2 earlier runs "
        "judged by claude-test prompt v6, this run v7: not comparable"
    ) in body
