"""A catalogue of malformed golden files and rows, run through the plugin.

Every entry must give a clear message naming the file, the line (or row) and the field,
with the right consequence: a file that cannot be read at all is a usage error (exit 4);
a bad case is an errored item while the valid cases still run (exit 1); a quirk that is
harmless (a byte order mark, Windows line endings, a huge field) is accepted. Never a
traceback, never an internal error.
"""

from __future__ import annotations

import codecs
import json
from dataclasses import dataclass
from typing import Any

import pytest
from gate_runs import GOOD as FOUNDERS
from gate_runs import assert_no_traceback, csv_rows

GOOD: dict[str, Any] = {
    "question": "Who founded Apple and when?",
    "answer": "Apple was founded in 1976 by Steve Jobs and Steve Wozniak.",
    "contexts": ["Apple was founded in 1976 by Steve Jobs and Steve Wozniak in Cupertino."],
    "reference": "Apple was founded in 1976 by Steve Jobs and Steve Wozniak.",
}
METRICS = "faithfulness,context_recall,id_recall"


def good(index: int) -> dict[str, Any]:
    return {"id": f"good-{index}", **GOOD}


def jsonl(*rows: Any) -> bytes:
    """Rows between two valid ones (lines 1 and last); a str row is written verbatim."""
    lines = [json.dumps(good(1))]
    lines += [row if isinstance(row, str) else json.dumps(row) for row in rows]
    lines.append(json.dumps(good(2)))
    return ("\n".join(lines) + "\n").encode("utf-8")


def bad_row(**fields: Any) -> dict[str, Any]:
    return {"id": "bad", **GOOD, **fields}


def csv_text(*rows: list[str], header: str = "id,question,answer,contexts,reference") -> bytes:
    """A CSV with a valid row (line 2), the given rows, then another valid row."""
    contexts = json.dumps(GOOD["contexts"])
    body = csv_rows(
        [
            ["good-1", GOOD["question"], GOOD["answer"], contexts, GOOD["reference"]],
            *rows,
            ["good-2", GOOD["question"], GOOD["answer"], contexts, GOOD["reference"]],
        ]
    )
    return (header + "\n" + body).encode("utf-8")


def yaml_text(body: str) -> bytes:
    head = (
        f"- id: good-1\n  question: {GOOD['question']}\n  answer: {GOOD['answer']}\n"
        f"  contexts: {json.dumps(GOOD['contexts'])}\n  reference: {GOOD['reference']}\n"
    )
    return (head + body).encode("utf-8")


@dataclass(frozen=True)
class Bad:
    """One catalogue entry.

    ``outcome`` is ``file`` (exit 4), ``case`` (that many errored items, the valid cases
    pass) or ``ok`` (every case passes); ``message`` is an fnmatch pattern of the output.
    """

    name: str
    content: bytes
    outcome: str
    message: str = ""
    errors: int = 1
    passed: int = 2


CONTEXTS = json.dumps(GOOD["contexts"])
CATALOGUE = [
    # --- files that cannot be read at all: exit 4 ------------------------------------------
    Bad("golden.json", b'[{"question": "Q?",\n', "file", "*golden.json:2:1: *not valid JSON*"),
    Bad("golden.json", b'[{"question": "Q?",', "file", "*golden.json:1*"),
    # Python 3.13 reports this trailing comma on line 1, earlier versions on line 2.
    Bad("golden.json", b'[{"question": "Q?"},\n]', "file", "*golden.json:[12]:*not valid JSON*"),
    Bad(
        "golden.yaml",
        yaml_text('- question: "unclosed\n  answer: x\n'),
        "file",
        "*golden.yaml:*: the file is not valid YAML*",
    ),
    Bad(
        "golden.csv",
        b'id,question\n1,"never closed\n',
        "file",
        "*golden.csv:2*quote*",
    ),
    Bad(
        "golden.csv",
        b"id,answer\n1,x\n",
        "file",
        "*golden.csv:1: *'question'*",
    ),
    Bad("golden.json", b"42", "file", "*golden.json: the top level of the file is an int*"),
    Bad(
        "golden.json",
        json.dumps({"question": ["a?", "b?"], "answer": ["x"]}).encode(),
        "file",
        "*golden.json: *'question' has 2, 'answer' has 1*",
    ),
    Bad(
        "golden.csv",
        "question,answer\nQué pasa?,Sí\n".encode("latin-1"),
        "file",
        "*golden.csv:2: the file is not valid UTF-8: byte 0xe9*save the file as UTF-8*",
    ),
    Bad(
        "golden.jsonl",
        json.dumps(good(1), ensure_ascii=False).encode()
        + b"\n"
        + '{"question": "Café?", "answer": "oui"}\n'.encode()
        + '{"question": "Crème?", "answer": "non"}\n'.encode("cp1252"),
        "file",
        "*golden.jsonl:3: the file is not valid UTF-8: byte 0xe8*",
    ),
    Bad(
        "golden.jsonl",
        json.dumps(good(1)).encode("utf-16"),
        "file",
        "*golden.jsonl: the file is encoded as UTF-16*save it as UTF-8*",
    ),
    Bad(
        "golden.yaml",
        yaml_text("- question: Q\x00?\n"),
        "file",
        "*golden.yaml:6: the file is not valid YAML: character #x0000*",
    ),
    Bad(
        "golden.json",
        # Deep enough for every Python's JSON decoder (3.13 parses 5,000 levels).
        ("[" * 100_000 + "]" * 100_000).encode(),
        "file",
        "*golden.json: the JSON is nested too deeply*",
    ),
    # --- one bad case: an errored item, the others still run ----------------------------
    Bad("golden.jsonl", jsonl('{"question": "Q?",'), "case", "*golden.jsonl:2: invalid JSON*"),
    Bad(
        "golden.jsonl",
        jsonl(bad_row(question=42)),
        "case",
        "*golden.jsonl:2: field 'question': expected a non-empty string, got int*",
    ),
    Bad(
        "golden.jsonl",
        jsonl(bad_row(question="  ")),
        "case",
        "*golden.jsonl:2: field 'question': expected a non-empty string, got an empty string*",
    ),
    Bad(
        "golden.jsonl",
        jsonl({"id": "bad", "answer": "x"}),
        "case",
        "*golden.jsonl:2: field 'question' is required*",
    ),
    Bad(
        "golden.jsonl",
        jsonl(bad_row(contexts="Apple was founded in 1976.")),
        "case",
        "*golden.jsonl:2: field 'contexts': expected a list*got str*",
    ),
    Bad(
        "golden.jsonl",
        jsonl(bad_row(retrieved_contexts=[1, 2], contexts=None)),
        "case",
        "*golden.jsonl:2: field 'retrieved_contexts': *got int as item 1*",
    ),
    Bad(
        "golden.jsonl",
        jsonl(good(1)),
        "case",
        "*golden.jsonl:2: field 'id': duplicate id 'good-1' (first at golden.jsonl:1)*",
    ),
    Bad(
        "golden.jsonl",
        jsonl(bad_row(thresholds={"faithfulnes": 0.8})),
        "case",
        "*golden.jsonl:2: field 'thresholds': unknown metric 'faithfulnes'; "
        "did you mean 'faithfulness'?*",
    ),
    Bad(
        "golden.jsonl",
        jsonl(bad_row(thresholds={"faithfulness": 1.5})),
        "case",
        "*golden.jsonl:2: field 'thresholds': *between 0 and 1, got 1.5*",
    ),
    Bad(
        "golden.jsonl",
        jsonl(bad_row(thresholds={"context_recall": -0.2})),
        "case",
        "*golden.jsonl:2: field 'thresholds': *between 0 and 1, got -0.2*",
    ),
    Bad(
        "golden.jsonl",
        jsonl(bad_row(answer=["a", "list"])),
        "case",
        "*golden.jsonl:2: field 'answer': expected a string, got list*",
    ),
    Bad(
        "golden.jsonl",
        jsonl(bad_row(relevant_context_ids="c1")),
        "case",
        "*golden.jsonl:2: field 'relevant_context_ids': expected a list*",
    ),
    Bad(
        "golden.jsonl",
        jsonl("[1, 2, 3]"),
        "case",
        "*golden.jsonl:2: expected an object with a 'question' field, got list*",
    ),
    Bad(
        "golden.jsonl",
        jsonl('{"id": "bad", "question": "Who\x00?"}'),
        "case",
        "*golden.jsonl:2: a NUL byte (\\x00) in column 31*",
    ),
    # Legal JSON and YAML escapes of half a surrogate pair: not Unicode text.
    Bad(
        "golden.jsonl",
        jsonl('{"question": "Who \\ud800 founded it?", "answer": "x"}'),
        "case",
        "*golden.jsonl:2: field 'question': contains a lone surrogate (\\ud800), which is "
        "not valid Unicode text*",
    ),
    Bad(
        "golden.jsonl",
        jsonl('{"id": "bad", "question": "Q?", "contexts": ["ok", "\\udc00"]}'),
        "case",
        "*golden.jsonl:2: field 'contexts': contains a lone surrogate (\\udc00)*",
    ),
    Bad(
        "golden.yaml",
        yaml_text('- id: bad\n  question: "Who \\ud800 founded it?"\n'),
        "case",
        "*golden.yaml:6: field 'question': contains a lone surrogate (\\ud800)*",
        passed=1,
    ),
    Bad(
        "golden.csv",
        csv_text(["bad", "Q?", "A", "['ok' '\\ud800']", "R"]),
        "case",
        "*golden.csv:3: field 'contexts': contains a lone surrogate (\\ud800)*",
    ),
    Bad(
        "golden.csv",
        csv_text(["bad", "Q?", "A", "['0' '1' ... '1499']", "R"]),
        "case",
        "*golden.csv:3: field 'contexts' (column 4): the list was cut short*",
    ),
    Bad(
        "golden.csv",
        csv_text(["bad", "Q?", "A", CONTEXTS, "R", "one cell too many"]),
        "case",
        "*golden.csv:3: the row has 6 cells but the header names 5 columns*",
    ),
    Bad(
        "golden.csv",
        csv_text(["bad", "Q?", "A", CONTEXTS]),
        "case",
        "*golden.csv:3: the row has 4 cells but the header names 5 columns: no cell for "
        "'reference' (write an empty cell to leave it blank)*",
    ),
    Bad(
        "golden.csv",
        csv_text(["bad", "Q?", "A", "not a list", "R"]),
        "case",
        "*golden.csv:3: field 'contexts' (column 4): expected a JSON array*",
    ),
    Bad(
        "golden.csv",
        csv_text(["bad", "Who\x00?", "A", CONTEXTS, "R"]),
        "case",
        "*golden.csv:3: field 'question': a NUL byte (\\x00)*",
    ),
    Bad(
        "golden.yaml",
        yaml_text("- just a string\n"),
        "case",
        "*golden.yaml:6: expected an object with a 'question' field, got str*",
        passed=1,
    ),
    Bad(
        "golden.yaml",
        yaml_text("- question: !!python/object:os.system echo\n"),
        "case",
        "*golden.yaml:6:*",
        passed=1,
    ),
    # --- harmless quirks: accepted ----------------------------------------------------------
    Bad("golden.jsonl", codecs.BOM_UTF8 + jsonl(), "ok"),
    Bad("golden.csv", codecs.BOM_UTF8 + csv_text(), "ok"),
    Bad("golden.jsonl", jsonl().replace(b"\n", b"\r\n"), "ok"),
    Bad("golden.csv", csv_text().replace(b"\n", b"\r\n"), "ok"),
    Bad(
        "golden.yaml",
        yaml_text(
            f"- id: good-2\n  question: {GOOD['question']}\n  answer: {GOOD['answer']}\n"
            # Every gated metric's fields, so the case counts towards min_coverage.
            f"  contexts:\n  - {GOOD['contexts'][0]}\n  reference: {GOOD['reference']}\n"
        ).replace(b"\n", b"\r\n"),
        "ok",
    ),
    Bad(
        "golden.jsonl",
        jsonl(bad_row(id="long", answer=GOOD["answer"] + " filler" * 14_000)),
        "ok",
        passed=3,
    ),
    # --- a field no judge can read in one request: a per-case error, not a stall ----------
    Bad(
        "golden.jsonl",
        jsonl(bad_row(answer=GOOD["answer"] + " filler" * 850_000)),
        "case",
        "*golden.jsonl:2: field 'answer': a text of 5,950,0* characters, over the limit of "
        "1,000,000 per field*",
    ),
]


def test_the_catalogue_is_large_enough() -> None:
    assert len(CATALOGUE) >= 25
    assert any(len(entry.content) > 5_000_000 for entry in CATALOGUE)


@pytest.mark.parametrize(
    "entry",
    CATALOGUE,
    ids=[f"{index:02d}-{entry.outcome}-{entry.name}" for index, entry in enumerate(CATALOGUE)],
)
def test_bad_input_gives_a_clear_message(pytester: pytest.Pytester, entry: Bad) -> None:
    (pytester.path / entry.name).write_bytes(entry.content)
    result = pytester.runpytest("--rag-gate", "--rag-gate-metrics", METRICS, "-rA")
    assert_no_traceback(result)
    if entry.outcome == "file":
        assert result.ret == pytest.ExitCode.USAGE_ERROR
    elif entry.outcome == "case":
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.assert_outcomes(passed=entry.passed, errors=entry.errors)
    else:
        assert result.ret == pytest.ExitCode.OK, result.stdout.str()
        result.assert_outcomes(passed=entry.passed)
    if entry.message:
        result.stdout.fnmatch_lines([entry.message])


def test_malformed_row_errors_and_the_others_still_run(pytester: pytest.Pytester) -> None:
    path = pytester.path / "golden.jsonl"
    path.write_text(
        json.dumps({**FOUNDERS, "id": "a"})
        + "\n"
        + json.dumps({"id": "bad", "question": "Q?", "contexts": "not a list"})
        + "\n"
        + "{not json\n"
        + json.dumps({**FOUNDERS, "id": "b"})
        + "\n",
        encoding="utf-8",
    )
    result = pytester.runpytest("--rag-gate", "-rA")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=2, errors=2)
    result.stdout.fnmatch_lines(["*golden.jsonl:2: field 'contexts'*"])
    result.stdout.fnmatch_lines(["*golden.jsonl:3:*"])
    result.stdout.fnmatch_lines(
        ["FAILED 2 of 4 case(s) errored (50% > max_error_rate 0%)", "RAG gate: FAILED"]
    )
    assert_no_traceback(result)


@pytest.mark.slow
def test_ten_thousand_rows_with_one_bad_row(pytester: pytest.Pytester) -> None:
    rows = [
        {"id": f"r{i}", "question": f"Q{i}?", "contexts": [{"id": "c1", "text": "t"}]}
        for i in range(10_000)
    ]
    rows[7_776] = {"id": "r7776", "question": "Q?", "contexts": {"id": "c1"}}
    lines = [json.dumps({**row, "relevant_context_ids": ["c1"]}) for row in rows]
    (pytester.path / "golden.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = pytester.runpytest("--rag-gate", "--rag-gate-metrics", "id_recall", "-q")
    assert_no_traceback(result)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=9_999, errors=1)
    result.stdout.fnmatch_lines(["*golden.jsonl:7777: field 'contexts': expected a list*"])


@pytest.mark.slow
def test_a_directory_without_golden_files_says_what_was_looked_for(
    pytester: pytest.Pytester,
) -> None:
    data = pytester.mkdir("data")
    (data / "cases.jsonl").write_text(json.dumps(good(1)) + "\n", encoding="utf-8")
    result = pytester.runpytest("--rag-gate", "data")
    assert_no_traceback(result)
    distributed = pytester.runpytest("--rag-gate", "data", "-n", "2")
    assert distributed.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    distributed.stdout.fnmatch_lines(["FAILED no golden cases were scored: no golden file *"])
    # Nothing collected exits 5, as pytest says it, whether run serially or under xdist.
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(
        [
            "FAILED no golden cases were scored: no golden file was collected "
            "(under directories, golden files match golden*.jsonl, *",
            "RAG gate: FAILED",
        ]
    )


def test_deselecting_every_case_is_no_tests_collected(pytester: pytest.Pytester) -> None:
    (pytester.path / "golden.jsonl").write_text(json.dumps(good(1)) + "\n", encoding="utf-8")
    result = pytester.runpytest("--rag-gate", "-k", "no-such-case")
    assert_no_traceback(result)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(
        [
            "FAILED no golden cases were scored: "
            "golden.jsonl (1 case(s), deselected by -k 'no-such-case')"
        ]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["nosuch.jsonl"], "file or directory not found: nosuch.jsonl", id="path"),
        pytest.param(["-k", "case#1"], "Wrong expression passed to '-k'", id="k-expression"),
    ],
)
def test_a_pytest_usage_error_is_its_message_not_a_gate_verdict(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    (pytester.path / "golden.jsonl").write_text(json.dumps(good(1)) + "\n", encoding="utf-8")
    result = pytester.runpytest("--rag-gate", "--rag-gate-report", "report.json", *args)
    assert_no_traceback(result)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()
    # Not "RAG gate: FAILED — Block deployment" over cases the typo kept from running.
    assert "RAG gate" not in result.stdout.str()
    assert not (pytester.path / "report.json").exists()


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param([], id="serial"),
        pytest.param(["-n", "2"], id="xdist", marks=pytest.mark.slow),
        pytest.param(["--continue-on-collection-errors"], id="continue-on-collection-errors"),
    ],
)
def test_an_unreadable_file_next_to_a_valid_one_fails_closed(
    pytester: pytest.Pytester, extra: list[str]
) -> None:
    (pytester.path / "golden_good.jsonl").write_text(json.dumps(good(1)) + "\n", encoding="utf-8")
    (pytester.path / "golden_bad.yaml").write_text("cases:\n  - id: [unclosed\n", encoding="utf-8")
    result = pytester.runpytest("--rag-gate", "--rag-gate-report", "report.json", *extra)
    assert_no_traceback(result)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["*golden_bad.yaml:3:1: the file is not valid YAML*"])
    assert "Safe to deploy" not in result.stdout.str()
    if extra:
        # The readable file was scored, and the gate says what it could not read.
        result.stdout.fnmatch_lines(
            [
                "FAILED 1 golden file(s) could not be read, so their cases were not scored: "
                "golden_bad.yaml:3:1: *",
                "RAG gate: FAILED",
                "Block deployment — 1 golden file(s) unreadable; partial run: "
                "gated 1 of 1 golden case(s); not gated: golden_bad.yaml (error)",
            ]
        )
        report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
        assert report["verdict"] == "failed"
        assert [case["id"] for case in report["cases"]] == [good(1)["id"]]
