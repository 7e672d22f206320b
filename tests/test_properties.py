"""Property tests: the loaders, the metrics and the gate hold their promises on any input.

- The loaders raise nothing but ``GoldenFileError`` on any bytes, and every problem they
  report names the file and a line inside it; valid cases survive a round trip through
  every format and shape.
- Whatever schema-valid replies a judge gives, a built-in LLM metric scores in [0, 1] or
  not applicable, and raises ``JudgeReplyError`` exactly when a reply does not fit its
  request.
- Whatever mix of scores, not-applicable results and errors a run produces, the gate's
  means and intervals stay in [0, 1] and do not depend on the order of the cases.

Inputs that once crashed the loaders or broke the interval (values PyYAML cannot build,
integers past Python's digit limit, U+2028 in YAML, identical scores) are kept as explicit
examples beside the properties.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from gate_runs import builtin_metrics, csv_rows
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from pytest_ragas_gate.exceptions import CaseError, GoldenFileError, JudgeReplyError
from pytest_ragas_gate.gate.verdict import evaluate_gate
from pytest_ragas_gate.golden.cases import Context, GoldenCase, stable_case_id
from pytest_ragas_gate.golden.loading import load_golden_file
from pytest_ragas_gate.judges.requests import (
    AttributeAnswer,
    AttributeStatements,
    ChunkVerdict,
    ChunkVerdicts,
    Claims,
    ClaimVerdict,
    ClaimVerdicts,
    ClassifyCorrectness,
    ContextReview,
    CorrectnessClasses,
    CorrectnessItem,
    DocumentUsage,
    ExtractClaims,
    GeneratedQuestions,
    GenerateQuestions,
    JudgeChunks,
    JudgeRequest,
    RateRelevancy,
    RelevancyRating,
    ReviewContexts,
    StatementVerdict,
    StatementVerdicts,
    VerifyClaims,
)
from pytest_ragas_gate.metrics.base import Metric, MetricResult
from pytest_ragas_gate.metrics.relevancy import AnswerRelevancy
from pytest_ragas_gate.scoring.results import CaseResult
from pytest_ragas_gate.settings.config import GateConfig

# How many examples each property draws, and whether they are new on every run, is the
# hypothesis profile's choice (tests/conftest.py). Each loader example writes one small file
# and reads it back, so the fixture's directory is simply reused across examples.
LOADER = settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

FORMATS = (".jsonl", ".json", ".yaml", ".csv")

# --- loaders: any input ---------------------------------------------------------------------


def last_line_of(data: bytes) -> int:
    """The highest line number a message about ``data`` may name.

    str.splitlines is the most liberal reading of "a line" (it also breaks on a lone \\r,
    U+2028 …), so a format that counts lines its own way still fits under it.
    """
    return len(data.decode("utf-8", errors="replace").splitlines()) + 1


def check_any_input(folder: Path, extension: str, data: bytes) -> None:
    """Load ``data`` and check the loader's promises about errors and problems."""
    shown = f"golden/set{extension}"
    path = folder / f"fuzz{extension}"
    path.write_bytes(data)
    last_line = last_line_of(data)
    try:
        loaded = load_golden_file(path, display_path=shown)
    except GoldenFileError as error:
        message = str(error)
        assert message.startswith(f"{shown}:"), message
        where = re.match(rf"{re.escape(shown)}:(\d+)", message)
        if "is not valid" in message:
            # A syntax or encoding error must say where it is.
            assert where is not None, message
        if where is not None:
            assert 1 <= int(where.group(1)) <= last_line, message
        event("file error")
        return
    # Shows in --hypothesis-show-statistics how deep the inputs get.
    event("cases" if loaded.cases else "no case")
    event("problems" if loaded.problems else "no problem")
    assert loaded.path == shown
    for case in loaded.cases:
        assert case.file == shown
        assert 1 <= case.line <= last_line
    for problem in loaded.problems:
        assert problem.file == shown
        assert 1 <= problem.line <= last_line, problem.message
        assert problem.message.startswith(f"{shown}:{problem.line}: "), problem.message
        assert isinstance(problem.as_error(), CaseError)
    # Cases and problems each come in file order.
    assert [case.line for case in loaded.cases] == sorted(case.line for case in loaded.cases)
    assert [p.line for p in loaded.problems] == sorted(p.line for p in loaded.problems)


FIELD_NAMES = (
    "id",
    "question",
    "Question",
    " user_input ",
    "query",
    "answer",
    "response",
    "contexts",
    "retrieved_contexts",
    "reference",
    "ground_truth",
    "ground_truths",
    "relevant_context_ids",
    "reference_context_ids",
    "tags",
    "thresholds",
    "metadata",
    "text",
    "content",
    "page_content",
    "cases",
    "faithfulness",
)
_SHORT_TEXT = st.text(max_size=8) | st.sampled_from(
    ["", " ", "q", "苹果", "🚀", "\x00", "\ufeff", "\u2028", "null", "[1]", '{"a": 1}', "é"]
)
_JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | _SHORT_TEXT
    | st.sampled_from(FIELD_NAMES)
)
_JSON_VALUES = st.recursive(
    _JSON_SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(FIELD_NAMES) | _SHORT_TEXT, children, max_size=5)
    ),
    max_leaves=16,
)
_TEXTS_OR_LISTS = _SHORT_TEXT | st.lists(_SHORT_TEXT, max_size=3)
_CONTEXT_ITEMS = (
    _SHORT_TEXT
    | st.dictionaries(st.sampled_from(["id", "text", "content", "page_content"]), _JSON_SCALARS)
    | _JSON_SCALARS
)
# Values close to what each field expects, so that inputs reach the per-field checks
# rather than stopping at "not an object".
_PLAUSIBLE: dict[str, st.SearchStrategy[Any]] = {
    "question": _SHORT_TEXT,
    "id": _SHORT_TEXT | st.integers(-5, 10**6) | st.floats(),
    "answer": _SHORT_TEXT,
    "contexts": st.lists(_CONTEXT_ITEMS, max_size=3),
    "reference": _TEXTS_OR_LISTS,
    "ground_truths": _TEXTS_OR_LISTS,
    "relevant_context_ids": st.lists(_JSON_SCALARS, max_size=3),
    "tags": _TEXTS_OR_LISTS,
    "thresholds": st.dictionaries(
        st.sampled_from(["faithfulness", "mrr", ""]) | _SHORT_TEXT,
        st.floats() | st.integers(-2, 2) | _JSON_SCALARS,
        max_size=3,
    ),
}


@st.composite
def case_objects(draw: st.DrawFn) -> dict[str, Any]:
    """A case-like object: mostly a question, some known or aliased fields, odd values."""
    names = draw(st.lists(st.sampled_from(FIELD_NAMES), max_size=5, unique=True))
    if draw(st.integers(0, 4)) > 0:
        names.insert(0, draw(st.sampled_from(["question", "user_input", "Query"])))
    row: dict[str, Any] = {}
    for name in names:
        plausible = _PLAUSIBLE.get(name.strip().lower(), _PLAUSIBLE["question"])
        row[name] = draw(plausible if draw(st.integers(0, 3)) > 0 else _JSON_VALUES)
    return row


_CASE_OBJECTS = case_objects()
_TOP_LEVELS = st.one_of(
    st.lists(_CASE_OBJECTS | _JSON_VALUES, max_size=5),
    st.fixed_dictionaries({"cases": st.lists(_CASE_OBJECTS | _JSON_VALUES, max_size=4)}),
    st.dictionaries(
        st.sampled_from(FIELD_NAMES), st.lists(_JSON_VALUES, min_size=1, max_size=3), max_size=4
    ),
    _JSON_VALUES,
)


@st.composite
def mutated(draw: st.DrawFn, texts: st.SearchStrategy[str], tokens: Sequence[str]) -> str:
    """A text, sometimes cut short, with a slice dropped or a stray token inserted."""
    text = draw(texts)
    # Most texts stay intact, so that they get past the syntax checks to the fields.
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):
        position = draw(st.integers(0, len(text)))
        operation = draw(st.sampled_from(["keep", "truncate", "drop", "insert"]))
        if operation == "truncate":
            text = text[:position]
        elif operation == "drop":
            text = text[:position] + text[position + draw(st.integers(1, 5)) :]
        elif operation == "insert":
            text = text[:position] + draw(st.sampled_from(tokens)) + text[position:]
    return text


def soup(tokens: Sequence[str], max_size: int = 40) -> st.SearchStrategy[str]:
    """Texts assembled from a format's tokens and a few random characters."""
    return st.lists(st.sampled_from(tokens) | st.text(max_size=2), max_size=max_size).map("".join)


_JSON_TOKENS = (
    "{", "}", "[", "]", ",", ":", '"', "\\", "\\u", "\\ud800", "\n", " ", "null", "true",
    "NaN", "-Infinity", "1e999", "-0", "0.5", '"question"', '"id"', '"contexts"',
    '"thresholds"', '"cases"', '"text"', '"q"', "\x00", "\ufeff", "\u2028",
)  # fmt: skip


def _dumps(value: Any, ensure_ascii: bool) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii)


_JSON_TEXTS = st.builds(_dumps, _TOP_LEVELS, st.booleans()) | st.builds(
    lambda value: json.dumps(value, indent=2, ensure_ascii=False), _TOP_LEVELS
)
_JSONL_TEXTS = st.lists(
    st.builds(_dumps, _CASE_OBJECTS | _JSON_VALUES, st.booleans()) | soup(_JSON_TOKENS, 8),
    max_size=6,
).map("\n".join)

_YAML_TOKENS = (
    "- ", "? ", ": ", ":", "\n", "  ", "    ", "question", "cases", "answer", "contexts",
    "tags", "id", "thresholds", "text", "[", "]", "{", "}", ",", "&a ", "*a", "*b", "<<: ",
    "!!str ", "!!python/object/apply:os.getcwd []", "!foo ", "!!binary ", "!!set ", "|",
    ">-", "'", '"', "#", "---\n", "...\n", "%YAML 1.1\n", "null", "~", "true", "yes", "1",
    "0.5", ".inf", ".nan", "0x1F", "0o17", "1_000", "=", "2001-12-14", "\t", "\x00", "\x07",
    "\ufeff", "\u2028", "é", "中文", "😀", "@", "`", "%",
)  # fmt: skip


def _yaml_dump(value: Any, flow: bool | None, unicode: bool) -> str:
    return yaml.safe_dump(value, default_flow_style=flow, allow_unicode=unicode)


_YAML_DUMPS = st.builds(
    _yaml_dump, _TOP_LEVELS, st.sampled_from([None, True, False]), st.booleans()
)
# one_of picks its branches about evenly: three parts documents, one part token soup.
_YAML_TEXTS = st.one_of(_YAML_DUMPS, _YAML_DUMPS, _YAML_DUMPS, soup(_YAML_TOKENS))

_CSV_TOKENS = (
    ",", ";", "\t", "|", '"', '""', "\n", "\r\n", "\r", " ", "question", "id", "answer",
    "contexts", "tags", "thresholds", "ground_truths", "metadata", "[]", '["a", "b"]',
    "['a', 'b']", '[{"id": 1, "text": "t"}]', '{"faithfulness": 0.9}', "{'a': 2}", "[1, [2]]",
    "NaN", "1e999", "\x00", "\ufeff", "苹果", "😀",
)  # fmt: skip


@st.composite
def csv_texts(draw: st.DrawFn) -> str:
    """A header of known and unknown columns, then rows of tricky cells, maybe mis-quoted."""
    delimiter = draw(st.sampled_from(",;\t|"))
    known = st.sampled_from(FIELD_NAMES)
    header = draw(st.lists(st.one_of(known, known, known, _SHORT_TEXT), max_size=5, unique=True))
    if draw(st.integers(0, 4)) > 0:
        header.insert(draw(st.integers(0, len(header))), "question")
    cells = st.sampled_from(_CSV_TOKENS) | _SHORT_TEXT
    rows = draw(st.lists(st.lists(cells, max_size=6), max_size=5))
    text = csv_rows(
        [header, *rows], delimiter=delimiter, lineterminator=draw(st.sampled_from("\n\r"))
    )
    return draw(mutated(st.just(text), _CSV_TOKENS))


_TEXTS_BY_FORMAT: dict[str, st.SearchStrategy[str]] = {
    ".jsonl": mutated(_JSONL_TEXTS, _JSON_TOKENS),
    ".json": mutated(_JSON_TEXTS, _JSON_TOKENS),
    ".yaml": mutated(_YAML_TEXTS, _YAML_TOKENS),
    ".csv": st.one_of(csv_texts(), csv_texts(), csv_texts(), soup(_CSV_TOKENS)),
}


@pytest.mark.parametrize("extension", FORMATS)
@LOADER
@given(data=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_any_bytes_load_or_raise_a_file_error_naming_the_file(
    tmp_path: Path, extension: str, data: bytes
) -> None:
    check_any_input(tmp_path, extension, data)


@pytest.mark.parametrize("extension", FORMATS)
@LOADER
@given(data=st.data())
def test_format_shaped_text_loads_or_raises_a_file_error_naming_the_file(
    tmp_path: Path, extension: str, data: st.DataObject
) -> None:
    text = data.draw(_TEXTS_BY_FORMAT[extension], label="text")
    prefix = data.draw(st.sampled_from(["", "\ufeff"]), label="bom")
    raw = (prefix + text).encode("utf-8", errors="surrogatepass")
    check_any_input(tmp_path, extension, raw)


# --- loaders: round trip of valid cases -------------------------------------------------

# U+2028/U+2029 are left out because YAML counts them as line breaks while the other
# formats do not (see test_yaml_lines_count_only_newlines); control characters because
# YAML forbids most of them and the loaders refuse NUL on purpose.
_CHARACTERS = st.characters(
    blacklist_categories=("Cs", "Cc", "Zl", "Zp"), whitelist_characters="\n\t"
)
_SAMPLES = (
    "苹果公司成立于1976年。",
    "東京タワーはどこ？",
    "한국어 질문",
    "🚀🔥 emoji ✅ 👩🏽‍💻",
    "مرحبا بالعالم",
    "naïve café",
    "null",
    "- not a list",
    "key: value",
    "1e5",
    '"quoted"',
    "a,b;c|d",
)
_TEXT = st.lists(st.text(_CHARACTERS, max_size=12) | st.sampled_from(_SAMPLES), max_size=3).map(
    "".join
)
_NON_BLANK = _TEXT.filter(lambda text: bool(text.strip()))
_ID_PART = _NON_BLANK.map(str.strip)


@st.composite
def valid_rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Rows that load without a problem in every format, each with a known expected case."""
    questions = draw(st.lists(_NON_BLANK, min_size=1, max_size=5, unique_by=str.strip))
    rows: list[dict[str, Any]] = []
    for index, question in enumerate(questions):
        row: dict[str, Any] = {"question": question}
        if draw(st.booleans()):
            # The "#index" suffix keeps explicit ids unique whatever the drawn part holds.
            row["id"] = f"{draw(_ID_PART)}#{index}"
        if draw(st.booleans()):
            row["answer"] = draw(_NON_BLANK)
        if draw(st.booleans()):
            context = _TEXT | st.fixed_dictionaries({"id": _NON_BLANK, "text": _TEXT})
            row["contexts"] = draw(st.lists(context, max_size=3))
        if draw(st.booleans()):
            row["reference"] = draw(_NON_BLANK)
        if draw(st.booleans()):
            row["relevant_context_ids"] = draw(st.lists(_NON_BLANK, max_size=3))
        if draw(st.booleans()):
            row["tags"] = draw(st.lists(_TEXT, max_size=3))
        if draw(st.booleans()):
            minimum = st.floats(0.0, 1.0) | st.sampled_from([0, 1])
            row["thresholds"] = draw(st.dictionaries(_TEXT, minimum, max_size=3))
        if draw(st.booleans()):
            row["note"] = draw(_NON_BLANK)
        rows.append(row)
    return rows


def expected_case(
    row: dict[str, Any], shown: str, line: int, *, note_column: bool = False
) -> GoldenCase:
    """The case ``row`` loads as; ``note_column``: it sits in a column form with a note column.

    A column form pads rows with null; for a known field that means absent, while an
    unknown field keeps its null in the metadata, as a null in a row form does.
    """
    contexts = row.get("contexts")
    metadata = {"note": row.get("note")} if "note" in row or note_column else {}
    return GoldenCase(
        id=row.get("id", stable_case_id(row["question"])),
        question=row["question"],
        answer=row.get("answer"),
        contexts=None
        if contexts is None
        else [
            Context(text=item) if isinstance(item, str) else Context(**item) for item in contexts
        ],
        reference=row.get("reference"),
        relevant_context_ids=row.get("relevant_context_ids"),
        tags=row.get("tags", []),
        thresholds={metric: float(value) for metric, value in row.get("thresholds", {}).items()},
        metadata=metadata,
        file=shown,
        line=line,
    )


COLUMNS = (
    "question",
    "id",
    "answer",
    "contexts",
    "reference",
    "relevant_context_ids",
    "tags",
    "thresholds",
    "note",
)


def as_columns(rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    # A null cell means the field is absent in that row.
    present = [column for column in COLUMNS if any(column in row for row in rows)]
    return {column: [row.get(column) for row in rows] for column in present}


def write_jsonl(rows: list[dict[str, Any]]) -> tuple[str, list[int]]:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), [
        index + 1 for index in range(len(rows))
    ]


def write_json_list(rows: list[dict[str, Any]]) -> tuple[str, list[int]]:
    body = ",\n".join(json.dumps(row, ensure_ascii=False) for row in rows)
    return f"[\n{body}\n]\n", [index + 2 for index in range(len(rows))]


def write_json_cases(rows: list[dict[str, Any]]) -> tuple[str, list[int]]:
    body = ",\n".join(json.dumps(row) for row in rows)
    return f'{{"version": 1, "cases": [\n{body}\n]}}', [index + 2 for index in range(len(rows))]


def write_json_columns(rows: list[dict[str, Any]]) -> tuple[str, list[int]]:
    # The question column comes first, one value per line, so value i sits on line i + 3.
    blocks = [
        f"{json.dumps(column)}: [\n"
        + ",\n".join(json.dumps(value, ensure_ascii=False) for value in values)
        + "\n]"
        for column, values in as_columns(rows).items()
    ]
    return "{\n" + ",\n".join(blocks) + "\n}\n", [index + 3 for index in range(len(rows))]


def _yaml_items(values: list[Any]) -> tuple[str, list[int]]:
    """A block sequence dumped item by item, and the line each item starts on (from 1)."""
    text, lines = "", []
    for value in values:
        lines.append(text.count("\n") + 1)
        text += yaml.safe_dump([value], allow_unicode=True, sort_keys=False)
    return text, lines


def write_yaml_list(rows: list[dict[str, Any]]) -> tuple[str, list[int]]:
    return _yaml_items(rows)


def write_yaml_cases(rows: list[dict[str, Any]]) -> tuple[str, list[int]]:
    items, lines = _yaml_items(rows)
    return "# golden set\ncases:\n" + items, [line + 2 for line in lines]


def write_yaml_columns(rows: list[dict[str, Any]]) -> tuple[str, list[int]]:
    text, lines = "", []
    for column, values in as_columns(rows).items():
        items, item_lines = _yaml_items(values)
        if column == "question":
            lines = [text.count("\n") + 1 + line for line in item_lines]
        text += f"{column}:\n{items}"
    return text, lines


def write_csv(rows: list[dict[str, Any]]) -> tuple[str, list[int]]:
    output = io.StringIO()
    writer = csv.writer(output, lineterminator="\n")
    writer.writerow(COLUMNS)
    lines: list[int] = []
    for row in rows:
        lines.append(output.getvalue().count("\n") + 1)
        writer.writerow(
            [
                json.dumps(row[column], ensure_ascii=False)
                if isinstance(row.get(column), (list, dict))
                else row.get(column, "")
                for column in COLUMNS
            ]
        )
    return output.getvalue(), lines


WRITERS: dict[str, tuple[str, Callable[[list[dict[str, Any]]], tuple[str, list[int]]]]] = {
    "jsonl": (".jsonl", write_jsonl),
    "json-list": (".json", write_json_list),
    "json-cases": (".json", write_json_cases),
    "json-columns": (".json", write_json_columns),
    "yaml-list": (".yaml", write_yaml_list),
    "yaml-cases": (".yml", write_yaml_cases),
    "yaml-columns": (".yaml", write_yaml_columns),
    "csv": (".csv", write_csv),
}


@pytest.mark.parametrize("shape", list(WRITERS))
@LOADER
@given(rows=valid_rows())
def test_valid_cases_round_trip_through_every_format_and_shape(
    tmp_path: Path, shape: str, rows: list[dict[str, Any]]
) -> None:
    extension, write = WRITERS[shape]
    text, lines = write(rows)
    shown = f"golden{extension}"
    path = tmp_path / shown
    path.write_text(text, encoding="utf-8")

    loaded = load_golden_file(path, display_path=shown)

    assert loaded.problems == []
    note_column = shape.endswith("columns") and any("note" in row for row in rows)
    expected = [
        expected_case(row, shown, line, note_column=note_column)
        for row, line in zip(rows, lines, strict=True)
    ]
    assert loaded.cases == expected


# --- loaders: inputs that once crashed them ----------------------------------------------

_HUGE_HEX = "0x" + "f" * 4000  # about 4,800 decimal digits, over Python's int-to-str limit
_HUGE_DECIMAL = "1" * 5000  # over Python's str-to-int limit
_OVER_FLOAT = "1" + "0" * 400  # an integer no float can hold


@pytest.mark.parametrize(
    ("name", "content"),
    [
        pytest.param("golden.yaml", "- question: q\n  answer: 2001-02-30\n", id="yaml-bad-date"),
        pytest.param("golden.yaml", "- question: 0b_\n- question: ok\n", id="yaml-bad-binary"),
        pytest.param("golden.yaml", "- question: q\n  answer: !!float x\n", id="yaml-float-tag"),
        pytest.param("golden.yaml", "- question: q\n  answer: !!bool x\n", id="yaml-bool-tag"),
        pytest.param("golden.yaml", "- question: q\n  answer: !!int ''\n", id="yaml-int-tag"),
        pytest.param("golden.yaml", "- {question: q, tags: !!timestamp x}\n", id="yaml-ts-tag"),
        pytest.param("golden.yaml", "question: [2001-02-30]\n", id="yaml-bad-date-column"),
        pytest.param("golden.yaml", "2001-02-30\n", id="yaml-bad-date-top"),
        pytest.param("golden.yaml", "cases: !!bool x\n", id="yaml-bad-cases-value"),
        pytest.param("golden.yaml", f"- question: q\n  answer: {_HUGE_DECIMAL}\n", id="yaml-big"),
        pytest.param("golden.yaml", f"- question: q\n  id: {_HUGE_HEX}\n", id="yaml-huge-id"),
        pytest.param(
            "golden.yaml",
            f"- question: q\n  contexts: [{{id: {_HUGE_HEX}, text: t}}]\n",
            id="yaml-huge-context-id",
        ),
        pytest.param(
            "golden.yaml",
            f"- question: q\n  relevant_context_ids: [{_HUGE_HEX}]\n",
            id="yaml-huge-relevant-id",
        ),
        pytest.param(
            "golden.jsonl", f'{{"question": "q", "id": {_HUGE_DECIMAL}}}\n', id="jsonl-big"
        ),
        pytest.param("golden.json", f'[{{"question": "q", "id": {_HUGE_DECIMAL}}}]', id="json-big"),
        pytest.param("golden.csv", f"question,tags\nq,[{_HUGE_DECIMAL}]\n", id="csv-big"),
        pytest.param(
            "golden.jsonl",
            f'{{"question": "q", "thresholds": {{"faithfulness": {_OVER_FLOAT}}}}}\n',
            id="jsonl-threshold-over-float",
        ),
        pytest.param(
            "golden.csv",
            f'question,thresholds\nq,"{{""faithfulness"": {_OVER_FLOAT}}}"\n',
            id="csv-threshold-over-float",
        ),
        pytest.param(
            "golden.yaml",
            f"- question: q\n  thresholds: {{faithfulness: {_OVER_FLOAT}}}\n",
            id="yaml-threshold-over-float",
        ),
    ],
)
def test_values_that_once_crashed_the_loader_are_reported(
    tmp_path: Path, name: str, content: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    try:
        loaded = load_golden_file(path, display_path=name)
    except GoldenFileError as error:
        assert str(error).startswith(f"{name}:")
        return
    # One unreadable value makes its case a problem on its line; it never hides the file.
    assert loaded.problems, loaded
    assert all(problem.message.startswith(f"{name}:") for problem in loaded.problems)


@pytest.mark.parametrize("key", ["!foo k", "<<"])
def test_a_top_level_yaml_key_that_cannot_be_built_is_read_by_its_text(
    tmp_path: Path, key: str
) -> None:
    path = tmp_path / "golden.yaml"
    path.write_text(f"{key}: [a]\nquestion: [b]\n", encoding="utf-8")
    loaded = load_golden_file(path, display_path="golden.yaml")
    assert [case.question for case in loaded.cases] == ["b"]
    assert loaded.cases[0].metadata == {key.split()[-1]: "a"}


def test_yaml_lines_count_only_newlines(tmp_path: Path) -> None:
    # PyYAML's own dumper writes a raw U+2028 inside a single-quoted scalar.
    text = yaml.safe_dump([{"question": "a\u2028b c"}, {"question": "second"}], allow_unicode=True)
    assert text.count("\n") == 2
    path = tmp_path / "golden.yaml"
    path.write_text(text, encoding="utf-8")

    loaded = load_golden_file(path, display_path="golden.yaml")

    assert [case.line for case in loaded.cases] == [1, 2]


# --- metrics: any schema-valid judge reply ---------------------------------------------------

_REPLY_TEXT = st.text(max_size=20) | st.sampled_from(["", " ", "苹果公司成立于1976年。", "🚀"])


def claim_verdicts(request: VerifyClaims) -> st.SearchStrategy[ClaimVerdicts]:
    count = len(request.claims)
    # Mostly one verdict per claim; sometimes a count that does not match.
    sizes = st.just(count) | st.integers(0, count + 2)
    claim = st.sampled_from(request.claims) | _REPLY_TEXT if request.claims else _REPLY_TEXT
    verdict = st.builds(ClaimVerdict, claim=claim, supported=st.booleans(), reason=_REPLY_TEXT)
    return sizes.flatmap(
        lambda size: st.builds(
            ClaimVerdicts, verdicts=st.lists(verdict, min_size=size, max_size=size)
        )
    )


def chunk_verdict_lists(chunk_count: int) -> st.SearchStrategy[list[ChunkVerdict]]:
    def verdict(index: int) -> st.SearchStrategy[ChunkVerdict]:
        return st.builds(
            ChunkVerdict, index=st.just(index), relevant=st.booleans(), reason=_REPLY_TEXT
        )

    # Mostly every index exactly once, in any order; sometimes gaps, repeats or overflow.
    covering = st.permutations(range(chunk_count)).flatmap(
        lambda order: st.tuples(*(verdict(index) for index in order)).map(list)
    )
    arbitrary = st.lists(st.integers(0, chunk_count + 1).flatmap(verdict), max_size=chunk_count + 2)
    return covering | arbitrary


def statement_verdicts() -> st.SearchStrategy[list[StatementVerdict]]:
    return st.lists(
        st.builds(
            StatementVerdict, statement=_REPLY_TEXT, attributed=st.booleans(), reason=_REPLY_TEXT
        ),
        max_size=5,
    )


def correctness_items() -> st.SearchStrategy[list[CorrectnessItem]]:
    return st.lists(
        st.builds(CorrectnessItem, statement=_REPLY_TEXT, reason=_REPLY_TEXT), max_size=4
    )


def reply_strategy(request: JudgeRequest[Any]) -> st.SearchStrategy[BaseModel]:
    """Every reply the request's reply model accepts, biased towards ones that fit it."""
    if isinstance(request, ExtractClaims):
        return st.builds(Claims, claims=st.lists(_REPLY_TEXT, max_size=5))
    if isinstance(request, VerifyClaims):
        return claim_verdicts(request)
    if isinstance(request, AttributeStatements):
        return st.builds(StatementVerdicts, verdicts=statement_verdicts())
    if isinstance(request, ClassifyCorrectness):
        return st.builds(
            CorrectnessClasses,
            tp=correctness_items(),
            fp=correctness_items(),
            fn=correctness_items(),
        )
    if isinstance(request, RateRelevancy):
        return st.builds(
            RelevancyRating,
            rating=st.integers(1, 5),
            noncommittal=st.booleans(),
            reason=_REPLY_TEXT,
        )
    if isinstance(request, GenerateQuestions):
        return st.builds(
            GeneratedQuestions,
            questions=st.lists(_REPLY_TEXT, max_size=request.count + 1),
            noncommittal=st.booleans(),
        )
    if isinstance(request, JudgeChunks):
        return st.builds(ChunkVerdicts, verdicts=chunk_verdict_lists(len(request.chunks)))
    if isinstance(request, ReviewContexts):
        return st.builds(
            ContextReview,
            chunks=chunk_verdict_lists(len(request.contexts)),
            statements=statement_verdicts(),
        )
    if isinstance(request, AttributeAnswer):
        count = len(request.contexts)
        return st.builds(
            DocumentUsage,
            used_documents=st.lists(st.integers(0, count - 1), max_size=count)
            | st.lists(st.integers(-2, count + 2), max_size=4),
            reason=_REPLY_TEXT,
        )
    raise AssertionError(f"no reply strategy for {request.kind}")


def _covers_each_chunk_once(verdicts: list[ChunkVerdict], chunk_count: int) -> bool:
    return sorted(verdict.index for verdict in verdicts) == list(range(chunk_count))


def misfits(request: JudgeRequest[Any], reply: Any) -> set[str]:
    """What about ``reply`` does not fit ``request`` (the metric cannot score it)."""
    found: set[str] = set()
    if isinstance(request, VerifyClaims) and len(reply.verdicts) != len(request.claims):
        found.add("verify_claims")
    if isinstance(request, JudgeChunks) and not _covers_each_chunk_once(
        reply.verdicts, len(request.chunks)
    ):
        found.add("judge_chunks")
    if isinstance(request, ReviewContexts) and not _covers_each_chunk_once(
        reply.chunks, len(request.contexts)
    ):
        found.add("review_contexts.chunks")
    if isinstance(request, AttributeAnswer) and any(
        not 0 <= index < len(request.contexts) for index in reply.used_documents
    ):
        found.add("attribute_answer")
    if isinstance(request, GenerateQuestions) and not (
        reply.noncommittal or any(question.strip() for question in reply.questions)
    ):
        found.add("generate_questions")
    return found


# Per metric, the misfits it must refuse with JudgeReplyError; it scores every other reply.
REFUSED_MISFITS: dict[str, set[str]] = {
    "faithfulness": {"verify_claims"},
    "answer_relevancy": set(),
    "answer_relevancy:reverse_questions": {"generate_questions"},
    "context_precision": {"judge_chunks", "review_contexts.chunks"},
    "context_recall": set(),
    "answer_correctness": set(),
    "context_relevance": {"judge_chunks"},
    "top_doc_usage": {"attribute_answer"},
}


class HypothesisJudge:
    """A CaseJudge whose replies hypothesis draws, checked against their schema only.

    A real judge also refuses a reply that does not fit its request (and re-asks); this
    one checks that refusal agrees with :func:`misfits`, then hands the reply over anyway,
    so that the metric's own guard behind it is exercised too.
    """

    def __init__(self, data: st.DataObject) -> None:
        self.data = data
        self.misfits: set[str] = set()

    async def ask(self, request: JudgeRequest[Any]) -> Any:
        drawn = self.data.draw(reply_strategy(request), label=request.kind)
        reply = request.reply_type.model_validate(drawn.model_dump(mode="json"))
        found = misfits(request, reply)
        assert (request.reply_problem(reply) is not None) == bool(found), found
        self.misfits |= found
        return reply


def embedder_of(data: st.DataObject) -> Callable[[list[str]], Any]:
    dimensions = data.draw(st.integers(1, 6), label="dimensions")
    component = st.floats(-1e3, 1e3, allow_subnormal=False)
    vector = st.lists(component, min_size=dimensions, max_size=dimensions).filter(
        lambda values: any(abs(value) > 1e-3 for value in values)
    )

    async def embed(texts: list[str]) -> list[list[float]]:
        return [data.draw(vector, label="embedding") for _ in texts]

    return embed


@st.composite
def scored_cases(draw: st.DrawFn, needs_reference: bool) -> GoldenCase:
    contexts = draw(
        st.lists(
            st.builds(Context, id=st.none() | _ID_PART, text=_REPLY_TEXT), min_size=1, max_size=4
        )
    )
    has_reference = needs_reference or draw(st.booleans())
    return GoldenCase(
        id="case-1",
        question=draw(_NON_BLANK),
        answer=draw(_NON_BLANK),
        contexts=contexts,
        reference=draw(_NON_BLANK) if has_reference else None,
        file="golden.jsonl",
        line=1,
    )


def metric_named(name: str, data: st.DataObject) -> Metric:
    if name == "answer_relevancy:reverse_questions":
        return AnswerRelevancy(strategy="reverse_questions", embedder=embedder_of(data))
    return builtin_metrics()[name]


@pytest.mark.parametrize("name", list(REFUSED_MISFITS))
@given(data=st.data())
def test_llm_metrics_score_in_the_unit_interval_or_refuse_a_misfit_reply(
    name: str, data: st.DataObject
) -> None:
    metric = metric_named(name, data)
    case = data.draw(scored_cases("reference" in metric.required_fields), label="case")
    judge = HypothesisJudge(data)

    try:
        result = asyncio.run(metric.score(case, judge))
    except JudgeReplyError as error:
        event("refused")
        assert judge.misfits & REFUSED_MISFITS[name], f"refused a reply that fits: {error}"
        assert repr(case.id) in str(error)
        return

    assert not judge.misfits & REFUSED_MISFITS[name], f"scored a misfit reply: {judge.misfits}"
    assert isinstance(result, MetricResult)
    event("not applicable" if result.score is None else "scored")
    if result.score is None:
        assert result.reason, "a not-applicable result must say why"
    else:
        assert isinstance(result.score, float)
        assert math.isfinite(result.score) and 0.0 <= result.score <= 1.0, result


# --- the gate: any mix of scores, not-applicable results and errors -----------------------------

GATED = ("faithfulness", "answer_relevancy", "context_recall", "top_doc_usage")
# Identical scores and small-denominator ratios are what real runs produce most.
_SCORE = st.floats(0.0, 1.0) | st.sampled_from([0.0, 1.0, 0.5, 1 / 3, 2 / 3, 0.25, 0.75, 0.1])


@st.composite
def case_results(draw: st.DrawFn) -> list[CaseResult]:
    count = draw(st.integers(0, 12))
    same = draw(st.none() | _SCORE)  # sometimes every score of a metric is the same
    results: list[CaseResult] = []
    for index in range(count):
        if draw(st.integers(0, 9)) == 0:
            results.append(
                CaseResult(
                    id=f"case-{index}",
                    source=f"golden.jsonl:{index + 1}",
                    metrics=list(GATED),
                    error="the case is malformed",
                )
            )
            continue
        scores: dict[str, float | None] = {}
        errors: dict[str, str] = {}
        for metric in GATED:
            outcome = draw(st.sampled_from(["score", "score", "score", "none", "error"]))
            if outcome == "error":
                errors[metric] = "JudgeReplyError: the reply cannot be scored"
            elif outcome == "none":
                scores[metric] = None
            else:
                scores[metric] = same if same is not None else draw(_SCORE)
        results.append(
            CaseResult(
                id=f"case-{index}",
                source=f"golden.jsonl:{index + 1}",
                metrics=list(GATED),
                scores=scores,
                errors=errors,
            )
        )
    return results


_CONFIGS = st.builds(
    GateConfig,
    confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]),
    bootstrap_resamples=st.integers(100, 300),
    seed=st.integers(0, 2**32),
    rule=st.sampled_from(["mean", "ci_lower", "ci_upper"]),
    max_error_rate=st.floats(0.0, 1.0),
)


@given(results=case_results(), config=_CONFIGS, data=st.data())
def test_gate_means_and_intervals_stay_in_the_unit_interval(
    results: list[CaseResult], config: GateConfig, data: st.DataObject
) -> None:
    verdict = evaluate_gate(results, list(GATED), config)

    for metric, aggregate in verdict.metrics.items():
        assert aggregate.n + aggregate.not_applicable + aggregate.errors == len(results), metric
        if aggregate.n == 0:
            assert aggregate.mean is aggregate.ci_low is aggregate.ci_high is None
            continue
        assert aggregate.mean is not None
        assert aggregate.ci_low is not None and aggregate.ci_high is not None
        assert 0.0 <= aggregate.mean <= 1.0, aggregate
        assert 0.0 <= aggregate.ci_low <= aggregate.ci_high <= 1.0, aggregate
        assert aggregate.ci_low <= aggregate.mean <= aggregate.ci_high, aggregate
        if aggregate.std is not None:
            assert 0.0 <= aggregate.std <= 1.0
    assert 0.0 <= verdict.error_rate <= 1.0
    if verdict.alignment is not None:
        assert 0.0 <= verdict.alignment.rate <= 1.0
    # xdist workers report cases in any order; the verdict must not notice.
    shuffled = data.draw(st.permutations(results), label="order")
    assert evaluate_gate(shuffled, list(GATED), config) == verdict


def test_mean_of_identical_scores_lies_in_its_interval() -> None:
    score = 5 / 97
    results = [
        CaseResult(id=f"case-{index}", source=f"golden.jsonl:{index + 1}", scores={"m": score})
        for index in range(3)
    ]
    aggregate = evaluate_gate(results, ["m"], GateConfig()).metrics["m"]

    assert aggregate.ci_low is not None and aggregate.ci_high is not None
    assert aggregate.mean is not None
    assert aggregate.ci_low <= aggregate.mean <= aggregate.ci_high, aggregate
