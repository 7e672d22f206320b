"""The files DeepEval, RAGAS and promptfoo wrote themselves load, import and gate unchanged.

The files are in ``tests/data/peers`` (see its README: which call of which tool version
wrote each). Each dataset is copied as it is into a pytest run and gated with the offline
judge; the promptfoo results file goes through ``rag-gate import promptfoo`` first.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from gate_runs import GOOD, gate_run, write_jsonl

from pytest_ragas_gate.cli import main
from pytest_ragas_gate.golden.loading import load_golden_file

PEERS = Path(__file__).parent / "data" / "peers"

FOUNDERS = "Who founded Apple and when?"
WHERE = "Where is the Eiffel Tower?"
WHEN = "When was the Eiffel Tower completed?"
#: The offline judge's faithfulness of each single-turn case: the third contradicts its context.
SINGLE_TURN = {FOUNDERS: 1.0, WHERE: 1.0, WHEN: 0.0}
#: The conversations' exchanges that state facts, and their faithfulness.
CONVERSATION = {
    "How much storage does the Pro plan give?": 1.0,
    "And what does it cost?": 1.0,
    "Is there a free trial of the Pro plan?": 0.0,
}

#: Each dataset file, the faithfulness expected of its cases (by question), and the gate's exit.
DATASETS: dict[str, tuple[dict[str, float], int]] = {
    "deepeval_goldens.json": (SINGLE_TURN, 1),
    "deepeval_goldens.jsonl": (SINGLE_TURN, 1),
    "deepeval_goldens.csv": (SINGLE_TURN, 1),
    "deepeval_goldens_tools.json": ({FOUNDERS: 1.0, WHERE: 1.0}, 0),
    "deepeval_conversations.json": (CONVERSATION, 1),
    "ragas_single_turn.jsonl": (SINGLE_TURN, 1),
    "ragas_single_turn.csv": (SINGLE_TURN, 1),
    "ragas_multi_turn.jsonl": (CONVERSATION, 1),
    "ragas_multi_turn.csv": (CONVERSATION, 1),
}


def test_every_committed_peer_file_is_tested() -> None:
    data = {path.name for path in PEERS.iterdir() if path.suffix in (".json", ".jsonl", ".csv")}
    assert data - {"versions.json"} == {*DATASETS, "promptfoo_results.json"}


def faithfulness_by_question(report: dict[str, Any]) -> dict[str, float]:
    return {
        case["question"]: case["scores"]["faithfulness"]
        for case in report["cases"]
        if case["scores"].get("faithfulness") is not None
    }


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_a_peer_dataset_gates_unconverted(pytester: pytest.Pytester, name: str) -> None:
    expected, status = DATASETS[name]
    shutil.copy(PEERS / name, pytester.path / name)
    outcome = gate_run(
        pytester,
        name,
        judge="offline",
        metrics="faithfulness",
        disable=("randomly",),
        tracebacks=False,
    )
    output = outcome.result.stdout.str()
    assert outcome.ret == status, output
    assert "unknown key" not in output and "did you mean" not in output
    assert ", 0 errored" in output
    scores = faithfulness_by_question(outcome.report)
    assert {question: scores.get(question) for question in expected} == expected
    assert all(not case["errors"] for case in outcome.report["cases"])


def test_deepeval_goldens_map_to_golden_fields() -> None:
    loaded = load_golden_file(PEERS / "deepeval_goldens.json")
    assert loaded.problems == []
    first = loaded.cases[0]
    assert first.question == FOUNDERS
    assert first.reference == "Apple was founded in 1976 by Steve Jobs and Steve Wozniak."
    assert len(first.context_texts) == 2
    # Null fields are left out; the ideal context and additional_metadata are kept.
    assert first.metadata == {
        "team": "search",
        "reference_contexts": [first.context_texts[0]],
    }
    # JSONL and CSV join the lists with '|': each chunk is read back on its own.
    for other in ("deepeval_goldens.jsonl", "deepeval_goldens.csv"):
        again = load_golden_file(PEERS / other)
        assert [case.model_dump(exclude={"file", "line"}) for case in again.cases] == [
            case.model_dump(exclude={"file", "line"}) for case in loaded.cases
        ]


def test_a_deepeval_conversational_golden_keeps_its_scenario_and_shares_its_context() -> None:
    loaded = load_golden_file(PEERS / "deepeval_conversations.json")
    assert loaded.problems == []
    first = loaded.cases[0]
    assert first.metadata["scenario"] == "A customer asks about the Zorblax Pro plan."
    assert first.metadata["expected_outcome"].startswith("The customer learns")
    assert first.metadata["user_description"].startswith("A small-business owner")
    assert "persona" in first.metadata and "comments" not in first.metadata
    plan = "The Zorblax Pro plan gives each user 2 TB of storage."
    price = "The Zorblax Pro plan costs 10 dollars per month."
    by_turn = {
        case.turn: case.context_texts
        for case in loaded.cases
        if case.conversation == first.conversation
    }
    # The conversation's context follows each reply's own retrieved contexts.
    assert by_turn == {1: [plan], 2: [plan], 3: [price, plan]}
    conversations = {case.conversation for case in loaded.cases}
    assert len(conversations) == 2  # both open with "Hi", yet are two conversations


def test_deepeval_tool_calls_load_as_the_cases_tool_calls() -> None:
    loaded = load_golden_file(PEERS / "deepeval_goldens_tools.json")
    assert loaded.problems == []
    first, second = loaded.cases
    assert [call.name for call in first.tools_called or []] == ["search_docs"]
    assert (first.expected_tools or [])[0].input_parameters == {"query": "Apple founders"}
    assert [call.name for call in second.tools_called or []] == ["web_search"]
    assert "tools_called" not in first.metadata and "expected_tools" not in first.metadata


def test_the_promptfoo_results_file_imports_with_its_rendered_reference_and_gates(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    output = pytester.path / "golden.jsonl"
    status = main(["import", "promptfoo", str(PEERS / "promptfoo_results.json"), "-o", str(output)])
    captured = capsys.readouterr()
    assert (status, captured.err) == (0, ""), captured.err
    assert "warning" not in captured.out
    rows = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    document = json.loads((PEERS / "promptfoo_results.json").read_text(encoding="utf-8"))
    tests = [result["testCase"] for result in document["results"]["results"]]
    assert "{{" not in output.read_text(encoding="utf-8")
    assert [row["reference"] for row in rows] == [test["vars"]["reference"] for test in tests]
    assert rows[0]["thresholds"] == {
        "faithfulness": 0.8,
        "context_recall": 0.7,
        "context_relevance": 0.5,
        "answer_relevancy": 0.6,
    }
    outcome = gate_run(
        pytester,
        "golden.jsonl",
        judge="offline",
        # Every metric the cases threshold: a case threshold on a metric left out of the
        # run is a usage error.
        metrics="faithfulness,context_recall,context_relevance,answer_relevancy",
        disable=("randomly",),
        tracebacks=False,
    )
    assert outcome.ret == 1, outcome.result.stdout.str()
    assert faithfulness_by_question(outcome.report) == SINGLE_TURN
    recall = {
        case["question"]: case["scores"]["context_recall"] for case in outcome.report["cases"]
    }
    # The reference is the test's, not the template: the supported cases recall it fully.
    assert recall[FOUNDERS] == recall[WHERE] == 1.0


def test_a_misspelt_column_in_one_file_never_stops_the_other_files(
    pytester: pytest.Pytester,
) -> None:
    shutil.copy(PEERS / "deepeval_goldens.json", pytester.path / "deepeval_goldens.json")
    misspelt = {key: value for key, value in GOOD.items() if key != "contexts"}
    write_jsonl(pytester, "typo.jsonl", [{**misspelt, "context": GOOD["contexts"]}])
    outcome = gate_run(
        pytester,
        "typo.jsonl",
        "deepeval_goldens.json",
        judge="offline",
        metrics="faithfulness",
        disable=("randomly",),
        tracebacks=False,
    )
    output = outcome.result.stdout.str()
    assert outcome.ret == 1
    assert "interrupted" not in output
    outcome.stdout.fnmatch_lines(["*typo.jsonl: every case has the key 'context'*"])
    assert faithfulness_by_question(outcome.report) == SINGLE_TURN
    assert outcome.report["error_rate"]["errored_cases"] == 1
    outcome.stdout.fnmatch_lines(["*gated 4 of 4 collected golden case(s); 3 scored, 1 errored"])


@pytest.mark.parametrize(
    "name",
    [
        "deepeval_goldens.json",
        "deepeval_goldens.jsonl",
        "deepeval_goldens.csv",
        "deepeval_conversations.json",
        "deepeval_goldens_tools.json",
        "conversation-tools/deepeval-4.3.1-conversations-tools.json",
    ],
)
def test_rag_gate_import_deepeval_reads_the_files_as_the_loader_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    output = tmp_path / "golden.jsonl"
    status = main(["import", "deepeval", str(PEERS / name), "-o", str(output)])
    assert (status, capsys.readouterr().err) == (0, "")
    imported = load_golden_file(output)
    unconverted = load_golden_file(PEERS / name)
    assert imported.problems == unconverted.problems == []

    def fields(case: Any) -> tuple[Any, ...]:
        return (
            case.id,
            case.question,
            case.answer,
            case.context_texts,
            case.reference,
            case.tools_called,
            case.expected_tools,
        )

    assert [fields(case) for case in imported.cases] == [fields(case) for case in unconverted.cases]
    for before, after in zip(unconverted.cases, imported.cases, strict=True):
        assert {key: after.metadata.get(key) for key in before.metadata} == before.metadata
