"""End to end: live mode (--rag-gate-target), latency budgets, alignment, custom metrics."""

from __future__ import annotations

import shutil
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import hypothesis.statistics  # noqa: F401
import pytest
from gate_runs import GOOD, gate_run, write_config, write_jsonl

import pytest_ragas_gate.judges.offline.judge  # noqa: F401
import pytest_ragas_gate.live.targets  # noqa: F401
import pytest_ragas_gate.metrics.tool_selection  # noqa: F401
import pytest_ragas_gate.plugin.activation  # noqa: F401
import pytest_ragas_gate.plugin.custom_metrics  # noqa: F401
import pytest_ragas_gate.plugin.items  # noqa: F401
import pytest_ragas_gate.plugin.terminal  # noqa: F401
import pytest_ragas_gate.reports.json_report  # noqa: F401
import pytest_ragas_gate.reports.junit  # noqa: F401
import pytest_ragas_gate.scoring.judge_factory  # noqa: F401
from pytest_ragas_gate.gate.deploy_decision import SMOKE_CHECK

# pytester's in-process runs drop every module first imported during a run; imported once
# here, the gate's modules (and hypothesis, whose plugin imports it late) are not imported
# again for every run.

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

FACTS = {
    "apple": (
        "Who founded Apple?",
        "Apple was founded in 1976 by Steve Jobs and Steve Wozniak.",
    ),
    "eiffel": (
        "When was the Eiffel Tower completed?",
        "The Eiffel Tower was completed in 1889 for the World's Fair in Paris.",
    ),
    "nile": (
        "How long is the Nile?",
        "The Nile is about 6650 kilometres long.",
    ),
}

# The system under test, written beside the golden set: it "retrieves" the fact and a
# distractor, in rank order, and answers with the fact.
RAG_MODULE = """
    import asyncio
    import time

    FACTS = {facts!r}
    BY_QUESTION = {{question: (key, text) for key, (question, text) in FACTS.items()}}
    DISTRACTOR = "Bananas are rich in potassium."

    def lookup(question):
        key, text = BY_QUESTION[question]
        return key, text, [{{"id": key, "text": text}}, {{"id": "banana", "text": DISTRACTOR}}]
"""


#: Live runs answer every case again: no cache.
OPTIONS: dict[str, Any] = {"cache": "off"}


def questions(*keys: str, **extra: Any) -> list[dict[str, object]]:
    return [
        {
            "id": key,
            "question": FACTS[key][0],
            "reference": FACTS[key][1],
            "relevant_context_ids": [key],
            **extra,
        }
        for key in keys
    ]


def write_target(pytester: pytest.Pytester, body: str, name: str = "rag_target") -> None:
    source = textwrap.dedent(RAG_MODULE.format(facts=FACTS)) + textwrap.dedent(body)
    (pytester.path / f"{name}.py").write_text(source, encoding="utf-8")


def cases_by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {case["id"]: case for case in report["cases"]}


# --- targets ------------------------------------------------------------------------------


def test_sync_target_answers_every_case_and_the_report_keeps_its_output(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", questions("apple", "eiffel", "nile"))
    write_target(
        pytester,
        """
        def answer(question):
            key, text, contexts = lookup(question)
            return {"answer": text, "contexts": contexts}
        """,
    )
    result, report = gate_run(pytester, "--rag-gate-target", "rag_target:answer", "-v", **OPTIONS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "rag-gate: live mode — target rag_target:answer (sync function)",
            "*::apple PASSED faithfulness=1.00*id_recall=1.00*",
            "latency p95 * report",
            "latency: p50 *ms · p95 *ms · max *ms (n=3)",
            "RAG gate: PASSED",
        ]
    )
    apple = cases_by_id(report)["apple"]
    assert apple["answer"] == FACTS["apple"][1]
    assert apple["contexts"] == [FACTS["apple"][1], "Bananas are rich in potassium."]
    assert apple["latency_s"] is not None and apple["latency_s"] >= 0
    assert report["latency"]["n"] == 3 and report["latency"]["passed"] is None


def test_async_target_gets_the_case_and_runs_concurrently(pytester: pytest.Pytester) -> None:
    keys = ["apple", "eiffel", "nile"] * 2
    rows = [{**row, "id": f"{row['id']}-{n}"} for n, row in enumerate(questions(*keys))]
    write_jsonl(pytester, "golden.jsonl", rows)
    write_target(
        pytester,
        """
        import pathlib
        in_flight = 0

        async def answer(question, case):
            global in_flight
            in_flight += 1
            peak = pathlib.Path("peak.txt")
            seen = int(peak.read_text()) if peak.exists() else 0
            peak.write_text(str(max(seen, in_flight)))
            await asyncio.sleep(0.05)
            in_flight -= 1
            key, text, contexts = lookup(question)
            return (f"{text}", [c["text"] for c in contexts]) if case.id else None
        """,
    )
    result, report = gate_run(pytester, "--rag-gate-target", "rag_target:answer", **OPTIONS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["rag-gate: live mode — target rag_target:answer (async*"])
    assert int((pytester.path / "peak.txt").read_text()) > 1
    assert all(case["scores"]["faithfulness"] == 1.0 for case in report["cases"])


def test_langchain_like_runnable_is_used_by_duck_typing(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", questions("apple", "eiffel"))
    write_target(
        pytester,
        """
        class Document:
            def __init__(self, page_content, metadata):
                self.page_content = page_content
                self.metadata = metadata

        class RetrievalQA:
            input_keys = ["query"]

            def invoke(self, inputs):
                key, text, contexts = lookup(inputs["query"])
                docs = [Document(c["text"], {"id": c["id"]}) for c in contexts]
                return {"query": inputs["query"], "result": text, "source_documents": docs}

        chain = RetrievalQA()
        """,
    )
    result, report = gate_run(pytester, "--rag-gate-target", "rag_target:chain", **OPTIONS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["*target rag_target:chain (sync runnable)"])
    assert cases_by_id(report)["eiffel"]["scores"]["id_recall"] == 1.0
    assert cases_by_id(report)["eiffel"]["answer"] == FACTS["eiffel"][1]


def test_llamaindex_like_query_engine_is_used_by_duck_typing(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", questions("apple", "nile"))
    write_target(
        pytester,
        """
        class TextNode:
            def __init__(self, text, id_):
                self.text, self.id_ = text, id_
            def get_content(self):
                return self.text
            @property
            def node_id(self):
                return self.id_

        class NodeWithScore:
            def __init__(self, node, score):
                self.node, self.score = node, score

        class Response:
            def __init__(self, response, source_nodes):
                self.response, self.source_nodes = response, source_nodes

        class QueryEngine:
            async def aquery(self, question):
                key, text, contexts = lookup(question)
                nodes = [NodeWithScore(TextNode(c["text"], c["id"]), 0.9) for c in contexts]
                return Response(text, nodes)

        engine = QueryEngine()
        """,
    )
    result, report = gate_run(pytester, "--rag-gate-target", "rag_target:engine", **OPTIONS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["*target rag_target:engine (async query engine)"])
    nile = cases_by_id(report)["nile"]
    assert nile["scores"]["mrr"] == 1.0
    assert nile["contexts"][0] == FACTS["nile"][1]


def test_target_that_raises_errors_its_case_only_and_fails_closed(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", questions("apple", "eiffel", "nile"))
    write_target(
        pytester,
        """
        def answer(question):
            key, text, contexts = lookup(question)
            if key == "eiffel":
                raise RuntimeError("vector store timed out")
            return {"answer": text, "contexts": contexts}
        """,
    )
    result, report = gate_run(pytester, "--rag-gate-target", "rag_target:answer", **OPTIONS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*target rag_target:answer raised RuntimeError: vector store timed out "
            "(case 'eiffel', golden.jsonl:2)",
            "*Traceback (most recent call last):",
            '*rag_target.py", line *, in answer',
            "*RuntimeError: vector store timed out",
        ]
    )
    result.stdout.fnmatch_lines(["FAILED 1 of 3 case(s) errored*", "RAG gate: FAILED"])
    eiffel = cases_by_id(report)["eiffel"]
    assert eiffel["error"].startswith("target rag_target:answer raised RuntimeError")
    assert "targets.py" not in eiffel["error"]
    assert cases_by_id(report)["apple"]["scores"]["faithfulness"] == 1.0


def test_unreadable_output_is_an_error_of_the_case(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", questions("apple"))
    write_target(pytester, "def answer(question):\n    return {'text': 42}\n")
    result, _ = gate_run(pytester, "--rag-gate-target", "rag_target:answer", **OPTIONS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*The target returned a mapping with keys ?'text'?*"])


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "no_such_rag:answer",
            "*target 'no_such_rag:answer' cannot be imported: there is no "
            "module named 'no_such_rag'*",
        ),
        ("rag_target:anwser", "*'rag_target' has no attribute 'anwser'; did you mean 'answer'?"),
        ("rag_target:FACTS", "*target 'rag_target:FACTS' is a dict, which cannot be called*"),
        ("rag_target", "*'rag_target' is not MODULE:FUNCTION*"),
    ],
)
def test_bad_target_is_a_usage_error(pytester: pytest.Pytester, spec: str, message: str) -> None:
    write_jsonl(pytester, "golden.jsonl", questions("apple"))
    write_target(pytester, "def answer(question):\n    return 'x'\n")
    result, _ = gate_run(pytester, "--rag-gate-target", spec, **OPTIONS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


@pytest.mark.slow
def test_conftest_hook_target_works_under_xdist_like_a_serial_run(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", questions("apple", "eiffel", "nile", tags=["x"]))
    write_target(
        pytester,
        """
        def answer(question, case=None):
            key, text, contexts = lookup(question)
            return {"response": text, "retrieved_contexts": contexts}
        """,
    )
    pytester.makeconftest(
        """
        import rag_target

        def pytest_rag_gate_target(config):
            return rag_target.answer
        """
    )
    pytester.syspathinsert()
    serial, serial_report = gate_run(pytester, "-p", "no:xdist", **OPTIONS)
    parallel, parallel_report = gate_run(pytester, "-n", "2", **OPTIONS)
    assert serial.ret == parallel.ret == pytest.ExitCode.OK, parallel.stdout.str()
    parallel.stdout.fnmatch_lines(["*live mode — target pytest_rag_gate_target hook*"])
    assert parallel_report["metrics"] == serial_report["metrics"]
    strip = lambda report: {  # noqa: E731
        case["id"]: {k: v for k, v in case.items() if k not in ("scoring_s", "latency_s")}
        for case in report["cases"]
    }
    assert strip(parallel_report) == strip(serial_report)


def test_a_configured_target_takes_precedence_over_the_hook(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", questions("apple"))
    write_target(
        pytester,
        """
        def answer(question):
            key, text, contexts = lookup(question)
            return {"answer": text, "contexts": contexts}

        def from_hook(question):
            return {"answer": "The hook's answer.", "contexts": ["The hook's context."]}
        """,
    )
    pytester.makeconftest(
        """
        import rag_target

        def pytest_rag_gate_target(config):
            return rag_target.from_hook
        """
    )
    pytester.syspathinsert()
    result, report = gate_run(pytester, "--rag-gate-target", "rag_target:answer", **OPTIONS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["*live mode — target rag_target:answer*"])
    (case,) = report["cases"]
    assert case["answer"] != "The hook's answer."


# --- latency ------------------------------------------------------------------------------

SLOW_TARGET = """
    def answer(question):
        key, text, contexts = lookup(question)
        time.sleep(0.3 if key == "nile" else 0.0)
        return {"answer": text, "contexts": contexts}
"""


@pytest.mark.slow
def test_latency_budget_passes_and_fails(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", questions("apple", "eiffel", "nile"))
    write_target(pytester, SLOW_TARGET)
    (pytester.path / "rag_gate.yaml").write_text(
        "target: rag_target:answer\nlatency: {p50: 0.2, max: 5.0}\n", encoding="utf-8"
    )
    passing, report = gate_run(pytester, **OPTIONS)
    assert passing.ret == pytest.ExitCode.OK, passing.stdout.str()
    passing.stdout.fnmatch_lines(["latency p50 *≤0.20s * 3 * PASS", "latency max *≤5.00s*PASS"])
    assert report["latency"]["passed"] is True

    (pytester.path / "rag_gate.yaml").write_text(
        "target: rag_target:answer\nlatency: {p50: 0.2, max: 0.25}\n", encoding="utf-8"
    )
    summary = pytester.path / "summary.md"
    with pytest.MonkeyPatch.context() as env:
        env.setenv("GITHUB_STEP_SUMMARY", str(summary))
        failing, report = gate_run(pytester, "--rag-gate-junit", "gate.xml", **OPTIONS)
    assert failing.ret == pytest.ExitCode.TESTS_FAILED
    failing.assert_outcomes(passed=3)
    failing.stdout.fnmatch_lines(
        [
            "latency max * FAIL",
            "FAILED latency max 0.3?s > 0.25s (n=3)",
            "RAG gate: FAILED",
            "Block deployment — latency over budget: max",
            "*hint (latency):*",
        ]
    )
    assert report["latency"]["passed"] is False
    assert report["failures"][0].startswith("latency max 0.3")
    markdown = summary.read_text(encoding="utf-8")
    assert "| `latency p50` | " in markdown and "| ≤0.20s | — | 3 | — | — | ✅ pass |" in markdown
    assert "| ≤0.25s | — | 3 | — | — | ❌ fail |" in markdown
    gate_suite = {
        case.get("name"): case
        for case in ET.parse(pytester.path / "gate.xml").getroot().iter("testcase")
        if case.get("classname") == "rag-gate"
    }
    assert gate_suite["latency:p50"].find("failure") is None
    failure = gate_suite["latency:max"].find("failure")
    assert failure is not None and failure.get("message", "").startswith("latency max 0.3")
    limits = {p.get("name"): p.get("value") for p in gate_suite["latency:max"].iter("property")}
    assert limits["limit"] == "0.2500" and limits["n"] == "3"


def test_latency_budget_without_live_mode_fails_closed(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    (pytester.path / "rag_gate.yaml").write_text("latency: {p95: 2}\n", encoding="utf-8")
    result, _ = gate_run(pytester, **OPTIONS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAILED latency p95 has no measured cases (n=0)*live mode*"])


def test_unknown_latency_statistic_is_a_usage_error(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    (pytester.path / "rag_gate.yaml").write_text("latency: {p96: 2}\n", encoding="utf-8")
    result, _ = gate_run(pytester, **OPTIONS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*'live.latency' from rag_gate.yaml:1: unknown latency statistic 'p96'*"]
    )


# --- retriever-generator alignment ----------------------------------------------------------


def test_ignored_top_ranked_alarm_and_top_doc_usage_threshold(pytester: pytest.Pytester) -> None:
    ignored = {
        "question": "When was the Eiffel Tower completed?",
        "answer": "The Eiffel Tower was completed in 1889.",
        "contexts": [
            "Bananas are rich in potassium and grow in tropical climates.",
            "The Eiffel Tower was completed in 1889 for the World's Fair in Paris.",
        ],
    }
    rows = [{**GOOD, "id": "used"}, {**ignored, "id": "ignored-1"}, {**ignored, "id": "ignored-2"}]
    write_jsonl(pytester, "golden.jsonl", rows)
    summary = pytester.path / "summary.md"
    with pytest.MonkeyPatch.context() as env:
        env.setenv("GITHUB_STEP_SUMMARY", str(summary))
        result, report = gate_run(
            pytester,
            "--rag-gate-metrics",
            "top_doc_usage",
            "--rag-gate-threshold",
            "top_doc_usage=0.7",
            "--rag-gate-junit",
            "gate.xml",
            **OPTIONS,
        )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "top_doc_usage*0.333*0.70*mean*3*FAIL",
            "ignored top-ranked document: 67% of cases (alarm above 30%) — ALARM: retriever and "
            "generator disagree",
            "FAILED top_doc_usage mean 0.33 < 0.70 (n=3*",
            "Block deployment — 1 metric(s) below threshold: top_doc_usage; "
            "2 ranking failures: fix the ranking first",
        ]
    )
    alignment = report["alignment"]
    assert alignment["alarm"] is True and alignment["alarm_above"] == 0.3
    assert alignment["rate"] == pytest.approx(2 / 3) and alignment["n"] == 3
    assert report["metrics"]["top_doc_usage"]["threshold"] == 0.7
    assert "⚠️ Alignment: ignored top-ranked document: 67% of cases" in summary.read_text(
        encoding="utf-8"
    )
    (alarm,) = [
        case
        for case in ET.parse(pytester.path / "gate.xml").getroot().iter("testcase")
        if case.get("name") == "ignored_top_ranked"
    ]
    properties = {p.get("name"): p.get("value") for p in alarm.iter("property")}
    assert properties["alarm"] == "true" and properties["rate"] == "0.6667"


# --- custom metrics -----------------------------------------------------------------------

CUSTOM_METRIC = """
    from pytest_ragas_gate import MetricResult


    class AnswerLength:
        name = "short_answer"
        required_fields = ("answer",)
        default_threshold = {default}

        async def score(self, case, judge):
            return MetricResult(score=1.0 if len(case.answer) < 60 else 0.0)
"""


def write_dist_info(site: Path) -> None:
    site.mkdir()
    (site / "short_metric.py").write_text(
        textwrap.dedent(CUSTOM_METRIC.format(default=0.9)), encoding="utf-8"
    )
    dist = site / "short_metric-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: short-metric\nVersion: 1.0\n", encoding="utf-8"
    )
    (dist / "entry_points.txt").write_text(
        "[pytest_ragas_gate.metrics]\nshort_answer = short_metric:AnswerLength\n",
        encoding="utf-8",
    )


def test_entry_point_metric_runs_and_its_default_threshold_gates(
    pytester: pytest.Pytester,
) -> None:
    write_dist_info(pytester.path / "site")
    pytester.syspathinsert(pytester.path / "site")
    long_answer = {
        **GOOD,
        "id": "long",
        "answer": GOOD["answer"] + " It is now based in Cupertino.",
    }
    write_jsonl(pytester, "golden.jsonl", [{**GOOD, "id": "short"}, long_answer])
    result, report = gate_run(
        pytester, "--rag-gate-metrics", "short_answer,faithfulness", **OPTIONS
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.stdout.fnmatch_lines(
        ["rag-gate: thresholds *short_answer>=0.90*", "FAILED short_answer mean 0.50 < 0.90 (n=2*"]
    )
    assert cases_by_id(report)["short"]["scores"]["short_answer"] == 1.0

    overridden, _ = gate_run(
        pytester,
        "--rag-gate-metrics",
        "short_answer",
        "--rag-gate-threshold",
        "short_answer=0.5",
        **OPTIONS,
    )
    assert overridden.ret == pytest.ExitCode.OK, overridden.stdout.str()


def test_conftest_metric_is_registered_by_the_hook(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [{**GOOD, "id": "short"}])
    pytester.makeconftest(
        textwrap.dedent(CUSTOM_METRIC.format(default=None))
        + "\n\ndef pytest_rag_gate_metrics():\n    return [AnswerLength()]\n"
    )
    result, report = gate_run(pytester, "-v", "--rag-gate-threshold", "short_answer=1.0", **OPTIONS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["*::short PASSED *short_answer=1.00*", "short_answer*1.00*PASS"])
    assert report["metrics"]["short_answer"]["passed"] is True


def test_conftest_metric_that_is_not_a_metric_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    pytester.makeconftest(
        """
        class Faithful:
            name = "faithfulness"
            required_fields = ("answer",)
            default_threshold = None
            async def score(self, case, judge):
                return None

        class Sync:
            name = "sync"
            required_fields = ("answer",)
            default_threshold = 2
            def score(self, case, judge):
                return None

        def pytest_rag_gate_metrics(config):
            return [Sync()] if config.getoption("keyword") else [Faithful()]
        """
    )
    clash, _ = gate_run(pytester, **OPTIONS)
    assert clash.ret == pytest.ExitCode.USAGE_ERROR
    clash.stderr.fnmatch_lines(["*metric 'faithfulness', but a built-in metric of that name*"])
    invalid, _ = gate_run(pytester, "-k", "x", **OPTIONS)
    assert invalid.ret == pytest.ExitCode.USAGE_ERROR
    invalid.stderr.fnmatch_lines(
        ["*default_threshold must be None or a number from 0 to 1; its score(case, judge) must*"]
    )


# --- tool selection -----------------------------------------------------------------------


def test_tool_selection_scores_the_chosen_tool(pytester: pytest.Pytester) -> None:
    rows = [
        *questions("apple", "eiffel", expected_tool="search"),
        *questions("nile", expected_tool=["geo", "atlas"]),
        {**questions("apple")[0], "id": "no-expectation"},
    ]
    write_jsonl(pytester, "golden.jsonl", rows)
    # The case without an expectation is n/a on purpose: 3 of 4 is coverage enough here.
    write_config(pytester.path, min_coverage=0.5)
    write_target(
        pytester,
        """
        from dataclasses import dataclass

        @dataclass
        class Output:
            answer: str
            contexts: list
            tool: object

        class Tool:
            def __init__(self, name):
                self.name = name

        def answer(question):
            key, text, contexts = lookup(question)
            tool = {"apple": "search", "eiffel": "sql", "nile": Tool("atlas")}[key]
            return Output(text, contexts, tool)
        """,
    )
    result, report = gate_run(
        pytester,
        "--rag-gate-target",
        "rag_target:answer",
        "--rag-gate-threshold",
        "tool_selection=0.9",
        **OPTIONS,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["tool_selection*0.667*0.90*mean*3*1*0*FAIL", "FAILED tool_selection mean 0.67 < 0.90*"]
    )
    by_id = cases_by_id(report)
    assert by_id["eiffel"]["scores"]["tool_selection"] == 0.0
    assert by_id["eiffel"]["reasons"]["tool_selection"] == "chose 'sql', expected 'search'"
    assert by_id["nile"]["scores"]["tool_selection"] == 1.0
    # A gated metric is scored on every case: one without an expectation is n/a, and says why.
    assert by_id["no-expectation"]["scores"]["tool_selection"] is None
    assert by_id["no-expectation"]["reasons"]["tool_selection"] == "no expected_tool"


# --- the documented examples ----------------------------------------------------------------


@pytest.mark.parametrize("example", ["live", "custom_metric"])
def test_documented_example_runs(pytester: pytest.Pytester, example: str) -> None:
    shutil.copytree(EXAMPLES / example, pytester.path / example)
    result = pytester.runpytest("--rag-gate", "--rag-gate-cache", "off", example)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["RAG gate: PASSED", SMOKE_CHECK])
