"""End to end: `--rag-gate-shard K/N` splits the golden set; `rag-gate merge` recombines it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from gate_runs import GOOD, HALLUCINATED, write_jsonl

from pytest_ragas_gate.golden.sharding import parse_shard, shard_of


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def golden(pytester: pytest.Pytester) -> None:
    rows = [
        {**(HALLUCINATED if index % 4 == 0 else GOOD), "id": f"case-{index}"} for index in range(12)
    ]
    write_jsonl(pytester, "golden.jsonl", rows)
    write_jsonl(
        pytester, "golden_more.jsonl", [{**GOOD, "id": f"more-{index}"} for index in range(4)]
    )


@pytest.mark.slow
@pytest.mark.usefixtures("golden")
def test_two_shards_merged_equal_the_whole_run(pytester: pytest.Pytester) -> None:
    whole = pytester.runpytest(
        "--rag-gate", "--rag-gate-report", "whole.json", "-p", "no:cacheprovider"
    )
    first = pytester.runpytest(
        "--rag-gate",
        "--rag-gate-shard",
        "1/2",
        "--rag-gate-report",
        "shard1.json",
        "-p",
        "no:cacheprovider",
    )
    # The second shard runs under xdist: the split must not depend on the worker layout.
    second = pytester.runpytest_subprocess(
        "--rag-gate",
        "--rag-gate-shard",
        "2/2",
        "--rag-gate-report",
        "shard2.json",
        "-n",
        "2",
        "-p",
        "no:cacheprovider",
    )
    assert whole.ret == pytest.ExitCode.TESTS_FAILED
    assert {first.ret, second.ret} <= {pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED}
    first.stdout.fnmatch_lines(
        ["rag-gate: shard 1/2", "collected 16 items / * deselected / * selected"]
    )

    shard1, shard2 = load(pytester.path / "shard1.json"), load(pytester.path / "shard2.json")
    assert shard1["shard"] == {"index": 1, "count": 2} and shard2["shard"] == {
        "index": 2,
        "count": 2,
    }
    ids1 = {case["id"] for case in shard1["cases"]}
    ids2 = {case["id"] for case in shard2["cases"]}
    assert ids1 and ids2 and not ids1 & ids2
    assert ids1 | ids2 == {case["id"] for case in load(pytester.path / "whole.json")["cases"]}
    for case in shard1["cases"]:
        assert shard_of(case["source"].rpartition(":")[0], case["id"], 2) == 1

    merged = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest_ragas_gate.cli",
            "merge",
            "shard2.json",
            "shard1.json",
            "-o",
            "merged.json",
        ],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )
    assert merged.returncode == 1, merged.stderr
    whole_report, merged_report = (
        load(pytester.path / "whole.json"),
        load(pytester.path / "merged.json"),
    )
    assert merged_report["metrics"] == whole_report["metrics"]
    assert merged_report["verdict"] == whole_report["verdict"]
    # Each shard left the other's cases out; together they gated every case.
    # The merge keeps each file's contents digest, not the per-case digests it checked.
    for report in (whole_report, merged_report):
        for golden_file in report["run"]["coverage"]["golden_set"].values():
            golden_file.pop("case_contents", None)
    assert merged_report["run"]["coverage"] == whole_report["run"]["coverage"]
    assert merged_report["coverage"] == whole_report["coverage"]
    assert merged_report["failures"] == whole_report["failures"]
    assert [case["id"] for case in merged_report["cases"]] == [
        case["id"] for case in whole_report["cases"]
    ]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("3/2", "the shard K must be from 1 to 2, got '3/2'"),
        ("1/0", "the shard count N must be at least 1, got '1/0'"),
        ("0/4", "the shard K must be from 1 to 4, got '0/4'"),
        ("half", "expected K/N such as 1/4, got 'half'"),
    ],
)
def test_a_bad_shard_is_a_usage_error(pytester: pytest.Pytester, spec: str, message: str) -> None:
    with pytest.raises(Exception, match=message):
        parse_shard(spec)
    if spec == "3/2":
        result = pytester.runpytest("--rag-gate", "--rag-gate-shard", spec)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines([f"*--rag-gate-shard: {message}*"])


def test_shards_split_evenly_and_stably() -> None:
    counts = [0, 0, 0, 0]
    for index in range(400):
        counts[shard_of("golden/qa.jsonl", f"case-{index}", 4) - 1] += 1
    assert all(70 < count < 130 for count in counts)
    # Pinned: a shard assignment that changed between versions would split a CI matrix
    # differently from the baseline it is compared with.
    assert [shard_of("golden.jsonl", f"case-{index}", 3) for index in range(6)] == [
        2,
        2,
        1,
        3,
        2,
        2,
    ]


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_a_moved_golden_file_pairs_with_the_baseline_in_every_shard(
    pytester: pytest.Pytester, workers: tuple[str, ...]
) -> None:
    # The baseline ran golden.jsonl; the same cases now live in golden_renamed.jsonl, so each
    # case hashes to another shard than its baseline (file, id) does.
    rows = [{**GOOD, "id": f"case-{index}"} for index in range(12)]
    write_jsonl(pytester, "golden.jsonl", rows)
    base = pytester.runpytest(
        "--rag-gate", "--rag-gate-output", "json=base.json", "-p", "no:randomly"
    )
    assert base.ret == pytest.ExitCode.OK
    (pytester.path / "golden.jsonl").unlink()
    write_jsonl(pytester, "golden_renamed.jsonl", rows)
    paired = 0
    for index in (1, 2):
        run = pytester.runpytest(
            "--rag-gate",
            "--rag-gate-shard",
            f"{index}/2",
            "--rag-gate-baseline",
            "base.json",
            "--rag-gate-output",
            f"json=shard{index}.json",
            "-p",
            "no:randomly",
            *workers,
        )
        comparison = load(pytester.path / f"shard{index}.json")["baseline"]
        # Every case of the shard pairs with its baseline case; none is "new".
        assert comparison["new_cases"] == [], run.stdout.str()
        run.stdout.fnmatch_lines(
            [f"*baseline base.json: {comparison['paired_cases']} paired, 0 new*"]
        )
        paired += comparison["paired_cases"]
    assert paired == 12
