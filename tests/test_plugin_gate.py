"""End to end: `pytest --rag-gate` on golden files, with the offline judge and no key."""

from __future__ import annotations

import json
import textwrap

import pytest
from gate_runs import GOOD, HALLUCINATED, gate_run, good_rows, write_config, write_jsonl
from test_cli import in_process

from pytest_ragas_gate.gate.deploy_decision import SMOKE_CHECK


def test_a_passing_golden_set_is_an_offline_smoke_check(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows())
    result = pytester.runpytest("--rag-gate")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "*RAG gate*",
            "metric*mean*95% CI*threshold*rule*n*verdict*",
            "faithfulness*1.000*0.85*mean*3*PASS*",
            "RAG gate: PASSED",
            SMOKE_CHECK,
        ]
    )


def test_metric_below_threshold_blocks_deployment(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [*good_rows(1), HALLUCINATED])
    result = pytester.runpytest("--rag-gate")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "faithfulness*0.85*mean*2*FAIL*",
            "FAILED faithfulness mean 0.50 < 0.85 (n=2, 95% CI*",
            "RAG gate: FAILED",
            "Block deployment — * metric(s) below threshold: faithfulness*",
            "*hint (faithfulness):*context*",
        ]
    )


def test_header_announces_the_offline_judge(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    result = pytester.runpytest("--rag-gate")
    result.stdout.fnmatch_lines(
        [
            "rag-gate: judge offline (*)*ANTHROPIC_API_KEY*",
            "rag-gate: thresholds faithfulness>=0.85*cache readwrite*config defaults*",
        ]
    )


def test_verbose_lines_show_each_cases_scores(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [*good_rows(1), HALLUCINATED])
    result = pytester.runpytest("--rag-gate", "-v")
    # Each on its line, in whatever order the items ran (pytest-randomly shuffles them).
    result.stdout.fnmatch_lines(
        ["golden.jsonl::good-0 PASSED faithfulness=1.00 contradiction_rate=0.00 answer_relevancy=*"]
    )
    result.stdout.fnmatch_lines(["golden.jsonl::wrong-year PASSED faithfulness=0.00 *"])


def test_case_threshold_failure_leads_with_the_verdict(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [{**HALLUCINATED, "thresholds": {"faithfulness": 0.9}}])
    result = pytester.runpytest("--rag-gate", "-rA")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "FAILED golden.jsonl::wrong-year - faithfulness 0.00 < 0.90 (case min)",
        ]
    )
    result.stdout.fnmatch_lines(["question: When was the Eiffel Tower completed?", "*1925*"])


#: Two conftest metrics where lower is better, one subclassing ``Metric`` and one that only
#: follows it; a case's score is the number in its id, in percent.
LOWER_IS_BETTER_METRICS = """
    from pytest_ragas_gate import Metric, MetricResult

    class ErrorRate(Metric):
        name = "error_rate"
        required_fields = ("answer",)
        default_threshold = 0.5
        lower_is_better = True

        async def score(self, case, judge):
            return MetricResult(score=int(case.id.split("-")[1]) / 100)

    class DuckErrorRate:
        name = "duck_error_rate"
        required_fields = ("answer",)
        default_threshold = None
        lower_is_better = True

        async def score(self, case, judge):
            return MetricResult(score=int(case.id.split("-")[1]) / 100)

    def pytest_rag_gate_metrics():
        return [ErrorRate(), DuckErrorRate()]
"""


def test_case_and_tag_thresholds_of_a_custom_lower_is_better_metric_are_maxima(
    pytester: pytest.Pytester,
) -> None:
    own = {"error_rate": 0.1, "duck_error_rate": 0.1}
    write_jsonl(
        pytester,
        "golden.jsonl",
        [
            {**GOOD, "id": "rate-05", "tags": ["low"], "thresholds": own},
            {**GOOD, "id": "rate-30", "thresholds": {"error_rate": 0.1}},
        ],
    )
    pytester.makeconftest(textwrap.dedent(LOWER_IS_BETTER_METRICS))
    write_config(
        pytester.path,
        metrics=["error_rate", "duck_error_rate"],
        thresholds={"duck_error_rate": 0.5},
        tag_thresholds={"low": own},
    )
    result, report = gate_run(pytester, "-rA")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["FAILED golden.jsonl::rate-30 - error_rate 0.30 > 0.10 (case max)"]
    )
    assert "(case min)" not in result.stdout.str()
    assert {tag["metric"]: (tag["direction"], tag["passed"]) for tag in report["tags"]} == {
        "error_rate": ("max", True),
        "duck_error_rate": ("max", True),
    }
    assert report["metrics"]["duck_error_rate"]["direction"] == "max"
    assert report["config"]["thresholds"] == {"duck_error_rate": "<=0.5", "error_rate": "<=0.5"}
    # The saved settings carry the direction, so the report re-gates to the same verdict.
    status, out, _ = in_process(pytester.path, "regate", "report.json")
    assert status == 1, out
    assert "1 case(s) below their own thresholds: rate-30" in out


def test_without_the_flag_golden_files_are_not_collected(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert "RAG gate" not in result.stdout.str()


def test_plugin_imports_nothing_heavy_when_off(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_modules="""
        import sys

        def test_modules():
            heavy = {"pydantic", "yaml", "anthropic", "openai", "junit_xml", "numpy"}
            assert "pytest_ragas_gate.plugin" in sys.modules
            assert not heavy & set(sys.modules), heavy & set(sys.modules)
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_only_matching_files_are_golden_under_directories(pytester: pytest.Pytester) -> None:
    data = pytester.mkdir("data")
    (data / "golden_set.jsonl").write_text(json.dumps(GOOD) + "\n", encoding="utf-8")
    (data / "smoke.golden.yaml").write_text(
        "- question: Who founded Apple?\n  answer: Steve Jobs.\n", encoding="utf-8"
    )
    (data / "settings.json").write_text('{"not": "cases"}', encoding="utf-8")
    (data / "other.jsonl").write_text(json.dumps(GOOD) + "\n", encoding="utf-8")
    result = pytester.runpytest("--rag-gate", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["data/golden_set.jsonl::founders"])
    result.stdout.fnmatch_lines(["data/smoke.golden.yaml::q-*"])
    assert "other.jsonl" not in result.stdout.str()
    assert "settings.json" not in result.stdout.str()
    named = pytester.runpytest("--rag-gate", "--collect-only", "-q", "data/other.jsonl")
    named.stdout.fnmatch_lines(["data/other.jsonl::founders"])


def test_chinese_cases_are_scored(pytester: pytest.Pytester) -> None:
    (pytester.path / "golden_zh.yaml").write_text(
        "- id: zh-1\n"
        "  user_input: 团队版每个用户有多少存储空间？\n"
        "  response: 团队版为每个用户提供 2 TB 存储空间。\n"
        "  retrieved_contexts: [团队版为每个用户提供 2 TB 存储空间，可在所有设备上使用。]\n"
        "  reference: 团队版为每个用户提供 2 TB 存储空间。\n"
        "- id: zh-2\n"
        "  user_input: 团队版每个用户有多少存储空间？\n"
        "  response: 团队版为每个用户提供 5 TB 存储空间。\n"
        "  retrieved_contexts: [团队版为每个用户提供 2 TB 存储空间，可在所有设备上使用。]\n",
        encoding="utf-8",
    )
    result = pytester.runpytest("--rag-gate", "-v")
    result.stdout.fnmatch_lines(["*zh-1 PASSED faithfulness=1.00*"])
    result.stdout.fnmatch_lines(["*zh-2 PASSED faithfulness=0.00*"])
