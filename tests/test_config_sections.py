"""Config in sections, --rag-gate-set / --rag-gate-output, and the old spellings still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate_runs import assert_no_traceback, good_rows, write_jsonl

from pytest_ragas_gate.settings.config import GateConfig, load_config
from pytest_ragas_gate.settings.config_sections import SECTIONED, public_keys

FLAT = """\
judge: offline
model: heuristic
concurrency: 4
cache: read
cache_dir: .judge-cache
report: out.json
report_details: full
rule: ci_lower
rules: {faithfulness: mean}
baseline: base.json
max_regression: 0.1
labels: labels.csv
min_agreement: {faithfulness: {auroc: 0.7}}
min_judge_agreement: 0.8
ppi_min_labels: 40
target_timeout: 5
latency: {p95: 2.0}
max_calls: 100
thresholds: {faithfulness: 0.9}
"""

SECTIONED_FILE = """\
judge:
  provider: offline
  model: heuristic
  concurrency: 4
  budget: {max_calls: 100}
cache: {mode: read, dir: .judge-cache}
outputs: {json: out.json, details: full}
rules: {default: ci_lower, faithfulness: mean}
thresholds: {faithfulness: 0.9}
baseline: {path: base.json, max_regression: 0.1}
trust:
  labels: labels.csv
  agreement:
    human: {faithfulness: {auroc: 0.7}}
    self: 0.8
  ppi: {min_labels: 40}
live: {timeout: 5, latency: {p95: 2.0}}
"""


#: ``-W error``, but for pytest's own notice that an in-process run cannot rewrite the
#: already imported package (a property of running pytest inside pytest, not of the gate).
WARNINGS_AS_ERRORS = ("-W", "error", "-W", "ignore::pytest.PytestAssertRewriteWarning")


def _load(tmp_path: Path, text: str) -> tuple[GateConfig, tuple[str, ...]]:
    (tmp_path / "rag_gate.yaml").write_text(text, encoding="utf-8")
    loaded = load_config(rootdir=tmp_path, cli={}, env={})
    return loaded.config, loaded.warnings


def test_a_flat_config_reads_as_the_same_settings_with_a_warning_per_key(
    tmp_path: Path,
) -> None:
    (tmp_path / "flat").mkdir()
    (tmp_path / "sections").mkdir()
    flat, flat_warnings = _load(tmp_path / "flat", FLAT)
    sectioned, sectioned_warnings = _load(tmp_path / "sections", SECTIONED_FILE)
    assert flat == sectioned
    assert flat.rule == "ci_lower" and flat.rules == {"faithfulness": "mean"}
    assert flat.min_judge_agreement == 0.8 and flat.target_timeout == 5
    assert sectioned_warnings == ()
    # One warning per renamed key, each with the new spelling; thresholds kept its name.
    assert len(flat_warnings) == 17
    assert (
        "rag_gate.yaml: 'cache_dir' is now written 'cache.dir' (the flat spelling is read "
        "until 0.3.0)" in flat_warnings
    )
    assert any(
        "'min_judge_agreement' is now written 'trust.agreement.self'" in w for w in flat_warnings
    )
    assert any("'rule' is now written 'rules.default'" in w for w in flat_warnings)
    assert not any("'thresholds'" in warning for warning in flat_warnings)


def test_every_setting_has_one_sectioned_key() -> None:
    internal = set(SECTIONED.values()) | {"rule"}
    assert internal == set(GateConfig.model_fields)
    assert len(public_keys()) == len(set(public_keys()))


def test_a_flat_config_runs_and_prints_each_new_spelling(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    (pytester.path / "rag_gate.yaml").write_text(
        "judge: offline\ncache_dir: .cc\nrule: mean\n", encoding="utf-8"
    )
    result = pytester.runpytest("--rag-gate", *WARNINGS_AS_ERRORS)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "rag-gate: deprecated: rag_gate.yaml: 'judge' is now written 'judge.provider'*",
            "rag-gate: deprecated: rag_gate.yaml: 'cache_dir' is now written 'cache.dir'*",
            "rag-gate: deprecated: rag_gate.yaml: 'rule' is now written 'rules.default'*",
            "rag-gate: judge offline*judge: offline in rag_gate.yaml*",
            "*cache readwrite (.cc)*",
        ]
    )


def test_a_sectioned_config_runs_without_a_deprecation_line(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    (pytester.path / "rag_gate.yaml").write_text(
        "judge:\n  provider: offline\ncache:\n  dir: .cc\noutputs:\n  json: r.json\n",
        encoding="utf-8",
    )
    result = pytester.runpytest("--rag-gate")
    assert result.ret == pytest.ExitCode.OK
    assert "deprecated" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*cache readwrite (.cc)*"])
    assert json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["verdict"]


def test_set_types_a_value_as_the_file_does(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    result = pytester.runpytest(
        "--rag-gate",
        "--rag-gate-set",
        "cache.mode=off",
        "--rag-gate-set",
        "thresholds.faithfulness=0.99",
        "--rag-gate-set",
        "judge.concurrency=3",
    )
    result.stdout.fnmatch_lines(["*faithfulness>=0.99*; cache off*"])


def test_set_names_a_misspelt_key_with_the_closest(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    result = pytester.runpytest("--rag-gate", "--rag-gate-set", "judge.concurency=3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*Unknown setting 'judge.concurency' in --rag-gate-set; "
            "did you mean 'judge.concurrency'?*"
        ]
    )
    assert_no_traceback(result)


def test_set_checks_the_value_like_the_file(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    result = pytester.runpytest("--rag-gate", "--rag-gate-set", "judge.concurrency=many")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*setting 'judge.concurrency' from --rag-gate-set judge.concurrency: is the string "
            "'many'*"
        ]
    )
    assert_no_traceback(result)


def test_output_writes_each_kind_asked_for(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    result = pytester.runpytest(
        "--rag-gate",
        "--rag-gate-output",
        "json=r.json",
        "--rag-gate-output",
        "junit=j.xml",
        "--rag-gate-output",
        "markdown=summary.md",
    )
    assert result.ret == pytest.ExitCode.OK
    assert json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["verdict"]
    assert "<testsuite" in (pytester.path / "j.xml").read_text(encoding="utf-8")
    assert "RAG gate" in (pytester.path / "summary.md").read_text(encoding="utf-8")
    result.stdout.fnmatch_lines(
        ["*rag-gate reports: JSON r.json, JUnit j.xml, Markdown summary.md*"]
    )


def test_output_names_an_unknown_kind(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--rag-gate", "--rag-gate-output", "jsn=r.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown output kind 'jsn'*did you mean 'json'?*"])


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (["--rag-gate-report", "r.json"], "--rag-gate-output json=PATH"),
        (["--rag-gate-cache", "off"], "--rag-gate-set cache.mode=readwrite|read|off"),
        (["--rag-gate-concurrency", "2"], "--rag-gate-set judge.concurrency=N"),
    ],
)
def test_an_old_option_still_works_and_names_its_new_spelling(
    pytester: pytest.Pytester, old: list[str], new: str
) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    result = pytester.runpytest("--rag-gate", *old, *WARNINGS_AS_ERRORS)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [f"rag-gate: deprecated: {old[0]} is deprecated and goes in 0.3.0: write {new}"]
    )
    if old[0] == "--rag-gate-report":
        assert (pytester.path / "r.json").is_file()


def test_help_lists_at_most_ten_options_each_once(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    group = result.stdout.str().split("RAG quality gate:")[1].split("\n\n")[0]
    options = [
        line.split()[0].split("=")[0] for line in group.splitlines() if line.startswith("  --")
    ]
    assert options == [
        "--rag-gate",
        "--rag-gate-config",
        "--rag-gate-judge",
        "--rag-gate-metrics",
        "--rag-gate-threshold",
        "--rag-gate-baseline",
        "--rag-gate-shard",
        "--rag-gate-output",
        "--rag-gate-set",
    ]
    for hidden in ("--rag-gate-oracle", "--rag-gate-report", "--rag-gate-cache"):
        assert hidden not in result.stdout.str()
