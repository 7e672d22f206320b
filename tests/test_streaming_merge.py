"""End to end: merging and re-gating stream the reports and reach the in-memory verdict.

``rag-gate gate`` reads each report one case at a time and keeps compact results; the
shards of a templated run (errors, n/a, tags, a conversation, a baseline) merged that way
must give the very verdict, means, intervals, failing cases and case records that gating
the whole run's report in memory gives, to the last digit.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from gate_runs import gate_run, read_report, write_jsonl
from shard_reports import TEMPLATE_ROWS, template_reports
from test_merge_golden_sets import rag_gate

from pytest_ragas_gate.gate.baseline import compare_to_baseline, scoring_differences
from pytest_ragas_gate.gate.verdict import evaluate_gate
from pytest_ragas_gate.reports.json_report import build_report, load_report, report_cases
from pytest_ragas_gate.scoring.results import usage_by_metric

#: The blocks of the report that the gate decides; all must match the in-memory gate's.
DECIDED = (
    "verdict",
    "partial",
    "coverage",
    "metrics",
    "tags",
    "error_rate",
    "failures",
    "checks",
    "failing_metrics",
    "recommendation",
    "deploy_decision",
    "conversations",
    "baseline",
)


def _real_report(pytester: pytest.Pytester) -> Path:
    write_jsonl(pytester, "golden.jsonl", TEMPLATE_ROWS)
    outcome = gate_run(
        pytester, report="real.json", judge="offline", cache="off", disable=("randomly",)
    )
    assert outcome.ret in (0, 1), outcome.stdout.str()
    return pytester.path / "real.json"


def _in_memory(whole: Path, baseline: str, cwd: Path) -> dict[str, Any]:
    """The whole run's report gated in memory against ``baseline``, as a report's blocks."""
    report = load_report(whole)
    base = load_report(cwd / baseline)
    comparison = compare_to_baseline(
        base.results,
        report.results,
        report.metrics,
        report.config,
        path=baseline,
        warnings=scoring_differences(base.metrics, report.metrics),
        base_judge=base.judge,
        new_judge=report.judge,
    )
    facts = report.facts.model_copy(update={"baseline": comparison})
    verdict = evaluate_gate(report.results, report.metrics, report.config, facts)
    document = build_report(
        results=report.results,
        verdict=verdict,
        config=report.config,
        judge=report.judge,
        usage_by_metric=usage_by_metric(report.results),
        wall_s=0.0,
        scoring_s=0.0,
        facts=facts,
        include_cases=False,
    )
    records = report_cases(report.results, report.config, verdict.cases)
    document["cases"] = json.loads(json.dumps(list(records)))
    return document


def _assert_same_gate(cases: int, shards: int, pytester: pytest.Pytester) -> None:
    real = _real_report(pytester)
    made = template_reports(real, pytester.path, cases=cases, shards=shards)
    base = template_reports(
        real, pytester.path, cases=cases, shards=1, seed=8, shift=-0.04, name="base"
    )
    baseline = base.whole.name
    expected = _in_memory(made.whole, baseline, pytester.path)
    assert expected["verdict"] == "failed"  # a gate with something to find
    names = [path.name for path in made.shards]
    status, out, err = rag_gate(
        pytester.path, "gate", *names, "--baseline", baseline, "-o", "merged.json"
    )
    assert status == 1, out + err
    merged = read_report(pytester.path / "merged.json")
    for key in DECIDED:
        assert merged[key] == expected[key], key
    assert merged["cases"] == expected["cases"]
    assert any(case["errors"] for case in merged["cases"])
    assert any(None in case["scores"].values() for case in merged["cases"])
    assert any(case["conversation"] for case in merged["cases"])
    # One report re-gated streams too.
    status, out, err = rag_gate(
        pytester.path, "gate", made.whole.name, "--baseline", baseline, "-o", "regated.json"
    )
    assert status == 1, out + err
    regated = read_report(pytester.path / "regated.json")
    for key in DECIDED:
        assert regated[key] == expected[key], key
    assert regated["cases"] == expected["cases"]


def test_a_streamed_merge_gates_as_the_whole_run_in_memory(pytester: pytest.Pytester) -> None:
    _assert_same_gate(300, 3, pytester)


@pytest.mark.slow
@pytest.mark.timeout(900)  # two gates of 2,000 cases, the in-memory one bootstrapping
def test_two_thousand_cases_merge_to_the_in_memory_verdict(pytester: pytest.Pytester) -> None:
    # Past the bootstrap's fast path and the HTML sample; the 100,000-case figures are
    # benchmarks/scale_merge.py's to measure.
    _assert_same_gate(2_000, 5, pytester)


def _page_cases(page: str) -> list[dict[str, Any]]:
    """The case records the page's script shows, unpacked as the browser unpacks them."""
    found = re.search(r'<script type="application/json" id="rag-gate-data">(.*?)</script>', page)
    assert found is not None
    data = json.loads(html.unescape(found.group(1)))
    if "packed" in data:
        return list(json.loads(gzip.decompress(base64.b64decode(data["packed"]))))
    return list(data["cases"])


def test_the_page_of_a_large_merge_shows_failures_and_a_sample(pytester: pytest.Pytester) -> None:
    real = _real_report(pytester)
    made = template_reports(real, pytester.path, cases=300, shards=3)
    names = [path.name for path in made.shards]
    status, out, err = rag_gate(
        pytester.path,
        "gate",
        *names,
        "-o",
        "m.json",
        "-o",
        "html=m.html",
        "--html-max-cases",
        "280",
    )
    assert status == 1, out + err
    page = (pytester.path / "m.html").read_text(encoding="utf-8")
    text = html.unescape(page)
    merged = read_report(pytester.path / "m.json")
    failed = set(merged["failing_metrics"])
    failing = [
        case["id"]
        for case in merged["cases"]
        if case["verdict"]["status"] in ("failed", "errored")
        or any(miss["metric"] in failed for miss in case["verdict"]["misses"])
    ]
    assert 0 < len(failing) < 280
    assert (
        f"This page shows 280 of the run's 300 cases (more than 280): {len(failing)} of "
        f"its {len(failing)} gated failures"
    ) in text
    shown = {case["id"] for case in _page_cases(page)}
    assert set(failing) <= shown
    assert len(shown) == 280
    assert len(merged["cases"]) == 300
    # At or below the limit the page shows every case and says nothing of a choice.
    status, out, err = rag_gate(pytester.path, "gate", *names, "-o", "m.json", "-o", "html=a.html")
    assert "This page shows" not in (pytester.path / "a.html").read_text(encoding="utf-8")
