"""End to end: a key written twice in one YAML file is an error naming both lines.

PyYAML keeps the last of two equal keys without a word, so ``rules: {default: mean}``
followed by a second ``default: ci_lower`` gated on ``ci_lower``, and a second
``thresholds:`` replaced the first whole, while the file read as if it said both.
"""

from __future__ import annotations

import textwrap

import pytest
from gate_runs import GOOD, assert_no_traceback, gate_run, write_jsonl

from pytest_ragas_gate.yaml_keys import safe_load_unique

OPTIONS = {"judge": "offline", "cache": "off", "disable": ("randomly",)}


def write_text(pytester: pytest.Pytester, name: str, text: str) -> None:
    (pytester.path / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")


@pytest.mark.parametrize(
    ("yaml_text", "named"),
    [
        (
            """
            rules:
              default: mean
              default: ci_lower
            """,
            "ERROR: {name}:3: 'rules.default' is written twice ({name}:2 and {name}:3)*",
        ),
        (
            """
            thresholds:
              faithfulness: 0.9
            judge:
              provider: offline
            thresholds:
              faithfulness: 0.1
            """,
            "ERROR: {name}:5: 'thresholds' is written twice ({name}:1 and {name}:5)*",
        ),
    ],
    ids=["rules.default", "thresholds"],
)
@pytest.mark.parametrize("name", ["rag_gate.yaml", "gate-settings.yaml"])
def test_a_setting_written_twice_in_the_config_file_is_a_usage_error(
    pytester: pytest.Pytester, yaml_text: str, named: str, name: str
) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    write_text(pytester, name, yaml_text)
    config = {} if name == "rag_gate.yaml" else {"config": name}
    outcome = gate_run(pytester, **config, **OPTIONS)
    assert outcome.ret == pytest.ExitCode.USAGE_ERROR, outcome.stdout.str()
    outcome.stderr.fnmatch_lines([named.format(name=name)])
    assert_no_traceback(outcome)


def test_the_same_key_in_two_sections_is_not_a_duplicate(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    write_text(
        pytester,
        "rag_gate.yaml",
        """
        rules:
          default: mean
        min_coverage:
          default: 0.5
        """,
    )
    assert gate_run(pytester, **OPTIONS).ret == pytest.ExitCode.OK


def test_a_key_written_twice_in_a_golden_case_is_an_error_of_that_case(
    pytester: pytest.Pytester,
) -> None:
    write_text(
        pytester,
        "golden.yaml",
        """
        - id: twice
          question: Who founded Apple?
          answer: Steve Jobs and Steve Wozniak founded Apple.
          answer: Bill Gates founded Apple.
          contexts: [Apple was founded by Steve Jobs and Steve Wozniak.]
        - id: once
          question: Who founded Apple?
          answer: Steve Jobs and Steve Wozniak founded Apple.
          contexts: [Apple was founded by Steve Jobs and Steve Wozniak.]
        """,
    )
    outcome = gate_run(pytester, **OPTIONS)
    assert outcome.ret == pytest.ExitCode.TESTS_FAILED
    outcome.stdout.fnmatch_lines(
        ["*golden.yaml:1: the case cannot be read: 'answer' is written twice (lines 3 and 4)*"]
    )
    assert_no_traceback(outcome)


def test_a_column_written_twice_in_a_golden_file_is_named_with_both_lines(
    pytester: pytest.Pytester,
) -> None:
    write_text(
        pytester,
        "golden.yaml",
        """
        question: [Who founded Apple?]
        answer: [Steve Jobs and Steve Wozniak founded Apple.]
        answer: [Bill Gates founded Apple.]
        contexts: [[Apple was founded by Steve Jobs and Steve Wozniak.]]
        """,
    )
    outcome = gate_run(pytester, **OPTIONS)
    assert outcome.ret != pytest.ExitCode.OK
    outcome.stdout.fnmatch_lines(
        [
            "*golden.yaml:3: 'answer' is written twice at the top of the file*"
            "(golden.yaml:2 and golden.yaml:3)*"
        ]
    )
    assert_no_traceback(outcome)


def test_a_merge_key_may_still_be_overridden() -> None:
    text = "base: &base {a: 1, b: 2}\nmine:\n  <<: *base\n  b: 3\n"
    assert safe_load_unique(text)["mine"] == {"a": 1, "b": 3}
