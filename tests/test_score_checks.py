"""Every score is checked wherever it comes from: a custom metric or a saved report.

A score is a finite number from 0 to 1, or None (not applicable). A custom metric that
returns 12.0, -0.2, NaN, a string or a bare float makes that case's metric an error naming
the metric and the value (never ``12.000 … PASS``, a crash or INTERNALERROR); a saved
report holding such a score is refused by every ``rag-gate`` command with exit 4, naming
the case.
"""

from __future__ import annotations

import asyncio
import json
import math
import textwrap
from pathlib import Path
from typing import Any

import pytest
from gate_runs import GOOD, cases, write, write_jsonl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_cli import in_process

from pytest_ragas_gate.gate.verdict import evaluate_gate
from pytest_ragas_gate.golden.cases import GoldenCase
from pytest_ragas_gate.judges.base import CaseJudge
from pytest_ragas_gate.judges.offline.judge import OfflineJudge
from pytest_ragas_gate.live.oracle import ORACLE_PREFIX
from pytest_ragas_gate.metrics.base import MetricResult
from pytest_ragas_gate.metrics.registry import RESERVED_PREFIX
from pytest_ragas_gate.scoring.scheduler import score_cases
from pytest_ragas_gate.settings.config import GateConfig

#: A conftest metric whose result is the Python expression in ``RETURNED``.
RETURNING_METRIC = """
    from pytest_ragas_gate import MetricResult

    class Returning:
        name = {name!r}
        required_fields = ("answer",)
        default_threshold = 0.0

        async def score(self, case, judge):
            return {returned}

    def pytest_rag_gate_metrics():
        return [Returning()]
"""


def run_with_metric(
    pytester: pytest.Pytester, returned: str, name: str = "my_metric"
) -> tuple[pytest.RunResult, dict[str, Any]]:
    write_jsonl(pytester, "golden.jsonl", [{**GOOD, "id": "one"}, {**GOOD, "id": "two"}])
    pytester.makeconftest(textwrap.dedent(RETURNING_METRIC.format(name=name, returned=returned)))
    result = pytester.runpytest(
        "--rag-gate",
        "--rag-gate-cache",
        "off",
        "--rag-gate-report",
        "report.json",
        "-p",
        "no:randomly",
    )
    path = pytester.path / "report.json"
    report = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return result, report


@pytest.mark.parametrize(
    ("returned", "shown"),
    [
        ("MetricResult(score=12.0)", "score 12.0 of metric 'my_metric' is outside 0 to 1"),
        ("MetricResult(score=-0.2)", "score -0.2 of metric 'my_metric' is outside 0 to 1"),
        (
            "MetricResult(score=float('nan'))",
            "score nan of metric 'my_metric' is not a finite number",
        ),
        (
            "MetricResult(score='0.9')",
            "score '0.9' of metric 'my_metric' is a str, not a number",
        ),
        ("0.9", "metric 'my_metric' returned 0.9 (float); score(case, judge) must return"),
    ],
    ids=["above-one", "negative", "nan", "string", "bare-float"],
)
def test_a_custom_metric_that_returns_no_score_is_an_error_of_each_case(
    pytester: pytest.Pytester, returned: str, shown: str
) -> None:
    result, report = run_with_metric(pytester, returned)
    output = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, output
    assert "INTERNALERROR" not in output and "Traceback" not in output
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        [
            "*my_metric has no scored cases (n=0, 0 not applicable, 2 errors)*",
            "RAG gate: FAILED",
        ]
    )
    assert "Safe to deploy" not in output
    assert f"my_metric errored: {shown}" in output
    by_id = {case["id"]: case for case in report["cases"]}
    for case in by_id.values():
        assert case["errors"]["my_metric"].startswith(shown)
        assert "my_metric" not in case["scores"]
        # The error is the metric's, not a traceback into the scheduler.
        assert "traceback" not in json.dumps(case["details"].get("my_metric", []))
    assert report["verdict"] == "failed"


def test_a_custom_metric_may_return_an_int_score_or_not_applicable(
    pytester: pytest.Pytester,
) -> None:
    result, report = run_with_metric(
        pytester, "MetricResult(score=1) if case.id == 'one' else MetricResult.not_applicable('x')"
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    scores = {case["id"]: case["scores"]["my_metric"] for case in report["cases"]}
    assert scores == {"one": 1.0, "two": None}


def test_a_custom_metric_may_not_take_an_oracle_name(pytester: pytest.Pytester) -> None:
    result, _ = run_with_metric(pytester, "MetricResult(score=1.0)", name="oracle_faithfulness")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*gave <*Returning object at *>, which is not a metric: its name starts with "
            "'oracle_', which is reserved for the gold-context scores of live.oracle: "
            "both; give it another name*"
        ]
    )
    assert RESERVED_PREFIX == ORACLE_PREFIX


# --- saved reports ------------------------------------------------------------------------


def tampered_report(tmp_path: Path, score: Any, name: str = "run.json") -> Path:
    """A report whose case ``c1`` holds ``score`` as its faithfulness (NaN as JSON's NaN)."""
    path = write(tmp_path / name, cases([0.9, 0.8, 0.95]))
    report = json.loads(path.read_text(encoding="utf-8"))
    report["cases"][1]["scores"]["faithfulness"] = score
    path.write_text(json.dumps(report), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("score", "problem"),
    [
        (1.7, "score 1.7 is outside 0 to 1"),
        (float("nan"), "score nan is not a finite number"),
        (float("-inf"), "score -inf is not a finite number"),
        ("0.9", "score '0.9' is a str, not a number"),
    ],
    ids=["above-one", "nan", "minus-infinity", "string"],
)
def test_every_command_refuses_a_report_holding_an_invalid_score(
    tmp_path: Path, score: Any, problem: str
) -> None:
    tampered_report(tmp_path, score)
    write(tmp_path / "base.json", cases([0.9, 0.8, 0.95]))
    commands = [
        ("regate", "run.json"),
        ("summary", "run.json"),
        ("html", "run.json", "-o", "page.html"),
        ("compare", "base.json", "run.json"),
        ("merge", "run.json", "-o", "merged.json"),
        ("regate", "base.json", "--baseline", "run.json"),
    ]
    for command in commands:
        status, out, err = in_process(tmp_path, *command)
        assert status == 4, (command, out, err)
        assert "Traceback" not in err
        where = "has an invalid case at index 1 (id 'c1'): field 'scores.faithfulness'"
        assert f"{where}: {problem}" in err, err
    assert not (tmp_path / "merged.json").exists() and not (tmp_path / "page.html").exists()


def test_pytest_refuses_a_baseline_holding_an_invalid_score(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    tampered_report(pytester.path, float("nan"), name="base.json")
    result = pytester.runpytest("--rag-gate", "--rag-gate-baseline=base.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: Baseline (--rag-gate-baseline base.json): The report * has an invalid case "
            "at index 1 (id 'c1'): field 'scores.faithfulness': score nan is not a finite number*"
        ]
    )


# --- properties ---------------------------------------------------------------------------

#: Values that are not scores: each must make its case an error, never a pass.
NOT_SCORES = st.one_of(
    st.just(math.nan),
    st.just(math.inf),
    st.just(-math.inf),
    st.floats(min_value=1.0, exclude_min=True, allow_infinity=False, allow_nan=False),
    st.floats(max_value=0.0, exclude_max=True, allow_infinity=False, allow_nan=False),
    st.integers().filter(lambda number: number not in (0, 1)),
    st.text(max_size=5),
    st.booleans(),
    st.lists(st.floats(min_value=0, max_value=1), max_size=2),
)
#: Values that are scores, for the cases around the bad one.
SCORES = st.one_of(st.floats(min_value=0.0, max_value=1.0), st.none())
#: What a metric may wrongly return: a non-score, bare or in a MetricResult, or even a
#: valid score (or None) returned bare instead of in a MetricResult.
BAD_RETURNS = st.one_of(
    st.tuples(NOT_SCORES, st.booleans()),
    st.tuples(SCORES, st.just(True)),
)


class ScriptedMetric:
    """A custom metric returning, per case id, a scripted value (bare or in a result)."""

    name = "scripted"
    required_fields = ("answer",)
    default_threshold = 0.0

    def __init__(self, returns: dict[str, tuple[Any, bool]]) -> None:
        self.returns = returns

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        value, bare = self.returns[case.id]
        return value if bare else MetricResult(score=value)  # type: ignore[no-any-return]


def golden_case(index: int) -> GoldenCase:
    return GoldenCase(
        id=f"case-{index}", question="Q?", answer="A.", file="golden.jsonl", line=index + 1
    )


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(
    bad=BAD_RETURNS,
    good=st.lists(st.tuples(SCORES, st.just(False)), max_size=4),
    position=st.integers(min_value=0, max_value=4),
)
def test_no_value_that_is_not_a_score_reaches_a_passed_verdict(
    bad: tuple[Any, bool], good: list[tuple[Any, bool]], position: int
) -> None:
    returned = [*good]
    returned.insert(min(position, len(good)), bad)
    cases_ = [golden_case(index) for index in range(len(returned))]
    metric = ScriptedMetric({case.id: value for case, value in zip(cases_, returned, strict=True)})
    results = asyncio.run(
        score_cases(
            cases_,
            lambda case: ["scripted"],
            {"scripted": metric},
            OfflineJudge(),
            max_cases_in_flight=4,
        )
    )
    config = GateConfig(thresholds={"scripted": 0.0}, bootstrap_resamples=100)
    verdict = evaluate_gate(list(results.values()), ["scripted"], config)
    assert verdict.status == "failed" and not verdict.passed
    errored = [result for result in results.values() if result.errors]
    assert len(errored) == 1
    assert "'scripted'" in errored[0].errors["scripted"]
    for result in results.values():
        for score in result.scores.values():
            assert score is None or 0.0 <= score <= 1.0


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(score=NOT_SCORES)
def test_no_saved_score_that_is_not_a_score_is_regated(
    tmp_path_factory: pytest.TempPathFactory, score: Any
) -> None:
    folder = tmp_path_factory.mktemp("saved")
    tampered_report(folder, score)
    status, _, err = in_process(folder, "regate", "run.json")
    assert status == 4, err
    assert "(id 'c1'): field 'scores.faithfulness': score " in err


@pytest.mark.slow
def test_an_invalid_custom_score_is_an_error_under_xdist_too(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [{**GOOD, "id": f"c{index}"} for index in range(4)])
    pytester.makeconftest(
        textwrap.dedent(
            RETURNING_METRIC.format(
                name="my_metric", returned="MetricResult(score=1.5 if case.id == 'c2' else 1.0)"
            )
        )
    )
    result = pytester.runpytest_subprocess(
        "--rag-gate", "--rag-gate-cache", "off", "--rag-gate-report", "report.json", "-n", "2"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(
        ["*my_metric errored: score 1.5 of metric 'my_metric' is outside 0 to 1*"]
    )
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    assert report["verdict"] == "failed"
    assert report["metrics"]["my_metric"]["errors"] == 1
