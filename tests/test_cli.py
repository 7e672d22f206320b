"""The rag-gate command end to end: regate, compare, merge and summary, as subprocesses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gate_runs import case, cases, write

from pytest_ragas_gate.gate.baseline import BaselineComparison
from pytest_ragas_gate.reports.json_report import JudgeInfo
from pytest_ragas_gate.settings.config import GateConfig


def rag_gate(
    *args: str | Path, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("rag-gate")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "pytest_ragas_gate.cli"]
    return subprocess.run(
        [*command, *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**os.environ, **(env or {})},
        timeout=60,
    )


def in_process(cwd: Path, *args: str) -> tuple[int, str, str]:
    """The same command without a new interpreter, for the many variants of one case."""
    import contextlib
    import io

    from pytest_ragas_gate.cli import main

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


def assert_in_process_usage_error(cwd: Path, args: tuple[str, ...], *fragments: str) -> None:
    status, _, err = in_process(cwd, *args)
    assert status == 4, err
    for fragment in fragments:
        assert fragment in err


def assert_usage_error(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert result.returncode == 4, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in result.stderr


def test_help_lists_the_commands(tmp_path: Path) -> None:
    result = rag_gate("--help", cwd=tmp_path)
    assert result.returncode == 0
    listed = [
        line.split()[0]
        for line in result.stdout.split("COMMAND\n", 1)[1].split("\n\n")[0].splitlines()
        if line.startswith("    ") and not line.startswith("     ")
    ]
    assert listed == ["gate", "render", "compare", "comment", "label", "synth", "import", "keygen"]
    for old in ("regate", "merge", "summary", "html", "history", "agreement"):
        assert f"    {old} " not in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("old", "new"),
    [
        (["regate", "run.json"], "rag-gate gate REPORT"),
        (["summary", "run.json"], "rag-gate render REPORT --format markdown"),
        (["agreement", "run.json"], "rag-gate label agreement REPORT"),
    ],
)
def test_an_old_command_name_still_works_and_names_the_new_one(
    tmp_path: Path, old: list[str], new: str
) -> None:
    write(tmp_path / "run.json", cases([0.9, 0.8, 0.7, 1.0]))
    result = rag_gate(*old, cwd=tmp_path)
    now = rag_gate(
        *(
            ["label", "agreement"]
            if old[0] == "agreement"
            else ["gate" if old[0] == "regate" else "render"]
        ),
        "run.json",
        cwd=tmp_path,
    )
    assert result.returncode == now.returncode
    assert result.stdout == now.stdout
    assert (
        f"rag-gate {old[0]}: warning: this command name is deprecated and goes in 0.3.0: "
        f"use {new}" in result.stderr
    )
    assert "deprecated" not in now.stderr


def test_gate_merges_several_reports_and_needs_an_output(tmp_path: Path) -> None:
    write(tmp_path / "run.json", cases([0.9, 0.8]))
    result = rag_gate("gate", "run.json", "run.json", cwd=tmp_path)
    assert_usage_error(result, "Merging 2 reports: name the merged report with -o OUT.")


@pytest.mark.slow
def test_render_writes_markdown_or_html(tmp_path: Path) -> None:
    write(tmp_path / "run.json", cases([0.9, 0.8, 0.7, 1.0]))
    printed = rag_gate("render", "run.json", cwd=tmp_path)
    assert printed.returncode == 0
    assert "RAG gate" in printed.stdout
    written = rag_gate("render", "run.json", "-o", "summary.md", cwd=tmp_path)
    assert written.returncode == 0
    assert (tmp_path / "summary.md").read_text(encoding="utf-8") == printed.stdout
    page = rag_gate("render", "run.json", "--format", "html", "-o", "page.html", cwd=tmp_path)
    assert page.returncode == 0, page.stderr
    assert (tmp_path / "page.html").read_text(encoding="utf-8").startswith("<!")
    no_file = rag_gate("render", "run.json", "--format", "html", cwd=tmp_path)
    assert_usage_error(no_file, "render --format html writes a file: name it with -o OUT.")


@pytest.mark.slow
def test_regate_with_new_thresholds_and_no_judge(tmp_path: Path) -> None:
    write(tmp_path / "run.json", cases([0.9, 0.8, 0.7, 1.0]))
    passed = rag_gate("regate", "run.json", cwd=tmp_path)
    assert passed.returncode == 0, passed.stderr
    assert "RAG gate: PASSED" in passed.stdout

    failed = rag_gate(
        "regate",
        "run.json",
        "--threshold",
        "faithfulness=0.95",
        "-o",
        "out/regated.json",
        cwd=tmp_path,
    )
    assert failed.returncode == 1
    assert "FAILED faithfulness mean 0.85 < 0.95" in failed.stdout
    assert "Block deployment — 1 metric(s) below threshold: faithfulness" in failed.stdout
    regated = json.loads((tmp_path / "out" / "regated.json").read_text(encoding="utf-8"))
    assert regated["verdict"] == "failed"
    assert regated["config"]["thresholds"]["faithfulness"] == 0.95
    assert regated["regated_from"] == "run.json"

    (tmp_path / "rag_gate.yaml").write_text("thresholds:\n  faithfulness: 0.6\n", encoding="utf-8")
    relaxed = in_process(tmp_path, "regate", "out/regated.json", "--config", "rag_gate.yaml")
    assert relaxed[0] == 0, relaxed


def test_regate_under_github_actions_writes_summary_and_annotations(tmp_path: Path) -> None:
    write(tmp_path / "run.json", [*cases([0.9, 0.9]), case("bad", 0.1, line=9)])
    summary = tmp_path / "summary.md"
    result = rag_gate(
        "regate",
        "run.json",
        "--threshold",
        "faithfulness=0.9",
        cwd=tmp_path,
        env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert result.returncode == 1
    assert "::error title=RAG gate::faithfulness mean 0.63 < 0.90" in result.stdout
    assert (
        "::error file=golden.jsonl,line=9,title=RAG case bad::bad: faithfulness 0.10 < 0.90"
        in result.stdout
    )
    assert "## ❌ RAG gate: FAILED" in summary.read_text(encoding="utf-8")


@pytest.mark.slow
def test_regate_rejects_bad_input_with_exit_4(tmp_path: Path) -> None:
    write(tmp_path / "run.json", cases([0.9]))
    (tmp_path / "garbage.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "other.json").write_text('{"schema_version": 99}', encoding="utf-8")
    assert_usage_error(
        rag_gate("regate", "missing.json", cwd=tmp_path), "Cannot read the report missing.json"
    )
    assert_usage_error(rag_gate("regate", "garbage.json", cwd=tmp_path), "is not JSON: line 1")
    assert_in_process_usage_error(tmp_path, ("regate", "other.json"), "schema_version 99")
    assert_in_process_usage_error(
        tmp_path,
        ("regate", "run.json", "--threshold", "faithfulnes=0.9"),
        "has no metric 'faithfulnes'",
        "did you mean 'faithfulness'?",
    )
    assert_in_process_usage_error(
        tmp_path, ("regate", "run.json", "--threshold", "faithfulness"), "METRIC=VALUE"
    )
    assert_in_process_usage_error(
        tmp_path, ("regate", "run.json", "--config", "nope.yaml"), "nope.yaml does not exist"
    )
    assert_in_process_usage_error(tmp_path, ("frobnicate",), "invalid choice")


@pytest.mark.slow
def test_compare_shows_metric_and_case_deltas(tmp_path: Path) -> None:
    write(tmp_path / "base.json", [*cases([0.9] * 12), case("removed", 0.9, line=40)])
    new = cases([0.9] * 4 + [0.5] * 6 + [0.2, 0.3])
    write(tmp_path / "same.json", cases([0.9] * 12))
    write(tmp_path / "new.json", [*new, case("added", 0.9, line=41)])
    result = rag_gate("compare", "base.json", "new.json", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any(
        line.startswith("faithfulness regressed: mean 0.59 vs baseline 0.90 (Δ -0.31")
        for line in lines
    )
    assert any(line.startswith("context_recall no regression") for line in lines)
    assert "  golden.jsonl::c10  faithfulness  0.90 → 0.20 (Δ -0.70)" in lines
    assert lines.index("  golden.jsonl::c10  faithfulness  0.90 → 0.20 (Δ -0.70)") < lines.index(
        "  golden.jsonl::c11  faithfulness  0.90 → 0.30 (Δ -0.60)"
    )
    assert "new cases (1):" in lines and "  golden.jsonl::added" in lines
    assert "removed cases (1):" in lines and "  golden.jsonl::removed" in lines
    assert "Regression: faithfulness" in lines

    assert "changed cases (8 case-metric changes, largest drops first):" in lines

    # No significant drop under a 0.4 tolerance, but the gate calls faithfulness newly
    # failing (0.90 passed its threshold, 0.59 does not): compare says so and fails.
    assert (
        in_process(tmp_path, "compare", "base.json", "new.json", "--max-regression", "0.4")[0] == 1
    )
    assert in_process(tmp_path, "compare", "base.json", "same.json")[0] == 0
    assert_usage_error(
        rag_gate("compare", "base.json", "missing.json", cwd=tmp_path), "missing.json"
    )


def test_compare_agrees_with_the_gates_newly_failing_list(tmp_path: Path) -> None:
    from pytest_ragas_gate.gate.verdict import RunFacts, evaluate_gate

    config = GateConfig(
        judge="anthropic", bootstrap_resamples=500, thresholds={"faithfulness": 0.8}
    )
    base, new = cases([0.81] * 12), cases([0.81] * 11 + [0.6])
    write(tmp_path / "base.json", base, config=config)
    write(tmp_path / "new.json", new, config=config)
    from pytest_ragas_gate.gate.baseline import compare_to_baseline

    comparison = compare_to_baseline(base, new, ["faithfulness"], config, path="base.json")
    newly = evaluate_gate(new, ["faithfulness"], config, RunFacts(baseline=comparison))
    assert newly.newly_failing == ["faithfulness"]
    assert not comparison.regressed_metrics
    code, out, _ = in_process(tmp_path, "compare", "base.json", "new.json")
    assert code == 1
    assert "Newly failing since the baseline: faithfulness" in out
    assert "No regression" not in out


def test_merge_recombines_shards_and_gates_the_whole(tmp_path: Path) -> None:
    write(tmp_path / "a.json", cases([1.0, 1.0], prefix="a"), shard={"index": 1, "count": 2})
    write(tmp_path / "b.json", cases([0.2, 0.2], prefix="b"), shard={"index": 2, "count": 2})
    result = rag_gate("merge", "a.json", "b.json", "-o", "merged.json", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.startswith("merged 2 report(s), 4 case(s) into merged.json")
    merged = json.loads((tmp_path / "merged.json").read_text(encoding="utf-8"))
    assert merged["metrics"]["faithfulness"]["mean"] == pytest.approx(0.6)
    assert merged["metrics"]["faithfulness"]["n"] == 4
    assert merged["verdict"] == "failed"
    assert merged["merged_from"] == ["a.json", "b.json"]
    assert merged["shard"] is None
    assert merged["usage"]["calls"] == 8

    relaxed = in_process(
        tmp_path, "merge", "a.json", "b.json", "-o", "m2.json", "--threshold", "faithfulness=0.5"
    )
    assert relaxed[0] == 0, relaxed


@pytest.mark.slow
def test_merge_refuses_mismatched_or_overlapping_reports(tmp_path: Path) -> None:
    write(tmp_path / "a.json", cases([1.0], prefix="a"))
    write(tmp_path / "overlap.json", cases([1.0, 1.0], prefix="a"))
    write(
        tmp_path / "offline.json",
        cases([1.0], prefix="o"),
        judge=JudgeInfo(kind="offline", model="heuristic-v1"),
    )
    write(
        tmp_path / "strict.json",
        cases([1.0], prefix="s"),
        config=GateConfig(judge="anthropic", bootstrap_resamples=500, rule="ci_lower"),
    )
    write(tmp_path / "s1.json", cases([1.0], prefix="x"), shard={"index": 1, "count": 3})
    write(tmp_path / "s2.json", cases([1.0], prefix="y"), shard={"index": 2, "count": 3})
    (tmp_path / "broken.json").write_text('{"schema_version": 1, "config": {}}', encoding="utf-8")

    def merge(*names: str) -> tuple[str, ...]:
        return ("merge", *names, "-o", "out.json")

    assert_usage_error(
        rag_gate(*merge("a.json", "overlap.json"), cwd=tmp_path),
        "Case 'a0' of golden.jsonl is in both a.json and overlap.json",
    )
    assert_usage_error(
        rag_gate(*merge("a.json", "offline.json"), cwd=tmp_path),
        "claude-test",
        "shards must be scored by the same judge, model and prompt version",
    )
    assert_in_process_usage_error(
        tmp_path,
        merge("a.json", "strict.json"),
        "setting 'rules.default' differs ('mean' vs 'ci_lower')",
    )
    assert_in_process_usage_error(tmp_path, merge("s1.json", "s2.json"), "Shard(s) 3/3 missing")
    assert_in_process_usage_error(tmp_path, merge("s1.json", "s1.json"), "both shard 1/3")
    assert_in_process_usage_error(
        tmp_path, merge("a.json", "s1.json"), "a whole run, with shard reports"
    )
    assert_in_process_usage_error(
        tmp_path, merge("a.json", "broken.json"), "broken.json has no valid 'metrics'"
    )
    assert_in_process_usage_error(tmp_path, ("merge", "a.json"), "-o/--output")
    assert not (tmp_path / "out.json").exists()


@pytest.mark.slow
def test_summary_prints_markdown_with_the_baseline(tmp_path: Path) -> None:
    write(tmp_path / "base.json", cases([0.9] * 10))
    shutil.copy(tmp_path / "base.json", tmp_path / "copy.json")
    write(tmp_path / "new.json", cases([0.5] * 10))
    regated = rag_gate(
        "regate",
        "new.json",
        "--baseline",
        "base.json",
        "--threshold",
        "faithfulness=0.4",
        "-o",
        "gated.json",
        cwd=tmp_path,
    )
    assert regated.returncode == 1
    assert "FAILED faithfulness regressed: mean 0.50 vs baseline 0.90" in regated.stdout
    result = rag_gate("summary", "gated.json", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.startswith("## ❌ RAG gate: FAILED")
    assert "### Baseline `base.json`" in result.stdout
    assert "| `faithfulness` | 0.90 | 0.50 | -0.40 |" in result.stdout
    assert "Block deployment — 1 metric(s) regressed: faithfulness" in result.stdout
    # The stored comparison keeps counting when the report is re-gated later.
    again = in_process(tmp_path, "regate", "gated.json")
    assert again[0] == 1 and "regressed" in again[1]
    assert_in_process_usage_error(tmp_path, ("summary", "nothing.json"), "nothing.json")


def test_merge_compares_the_whole_run_with_the_shards_baseline(tmp_path: Path) -> None:
    write(tmp_path / "base.json", [*cases([0.9] * 4, prefix="a"), *cases([0.9] * 4, prefix="b")])
    config = GateConfig(judge="anthropic", bootstrap_resamples=500, baseline="base.json")
    stored = BaselineComparison(
        path="base.json", max_regression=0.05, confidence=0.95, paired_cases=4, paired_by_id_only=0
    ).model_dump(mode="json")
    write(
        tmp_path / "a.json",
        cases([0.9] * 4, prefix="a"),
        config=config,
        shard={"index": 1, "count": 2},
        baseline=stored,
    )
    write(
        tmp_path / "b.json",
        cases([0.2] * 4, prefix="b"),
        config=config,
        shard={"index": 2, "count": 2},
        baseline=stored,
    )
    status, out, err = in_process(
        tmp_path,
        "merge",
        "a.json",
        "b.json",
        "-o",
        "merged.json",
        "--threshold",
        "faithfulness=0.1",
    )
    assert status == 1, err
    assert (
        "baseline base.json: 8 paired, 0 new, 0 removed case(s); "
        "1 metric(s) regressed: faithfulness" in out
    )
    merged = json.loads((tmp_path / "merged.json").read_text(encoding="utf-8"))
    assert merged["baseline"]["regressed_metrics"] == ["faithfulness"]
    (tmp_path / "elsewhere").mkdir()
    assert_in_process_usage_error(
        tmp_path / "elsewhere",
        ("merge", "../a.json", "../b.json", "-o", "m.json"),
        "pass --baseline PATH",
    )


def test_compare_against_an_error_run_is_no_regression_of_nothing(tmp_path: Path) -> None:
    write(tmp_path / "base.json", cases([0.9] * 10))
    dead_results = [
        result.model_copy(
            update={
                "scores": {"context_recall": 0.9},
                "errors": {"faithfulness": "connection refused"},
                "judge_errors": ["faithfulness"],
            }
        )
        for result in cases([0.9] * 10)
    ]
    dead = write(tmp_path / "dead.json", dead_results)
    assert json.loads(dead.read_text())["verdict"] == "error"
    status, out, _ = in_process(tmp_path, "compare", "base.json", "dead.json")
    assert status == 1
    assert "No regression" not in out
    assert "report dead.json is an ERROR run" in out
    assert "not evaluated for faithfulness: this run's judge gave no usable answer" in out
    # The other way round: a baseline that is an ERROR run measured nothing either.
    status, out, _ = in_process(tmp_path, "compare", "dead.json", "base.json")
    assert status == 1
    assert "baseline dead.json is an ERROR run" in out and "No regression" not in out


@pytest.mark.parametrize("form", ["html", "markdown"])
def test_render_refuses_a_baseline_the_report_was_not_gated_against(
    tmp_path: Path, form: str
) -> None:
    # old.json was gated against base.json; other.json would make the page's deltas and
    # its saved "regressed"/"newly failing" speak of two different comparisons.
    write(tmp_path / "base.json", cases([0.9] * 10))
    write(tmp_path / "other.json", cases([0.2] * 10))
    write(tmp_path / "raw.json", cases([0.9] * 10))
    assert (
        in_process(tmp_path, "gate", "raw.json", "--baseline", "base.json", "-o", "old.json")[0]
        == 0
    )
    out = "page.html" if form == "html" else "summary.md"
    assert_in_process_usage_error(
        tmp_path,
        ("render", "old.json", "--format", form, "-o", out, "--baseline", "other.json"),
        "old.json was gated against base.json; render shows that decision and cannot compare "
        "it with other.json. Gate it against other.json first: rag-gate gate old.json "
        "--baseline other.json",
    )
    assert not (tmp_path / out).exists()
    # The baseline it was gated against, named where it is, still gives the page its deltas.
    status, _, _ = in_process(
        tmp_path, "render", "old.json", "--format", form, "-o", out, "--baseline", "base.json"
    )
    assert status == 0 and (tmp_path / out).is_file()
