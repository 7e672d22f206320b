"""Data integrity from golden file to report: text that is not valid Unicode, lists that
pandas wrote as numpy prints them, case ids that must stay apart, XML-safe JUnit.

Each case is run through ``pytest --rag-gate`` the way a user meets it: the exit status,
the errored item's message (file, line and field), and the JSON and JUnit reports.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeCall, FakeLLM, Raw, default_reply
from gate_runs import csv_rows, gate_run, read_report, use_fake_judge
from lxml import etree

from pytest_ragas_gate.golden.loading import load_golden_file
from pytest_ragas_gate.judges.cache import JudgeCache, cache_key
from pytest_ragas_gate.plugin.items import item_name
from pytest_ragas_gate.text_safety import texts_in

SCHEMA = Path(__file__).parent / "data" / "junit-10.xsd"
METRICS = "faithfulness,context_recall"

GOOD: dict[str, Any] = {
    "question": "Who founded Apple and when?",
    "answer": "Apple was founded in 1976 by Steve Jobs and Steve Wozniak.",
    "contexts": ["Apple was founded in 1976 by Steve Jobs and Steve Wozniak in Cupertino."],
    "reference": "Apple was founded in 1976 by Steve Jobs and Steve Wozniak.",
}
#: What a JSON or YAML file holds for half of a surrogate pair: a legal escape.
LONE = "\\ud800"
SURROGATE_MESSAGE = (
    "contains a lone surrogate (\\ud800), which is not valid Unicode text (an escape of "
    "half a UTF-16 surrogate pair); write the character itself instead of its escape"
)


def good(index: int) -> dict[str, Any]:
    return {"id": f"good-{index}", **GOOD}


def jsonl_around(*lines: str) -> str:
    """Valid cases on lines 1 and 2, the given raw lines, then a valid case last."""
    rows = [json.dumps(good(1)), json.dumps(good(2)), *lines, json.dumps(good(3))]
    return "\n".join(rows) + "\n"


#: How every run of this module gates: both reports, every outcome listed, no traceback.
OPTIONS: dict[str, Any] = {"metrics": METRICS, "junit": "junit.xml", "tracebacks": False}


def assert_junit_is_valid(pytester: pytest.Pytester) -> Any:
    document = etree.parse(str(pytester.path / "junit.xml"))
    etree.XMLSchema(etree.parse(str(SCHEMA))).assertValid(document)
    return document


def case_ids(pytester: pytest.Pytester) -> dict[str, str | None]:
    report = read_report(pytester.path / "report.json")
    return {case["id"]: case["error"] for case in report["cases"]}


# --- lone surrogates ----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("line", "field"),
    [
        # Without an id, the id would be derived by hashing the question.
        (f'{{"question": "Who {LONE} founded it?", "answer": "x"}}', "question"),
        (f'{{"id": "s", "question": "Who {LONE} founded it?", "answer": "x"}}', "question"),
        (f'{{"id": "a{LONE}", "question": "Q?"}}', "id"),
        (f'{{"id": "s", "question": "Q?", "answer": "a {LONE}"}}', "answer"),
        (f'{{"id": "s", "question": "Q?", "contexts": ["ok", "c {LONE}"]}}', "contexts"),
        (
            f'{{"id": "s", "question": "Q?", "retrieved_contexts": [{{"id": "{LONE}", '
            '"text": "t"}]}',
            "retrieved_contexts",
        ),
        (f'{{"id": "s", "question": "Q?", "reference": ["r", "{LONE}"]}}', "reference"),
        (f'{{"id": "s", "question": "Q?", "tags": ["{LONE}"]}}', "tags"),
        (
            f'{{"id": "s", "question": "Q?", "relevant_context_ids": ["{LONE}"]}}',
            "relevant_context_ids",
        ),
        (f'{{"id": "s", "question": "Q?", "thresholds": {{"faith{LONE}": 0.5}}}}', "thresholds"),
        (f'{{"id": "s", "question": "Q?", "source": "doc {LONE}"}}', "source"),
        (f'{{"id": "s", "question": "Q?", "metadata": {{"k{LONE}": 1}}}}', "metadata"),
    ],
    ids=lambda value: value if isinstance(value, str) and "{" not in value else "",
)
def test_a_lone_surrogate_in_jsonl_errors_only_its_case(
    pytester: pytest.Pytester, line: str, field: str
) -> None:
    (pytester.path / "golden.jsonl").write_text(jsonl_around(line), encoding="utf-8")
    result = gate_run(pytester, "-rA", **OPTIONS).result
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines([f"*golden.jsonl:3: field '{field}': {SURROGATE_MESSAGE}*"])
    ids = case_ids(pytester)
    assert [ids[f"good-{index}"] for index in (1, 2, 3)] == [None, None, None]
    assert_junit_is_valid(pytester)


def test_a_lone_surrogate_in_a_field_name_names_the_field(pytester: pytest.Pytester) -> None:
    line = f'{{"id": "s", "question": "Q?", "note{LONE}": "x"}}'
    (pytester.path / "golden.jsonl").write_text(jsonl_around(line), encoding="utf-8")
    result = gate_run(pytester, "-rA", **OPTIONS).result
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(
        [f"*golden.jsonl:3: field 'note\\ud800': its name {SURROGATE_MESSAGE}*"]
    )


def test_a_lone_surrogate_in_a_json_list_of_cases(pytester: pytest.Pytester) -> None:
    text = (
        "[\n"
        + json.dumps(good(1))
        + ",\n"
        + f'{{"question": "Who {LONE} founded it?"}},\n'
        + json.dumps(good(2))
        + "\n]\n"
    )
    (pytester.path / "golden.json").write_text(text, encoding="utf-8")
    result = gate_run(pytester, "-rA", **OPTIONS).result
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines([f"*golden.json:3: field 'question': {SURROGATE_MESSAGE}*"])


def test_a_lone_surrogate_escape_in_yaml_errors_only_its_case(pytester: pytest.Pytester) -> None:
    # libyaml refuses the escape as a syntax error of the whole file; the case alone errs.
    text = (
        "- id: good-1\n  question: Who founded Apple?\n  answer: Steve Jobs.\n"
        f'- id: bad\n  question: "Who {LONE} founded it?"\n'
        "- id: good-2\n  question: Who founded Microsoft?\n  answer: Bill Gates.\n"
    )
    (pytester.path / "golden.yaml").write_text(text, encoding="utf-8")
    result = gate_run(pytester, "-rA", **OPTIONS).result
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines([f"*golden.yaml:4: field 'question': {SURROGATE_MESSAGE}*"])


def test_a_yaml_escape_past_unicode_is_still_a_file_error(pytester: pytest.Pytester) -> None:
    text = f'- id: a\n  question: "Who \\U00110000 founded it?"\n- question: "{LONE}"\n'
    (pytester.path / "golden.yaml").write_text(text, encoding="utf-8")
    result = gate_run(pytester, "-rA", **OPTIONS).result
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["*golden.yaml:2:*: the file is not valid YAML*"])


def test_a_lone_surrogate_in_a_csv_list_cell(pytester: pytest.Pytester) -> None:
    rows = [
        ["id", "question", "contexts"],
        ["good-1", GOOD["question"], json.dumps(GOOD["contexts"])],
        ["bad", GOOD["question"], f'["ok", "{LONE}"]'],
        ["bad-python", GOOD["question"], f"['ok', '{LONE}']"],
    ]
    (pytester.path / "golden.csv").write_text(csv_rows(rows), encoding="utf-8")
    result = gate_run(pytester, "-rA", **OPTIONS).result
    result.assert_outcomes(passed=1, errors=2)
    for line in (3, 4):
        result.stdout.fnmatch_lines([f"*golden.csv:{line}: field 'contexts': {SURROGATE_MESSAGE}*"])


def test_a_golden_file_name_that_is_not_utf8_is_a_clear_file_error(
    pytester: pytest.Pytester,
) -> None:
    folder = pytester.mkdir("golden")
    (folder / "golden_ok.jsonl").write_text(json.dumps(good(1)) + "\n", encoding="utf-8")
    name = os.fsdecode(b"golden_\xff.jsonl")
    (folder / name).write_text(json.dumps(good(2)) + "\n", encoding="utf-8")
    # pytest's own last-failed cache cannot store such a node id; the gate's reports can.
    result = gate_run(pytester, "-rA", "golden", "-p", "no:cacheprovider", **OPTIONS).result
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    message = "golden/golden_\\xff.jsonl: the file name is not valid UTF-8, so no report "
    result.stdout.fnmatch_lines([f"*{message}*"])
    report = read_report(pytester.path / "report.json")
    assert report["verdict"] == "failed"
    assert any(message in text for text in texts_in(report))
    assert_junit_is_valid(pytester)


def test_a_judge_reply_with_a_lone_surrogate_still_writes_every_report(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A model cut off mid-character can send half a surrogate pair as a JSON escape.
    def responder(call: FakeCall) -> dict[str, Any] | Raw:
        reply = default_reply(call)
        if call.kind not in ("verify_claims", "review_case"):
            return reply
        for verdict in reply["verdicts"]:
            verdict["reason"] = "cut short SURROGATE"
        return Raw(json.dumps(reply).replace("SURROGATE", "\\ud83d"))

    with FakeLLM(responder=responder) as server:
        use_fake_judge(monkeypatch, server, api="openai")
        (pytester.path / "golden.jsonl").write_text(json.dumps(good(1)) + "\n", encoding="utf-8")
        result, report = gate_run(pytester, "-rA", judge="openai", cache_dir="cache", **OPTIONS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    (case,) = report["cases"]
    assert case["details"]["faithfulness"][0]["reason"] == "cut short \ud83d"
    assert_junit_is_valid(pytester)
    entries = (pytester.path / "cache").rglob("*.json")
    replies = [path for path in entries if path.parent.name != "structured_output"]
    assert len(replies) == len(server.judge_requests())


# --- pandas' numpy-form list cells ---------------------------------------------------------


def test_csv_contexts_written_from_a_ragas_dataset_keep_each_chunk(
    pytester: pytest.Pytester,
) -> None:
    # EvaluationDataset.to_hf_dataset().to_pandas().to_csv(): list columns hold numpy
    # arrays, printed as their items' reprs separated by spaces and line breaks.
    rows = [
        ["", "user_input", "retrieved_contexts", "response", "reference"],
        [
            "0",
            GOOD["question"],
            "['Apple was founded in 1976 by Steve Jobs and Steve Wozniak in Cupertino.'\n"
            " 'The company went public in 1980.']",
            GOOD["answer"],
            GOOD["reference"],
        ],
        [
            "1",
            "Where is Apple based?",
            '["Apple\'s headquarters are in Cupertino, California, in Apple Park."\n'
            " 'Apple Park opened in 2017.' 'It is a ring-shaped building.']",
            "Apple is based in Cupertino, California.",
            "Apple's headquarters are in Cupertino.",
        ],
    ]
    path = pytester.path / "golden.csv"
    path.write_text(csv_rows(rows), encoding="utf-8")
    first, second = load_golden_file(path).cases
    assert first.context_texts == [
        "Apple was founded in 1976 by Steve Jobs and Steve Wozniak in Cupertino.",
        "The company went public in 1980.",
    ]
    assert second.context_texts == [
        "Apple's headquarters are in Cupertino, California, in Apple Park.",
        "Apple Park opened in 2017.",
        "It is a ring-shaped building.",
    ]
    result, report = gate_run(pytester, "-rA", **OPTIONS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert [len(case["contexts"]) for case in report["cases"]] == [2, 3]


def test_a_numpy_summary_of_a_long_list_is_a_clear_case_error(
    pytester: pytest.Pytester,
) -> None:
    rows = [
        ["id", "question", "contexts"],
        ["good-1", GOOD["question"], json.dumps(GOOD["contexts"])],
        ["cut", GOOD["question"], "['0' '1' '2' ... '1497' '1498' '1499']"],
    ]
    (pytester.path / "golden.csv").write_text(csv_rows(rows), encoding="utf-8")
    result = gate_run(pytester, "-rA", **OPTIONS).result
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*golden.csv:3: field 'contexts' (column 3): the list was cut short when the file "
            "was written (numpy prints '...' in place of the middle of a long array)*"
        ]
    )


# --- case ids that must stay apart ---------------------------------------------------------


def test_ids_that_differ_only_in_colons_get_distinct_items(pytester: pytest.Pytester) -> None:
    rows = [{**good(1), "id": "a::b"}, {**good(2), "id": "a:_:b"}, {**good(3), "id": "a:%3Ab"}]
    (pytester.path / "golden.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8"
    )
    result = gate_run(pytester, "-rA", **OPTIONS).result
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.assert_outcomes(passed=3)
    for name in ("a:%3Ab", "a:_:b", "a:%253Ab"):
        result.stdout.fnmatch_lines([f"PASSED * golden.jsonl::{name}"])
    assert set(case_ids(pytester)) == {"a::b", "a:_:b", "a:%3Ab"}


def test_item_names_are_one_to_one_and_leave_ordinary_ids_alone() -> None:
    from urllib.parse import unquote

    ordinary = ["refund-01", "q-b3f475fb53", "中文 case", "a:b", "x[1]"]
    assert [item_name(case_id) for case_id in ordinary] == ordinary
    tricky = ["a::b", "a:_:b", "a:%3Ab", "a:::b", "%", "%25", "tab\there", "a\x00b", "x\u2028y"]
    names = [item_name(case_id) for case_id in tricky]
    assert len(set(names)) == len(names)
    for case_id, name in zip(tricky, names, strict=True):
        assert "::" not in name and unquote(name) == case_id
        assert not any(ord(character) < 0x20 for character in name)


def test_a_control_character_in_an_id_stays_out_of_xml_and_terminal(
    pytester: pytest.Pytester,
) -> None:
    rows = [{**good(1), "id": "bell\u0007one"}, {**good(2), "id": "bell\u0008one"}]
    (pytester.path / "golden.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8"
    )
    result = gate_run(pytester, "-rA", **OPTIONS).result
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    for name in ("bell%07one", "bell%08one"):
        result.stdout.fnmatch_lines([f"PASSED * golden.jsonl::{name}"])
    document = assert_junit_is_valid(pytester)
    names = {
        testcase.get("name")
        for suite in document.getroot().iter("testsuite")
        if suite.get("name") == "rag-cases"
        for testcase in suite.iter("testcase")
    }
    assert names == {"bell\\x07one", "bell\\x08one"}
    assert set(case_ids(pytester)) == {"bell\u0007one", "bell\u0008one"}


# --- writers that never fail on text -------------------------------------------------------


def test_the_cache_keys_and_stores_text_with_a_lone_surrogate(tmp_path: Path) -> None:
    payload = {"claim": "cut short \ud83d"}
    key = cache_key(judge_kind="openai", model="m", prompt_version="1", kind="k", payload=payload)
    other = cache_key(
        judge_kind="openai", model="m", prompt_version="1", kind="k", payload={"claim": "x"}
    )
    assert key != other
    cache = JudgeCache(tmp_path)
    cache.store(key, reply=payload, usage={}, about={})
    entry = cache.load(key)
    assert entry is not None and entry.reply == payload
    assert cache.write_errors == 0


def test_cache_keys_of_ordinary_text_are_unchanged() -> None:
    # Entries recorded before lone surrogates were escaped keep their keys.
    payload = {"t": "中文 é\u2028"}
    recorded = {
        "judge": "anthropic",
        "model": "m",
        "prompt_version": "1",
        "kind": "k",
        "request": payload,
    }
    text = json.dumps(recorded, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    key = cache_key(
        judge_kind="anthropic", model="m", prompt_version="1", kind="k", payload=payload
    )
    assert key == hashlib.sha256(text.encode("utf-8")).hexdigest()
