"""End to end: a metric's direction is a fact of the metric, read in one place.

Each test reproduces a threshold that used to point the wrong way: a report-only
lower-is-better metric whose case maximum was read as a minimum, a ``>=`` that silently
turned a lower-is-better metric's maxima into minima, a ``<=`` on faithfulness accepted
without a word, and a maximum's failure worded "below threshold".
"""

from __future__ import annotations

import textwrap
from typing import Any

import pytest
from gate_runs import GOOD, gate_run, write_config, write_jsonl

OPTIONS: dict[str, Any] = {"judge": "offline", "cache": "off", "disable": ("randomly",)}

#: Two lower-is-better metrics scoring a case's id number / 100: one report-only, one gated.
METRICS = """
    from pytest_ragas_gate.metrics.base import Metric, MetricResult

    class ErrorShare(Metric):
        name = "error_share"
        required_fields = ("answer",)
        default_threshold = None
        lower_is_better = True

        async def score(self, case, judge):
            return MetricResult(score=int(case.id.split("-")[1]) / 100)

    class HalluRate(Metric):
        name = "hallu_rate"
        required_fields = ("answer",)
        default_threshold = 0.2
        lower_is_better = True

        async def score(self, case, judge):
            return MetricResult(score=int(case.id.split("-")[1]) / 100)

    def pytest_rag_gate_metrics():
        return [ErrorShare(), HalluRate()]
"""


def write_golden_and_metric(pytester: pytest.Pytester, rows: list[dict[str, Any]]) -> None:
    pytester.makeconftest(textwrap.dedent(METRICS))
    write_jsonl(pytester, "golden.jsonl", rows)


@pytest.mark.parametrize("threshold", [0.1, "<=0.1"])
def test_a_report_only_lower_is_better_metric_reads_a_case_threshold_as_a_maximum(
    pytester: pytest.Pytester, threshold: float | str
) -> None:
    write_golden_and_metric(
        pytester, [{**GOOD, "id": "rate-05", "thresholds": {"error_share": threshold}}]
    )
    outcome = gate_run(pytester, "-rA", metrics="error_share,faithfulness", **OPTIONS)
    assert outcome.ret == pytest.ExitCode.OK, outcome.stdout.str()
    assert "(case min)" not in outcome.stdout.str()
    assert outcome.report["metrics"]["error_share"]["direction"] == "max"
    assert outcome.report["config"]["lower_is_better"] == ["error_share", "hallu_rate"]


def test_a_case_maximum_of_a_report_only_metric_fails_above_it(
    pytester: pytest.Pytester,
) -> None:
    write_golden_and_metric(
        pytester, [{**GOOD, "id": "rate-30", "thresholds": {"error_share": 0.1}}]
    )
    outcome = gate_run(pytester, "-rA", metrics="error_share,faithfulness", **OPTIONS)
    assert outcome.ret == pytest.ExitCode.TESTS_FAILED
    outcome.stdout.fnmatch_lines(["*error_share 0.30 > 0.10 (case max)*"])


def test_a_minimum_on_a_lower_is_better_metric_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    write_golden_and_metric(pytester, [{**GOOD, "id": "rate-05"}])
    outcome = gate_run(pytester, metrics="hallu_rate", threshold="hallu_rate>=0.1", **OPTIONS)
    assert outcome.ret == pytest.ExitCode.USAGE_ERROR
    outcome.stderr.fnmatch_lines(
        [
            "*setting 'thresholds' from --rag-gate-threshold: threshold for 'hallu_rate' is "
            "'>=0.1', a minimum, but for hallu_rate lower is better: its threshold is a "
            "maximum (<=); write 0.1 or <=0.1*"
        ]
    )


def test_a_maximum_on_a_higher_is_better_metric_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    outcome = gate_run(pytester, threshold="faithfulness<=0.5", **OPTIONS)
    assert outcome.ret == pytest.ExitCode.USAGE_ERROR
    outcome.stderr.fnmatch_lines(
        [
            "*threshold for 'faithfulness' is '<=0.5', a maximum, but for faithfulness higher is "
            "better: its threshold is a minimum (>=)*"
        ]
    )
    write_config(pytester.path, thresholds={"faithfulness": "<=0.5"})
    configured = gate_run(pytester, **OPTIONS)
    assert configured.ret == pytest.ExitCode.USAGE_ERROR
    configured.stderr.fnmatch_lines(["*threshold for 'faithfulness' is '<=0.5', a maximum*"])


def test_a_case_threshold_against_its_metrics_direction_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    write_golden_and_metric(
        pytester,
        [
            {**GOOD, "id": "rate-05"},
            {**GOOD, "id": "rate-06", "thresholds": {"hallu_rate": ">=0.1"}},
        ],
    )
    outcome = gate_run(pytester, metrics="hallu_rate", **OPTIONS)
    assert outcome.ret == pytest.ExitCode.USAGE_ERROR
    outcome.stdout.fnmatch_lines(
        [
            "*golden.jsonl:2: field 'thresholds': threshold for 'hallu_rate' is '>=0.1', a "
            "minimum, but for hallu_rate lower is better*"
        ]
    )


def test_a_maximum_that_fails_says_above(pytester: pytest.Pytester) -> None:
    write_golden_and_metric(pytester, [{**GOOD, "id": "rate-30"}, {**GOOD, "id": "rate-40"}])
    outcome = gate_run(pytester, metrics="hallu_rate", **OPTIONS)
    assert outcome.ret == pytest.ExitCode.TESTS_FAILED
    outcome.stdout.fnmatch_lines(
        [
            "FAILED hallu_rate mean 0.35 > 0.20*",
            "Block deployment — 1 metric(s) above threshold: hallu_rate*",
        ]
    )
    assert "below threshold" not in outcome.stdout.str()
