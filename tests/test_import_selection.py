"""``rag-gate import`` options that choose and shape cases: --map, --where, --since/--until,
--sample/--seed/--stratify."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from gate_runs import GOOD
from test_import import golden, run_import
from test_import_traces import openinference_trace, request


def chat_logs(directory: Path, count: int) -> Path:
    """An application's own log shape, which no importer knows."""
    records = [
        {
            "request": {
                "id": f"req-{index}",
                "at": f"2026-11-{10 + index % 10:02d}T12:00:00Z",
                "messages": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": f"Question {index}?"},
                ],
            },
            "retrieval": {"hits": [{"text": f"chunk {index}a"}, {"text": f"chunk {index}b"}]},
            "reply": f"Answer {index}.",
            "env": "prod" if index % 4 else "staging",
            "tenant": ["a", "a", "a", "b"][index % 4] if index < 40 else "c",
        }
        for index in range(count)
    ]
    path = directory / "logs.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


MAP = [
    "--map", "id=request.id",
    "--map", "question=request.messages[-1].content",
    "--map", "answer=reply",
    "--map", "contexts=retrieval.hits[*].text",
    "--map", "timestamp=request.at",
    "--map", "metadata.env=env",
    "--map", "metadata.tenant=tenant",
]  # fmt: skip


def import_logs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *options: str, count: int = 8
) -> tuple[int, str, str, list[dict[str, Any]]]:
    source = chat_logs(tmp_path, count)
    output = tmp_path / "golden.jsonl"
    output.unlink(missing_ok=True)
    status, out, err = run_import(capsys, "json", str(source), "-o", str(output), *options)
    return status, out, err, golden(output) if output.exists() else []


def test_map_reads_any_json_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err, rows = import_logs(tmp_path, capsys, *MAP, count=2)
    assert (status, err) == (0, ""), err
    assert rows[1] == {
        "id": "req-1",
        "question": "Question 1?",
        "answer": "Answer 1.",
        "contexts": ["chunk 1a", "chunk 1b"],
        "metadata": {
            "env": "prod",
            "tenant": "a",
            "import": {"format": "json", "file": str(tmp_path / "logs.jsonl"), "line": 2},
        },
    }


def test_a_map_that_finds_no_question_names_the_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err, _ = import_logs(
        tmp_path, capsys, "--map", "question=request.messages[5].content", count=1
    )
    assert status == 4
    assert (
        "--map question=request.messages[5].content matches nothing in any of the 1 "
        "record(s)" in err
    )
    assert "request.messages holds no list with an item [5]" in err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--map", "question"], "--map 'question': expected FIELD=PATH"),
        (["--map", "score=a.b"], "FIELD is one of id, question, answer"),
        (["--map", "question=a..b"], "is no path at character"),
        (["--stratify", "env"], "--stratify KEY shares a sample: give --sample N too"),
        (["--since", "last week"], "expected an ISO 8601 date or time"),
        (["--where", "env"], "expected KEY=VALUE"),
    ],
)
def test_bad_options_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    status, _, err, rows = import_logs(tmp_path, capsys, *options, count=1)
    assert status == 4 and rows == []
    assert message in err


def test_map_is_for_the_json_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = chat_logs(tmp_path, 1)
    status, _, err = run_import(
        capsys, "deepeval", str(source), "-o", str(tmp_path / "g.jsonl"), "--map", "id=x"
    )
    assert status == 4 and "--map names fields of any JSON shape with the json format" in err


def test_where_since_and_until_keep_matching_cases_and_count_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _, rows = import_logs(
        tmp_path, capsys, *MAP, "--where", "env=prod", "--since", "2026-11-12",
        "--until", "2026-11-16T00:00:00+00:00", count=10,
    )  # fmt: skip
    assert status == 0, out
    assert [row["id"] for row in rows] == ["req-2", "req-3", "req-5"]
    assert "read 10 record(s) from 1 file(s); wrote 3 case(s)" in out
    assert (
        "by reason: 3 env is not 'prod' (--where), 3 at or after --until, 1 before --since" in out
    )


def test_since_skips_cases_without_a_timestamp(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err, _ = import_logs(
        tmp_path, capsys, "--map", "question=request.messages[-1].content", "--since", "2026-01-01"
    )
    assert status == 4
    assert "nothing written (8 no timestamp (--since/--until))" in err


def test_a_sample_is_the_same_on_every_import_and_changes_with_the_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def sample(*options: str) -> list[str]:
        status, out, _, rows = import_logs(tmp_path, capsys, *MAP, *options, count=60)
        assert status == 0, out
        return [row["id"] for row in rows]

    first = sample("--sample", "10", "--seed", "7")
    assert len(first) == 10 and first == sample("--sample", "10", "--seed", "7")
    assert first != sample("--sample", "10", "--seed", "8")
    # the file's order is kept among the chosen cases
    assert first == sorted(first, key=lambda case_id: int(case_id.split("-")[1]))
    # a sample of 10 out of the 12 "prod" cases holds only "prod" cases
    narrowed = sample("--sample", "10", "--where", "env=staging")
    assert len(narrowed) == 10 and all(int(case_id[4:]) % 4 == 0 for case_id in narrowed)


def test_stratify_shares_the_sample_by_metadata_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _, rows = import_logs(
        tmp_path, capsys, *MAP, "--sample", "12", "--stratify", "tenant", count=60
    )
    assert status == 0, out
    assert "wrote 12 case(s) (sampled from 60, seed 0, stratified by tenant)" in out
    # 30 a, 10 b, 20 c of 60: proportional shares of 12
    assert Counter(row["metadata"]["tenant"] for row in rows) == {"a": 6, "c": 4, "b": 2}


def test_traces_filtered_by_span_metadata(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spans = [request(openinference_trace(index, GOOD, start=index)) for index in range(6)]
    source = tmp_path / "traces.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in spans), encoding="utf-8")
    output = tmp_path / "golden.jsonl"
    status, out, _ = run_import(
        capsys, "otlp", str(source), "-o", str(output), "--where", "session.id=session-1"
    )
    assert status == 0, out
    assert [row["id"] for row in golden(output)] == [f"{i:032x}" for i in (1, 3, 5)]
