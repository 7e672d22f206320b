"""A pull request that changes the gate's own inputs says so, in the summary and the comment.

A git repository with a base commit and a head commit that lowers a threshold, removes a
failing golden case, adds judge-cache entries and changes a conftest.py: the step summary,
the terminal, the JSON report and the pull-request comment name each change.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from gate_runs import GOOD, HALLUCINATED, gate_run, write_golden

from pytest_ragas_gate.cli import main as rag_gate
from pytest_ragas_gate.reports.pr_comment import main as pr_comment

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

SECTION = "### ⚠️ This change touches the gate itself"


def git(directory: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(directory), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def write_config(directory: Path, faithfulness: float) -> None:
    (directory / "rag_gate.yaml").write_text(
        f"thresholds:\n  faithfulness: {faithfulness}\n", encoding="utf-8"
    )


def commit(directory: Path, message: str) -> None:
    git(directory, "add", "-A")
    git(directory, "commit", "-q", "-m", message)


@pytest.fixture
def repo(pytester: pytest.Pytester) -> Path:
    """Base commit on main; head commit on a branch that touches every gate input."""
    root = pytester.path
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "gate@example.com")
    git(root, "config", "user.name", "Gate Test")
    git(root, "config", "commit.gpgsign", "false")
    (root / ".gitignore").write_text("*.json\n!.rag_gate_cache/**\n", encoding="utf-8")
    write_config(root, 0.85)
    write_golden(root, [GOOD, HALLUCINATED])
    (root / "conftest.py").write_text("# no custom metric yet\n", encoding="utf-8")
    commit(root, "base")
    git(root, "checkout", "-q", "-b", "feature")
    return root


def touch_the_gate(root: Path) -> None:
    write_config(root, 0.5)
    write_golden(root, [{**GOOD, "answer": GOOD["answer"] + " It is in Cupertino."}])
    for name in ("ab12", "cd34"):
        entry = root / ".rag_gate_cache" / name[:2] / f"{name}.json"
        entry.parent.mkdir(parents=True, exist_ok=True)
        entry.write_text(json.dumps({"format": 1, "key": name, "reply": {}}), encoding="utf-8")
    (root / "conftest.py").write_text(
        "import pytest\n\n@pytest.fixture\ndef always_one():\n    return 1.0\n", encoding="utf-8"
    )
    commit(root, "head: lower the bar")


#: How every run of this module gates: the offline judge on faithfulness, no pytest cache,
#: no traceback.
OPTIONS: dict[str, Any] = {
    "judge": "offline",
    "metrics": "faithfulness",
    "disable": ("cacheprovider",),
    "tracebacks": False,
}


def in_pull_request(monkeypatch: pytest.MonkeyPatch, root: Path, base: str = "main") -> Path:
    summary = root / "step_summary.md"
    monkeypatch.setenv("GITHUB_BASE_REF", base)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    return summary


def saved(root: Path, name: str = "report.json") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / name).read_text(encoding="utf-8"))
    return data


EXPECTED = [
    "- `rag_gate.yaml`: threshold faithfulness 0.85 → 0.50",
    "- `golden.jsonl`: 1 case(s) removed: wrong-year; 1 case(s) edited: founders; removed case "
    "wrong-year failed in the baseline (faithfulness 0.00 &lt; 0.85)",
    "- `.rag_gate_cache`: judge-cache entries 2 added: replies the gate replays instead of "
    "asking the judge",
    "- `conftest.py`: conftest.py changed: code that runs inside the gate (custom metrics, "
    "live targets, hooks) — review it as code that can change any score",
]


def test_a_change_to_the_gate_is_named_in_the_step_summary_terminal_and_report(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, repo: Path
) -> None:
    # The baseline: the base commit's run, where the hallucinated case fails.
    base = gate_run(pytester, report="base.json", **OPTIONS)
    assert base.ret == 1
    touch_the_gate(repo)
    summary = in_pull_request(monkeypatch, repo)

    result = gate_run(pytester, baseline="base.json", html="report.html", **OPTIONS)

    markdown = summary.read_text(encoding="utf-8")
    assert SECTION in markdown
    assert "Compared with `main`." in markdown
    for line in EXPECTED:
        assert line in markdown, markdown
    result.stdout.fnmatch_lines(
        [
            "This change touches the gate itself (compared with main):",
            "  rag_gate.yaml: threshold faithfulness 0.85 → 0.50",
            "  golden.jsonl: 1 case(s) removed: wrong-year*",
            "  .rag_gate_cache: judge-cache entries 2 added*",
            "  conftest.py: conftest.py changed*",
        ]
    )
    page = (repo / "report.html").read_text(encoding="utf-8")
    assert "<h2>This change touches the gate itself</h2>" in page
    assert "<code>rag_gate.yaml</code>: threshold faithfulness 0.85 → 0.50" in page
    changes = saved(repo)["run"]["gate_changes"]
    assert changes["base_ref"] == "main" and changes["problem"] is None
    assert [change["kind"] for change in changes["changes"]] == [
        "config",
        "golden",
        "cache",
        "conftest",
    ]


def test_regate_repeats_the_changes_the_run_saw(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    repo: Path,
) -> None:
    touch_the_gate(repo)
    in_pull_request(monkeypatch, repo)
    gate_run(pytester, **OPTIONS)
    monkeypatch.delenv("GITHUB_BASE_REF")
    capsys.readouterr()
    assert rag_gate(["regate", str(repo / "report.json")]) == 0
    out = capsys.readouterr().out
    assert "This change touches the gate itself (compared with main):" in out
    assert "  rag_gate.yaml: threshold faithfulness 0.85 → 0.50" in out


@pytest.mark.slow
def test_the_comment_names_the_changes_from_the_report_or_from_base_ref(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    repo: Path,
) -> None:
    gate_run(pytester, report="base.json", **OPTIONS)
    touch_the_gate(repo)
    in_pull_request(monkeypatch, repo)
    gate_run(pytester, baseline="base.json", **OPTIONS)
    monkeypatch.chdir(repo)

    capsys.readouterr()
    assert pr_comment(["report.json", "--comment", "true", "--dry-run"], environ={}) == 0
    from_report = capsys.readouterr().out
    assert SECTION in from_report
    for line in EXPECTED:
        assert line in from_report

    # A report written without GITHUB_BASE_REF: --base-ref compares on the spot.
    monkeypatch.delenv("GITHUB_BASE_REF")
    gate_run(pytester, baseline="base.json", report="plain.json", **OPTIONS)
    assert saved(repo, "plain.json")["run"]["gate_changes"] is None
    capsys.readouterr()
    assert pr_comment(["plain.json", "--comment", "true", "--dry-run"], environ={}) == 0
    assert SECTION not in capsys.readouterr().out
    argv = ["plain.json", "--comment", "true", "--dry-run", "--base-ref", "main"]
    assert pr_comment(argv, environ={}) == 0
    on_the_spot = capsys.readouterr().out
    for line in EXPECTED:
        assert line in on_the_spot
    assert rag_gate(["summary", "plain.json", "--base-ref", "main"]) == 0
    assert EXPECTED[0] in capsys.readouterr().out


def test_nothing_is_said_when_the_gate_is_untouched(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, repo: Path
) -> None:
    (repo / "README.md").write_text("a change to the product, not the gate\n", encoding="utf-8")
    commit(repo, "docs")
    summary = in_pull_request(monkeypatch, repo)
    result = gate_run(pytester, **OPTIONS)
    assert "touches the gate" not in summary.read_text(encoding="utf-8")
    result.stdout.no_fnmatch_line("*touches the gate*")
    assert saved(repo)["run"]["gate_changes"] == {
        "base_ref": "main",
        "changes": [],
        "problem": None,
    }


def test_a_new_public_key_and_a_removed_file_are_named(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    repo: Path,
) -> None:
    capsys.readouterr()
    assert rag_gate(["keygen"]) == 0
    public_key = capsys.readouterr().out.splitlines()[1].split(": ", 1)[1]
    (repo / "rag_gate.yaml").write_text(
        f"thresholds:\n  faithfulness: 0.85\ncache_public_key: {public_key}\n", encoding="utf-8"
    )
    write_golden(repo, [GOOD], name="golden_extra.jsonl")
    pyproject = '[project]\nname = "app"\n\n[project.entry-points."pytest_ragas_gate.metrics"]\n'
    (repo / "pyproject.toml").write_text(pyproject + 'tone = "app.metrics:Tone"\n', "utf-8")
    commit(repo, "extra")
    git(repo, "checkout", "-q", "-b", "second")
    (repo / "rag_gate.yaml").write_text("thresholds:\n  faithfulness: 0.85\n", encoding="utf-8")
    (repo / "golden_extra.jsonl").unlink()
    (repo / "pyproject.toml").write_text(pyproject + 'tone = "app.lenient:Tone"\n', "utf-8")
    commit(repo, "drop the key and a golden file, swap a metric")
    summary = in_pull_request(monkeypatch, repo, base="feature")
    gate_run(pytester, **OPTIONS)
    markdown = summary.read_text(encoding="utf-8")
    assert "- `rag_gate.yaml`: cache.public\\_key " in markdown
    assert "→ none: the key that decides which judge-cache entries are replayed" in markdown
    assert "- `golden_extra.jsonl`: golden file removed with its 1 case(s)" in markdown
    assert (
        "- `pyproject.toml`: custom-metric entry points (pytest\\_ragas\\_gate.metrics) "
        '{"tone": "app.metrics:Tone"} → {"tone": "app.lenient:Tone"}'
    ) in markdown


def test_an_unknown_base_ref_is_said_not_hidden(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, repo: Path
) -> None:
    summary = in_pull_request(monkeypatch, repo, base="no-such-branch")
    result = gate_run(pytester, **OPTIONS)
    assert result.ret == 1  # the hallucinated case still fails: the verdict is unaffected
    markdown = summary.read_text(encoding="utf-8")
    assert "Could not compare the gate's inputs with `no-such-branch`" in markdown
    assert "fetch-depth: 0" in markdown
    problem = saved(repo)["run"]["gate_changes"]["problem"]
    assert "no-such-branch" in problem


def test_options_that_override_the_config_are_named_where_they_changed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, repo: Path
) -> None:
    workflow = repo / ".github" / "workflows" / "gate.yml"
    workflow.parent.mkdir(parents=True)
    steps = "    - uses: org/pytest-ragas-gate@v1\n      with:\n        thresholds: |\n"
    workflow.write_text(f"jobs:\n  gate:\n{steps}          faithfulness=0.85\n", "utf-8")
    (repo / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n", "utf-8")
    commit(repo, "the workflow and pytest.ini")
    git(repo, "checkout", "-q", "-b", "overrides")
    workflow.write_text(f"jobs:\n  gate:\n{steps}          faithfulness=0.10\n", "utf-8")
    (repo / "pytest.ini").write_text(
        "[pytest]\naddopts = -p no:cacheprovider --rag-gate-threshold=faithfulness=0.1\n", "utf-8"
    )
    commit(repo, "lower the bar where no config file says it")
    summary = in_pull_request(monkeypatch, repo, base="feature")

    result = gate_run(pytester, **OPTIONS)

    # The lowered bar lets the hallucinated case through; the reviewer is told how.
    assert result.ret == 0
    markdown = summary.read_text(encoding="utf-8")
    assert (
        "- `.github/workflows/gate.yml`: changed lines: - faithfulness=0.85 / + faithfulness=0.10"
        in markdown
    )
    assert (
        "- `pytest.ini`: changed lines: - addopts = -p no:cacheprovider / + addopts = -p "
        "no:cacheprovider --rag-gate-threshold=faithfulness=0.1" in markdown
    )
    kinds = [change["kind"] for change in saved(repo)["run"]["gate_changes"]["changes"]]
    assert kinds == ["invocation", "invocation"]
