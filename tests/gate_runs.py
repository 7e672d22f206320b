"""The helpers the test modules share: golden rows and files, the fake judge, reports.

- Golden rows and files: :data:`GOOD` and :data:`HALLUCINATED` for the offline judge,
  :func:`case_row` for the LLM judges, and the writers of golden files, CSV and
  ``rag_gate.yaml``.
- The fake judge: pointing a gate run at the fake server (:func:`use_fake_judge`), or a
  judge built directly on it (:func:`make_judge`), with fast retries either way.
- Running the gate: :func:`gate_run` (options as keywords, the reports read back).
- Reports: reading what a run wrote (JSON report, JUnit), and building JSON reports in
  memory for the tests of the ``rag-gate`` command and the baseline.
"""

from __future__ import annotations

import json
import math
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeLLM

from pytest_ragas_gate.gate.verdict import evaluate_gate
from pytest_ragas_gate.judges.anthropic_judge import AnthropicJudge
from pytest_ragas_gate.judges.requests import (
    AttributeAnswer,
    AttributeStatements,
    ClassifyCorrectness,
    ExtractClaims,
    GenerateQuestions,
    JudgeChunks,
    JudgeRequest,
    RateRelevancy,
    ReviewContexts,
    VerifyCitations,
    VerifyClaims,
)
from pytest_ragas_gate.judges.transport import RetryPolicy
from pytest_ragas_gate.metrics.base import Metric
from pytest_ragas_gate.metrics.registry import MetricRegistry
from pytest_ragas_gate.plugin.option_aliases import ALIASES
from pytest_ragas_gate.reports.json_report import JudgeInfo, build_report
from pytest_ragas_gate.scoring.results import CaseResult
from pytest_ragas_gate.settings.config import GateConfig
from pytest_ragas_gate.settings.config_sections import public_key
from pytest_ragas_gate.usage import Usage

# --- golden rows and files ------------------------------------------------------------------

#: A case the offline judge scores 1.0 on faithfulness.
GOOD = {
    "id": "founders",
    "question": "Who founded Apple and when?",
    "answer": "Apple was founded in 1976 by Steve Jobs and Steve Wozniak.",
    "contexts": [
        "Apple was founded in 1976 by Steve Jobs and Steve Wozniak in Cupertino.",
        "The company went public in 1980.",
    ],
    "reference": "Apple was founded in 1976 by Steve Jobs and Steve Wozniak.",
}
#: A case whose answer contradicts its context: faithfulness 0.0 with the offline judge.
HALLUCINATED = {
    "id": "wrong-year",
    "question": "When was the Eiffel Tower completed?",
    "answer": "The Eiffel Tower was completed in 1925.",
    "contexts": ["The Eiffel Tower was completed in 1889 for the World's Fair in Paris."],
    "reference": "It was completed in 1889.",
}


def good_rows(count: int = 3) -> list[dict[str, object]]:
    """``count`` copies of :data:`GOOD`, ids ``good-0``, ``good-1`` …"""
    return [{**GOOD, "id": f"good-{index}"} for index in range(count)]


def case_row(index: int) -> dict[str, Any]:
    """A case that every LLM metric applies to; distinct per index, so none is shared."""
    return {
        "id": f"case-{index:03d}",
        "question": f"Who founded Apple, according to source {index}?",
        "answer": f"Apple was founded in 1976 by Steve Jobs and Steve Wozniak. Source {index}.",
        "contexts": [
            f"Apple was founded in 1976 by Steve Jobs and Steve Wozniak. Source {index}.",
            "The company went public in 1980.",
        ],
        "reference": "Apple was founded in 1976 by Steve Jobs and Steve Wozniak.",
    }


def write_golden(
    directory: Path, rows: Sequence[dict[str, Any]], name: str = "golden.jsonl"
) -> Path:
    """``rows`` as the JSON Lines file ``directory / name``."""
    path = directory / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def write_jsonl(pytester: pytest.Pytester, name: str, rows: Sequence[dict[str, Any]]) -> Path:
    """``rows`` as the JSON Lines file ``name`` in the pytester directory."""
    return write_golden(pytester.path, rows, name)


def write_config(directory: Path, **settings: Any) -> None:
    """``rag_gate.yaml`` from keyword settings (JSON is valid YAML)."""
    (directory / "rag_gate.yaml").write_text(json.dumps(settings), encoding="utf-8")


def csv_rows(
    rows: Iterable[Sequence[object]], *, delimiter: str = ",", lineterminator: str = "\n"
) -> str:
    """Rows as CSV text, quoted as ``csv.QUOTE_MINIMAL`` quotes them.

    Written by hand because Python 3.10's csv writer refuses a NUL in a cell, and the bad
    input tests need exactly such files.
    """

    def cell(value: object) -> str:
        text = str(value)
        if any(character in text for character in (delimiter, '"', "\n", "\r")):
            return '"' + text.replace('"', '""') + '"'
        return text

    return "".join(delimiter.join(cell(value) for value in row) + lineterminator for row in rows)


# --- the fake judge ---------------------------------------------------------------------------

TEST_KEY = "test-key-not-real"

#: Fast retries for gate runs, so fault-injection tests take seconds, not minutes.
FAST_RETRIES = {"timeout_s": 0.5, "retry_backoff_s": 0.005, "max_retries": 6, "max_reasks": 2}
#: Fast retries for judges built directly on the fake server.
FAST_RETRY_POLICY = RetryPolicy(max_retries=3, base_delay_s=0.01, max_delay_s=0.05)


#: A run in this process, and one with two xdist workers (a heavy end-to-end run: slow).
WORKERS = [
    pytest.param([], id="serial"),
    pytest.param(["-n", "2"], id="xdist", marks=pytest.mark.slow),
]


def judges_by_workers(judges: Sequence[str], xdist_judge: str = "offline") -> list[Any]:
    """Each judge in this process and under xdist; only ``xdist_judge``'s xdist run is fast.

    The default suite keeps one xdist end-to-end run of the feature; the other judges'
    xdist runs prove nothing more and are left to the slow runs.
    """
    runs = []
    for judge in judges:
        for workers, name in (([], "serial"), (["-n", "2"], "xdist")):
            slow = name == "xdist" and judge != xdist_judge
            marks = [pytest.mark.slow] if slow else []
            runs.append(pytest.param(judge, workers, id=f"{judge}-{name}", marks=marks))
    return runs


def use_fake_judge(
    monkeypatch: pytest.MonkeyPatch, server: FakeLLM, api: str = "anthropic", key: str = TEST_KEY
) -> None:
    """Point the SDKs of ``api`` at the fake server; the key is only ever the test one."""
    if api == "anthropic":
        monkeypatch.setenv("ANTHROPIC_API_KEY", key)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    else:
        monkeypatch.setenv("OPENAI_API_KEY", key)
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_url)


def make_judge(server: FakeLLM, **overrides: Any) -> AnthropicJudge:
    """An Anthropic judge on the fake server, with fast retries; ``overrides`` replace settings."""
    settings: dict[str, Any] = {
        "model": "claude-sonnet-4-6",
        "api_key": TEST_KEY,
        "base_url": server.url,
        "timeout_s": 2.0,
        "retry_policy": FAST_RETRY_POLICY,
        "seed": 0,
    }
    settings.update(overrides)
    return AnthropicJudge(**settings)


APPLE_CONTEXTS = ["Apple was founded by Steve Jobs, Steve Wozniak and Ronald Wayne in 1976."]

#: One request of every kind a judge is asked.
EVERY_KIND: list[JudgeRequest[Any]] = [
    ExtractClaims(question="Who founded Apple?", answer="Steve Jobs founded Apple. It was 1976."),
    VerifyClaims(
        claims=["Steve Jobs founded Apple.", "Apple sells cars."], contexts=APPLE_CONTEXTS
    ),
    AttributeStatements(
        question="Who founded Apple?",
        reference="Apple was founded by Steve Jobs. It was founded in Paris.",
        contexts=APPLE_CONTEXTS,
    ),
    ClassifyCorrectness(
        question="Who founded Apple?",
        answer_claims=["Steve Jobs founded Apple.", "Apple sells cars."],
        reference="Steve Jobs founded Apple. Wozniak co-founded Apple.",
    ),
    RateRelevancy(question="Who founded Apple?", answer="Steve Jobs founded Apple."),
    GenerateQuestions(answer="Steve Jobs founded Apple.", count=3),
    JudgeChunks(
        question="Who founded Apple?",
        target="Steve Jobs founded Apple.",
        against="reference",
        chunks=["Apple founders: Steve Jobs.", "Bananas are yellow."],
    ),
    AttributeAnswer(
        answer="Steve Jobs founded Apple.", contexts=["Bananas.", "Steve Jobs, Apple."]
    ),
    ReviewContexts(
        question="Who founded Apple?",
        reference="Apple was founded by Steve Jobs. It was founded in Paris.",
        contexts=["Apple founders: Steve Jobs.", "Bananas are yellow."],
    ),
    VerifyCitations(
        sentences=["Steve Jobs founded Apple.", "Bananas are yellow."],
        cited=[[0], [0]],
        contexts=["Steve Jobs founded Apple.", "Bananas are yellow."],
    ),
]

# --- reports ----------------------------------------------------------------------------------


def read_report(path: Path) -> dict[str, Any]:
    """The JSON report at ``path``; a NaN or infinity in it fails the test."""

    # NaN would be accepted by json.loads; parse_constant makes it fail loudly instead.
    def refuse(constant: str) -> Any:
        raise AssertionError(f"the report holds {constant}")

    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)
    return data


def assert_scores_are_numbers(report: dict[str, Any]) -> None:
    """Every score of every case is None or a number in [0, 1]."""
    for case_entry in report["cases"]:
        for metric, score in case_entry["scores"].items():
            if score is not None:
                assert isinstance(score, float | int), (case_entry["id"], metric, score)
                assert not math.isnan(score) and 0.0 <= score <= 1.0, (case_entry["id"], metric)


def junit_case_outcomes(path: Path, suite_name: str = "rag-cases") -> dict[str, str]:
    """Each case test case of the JUnit file: ``passed``, ``failure`` or ``error``."""
    outcomes: dict[str, str] = {}
    for suite in ET.parse(path).getroot().iter("testsuite"):
        if suite.get("name") == "rag-gate":
            continue
        for testcase in suite.iter("testcase"):
            kind = "passed"
            if testcase.find("error") is not None:
                kind = "error"
            elif testcase.find("failure") is not None:
                kind = "failure"
            outcomes[str(testcase.get("name"))] = kind
    return outcomes


def gate_process_command(metrics: str, *extra: str) -> list[str]:
    """``python -m pytest --rag-gate`` for a process of its own, writing ``report.json``."""
    return [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "--rag-gate",
        f"--rag-gate-metrics={metrics}",
        "--rag-gate-report=report.json",
        *extra,
    ]


def assert_no_traceback(result: pytest.RunResult | GateOutcome) -> None:
    """The run printed neither a traceback nor an internal error."""
    text = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in text, text
    assert "INTERNALERROR" not in text, text


# --- running the gate -------------------------------------------------------------------------


@dataclass
class GateOutcome:
    """A gate run and the reports it wrote, read back.

    It unpacks as ``result, report``, the two things most tests read. ``report`` is ``{}``
    when the run wrote none (a usage error); ``junit`` the root of the JUnit file, or None.
    """

    result: pytest.RunResult
    report: dict[str, Any]
    directory: Path
    junit_path: Path | None = None
    markdown_path: Path | None = None

    def __iter__(self) -> Iterator[Any]:
        return iter((self.result, self.report))

    def __getattr__(self, name: str) -> Any:
        # What else a pytest RunResult offers: assert_outcomes, parseoutcomes, outlines …
        return getattr(self.result, name)

    @property
    def ret(self) -> int | pytest.ExitCode:
        return self.result.ret

    @property
    def stdout(self) -> pytest.LineMatcher:
        return self.result.stdout

    @property
    def stderr(self) -> pytest.LineMatcher:
        return self.result.stderr

    @property
    def junit(self) -> ET.Element | None:
        if self.junit_path is None or not self.junit_path.exists():
            return None
        return ET.parse(self.junit_path).getroot()

    def gate_suite(self) -> ET.Element:
        """The JUnit ``rag-gate`` suite."""
        root = self.junit
        assert root is not None, "the run wrote no JUnit file"
        suite = root.find("testsuite[@name='rag-gate']")
        assert suite is not None
        return suite

    @property
    def markdown(self) -> str | None:
        if self.markdown_path is None or not self.markdown_path.exists():
            return None
        return self.markdown_path.read_text(encoding="utf-8")


def _option(name: str, value: object) -> list[str]:
    """``--rag-gate-NAME=VALUE``; a flag for True, nothing for None/False, one per item.

    A name whose option is now a config key (``report``, ``cache``, ``repeats``) is passed
    in its new spelling, ``--rag-gate-output KIND=PATH`` or ``--rag-gate-set KEY=VALUE``.
    """
    flag = "--rag-gate-" + name.replace("_", "-")
    if value is None or value is False:
        return []
    alias = next((alias for alias in ALIASES if alias.option == flag), None)
    if alias is not None:
        key = public_key(alias.key)
        if value is True:
            value = "only" if alias.key == "oracle" else "true"
        if key.startswith("outputs.") and key != "outputs.details":
            return [f"--rag-gate-output={key.removeprefix('outputs.')}={value}"]
        return [f"--rag-gate-set={key}={value}"]
    if value is True:
        return [flag]
    if isinstance(value, list | tuple):
        return [f"{flag}={item}" for item in value]
    return [f"{flag}={value}"]


def gate_run(
    pytester: pytest.Pytester,
    *args: str,
    report: str | None = "report.json",
    junit: str | None = None,
    markdown: str | None = None,
    disable: Sequence[str] = (),
    subprocess: bool = False,
    tracebacks: bool = True,
    **options: object,
) -> GateOutcome:
    """Run ``pytest --rag-gate`` in ``pytester``'s directory and read back what it wrote.

    Args:
        pytester: The directory and runner.
        args: Further command-line arguments (paths, ``-k``, ``-n 2``, raw options).
        report: Where the JSON report goes (None: no report).
        junit: Where the JUnit XML goes (None: none).
        markdown: Where the Markdown summary goes (as ``GITHUB_STEP_SUMMARY``).
        disable: Plugins to run without (``-p no:NAME`` each), e.g. ``("randomly",)``.
        subprocess: Run pytest in a process of its own.
        tracebacks: False fails the test when the run printed a traceback.
        options: Each ``name=value`` as ``--rag-gate-name=value`` (True: a bare flag;
            a list: the option once per item).

    Returns:
        The outcome: the run's result with its reports read back.
    """
    command = ["--rag-gate", *_option("report", report), *_option("junit", junit)]
    for name, value in options.items():
        command += _option(name, value)
    for plugin in disable:
        command += ["-p", f"no:{plugin}"]
    command += args
    # pytest warns that it cannot rewrite the asserts of a package the test process already
    # imported; under a run's own -W error (or filterwarnings = error) that would fail it.
    command += ["-W", "ignore::pytest.PytestAssertRewriteWarning"]
    with pytest.MonkeyPatch.context() as patch:
        if markdown is not None:
            patch.setenv("GITHUB_STEP_SUMMARY", str(pytester.path / markdown))
        run = pytester.runpytest_subprocess if subprocess else pytester.runpytest
        result = run(*command)
    if not tracebacks:
        assert_no_traceback(result)
    report_path = None if report is None else pytester.path / report
    return GateOutcome(
        result=result,
        report=read_report(report_path) if report_path and report_path.exists() else {},
        directory=pytester.path,
        junit_path=None if junit is None else pytester.path / junit,
        markdown_path=None if markdown is None else pytester.path / markdown,
    )


#: The metrics of the reports built in memory.
METRICS = ["faithfulness", "context_recall"]


def case(
    case_id: str,
    faithfulness: float | None,
    recall: float | None = 0.9,
    *,
    file: str = "golden.jsonl",
    line: int = 1,
) -> CaseResult:
    """A scored case of :data:`METRICS`; faithfulness None leaves it unscored."""
    scores: dict[str, float | None] = {}
    if faithfulness is not None:
        scores["faithfulness"] = faithfulness
    scores["context_recall"] = recall
    return CaseResult(
        id=case_id,
        source=f"{file}:{line}",
        question=f"question {case_id}?",
        metrics=list(METRICS),
        scores=scores,
        usage={"faithfulness": Usage(calls=2, input_tokens=100, output_tokens=10)},
    )


def cases(
    scores: list[float], *, prefix: str = "c", file: str = "golden.jsonl"
) -> list[CaseResult]:
    """One :func:`case` per faithfulness score, on consecutive lines of ``file``."""
    return [
        case(f"{prefix}{index}", score, file=file, line=index + 1)
        for index, score in enumerate(scores)
    ]


def write(
    path: Path,
    results: list[CaseResult],
    *,
    config: GateConfig | None = None,
    judge: JudgeInfo | None = None,
    **extra: Any,
) -> Path:
    """The JSON report of ``results`` gated with ``config``, with ``extra`` top-level keys."""
    config = config or GateConfig(judge="anthropic", bootstrap_resamples=500)
    judge = judge or JudgeInfo(kind="anthropic", model="claude-test", selected_by="test")
    verdict = evaluate_gate(results, METRICS, config)
    report = build_report(
        results=results,
        verdict=verdict,
        config=config,
        judge=judge,
        usage_by_metric={},
        wall_s=1.0,
        scoring_s=0.5,
    )
    report.update(extra)
    path.write_text(json.dumps(report), encoding="utf-8")
    return path


def builtin_metrics(**options: Any) -> dict[str, Metric]:
    """Fresh instances of every built-in metric, keyed by name in display order."""
    registry = MetricRegistry()
    registry.register_builtins(**options)
    return registry.metrics
