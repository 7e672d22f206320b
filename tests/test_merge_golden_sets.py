"""End to end: ``rag-gate merge`` gates shards of one golden set, not unrelated runs.

Two whole runs of different golden sets (12 + 8 cases) used to merge into ``gated 12 of 12
… 20 scored`` and PASSED; each run now records its golden set's fingerprint (files and
case ids) and merge refuses reports whose fingerprints differ.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from gate_runs import GOOD, gate_run, read_report, write_jsonl

from pytest_ragas_gate.cli import main
from pytest_ragas_gate.golden.sharding import shard_of

OPTIONS: dict[str, Any] = {
    "judge": "offline",
    "cache": "off",
    "metrics": "faithfulness",
    "disable": ("randomly",),
}


def rag_gate(cwd: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(list(args))
            except SystemExit as exit_:
                status = int(exit_.code or 0)
    finally:
        os.chdir(previous)
    return status, out.getvalue(), err.getvalue()


def run_set(pytester: pytest.Pytester, name: str, count: int, **options: Any) -> None:
    """A whole run of a golden set of ``count`` cases, its report saved as ``name``.json."""
    write_jsonl(pytester, "golden.jsonl", [{**GOOD, "id": f"{name}-{i}"} for i in range(count)])
    outcome = gate_run(pytester, report=f"{name}.json", **OPTIONS, **options)
    assert outcome.ret in (0, 1), outcome.stdout.str()


def test_the_report_records_the_golden_sets_fingerprint(pytester: pytest.Pytester) -> None:
    run_set(pytester, "first", 12)
    golden_set = read_report(pytester.path / "first.json")["run"]["coverage"]["golden_set"]
    assert list(golden_set) == ["golden.jsonl"]
    assert golden_set["golden.jsonl"]["cases"] == 12
    assert len(golden_set["golden.jsonl"]["ids_sha256"]) == 64


def test_merge_refuses_runs_of_different_golden_sets(pytester: pytest.Pytester) -> None:
    run_set(pytester, "first", 12)
    run_set(pytester, "second", 8)
    status, out, err = rag_gate(pytester.path, "gate", "first.json", "second.json", "-o", "m.json")
    assert status == 4, out + err
    assert (
        "Cannot merge first.json with second.json: they ran different golden sets "
        "(first.json: golden.jsonl (12 cases); second.json: golden.jsonl (8 cases))"
    ) in err
    assert "--allow-different-sets" in err
    assert not (pytester.path / "m.json").exists()


def test_allowed_different_sets_count_every_case(pytester: pytest.Pytester) -> None:
    run_set(pytester, "first", 12)
    run_set(pytester, "second", 8)
    status, out, err = rag_gate(
        pytester.path,
        "gate",
        "first.json",
        "second.json",
        "-o",
        "m.json",
        "--allow-different-sets",
    )
    assert status == 0, out + err
    assert "cases: gated 20 of 20 collected golden case(s); 20 scored, 0 errored" in out
    merged = read_report(pytester.path / "m.json")
    assert merged["run"]["coverage"]["total_cases"] == 20
    assert merged["coverage"] == "gated 20 of 20 collected golden case(s)"


def test_shards_of_one_set_still_merge(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [{**GOOD, "id": f"case-{i}"} for i in range(6)])
    for index in (1, 2):
        outcome = gate_run(pytester, report=f"s{index}.json", shard=f"{index}/2", **OPTIONS)
        assert outcome.ret in (0, 1)
    status, out, err = rag_gate(pytester.path, "gate", "s1.json", "s2.json", "-o", "m.json")
    assert status == 0, out + err
    assert "gated 6 of 6 collected golden case(s)" in out


def test_a_case_a_shard_deselected_keeps_that_reason_in_the_merged_run(
    pytester: pytest.Pytester,
) -> None:
    ids = [f"case-{i}" for i in range(6)]
    write_jsonl(pytester, "golden.jsonl", [{**GOOD, "id": case_id} for case_id in ids])
    dropped = next(case_id for case_id in ids if shard_of("golden.jsonl", case_id, 2) == 2)
    for index in (1, 2):
        selection = ("-k", f"not {dropped}") if index == 2 else ()
        outcome = gate_run(
            pytester, *selection, report=f"s{index}.json", shard=f"{index}/2", **OPTIONS
        )
        assert outcome.ret in (0, 1)
    status, out, err = rag_gate(pytester.path, "gate", "s1.json", "s2.json", "-o", "m.json")
    # Shard 1 left the case out because it belongs to shard 2; shard 2 because of -k.
    assert status == 0, out + err
    assert (
        f"gated 5 of 6 golden case(s); not gated: golden.jsonl (1 case(s), deselected by "
        f"-k 'not {dropped}')"
    ) in out
    assert "not in --rag-gate-shard" not in out


def _judged_by(path: Path, model: str, prompt_version: str) -> None:
    saved = json.loads(path.read_text(encoding="utf-8"))
    judge = {"kind": "anthropic", "model": model, "prompt_version": prompt_version}
    saved["judge"].update(judge)
    saved["judge"]["metrics"] = {name: judge for name in saved["metrics"]}
    path.write_text(json.dumps(saved), encoding="utf-8")


def test_merge_names_shards_judged_differently(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [{**GOOD, "id": f"case-{i}"} for i in range(6)])
    for index in (1, 2):
        outcome = gate_run(
            pytester, "--rag-gate-shard", f"{index}/2", report=f"s{index}.json", **OPTIONS
        )
        assert outcome.ret == 0, outcome.stdout.str()
    _judged_by(pytester.path / "s1.json", "claude-x", "7")
    _judged_by(pytester.path / "s2.json", "claude-x", "6")
    status, out, err = rag_gate(pytester.path, "gate", "s1.json", "s2.json", "-o", "m.json")
    assert status == 4, out + err
    assert (
        "Cannot merge s1.json with s2.json: s2.json judged by claude-x prompt v6, s1.json v7 "
        "(faithfulness); shards must be scored by the same judge, model and prompt version."
    ) in err
    _judged_by(pytester.path / "s2.json", "claude-y", "7")
    status, out, err = rag_gate(pytester.path, "gate", "s1.json", "s2.json", "-o", "m.json")
    assert status == 4, out + err
    assert "s2.json judged by claude-y prompt v7, s1.json by claude-x prompt v7" in err
    # Reports of an older version record one judge for the run: that one is compared.
    for name, version in (("s1.json", "7"), ("s2.json", "6")):
        _judged_by(pytester.path / name, "claude-x", version)
        saved = json.loads((pytester.path / name).read_text(encoding="utf-8"))
        del saved["judge"]["metrics"]
        (pytester.path / name).write_text(json.dumps(saved), encoding="utf-8")
    status, out, err = rag_gate(pytester.path, "gate", "s1.json", "s2.json", "-o", "m.json")
    assert status == 4, out + err
    assert "s2.json judged by claude-x prompt v6, s1.json v7 (faithfulness);" in err
    _judged_by(pytester.path / "s2.json", "claude-x", "7")
    _judged_by(pytester.path / "s1.json", "claude-x", "7")
    status, out, err = rag_gate(pytester.path, "gate", "s1.json", "s2.json", "-o", "m.json")
    assert status == 0, out + err


def _with_context_ids(index: int) -> dict[str, Any]:
    contexts = [{"id": f"doc-{n}", "text": text} for n, text in enumerate(GOOD["contexts"])]
    return {**GOOD, "id": f"k{index}", "contexts": contexts}


@pytest.mark.parametrize("count", [8, 1], ids=["one-shard-without-ids", "one-shard-empty"])
def test_shards_merge_when_one_scored_no_case_of_a_metric(
    pytester: pytest.Pytester, count: int
) -> None:
    # Only k0 names its relevant contexts: the other shard scores no id metric, or nothing.
    rows = [_with_context_ids(index) for index in range(count)]
    rows[0]["relevant_context_ids"] = ["doc-0"]
    write_jsonl(pytester, "golden.jsonl", rows)
    # The default metrics: each shard records only the metrics its cases were scored on.
    options = {name: value for name, value in OPTIONS.items() if name != "metrics"}
    for index in (1, 2):
        outcome = gate_run(
            pytester, "--rag-gate-shard", f"{index}/2", report=f"sh{index}.json", **options
        )
        assert outcome.ret in (0, 5), outcome.stdout.str()
    judges = [read_report(pytester.path / f"sh{i}.json")["judge"]["metrics"] for i in (1, 2)]
    assert ("mrr" in judges[0]) != ("mrr" in judges[1])
    status, out, err = rag_gate(pytester.path, "gate", "sh1.json", "sh2.json", "-o", "json=m.json")
    assert status == 0, out + err
    merged = read_report(pytester.path / "m.json")
    assert len(merged["cases"]) == count
    assert merged["judge"]["metrics"]["mrr"]["kind"] == "none"
    assert merged["judge"]["metrics"]["faithfulness"]["kind"] == "offline"


def _shards_on_two_commits(pytester: pytest.Pytester) -> str:
    """Shard 1 run on one commit, shard 2 after an answer of the set changed; the case."""
    rows = [{**GOOD, "id": f"case-{i}"} for i in range(6)]
    changed = next(row["id"] for row in rows if shard_of("golden.jsonl", row["id"], 2) == 1)
    write_jsonl(pytester, "golden.jsonl", rows)
    assert gate_run(pytester, report="s1.json", shard="1/2", **OPTIONS).ret in (0, 1)
    for row in rows:
        if row["id"] == changed:
            row["answer"] = "Marie Curie founded it in 1999."
    write_jsonl(pytester, "golden.jsonl", rows)
    assert gate_run(pytester, report="s2.json", shard="2/2", **OPTIONS).ret in (0, 1)
    return changed


def test_the_fingerprint_holds_each_cases_contents(pytester: pytest.Pytester) -> None:
    run_set(pytester, "first", 3)
    found = read_report(pytester.path / "first.json")["run"]["coverage"]["golden_set"]
    contents = found["golden.jsonl"]["case_contents"]
    assert list(contents) == ["first-0", "first-1", "first-2"]
    assert all(len(digest) == 16 for digest in contents.values())
    assert len(found["golden.jsonl"]["contents_sha256"]) == 64


def test_merge_refuses_shards_run_on_two_commits(pytester: pytest.Pytester) -> None:
    changed = _shards_on_two_commits(pytester)
    status, out, err = rag_gate(pytester.path, "gate", "s1.json", "s2.json", "-o", "m.json")
    assert status == 4, out + err
    assert (
        "Cannot merge s1.json with s2.json: they hold different contents (question, answer, "
        f"contexts, reference or tool calls) for golden.jsonl: {changed} (1 case(s))"
    ) in err
    assert "--allow-different-sets" in err
    assert "Traceback" not in err
    assert not (pytester.path / "m.json").exists()


def test_shards_of_two_commits_merge_when_allowed(pytester: pytest.Pytester) -> None:
    changed = _shards_on_two_commits(pytester)
    status, out, err = rag_gate(
        pytester.path, "gate", "s1.json", "s2.json", "-o", "m.json", "--allow-different-sets"
    )
    assert status == 0, out + err
    assert f"hold different contents for golden.jsonl: {changed} (1 case(s)); merged" in err
    assert "gated 6 of 6 collected golden case(s)" in out
    assert len(read_report(pytester.path / "m.json")["cases"]) == 6


def test_reports_without_contents_merge_with_a_line_saying_so(pytester: pytest.Pytester) -> None:
    _shards_on_two_commits(pytester)
    for name in ("s1.json", "s2.json"):
        saved = json.loads((pytester.path / name).read_text(encoding="utf-8"))
        for found in saved["run"]["coverage"]["golden_set"].values():
            del found["contents_sha256"], found["case_contents"]
        (pytester.path / name).write_text(json.dumps(saved), encoding="utf-8")
    status, out, err = rag_gate(pytester.path, "gate", "s1.json", "s2.json", "-o", "m.json")
    assert status == 0, out + err
    assert (
        "rag-gate gate: warning: s1.json, s2.json record(s) no case contents (written by an "
        "older version): the cases' contents could not be checked, only their ids."
    ) in err
    assert "gated 6 of 6 collected golden case(s)" in out
