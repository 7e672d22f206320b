"""Settings: where they come from, and how a bad value is refused.

Layering: command line > environment > rag_gate.yaml > pyproject > defaults. Values are
typed strictly, and a config under a name the gate ignores is an error: YAML reads
``off``/``no``/``false`` as false, so ``faithfulness: off`` used to become the threshold
``>=0.00`` (and ``true`` 1.0), ``"0.9"`` was accepted in the config but refused per case,
``cache: off`` got a message that did not say why, and ``[tool.rag-gate]`` or
``rag_gate.yml`` were ignored without a word. A misspelt key or metric name gets the
closest valid one.
"""

from __future__ import annotations

import pytest
from gate_runs import assert_no_traceback, good_rows, write_jsonl


def test_yaml_overrides_pyproject_and_cli_overrides_both(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    pytester.makepyprojecttoml(
        "[tool.rag_gate]\nthresholds = { faithfulness = 0.5, context_recall = 0.6 }\n"
    )
    (pytester.path / "rag_gate.yaml").write_text(
        "thresholds:\n  faithfulness: 0.7\n", encoding="utf-8"
    )
    result = pytester.runpytest("--rag-gate")
    result.stdout.fnmatch_lines(
        [
            "rag-gate: thresholds faithfulness>=0.70 * context_recall>=0.60 *"
            "config defaults + pyproject.toml ?tool.rag_gate? + rag_gate.yaml"
        ]
    )
    cli = pytester.runpytest("--rag-gate", "--rag-gate-threshold", "faithfulness=0.95")
    cli.stdout.fnmatch_lines(["rag-gate: thresholds faithfulness>=0.95 *+ command line"])


def test_environment_sits_between_files_and_command_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    (pytester.path / "rag_gate.yaml").write_text("judge: anthropic\n", encoding="utf-8")
    monkeypatch.setenv("RAG_GATE_JUDGE", "offline")
    result = pytester.runpytest("--rag-gate")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["rag-gate: judge offline*", "*+ rag_gate.yaml + environment"])


def test_explicit_anthropic_judge_without_a_key_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    result = pytester.runpytest("--rag-gate", "--rag-gate-judge", "anthropic")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ANTHROPIC_API_KEY*"])


def test_config_path_option_and_tag_thresholds(pytester: pytest.Pytester) -> None:
    rows = [{**row, "tags": ["zh"]} for row in good_rows(2)]
    write_jsonl(pytester, "golden.jsonl", rows)
    (pytester.path / "gate.yaml").write_text(
        "tag_thresholds:\n  zh:\n    context_precision: 0.99\n", encoding="utf-8"
    )
    result = pytester.runpytest("--rag-gate", "--rag-gate-config", "gate.yaml")
    result.stdout.fnmatch_lines(["*config defaults + gate.yaml*"])
    assert "tag" in result.stdout.str()


def test_unknown_config_key_suggests_the_closest(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    (pytester.path / "rag_gate.yaml").write_text("treshold: {}\n", encoding="utf-8")
    result = pytester.runpytest("--rag-gate")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*Unknown setting 'treshold' in rag_gate.yaml; did you mean 'thresholds'?*"]
    )
    assert_no_traceback(result)


def test_threshold_outside_the_unit_interval_is_rejected(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    result = pytester.runpytest("--rag-gate", "--rag-gate-threshold", "faithfulness=1.5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*threshold for 'faithfulness' must be from 0 to 1, got 1.5*"])
    (pytester.path / "rag_gate.yaml").write_text(
        "thresholds:\n  context_recall: 2\n", encoding="utf-8"
    )
    from_file = pytester.runpytest("--rag-gate")
    assert from_file.ret == pytest.ExitCode.USAGE_ERROR
    from_file.stderr.fnmatch_lines(["*'context_recall' is 2*expected a number from 0 to 1*"])


def test_unknown_metric_name_suggests_the_closest(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    result = pytester.runpytest("--rag-gate", "--rag-gate-metrics", "faithfulnes")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown metric 'faithfulnes'; did you mean 'faithfulness'?*"])


# --- typed values ---------------------------------------------------------------------


def run_with_config(pytester: pytest.Pytester, yaml_text: str, *args: str) -> pytest.RunResult:
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    (pytester.path / "rag_gate.yaml").write_text(yaml_text, encoding="utf-8")
    return pytester.runpytest("--rag-gate", *args)


def assert_usage_error(result: pytest.RunResult, *lines: str) -> None:
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(list(lines))
    assert_no_traceback(result)


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        (
            "metrics: faithfulness\n",
            "*setting 'metrics' from rag_gate.yaml:1: expected a list, got the text "
            "'faithfulness'; write it as a list: [[]faithfulness]*",
        ),
        (
            'golden:\n  files: "golden*.jsonl"\n',
            "*setting 'golden.files' from rag_gate.yaml:2: expected a list, got the text "
            "'golden*.jsonl'; write it as a list: [[]golden*.jsonl]*",
        ),
        (
            "thresholds: [0.9]\n",
            "*setting 'thresholds' from rag_gate.yaml:1: expected a mapping (key: value), got a "
            "list [[]0.9]*",
        ),
        (
            "judge: {provider: gpt}\n",
            "*setting 'judge.provider' from rag_gate.yaml:1: Input should be 'auto', "
            "'anthropic', 'openai' or 'offline', got 'gpt'*",
        ),
        (
            "judge: {provider: anthropc}\n",
            "*setting 'judge.provider' from rag_gate.yaml:1: Input should be 'auto', "
            "'anthropic', 'openai' or 'offline', got 'anthropc'; did you mean 'anthropic'?*",
        ),
        (
            "statistics: {confidence: 95}\n",
            "*setting 'statistics.confidence' from rag_gate.yaml:1: Input should be less than 1, "
            "got 95*",
        ),
    ],
    ids=[
        "metrics-text",
        "files-text",
        "thresholds-list",
        "provider",
        "provider-typo",
        "confidence",
    ],
)
def test_a_value_of_the_wrong_shape_says_what_was_given(
    pytester: pytest.Pytester, yaml_text: str, message: str
) -> None:
    assert_usage_error(run_with_config(pytester, yaml_text), message)


@pytest.mark.parametrize(
    ("written", "read"),
    [("off", "false"), ("no", "false"), ("false", "false"), ("true", "true"), ("yes", "true")],
)
def test_a_yaml_boolean_threshold_is_a_usage_error(
    pytester: pytest.Pytester, written: str, read: str
) -> None:
    result = run_with_config(pytester, f"thresholds:\n  faithfulness: {written}\n")
    assert_usage_error(
        result,
        "*setting 'thresholds' from rag_gate.yaml:1: threshold for 'faithfulness' was read as "
        f"the boolean {read} (YAML reads *); give a number from 0 to 1, or null to leave "
        "the metric ungated*",
    )
    assert ">=0.00" not in result.stdout.str()


def test_a_quoted_number_is_refused_in_the_config_as_in_a_case(
    pytester: pytest.Pytester,
) -> None:
    result = run_with_config(pytester, 'thresholds:\n  faithfulness: "0.9"\n')
    assert_usage_error(
        result,
        "*threshold for 'faithfulness' is the string '0.9'; write the number without quotes "
        "(0.9), or as '>=0.9' / '<=0.9' to give its direction*",
    )
    (pytester.path / "rag_gate.yaml").unlink()
    rows = [{**good_rows(1)[0], "thresholds": {"faithfulness": "0.9"}}]
    write_jsonl(pytester, "golden.jsonl", rows)
    per_case = pytester.runpytest("--rag-gate")
    assert per_case.ret == pytest.ExitCode.TESTS_FAILED
    per_case.stdout.fnmatch_lines(
        [
            "*golden.jsonl:1: field 'thresholds': the threshold of 'faithfulness' is the string "
            "'0.9'; write the number without quotes (0.9)*"
        ]
    )


def test_a_direction_string_is_still_a_threshold(pytester: pytest.Pytester) -> None:
    result = run_with_config(pytester, 'thresholds:\n  contradiction_rate: "<=0.02"\n')
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["rag-gate: thresholds *contradiction_rate<=0.02*"])


def test_a_yaml_boolean_per_case_threshold_errors_its_case(pytester: pytest.Pytester) -> None:
    (pytester.path / "golden.yaml").write_text(
        "- id: a\n  question: Who founded Apple?\n  answer: Steve Jobs.\n"
        "  thresholds: {faithfulness: off}\n",
        encoding="utf-8",
    )
    result = pytester.runpytest("--rag-gate")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*golden.yaml:1: field 'thresholds': the threshold of 'faithfulness' was read as the "
            "boolean false*"
        ]
    )


def test_cache_off_unquoted_says_why_and_how_to_write_it(pytester: pytest.Pytester) -> None:
    result = run_with_config(pytester, "cache:\n  mode: off\n")
    assert_usage_error(
        result,
        "*setting 'cache.mode' from rag_gate.yaml:2: was read as the boolean false (YAML reads "
        "off, no and false so), not as the mode 'off'; quote it: mode: \"off\" (or --rag-gate-set "
        "cache.mode=off)*",
    )
    quoted = run_with_config(pytester, 'cache: "off"\n')
    assert quoted.ret == pytest.ExitCode.OK
    quoted.stdout.fnmatch_lines(["rag-gate: thresholds *; cache off *"])


def test_numbers_and_tag_thresholds_are_typed_too(pytester: pytest.Pytester) -> None:
    result = run_with_config(pytester, 'max_error_rate: "0.1"\n')
    assert_usage_error(
        result,
        "*setting 'max_error_rate' from rag_gate.yaml:1: is the string '0.1'; write the "
        "number without quotes (0.1)*",
    )
    result = run_with_config(pytester, "tag_thresholds:\n  zh: {faithfulness: yes}\n")
    assert_usage_error(
        result, "*threshold for 'faithfulness' under tag 'zh' was read as the boolean true*"
    )
    result = run_with_config(pytester, "min_cases: on\n")
    assert_usage_error(
        result, "*setting 'min_cases' from rag_gate.yaml:1: was read as the boolean*"
    )


def test_a_dashed_pyproject_table_is_named_in_an_error(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    pytester.makepyprojecttoml("[tool.rag-gate]\nthresholds = { faithfulness = 0.99 }\n")
    result = pytester.runpytest("--rag-gate")
    assert_usage_error(
        result,
        "*pyproject.toml has a [[]tool.rag-gate[]] table, which the gate does not read: its "
        "settings are under [[]tool.rag_gate[]] (with an underscore). Rename the table.*",
    )


def test_a_yml_config_is_named_in_an_error_unless_it_is_named(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(1))
    (pytester.path / "rag_gate.yml").write_text("thresholds: {faithfulness: 0.99}\n", "utf-8")
    result = pytester.runpytest("--rag-gate")
    assert_usage_error(
        result,
        "*rag_gate.yml in * is not read: the gate's config file is rag_gate.yaml. Rename it "
        "to rag_gate.yaml, or name it with --rag-gate-config rag_gate.yml.*",
    )
    named = pytester.runpytest("--rag-gate", "--rag-gate-config", "rag_gate.yml")
    named.stdout.fnmatch_lines(["rag-gate: thresholds faithfulness>=0.99 *"])
