"""Labels files and the labelling loop: reading, errors, export and import."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from gate_runs import case, write

from pytest_ragas_gate import cli
from pytest_ragas_gate.cli.labelling import select_cases
from pytest_ragas_gate.exceptions import GoldenFileError
from pytest_ragas_gate.golden.golden_fields import human_labels
from pytest_ragas_gate.trust.labels import read_labels


def test_labels_read_from_jsonl_yaml_and_csv_alike(tmp_path: Path) -> None:
    (tmp_path / "labels.jsonl").write_text(
        '{"id": "a", "human": {"faithfulness": true}}\n'
        '{"id": "b", "file": "golden/qa.jsonl", "human_faithfulness": 0.5}\n',
        encoding="utf-8",
    )
    (tmp_path / "labels.yaml").write_text(
        "- id: a\n  human: {faithfulness: 1}\n- id: b\n  file: golden/qa.jsonl\n"
        "  human_faithfulness: 0.5\n",
        encoding="utf-8",
    )
    (tmp_path / "labels.csv").write_text(
        "id;file;human_faithfulness\na;;yes\nb;golden/qa.jsonl;0.5\n", encoding="utf-8"
    )

    read = [
        [(row.case_id, row.file, row.labels) for row in read_labels(tmp_path / name, name).rows]
        for name in ("labels.jsonl", "labels.yaml", "labels.csv")
    ]

    expected = [("a", None, {"faithfulness": 1.0}), ("b", "golden/qa.jsonl", {"faithfulness": 0.5})]
    assert read == [expected, expected, expected]


def test_rows_without_a_label_are_kept_out_and_empty_cells_mean_unlabelled(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("id,human_faithfulness,human_context_recall\na,,\nb,1,\n", encoding="utf-8")

    rows = read_labels(path, "labels.csv").rows

    assert [(row.case_id, row.labels) for row in rows] == [("b", {"faithfulness": 1.0})]


def test_every_bad_row_is_reported_at_once_by_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(
        '{"id": "a", "human_faithfulness": 1.5}\n'
        "not json\n"
        '{"id": "a", "human_faithfulness": 1}\n'
        '{"id": "b", "human_faithfulness": 1}\n'
        '{"id": "b", "human": {"faithfulness": "high"}}\n',
        encoding="utf-8",
    )

    with pytest.raises(GoldenFileError) as caught:
        read_labels(path, "labels.jsonl", metrics=["faithfulness"])

    assert str(caught.value).splitlines() == [
        "labels.jsonl: 3 label row(s) are malformed:",
        "labels.jsonl:1: field 'human_faithfulness': expected a label from 0 to 1 (1 = good, "
        "0 = bad; yes/no and true/false also read), or an empty cell for not labelled, got 1.5",
        "labels.jsonl:2: invalid JSON at column 1: Expecting value",
        "labels.jsonl:5: field 'human': the label of 'faithfulness' must be a number from 0 "
        "to 1 (1 = good, 0 = bad; yes/no and true/false also read), got 'high' (str)",
    ]


def test_a_second_row_for_a_case_names_the_first(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("id,human_faithfulness\na,1\na,0\n", encoding="utf-8")

    with pytest.raises(
        GoldenFileError,
        match=r"labels.csv:3: field 'id': a second row for "
        r"case 'a' \(first at labels.csv:2\)",
    ):
        read_labels(path, "labels.csv")


def test_a_csv_without_an_id_column_says_what_it_needs(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("case,human_faithfulness\na,1\n", encoding="utf-8")

    with pytest.raises(GoldenFileError, match="needs an 'id' column"):
        read_labels(path, "labels.csv")


def test_export_samples_every_score_stratum_before_the_near_threshold_cases() -> None:
    results = [case(f"c{index:02d}", index / 49, line=index + 1) for index in range(50)]
    results[0] = results[0].model_copy(update={"human": {"faithfulness": 0.0}})

    chosen = select_cases(
        results, "faithfulness", count=10, threshold=0.85, near_threshold=0.2, seed=0
    )

    reasons = [why for _, why in chosen]
    assert len(chosen) == 10 and len({result.id for result, _ in chosen}) == 10
    assert "c00" not in {result.id for result, _ in chosen}  # already labelled
    random_part = [result.scores["faithfulness"] for result, _ in chosen[:8]]
    # Two from each fifth of the judge's scores (8 random rows over 5 strata: 2,2,2,1,1).
    strata = sorted(min(int(score * 5), 4) for score in random_part)
    assert strata == [0, 0, 1, 1, 2, 2, 3, 4]
    assert all(why.startswith("near the threshold 0.85") for why in reasons[8:])
    assert all(abs(result.scores["faithfulness"] - 0.85) < 0.05 for result, _ in chosen[8:])


def test_export_then_import_into_a_labels_file_and_a_golden_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "report.json", [case(f"c{index}", index / 9) for index in range(10)])
    golden = tmp_path / "golden.jsonl"
    original = [f'{{"id": "c{index}", "question": "q{index}?",  "x": 1}}' for index in range(10)]
    golden.write_text("\n".join(original) + "\n", encoding="utf-8")

    assert cli.main(["label", "export", "report.json", "-o", "to_label.csv", "-n", "4"]) == 0
    with open("to_label.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 4
    assert {"question", "answer", "contexts", "judge_faithfulness", "human_faithfulness"} <= set(
        rows[0]
    )
    rows[0]["human_faithfulness"] = "1"
    rows[1]["human_faithfulness"] = "0"
    with open("filled.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)

    assert cli.main(["label", "import", "filled.csv", "--into", "labels.csv"]) == 0
    assert cli.main(["label", "import", "filled.csv", "--into", "golden.jsonl"]) == 0

    labelled = {row.case_id: row.labels for row in read_labels("labels.csv", "labels.csv").rows}
    assert labelled == {rows[0]["id"]: {"faithfulness": 1.0}, rows[1]["id"]: {"faithfulness": 0.0}}
    lines = golden.read_text(encoding="utf-8").splitlines()
    changed = {index for index, line in enumerate(lines) if line != original[index]}
    assert {f"c{index}" for index in changed} == set(labelled)
    for index in changed:
        assert json.loads(lines[index])["human"] == labelled[f"c{index}"]


def test_import_into_yaml_is_refused_with_the_way_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("id,human_faithfulness\na,1\n", encoding="utf-8")

    status = cli.main(["label", "import", str(labels), "--into", str(tmp_path / "golden.yaml")])

    assert status == 4
    assert "keep their labels in a labels file (trust.labels)" in capsys.readouterr().err


def test_agreement_of_a_report_without_labels_says_how_to_get_some(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "report.json", [case("c1", 0.5)])

    assert cli.main(["agreement", str(tmp_path / "report.json")]) == 0
    assert "no case carries a human label" in capsys.readouterr().out


def test_export_and_import_keep_how_each_case_was_sampled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: the export said why in free text and import dropped it, so PPI took the
    # near-threshold rows for a random sample.
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "report.json", [case(f"c{index:02d}", index / 49) for index in range(50)])
    golden = tmp_path / "golden.jsonl"
    golden.write_text(
        "".join(f'{{"id": "c{index:02d}", "question": "q{index}?"}}\n' for index in range(50)),
        encoding="utf-8",
    )
    assert cli.main(["label", "export", "report.json", "-o", "to_label.csv", "-n", "10"]) == 0
    with open("to_label.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["sampled_by"] for row in rows] == ["random"] * 8 + ["near_threshold"] * 2
    for row in rows:
        row["human_faithfulness"] = "1"
    with open("filled.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)

    assert cli.main(["label", "import", "filled.csv", "--into", "labels.csv"]) == 0
    assert cli.main(["label", "import", "filled.csv", "--into", "golden.jsonl"]) == 0

    expected = {row["id"]: row["sampled_by"] for row in rows}
    kept = {row.case_id: row.sampled_by for row in read_labels("labels.csv", "labels.csv").rows}
    assert kept == expected
    in_golden = {
        record["id"]: record["sampled_by"]
        for record in map(json.loads, golden.read_text(encoding="utf-8").splitlines())
        if "human" in record
    }
    assert in_golden == expected


def test_inline_labels_and_a_labels_file_read_a_label_by_one_rule(tmp_path: Path) -> None:
    errors: list[str] = []
    inline = {"faithfulness": "yes", "answer_relevancy": " 0.5 ", "context_recall": None}
    assert human_labels("human", inline, errors) == {"faithfulness": 1.0, "answer_relevancy": 0.5}
    assert errors == []
    path = tmp_path / "labels.csv"
    path.write_text("id,human_faithfulness,human_answer_relevancy\na,yes, 0.5 \n", encoding="utf-8")
    labels = read_labels(path, "labels.csv", metrics=["faithfulness", "answer_relevancy"])
    assert [row.labels for row in labels.rows] == [{"faithfulness": 1.0, "answer_relevancy": 0.5}]
