"""One write path: a saved report gated again writes the files the run wrote.

``pytest --rag-gate`` and ``rag-gate gate`` both end in ``write_outputs``; re-gating a
run's JSON report with the run's own settings must give the same JSON, JUnit, HTML and
Markdown, apart from what says when and from what each file was written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from gate_runs import GOOD, gate_run, write_config, write_golden
from test_cli import in_process

#: The files, by ``-o KIND=PATH`` kind, as the plugin's ``--rag-gate-output`` names them.
FILES = {
    "json": "report.json",
    "junit": "junit.xml",
    "html": "report.html",
    "markdown": "summary.md",
}


def _without_times(text: str) -> str:
    """``text`` with its time stamps and run durations taken out."""
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?", "<time>", text)
    return re.sub(r'(time|timestamp)="[^"]*"', r'\1="<time>"', text)


def _json_without_provenance(text: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(text)
    # What the re-gated report adds: where it came from. Everything else must agree.
    document.pop("regated_from", None)
    return document


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_regating_a_saved_report_writes_the_files_the_run_wrote(
    pytester: pytest.Pytester, workers: tuple[str, ...]
) -> None:
    rows = [{**GOOD, "id": f"good-{index}"} for index in range(3)]
    rows.append({**GOOD, "id": "made-up", "answer": "The Quorvex tier ships satellite uplinks."})
    write_golden(pytester.path, rows)
    metrics = ["faithfulness", "answer_relevancy"]
    write_config(pytester.path, metrics=metrics, thresholds={"faithfulness": 0.8})
    run_dir = pytester.path / "run"
    outputs = [f"--rag-gate-output={kind}=run/{path}" for kind, path in FILES.items()]
    run = gate_run(pytester, *workers, *outputs, report=None, judge="offline")
    assert run.ret == pytest.ExitCode.TESTS_FAILED

    again = [arg for kind, path in FILES.items() for arg in ("-o", f"{kind}=again/{path}")]
    status, out, err = in_process(pytester.path, "gate", "run/report.json", *again)
    assert status == 1, err
    assert "RAG gate: FAILED" in out

    regated = pytester.path / "again"
    for kind, name in FILES.items():
        first = (run_dir / name).read_text(encoding="utf-8")
        second = (regated / name).read_text(encoding="utf-8")
        if kind == "json":
            assert _json_without_provenance(second) == _json_without_provenance(first)
        elif kind == "html":
            # The page names the report it was re-gated from; nothing else may differ.
            assert "<dt>re-gated from</dt><dd>run/report.json</dd>" in second
            second = second.replace("<dt>re-gated from</dt><dd>run/report.json</dd>", "")
            assert _without_times(second) == _without_times(first)
        else:
            assert _without_times(second) == _without_times(first), kind


def test_gate_refuses_one_kind_named_twice(pytester: pytest.Pytester) -> None:
    (pytester.path / "r.json").write_text("{}", encoding="utf-8")
    status, _, err = in_process(
        pytester.path, "gate", "r.json", "-o", "junit=a.xml", "-o", "junit=b.xml"
    )
    assert status == 4
    assert "junit is already written to a.xml; name each kind once" in err
    assert "Traceback" not in err


#: The report writers: only the one write path calls them.
WRITERS = ("write_report(", "write_html(", "write_junit(", "export_run(", "append_history(")

#: Callers besides it, each for a reason of its own: the renderers' own modules, the page
#: of a saved report as saved (``render --format html``), and ``rag-gate history``, which
#: appends saved reports rather than a gated run.
OTHER_CALLERS = {"reports/json_report.py", "reports/html.py", "reports/junit.py"}
OTHER_CALLERS |= {"reports/otel.py", "reports/history.py", "cli/history.py"}


def test_the_plugin_and_the_commands_write_reports_only_through_write_outputs() -> None:
    package = Path(__file__).resolve().parent.parent / "pytest_ragas_gate"
    callers = {
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if any(
            writer in line and "def " not in line
            for line in path.read_text(encoding="utf-8").splitlines()
            for writer in WRITERS
        )
    }
    assert callers - OTHER_CALLERS == {"reports/outputs.py"}
