"""What other tools write, case by case: conversation ids, promptfoo templates, --map misses.

The files the tools wrote themselves are gated in ``test_peer_files.py``; these tests pin
each defect down on the smallest input that shows it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gate_runs import GOOD

from pytest_ragas_gate.cli import main
from pytest_ragas_gate.golden.loading import load_golden_file


def run_import(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["import", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def rows_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


# --- conversation ids from the whole conversation -------------------------------------------


def ragas_chat(reply: str) -> dict[str, Any]:
    return {
        "user_input": [
            {"type": "human", "content": "Hi"},
            {"type": "ai", "content": reply},
        ],
        "reference": None,
    }


def test_two_conversations_that_open_alike_get_distinct_stable_ids(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "chats.jsonl",
        [ragas_chat("Hello! How can I help?"), ragas_chat("Hi there, what do you need?")],
    )
    loaded = load_golden_file(path)
    assert loaded.problems == []
    first, second = (case.conversation for case in loaded.cases)
    assert first != second
    assert first is not None and first.startswith("c-")
    again = load_golden_file(path)
    assert [case.id for case in again.cases] == [case.id for case in loaded.cases]


def test_a_conversation_repeated_turn_for_turn_is_named_as_such(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "chats.jsonl", [ragas_chat("Hello!"), ragas_chat("Hello!")])
    (problem,) = load_golden_file(path).problems
    assert "derived from its turns" in problem.message
    assert "two conversations have the same turns, so give them distinct 'id's" in (problem.message)


def test_imported_conversations_that_open_alike_keep_distinct_ids_across_imports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conversations = [
        {
            "turns": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": reply},
            ]
        }
        for reply in ("Hello!", "Hi, how can I help?")
    ]
    source = tmp_path / "dataset.json"
    source.write_text(json.dumps(conversations), encoding="utf-8")
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    assert run_import(capsys, "deepeval", str(source), "-o", str(first))[0] == 0
    assert run_import(capsys, "deepeval", str(source), "-o", str(second))[0] == 0
    ids = [row["id"] for row in rows_of(first)]
    assert ids == [row["id"] for row in rows_of(second)]
    assert len(set(ids)) == 2 and not any(name.endswith("-2") for name in ids)
    # The loader derives the same id from the same turns.
    (turns_only,) = [{"turns": row["turns"]} for row in rows_of(first)][:1]
    loaded = load_golden_file(write_jsonl(tmp_path / "bare.jsonl", [turns_only]))
    assert loaded.cases[0].conversation == ids[0]


# --- promptfoo references from the test's vars ----------------------------------------------


def promptfoo_results(tmp_path: Path, value: str, variables: dict[str, Any]) -> Path:
    test = {
        "description": "founders",
        "vars": variables,
        "assert": [{"type": "context-recall", "value": value, "threshold": 0.5}],
    }
    result = {
        "testIdx": 0,
        "promptIdx": 0,
        "testCase": test,
        "vars": variables,
        "provider": {"id": "echo"},
        "response": {"output": GOOD["answer"]},
        "success": True,
    }
    document = {"evalId": "e", "results": {"version": 3, "results": [result]}}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.mark.parametrize("value", ["{{reference}}", "{{ reference }}", "{{ vars.reference }}"])
def test_a_promptfoo_reference_template_takes_the_tests_variable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    variables = {
        "query": GOOD["question"],
        "context": GOOD["contexts"],
        "reference": GOOD["reference"],
    }
    source = promptfoo_results(tmp_path, value, variables)
    output = tmp_path / "golden.jsonl"
    status, out, err = run_import(capsys, "promptfoo", str(source), "-o", str(output))
    assert (status, err) == (0, "")
    (row,) = rows_of(output)
    assert row["reference"] == GOOD["reference"]
    assert "warning" not in out


def test_a_promptfoo_template_no_variable_renders_is_never_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    variables = {"query": GOOD["question"], "context": GOOD["contexts"]}
    source = promptfoo_results(tmp_path, "{{ground_truth}}", variables)
    output = tmp_path / "golden.jsonl"
    status, out, _ = run_import(capsys, "promptfoo", str(source), "-o", str(output))
    assert status == 0
    (row,) = rows_of(output)
    assert "reference" not in row
    assert "{{" not in output.read_text(encoding="utf-8")
    assert (
        f"warning: {source} item 1: test 'founders': testCase.assert[0]: the value "
        "'{{ground_truth}}' names the variable 'ground_truth'"
    ) in out


def test_a_promptfoo_template_with_a_filter_is_never_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    variables = {"query": GOOD["question"], "reference": GOOD["reference"]}
    source = promptfoo_results(tmp_path, "{{ reference | upper }}", variables)
    output = tmp_path / "golden.jsonl"
    status, out, _ = run_import(capsys, "promptfoo", str(source), "-o", str(output))
    assert status == 0
    # The reference var itself is still the test's reference; the template is not.
    assert rows_of(output)[0]["reference"] == GOOD["reference"]
    assert "'{{ reference | upper }}' is a template the test's vars do not render" in out


# --- --map fails loud ------------------------------------------------------------------------


def logs(tmp_path: Path, hits_key: str = "text") -> Path:
    records = [
        {"req": {"q": GOOD["question"]}, "hits": [{hits_key: text, "score": 0.9}]}
        for text in GOOD["contexts"]
    ]
    return write_jsonl(tmp_path / "logs.jsonl", records)


def test_a_mapped_path_that_matches_no_record_is_an_error_naming_the_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = logs(tmp_path)
    output = tmp_path / "golden.jsonl"
    status, out, err = run_import(
        capsys,
        "json",
        str(source),
        "--map",
        "question=req.q",
        "--map",
        "contexts=hits[*].txt",
        "-o",
        str(output),
    )
    assert status == 4
    assert not output.exists()
    assert (
        f"--map contexts=hits[*].txt matches nothing in any of the 2 record(s) of {source}: "
        "no key 'txt' under hits[*]; the keys found there are 'score', 'text' — did you "
        "mean 'hits[*].text'?"
    ) in err


def test_a_mapped_question_path_that_matches_nothing_names_the_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = logs(tmp_path)
    status, _, err = run_import(
        capsys, "json", str(source), "--map", "question=req.query", "-o", str(tmp_path / "o.jsonl")
    )
    assert status == 4
    assert "no key 'query' under req; the keys found there are 'q'" in err


def test_a_mapped_path_that_misses_some_records_is_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = logs(tmp_path)
    records = rows_of(source)
    records[1]["hits"] = [{"body": "moved"}]
    write_jsonl(source, records)
    output = tmp_path / "golden.jsonl"
    status, out, _ = run_import(
        capsys,
        "json",
        str(source),
        "--map",
        "question=req.q",
        "--map",
        "contexts=hits[*].text",
        "-o",
        str(output),
    )
    assert status == 0
    assert [("contexts" in row) for row in rows_of(output)] == [True, False]
    assert (
        f"warning: --map contexts=hits[*].text matched nothing in 1 of 2 record(s) (first "
        f"{source}:2); those cases have no contexts"
    ) in out


def test_a_mapped_list_that_is_empty_is_no_miss(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = logs(tmp_path)
    records = rows_of(source)
    records[1]["hits"] = []
    write_jsonl(source, records)
    status, out, _ = run_import(
        capsys,
        "json",
        str(source),
        "--map",
        "question=req.q",
        "--map",
        "contexts=hits[*].text",
        "-o",
        str(tmp_path / "golden.jsonl"),
    )
    assert status == 0 and "warning" not in out


# --- DeepEval's conversational goldens --------------------------------------------------------


def test_a_conversational_golden_without_turns_says_it_is_a_simulator_scenario(
    tmp_path: Path,
) -> None:
    golden = {
        "scenario": "A customer asks for a refund.",
        "expected_outcome": "The refund is issued.",
        "user_description": None,
        "context": None,
        "turns": None,
    }
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([golden]), encoding="utf-8")
    (problem,) = load_golden_file(path).problems
    assert problem.message == (
        f"{path}:1: field 'turns': a DeepEval conversational golden without turns is a "
        "scenario for DeepEval's simulator, with nothing to score; give it the "
        "conversation's turns"
    )


def test_null_peer_fields_are_left_out_and_filled_ones_kept(tmp_path: Path) -> None:
    row = {
        "user_input": GOOD["question"],
        "response": GOOD["answer"],
        "retrieved_contexts": GOOD["contexts"],
        "rubrics": None,
        "persona_name": "",
        "query_style": "PERFECT_GRAMMAR",
        "comments": None,
    }
    (case,) = load_golden_file(write_jsonl(tmp_path / "golden.jsonl", [row])).cases
    assert case.metadata == {"query_style": "PERFECT_GRAMMAR"}
