"""``-W error`` and ``filterwarnings = error``: the gate's warnings stay readable, and fail.

A warning the gate raises about a golden row becomes an error of the case it names, with
the warning's ``file:line`` message; a warning about the run's config (a labels file that
does not fit the golden set) becomes the usage error its ``strict_*`` setting makes it.
Never a collection traceback through the plugin's own source.
"""

from __future__ import annotations

from typing import Any

import pytest
from gate_runs import GOOD, WORKERS, assert_no_traceback, gate_run, write_config, write_jsonl

#: GOOD with its contexts under a misspelt key: a warning, and the case has no contexts.
MISSPELT = {
    **{key: value for key, value in GOOD.items() if key != "contexts"},
    "id": "misspelt",
    "context": GOOD["contexts"],
}

#: A conversation whose second turn misspells ``retrieval_context``.
CONVERSATION: dict[str, Any] = {
    "id": "chat",
    "turns": [
        {"role": "user", "content": GOOD["question"]},
        {"role": "assistant", "content": GOOD["answer"], "retrieval_contexts": GOOD["contexts"]},
    ],
}


def _assert_readable(outcome: Any) -> None:
    """No traceback, no internal error, and no line naming the plugin's own source."""
    assert_no_traceback(outcome)
    text = outcome.stdout.str() + outcome.stderr.str()
    assert "pytest_ragas_gate/" not in text and "items.py" not in text, text


def test_without_warnings_as_errors_a_misspelt_key_is_a_warning(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", [MISSPELT, GOOD])
    write_config(pytester.path, min_coverage=0.0)

    outcome = gate_run(pytester, "-p", "no:randomly", judge="offline", metrics="faithfulness")

    assert outcome.ret == 0
    outcome.stdout.fnmatch_lines(["*golden.jsonl:1: unknown key 'context'*"])
    assert [case["id"] for case in outcome.report["cases"]] == ["misspelt", "founders"]


@pytest.mark.parametrize("workers", WORKERS)
def test_a_misspelt_key_under_w_error_is_an_error_of_its_case(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    write_jsonl(pytester, "golden.jsonl", [MISSPELT, GOOD])

    outcome = gate_run(
        pytester,
        "-p",
        "no:randomly",
        "-W",
        "error",
        *workers,
        judge="offline",
        metrics="faithfulness",
    )

    _assert_readable(outcome)
    assert outcome.ret == 1
    report = outcome.report
    assert report["run"]["collected_cases"] == 2 and report["run"]["gated_cases"] == 2
    cases = {case["id"]: case for case in report["cases"]}
    assert set(cases) == {"misspelt", "founders"}
    assert cases["founders"]["scores"]["faithfulness"] == 1.0
    assert report["error_rate"]["errored_cases"] == 1
    outcome.stdout.fnmatch_lines(
        [
            "*golden.jsonl:1: unknown key 'context' — did you mean 'contexts'? (a warning, "
            "an error under -W error*",
            "*cases: gated 2 of 2 collected golden case(s); 1 scored, 1 errored*",
            "RAG gate: FAILED",
        ]
    )


def test_filterwarnings_error_in_the_ini_file_does_the_same(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [MISSPELT, GOOD])
    pytester.makeini("[pytest]\nfilterwarnings =\n    error\n")

    outcome = gate_run(pytester, "-p", "no:randomly", judge="offline", metrics="faithfulness")

    _assert_readable(outcome)
    assert outcome.ret == 1
    assert outcome.report["error_rate"]["errored_cases"] == 1
    outcome.stdout.fnmatch_lines(["*golden.jsonl:1: unknown key 'context' — did you mean*"])


def test_only_the_gate_s_warning_made_an_error_errors_the_case(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [MISSPELT, GOOD])
    write_config(pytester.path, min_coverage=0.0)

    ignored = gate_run(
        pytester,
        "-p",
        "no:randomly",
        "-W",
        "error",
        "-W",
        "ignore::pytest_ragas_gate.scoring.unknown_fields.GoldenFieldWarning",
        judge="offline",
        metrics="faithfulness",
    )

    assert ignored.ret == 0 and ignored.report["error_rate"]["errored_cases"] == 0
    assert "unknown key" not in ignored.stdout.str()


def test_a_misspelt_turn_key_under_w_error_is_an_error_of_its_conversation(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", [CONVERSATION, GOOD])

    outcome = gate_run(
        pytester, "-p", "no:randomly", "-W", "error", judge="offline", metrics="faithfulness"
    )

    _assert_readable(outcome)
    assert outcome.ret == 1
    outcome.stdout.fnmatch_lines(
        [
            "*golden.jsonl:1: turns[[]1]: unknown key 'retrieval_contexts' — did you mean "
            "'retrieval_context'? (a warning, an error under -W error*"
        ]
    )
    ids = sorted(case["id"] for case in outcome.report["cases"])
    assert ids[0].startswith("chat") and ids[1] == "founders"


def test_a_labels_problem_under_w_error_is_the_usage_error_of_strict_labels(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    (pytester.path / "labels.csv").write_text(
        "id,human_faithfulness\nfounders,1\nno-such-case,1\n", encoding="utf-8"
    )
    labels = ("-p", "no:randomly", "--rag-gate-set", "trust.labels=labels.csv")

    plain = gate_run(pytester, *labels, judge="offline", metrics="faithfulness")
    strict = gate_run(pytester, *labels, "-W", "error", judge="offline", metrics="faithfulness")

    assert plain.ret == 0
    plain.stdout.fnmatch_lines(["*rag-gate: labels: labels.csv:3: field 'id': no golden case*"])
    _assert_readable(strict)
    assert strict.ret == pytest.ExitCode.USAGE_ERROR
    output = strict.stdout.lines + strict.stderr.lines
    assert any(
        "the labels file labels.csv has 1 problem(s) (warnings are errors in this run (-W "
        "error); strict_labels: false)" in line
        for line in output
    ), output
