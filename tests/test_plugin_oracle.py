"""Oracle retrieval: the live target answers from gold contexts, alone or beside its own."""

from __future__ import annotations

import json
import textwrap
from typing import Any

import pytest
from gate_runs import assert_no_traceback, gate_run, write_config, write_jsonl

import pytest_ragas_gate.live.oracle  # noqa: F401
import pytest_ragas_gate.live.targets  # noqa: F401
import pytest_ragas_gate.plugin.activation  # noqa: F401
import pytest_ragas_gate.reports.json_report  # noqa: F401
from pytest_ragas_gate.gate.unevaluated import RETRIEVAL_NOT_EVALUATED

EIFFEL = "The Eiffel Tower was completed in 1889 for the World's Fair in Paris."
LOUVRE = "The Louvre is an art museum in Paris that opened in 1793."
QUESTION = "When was the Eiffel Tower completed?"

CASES: list[dict[str, Any]] = [
    {
        "id": "by-id",
        "question": QUESTION,
        "reference": "The Eiffel Tower was completed in 1889.",
        "relevant_context_ids": ["eiffel"],
    },
    {
        "id": "inline",
        "question": QUESTION,
        "reference": "The Eiffel Tower was completed in 1889.",
        "reference_contexts": [EIFFEL],
    },
]

# The system's own retriever fetches the wrong chunk, and its generator then invents a
# year; given the gold chunk, it answers from it.
TARGET = """
    RECEIVED = []

    def {name}(question, contexts=None):
        if contexts is None:
            return {{
                "answer": "The Eiffel Tower was completed in 1925.",
                "contexts": [{{"id": "louvre", "text": {louvre!r}}}],
            }}
        RECEIVED.append(list(contexts))
        return {{"answer": "The Eiffel Tower was completed in 1889.", "contexts": contexts}}
"""


#: How every run of this module gates: the offline judge on the oracle target.
OPTIONS: dict[str, Any] = {
    "judge": "offline",
    "cache": "off",
    "target": "oracle_app:answer",
    "disable": ("randomly",),
}


def write_app(pytester: pytest.Pytester, *, asynchronous: bool = False) -> None:
    source = textwrap.dedent(TARGET.format(name="answer", louvre=LOUVRE))
    if asynchronous:
        source = source.replace("def answer", "async def answer")
    pytester.makepyfile(oracle_app=source)
    corpus = [{"id": "eiffel", "text": EIFFEL}, {"id": "louvre", "text": LOUVRE}]
    (pytester.path / "corpus.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in corpus), encoding="utf-8"
    )


def test_both_reports_the_two_side_by_side_with_what_retrieval_costs(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", CASES)
    write_app(pytester)
    result, report = gate_run(
        pytester,
        "--rag-gate-oracle",
        "both",
        "--rag-gate-corpus",
        "corpus.jsonl",
        "--rag-gate-threshold",
        "oracle_faithfulness=0.9",
        **OPTIONS,
    )
    assert_no_traceback(result)
    metrics = report["metrics"]
    assert metrics["faithfulness"]["mean"] == 0.0
    assert metrics["oracle_faithfulness"]["mean"] == 1.0
    assert metrics["oracle_faithfulness"]["passed"] is True
    assert "oracle_context_recall" not in metrics
    result.stdout.fnmatch_lines(
        [
            "rag-gate: live mode — target oracle_app:answer (sync function), oracle retrieval: "
            "own retrieval and gold contexts",
            "oracle_faithfulness *1.000*0.90*PASS",
            "faithfulness 0.00 with your retriever, 1.00 with gold contexts: retrieval costs 1.00 "
            "(n=2 cases scored both ways)",
        ]
    )
    gaps = {gap["metric"]: gap for gap in report["oracle_gaps"]}
    assert gaps["faithfulness"] == {
        "metric": "faithfulness",
        "retriever": 0.0,
        "oracle": 1.0,
        "gap": 1.0,
        "n": 2,
    }
    # The retriever's failure is what the run blocks on, and the diagnosis says so.
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert {case["diagnosis"]["component"] for case in report["cases"]} == {"both"}


def test_case_and_tag_thresholds_of_oracle_contradiction_rate_are_maxima(
    pytester: pytest.Pytester,
) -> None:
    # Neither answer contradicts its contexts: 0.00 meets a maximum of 0.10 (read as a
    # minimum, it would fail as "0.00 < 0.10 (case min)").
    own = {"oracle_contradiction_rate": 0.1}
    write_jsonl(
        pytester, "golden.jsonl", [{**row, "tags": ["t"], "thresholds": own} for row in CASES]
    )
    write_app(pytester)
    write_config(pytester.path, tag_thresholds={"t": own})
    result, report = gate_run(
        pytester, "--rag-gate-oracle", "both", "--rag-gate-corpus", "corpus.jsonl", "-rA", **OPTIONS
    )
    assert_no_traceback(result)
    result.assert_outcomes(passed=2)
    assert "(case min)" not in result.stdout.str()
    assert [case["scores"]["oracle_contradiction_rate"] for case in report["cases"]] == [0.0, 0.0]
    assert [(tag["direction"], tag["passed"]) for tag in report["tags"]] == [("max", True)]
    assert "below their own thresholds" not in result.stdout.str()


def test_only_scores_the_generator_on_gold_contexts(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", CASES)
    write_app(pytester, asynchronous=True)
    result, report = gate_run(
        pytester, "--rag-gate-oracle", "--rag-gate-corpus", "corpus.jsonl", **OPTIONS
    )
    assert_no_traceback(result)
    # Every generation metric passes, but the retriever never ran: not a deploy decision.
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert report["verdict"] == "partial"
    assert report["not_evaluated"] == [RETRIEVAL_NOT_EVALUATED]
    assert set(report["metrics"]) <= {
        "faithfulness",
        "contradiction_rate",
        "answer_relevancy",
        "answer_correctness",
    }
    assert report["metrics"]["faithfulness"]["mean"] == 1.0
    for case in report["cases"]:
        assert case["contexts"] == [EIFFEL], case["id"]
    result.stdout.fnmatch_lines(
        [
            "*oracle retrieval: gold contexts only*",
            "retrieval not evaluated: live.oracle only answers every case from its gold contexts*",
            "RAG gate: PARTIAL",
            "Not a deploy decision — retrieval not evaluated: *",
        ]
    )
    assert "Safe to deploy" not in result.stdout.str()


def test_a_case_without_gold_contexts_is_an_error_naming_what_it_lacks(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", [CASES[0]])
    write_app(pytester)
    result, report = gate_run(pytester, "--rag-gate-oracle", **OPTIONS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    (case,) = report["cases"]
    assert case["error"] == (
        "golden.jsonl:1: case 'by-id' has no gold contexts for oracle retrieval; give it "
        "'reference_contexts', or pass the corpus its relevant_context_ids name with "
        "live.corpus."
    )
    assert report["verdict"] == "failed"


def test_an_unanswerable_case_has_empty_gold_contexts(pytester: pytest.Pytester) -> None:
    unanswerable = {
        "id": "no-answer",
        "question": "Who designed the Eiffel Tower's elevators?",
        "reference": "The documents do not say.",
        "reference_contexts": [],
    }
    write_jsonl(pytester, "golden.jsonl", [CASES[1], unanswerable])
    pytester.makepyfile(
        oracle_app=textwrap.dedent(
            """
            def answer(question, contexts=None):
                if contexts == []:
                    return {"answer": "The documents do not say.", "contexts": []}
                return {"answer": "The Eiffel Tower was completed in 1889.",
                        "contexts": contexts or []}
            """
        )
    )
    result, report = gate_run(pytester, "--rag-gate-oracle", "both", **OPTIONS)
    assert_no_traceback(result)
    cases = {case["id"]: case for case in report["cases"]}
    assert cases["no-answer"]["errors"] == {}
    assert cases["no-answer"]["scores"]["oracle_faithfulness"] is None


def test_a_target_that_cannot_take_contexts_is_a_usage_error(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", CASES)
    pytester.makepyfile(oracle_app="def answer(question):\n    return 'x'\n")
    result, _ = gate_run(pytester, "--rag-gate-oracle", "both", **OPTIONS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*Live-mode target oracle_app:answer cannot take gold contexts*contexts=None*"]
    )
    assert_no_traceback(result)


def test_a_bad_corpus_line_is_named(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", CASES)
    write_app(pytester)
    (pytester.path / "corpus.jsonl").write_text(
        json.dumps({"id": "eiffel", "text": EIFFEL}) + "\n" + json.dumps({"id": "x"}) + "\n",
        encoding="utf-8",
    )
    result, _ = gate_run(
        pytester, "--rag-gate-oracle", "--rag-gate-corpus", "corpus.jsonl", **OPTIONS
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*corpus.jsonl:2: field 'text' is missing; expected non-empty text.*"]
    )


def test_oracle_needs_a_live_target(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", CASES)
    result = pytester.runpytest("--rag-gate", "--rag-gate-oracle")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*live.oracle needs live mode*"])


# Four Eiffel cases have gold contexts and are answered identically both ways; two Louvre
# cases have none, and the system's own retriever makes their answers up.
PAIRED_TARGET = f"""
def answer(question, contexts=None):
    if contexts is not None or "Eiffel" in question:
        return {{"answer": "The Eiffel Tower was completed in 1889.",
                "contexts": contexts or [{EIFFEL!r}]}}
    return {{"answer": "The Louvre opened in 1925.", "contexts": [{LOUVRE!r}]}}
"""


def _paired_and_unpaired_cases() -> list[dict[str, Any]]:
    eiffel = [{**CASES[1], "id": f"eiffel-{index}"} for index in range(4)]
    louvre = [
        {
            "id": f"louvre-{index}",
            "question": "When did the Louvre open?",
            "reference": "The Louvre opened in 1793.",
        }
        for index in range(2)
    ]
    return [*eiffel, *louvre]


def test_both_measures_what_retrieval_costs_on_the_cases_scored_both_ways(
    pytester: pytest.Pytester,
) -> None:
    # Before: faithfulness over all 6 cases (0.67) against the oracle over the 4 with gold
    # contexts (1.00) said "retrieval costs 0.33" where the 4 comparable cases are identical.
    write_jsonl(pytester, "golden.jsonl", _paired_and_unpaired_cases())
    pytester.makepyfile(oracle_app=PAIRED_TARGET)
    result, report = gate_run(pytester, "--rag-gate-oracle", "both", **OPTIONS)
    assert_no_traceback(result)
    assert report["metrics"]["faithfulness"]["n"] == 6
    result.stdout.fnmatch_lines(
        [
            "faithfulness 1.00 with your retriever, 1.00 with gold contexts: retrieval costs "
            "0.00 (n=4 cases scored both ways)",
        ]
    )
    gaps = {gap["metric"]: gap for gap in report["oracle_gaps"]}
    assert gaps["faithfulness"]["gap"] == 0.0
    assert gaps["faithfulness"]["n"] == 4


def test_both_a_case_without_gold_contexts_is_not_applicable_for_oracle_metrics(
    pytester: pytest.Pytester,
) -> None:
    # Before: each oracle metric of such a case was an error with an internal traceback,
    # and the verdict read "judge unreliable".
    write_jsonl(pytester, "golden.jsonl", _paired_and_unpaired_cases())
    pytester.makepyfile(oracle_app=PAIRED_TARGET)
    result, report = gate_run(
        pytester, "--rag-gate-oracle", "both", "--rag-gate-threshold", "faithfulness=0.5", **OPTIONS
    )
    assert_no_traceback(result)
    assert "judge unreliable" not in result.stdout.str()
    cases = {case["id"]: case for case in report["cases"]}
    louvre = cases["louvre-0"]
    assert louvre["errors"] == {} and louvre["error"] is None
    oracle_metrics = [name for name in louvre["scores"] if name.startswith("oracle_")]
    assert oracle_metrics
    for name in oracle_metrics:
        assert louvre["scores"][name] is None
        assert louvre["reasons"][name] == (
            "golden.jsonl:5: case 'louvre-0' has no gold contexts for oracle retrieval; give "
            "it 'reference_contexts', or 'relevant_context_ids' and live.corpus."
        )
    assert report["metrics"]["oracle_faithfulness"]["not_applicable"] == 2
    assert report["error_rate"]["errored_cases"] == 0
    assert report["verdict"] == "passed", result.stdout.str()


def test_a_custom_metric_named_like_an_oracle_metric_is_refused(
    pytester: pytest.Pytester,
) -> None:
    # Before: the custom metric was silently replaced by the oracle one.
    write_jsonl(pytester, "golden.jsonl", CASES)
    write_app(pytester)
    pytester.makeconftest(
        """
        from pytest_ragas_gate import MetricResult

        class Clash:
            name = "oracle_faithfulness"
            required_fields = ("answer",)
            default_threshold = None

            async def score(self, case, judge):
                return MetricResult(score=1.0)

        def pytest_rag_gate_metrics():
            return [Clash()]
        """
    )
    result, _ = gate_run(
        pytester, "--rag-gate-oracle", "both", "--rag-gate-corpus", "corpus.jsonl", **OPTIONS
    )
    assert_no_traceback(result)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*not a metric: its name starts with 'oracle_', which is reserved for the gold-context*"]
    )
