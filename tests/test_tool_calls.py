"""An agent's tool calls: loaded in DeepEval's shapes, scored without a judge, diagnosed.

``data/peers/deepeval/tools-called-deepeval-4.3.1.json`` was written by DeepEval 4.3.1's
own ``EvaluationDataset(goldens=[Golden(..., tools_called=[ToolCall(...)],
expected_tools=[ToolCall(...)])]).save_as(file_type="json", ...)``: DeepEval saves a
call's arguments as ``inputParameters`` and adds its ``type``.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any, cast

import pytest
from gate_runs import GOOD, gate_run

from pytest_ragas_gate.gate.diagnosis import diagnose, summarise_diagnoses
from pytest_ragas_gate.golden.cases import GoldenCase
from pytest_ragas_gate.golden.golden_fields import RawCase, validate_rows
from pytest_ragas_gate.golden.tool_calls import ExpectedTool, ToolCall
from pytest_ragas_gate.judges.base import CaseJudge
from pytest_ragas_gate.metrics.base import Metric, MetricResult
from pytest_ragas_gate.metrics.tool_calls import (
    MaxSteps,
    ToolCallPrecision,
    ToolCorrectness,
    ToolOrder,
)
from pytest_ragas_gate.metrics.tool_selection import ToolSelection
from pytest_ragas_gate.scoring.results import CaseResult

DEEPEVAL_GOLDENS = Path(__file__).parent / "data/peers/deepeval/tools-called-deepeval-4.3.1.json"


def load(row: dict[str, Any]) -> tuple[list[GoldenCase], list[str]]:
    cases, problems = validate_rows("agent.jsonl", [RawCase(4, row)])
    return cases, [problem.message for problem in problems]


def case(calls: list[Any] | None, expected: list[Any] | None = None, **extra: Any) -> GoldenCase:
    row: dict[str, Any] = {"question": "Refund order 7?", **extra}
    if calls is not None:
        row["tools_called"] = calls
    if expected is not None:
        row["expected_tools"] = expected
    cases, problems = load(row)
    assert problems == []
    return cases[0]


def score(metric: Metric, scored: GoldenCase) -> MetricResult:
    return asyncio.run(metric.score(scored, cast(CaseJudge, None)))


# --- loading --------------------------------------------------------------------------------


def test_deepeval_saved_tool_calls_load_with_their_arguments_and_outputs() -> None:
    rows = json.loads(DEEPEVAL_GOLDENS.read_text(encoding="utf-8"))
    cases, problems = validate_rows("agent.json", [RawCase(n, row) for n, row in enumerate(rows)])
    assert problems == []
    order = cases[1]
    assert order.tools_called == [
        ToolCall(
            name="search_docs", input_parameters={"query": "order 42"}, output=[], type="FUNCTION"
        ),
        ToolCall(
            name="lookup_order",
            input_parameters={"order_id": 42},
            output={"status": "shipped", "date": "3 May"},
            type="FUNCTION",
        ),
    ]
    assert order.expected_tools == [
        ExpectedTool(name="lookup_order", input_parameters={"order_id": 42}, type="FUNCTION")
    ]
    assert cases[0].tools_called is not None
    assert cases[0].tools_called[0].reasoning == "The question is about company history."


def test_tool_calls_by_name_and_openai_style_arguments() -> None:
    loaded = case(
        ["search", {"name": "fetch", "arguments": '{"id": 7}'}],
        [{"name": "fetch", "input_parameters": {"id": 7}, "match": "subset", "order": 2}],
        max_steps="3",
    )
    assert loaded.tools_called == [
        ToolCall(name="search"),
        ToolCall(name="fetch", input_parameters={"id": 7}),
    ]
    assert loaded.expected_tools == [
        ExpectedTool(name="fetch", input_parameters={"id": 7}, match="subset", order=2)
    ]
    # A step budget gates as the case's own threshold of max_steps.
    assert (loaded.max_steps, loaded.thresholds) == (3, {"max_steps": 1.0})


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            {"tools_called": "search"},
            "agent.jsonl:4: field 'tools_called': expected a list of tool names or {name, "
            "input_parameters, output} objects, got str",
        ),
        (
            {"tools_called": [{"input_parameters": {}}]},
            "agent.jsonl:4: field 'tools_called': item 1: 'name' expected the tool's name, "
            "got None",
        ),
        (
            {"tools_called": [{"name": "a", "params": {}}]},
            "agent.jsonl:4: field 'tools_called': item 1: unknown key 'params'; a tool call has "
            "args, arguments, description, input_parameters, name, output, reasoning, type",
        ),
        (
            {"tools_called": [{"name": "a", "arguments": "{not json"}]},
            "agent.jsonl:4: field 'tools_called': item 1: 'arguments' expected an object of "
            "argument names and values",
        ),
        (
            {"tools_called": [{"name": "a", "arguments": {}, "input_parameters": {}}]},
            "agent.jsonl:4: field 'tools_called': item 1: the arguments are given twice, as "
            "'input_parameters' and 'arguments'; keep one",
        ),
        (
            {"expected_tools": [{"name": "a", "match": "loose"}]},
            "agent.jsonl:4: field 'expected_tools': item 1: 'match' expected exact or subset, "
            "got 'loose'",
        ),
        (
            {"expected_tools": [{"name": "a", "order": "first"}]},
            "agent.jsonl:4: field 'expected_tools': item 1: 'order' expected a whole number (the "
            "call's place in the expected order), got 'first'",
        ),
        (
            {"max_steps": -1},
            "agent.jsonl:4: field 'max_steps': expected the most tool calls the case may make (a "
            "whole number, 0 or more), got -1",
        ),
        (
            {
                "turns": [{"role": "user", "content": "Q?"}, {"role": "assistant", "content": "A"}],
                "tools_called": ["search"],
            },
            "agent.jsonl:4: field 'tools_called': a conversation's tool calls are made by its "
            "assistant turns; give each turn's calls as 'turns[i].tools_called' (RAGAS: an ai "
            "message's tool_calls)",
        ),
        (
            {"contexts": [{"text": "a", "hop": 0}]},
            "agent.jsonl:4: field 'contexts': item 1: 'hop' expected the 1-based number of the "
            "retrieval call that returned it, got 0",
        ),
    ],
)
def test_a_malformed_tool_field_is_an_error_naming_file_line_and_field(
    row: dict[str, Any], message: str
) -> None:
    cases, problems = load(row if "turns" in row else {"question": "Q?", **row})
    assert (cases, problems) == ([], [message])


# --- metrics: exact vectors -----------------------------------------------------------------

CALLS = [
    {"name": "search", "input_parameters": {"q": "refunds", "k": 5}},
    {"name": "lookup", "input_parameters": {"order_id": 8}},
    {"name": "refund", "input_parameters": {"order_id": 7}},
    {"name": "search", "input_parameters": {"q": "refunds"}},
]


def test_tool_correctness_counts_expected_calls_made_with_their_arguments() -> None:
    expected = [
        {"name": "search", "input_parameters": {"q": "refunds"}},
        {"name": "lookup", "input_parameters": {"order_id": 7}},
        {"name": "refund"},
    ]
    result = score(ToolCorrectness(), case(CALLS, expected))
    assert result.score == pytest.approx(2 / 3)
    assert [detail["call"] for detail in result.details] == [4, None, 3]
    assert result.reason == (
        "2 of 3 expected tool calls made; missing lookup(order_id=7) (called with other "
        "arguments: {'order_id': 8})"
    )
    # As a subset, the first search call's extra 'k' is allowed; each call still stands
    # for one expected call only.
    subset = [{**expected[0], "match": "subset"}, expected[0], {"name": "missing"}]
    assert score(ToolCorrectness(), case(CALLS, subset)).score == pytest.approx(2 / 3)
    assert score(ToolCorrectness(), case([], [{"name": "search"}])).score == 0.0
    assert score(ToolCorrectness(), case(None, [{"name": "search"}])).score is None


def test_tool_order_scores_the_longest_run_in_the_expected_order() -> None:
    calls = ["b", "c", "a", "d"]
    assert score(ToolOrder(), case(calls, ["a", "b", "c"])).score == pytest.approx(2 / 3)
    assert score(ToolOrder(), case(calls, ["b", "c", "d"])).score == 1.0
    assert score(ToolOrder(), case(calls, ["d", "a"])).score == 0.5
    # Only the expected tools with an 'order' are ordered, by it.
    placed = [{"name": "a", "order": 2}, {"name": "x"}, {"name": "d", "order": 3}, "b"]
    result = score(ToolOrder(), case(calls, placed))
    assert result.score == 1.0
    assert [detail["expected"] for detail in result.details] == ["a", "d"]
    assert score(ToolOrder(), case(calls, ["a"])).score is None


def test_tool_call_precision_is_the_share_of_calls_expected() -> None:
    result = score(ToolCallPrecision(), case(["a", "a", "b", "x"], ["a", "b"]))
    assert result.score == 0.5
    assert result.reason == "2 of 4 tool calls expected; not expected: a, x"
    assert score(ToolCallPrecision(), case([], ["a"])).score is None


def test_max_steps_is_met_up_to_the_case_budget() -> None:
    assert score(MaxSteps(), case(["a", "b"], max_steps=2)).score == 1.0
    over = score(MaxSteps(), case(["a", "b", "c"], max_steps=2))
    assert (over.score, over.reason) == (0.0, "3 tool calls, over max_steps 2")


def test_tool_selection_is_the_single_tool_case_of_tool_correctness() -> None:
    assert score(ToolSelection(), case(["search", "sql"], expected_tool="sql")).score == 1.0
    missed = score(ToolSelection(), case(["search"], expected_tool=["sql", "atlas"]))
    assert (missed.score, missed.reason) == (0.0, "called 'search', expected 'sql' or 'atlas'")
    # A reported 'tool' still decides, as before.
    both = case(["sql"], expected_tool="sql", metadata={"tool": "search"})
    assert score(ToolSelection(), both).score == 0.0


# --- diagnosis ------------------------------------------------------------------------------


def scored(**scores: float) -> CaseResult:
    return CaseResult(id="c", source="g.jsonl:1", question="q?", scores=dict(scores))


def test_a_wrong_tool_call_is_diagnosed_ahead_of_retrieval_and_generation() -> None:
    found = diagnose(scored(tool_correctness=0.5, context_recall=0.2, faithfulness=0.3), {})
    assert found is not None
    assert found.component == "tool call"
    assert found.reasons == [
        "tool_correctness 0.50 < 1.00",
        "context_recall 0.20 < 0.80",
        "faithfulness 0.30 < 0.85",
    ]
    summary = summarise_diagnoses(
        [
            found,
            diagnose(scored(context_recall=0.2), {}),
            diagnose(scored(max_steps=0.0), {}),
            diagnose(scored(tool_call_precision=0.5, faithfulness=1.0), {}),
        ]
    )
    assert summary.counts["tool call"] == 2
    assert summary.dominant == "tool call"
    assert summary.failures == "2 tool call failures, 1 retrieval failure"
    assert summary.advice == "fix the tool calls first"


# --- end to end -----------------------------------------------------------------------------


def test_deepeval_saved_goldens_with_tool_calls_gate_unconverted(
    pytester: pytest.Pytester,
) -> None:
    shutil.copy(DEEPEVAL_GOLDENS, pytester.path / "agent.json")
    result, report = gate_run(
        pytester,
        "agent.json",
        "--rag-gate-threshold=tool_correctness=0.9",
        "--rag-gate-threshold=faithfulness=0.5",
        judge="offline",
        metrics="faithfulness,tool_correctness,tool_order,tool_call_precision",
        cache="off",
        disable=("randomly",),
    )
    output = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, output
    assert "unknown key 'tools_called'" not in output
    result.stdout.fnmatch_lines(
        [
            "tool_correctness*0.778*0.90*mean*3*0*0*FAIL",
            "tool_order*0.333*-*-*1*2*0*report",
            "tool_call_precision*0.833*-*-*3*0*0*report",
            "what to fix  tool call  retrieval  generation  both  ranking  ok",
            "cases        1          0          0           0     0        2",
            "fix the tool calls first: *",
            "FAILED tool_correctness mean 0.78 < 0.90*",
            "RAG gate: FAILED",
        ]
    )
    assert report is not None
    refund = report["cases"][2]
    assert refund["diagnosis"]["component"] == "tool call"
    assert refund["reasons"]["tool_correctness"] == (
        "1 of 3 expected tool calls made; missing lookup_order(order_id=7) (not called); "
        "issue_refund(order_id=7) (not called)"
    )
    assert report["cases"][1]["scores"]["tool_call_precision"] == 0.5
    # Each expected call's verdict is kept in the report, for the case panel.
    assert [detail["called"] for detail in refund["details"]["tool_correctness"]] == [
        False,
        False,
        True,
    ]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def test_a_case_over_its_max_steps_fails_its_own_threshold(pytester: pytest.Pytester) -> None:
    looping = {**GOOD, "id": "looping", "tools_called": ["search"] * 4, "max_steps": 3}
    brief = {**GOOD, "id": "brief", "question": "When?", "tools_called": ["search"], "max_steps": 3}
    write_jsonl(pytester.path / "golden.jsonl", [looping, brief])
    result, report = gate_run(
        pytester, "golden.jsonl", judge="offline", metrics="faithfulness,max_steps", cache="off"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.stdout.fnmatch_lines(["*1 case(s) below their own thresholds: looping*"])
    assert report is not None
    by_id = {row["id"]: row for row in report["cases"]}
    assert by_id["looping"]["reasons"]["max_steps"] == "4 tool calls, over max_steps 3"
    assert by_id["brief"]["scores"]["max_steps"] == 1.0


def test_a_live_target_reports_its_tool_calls(pytester: pytest.Pytester) -> None:
    write_jsonl(
        pytester.path / "golden.jsonl",
        [
            {
                "id": "refund",
                "question": GOOD["question"],
                "expected_tools": [{"name": "lookup", "input_parameters": {"id": 7}}, "refund"],
            }
        ],
    )
    pytester.makepyfile(
        rag_target=f"""
        from dataclasses import dataclass

        @dataclass
        class Call:
            name: str
            input_parameters: dict

        def answer(question):
            return {{
                "answer": {GOOD["answer"]!r},
                "contexts": {GOOD["contexts"]!r},
                "tools_called": [Call("lookup", {{"id": 7}}), {{"name": "search"}}],
            }}
        """
    )
    result, report = gate_run(
        pytester,
        "golden.jsonl",
        judge="offline",
        target="rag_target:answer",
        metrics="tool_correctness,tool_call_precision",
        cache="off",
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert report is not None
    assert report["cases"][0]["scores"] == {"tool_correctness": 0.5, "tool_call_precision": 0.5}


# --- trace imports --------------------------------------------------------------------------


def span(span_id: str, start: int, kind: str, **attributes: Any) -> dict[str, Any]:
    """A span as Phoenix exports it: nested context and attributes."""
    return {
        "name": f"{kind.lower()}-{span_id}",
        "context": {"trace_id": "trace-1", "span_id": span_id},
        "parent_id": None if span_id == "root" else "root",
        "start_time": start,
        "attributes": {"openinference": {"span": {"kind": kind}}, **attributes},
    }


def documents(*texts: str) -> dict[str, Any]:
    return {"retrieval": {"documents": [{"document": {"content": text}} for text in texts]}}


def imported(capsys: pytest.CaptureFixture[str], format_name: str, source: Path) -> dict[str, Any]:
    from pytest_ragas_gate.cli import main

    output = source.with_name("golden.jsonl")
    status = main(["import", format_name, str(source), "-o", str(output)])
    assert (status, capsys.readouterr().err) == (0, "")
    (row,) = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    cases, problems = validate_rows("golden.jsonl", [RawCase(1, row)])
    assert problems == []
    return {"row": row, "case": cases[0]}


def test_an_openinference_trace_gives_its_tool_calls_in_order_and_its_hops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spans = [
        span("root", 0, "CHAIN", input={"value": GOOD["question"]}, output={"value": "Jobs."}),
        span(
            "lookup",
            30,
            "TOOL",
            tool={"name": "lookup_order"},
            input={"value": '{"order_id": 42}'},
            output={"value": '{"status": "shipped"}'},
        ),
        span("retr-1", 20, "RETRIEVER", **documents(GOOD["contexts"][0])),
        span("search", 10, "TOOL", tool={"name": "search_docs"}, input={"value": '{"q": "x"}'}),
        span("retr-2", 40, "RETRIEVER", **documents(GOOD["contexts"][1])),
        span("notify", 50, "TOOL", input={"value": "send the customer a note"}),
        span("llm", 60, "LLM", input={"value": "PROMPT " * 20}),
    ]
    source = tmp_path / "spans.jsonl"
    source.write_text("".join(json.dumps(item) + "\n" for item in spans), encoding="utf-8")
    found = imported(capsys, "openinference", source)
    assert found["row"]["tools_called"] == [
        {"name": "search_docs", "input_parameters": {"q": "x"}},
        {
            "name": "lookup_order",
            "input_parameters": {"order_id": 42},
            "output": {"status": "shipped"},
        },
        {"name": "tool-notify", "input_parameters": {"input": "send the customer a note"}},
    ]
    assert found["row"]["contexts"] == [
        {"text": GOOD["contexts"][0], "hop": 1},
        {"text": GOOD["contexts"][1], "hop": 2},
    ]
    assert [call.name for call in found["case"].tools_called] == [
        "search_docs",
        "lookup_order",
        "tool-notify",
    ]


def test_otlp_genai_tool_executions_and_langfuse_tool_observations_are_tool_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_import_traces import langfuse_traces, otlp_span, request

    trace = "0" * 31 + "1"
    genai = [
        otlp_span(trace, "root", None, 0, {"gen_ai.operation.name": "invoke_agent",
                                           "gen_ai.input.messages": json.dumps(
                                               [{"role": "user", "content": GOOD["question"]}]),
                                           "gen_ai.output.messages": json.dumps(
                                               [{"role": "assistant", "content": "Jobs."}])}),
        otlp_span(trace, "tool", "root", 1, {"gen_ai.operation.name": "execute_tool",
                                             "gen_ai.tool.name": "search_docs",
                                             "gen_ai.tool.call.arguments": '{"q": "founders"}',
                                             "gen_ai.tool.call.result": "[]"}),
        otlp_span(trace, "retr", "root", 2, {"gen_ai.operation.name": "retrieval",
                                             "gen_ai.retrieval.documents": json.dumps(
                                                 [{"content": GOOD["contexts"][0]}])}),
    ]  # fmt: skip
    source = tmp_path / "otlp" / "traces.jsonl"
    source.parent.mkdir()
    source.write_text(json.dumps(request(genai)) + "\n", encoding="utf-8")
    assert imported(capsys, "otlp", source)["row"]["tools_called"] == [
        {"name": "search_docs", "input_parameters": {"q": "founders"}, "output": []}
    ]
    directory = tmp_path / "langfuse"
    directory.mkdir()
    langfuse_traces(directory, [GOOD])
    document = json.loads((directory / "traces.json").read_text(encoding="utf-8"))
    document["data"][0]["observations"].append(
        {
            "id": "obs-tool",
            "traceId": "lf-trace-0",
            "type": "TOOL",
            "name": "lookup_order",
            "startTime": "2026-11-25T18:00:00Z",
            "input": {"order_id": 42},
            "output": {"status": "shipped"},
        }
    )
    (directory / "traces.json").write_text(json.dumps(document), encoding="utf-8")
    assert imported(capsys, "langfuse", directory / "traces.json")["row"]["tools_called"] == [
        {
            "name": "lookup_order",
            "input_parameters": {"order_id": 42},
            "output": {"status": "shipped"},
        }
    ]


def test_rag_gate_import_deepeval_keeps_the_tool_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "agent.json"
    shutil.copy(DEEPEVAL_GOLDENS, source)
    from pytest_ragas_gate.cli import main

    output = tmp_path / "golden.jsonl"
    assert main(["import", "deepeval", str(source), "-o", str(output)]) == 0
    rows = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    cases, problems = validate_rows("golden.jsonl", [RawCase(n, row) for n, row in enumerate(rows)])
    assert problems == []
    assert [call.name for call in cases[1].tools_called or []] == ["search_docs", "lookup_order"]
    assert [tool.name for tool in cases[2].expected_tools or []] == [
        "lookup_order",
        "issue_refund",
        "search_docs",
    ]


# --- per-hop retrieval ----------------------------------------------------------------------


def test_the_retrieval_metrics_of_a_multi_hop_case_are_read_per_hop(
    pytester: pytest.Pytester,
) -> None:
    row = {
        **GOOD,
        "contexts": [
            {"id": "a", "text": GOOD["contexts"][0], "hop": 1},
            {"id": "x", "text": "Bananas are yellow.", "hop": 2},
            {"id": "b", "text": "Steve Jobs and Steve Wozniak founded Apple in 1976.", "hop": 2},
        ],
        "relevant_context_ids": ["a", "b"],
    }
    write_jsonl(pytester.path / "golden.jsonl", [row])
    result, report = gate_run(
        pytester,
        "golden.jsonl",
        judge="offline",
        metrics="context_precision,id_precision,id_recall",
        threshold="id_recall=0.5",
        html="report.html",
        cache="off",
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert report is not None
    (scored_case,) = report["cases"]
    assert scored_case["context_hops"] == [1, 2, 2]
    hops = scored_case["retrieval_hops"]
    assert [(hop["hop"], hop["contexts"]) for hop in hops] == [(1, 1), (2, 2)]
    assert [(hop["id_precision"], hop["id_recall"]) for hop in hops] == [(1.0, 0.5), (0.5, 0.5)]
    relevant = [bool(detail["relevant"]) for detail in scored_case["details"]["context_precision"]]
    assert relevant == [True, False, True]
    assert [hop["context_precision"] for hop in hops] == [1.0, 0.5]
    assert [hop["context_relevance"] for hop in hops] == [1.0, 0.5]
    page = (pytester.path / "report.html").read_text(encoding="utf-8")
    assert '"retrieval_hops"' in page
    assert "Retrieval per hop" in page


def test_a_step_budget_that_could_not_be_checked_fails_the_case(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester.path / "golden.jsonl", [{**GOOD, "id": "silent", "max_steps": 3}])
    result, _ = gate_run(pytester, "golden.jsonl", judge="offline", cache="off")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.stdout.fnmatch_lines(["*1 case(s) below their own thresholds: silent*"])
