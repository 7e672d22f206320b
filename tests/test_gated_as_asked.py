"""End to end: what the user asked is what is gated.

A threshold on a metric the run does not compute used to vanish and the run passed; a
citation gate passed when the system stopped citing.
"""

from __future__ import annotations

from typing import Any

import pytest
from gate_runs import GOOD, gate_run, write_config, write_jsonl

OPTIONS: dict[str, Any] = {"judge": "offline", "cache": "off", "disable": ("randomly",)}

TICKET = "A day ticket is valid for 3 hours from its first use."


def test_a_command_line_threshold_on_an_unselected_metric_exits_4(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    outcome = gate_run(pytester, metrics="faithfulness", threshold="context_recall=0.99", **OPTIONS)
    assert outcome.ret == pytest.ExitCode.USAGE_ERROR
    outcome.stderr.fnmatch_lines(
        [
            "*setting 'thresholds' from --rag-gate-threshold: a threshold for 'context_recall', "
            "which is not among the run's metrics (faithfulness): add it to metrics: (or "
            "--rag-gate-metrics faithfulness,context_recall), or remove the threshold*"
        ]
    )
    assert "Traceback" not in outcome.stderr.str() + outcome.stdout.str()


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("thresholds", {"context_recall": 0.99}),
        ("tag_thresholds", {"billing": {"context_recall": 0.99}}),
    ],
)
def test_a_configured_threshold_on_an_unselected_metric_exits_4(
    pytester: pytest.Pytester, setting: str, value: Any
) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    write_config(pytester.path, metrics=["faithfulness"], **{setting: value})
    outcome = gate_run(pytester, **OPTIONS)
    assert outcome.ret == pytest.ExitCode.USAGE_ERROR
    outcome.stderr.fnmatch_lines(
        [f"*setting {setting!r} from rag_gate.yaml:1: a threshold for 'context_recall'*"]
    )


def test_a_null_threshold_on_an_unselected_metric_is_fine(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    write_config(pytester.path, metrics=["faithfulness"], thresholds={"context_recall": None})
    assert gate_run(pytester, **OPTIONS).ret == pytest.ExitCode.OK


def test_a_case_threshold_on_an_unselected_metric_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    rows = [GOOD, {**GOOD, "id": "own", "thresholds": {"answer_relevancy": 0.99}}]
    write_jsonl(pytester, "golden.jsonl", rows)
    outcome = gate_run(pytester, metrics="faithfulness", **OPTIONS)
    # The reports still say which case asked for what: the case is an error, the gate fails.
    assert outcome.ret == pytest.ExitCode.USAGE_ERROR
    assert outcome.report["verdict"] == "failed"
    outcome.stdout.fnmatch_lines(
        [
            "*golden.jsonl:2: field 'thresholds': a threshold for 'answer_relevancy', which "
            "is not among the run's metrics (faithfulness)*",
        ]
    )
    outcome.stdout.fnmatch_lines(["RAG gate: FAILED"])


def test_a_citation_gate_fails_when_the_system_stops_citing(pytester: pytest.Pytester) -> None:
    cited = {
        "question": "How long is a day ticket valid?",
        "answer": "A day ticket is valid for 3 hours from its first use [1].",
        "contexts": [TICKET],
    }
    rows = [{**cited, "id": "cited"}]
    rows += [
        {**cited, "id": f"uncited-{index}", "answer": cited["answer"].replace(" [1]", "")}
        for index in range(11)
    ]
    write_jsonl(pytester, "golden.jsonl", rows)
    outcome = gate_run(
        pytester, metrics="citation_recall", threshold="citation_recall=0.8", **OPTIONS
    )
    assert outcome.ret == pytest.ExitCode.TESTS_FAILED
    recall = outcome.report["metrics"]["citation_recall"]
    assert (recall["n"], recall["not_applicable"], recall["mean"]) == (12, 0, pytest.approx(1 / 12))
    scores = {case["id"]: case["scores"]["citation_recall"] for case in outcome.report["cases"]}
    assert scores["uncited-0"] == 0.0
    outcome.stdout.fnmatch_lines(["FAILED citation_recall mean 0.08 < 0.80*"])
