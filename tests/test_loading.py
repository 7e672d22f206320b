"""Golden-file loaders: formats, shapes, aliases, per-case problems and file-level errors."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from gate_runs import csv_rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_ragas_gate.exceptions import CaseError, GoldenFileError, UsageError
from pytest_ragas_gate.golden.cases import Context, GoldenCase, stable_case_id
from pytest_ragas_gate.golden.loading import (
    SUPPORTED_EXTENSIONS,
    CaseProblem,
    LoadedFile,
    load_golden_file,
)


def write(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_bytes(content.encode("utf-8"))
    return path


def load(folder: Path, name: str, content: str | bytes) -> LoadedFile:
    return load_golden_file(write(folder, name, content), display_path=name)


def load_error(folder: Path, name: str, content: str | bytes) -> str:
    with pytest.raises(GoldenFileError) as raised:
        load(folder, name, content)
    return str(raised.value)


def jsonl(*rows: dict[str, Any]) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


def only_case(loaded: LoadedFile) -> GoldenCase:
    assert loaded.problems == []
    assert len(loaded.cases) == 1
    return loaded.cases[0]


def only_problem(loaded: LoadedFile) -> CaseProblem:
    assert loaded.cases == []
    assert len(loaded.problems) == 1
    return loaded.problems[0]


def test_supported_extensions() -> None:
    assert SUPPORTED_EXTENSIONS == frozenset({".jsonl", ".json", ".yaml", ".yml", ".csv"})


# --- JSON Lines -------------------------------------------------------------------------


def test_jsonl_reads_every_field_with_lines(tmp_path: Path) -> None:
    content = (
        "\n"
        + json.dumps(
            {
                "id": "apple",
                "question": "Who founded Apple?",
                "answer": "Steve Jobs and Steve Wozniak.",
                "contexts": ["Apple was founded by Jobs, Wozniak and Wayne."],
                "reference": "Steve Jobs, Steve Wozniak and Ronald Wayne.",
                "relevant_context_ids": ["doc-1"],
                "tags": ["history", "smoke"],
                "thresholds": {"faithfulness": 0.9},
            }
        )
        + "\n   \n"
        + json.dumps({"question": "What is RAG?"})
        + "\n"
    )
    loaded = load(tmp_path, "golden.jsonl", content)

    assert loaded.path == "golden.jsonl"
    assert loaded.problems == []
    first, second = loaded.cases
    assert first == GoldenCase(
        id="apple",
        question="Who founded Apple?",
        answer="Steve Jobs and Steve Wozniak.",
        contexts=[Context(text="Apple was founded by Jobs, Wozniak and Wayne.")],
        reference="Steve Jobs, Steve Wozniak and Ronald Wayne.",
        relevant_context_ids=["doc-1"],
        tags=["history", "smoke"],
        thresholds={"faithfulness": 0.9},
        file="golden.jsonl",
        line=2,
    )
    assert second.source == "golden.jsonl:4"
    assert second.id == stable_case_id("What is RAG?")
    assert second.answer is None
    assert second.contexts is None
    assert second.tags == []
    assert second.thresholds == {}


def test_jsonl_bad_line_in_the_middle_does_not_hide_the_others(tmp_path: Path) -> None:
    content = (
        jsonl({"question": "one"})
        + '{"question": "two", "answer": }\n'
        + jsonl({"question": "three"})
        + "[1, 2]\n"
        + jsonl({"question": "five"})
    )
    loaded = load(tmp_path, "golden.jsonl", content)

    assert [(case.question, case.line) for case in loaded.cases] == [
        ("one", 1),
        ("three", 3),
        ("five", 5),
    ]
    assert [problem.line for problem in loaded.problems] == [2, 4]
    invalid, not_object = loaded.problems
    assert invalid.message == ("golden.jsonl:2: invalid JSON at column 31: Expecting value")
    assert invalid.case_id is None
    assert invalid.file == "golden.jsonl"
    assert not_object.message == (
        "golden.jsonl:4: expected an object with a 'question' field, got list"
    )


@pytest.mark.slow
def test_jsonl_of_ten_thousand_rows(tmp_path: Path) -> None:
    rows = [
        {"id": f"case-{index}", "question": f"Question {index}?", "contexts": [f"chunk {index}"]}
        for index in range(10_000)
    ]
    loaded = load(tmp_path, "golden.jsonl", jsonl(*rows))

    assert loaded.problems == []
    assert len(loaded.cases) == 10_000
    assert [case.line for case in loaded.cases] == list(range(1, 10_001))
    assert loaded.cases[9_999].id == "case-9999"
    assert loaded.cases[9_999].context_texts == ["chunk 9999"]


def test_case_file_defaults_to_the_path_as_given(tmp_path: Path) -> None:
    path = write(tmp_path, "golden.jsonl", jsonl({"question": "q"}))
    loaded = load_golden_file(str(path))

    assert loaded.path == str(path)
    assert loaded.cases[0].file == str(path)
    assert loaded.cases[0].source == f"{path}:1"


# --- JSON -------------------------------------------------------------------------------


def test_json_list_of_rows_gives_the_line_where_each_case_starts(tmp_path: Path) -> None:
    content = (
        "[\n"
        '  {"question": "first",\n'
        '   "answer": "a"},\n'
        "\n"
        '  {\n    "question": "second"\n  }, {"question": "third"}\n'
        "]\n"
    )
    loaded = load(tmp_path, "golden.json", content)

    assert [(case.question, case.line) for case in loaded.cases] == [
        ("first", 2),
        ("second", 5),
        ("third", 7),
    ]


def test_json_written_on_one_line_names_each_bad_case_by_its_item(tmp_path: Path) -> None:
    # json.dump without indent writes every case on line 1: the line alone names none.
    content = json.dumps([{"question": "ok"}, "just text", {"answer": "no question"}])
    loaded = load(tmp_path, "golden.json", content)

    assert [case.question for case in loaded.cases] == ["ok"]
    assert [problem.message for problem in loaded.problems] == [
        "golden.json:1 (item 2): expected an object with a 'question' field, got str",
        "golden.json:1 (item 3): field 'question' is required (a non-empty string; also "
        "accepted as 'user_input', 'query' or 'input')",
    ]
    assert [problem.label for problem in loaded.problems] == ["item-2", "item-3"]


def test_json_cases_object(tmp_path: Path) -> None:
    content = (
        '{\n  "name": "smoke set",\n  "cases": [\n'
        '    {"question": "one"},\n'
        '    {"question": "two"}\n'
        "  ]\n}\n"
    )
    loaded = load(tmp_path, "golden.json", content)

    assert [(case.question, case.line) for case in loaded.cases] == [("one", 4), ("two", 5)]
    assert loaded.cases[0].metadata == {}


def test_json_column_oriented_form(tmp_path: Path) -> None:
    content = (
        "{\n"
        '  "question": [\n    "Where is the Eiffel Tower?",\n    "Who founded Nike?"\n  ],\n'
        '  "answer": ["Paris", "Phil Knight"],\n'
        '  "contexts": [["It is in Paris."], ["Nike was founded by Knight."]],\n'
        '  "ground_truths": [["Paris, France."], ["Bill Bowerman", "Phil Knight"]]\n'
        "}\n"
    )
    loaded = load(tmp_path, "golden.json", content)

    assert loaded.problems == []
    eiffel, nike = loaded.cases
    assert (eiffel.line, nike.line) == (3, 4)
    assert eiffel.answer == "Paris"
    assert eiffel.context_texts == ["It is in Paris."]
    assert eiffel.reference == "Paris, France."
    assert nike.reference == "Bill Bowerman\nPhil Knight"


def test_json_column_oriented_lengths_must_match(tmp_path: Path) -> None:
    message = load_error(
        tmp_path,
        "golden.json",
        '{"question": ["a", "b", "c"], "answer": ["x", "y"], "contexts": [[], [], []]}',
    )

    assert message.startswith("golden.json: ")
    assert "'question' has 3" in message
    assert "'answer' has 2" in message
    assert "'contexts' has 3" in message


def test_json_column_oriented_needs_a_question_column(tmp_path: Path) -> None:
    message = load_error(tmp_path, "golden.json", '{"answer": ["x"], "contexts": [["c"]]}')

    assert message == (
        "golden.json: the column-oriented cases have no 'question' column (also accepted: "
        "'user_input', 'query', 'input'); found 'answer', 'contexts'."
    )


def test_json_column_oriented_null_cell_means_absent(tmp_path: Path) -> None:
    loaded = load(
        tmp_path,
        "golden.json",
        '{"question": ["a", "b"], "answer": [null, "y"], "reference": ["r", null]}',
    )

    first, second = loaded.cases
    assert (first.answer, first.reference) == (None, "r")
    assert (second.answer, second.reference) == ("y", None)


@pytest.mark.parametrize(
    ("content", "line", "column"),
    [
        ('[\n  {"question": "a"},\n  {"question": "b",}\n]\n', 3, 20),
        ('[\n  {"question": "a"}\n  {"question": "b"}\n]\n', 3, 3),
        ('[{"question": "a"}', 1, 19),
    ],
)
def test_invalid_json_is_a_file_error_with_line_and_column(
    tmp_path: Path, content: str, line: int, column: int
) -> None:
    message = load_error(tmp_path, "golden.json", content)

    # Python 3.13 places some errors (a trailing comma) on the comma, not on what follows.
    with pytest.raises(json.JSONDecodeError) as decoded:
        json.loads(content)
    line, column = decoded.value.lineno, decoded.value.colno
    assert message.startswith(f"golden.json:{line}:{column}: the file is not valid JSON: ")
    assert f"(line {line}, column {column})" in message


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('"just text"', "the top level of the file is a str"),
        ("42", "the top level of the file is an int"),
        ('{"question": "one case", "answer": "a"}', "key 'question' holds a str, not a list"),
        ('{"cases": {"question": "q"}}', "'cases' holds an object; expected a list of cases"),
        ("{}", "(it is empty)"),
    ],
)
def test_unrecognised_top_level_shape(tmp_path: Path, content: str, expected: str) -> None:
    message = load_error(tmp_path, "golden.json", content)

    assert message.startswith("golden.json: ")
    assert expected in message


def test_json_empty_list_has_no_cases(tmp_path: Path) -> None:
    assert load(tmp_path, "golden.json", "[]") == LoadedFile("golden.json", [], [])


# --- YAML -------------------------------------------------------------------------------


def test_yaml_list_of_rows_with_lines(tmp_path: Path) -> None:
    content = (
        "# the smoke set\n"
        "- id: apple\n"
        "  question: Who founded Apple?\n"
        "  contexts:\n"
        "    - Apple was founded in 1976.\n"
        "    - id: doc-2\n"
        "      text: Jobs, Wozniak and Wayne founded it.\n"
        "\n"
        "- question: Where is the Eiffel Tower?\n"
        "  tags: landmarks\n"
        "-\n"
        "  query: Who founded Nike?\n"
    )
    loaded = load(tmp_path, "golden.yaml", content)

    assert loaded.problems == []
    apple, eiffel, nike = loaded.cases
    assert (apple.line, eiffel.line, nike.line) == (2, 9, 12)
    assert apple.contexts == [
        Context(text="Apple was founded in 1976."),
        Context(id="doc-2", text="Jobs, Wozniak and Wayne founded it."),
    ]
    assert eiffel.tags == ["landmarks"]
    assert nike.question == "Who founded Nike?"


def test_yml_cases_object(tmp_path: Path) -> None:
    content = "version: 2\ncases:\n  - question: one\n  - question: two\n    answer: 2\n"
    loaded = load(tmp_path, "golden.yml", content)

    assert [case.line for case in loaded.cases] == [3]
    assert [problem.message for problem in loaded.problems] == [
        "golden.yml:4: field 'answer': expected a string, got int"
    ]


def test_yaml_column_oriented_form(tmp_path: Path) -> None:
    content = (
        "user_input:\n"
        "  - Where is the Eiffel Tower?\n"
        "  - Who founded Nike?\n"
        "response: [Paris, Phil Knight]\n"
        "retrieved_contexts:\n"
        "  - [It is in Paris.]\n"
        "  - [Nike was founded by Knight.]\n"
        "reference: [Paris, Bill Bowerman and Phil Knight]\n"
    )
    loaded = load(tmp_path, "golden.yaml", content)

    assert loaded.problems == []
    eiffel, nike = loaded.cases
    assert (eiffel.line, nike.line) == (2, 3)
    assert nike.answer == "Phil Knight"
    assert nike.context_texts == ["Nike was founded by Knight."]
    assert nike.reference == "Bill Bowerman and Phil Knight"


def test_yaml_column_oriented_lengths_must_match(tmp_path: Path) -> None:
    message = load_error(tmp_path, "golden.yaml", "question: [a, b]\nanswer: [x]\n")

    assert "'question' has 2" in message
    assert "'answer' has 1" in message


def test_invalid_yaml_is_a_file_error_with_line(tmp_path: Path) -> None:
    content = "- question: fine\n- question: [unclosed\n  answer: x\n- question: three\n"
    message = load_error(tmp_path, "golden.yaml", content)

    assert message.startswith("golden.yaml:")
    line = int(message.split(":")[1])
    assert 2 <= line <= 4
    assert "the file is not valid YAML" in message


def test_yaml_bad_indentation_names_its_line(tmp_path: Path) -> None:
    content = "- question: one\n  answer: a\n - question: two\n"
    message = load_error(tmp_path, "golden.yaml", content)

    assert message.startswith("golden.yaml:3:")


def test_yaml_with_only_comments_is_empty(tmp_path: Path) -> None:
    loaded = load(tmp_path, "golden.yaml", "# nothing yet\n")

    assert loaded.cases == [] and loaded.problems == []


def test_yaml_null_item_is_a_problem(tmp_path: Path) -> None:
    loaded = load(tmp_path, "golden.yaml", "- question: a\n- ~\n")

    assert loaded.problems[0].message == (
        "golden.yaml:2: expected an object with a 'question' field, got null"
    )


# --- CSV --------------------------------------------------------------------------------


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|"])
def test_csv_delimiter_is_sniffed(tmp_path: Path, delimiter: str) -> None:
    output = io.StringIO()
    writer = csv.writer(output, delimiter=delimiter, lineterminator="\n")
    writer.writerow(["id", "question", "answer", "contexts", "tags"])
    writer.writerow(["c1", "Who, when?", "Jobs; 1976", '["a, b", "c|d\\tx"]', '["x"]'])
    loaded = load(tmp_path, "golden.csv", output.getvalue())

    case = only_case(loaded)
    assert case.id == "c1"
    assert case.question == "Who, when?"
    assert case.answer == "Jobs; 1976"
    assert case.context_texts == ["a, b", "c|d\tx"]
    assert case.tags == ["x"]
    assert case.line == 2


def test_csv_single_column_file(tmp_path: Path) -> None:
    loaded = load(tmp_path, "golden.csv", "question\nWhat is RAG?\nWho are you?\n")

    assert [(case.question, case.line) for case in loaded.cases] == [
        ("What is RAG?", 2),
        ("Who are you?", 3),
    ]


def test_csv_multi_line_quoted_cells_keep_physical_lines(tmp_path: Path) -> None:
    content = (
        "question,answer,contexts\r\n"
        '"first\r\nquestion",a,"[""one"",\r\n""two""]"\r\n'
        "second,b,\r\n"
        "\r\n"
        '"third","x\ny\nz",[]\r\n'
        "fourth,d,\r\n"
    )
    loaded = load(tmp_path, "golden.csv", content)

    assert loaded.problems == []
    assert [(case.question, case.line) for case in loaded.cases] == [
        ("first\r\nquestion", 2),
        ("second", 5),
        ("third", 7),
        ("fourth", 10),
    ]
    assert loaded.cases[0].context_texts == ["one", "two"]
    assert loaded.cases[1].contexts is None
    assert loaded.cases[2].contexts == []
    assert loaded.cases[2].answer == "x\ny\nz"


def test_csv_empty_cell_means_absent(tmp_path: Path) -> None:
    loaded = load(
        tmp_path,
        "golden.csv",
        "question,answer,contexts,reference,tags,thresholds,id,notes\nq,, ,,,,,\n",
    )

    case = only_case(loaded)
    assert case.answer is None
    assert case.contexts is None
    assert case.reference is None
    assert case.tags == []
    assert case.thresholds == {}
    assert case.id == stable_case_id("q")
    assert case.metadata == {}


def test_csv_list_cell_that_is_not_a_json_array(tmp_path: Path) -> None:
    content = (
        "question,contexts,relevant_context_ids\n"
        'ok,"[""chunk""]","[""d1"", 2]"\n'
        "bad,Paris is the capital of France.,\n"
        "also ok,[],\n"
    )
    loaded = load(tmp_path, "golden.csv", content)

    assert [case.question for case in loaded.cases] == ["ok", "also ok"]
    assert loaded.cases[0].relevant_context_ids == ["d1", "2"]
    problem = loaded.problems[0]
    assert problem.line == 3
    assert problem.case_id == stable_case_id("bad")
    assert problem.message == (
        "golden.csv:3: field 'contexts' (column 2): expected a JSON array such as "
        '["first", "second"], got \'Paris is the capital of France.\''
    )


def test_csv_json_object_for_a_list_field_is_a_problem(tmp_path: Path) -> None:
    loaded = load(tmp_path, "golden.csv", 'question,tags\nq,"{""a"": 1}"\n')

    assert only_problem(loaded).message.startswith(
        "golden.csv:2: field 'tags' (column 2): expected a JSON array"
    )


def test_csv_thresholds_cell(tmp_path: Path) -> None:
    content = 'question,thresholds\na,"{""faithfulness"": 0.9, ""context_recall"": 1}"\nb,0.9\n'
    loaded = load(tmp_path, "golden.csv", content)

    assert loaded.cases[0].thresholds == {"faithfulness": 0.9, "context_recall": 1.0}
    assert loaded.problems[0].message == (
        "golden.csv:3: field 'thresholds' (column 2): expected a JSON object such as "
        "{\"faithfulness\": 0.9}, got '0.9'"
    )


def test_csv_written_by_pandas(tmp_path: Path) -> None:
    # pandas writes an unnamed index column and Python list literals.
    content = (
        ",user_input,retrieved_contexts,reference\n"
        '0,Who founded Nike?,"[\'Nike was founded in 1964.\', ""It\'s Knight\'s.""]",Knight\n'
    )
    case = only_case(load(tmp_path, "golden.csv", content))

    assert case.question == "Who founded Nike?"
    assert case.context_texts == ["Nike was founded in 1964.", "It's Knight's."]
    assert case.metadata == {}


# pandas writes a list column of numpy arrays as the arrays print: items apart by spaces.
def test_csv_numpy_lists_of_ids_and_context_objects(tmp_path: Path) -> None:
    rows = [
        ["question", "contexts", "relevant_context_ids", "tags"],
        [
            "Q?",
            "[{'id': 'c1', 'text': 'first'} {'id': 'c2', 'text': 'second'}]",
            "['c1'\n 'c2']",
            "['smoke' 'en']",
        ],
    ]
    case = only_case(load(tmp_path, "golden.csv", csv_rows(rows)))
    assert [(context.id, context.text) for context in case.contexts or []] == [
        ("c1", "first"),
        ("c2", "second"),
    ]
    assert case.relevant_context_ids == ["c1", "c2"]
    assert case.tags == ["smoke", "en"]


def test_csv_ground_truths_column(tmp_path: Path) -> None:
    content = 'question,ground_truths\na,"[""x"", ""y""]"\nb,plain text\n'
    loaded = load(tmp_path, "golden.csv", content)

    assert [case.reference for case in loaded.cases] == ["x\ny", "plain text"]


def test_csv_unknown_columns_are_metadata(tmp_path: Path) -> None:
    case = only_case(load(tmp_path, "golden.csv", "question,source,difficulty\nq,wiki,3\n"))

    assert case.metadata == {"source": "wiki", "difficulty": "3"}


def test_csv_row_with_more_cells_than_columns(tmp_path: Path) -> None:
    loaded = load(tmp_path, "golden.csv", "question,answer\na,b,\nc,d,e\n")

    assert [case.question for case in loaded.cases] == ["a"]
    assert loaded.problems[0].message == (
        "golden.csv:3: the row has 3 cells but the header names 2 columns"
    )


def test_csv_row_with_fewer_cells_than_columns_is_not_read_short(tmp_path: Path) -> None:
    # A row cut short (a lost delimiter, a truncated export) would otherwise lose its last
    # fields without a word: here the reference, so context recall would call it n/a.
    loaded = load(tmp_path, "golden.csv", "question,answer,reference\na,b,c\nd,e\nf,g,\n")

    assert [case.question for case in loaded.cases] == ["a", "f"]
    assert loaded.problems[0].message == (
        "golden.csv:3: the row has 2 cells but the header names 3 columns: no cell for "
        "'reference' (write an empty cell to leave it blank)"
    )


def test_csv_header_needs_a_question_column(tmp_path: Path) -> None:
    message = load_error(tmp_path, "golden.csv", "What is RAG?,An architecture\n")

    assert message == (
        "golden.csv:1: the CSV file needs a header row with a 'question' column (also "
        "accepted: 'user_input', 'query', 'input'; or 'turns' for conversations); the "
        "first row is 'What is RAG?', 'An architecture'."
    )


def test_csv_header_naming_a_column_twice(tmp_path: Path) -> None:
    message = load_error(tmp_path, "golden.csv", "\nquestion,answer,answer\nq,a,b\n")

    assert message == (
        "golden.csv:2: the CSV header names column 'answer' twice (columns 2 and 3); "
        "rename one of them."
    )


def test_csv_stray_quote_is_a_file_error_with_line(tmp_path: Path) -> None:
    content = 'question,contexts\nfine,[]\nbad,"["a", "b"]"\nnever read,[]\n'
    message = load_error(tmp_path, "golden.csv", content)

    assert message.startswith("golden.csv:3: the file is not valid CSV: ")
    assert 'written twice ("")' in message


def test_csv_unclosed_quote_is_a_file_error(tmp_path: Path) -> None:
    content = 'question,answer\nfine,a\n"unclosed,b\nmore,c\n'
    message = load_error(tmp_path, "golden.csv", content)

    assert message.startswith("golden.csv:")
    assert "the file is not valid CSV" in message
    assert "(in the row starting on line 3)" in message


def test_csv_header_only_has_no_cases(tmp_path: Path) -> None:
    assert load(tmp_path, "golden.csv", "question,answer\n") == LoadedFile("golden.csv", [], [])


def test_csv_cells_larger_than_the_csv_module_default(tmp_path: Path) -> None:
    chunk = "word " * 60_000
    content = io.StringIO()
    csv.writer(content).writerows([["question", "contexts"], ["q", json.dumps([chunk])]])
    limit_before = csv.field_size_limit()

    case = only_case(load(tmp_path, "golden.csv", content.getvalue()))

    assert case.context_texts == [chunk]
    assert csv.field_size_limit() == limit_before


# --- aliases ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value", "attribute", "expected"),
    [
        ("question", "q?", "question", "q?"),
        ("user_input", "q?", "question", "q?"),
        ("query", "q?", "question", "q?"),
        ("Question", "q?", "question", "q?"),
        ("answer", "a", "answer", "a"),
        ("response", "a", "answer", "a"),
        ("contexts", ["c"], "context_texts", ["c"]),
        ("retrieved_contexts", ["c"], "context_texts", ["c"]),
        ("reference", "r", "reference", "r"),
        ("ground_truth", "r", "reference", "r"),
        ("ground_truths", ["r1", "r2"], "reference", "r1\nr2"),
        ("ground_truths", ["only"], "reference", "only"),
        ("ground_truths", "r", "reference", "r"),
        ("relevant_context_ids", ["d1", 7], "relevant_context_ids", ["d1", "7"]),
        ("reference_context_ids", ["d1"], "relevant_context_ids", ["d1"]),
        ("id", 12, "id", "12"),
        ("id", "  spaced  ", "id", "spaced"),
        ("tags", "smoke", "tags", ["smoke"]),
        ("tags", ["a", "b"], "tags", ["a", "b"]),
        (
            "thresholds",
            {"faithfulness": 1, "mrr": 0},
            "thresholds",
            {"faithfulness": 1.0, "mrr": 0.0},
        ),
    ],
)
def test_field_names_and_aliases(
    tmp_path: Path, name: str, value: Any, attribute: str, expected: Any
) -> None:
    row: dict[str, Any] = {name: value}
    if attribute != "question":
        row["question"] = "Which?"
    for extension in (".jsonl", ".yaml", ".json"):
        content = jsonl(row) if extension == ".jsonl" else json.dumps([row])
        case = only_case(load(tmp_path, f"golden{extension}", content))
        assert getattr(case, attribute) == expected
        assert case.metadata == {}


@pytest.mark.parametrize(
    ("first", "second", "canonical"),
    [
        ("question", "user_input", "question"),
        ("user_input", "query", "question"),
        ("answer", "response", "answer"),
        ("contexts", "retrieved_contexts", "contexts"),
        ("reference", "ground_truth", "reference"),
        ("ground_truth", "ground_truths", "reference"),
        ("relevant_context_ids", "reference_context_ids", "relevant_context_ids"),
    ],
)
def test_two_aliases_of_one_field_is_a_problem(
    tmp_path: Path, first: str, second: str, canonical: str
) -> None:
    value: Any = ["x"] if canonical in {"contexts", "relevant_context_ids"} else "x"
    row = {first: value, second: value}
    if canonical != "question":
        row["question"] = "q"
    problem = only_problem(load(tmp_path, "golden.jsonl", jsonl(row)))

    assert problem.message == (
        f"golden.jsonl:1: field '{canonical}': given twice, as '{first}' and '{second}'; "
        "keep one of them"
    )


def test_an_alias_set_to_null_does_not_conflict(tmp_path: Path) -> None:
    row = {"question": "q", "reference": None, "ground_truth": "r"}
    case = only_case(load(tmp_path, "golden.jsonl", jsonl(row)))

    assert case.reference == "r"


# --- contexts ---------------------------------------------------------------------------


def test_contexts_as_objects(tmp_path: Path) -> None:
    row = {
        "question": "q",
        "contexts": [
            {"id": "a", "text": "first"},
            {"id": 2, "content": "second"},
            {"page_content": "third", "metadata": {"source": "x"}},
            "fourth",
        ],
    }
    case = only_case(load(tmp_path, "golden.jsonl", jsonl(row)))

    assert case.contexts == [
        Context(id="a", text="first"),
        Context(id="2", text="second"),
        Context(text="third"),
        Context(text="fourth"),
    ]


@pytest.mark.parametrize(
    ("contexts", "expected"),
    [
        (
            "Paris is in France.",
            "field 'contexts': expected a list of strings or {id, text} objects, got str",
        ),
        (
            {"id": "a", "text": "t"},
            "field 'contexts': expected a list of strings or {id, text} objects, got object",
        ),
        (
            ["fine", 3],
            "field 'contexts': expected a list of strings or {id, text} objects, got int as item 2",
        ),
        (
            [{"id": "a"}],
            "field 'contexts': item 1 needs exactly one of 'text', 'content' or "
            "'page_content', found none",
        ),
        (
            [{"text": "a", "content": "b"}],
            "field 'contexts': item 1 needs exactly one of 'text', 'content' or "
            "'page_content', found 'text' and 'content'",
        ),
        ([{"text": 5}], "field 'contexts': item 1: 'text' expected a string, got int"),
        (
            [{"id": "", "text": "t"}],
            "field 'contexts': item 1: 'id' expected a non-empty string or a number, "
            "got an empty string",
        ),
    ],
)
def test_bad_contexts(tmp_path: Path, contexts: Any, expected: str) -> None:
    problem = only_problem(
        load(tmp_path, "golden.jsonl", jsonl({"id": "c", "question": "q", "contexts": contexts}))
    )

    assert problem.message == f"golden.jsonl:1: {expected}"
    assert problem.case_id == "c"


def test_bad_contexts_names_the_alias_used(tmp_path: Path) -> None:
    row = {"user_input": "q", "retrieved_contexts": "text"}
    problem = only_problem(load(tmp_path, "golden.jsonl", jsonl(row)))

    assert problem.message == (
        "golden.jsonl:1: field 'retrieved_contexts': expected a list of strings or "
        "{id, text} objects, got str"
    )


# --- other field problems ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (
            {"answer": "a"},
            "field 'question' is required (a non-empty string; also accepted as "
            "'user_input', 'query' or 'input')",
        ),
        ({"question": None}, "field 'question' is required"),
        ({"question": ""}, "field 'question': expected a non-empty string, got an empty string"),
        (
            {"query": " \t "},
            "field 'query': expected a non-empty string, got an empty string",
        ),
        ({"question": 42}, "field 'question': expected a non-empty string, got int"),
        ({"question": ["q"]}, "field 'question': expected a non-empty string, got list"),
        ({"question": "q", "answer": 4}, "field 'answer': expected a string, got int"),
        ({"question": "q", "response": True}, "field 'response': expected a string, got bool"),
        (
            {"question": "q", "reference": {"text": "r"}},
            "field 'reference': expected a string or a list of strings, got object",
        ),
        (
            {"question": "q", "ground_truths": ["a", 1]},
            "field 'ground_truths': expected a string or a list of strings, got int as item 2",
        ),
        (
            {"question": "q", "relevant_context_ids": "d1"},
            "field 'relevant_context_ids': expected a list of context ids (non-empty strings "
            "or numbers), got str",
        ),
        (
            {"question": "q", "reference_context_ids": ["d1", ""]},
            "field 'reference_context_ids': expected a list of context ids (non-empty strings "
            "or numbers), got an empty string as item 2",
        ),
        (
            {"question": "q", "tags": {"a": 1}},
            "field 'tags': expected a string or a list of strings, got object",
        ),
        (
            {"question": "q", "tags": ["a", 1]},
            "field 'tags': expected a string or a list of strings, got int as item 2",
        ),
        (
            {"question": "q", "thresholds": {"faithfulness": 1.5}},
            "field 'thresholds': the threshold of 'faithfulness' must be a number between 0 "
            "and 1, got 1.5",
        ),
        (
            {"question": "q", "thresholds": {"faithfulness": -0.1}},
            "field 'thresholds': the threshold of 'faithfulness' must be a number between 0 "
            "and 1, got -0.1",
        ),
        (
            {"question": "q", "thresholds": {"context_recall": "high"}},
            "field 'thresholds': the threshold of 'context_recall' must be a number between 0 "
            "and 1, got 'high' (str)",
        ),
        (
            {"question": "q", "thresholds": {"mrr": True}},
            "field 'thresholds': the threshold of 'mrr' was read as the boolean true (YAML reads "
            "on, yes and true so); expected a number between 0 and 1",
        ),
        (
            {"question": "q", "thresholds": {"faithfulness": "0.9"}},
            "field 'thresholds': the threshold of 'faithfulness' is the string '0.9'; write the "
            "number without quotes (0.9)",
        ),
        (
            {"question": "q", "thresholds": [0.9]},
            "field 'thresholds': expected a mapping of metric name to a number between 0 and "
            "1, got list",
        ),
        ({"question": "q", "id": ""}, "field 'id': expected a non-empty id, got an empty string"),
        ({"question": "q", "id": "   "}, "field 'id': expected a non-empty id"),
        ({"question": "q", "id": ["a"]}, "field 'id': expected a string or a number, got list"),
    ],
)
def test_field_problems(tmp_path: Path, row: dict[str, Any], expected: str) -> None:
    content = jsonl({"question": "fine"}) + jsonl(row)
    loaded = load(tmp_path, "golden.jsonl", content)

    assert [case.question for case in loaded.cases] == ["fine"]
    (problem,) = loaded.problems
    assert problem.file == "golden.jsonl"
    assert problem.line == 2
    assert problem.message.startswith(f"golden.jsonl:2: {expected}")


def test_every_problem_of_a_case_is_reported_at_once(tmp_path: Path) -> None:
    row = {"question": "q", "contexts": "c", "tags": 3}
    problem = only_problem(load(tmp_path, "golden.jsonl", jsonl(row)))

    assert problem.message == (
        "golden.jsonl:1: field 'contexts': expected a list of strings or {id, text} objects, "
        "got str; field 'tags': expected a string or a list of strings, got int"
    )


def test_problem_as_error() -> None:
    problem = CaseProblem("golden.jsonl", 3, None, "golden.jsonl:3: field 'question' is required")

    error = problem.as_error()
    assert isinstance(error, CaseError)
    assert str(error) == problem.message
    assert str(problem) == problem.message


# --- ids and metadata -------------------------------------------------------------------


def test_duplicate_explicit_id(tmp_path: Path) -> None:
    content = jsonl({"id": "x", "question": "a"}, {"question": "b"}, {"id": "x", "question": "c"})
    loaded = load(tmp_path, "golden.jsonl", content)

    assert [case.question for case in loaded.cases] == ["a", "b"]
    (problem,) = loaded.problems
    assert problem.case_id == "x"
    assert problem.line == 3
    assert problem.message.startswith(
        "golden.jsonl:3: field 'id': duplicate id 'x' (first at golden.jsonl:1)"
    )


def test_duplicate_numeric_and_string_id(tmp_path: Path) -> None:
    loaded = load(
        tmp_path, "golden.jsonl", jsonl({"id": 7, "question": "a"}, {"id": "7", "question": "b"})
    )

    assert "duplicate id '7' (first at golden.jsonl:1)" in loaded.problems[0].message


def test_duplicate_derived_id(tmp_path: Path) -> None:
    content = "- question: Same?\n- question: Other?\n- question: '  Same?  '\n"
    loaded = load(tmp_path, "golden.yaml", content)

    derived = stable_case_id("Same?")
    assert [case.id for case in loaded.cases] == [derived, stable_case_id("Other?")]
    (problem,) = loaded.problems
    assert problem.case_id == derived
    assert problem.message.startswith(
        f"golden.yaml:3: field 'id': duplicate id '{derived}' derived from the question "
        "(first at golden.yaml:1)"
    )


def test_explicit_id_lets_a_question_repeat(tmp_path: Path) -> None:
    content = jsonl({"question": "Same?"}, {"id": "again", "question": "Same?"})
    loaded = load(tmp_path, "golden.jsonl", content)

    assert [case.id for case in loaded.cases] == [stable_case_id("Same?"), "again"]


def test_unknown_fields_are_metadata(tmp_path: Path) -> None:
    row = {
        "question": "q",
        "difficulty": "hard",
        "source": {"doc": "x.pdf", "page": 3},
        "metadata": {"owner": "search-team"},
        "file": "elsewhere.txt",
    }
    case = only_case(load(tmp_path, "golden.jsonl", jsonl(row)))

    assert case.metadata == {
        "difficulty": "hard",
        "source": {"doc": "x.pdf", "page": 3},
        "owner": "search-team",
        "file": "elsewhere.txt",
    }
    assert case.file == "golden.jsonl"


# --- encodings, empty files, extensions -------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("golden.jsonl", '{"question": "café?"}\n'),
        ("golden.json", '[{"question": "café?"}]'),
        ("golden.yaml", "- question: café?\n"),
        ("golden.csv", "question,answer\ncafé?,oui\n"),
    ],
)
def test_utf8_bom_is_accepted(tmp_path: Path, name: str, content: str) -> None:
    case = only_case(load(tmp_path, name, b"\xef\xbb\xbf" + content.encode("utf-8")))

    assert case.question == "café?"
    assert case.line == (2 if name.endswith(".csv") else 1)


@pytest.mark.parametrize("name", ["golden.jsonl", "golden.json", "golden.yaml", "golden.csv"])
def test_not_utf8_names_the_byte_offset_and_line(tmp_path: Path, name: str) -> None:
    content = b"question\n" + "café\n".encode("latin-1")
    message = load_error(tmp_path, name, content)

    assert message == (
        f"{name}:2: the file is not valid UTF-8: byte 0xe9 at byte offset 12 cannot be "
        "decoded; save the file as UTF-8."
    )


def test_surrogate_pairs_are_ordinary_text(tmp_path: Path) -> None:
    content = '{"id": "emoji", "question": "Why \\ud83d\\ude00?"}\n'
    case = only_case(load(tmp_path, "golden.jsonl", content))
    assert case.question == "Why \U0001f600?"


def test_utf16_file_says_so(tmp_path: Path) -> None:
    message = load_error(tmp_path, "golden.csv", "question\nq\n".encode("utf-16"))

    assert message.startswith("golden.csv: the file is encoded as UTF-16")
    assert "save it as UTF-8" in message


@pytest.mark.parametrize("name", ["golden.jsonl", "golden.json", "golden.yaml", "golden.csv"])
@pytest.mark.parametrize("content", [b"", b"\n  \n", b"\xef\xbb\xbf"])
def test_an_empty_file_holds_no_case_as_an_empty_list_does(
    tmp_path: Path, name: str, content: bytes
) -> None:
    loaded = load(tmp_path, name, content)

    assert loaded.cases == [] and loaded.problems == []


def test_unsupported_extension(tmp_path: Path) -> None:
    message = load_error(tmp_path, "golden.txt", "question\n")

    assert message == (
        "golden.txt: unsupported golden file extension '.txt'; use one of .csv, .json, "
        ".jsonl, .yaml, .yml."
    )


def test_extension_is_case_insensitive(tmp_path: Path) -> None:
    assert only_case(load(tmp_path, "GOLDEN.JSONL", jsonl({"question": "q"}))).question == "q"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(GoldenFileError) as raised:
        load_golden_file(tmp_path / "golden.jsonl", display_path="golden.jsonl")

    assert str(raised.value).startswith("golden.jsonl: the golden file cannot be read: ")
    assert isinstance(raised.value, UsageError)


# --- round trip -------------------------------------------------------------------------

_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), whitelist_characters="\n\t"),
    max_size=30,
)
_non_blank = _text.filter(lambda text: bool(text.strip()))


@st.composite
def _rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    questions = draw(st.lists(_non_blank, min_size=1, max_size=8, unique_by=str.strip))
    rows: list[dict[str, Any]] = []
    for index, question in enumerate(questions):
        row: dict[str, Any] = {"question": question}
        if draw(st.booleans()):
            row["id"] = f"case-{index}"
        if draw(st.booleans()):
            row["answer"] = draw(_non_blank)
        if draw(st.booleans()):
            row["contexts"] = draw(st.lists(_text, max_size=3))
        if draw(st.booleans()):
            row["tags"] = draw(st.lists(_text, min_size=1, max_size=2))
        rows.append(row)
    return rows


def _as_csv(rows: list[dict[str, Any]]) -> tuple[str, list[int]]:
    """The rows as CSV text, and the physical line where each row starts."""
    columns = ["id", "question", "answer", "contexts", "tags"]
    output = io.StringIO()
    writer = csv.writer(output, lineterminator="\n")
    writer.writerow(columns)
    lines: list[int] = []
    for row in rows:
        lines.append(output.getvalue().count("\n") + 1)
        writer.writerow(
            [
                json.dumps(row[column])
                if isinstance(row.get(column), list)
                else row.get(column, "")
                for column in columns
            ]
        )
    return output.getvalue(), lines


@pytest.mark.slow
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=_rows())
def test_valid_rows_round_trip_through_jsonl_and_csv(
    tmp_path: Path, rows: list[dict[str, Any]]
) -> None:
    expected_ids = [row.get("id", stable_case_id(row["question"])) for row in rows]
    csv_text, csv_lines = _as_csv(rows)

    for name, content, lines in [
        ("golden.jsonl", jsonl(*rows), list(range(1, len(rows) + 1))),
        ("golden.csv", csv_text, csv_lines),
    ]:
        loaded = load(tmp_path, name, content)
        assert loaded.problems == []
        assert [case.id for case in loaded.cases] == expected_ids
        assert [case.line for case in loaded.cases] == lines
        for case, row in zip(loaded.cases, rows, strict=True):
            assert case.question == row["question"]
            assert case.answer == row.get("answer")
            assert case.context_texts == row.get("contexts", [])
            assert case.tags == row.get("tags", [])


def test_yaml_anchors_and_merge_keys(tmp_path: Path) -> None:
    content = (
        "- &base\n"
        "  question: a\n"
        "  tags: &tags [smoke]\n"
        "- <<: *base\n"
        "  question: b\n"
        "- question: c\n"
        "  tags: *tags\n"
    )
    loaded = load(tmp_path, "golden.yaml", content)

    assert [(case.question, case.line, case.tags) for case in loaded.cases] == [
        ("a", 1, ["smoke"]),
        ("b", 4, ["smoke"]),
        ("c", 6, ["smoke"]),
    ]


def test_yaml_python_tags_are_refused_per_case(tmp_path: Path) -> None:
    content = "- question: a\n  answer: !!python/object/apply:os.getcwd []\n- question: b\n"
    loaded = load(tmp_path, "golden.yaml", content)

    assert [case.question for case in loaded.cases] == ["b"]
    assert loaded.problems[0].message.startswith(
        "golden.yaml:1: the case cannot be read: could not determine a constructor for the tag"
    )
    assert loaded.problems[0].message.endswith("(line 2, column 11)")
