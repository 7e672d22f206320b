"""End to end: the coverage ledger — every golden case is gated, or the run says why not.

Each test reproduces a way a golden file or case used to vanish from a run that still said
"Safe to deploy": pytest's own exclusions, a run that stopped early, empty case lists,
broken symlinks, duplicate ids, golden files named on the command line.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from gate_runs import (
    GOOD,
    HALLUCINATED,
    WORKERS,
    gate_process_command,
    gate_run,
    read_report,
    write_jsonl,
)

from pytest_ragas_gate.gate.deploy_decision import SMOKE_CHECK

#: How every run of this module gates: faithfulness only, fresh judgements, fixed order,
#: and no traceback printed.
OPTIONS: dict[str, Any] = {
    "cache": "off",
    "metrics": "faithfulness",
    "junit": "junit.xml",
    "disable": ("randomly",),
    "tracebacks": False,
}


def good(prefix: str, count: int = 4) -> list[dict[str, Any]]:
    return [{**GOOD, "id": f"{prefix}-{index}"} for index in range(count)]


def failing(prefix: str, count: int = 4) -> list[dict[str, Any]]:
    """Cases the offline judge scores 0 on faithfulness, each below its own threshold."""
    return [
        {**HALLUCINATED, "id": f"{prefix}-{index}", "thresholds": {"faithfulness": 0.9}}
        for index in range(count)
    ]


def junit_cases(path: Path) -> list[tuple[str, str]]:
    """(name, outcome) of every case test case in the JUnit file, in order."""
    found = []
    for suite in ET.parse(path).getroot().iter("testsuite"):
        if suite.get("name") == "rag-gate":
            continue
        for case in suite.iter("testcase"):
            kinds = [child.tag for child in case if child.tag in ("failure", "error")]
            found.append((str(case.get("name")), kinds[0] if kinds else "passed"))
    return found


@pytest.fixture
def three_files(pytester: pytest.Pytester) -> None:
    """12 cases in three files; the Chinese set would fail the gate if it were scored."""
    write_jsonl(pytester, "golden_a.jsonl", good("a"))
    write_jsonl(pytester, "golden_b.jsonl", good("b"))
    write_jsonl(pytester, "golden_zh.jsonl", failing("zh"))


@pytest.mark.usefixtures("three_files")
@pytest.mark.parametrize("workers", WORKERS)
@pytest.mark.parametrize(
    ("setup", "args", "reason"),
    [
        ("", ["--ignore=golden_zh.jsonl"], "excluded by --ignore"),
        ("", ["--ignore-glob=*zh*"], "excluded by --ignore-glob"),
        ("conftest:collect_ignore_glob = ['*zh*']", [], "excluded by collect_ignore_glob"),
        ("conftest:collect_ignore = ['golden_zh.jsonl']", [], "excluded by collect_ignore"),
    ],
    ids=["ignore", "ignore-glob", "collect_ignore_glob", "collect_ignore"],
)
def test_a_golden_file_pytest_excludes_makes_the_run_partial(
    pytester: pytest.Pytester, setup: str, args: list[str], reason: str, workers: list[str]
) -> None:
    if setup.startswith("conftest:"):
        pytester.makeconftest(setup.removeprefix("conftest:"))
    result, report = gate_run(pytester, *args, *workers, **OPTIONS)

    # Before the ledger: "gated 8 of 8" and "Safe to deploy", the failing file unseen.
    assert "Safe to deploy" not in result.stdout.str()
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "RAG gate: PARTIAL",
            "Partial run, not a deploy decision — gated 8 of 12 golden case(s); not gated: "
            f"golden_zh.jsonl (4 case(s), {reason}); gate the whole golden set to decide",
        ]
    )
    assert report["verdict"] == "partial"
    assert report["run"]["coverage"]["not_gated"] == [
        {
            "file": "golden_zh.jsonl",
            "reason": reason,
            "cases": 4,
            "ids": ["zh-0", "zh-1", "zh-2", "zh-3"],
        }
    ]
    assert report["run"]["coverage"]["total_cases"] == 12


@pytest.mark.usefixtures("three_files")
@pytest.mark.parametrize("workers", WORKERS)
@pytest.mark.parametrize(
    ("marker", "outcome", "reason"),
    [
        ("pytest.mark.skip(reason='zh backend down')", "8 skipped", "skipped: zh backend down"),
        ("pytest.mark.xfail(reason='known gap', run=False)", "8 xfailed", "xfailed: known gap"),
    ],
    ids=["skip", "xfail"],
)
def test_a_case_a_conftest_skips_is_named_as_skipped_in_the_coverage(
    pytester: pytest.Pytester, marker: str, outcome: str, reason: str, workers: list[str]
) -> None:
    pytester.makeconftest(
        "import pytest\n"
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n"
        "        if 'zh-' in item.nodeid or 'b-' in item.nodeid:\n"
        f"            item.add_marker({marker})\n"
    )
    result, report = gate_run(pytester, *workers, **OPTIONS)
    assert "Safe to deploy" not in result.stdout.str()
    result.stdout.fnmatch_lines([f"*4 passed, {outcome}*"])
    result.stdout.fnmatch_lines(
        [
            "Partial run, not a deploy decision — gated 4 of 12 golden case(s); not gated: "
            f"golden_b.jsonl (4 case(s), {reason}); golden_zh.jsonl (4 case(s), {reason}); "
            "gate the whole golden set to decide",
        ]
    )
    assert report["verdict"] == "partial"


@pytest.mark.parametrize("workers", WORKERS)
def test_norecursedirs_hides_no_golden_file(pytester: pytest.Pytester, workers: list[str]) -> None:
    write_jsonl(pytester, "golden_a.jsonl", good("a"))
    legacy = pytester.mkdir("legacy")
    write_jsonl(pytester, "legacy/golden_old.jsonl", failing("old"))
    pytester.makeini("[pytest]\nnorecursedirs = legacy\n")
    result, report = gate_run(pytester, *workers, **OPTIONS)
    assert legacy.is_dir()
    assert "Safe to deploy" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        ["*not gated: legacy/golden_old.jsonl (4 case(s), excluded by norecursedirs)*"]
    )
    assert report["verdict"] == "partial"


@pytest.mark.usefixtures("three_files")
def test_files_excluded_in_the_gate_config_are_listed_and_the_run_can_pass(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "rag_gate.yaml").write_text("exclude: ['*_zh.*']\n", encoding="utf-8")
    result, report = gate_run(pytester, **OPTIONS)

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "rag-gate: exclude *_zh.* (golden files left out)",
            "collected 8 items",
            "cases: gated 8 of 8 collected golden case(s); excluded by the exclude setting: "
            "golden_zh.jsonl; 8 scored, 0 errored",
            "RAG gate: PASSED",
            SMOKE_CHECK,
        ]
    )
    assert report["verdict"] == "passed"
    coverage = report["run"]["coverage"]
    assert coverage["not_gated"] == []
    assert coverage["excluded"] == [
        {
            "file": "golden_zh.jsonl",
            "reason": "excluded by exclude: *_zh.*",
            "cases": 4,
            "ids": ["zh-0", "zh-1", "zh-2", "zh-3"],
        }
    ]


@pytest.mark.usefixtures("three_files")
def test_a_file_named_on_the_command_line_is_gated_even_when_excluded(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "rag_gate.yaml").write_text("exclude: ['*_zh.*']\n", encoding="utf-8")
    result, report = gate_run(pytester, "golden_zh.jsonl", **OPTIONS)
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(["*gated 4 of 12 golden case(s); not gated: golden_a.jsonl*"])
    assert report["verdict"] == "failed"


def test_exclude_in_pyproject_takes_paths(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden_a.jsonl", good("a"))
    pytester.mkdir("drafts")
    write_jsonl(pytester, "drafts/golden_next.jsonl", failing("next"))
    pytester.makepyprojecttoml('[tool.rag_gate]\nexclude = ["drafts/*"]\n')
    result, report = gate_run(pytester, **OPTIONS)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*excluded by the exclude setting: drafts/golden_next.jsonl*"])
    assert report["verdict"] == "passed"


def test_golden_files_in_virtualenvs_hidden_and_build_directories_are_not_counted(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden_a.jsonl", good("a"))
    for folder in (".venv/lib/site-packages/pkg", "env/lib/pkg", ".cache", "build", "dist"):
        pytester.mkdir(folder.split("/")[0])
        (pytester.path / folder).mkdir(parents=True, exist_ok=True)
        write_jsonl(pytester, f"{folder}/golden_fixture.jsonl", failing("fixture"))
    for venv in (".venv", "env"):
        # What a real virtualenv has: pytest 8 looks for pyvenv.cfg, pytest 7 for bin/activate.
        (pytester.path / venv / "pyvenv.cfg").write_text("home = /usr\n", encoding="utf-8")
        (pytester.path / venv / "bin").mkdir(exist_ok=True)
        (pytester.path / venv / "bin" / "activate").write_text("", encoding="utf-8")
    result, report = gate_run(pytester, **OPTIONS)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["cases: gated 4 of 4 collected golden case(s)*", SMOKE_CHECK])
    assert report["run"]["coverage"]["not_gated"] == []


@pytest.mark.usefixtures("three_files")
@pytest.mark.parametrize("workers", WORKERS)
def test_two_golden_files_of_one_directory_named_are_both_collected(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    result, report = gate_run(pytester, "golden_a.jsonl", "golden_b.jsonl", *workers, **OPTIONS)
    # Before: "collected 0 items" and "ERROR: not found: golden_b.jsonl".
    assert "not found" not in result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=8)
    result.stdout.fnmatch_lines(
        [
            "RAG gate: PARTIAL",
            "Partial run, not a deploy decision — gated 8 of 12 golden case(s); not gated: "
            "golden_zh.jsonl (4 case(s), not selected on the command line)*",
        ]
    )
    assert sorted(case["id"] for case in report["cases"]) == [
        *(f"a-{index}" for index in range(4)),
        *(f"b-{index}" for index in range(4)),
    ]


def test_naming_one_file_says_which_sibling_was_left_out(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden_a.jsonl", good("a", 8))
    write_jsonl(pytester, "golden_b.jsonl", good("b"))
    result, _ = gate_run(pytester, "golden_a.jsonl", **OPTIONS)
    result.stdout.fnmatch_lines(
        [
            "cases: gated 8 of 12 golden case(s); not gated: golden_b.jsonl "
            "(4 case(s), not selected on the command line); 8 scored, 0 errored"
        ]
    )


def test_the_first_stepwise_run_reports_only_the_cases_that_ran(
    pytester: pytest.Pytester,
) -> None:
    rows = good("c", 6)
    rows[3] = failing("c")[3]
    write_jsonl(pytester, "golden.jsonl", rows)
    result, report = gate_run(pytester, "--sw", **OPTIONS)

    # Before: "gated 6 of 6", and c-4, c-5 in the reports as if they had been scored.
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert "Safe to deploy" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "RAG gate: FAILED",
            "*partial run: gated 4 of 6 golden case(s); not gated: golden.jsonl "
            "(2 case(s), not reached: --sw stopped)",
        ]
    )
    assert [case["id"] for case in report["cases"]] == ["c-0", "c-1", "c-2", "c-3"]
    assert [name for name, _ in junit_cases(pytester.path / "junit.xml")] == [
        "c-0",
        "c-1",
        "c-2",
        "c-3",
    ]
    assert report["run"]["coverage"]["not_gated"][0]["ids"] == ["c-4", "c-5"]


@pytest.mark.slow
def test_a_stepwise_xdist_run_reports_exactly_the_cases_that_ran(
    pytester: pytest.Pytester,
) -> None:
    rows = good("c", 6)
    rows[3] = failing("c")[3]
    write_jsonl(pytester, "golden.jsonl", rows)
    result, report = gate_run(pytester, "--sw", "-n", "2", **OPTIONS)

    # Workers may run every item before the stop reaches them; whatever ran is reported,
    # and whatever did not is named as not reached.
    outcomes = result.parseoutcomes()
    ran = outcomes.get("passed", 0) + outcomes.get("failed", 0)
    reported = sorted(case["id"] for case in report["cases"])
    assert len(reported) == ran
    assert sorted(name for name, _ in junit_cases(pytester.path / "junit.xml")) == reported
    coverage = report["run"]["coverage"]
    assert coverage["gated_cases"] == ran
    assert sorted(reported + [i for group in coverage["not_gated"] for i in group["ids"]]) == [
        f"c-{index}" for index in range(6)
    ]
    assert "Safe to deploy" not in result.stdout.str()


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("golden_empty.json", "[]"),
        ("golden_empty.json", '{"cases": []}'),
        ("golden_empty.yaml", "cases: []\n"),
        ("golden_empty.csv", "question,answer,contexts\n"),
    ],
    ids=["json-list", "json-cases", "yaml-cases", "csv-header-only"],
)
def test_an_empty_case_list_beside_a_good_file_is_accounted_for(
    pytester: pytest.Pytester, name: str, content: str
) -> None:
    write_jsonl(pytester, "golden_a.jsonl", good("a"))
    (pytester.path / name).write_text(content, encoding="utf-8")
    result, report = gate_run(pytester, **OPTIONS)
    assert result.ret == pytest.ExitCode.OK
    assert "Safe to deploy" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        [f"*gated 4 of 4 golden case(s); not gated: {name} (empty file)*", "RAG gate: PARTIAL"]
    )
    assert report["run"]["coverage"]["not_gated"] == [
        {"file": name, "reason": "empty file", "cases": 0, "ids": []}
    ]


def test_a_broken_golden_symlink_is_accounted_for(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden_a.jsonl", good("a"))
    (pytester.path / "golden_gone.jsonl").symlink_to(pytester.path / "moved.jsonl")
    result, report = gate_run(pytester, **OPTIONS)
    assert "Safe to deploy" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*not gated: golden_gone.jsonl (broken symlink)*"])
    assert report["verdict"] == "partial"


@pytest.mark.slow
def test_empty_files_and_broken_symlinks_are_accounted_for_under_xdist(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden_a.jsonl", good("a"))
    (pytester.path / "golden_empty.yaml").write_text("cases: []\n", encoding="utf-8")
    (pytester.path / "golden_gone.jsonl").symlink_to(pytester.path / "moved.jsonl")
    result, report = gate_run(pytester, "-n", "2", **OPTIONS)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "*gated 4 of 4 golden case(s); not gated: golden_empty.yaml (empty file); "
            "golden_gone.jsonl (broken symlink)*",
            "RAG gate: PARTIAL",
        ]
    )
    assert report["verdict"] == "partial"


@pytest.mark.parametrize("workers", WORKERS)
def test_duplicate_ids_keep_a_result_each(pytester: pytest.Pytester, workers: list[str]) -> None:
    write_jsonl(pytester, "golden.jsonl", [{**GOOD, "id": "same"}] * 3)
    write_jsonl(pytester, "golden_more.jsonl", [{**GOOD, "id": "same"}, {**GOOD, "id": "other"}])
    result, report = gate_run(pytester, "-rA", *workers, **OPTIONS)

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*golden.jsonl:2: field 'id': duplicate id 'same' (first at golden.jsonl:1)*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*golden_more.jsonl:1: field 'id': duplicate id 'same' (first at golden.jsonl:1); "
            "ids must be unique within a run*"
        ]
    )
    # Before: one case "same" in the JSON report and in the JUnit file.
    cases = [(case["source"], case["id"], case["error"] is None) for case in report["cases"]]
    assert cases == [
        ("golden.jsonl:1", "same", True),
        ("golden.jsonl:2", "same", False),
        ("golden.jsonl:3", "same", False),
        ("golden_more.jsonl:1", "same", False),
        ("golden_more.jsonl:2", "other", True),
    ]
    # Each case's verdict is its own, not the last one's of the same id.
    assert [case["verdict"]["status"] for case in report["cases"]] == [
        "passed",
        "errored",
        "errored",
        "errored",
        "passed",
    ]
    assert sorted(junit_cases(pytester.path / "junit.xml")) == [
        ("other", "passed"),
        ("same", "error"),
        ("same", "error"),
        ("same", "error"),
        ("same", "passed"),
    ]


class TestExitStatuses:
    """1 for failures, 2 for interruptions and collection errors, 5 for nothing collected."""

    def test_a_collection_error_in_an_ordinary_test_file_is_2(
        self, pytester: pytest.Pytester
    ) -> None:
        write_jsonl(pytester, "golden.jsonl", good("a"))
        pytester.makepyfile(test_broken="import no_such_module_here\n")
        # pytest prints the import error's traceback; the gate adds none.
        result, _ = gate_run(pytester, **{**OPTIONS, "tracebacks": True})
        # Before: 4, a usage error.
        assert result.ret == pytest.ExitCode.INTERRUPTED
        assert "Safe to deploy" not in result.stdout.str()
        result.stdout.fnmatch_lines(
            ["FAILED no golden cases were scored: golden.jsonl (4 case(s), not reached: *"]
        )
        result, _ = gate_run(
            pytester, "--continue-on-collection-errors", **{**OPTIONS, "tracebacks": True}
        )
        assert result.ret == pytest.ExitCode.TESTS_FAILED

    def test_x_stopping_on_an_ordinary_test_is_1(self, pytester: pytest.Pytester) -> None:
        write_jsonl(pytester, "golden.jsonl", good("a"))
        pytester.makepyfile(test_unit="def test_breaks():\n    assert False\n")
        pytester.makeconftest(
            "def pytest_collection_modifyitems(items):\n"
            "    items.sort(key=lambda item: 'golden' in item.nodeid)\n"
        )
        result, report = gate_run(pytester, "-x", **OPTIONS)
        # Before: 4, a usage error.
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.stdout.fnmatch_lines(
            ["*not gated: golden.jsonl (4 case(s), not reached: -x stopped)*", "RAG gate: FAILED"]
        )
        assert report["verdict"] == "failed"

    def test_nothing_collected_is_5(self, pytester: pytest.Pytester) -> None:
        pytester.mkdir("empty")
        result, _ = gate_run(pytester, "empty", **OPTIONS)
        assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
        assert "Safe to deploy" not in result.stdout.str()

    def test_an_unreadable_golden_file_is_bad_input_4(self, pytester: pytest.Pytester) -> None:
        (pytester.path / "golden.json").write_text("{not json", encoding="utf-8")
        result, _ = gate_run(pytester, **OPTIONS)
        assert result.ret == pytest.ExitCode.USAGE_ERROR


@pytest.mark.slow
@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_the_progress_line_and_timings_under_xdist_match_a_serial_run(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    write_jsonl(pytester, "golden.jsonl", good("c", 6))
    master, terminal = pty.openpty()
    environment = {name: value for name, value in os.environ.items() if name != "CI"}
    try:
        process = subprocess.run(
            [
                *gate_process_command("faithfulness", "--rag-gate-cache", "off"),
                "-p",
                "no:randomly",
                *workers,
            ],
            cwd=pytester.path,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=terminal,
            env=environment,
            timeout=120,
            check=False,
        )
        os.close(terminal)
        terminal = -1
        written = _read_all(master)
    finally:
        os.close(master)
        if terminal != -1:
            os.close(terminal)
    assert process.returncode == pytest.ExitCode.OK, process.stdout.decode()
    # Before: under -n 2 no progress line at all, and timing.scoring_s 0.0.
    assert "rag-gate: 6/6 cases scored · 0 judge calls" in written, written
    timing = read_report(pytester.path / "report.json")["timing"]
    assert timing["scoring_s"] > 0


def _read_all(descriptor: int) -> str:
    """Everything written to a pseudo-terminal whose writers have all closed it."""
    chunks = []
    while select.select([descriptor], [], [], 1.0)[0]:
        try:
            chunk = os.read(descriptor, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")
