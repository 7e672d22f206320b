"""Human labels end to end: inline or in a labels file, agreement, PPI, floors, re-gating."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from gate_runs import (
    WORKERS,
    assert_no_traceback,
    case_row,
    gate_run,
    read_report,
    write_config,
    write_golden,
)
from lxml import etree

from pytest_ragas_gate import cli

#: Labels people gave: the judge agrees on all but case 5 (it scores 1, people say 0).
LABELS = {0: 1, 1: 1, 2: 0, 3: 0, 4: 1, 5: 0, 6: 1}


#: How every run of this module gates: the offline judge, both reports, fixed order.
OPTIONS: dict[str, Any] = {"judge": "offline", "junit": "junit.xml", "disable": ("randomly",)}


def good(index: int) -> dict[str, Any]:
    return case_row(index)


def unfaithful(index: int) -> dict[str, Any]:
    """Faithfulness 0 with the offline judge: the contexts do not support the answer."""
    return {**case_row(index), "answer": "Bill Gates founded Apple in 1999 in Seattle."}


def golden_rows(*, inline: bool) -> list[dict[str, Any]]:
    rows = [unfaithful(index) if index in (2, 3) else good(index) for index in range(10)]
    if inline:
        for index, label in LABELS.items():
            rows[index]["human"] = {"faithfulness": label}
    return rows


def labels_csv(path: Path) -> Path:
    lines = ["id,question,human_faithfulness"]
    lines += [
        f"case-{index:03d},(context for the labeller),{label}" for index, label in LABELS.items()
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def configure(directory: Path, **extra: Any) -> None:
    write_config(
        directory,
        metrics=["faithfulness"],
        thresholds={"faithfulness": 0.3},
        rules={"faithfulness": "ppi_lower"},
        ppi_min_labels=5,
        bootstrap_resamples=200,
        cache="off",
        **extra,
    )


def human_figures(report: dict[str, Any]) -> tuple[Any, Any]:
    return report["agreement"], report["metrics"]["faithfulness"]


def test_inline_labels_give_agreement_and_the_ppi_estimate_in_every_report(
    pytester: pytest.Pytester,
) -> None:
    write_golden(pytester.path, golden_rows(inline=True))
    configure(pytester.path)

    result, report = gate_run(pytester, **OPTIONS)

    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "judge–human agreement (95% CI in brackets):",
            "  faithfulness (n=7 labelled): bias 0.14 *AUROC 0.83 *",
            "    PPI 0.857 [0.577–1.000] on the human scale vs judge mean 0.800 "
            "(7 labelled, 3 judged only)",
        ]
    )
    agreement = report["agreement"]["faithfulness"]
    assert agreement["n"] == 7 and agreement["binary"] is True
    # Case 5 is the one disagreement: scored 1, labelled 0, tied with the positives.
    assert agreement["auroc"]["value"] == pytest.approx(10 / 12)
    ppi = report["metrics"]["faithfulness"]["ppi"]
    # Judge mean over the 3 unlabelled cases (all faithful) minus its error on the labelled.
    assert ppi["estimate"] == pytest.approx(1.0 - 1 / 7)
    assert report["metrics"]["faithfulness"]["labelled"] == 7
    assert {case["id"]: case["human"] for case in report["cases"]}["case-005"] == {
        "faithfulness": 0.0
    }
    gate_suite = ET.parse(pytester.path / "junit.xml").getroot().find("testsuite[@name='rag-gate']")
    assert gate_suite is not None
    properties = {
        prop.get("name"): prop.get("value")
        for prop in gate_suite.iter("property")
        if prop.get("name", "").startswith("ppi")
    }
    assert properties["ppi"] == f"{1 - 1 / 7:.4f}"


def test_a_labels_file_gives_the_same_figures_as_inline_labels(
    pytester: pytest.Pytester,
) -> None:
    write_golden(pytester.path, golden_rows(inline=True))
    configure(pytester.path)
    _, inline = gate_run(pytester, **OPTIONS)

    write_golden(pytester.path, golden_rows(inline=False))
    labels_csv(pytester.path / "labels.csv")
    result, from_file = gate_run(pytester, "--rag-gate-labels", "labels.csv", **OPTIONS)

    assert result.ret == 0, result.stdout.str()
    assert human_figures(from_file) == human_figures(inline)


def test_regate_of_a_saved_report_reproduces_the_figures_and_the_verdict(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    write_golden(pytester.path, golden_rows(inline=False))
    labels_csv(pytester.path / "labels.csv")
    # A floor the judge misses: the run fails on agreement alone.
    configure(pytester.path, labels="labels.csv", min_agreement={"faithfulness": {"kappa": 0.9}})
    result, report = gate_run(pytester, **OPTIONS)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["FAILED faithfulness judge–human agreement: kappa 0.70 < 0.90 (n=7 labelled)"]
    )

    capsys.readouterr()
    status = cli.main(["regate", str(pytester.path / "report.json"), "-o", "again.json"])
    again = read_report(Path("again.json"))

    assert status == 1
    assert human_figures(again) == human_figures(report)
    assert again["failures"] == report["failures"]
    outcomes = {
        case.get("name"): case.find("failure") is not None
        for case in ET.parse(pytester.path / "junit.xml").getroot().iter("testcase")
    }
    assert outcomes["agreement:faithfulness"] is True
    schema = etree.XMLSchema(etree.parse(str(Path(__file__).parent / "data" / "junit-10.xsd")))
    schema.assertValid(etree.parse(str(pytester.path / "junit.xml")))


def test_rag_gate_agreement_prints_the_figures_of_a_report_with_a_labels_file(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    write_golden(pytester.path, golden_rows(inline=False))
    configure(pytester.path)
    gate_run(pytester, **OPTIONS)
    labels_csv(pytester.path / "labels.csv")

    capsys.readouterr()
    status = cli.main(
        [
            "agreement",
            str(pytester.path / "report.json"),
            "--labels",
            str(pytester.path / "labels.csv"),
        ]
    )
    out = capsys.readouterr().out

    assert status == 0
    assert "faithfulness (n=7 labelled): bias 0.14" in out
    assert "PPI 0.857" in out


def test_bad_label_rows_are_named_by_file_line_and_field(pytester: pytest.Pytester) -> None:
    write_golden(pytester.path, golden_rows(inline=False))
    configure(pytester.path)
    (pytester.path / "labels.csv").write_text(
        "id,human_faithfulness,human_faithfulnes\ncase-000,1,\ncase-001,great,\n,1,\ncase-003,,0\n",
        encoding="utf-8",
    )

    result, _ = gate_run(pytester, "--rag-gate-labels", "labels.csv", **OPTIONS)

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*labels.csv: 3 label row(s) are malformed:",
            "labels.csv:3: field 'human_faithfulness': expected a label from 0 to 1 *got 'great'",
            "labels.csv:4: field 'id': expected the id of a golden case*",
            "labels.csv:5: field 'human_faithfulnes': unknown metric 'faithfulnes'; "
            "did you mean 'faithfulness'?",
        ]
    )
    assert_no_traceback(result)


def test_a_bad_inline_label_is_an_error_of_its_case_only(pytester: pytest.Pytester) -> None:
    rows = golden_rows(inline=True)
    rows[1]["human"] = {"faithfulness": 2}
    write_golden(pytester.path, rows)
    configure(pytester.path, max_error_rate=0.5)

    result, report = gate_run(pytester, **OPTIONS)

    result.stdout.fnmatch_lines(
        ["*golden.jsonl:2: field 'human': the label of 'faithfulness' must be a number*"]
    )
    assert report["agreement"]["faithfulness"]["n"] == 6


@pytest.mark.slow
def test_two_xdist_workers_give_the_figures_of_a_serial_run(pytester: pytest.Pytester) -> None:
    write_golden(pytester.path, golden_rows(inline=False))
    labels_csv(pytester.path / "labels.csv")
    configure(pytester.path, labels="labels.csv")
    _, serial = gate_run(pytester, "-p", "no:xdist", **OPTIONS)

    result, parallel = gate_run(pytester, "-n", "2", **OPTIONS)

    assert result.ret == 0, result.stdout.str()
    assert human_figures(parallel) == human_figures(serial)
    assert json.dumps(parallel["metrics"]) == json.dumps(serial["metrics"])


def _targeted_rows() -> list[dict[str, Any]]:
    """10 unfaithful cases nobody labelled, 6 faithful ones people labelled 0."""
    rows = [unfaithful(index) for index in range(10)]
    rows += [{**good(index), "human": {"faithfulness": 0}} for index in range(10, 16)]
    return rows


def _ppi_config(directory: Path) -> None:
    write_config(
        directory,
        metrics=["faithfulness"],
        thresholds={"faithfulness": 0.3},
        rules={"faithfulness": "ppi"},
        ppi_min_labels=5,
        bootstrap_resamples=200,
        cache="off",
    )


def test_ppi_stays_within_0_1_and_the_verdict_quotes_the_table(pytester: pytest.Pytester) -> None:
    # Before: "PPI -1.000 [0.000–-1.000]" and a FAILED line quoting the judge mean over the
    # unlabelled cases (0.00) where the table shows 0.375.
    write_golden(pytester.path, _targeted_rows())
    _ppi_config(pytester.path)
    result, report = gate_run(pytester, **OPTIONS)
    assert_no_traceback(result)
    result.stdout.fnmatch_lines(
        [
            "faithfulness *0.375*ppi*16*FAIL",
            "    PPI 0.000 [0.000–0.000] on the human scale vs judge mean 0.375 "
            "(6 labelled, 10 judged only)",
            "FAILED faithfulness PPI estimate 0.00 < 0.30 (PPI 0.000 [0.000–0.000], 95% CI; "
            "n=6 labelled of 16; judge mean 0.375)",
        ]
    )
    ppi = report["metrics"]["faithfulness"]["ppi"]
    assert (ppi["estimate"], ppi["ci_low"], ppi["ci_high"]) == (0.0, 0.0, 0.0)


def test_labels_picked_near_the_threshold_are_left_out_of_ppi(pytester: pytest.Pytester) -> None:
    rows = _targeted_rows()
    for row in rows[10:]:
        row["sampled_by"] = "near_threshold"
    write_golden(pytester.path, rows)
    _ppi_config(pytester.path)
    result, report = gate_run(pytester, **OPTIONS)
    assert_no_traceback(result)
    result.stdout.fnmatch_lines(
        [
            "FAILED faithfulness rule ppi needs at least 5 randomly sampled labelled cases, "
            "has 0; *",
        ]
    )
    assert report["metrics"]["faithfulness"]["ppi"] is None
    # Agreement still measures the judge on every label.
    assert report["agreement"]["faithfulness"]["n"] == 6
    assert {case["id"]: case["sampled_by"] for case in report["cases"]}["case-010"] == (
        "near_threshold"
    )


def test_a_random_part_beside_a_targeted_part_gives_ppi_on_the_random_part(
    pytester: pytest.Pytester,
) -> None:
    rows = [unfaithful(index) for index in range(10)]
    rows += [{**good(index), "human": {"faithfulness": 1}} for index in range(10, 16)]
    rows += [
        {**good(index), "human": {"faithfulness": 0}, "sampled_by": "near_threshold"}
        for index in range(16, 20)
    ]
    write_golden(pytester.path, rows)
    _ppi_config(pytester.path)
    result, report = gate_run(pytester, **OPTIONS)
    assert_no_traceback(result)
    ppi = report["metrics"]["faithfulness"]["ppi"]
    assert (ppi["labelled"], ppi["unlabelled"], ppi["left_out"]) == (6, 14, 4)
    result.stdout.fnmatch_lines(
        [
            "    PPI * (6 labelled, 14 judged only; 4 labelled near the threshold left out, "
            "not a random sample)",
        ]
    )


def test_a_bad_sampled_by_is_named_with_its_file_and_line(pytester: pytest.Pytester) -> None:
    rows = _targeted_rows()
    rows[10]["sampled_by"] = "by hand"
    write_golden(pytester.path, rows)
    _ppi_config(pytester.path)
    result, _ = gate_run(pytester, **OPTIONS)
    assert_no_traceback(result)
    result.stdout.fnmatch_lines(
        ["*golden.jsonl:11*field 'sampled_by': expected one of random, near_threshold*"]
    )


def _labels_with_problems(directory: Path) -> None:
    absolute = (directory / "golden.jsonl").resolve()
    lines = [
        "id,file,human_faithfulness",
        "case-000,./golden.jsonl,1",  # 2: written with ./ — the same file
        f"case-001,{absolute},1",  # 3: an absolute path — the same file
        "case-404,,1",  # 4: no such case
        "case-002,,1",  # 5: case 2 labelled twice, two ways
        "case-002,golden.jsonl,0",  # 6
        "case-003,other.jsonl,0",  # 7: no such golden file
    ]
    (directory / "labels.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_label_rows_naming_no_case_or_one_case_two_ways_are_warned_about(
    pytester: pytest.Pytester,
) -> None:
    # Before: every such row was silently ignored in the gate run (only `rag-gate
    # agreement` warned), and a file given as ./golden.jsonl or absolute matched nothing.
    write_golden(pytester.path, golden_rows(inline=False))
    configure(pytester.path)
    _labels_with_problems(pytester.path)
    result, report = gate_run(pytester, "--rag-gate-labels", "labels.csv", **OPTIONS)
    assert_no_traceback(result)
    result.stdout.fnmatch_lines_random(
        [
            "*rag-gate: labels: labels.csv:4: field 'id': no golden case 'case-404'; its "
            "labels are not used (strict_labels: true makes this an error)",
            "*rag-gate: labels: labels.csv:7: field 'file': no golden file 'other.jsonl' was "
            "collected (golden files: golden.jsonl); its labels are not used*",
            "*rag-gate: labels: labels.csv:5 and labels.csv:6: field 'human_faithfulness': "
            "conflicting labels for case 'case-002' of golden.jsonl (1 and 0); keep one row "
            "per case (line 6 wins)*",
        ]
    )
    human = {case["id"]: case["human"] for case in report["cases"]}
    assert human["case-000"] == {"faithfulness": 1.0}
    assert human["case-001"] == {"faithfulness": 1.0}
    assert human["case-002"] == {"faithfulness": 0.0}


@pytest.mark.parametrize("workers", WORKERS)
def test_strict_labels_makes_those_rows_a_usage_error(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    write_golden(pytester.path, golden_rows(inline=False))
    configure(pytester.path, strict_labels=True)
    _labels_with_problems(pytester.path)
    result, _ = gate_run(pytester, "--rag-gate-labels", "labels.csv", *workers, **OPTIONS)
    assert_no_traceback(result)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.lines + result.stderr.lines
    assert any(
        "rag-gate: the labels file labels.csv has 3 problem(s) (strict_labels: true):" in line
        for line in output
    ), output
    assert "labels.csv:4: field 'id': no golden case 'case-404'; its labels are not used" in output
    assert "RAG gate" not in result.stdout.str()
