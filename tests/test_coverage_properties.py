"""Property tests of the coverage ledger: every case once, and no "Safe to deploy" over a gap.

Two levels:

- the ledger itself, over generated censuses (files left out whole, cases deselected,
  cases never reached, excluded on purpose) and generated sets of reported cases;
- whole ``pytest --rag-gate`` runs over generated golden sets with random pytest
  exclusions, ``exclude:`` globs, ``-k`` selections and ``-x`` stops (slow).
"""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest
from gate_runs import GOOD, HALLUCINATED, read_report
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_ragas_gate.gate.coverage import (
    BROKEN_SYMLINK,
    EMPTY_FILE,
    UNREADABLE,
    Census,
    CensusCase,
    CensusFile,
    build_ledger,
    merge_ledgers,
)
from pytest_ragas_gate.gate.verdict import RunFacts, evaluate_gate
from pytest_ragas_gate.scoring.results import CaseResult
from pytest_ragas_gate.settings.config import GateConfig

FILE_REASONS = [
    None,
    None,
    "excluded by --ignore",
    "excluded by --ignore-glob",
    "excluded by norecursedirs",
    "excluded by collect_ignore",
    "not run: --lf",
    "not selected on the command line",
    UNREADABLE,
    BROKEN_SYMLINK,
]
CASE_REASONS = [None, None, None, "deselected by -k 'x'", "deselected by -m 'y'", "not run: --lf"]
STOPS = [None, "not reached: -x stopped", "not reached: --sw stopped"]


@st.composite
def censuses(draw: st.DrawFn) -> tuple[Census, set[tuple[str, str]], str | None]:
    """A census, the cases reported (some selected cases may be missing) and a stop."""
    files = []
    reported: set[tuple[str, str]] = set()
    stop = draw(st.sampled_from(STOPS))
    for file_index in range(draw(st.integers(0, 5))):
        path = f"golden_{file_index}.jsonl"
        reason = draw(st.sampled_from(FILE_REASONS))
        by_config = reason is None and draw(st.booleans()) and draw(st.booleans())
        readable = reason not in (UNREADABLE, BROKEN_SYMLINK)
        count = draw(st.integers(0, 4)) if readable else 0
        cases = []
        for line in range(1, count + 1):
            case_reason = None if reason or by_config else draw(st.sampled_from(CASE_REASONS))
            case = CensusCase(id=f"case-{file_index}-{line}", line=line, reason=case_reason)
            cases.append(case)
            selected = reason is None and not by_config and case_reason is None
            # Without a stop, a selected case may still go unreported (a lost worker).
            if selected and draw(st.booleans() if stop else st.sampled_from([True, True, False])):
                reported.add((f"{path}:{line}", case.id))
        files.append(
            CensusFile(
                path=path,
                cases=cases,
                reason="excluded by exclude: x*" if by_config else reason,
                by_config=by_config,
            )
        )
    return Census(files=files), reported, stop


def result_of(source: str, case_id: str) -> CaseResult:
    return CaseResult(
        id=case_id,
        source=source,
        question="q?",
        metrics=["faithfulness"],
        scores={"faithfulness": 1.0},
    )


@given(drawn=censuses())
def test_the_ledger_accounts_for_every_case_exactly_once(
    drawn: tuple[Census, set[tuple[str, str]], str | None],
) -> None:
    census, reported, stop = drawn
    ledger = build_ledger(census, reported, stop)

    every_case = [(found.path, case.id) for found in census.files for case in found.cases]
    accounted = [
        *((source.rpartition(":")[0], case_id) for source, case_id in reported),
        *((group.file, case_id) for group in ledger.not_gated for case_id in group.ids),
        *((group.file, case_id) for group in ledger.excluded for case_id in group.ids),
    ]
    assert sorted(accounted) == sorted(every_case)
    assert ledger.gated_cases == len(reported)
    in_scope = sum(len(found.cases) for found in census.files if not found.by_config)
    assert ledger.total_cases == in_scope
    assert ledger.gated_cases + sum(group.cases for group in ledger.not_gated) == in_scope
    # A file that was left out whole, or held nothing, is named even when it has no case.
    for found in census.files:
        if found.by_config:
            assert found.path in {group.file for group in ledger.excluded}
        elif found.reason is not None or not found.cases:
            assert found.path in {group.file for group in ledger.not_gated}
    empty = {found.path for found in census.files if not found.cases and found.reason is None}
    assert empty <= {group.file for group in ledger.not_gated if group.reason == EMPTY_FILE}


@given(drawn=censuses())
def test_a_run_with_an_unaccounted_case_is_never_safe_to_deploy(
    drawn: tuple[Census, set[tuple[str, str]], str | None],
) -> None:
    census, reported, stop = drawn
    ledger = build_ledger(census, reported, stop)
    results = [result_of(source, case_id) for source, case_id in sorted(reported)]
    verdict = evaluate_gate(
        results,
        ["faithfulness"],
        GateConfig(bootstrap_resamples=100),
        RunFacts(counted=True, coverage=ledger, scored_by={"faithfulness": "anthropic"}),
    )
    if ledger.not_gated:
        assert verdict.status != "passed"
        assert verdict.recommendation != "Safe to deploy"
    elif results:
        assert verdict.status == "passed"
        assert verdict.recommendation == "Safe to deploy"


@given(
    sizes=st.lists(st.integers(0, 4), min_size=1, max_size=3),
    shard_count=st.integers(1, 3),
    data=st.data(),
)
def test_merged_shard_ledgers_gate_what_some_shard_gated(
    sizes: list[int], shard_count: int, data: st.DataObject
) -> None:
    cases = [
        (f"golden_{index}.jsonl", line)
        for index, size in enumerate(sizes)
        for line in range(1, size + 1)
    ]
    shard_of = {case: data.draw(st.integers(1, shard_count)) for case in cases}
    lost = data.draw(st.sets(st.sampled_from(cases))) if cases else set()
    ledgers = []
    for shard in range(1, shard_count + 1):
        reason = f"not in --rag-gate-shard {shard}/{shard_count}"
        census = Census(
            files=[
                CensusFile(
                    path=path,
                    cases=[
                        CensusCase(
                            id=f"{path}-{line}",
                            line=line,
                            reason=None if shard_of[(path, line)] == shard else reason,
                        )
                        for (file, line) in cases
                        if file == path
                    ],
                )
                for path in dict.fromkeys(f"golden_{index}.jsonl" for index in range(len(sizes)))
            ]
        )
        reported = {
            (f"{path}:{line}", f"{path}-{line}")
            for (path, line) in cases
            if shard_of[(path, line)] == shard and (path, line) not in lost
        }
        ledgers.append(build_ledger(census, reported, None))
    merged = merge_ledgers(ledgers)
    assert merged is not None
    assert merged.total_cases == len(cases)
    assert merged.gated_cases == len(cases) - len(lost)
    left_out = {case_id for group in merged.not_gated if group.ids for case_id in group.ids}
    assert left_out == {f"{path}-{line}" for (path, line) in lost}
    empty = {f"golden_{index}.jsonl" for index, size in enumerate(sizes) if not size}
    assert {group.file for group in merged.not_gated if not group.ids} == empty
    assert merge_ledgers([*ledgers, None]) is None


# --- whole runs ---------------------------------------------------------------------------


@st.composite
def golden_runs(draw: st.DrawFn) -> tuple[dict[str, list[dict[str, Any]]], list[str], str]:
    """Golden files (name → rows), pytest arguments (`ini:`, `conftest:` write a file), exclude."""
    files: dict[str, list[dict[str, Any]]] = {}
    for index in range(draw(st.integers(1, 3))):
        folder = draw(st.sampled_from(["", "sub/", "legacy/"]))
        rows = [
            {
                **(HALLUCINATED if draw(st.booleans()) and draw(st.booleans()) else GOOD),
                "id": f"f{index}-{line}",
            }
            for line in range(draw(st.integers(0, 3)))
        ]
        files[f"{folder}golden_{index}.jsonl"] = rows
    names = sorted(files)
    args: list[str] = []
    if draw(st.booleans()):
        args.append(f"--ignore={draw(st.sampled_from(names))}")
    if draw(st.booleans()):
        args.append(f"--ignore-glob=*{draw(st.sampled_from(['legacy', 'golden_1', 'sub']))}*")
    if draw(st.booleans()):
        args += ["-k", draw(st.sampled_from(["f0", "not f1", "f2-0 or f0-1", "-0"]))]
    if draw(st.booleans()):
        args.append("-x")
    exclude = draw(st.sampled_from(["", "legacy/*", "*_2.jsonl"]))
    setup = draw(
        st.sampled_from(
            ["", "ini:norecursedirs = legacy", "conftest:collect_ignore_glob = ['*_1.*']"]
        )
    )
    return files, [*args, setup] if setup else args, exclude


@pytest.mark.slow
@settings(
    max_examples=15,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(drawn=golden_runs())
def test_no_generated_run_with_a_case_left_out_says_safe_to_deploy(
    pytester: pytest.Pytester,
    drawn: tuple[dict[str, list[dict[str, Any]]], list[str], str],
) -> None:
    files, args, exclude = drawn
    for child in pytester.path.iterdir():
        shutil.rmtree(child) if child.is_dir() else child.unlink()
    setup = [arg for arg in args if arg.startswith(("ini:", "conftest:"))]
    args = [arg for arg in args if arg not in setup]
    for item in setup:
        kind, _, text = item.partition(":")
        name = "pytest.ini" if kind == "ini" else "conftest.py"
        content = f"[pytest]\n{text}\n" if kind == "ini" else text + "\n"
        (pytester.path / name).write_text(content, encoding="utf-8")
    for name, rows in files.items():
        path = pytester.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    if exclude:
        (pytester.path / "rag_gate.yaml").write_text(f"exclude: ['{exclude}']\n", "utf-8")
    result = pytester.runpytest(
        "--rag-gate",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        "--rag-gate-cache",
        "off",
        "--rag-gate-metrics",
        "faithfulness",
        "--rag-gate-report",
        "report.json",
        *args,
    )
    out = result.stdout.str()
    assert "Traceback" not in out
    report = read_report(pytester.path / "report.json")
    coverage = report["run"]["coverage"]

    every = sorted((name, row["id"]) for name, rows in files.items() for row in rows)
    gated_keys = [(case["source"].rpartition(":")[0], case["id"]) for case in report["cases"]]
    accounted = [
        *gated_keys,
        *((group["file"], case_id) for group in coverage["not_gated"] for case_id in group["ids"]),
        *((group["file"], case_id) for group in coverage["excluded"] for case_id in group["ids"]),
    ]
    assert sorted(accounted) == every
    left_out = coverage["not_gated"]
    if left_out:
        assert "Safe to deploy" not in out
        assert report["verdict"] in ("partial", "failed")
    if "Safe to deploy" in out:
        assert not left_out and report["verdict"] == "passed"
