"""End to end: every name and value a setting holds is checked, and named where it was given.

Each test reproduces a setting that used to vanish or mislead: ``min_coverage:
{default: 0.5, faithfulnes: 1.0}`` passed a run whose unchecked rows were the hallucinated
ones, ``lower_is_better: [faithfulnes]`` was accepted, two thresholds outside the run named
only the first, a direction error came "from the defaults" under the setting ``''``, the
old and new spellings of one key with different values resolved silently to one of them,
``--rag-gate-threshold context_precision=null`` was refused although null is documented as
fine anywhere, and ``--rag-gate-output otel=ftp://x/y`` wrote a local file ``ftp:/x/y``.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

import pytest
from gate_runs import GOOD, HALLUCINATED, assert_no_traceback, cases, gate_run, write, write_jsonl
from test_cli import in_process

from pytest_ragas_gate.settings.config import GateConfig
from pytest_ragas_gate.settings.metric_keys import NOT_METRIC_KEYED, metric_keyed_settings

OPTIONS: dict[str, Any] = {"judge": "offline", "cache": "off", "disable": ("randomly",)}
WORKERS = [pytest.param((), id="serial"), pytest.param(("-n", "2"), id="xdist")]


def write_yaml(pytester: pytest.Pytester, text: str, name: str = "rag_gate.yaml") -> None:
    (pytester.path / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")


def eight_checked_two_not(pytester: pytest.Pytester) -> None:
    """Ten cases; the two hallucinated ones lack contexts, so faithfulness is n/a on them."""
    rows: list[dict[str, Any]] = [{**GOOD, "id": f"good-{index}"} for index in range(8)]
    for index in range(2):
        row = {**HALLUCINATED, "id": f"wrong-{index}"}
        del row["contexts"]
        rows.append(row)
    write_jsonl(pytester, "golden.jsonl", rows)


def assert_usage_error(outcome: Any, *lines: str) -> None:
    assert outcome.ret == pytest.ExitCode.USAGE_ERROR, outcome.stdout.str()
    outcome.stderr.fnmatch_lines(list(lines))
    assert_no_traceback(outcome)


# --- metric-keyed settings ---------------------------------------------------------------


@pytest.mark.parametrize("workers", WORKERS)
def test_a_misspelt_metric_under_min_coverage_is_refused_not_passed(
    pytester: pytest.Pytester, workers: tuple[str, ...]
) -> None:
    eight_checked_two_not(pytester)
    write_yaml(
        pytester,
        """
        min_coverage:
          default: 0.5
          faithfulnes: 1.0
        """,
    )
    outcome = gate_run(pytester, *workers, **OPTIONS)
    assert_usage_error(
        outcome,
        "*setting 'min_coverage' from rag_gate.yaml:3: unknown metric 'faithfulnes'; "
        "did you mean 'faithfulness'?*",
    )
    write_yaml(pytester, "min_coverage: {default: 0.5, faithfulness: 1.0}\n")
    spelt_right = gate_run(pytester, *workers, **OPTIONS)
    assert spelt_right.ret == pytest.ExitCode.TESTS_FAILED
    spelt_right.stdout.fnmatch_lines(["*faithfulness computed on 8 of 10 cases*"])


@pytest.mark.parametrize(
    ("yaml_text", "setting", "line"),
    [
        ("metrics: [faithfulness, context_recal]\n", "metrics", 1),
        ("judge: {provider: offline}\nlower_is_better:\n  - faithfulnes\n", "lower_is_better", 3),
        ("thresholds:\n  faithfulness: 0.5\n  context_recal: 0.5\n", "thresholds", 3),
        ("rules:\n  default: mean\n  context_recal: ci_lower\n", "rules", 3),
        ("tag_thresholds:\n  zh:\n    context_recal: 0.5\n", "tag_thresholds", 3),
        ("min_coverage: {context_recal: 0.5}\n", "min_coverage", 1),
        ("trust:\n  agreement:\n    human: {context_recal: {auroc: 0.7}}\n", "min_agreement", 3),
    ],
)
def test_every_metric_keyed_setting_refuses_an_unknown_metric_at_its_line(
    pytester: pytest.Pytester, yaml_text: str, setting: str, line: int
) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    write_yaml(pytester, yaml_text)
    outcome = gate_run(pytester, **OPTIONS)
    assert_usage_error(outcome, f"*from rag_gate.yaml:{line}: unknown metric *did you mean*")
    assert ("faithfulness" if setting == "lower_is_better" else "context_recall") in (
        outcome.stderr.str()
    )


def test_a_misspelt_metric_given_with_rag_gate_set_names_the_option(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    outcome = gate_run(pytester, set=["lower_is_better=[faithfulnes]"], **OPTIONS)
    assert_usage_error(
        outcome,
        "*setting 'lower_is_better' from --rag-gate-set lower_is_better: unknown metric "
        "'faithfulnes'; did you mean 'faithfulness'?*",
    )
    coverage = gate_run(pytester, set=["min_coverage.faithfulnes=1.0"], **OPTIONS)
    assert_usage_error(coverage, "*from --rag-gate-set min_coverage.faithfulnes: unknown metric*")


def test_every_misspelt_metric_is_named_at_once(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    write_yaml(pytester, "lower_is_better: [faithfulnes]\nmin_coverage: {context_recal: 0.5}\n")
    outcome = gate_run(pytester, **OPTIONS)
    assert_usage_error(
        outcome,
        "*rag_gate.yaml:1: unknown metric 'faithfulnes'*rag_gate.yaml:2: unknown metric "
        "'context_recal'*",
    )


CUSTOM = """
    from pytest_ragas_gate.metrics.base import Metric, MetricResult

    class ErrorShare(Metric):
        name = "error_share"
        required_fields = ("answer",)
        default_threshold = 0.5
        lower_is_better = True

        async def score(self, case, judge):
            return MetricResult(score=0.1)

    def pytest_rag_gate_metrics():
        return [ErrorShare()]
"""


@pytest.mark.parametrize("workers", WORKERS)
def test_a_conftest_metric_is_a_known_name_in_every_metric_keyed_setting(
    pytester: pytest.Pytester, workers: tuple[str, ...]
) -> None:
    pytester.makeconftest(textwrap.dedent(CUSTOM))
    write_jsonl(pytester, "golden.jsonl", [{**GOOD, "tags": ["zh"]}])
    write_yaml(
        pytester,
        """
        lower_is_better: [error_share]
        min_coverage: {default: 0.9, error_share: 1.0}
        rules: {error_share: mean}
        tag_thresholds: {zh: {error_share: 0.5}}
        """,
    )
    outcome = gate_run(pytester, *workers, **OPTIONS)
    assert outcome.ret == pytest.ExitCode.OK, outcome.stdout.str() + outcome.stderr.str()
    assert outcome.report["metrics"]["error_share"]["direction"] == "max"


def test_every_container_setting_says_whether_it_names_metrics() -> None:
    """A setting added later that holds metric names gets the check by being marked."""
    containers = {
        name
        for name, field in GateConfig.model_fields.items()
        if any(word in str(field.annotation) for word in ("dict", "list"))
    }
    assert containers == set(metric_keyed_settings(GateConfig)) | NOT_METRIC_KEYED
    assert not set(metric_keyed_settings(GateConfig)) & NOT_METRIC_KEYED


# --- thresholds outside the run ------------------------------------------------------------


def test_every_threshold_outside_the_run_is_named_at_once(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    write_yaml(
        pytester,
        """
        metrics: [faithfulness]
        thresholds:
          context_recall: 0.8
        tag_thresholds: {zh: {context_precision: 0.5}}
        """,
    )
    outcome = gate_run(pytester, threshold="answer_correctness=0.5", **OPTIONS)
    assert_usage_error(
        outcome,
        "*thresholds on 3 metrics not among the run's metrics (faithfulness): "
        "'context_recall' (setting 'thresholds' from rag_gate.yaml:3), "
        "'answer_correctness' (setting 'thresholds' from --rag-gate-threshold), "
        "'context_precision' (setting 'tag_thresholds' from rag_gate.yaml:4): add them to "
        "metrics: (or --rag-gate-metrics "
        "faithfulness,context_recall,answer_correctness,context_precision), or remove the "
        "thresholds*",
    )


# --- a direction error names its source ------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "yaml_text", "source"),
    [
        ({"threshold": "faithfulness<=0.5"}, None, "--rag-gate-threshold"),
        (
            {"set": ["thresholds.faithfulness=<=0.5"]},
            None,
            "--rag-gate-set thresholds.faithfulness",
        ),
        ({}, "judge: {provider: offline}\nthresholds:\n  faithfulness: <=0.5\n", "rag_gate.yaml:3"),
    ],
)
def test_a_direction_error_names_where_the_threshold_was_given(
    pytester: pytest.Pytester, options: dict[str, Any], yaml_text: str | None, source: str
) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    if yaml_text is not None:
        write_yaml(pytester, yaml_text)
    outcome = gate_run(pytester, **options, **OPTIONS)
    assert_usage_error(
        outcome,
        f"*setting 'thresholds' from {source}: threshold for 'faithfulness' is '<=0.5', a "
        "maximum, but for faithfulness higher is better*",
    )
    assert "the defaults" not in outcome.stderr.str()
    assert "setting ''" not in outcome.stderr.str()


# --- old and new spellings --------------------------------------------------------------


@pytest.mark.parametrize(
    ("yaml_text", "named"),
    [
        (
            "rule: ci_lower\nrules: {default: mean}\n",
            "*'rule' (rag_gate.yaml:1) and 'rules.default' (rag_gate.yaml:2) are one setting "
            "with two values: 'ci_lower' and 'mean'*",
        ),
        (
            "concurrency: 4\njudge:\n  concurrency: 8\n",
            "*'concurrency' (rag_gate.yaml:1) and 'judge.concurrency' (rag_gate.yaml:3) are one "
            "setting with two values: 4 and 8*",
        ),
    ],
)
def test_one_setting_in_two_spellings_with_two_values_is_a_usage_error(
    pytester: pytest.Pytester, yaml_text: str, named: str
) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    write_yaml(pytester, yaml_text)
    assert_usage_error(gate_run(pytester, **OPTIONS), named)


def test_one_setting_in_two_spellings_with_one_value_is_read(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    write_yaml(
        pytester, "rule: mean\nrules: {default: mean}\nconcurrency: 8\njudge:\n  concurrency: 8\n"
    )
    outcome = gate_run(pytester, **OPTIONS)
    assert outcome.ret == pytest.ExitCode.OK, outcome.stderr.str()
    outcome.stdout.fnmatch_lines(["*deprecated*'rule' is now written 'rules.default'*"])


def test_two_spellings_on_the_command_line_with_two_values_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    flat = gate_run(pytester, set=["concurrency=4", "judge.concurrency=8"], **OPTIONS)
    assert_usage_error(
        flat,
        "*'concurrency' (--rag-gate-set concurrency) and 'judge.concurrency' (--rag-gate-set "
        "judge.concurrency) are one setting with two values: 4 and 8*",
    )
    old_option = gate_run(
        pytester, "--rag-gate-concurrency=4", set=["judge.concurrency=8"], **OPTIONS
    )
    assert_usage_error(
        old_option,
        "*--rag-gate-concurrency and 'judge.concurrency' (--rag-gate-set judge.concurrency) are "
        "one setting with two values: 4 and 8*",
    )


def test_a_section_and_its_key_both_set_on_the_command_line_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    outcome = gate_run(pytester, set=["judge=offline", "judge.model=x"], **OPTIONS)
    assert_usage_error(outcome, "*--rag-gate-set judge.model: 'judge' is given a value already*")


# --- null thresholds on the command line ---------------------------------------------------


@pytest.mark.parametrize("workers", WORKERS)
def test_a_null_threshold_on_the_command_line_leaves_the_metric_ungated(
    pytester: pytest.Pytester, workers: tuple[str, ...]
) -> None:
    # The second context is irrelevant to the question: context precision falls below 0.7.
    row = {**GOOD, "contexts": ["Bananas are yellow.", *GOOD["contexts"]]}  # type: ignore[list-item]
    write_jsonl(pytester, "golden.jsonl", [row])
    gated = gate_run(pytester, *workers, **OPTIONS)
    assert gated.ret == pytest.ExitCode.TESTS_FAILED
    assert gated.report["metrics"]["context_precision"]["threshold"] is not None
    outcome = gate_run(pytester, *workers, threshold="context_precision=null", **OPTIONS)
    assert outcome.ret == pytest.ExitCode.OK, outcome.stderr.str()
    assert outcome.report["config"]["thresholds"]["context_precision"] is None
    assert outcome.report["metrics"]["context_precision"]["threshold"] is None


def test_a_null_threshold_regates_a_report(pytester: pytest.Pytester) -> None:
    write(pytester.path / "run.json", cases([0.2, 0.3]))
    status, out, err = in_process(pytester.path, "gate", "run.json")
    assert status == 1, out + err
    status, out, err = in_process(
        pytester.path, "gate", "run.json", "--threshold", "faithfulness=null"
    )
    assert status == 0, out + err


# --- the otel output ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "destination", ["ftp://x/y", "file:///tmp/x.json", "grpc://collector:4317"]
)
def test_an_otel_output_of_another_scheme_is_a_usage_error(
    pytester: pytest.Pytester, destination: str
) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    outcome = gate_run(pytester, output=[f"otel={destination}"], **OPTIONS)
    assert_usage_error(
        outcome,
        f"*setting 'outputs.otel' from --rag-gate-output otel: {destination!r} is a URL of "
        "another scheme; expected a file path or an http:// or https:// URL of an OTLP/HTTP "
        "collector*",
    )
    assert not (pytester.path / (destination.split(":")[0] + ":")).exists()
    write_yaml(pytester, f"outputs:\n  otel: {destination}\n")
    configured = gate_run(pytester, **OPTIONS)
    assert_usage_error(configured, "*setting 'outputs.otel' from rag_gate.yaml:2: *another scheme*")


@pytest.mark.parametrize(
    "destination",
    ["http:/127.0.0.1:4318/v1/logs", "https:127.0.0.1:4318", "http://", "https://:4318/v1/logs"],
)
def test_a_malformed_http_otel_url_is_a_usage_error_not_a_local_file(
    pytester: pytest.Pytester, destination: str
) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    outcome = gate_run(pytester, output=[f"otel={destination}"], **OPTIONS)
    assert_usage_error(
        outcome,
        f"*setting 'outputs.otel' from --rag-gate-output otel: {destination!r} is not a "
        "well-formed http(s) URL with a host; expected a file path or an http:// or https:// "
        "URL of an OTLP/HTTP collector*",
    )
    assert sorted(path.name for path in pytester.path.iterdir()) == ["golden.jsonl"]


@pytest.mark.parametrize("destination", ["ftp:/x/y", "mailto:a@b", "urn:x"])
def test_an_otel_value_with_a_scheme_but_no_slashes_is_a_usage_error(
    pytester: pytest.Pytester, destination: str
) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    outcome = gate_run(pytester, output=[f"otel={destination}"], **OPTIONS)
    assert_usage_error(outcome, f"*otel: {destination!r} is a URL of another scheme*")
    assert sorted(path.name for path in pytester.path.iterdir()) == ["golden.jsonl"]


# --- rag-gate checks a config as pytest does -------------------------------------------------


def test_rag_gate_names_the_line_and_the_option_as_pytest_does(pytester: pytest.Pytester) -> None:
    write(pytester.path / "run.json", cases([0.9, 0.8]))
    write_yaml(
        pytester, "thresholds:\n  faithfulness: 0.5\nlower_is_better: [faithfulnes]\n", "c.yaml"
    )
    status, out, err = in_process(pytester.path, "gate", "run.json", "--config", "c.yaml")
    assert status == 4, out + err
    assert err.strip() == (
        "rag-gate gate: Invalid rag-gate configuration: setting 'lower_is_better' from "
        "c.yaml:3: unknown metric 'faithfulnes'; did you mean 'faithfulness'?"
    )
    status, out, err = in_process(
        pytester.path, "gate", "run.json", "--threshold", "faithfulness<=0.5"
    )
    assert status == 4, out + err
    assert "setting 'thresholds' from --threshold: threshold for 'faithfulness' is '<=0.5'" in err


# --- a saved report's own settings -----------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "line"),
    [
        (
            {"min_coverage": {"default": 0.5, "faithfulnes": 1.0}},
            "rag-gate gate: Invalid rag-gate configuration: setting 'min_coverage' from "
            "run.json (config.min_coverage): unknown metric 'faithfulnes'; did you mean "
            "'faithfulness'?",
        ),
        (
            {"lower_is_better": ["contradiction_rat"]},
            "rag-gate gate: Invalid rag-gate configuration: setting 'lower_is_better' from "
            "run.json (config.lower_is_better): unknown metric 'contradiction_rat'; did you "
            "mean 'contradiction_rate'?",
        ),
    ],
    ids=["min_coverage", "lower_is_better"],
)
def test_a_misspelt_metric_in_a_saved_reports_config_is_refused_on_regate(
    pytester: pytest.Pytester, settings: dict[str, Any], line: str
) -> None:
    write(pytester.path / "run.json", cases([0.9, 0.8]))
    saved = json.loads((pytester.path / "run.json").read_text(encoding="utf-8"))
    saved["config"].update(settings)
    (pytester.path / "run.json").write_text(json.dumps(saved), encoding="utf-8")
    for command in (
        ("gate", "run.json"),
        ("merge", "run.json", "-o", "all.json"),
        ("compare", "run.json", "run.json"),
    ):
        status, out, err = in_process(pytester.path, *command)
        assert status == 4, out + err
        expected = line.replace("rag-gate gate", f"rag-gate {command[0]}")
        assert err.strip().splitlines()[-1] == expected, err
        assert "Traceback" not in err
