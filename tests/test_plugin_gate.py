"""End to end: `pytest --rag-gate` on golden files, with the offline judge and no key."""

from __future__ import annotations

import json

import pytest
from gate_runs import GOOD, HALLUCINATED, good_rows, write_jsonl


def test_passing_golden_set_is_safe_to_deploy(pytester: pytest.Pytester) -> None:
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
            "Safe to deploy",
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
