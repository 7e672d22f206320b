"""Present means present: an empty answer is an error, and tool calls in conversations count.

The conversations with tool calls in ``data/peers/conversation-tools/`` were written by
DeepEval and RAGAS themselves (the version is in each file's name; ``make_peer_files.py``
says how): DeepEval ``ConversationalGolden``s whose ``Turn``s carry ``tools_called`` and,
as DeepEval has no field for them, the expected calls in the turn's ``metadata`` or the
golden's ``additional_metadata``; RAGAS ``MultiTurnSample``s with ``AIMessage`` tool calls,
``ToolMessage``s and ``reference_tool_calls``, saved with ``to_jsonl`` and ``to_csv``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from gate_runs import GOOD, WORKERS, gate_run, write_config, write_jsonl

from pytest_ragas_gate.golden.golden_fields import RawCase, validate_rows
from pytest_ragas_gate.golden.golden_formats import read_rows

TOOLS = Path(__file__).parent / "data" / "peers" / "conversation-tools"
DEEPEVAL = "deepeval-4.3.1-conversations-tools.json"
RAGAS_JSONL = "ragas-0.4.3-multi-turn-tools.jsonl"
RAGAS_CSV = "ragas-0.4.3-multi-turn-tools.csv"


def problems_of(row: dict[str, Any], line: int = 3) -> list[str]:
    return [problem.message for problem in validate_rows("chat.jsonl", [RawCase(line, row)])[1]]


# --- an empty answer ----------------------------------------------------------------------


@pytest.mark.parametrize("workers", WORKERS)
@pytest.mark.parametrize("answer", ["", "  \n"], ids=["empty", "blank"])
def test_an_empty_answer_in_a_golden_file_errors_its_case_and_fails_the_run(
    pytester: pytest.Pytester, workers: list[str], answer: str
) -> None:
    rows = [{**GOOD, "id": f"case-{index:02d}"} for index in range(20)]
    rows[7]["answer"] = answer
    write_jsonl(pytester, "golden.jsonl", rows)
    outcome = gate_run(
        pytester, *workers, judge="offline", metrics="faithfulness", tracebacks=False
    )
    output = outcome.result.stdout.str()
    assert outcome.ret == pytest.ExitCode.TESTS_FAILED, output
    outcome.result.assert_outcomes(passed=19, errors=1)
    got = "an empty string" if not answer else "only whitespace"
    outcome.result.stdout.fnmatch_lines(
        [
            f"*golden.jsonl:8: field 'answer': expected the system's answer as non-empty text, "
            f"got {got}*"
        ]
    )
    assert "RAG gate: FAILED" in output and "Safe to deploy" not in output
    errored = [case["id"] for case in outcome.report["cases"] if case["error"]]
    assert errored == ["case-07"]


@pytest.mark.parametrize("workers", WORKERS)
@pytest.mark.parametrize(
    ("column", "cell"),
    [("answer", "   "), ("answer", "\t"), ("response", "   ")],
    ids=["spaces", "tab", "ragas-response"],
)
def test_a_whitespace_only_answer_cell_in_a_csv_file_errors_its_case(
    pytester: pytest.Pytester, workers: list[str], column: str, cell: str
) -> None:
    question = "question" if column == "answer" else "user_input"
    contexts = "contexts" if column == "answer" else "retrieved_contexts"
    lines = [f"id,{question},{column},{contexts}"]
    quoted = '"' + json.dumps(GOOD["contexts"]).replace('"', '""') + '"'
    for index in range(10):
        answer = cell if index == 3 else GOOD["answer"]
        lines.append(f"case-{index:02d},{GOOD['question']},{answer},{quoted}")
    pytester.path.joinpath("golden.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    outcome = gate_run(
        pytester, *workers, judge="offline", metrics="faithfulness", tracebacks=False
    )
    output = outcome.result.stdout.str()
    assert outcome.ret == pytest.ExitCode.TESTS_FAILED, output
    outcome.result.stdout.fnmatch_lines(
        [
            f"*golden.csv:5: field {column!r}: expected the system's answer as non-empty text, "
            "got only whitespace*"
        ]
    )
    assert "RAG gate: FAILED" in output
    errored = [case["id"] for case in outcome.report["cases"] if case["error"]]
    assert errored == ["case-03"]


def test_an_empty_csv_cell_still_leaves_the_answer_out(tmp_path: Path) -> None:
    # CSV has no null, and the csv module reads a quoted "" as an empty cell.
    path = tmp_path / "golden.csv"
    path.write_text('id,question,answer\na,Q?,\nb,Q?,""\nc,Q?, \n', encoding="utf-8")
    rows = read_rows(path, "golden.csv")
    assert [sorted(row.value) for row in rows] == [
        ["id", "question"],
        ["id", "question"],
        ["answer", "id", "question"],
    ]
    assert [p.message for p in validate_rows("golden.csv", rows)[1]][0].startswith(
        "golden.csv:4: field 'answer': expected the system's answer as non-empty text, got only "
        "whitespace"
    )


def test_an_empty_answer_under_another_name_is_named_so() -> None:
    assert problems_of({"user_input": "Q?", "response": ""}) == [
        "chat.jsonl:3: field 'response': expected the system's answer as non-empty text, got "
        "an empty string; the answer-based metrics cannot score nothing (leave the field "
        "out, or null, for a case a live target answers)"
    ]
    assert problems_of({"question": "Q?", "answer": None}) == []


def test_an_empty_final_assistant_turn_errors_its_conversation() -> None:
    turns = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": " "}]
    assert problems_of({"turns": turns}) == [
        "chat.jsonl:3: field 'turns[1].content': expected a non-empty string, got an empty string"
    ]
    # RAGAS: tool calls and their results, then no reply.
    messages = [
        {"type": "human", "content": "Where is order 42?"},
        {"type": "ai", "content": "", "tool_calls": [{"name": "lookup", "args": {"id": 42}}]},
        {"type": "tool", "content": "shipped"},
    ]
    assert problems_of({"user_input": messages}) == [
        "chat.jsonl:3: field 'user_input[1]': the tool calls at user_input[1] get no "
        "assistant reply at the end of the conversation; the reply after them is the answer "
        "the exchange scores"
    ]


# --- tool calls inside conversations ------------------------------------------------------


def scores_of(report: dict[str, Any], metric: str) -> dict[str, float | None]:
    return {case["id"]: case["scores"].get(metric) for case in report["cases"]}


def only_good(name: str, directory: Path) -> None:
    """The file with its conversations that call the expected tools only, in its own shape."""
    source = TOOLS / name
    if name.endswith(".json"):
        rows = json.loads(source.read_text(encoding="utf-8"))
        kept = [row for row in rows if row["name"] != "order-7-wrong-tool"]
        (directory / name).write_text(json.dumps(kept, indent=4), encoding="utf-8")
        return
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    start = 1 if name.endswith(".csv") else 0
    kept_lines = lines[:start] + [line for line in lines[start:] if "web_search" not in line]
    (directory / name).write_text("".join(kept_lines), encoding="utf-8")


#: Each file: its tool_correctness per case id (the conversations' turns) when all are gated.
EXPECTED: dict[str, dict[str, float | None]] = {
    # Per turn: each reply against its own expected calls; the greeting expects none.
    DEEPEVAL: {
        "c-8cf8282432#1": 1.0,
        "c-8cf8282432#2": 1.0,
        "c-a5b4dd51c0#1": None,
        "c-a5b4dd51c0#2": 0.0,
        # For the whole conversation: all its calls, on its last exchange.
        "c-035d0601e6#1": None,
        "c-035d0601e6#2": 1.0,
    },
    # RAGAS: every AIMessage tool call of the sample against reference_tool_calls.
    RAGAS_JSONL: {"c-98dd975e37#1": None, "c-98dd975e37#2": 1.0, "c-34b3b94778#1": 0.0},
    RAGAS_CSV: {"c-98dd975e37#1": None, "c-98dd975e37#2": 1.0, "c-34b3b94778#1": 0.0},
}


@pytest.mark.parametrize("workers", WORKERS)
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_tool_calls_inside_conversations_are_scored_and_gated(
    pytester: pytest.Pytester, name: str, workers: list[str]
) -> None:
    shutil.copy(TOOLS / name, pytester.path / name)
    write_config(pytester.path, strict_fields=True)
    options: dict[str, Any] = {
        "judge": "offline",
        "metrics": "tool_correctness,tool_call_precision",
        "threshold": "tool_correctness=0.9",
        "disable": ("randomly",),
        "tracebacks": False,
    }
    failed = gate_run(pytester, name, *workers, **options)
    output = failed.result.stdout.str()
    assert failed.ret == pytest.ExitCode.TESTS_FAILED, output
    assert "no expected_tools" not in output.split("RAG gate")[-1]
    assert ", 0 errored" in output, output
    assert scores_of(failed.report, "tool_correctness") == EXPECTED[name]
    assert "tool_correctness" in output and "RAG gate: FAILED" in output

    (pytester.path / name).unlink()
    only_good(name, pytester.path)
    passed = gate_run(pytester, name, *workers, **options)
    assert passed.ret == pytest.ExitCode.OK, passed.result.stdout.str()
    assert "RAG gate: PASSED" in passed.result.stdout.str()


def test_a_ragas_reference_is_compared_argument_by_argument_as_ragas_does() -> None:
    cases, problems = validate_rows(
        "m.jsonl",
        [RawCase(1, json.loads(line)) for line in (TOOLS / RAGAS_JSONL).read_text().splitlines()],
    )
    assert problems == []
    last = cases[1]
    # The refund carried an extra 'reason' argument; RAGAS compares the reference's only.
    assert [call.input_parameters for call in last.tools_called or []] == [
        {"order_id": 42},
        {"order_id": 42, "reason": "late"},
    ]
    assert {tool.match for tool in last.expected_tools or []} == {"subset"}


def test_per_turn_max_steps_is_a_threshold_of_that_exchange() -> None:
    turns = [
        {"role": "user", "content": "Refund order 7"},
        {
            "role": "assistant",
            "content": "Done.",
            "tools_called": ["lookup", "lookup", "refund"],
            "max_steps": 2,
        },
    ]
    cases, problems = validate_rows("chat.jsonl", [RawCase(1, {"id": "c", "turns": turns})])
    assert problems == []
    assert (cases[0].max_steps, cases[0].thresholds) == (2, {"max_steps": 1.0})


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            {
                "turns": [
                    {"role": "user", "content": "Hi"},
                    {
                        "role": "assistant",
                        "content": "Hello",
                        "mcp_tools_called": [{"name": "search", "args": {}, "result": "x"}],
                    },
                ]
            },
            "chat.jsonl:3: field 'turns[1].mcp_tools_called': MCP calls are not scored by "
            "the tool metrics; give the calls to check as 'turns[1].tools_called' ({name, "
            "input_parameters}) or leave the MCP calls out",
        ),
        (
            {
                "user_input": [
                    {"type": "human", "content": "Hi", "tool_calls": [{"name": "x", "args": {}}]},
                    {"type": "ai", "content": "Hello"},
                ]
            },
            "chat.jsonl:3: field 'user_input[0].tool_calls': only an assistant turn calls "
            "tools; a user turn cannot carry tool calls, expected calls or max_steps",
        ),
        (
            {
                "user_input": [
                    {"type": "human", "content": "Hi"},
                    {"type": "ai", "content": "", "tool_calls": [{"name": "x", "id": "c1"}]},
                    {"type": "ai", "content": "Hello"},
                ]
            },
            "chat.jsonl:3: field 'user_input[1].tool_calls': item 1: unknown key 'id'; a tool "
            "call has args, arguments, description, input_parameters, name, output, "
            "reasoning, type",
        ),
        (
            {
                "expected_tools": ["lookup"],
                "turns": [
                    {"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": "Hello", "expected_tools": ["lookup"]},
                ],
            },
            "chat.jsonl:3: field 'expected_tools': the conversation's expected tool calls are "
            "given for the whole conversation and per turn ('turns[1].expected_tools'); give "
            "them one way: per assistant turn (scored turn by turn) or for the conversation "
            "(scored against all of its calls in order)",
        ),
        (
            {
                "tools_called": ["lookup"],
                "turns": [
                    {"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": "Hello"},
                ],
            },
            "chat.jsonl:3: field 'tools_called': a conversation's tool calls are made by its "
            "assistant turns; give each turn's calls as 'turns[i].tools_called' (RAGAS: an ai "
            "message's tool_calls)",
        ),
    ],
    ids=["mcp", "human-tool-calls", "unknown-call-key", "both-levels", "row-tools-called"],
)
def test_an_unsupported_tool_call_shape_is_an_error_naming_file_line_and_turn(
    row: dict[str, Any], message: str
) -> None:
    assert problems_of(row) == [message]


@pytest.mark.parametrize("workers", WORKERS)
def test_an_unsupported_shape_in_a_saved_file_errors_that_conversation_in_the_run(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    rows = json.loads((TOOLS / DEEPEVAL).read_text(encoding="utf-8"))
    rows[1]["turns"][3]["mcp_tools_called"] = [{"name": "lookup", "args": {}, "result": "x"}]
    (pytester.path / "chats.json").write_text(json.dumps(rows, indent=4), encoding="utf-8")
    line = 1 + (pytester.path / "chats.json").read_text().splitlines().index("    {", 2)
    outcome = gate_run(
        pytester,
        "chats.json",
        *workers,
        judge="offline",
        metrics="tool_correctness",
        disable=("randomly",),
        tracebacks=False,
    )
    output = outcome.result.stdout.str()
    assert outcome.ret == pytest.ExitCode.TESTS_FAILED, output
    outcome.result.stdout.fnmatch_lines(
        [f"*chats.json:{line}: field 'turns?3?.mcp_tools_called': MCP calls are not scored*"]
    )
    assert "RAG gate: FAILED" in output


AGENT = """
def answer(question, history):
    if "refund" in question.lower():
        return {"answer": "Order 42 is refunded.", "tools_called": ["issue_refund"]}
    return {"answer": "Order 42 shipped on 3 May.", "tools_called": ["lookup_order"]}
"""


@pytest.mark.parametrize("whole", [False, True], ids=["per-turn", "whole-conversation"])
def test_a_live_conversation_is_scored_on_the_targets_calls_not_the_saved_ones(
    pytester: pytest.Pytester, whole: bool
) -> None:
    pytester.makepyfile(agent=AGENT)
    saved = {"tools_called": ["web_search"]}  # what the file recorded, not what runs now
    turns: list[dict[str, Any]] = [
        {"role": "user", "content": "Where is order 42?"},
        {"role": "assistant", "content": "Shipped.", **saved},
        {"role": "user", "content": "Refund it, please."},
        {"role": "assistant", "content": "Refunded.", **saved},
    ]
    row: dict[str, Any] = {"id": "chat", "turns": turns}
    if whole:
        row["expected_tools"] = ["lookup_order", "issue_refund"]
    else:
        turns[1]["expected_tools"] = ["lookup_order"]
        turns[3]["expected_tools"] = ["issue_refund"]
    write_jsonl(pytester, "golden.jsonl", [row])
    outcome = gate_run(
        pytester,
        judge="offline",
        metrics="tool_correctness",
        threshold="tool_correctness=1",
        set="live.target=agent:answer",
        tracebacks=False,
    )
    output = outcome.result.stdout.str()
    assert outcome.ret == pytest.ExitCode.OK, output
    expected = {"chat#1": None, "chat#2": 1.0} if whole else {"chat#1": 1.0, "chat#2": 1.0}
    assert scores_of(outcome.report, "tool_correctness") == expected


# --- misspelt keys inside a turn ----------------------------------------------------------


def misspelt_turn(directory: Path) -> None:
    """DeepEval's file with ``tools_called`` misspelt on the first conversation's reply."""
    rows = json.loads((TOOLS / DEEPEVAL).read_text(encoding="utf-8"))
    turn = rows[0]["turns"][1]
    turn["tool_called"] = turn.pop("tools_called")
    (directory / DEEPEVAL).write_text(json.dumps(rows, indent=1), encoding="utf-8")


@pytest.mark.parametrize("workers", WORKERS)
def test_a_misspelt_turn_key_is_an_error_of_its_conversation_under_strict_fields(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    # fnmatch reads "[" as a set: "[[]" matches the bracket itself.
    misspelt_turn(pytester.path)
    write_config(pytester.path, golden={"strict_fields": True})
    outcome = gate_run(
        pytester, DEEPEVAL, *workers, judge="offline", metrics="tool_correctness", tracebacks=False
    )
    output = outcome.result.stdout.str()
    assert outcome.ret == pytest.ExitCode.TESTS_FAILED, output
    outcome.result.stdout.fnmatch_lines(
        [
            f"*{DEEPEVAL}:2: turns[[]1]: unknown key 'tool_called' — did you mean "
            "'tools_called'? (strict_fields: true*"
        ]
    )
    assert "RAG gate: FAILED" in output


@pytest.mark.parametrize("workers", WORKERS)
def test_a_misspelt_turn_key_warns_as_a_misspelt_row_key_does(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    misspelt_turn(pytester.path)
    outcome = gate_run(
        pytester, DEEPEVAL, *workers, judge="offline", metrics="tool_correctness", tracebacks=False
    )
    outcome.result.stdout.fnmatch_lines(
        [
            f"*{DEEPEVAL}:2:turns[[]1]: unknown key 'tool_called' in a conversation turn — did "
            "you mean 'tools_called'?*strict_fields: true makes this an error*"
        ]
    )


@pytest.mark.parametrize(
    ("key", "field"),
    [
        ("contnet", "content"),
        ("expected_tool", "expected_tools"),
        ("retrieval_contxt", "retrieval_context"),
        ("tool_called", "tools_called"),
    ],
)
def test_each_misspelt_turn_key_names_its_nearest_valid_key(
    pytester: pytest.Pytester, key: str, field: str
) -> None:
    turns = [
        {"role": "user", "content": "Where is order 42?"},
        {"role": "assistant", "content": "Order 42 shipped.", key: ["x"]},
    ]
    write_jsonl(pytester, "golden.jsonl", [{"id": "ok", **GOOD}, {"id": "c", "turns": turns}])
    write_config(pytester.path, golden={"strict_fields": True})
    outcome = gate_run(pytester, judge="offline", metrics="faithfulness", tracebacks=False)
    outcome.result.stdout.fnmatch_lines(
        [f"*golden.jsonl:2: turns[[]1]: unknown key {key!r} — did you mean {field!r}?*"]
    )
    errored = [case["id"] for case in outcome.report["cases"] if case["error"]]
    assert errored == ["c#1"]


@pytest.mark.parametrize("strict", [False, True], ids=["warned", "strict"])
def test_a_misspelt_turn_key_beside_the_right_one_is_no_less_a_typo(
    pytester: pytest.Pytester, strict: bool
) -> None:
    # A turn keeps no key of the user's own (unknown turn keys are dropped), so 'contxts'
    # beside 'contexts' is a typo whose contexts are lost, not a field of the user's.
    turns = [
        {"role": "user", "content": "Where is order 42?"},
        {
            "role": "assistant",
            "content": "Order 42 shipped.",
            "contexts": ["Order 42 shipped on Monday."],
            "contxts": ["Order 42 left the Leeds depot."],
        },
    ]
    write_jsonl(pytester, "golden.jsonl", [{"id": "ok", **GOOD}, {"id": "c", "turns": turns}])
    if strict:
        write_config(pytester.path, golden={"strict_fields": True})
    outcome = gate_run(pytester, judge="offline", metrics="faithfulness", tracebacks=False)
    if strict:
        outcome.result.stdout.fnmatch_lines(
            ["*golden.jsonl:2: turns[[]1]: unknown key 'contxts' — did you mean 'contexts'?*"]
        )
        assert [case["id"] for case in outcome.report["cases"] if case["error"]] == ["c#1"]
    else:
        outcome.result.stdout.fnmatch_lines(
            [
                "*golden.jsonl:2:turns[[]1]: unknown key 'contxts' in a conversation turn — "
                "did you mean 'contexts'?*strict_fields: true makes this an error*"
            ]
        )
        assert not [case["id"] for case in outcome.report["cases"] if case["error"]]
