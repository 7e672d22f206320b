"""JUnit XML for CI test views: one suite of golden cases, one suite of gate verdicts.

Built with the ``junit-xml`` package. Its 1.9 release writes properties on suites only,
so each case's scores are added as ``<properties>`` of its ``<testcase>`` by editing the
element tree the package builds, before the file is written.
"""

from __future__ import annotations

import os
import re
import tempfile
import xml.etree.ElementTree as ET
import xml.sax.saxutils
from collections.abc import Iterator, Mapping, Sequence
from pathlib import PurePosixPath
from typing import IO, Any

import junit_xml

from ..atomic_files import write_lines_atomic
from ..gate.diagnosis import diagnose
from ..gate.verdict import GateVerdict
from ..judges.base import JudgeInfo
from ..scoring.results import CaseResult, canonical_order, split_source
from ..settings.bounds import Bound
from .judge_noise_view import noise_properties

__all__ = ["CASES_SUITE", "GATE_SUITE", "write_junit"]

CASES_SUITE = "rag-cases"
GATE_SUITE = "rag-gate"

# XML 1.0 forbids most control characters, lone surrogates and U+FFFE/U+FFFF; answers,
# tracebacks, case ids and file names may carry them, and CI parsers reject such a file.
_ILLEGAL_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _clean(text: str) -> str:
    r"""``text`` with each character XML cannot hold written as its Python escape.

    An escape rather than a deletion keeps two ids that differ only there apart.

    >>> print(_clean("bell\x07 and \ud800"))
    bell\x07 and \ud800
    """
    return _ILLEGAL_XML.sub(_escaped, text)


def _make_xml_safe(root: ET.Element) -> None:
    """Clean every attribute and text of the tree, wherever the string came from."""
    for element in root.iter():
        for key, value in list(element.attrib.items()):
            element.set(key, _clean(value))
        if element.text:
            element.text = _clean(element.text)
        if element.tail:
            element.tail = _clean(element.tail)


def _classname(path: str) -> str:
    """``golden/sub/qa.jsonl`` → ``golden.sub.qa``: how CI views group test classes."""
    posix = PurePosixPath(path.replace("\\", "/"))
    parts = [part for part in posix.with_suffix("").parts if part not in ("/", ".", "..")]
    return ".".join(part.replace(".", "_") for part in parts) or "golden"


def _score_text(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.4f}"


def _case_properties(result: CaseResult, bounds: Mapping[str, Bound]) -> list[tuple[str, str]]:
    properties = [(metric, _score_text(score)) for metric, score in result.scores.items()]
    found = diagnose(result, bounds)
    if found is not None:
        properties.append(("diagnosis", found.component))
    properties += [(metric, "error") for metric in result.errors if metric not in result.scores]
    properties.append(("source", result.source))
    if result.conversation is not None:
        properties += [("conversation", result.conversation), ("turn", str(result.turn))]
    if result.tags:
        properties.append(("tags", ",".join(result.tags)))
    if result.latency_s is not None:
        properties.append(("latency_s", f"{result.latency_s:.3f}"))
    return properties


def _case_testcase(
    result: CaseResult, failure_lines: Mapping[str, list[str]], bounds: Mapping[str, Bound]
) -> Any:
    path, line = split_source(result.source)
    classname = _classname(path)
    if result.conversation is not None:
        # A conversation's turns group as one class, as the CI view lists a test class.
        classname += "." + result.conversation.replace(".", "_")
    testcase = junit_xml.TestCase(
        name=result.id,
        classname=classname,
        elapsed_sec=result.scoring_s,
        file=path,
        line=None if line is None else str(line),
    )
    lines = failure_lines.get(result.id) or result.case_threshold_failures(bounds)
    if lines:
        testcase.add_failure_info(
            message=_clean(lines[0]),
            output=_clean("\n".join(lines)),
            failure_type="RagCaseThreshold",
        )
    if result.error is not None or result.errors:
        problems = [] if result.error is None else [result.error]
        problems += [f"{metric}: {message}" for metric, message in result.errors.items()]
        # A whole-case error is the pipeline's (target, malformed case, budget); a metric
        # error is the judge's.
        kind = "RagCaseError" if result.error is not None else "JudgeError"
        testcase.add_error_info(
            message=_clean(problems[0].splitlines()[0] if problems[0] else kind),
            output=_clean("\n".join(problems)),
            error_type=kind,
        )
    return testcase


def _gate_testcases(verdict: GateVerdict) -> tuple[list[Any], list[list[tuple[str, str]]]]:
    testcases: list[Any] = []
    properties: list[list[tuple[str, str]]] = []
    # A judge that did not answer decided nothing: its checks are errors, not failures, so
    # a CI view tells "retry" from "quality below threshold".
    undecided = verdict.status == "error"
    for metric, aggregate in verdict.metrics.items():
        testcase = junit_xml.TestCase(name=metric, classname=GATE_SUITE)
        if aggregate.passed is False and undecided:
            testcase.add_error_info(
                message=_clean(aggregate.message), error_type="RagGateJudgeUnavailable"
            )
        elif aggregate.passed is False:
            hint = verdict.hints.get(metric)
            output = aggregate.message + (f"\nHint: {hint}" if hint else "")
            testcase.add_failure_info(
                message=_clean(aggregate.message),
                output=_clean(output),
                failure_type="RagGateThreshold",
            )
        testcases.append(testcase)
        props = [
            ("mean", "n/a" if aggregate.mean is None else f"{aggregate.mean:.4f}"),
            ("n", str(aggregate.n)),
            ("not_applicable", str(aggregate.not_applicable)),
            ("errors", str(aggregate.errors)),
            ("rule", aggregate.rule),
            ("verdict", _clean(aggregate.message)),
        ]
        if aggregate.ci_low is not None and aggregate.ci_high is not None:
            props += [
                ("ci_low", f"{aggregate.ci_low:.4f}"),
                ("ci_high", f"{aggregate.ci_high:.4f}"),
            ]
        if aggregate.ppi is not None:
            props += [
                ("labelled", str(aggregate.labelled)),
                ("ppi", f"{aggregate.ppi.estimate:.4f}"),
                ("ppi_ci_low", f"{aggregate.ppi.ci_low:.4f}"),
                ("ppi_ci_high", f"{aggregate.ppi.ci_high:.4f}"),
            ]
        props += noise_properties(aggregate)
        if aggregate.threshold is None:
            props.append(("gated", "false"))
        else:
            props.append(("threshold", f"{aggregate.threshold:.4f}"))
            props.append(("threshold_kind", aggregate.direction))
        properties.append(props)

    error_rate = junit_xml.TestCase(name="error_rate", classname=GATE_SUITE)
    if undecided:
        error_rate.add_error_info(
            message=_clean(verdict.recommendation), error_type="RagGateJudgeUnavailable"
        )
    elif not verdict.error_rate_passed:
        error_rate.add_failure_info(
            message=_clean(verdict.error_rate_message), failure_type="RagGateErrorRate"
        )
    testcases.append(error_rate)
    properties.append(
        [
            ("total_cases", str(verdict.total_cases)),
            ("errored_cases", str(verdict.errored_cases)),
            ("error_rate", f"{verdict.error_rate:.4f}"),
            ("max_error_rate", f"{verdict.max_error_rate:.4f}"),
        ]
    )

    # How much of the golden set was gated; a partial run is no deploy decision, which
    # reads as a skipped check rather than a failure (shard jobs are partial by design).
    coverage = junit_xml.TestCase(name="coverage", classname=GATE_SUITE)
    # A run made partial by a check that evaluated nothing gets that check's own case.
    if verdict.partial_coverage:
        coverage.add_skipped_info(message=_clean(f"partial run: {verdict.coverage}"))
    testcases.append(coverage)
    properties.append(
        [
            ("gated_cases", str(verdict.total_cases)),
            (
                "collected_cases",
                "unknown" if verdict.collected_cases is None else str(verdict.collected_cases),
            ),
            ("verdict", _clean(verdict.coverage)),
        ]
    )
    if verdict.status == "ungated":
        # Nothing had a threshold: a skipped check, so no CI view shows a green gate.
        ungated = junit_xml.TestCase(name="gated_metrics", classname=GATE_SUITE)
        ungated.add_skipped_info(message=_clean(verdict.recommendation))
        testcases.append(ungated)
        properties.append([("verdict", "ungated")])
    for reason in verdict.not_evaluated:
        unchecked = junit_xml.TestCase(
            name=f"not_evaluated:{reason.split(' not evaluated')[0]}", classname=GATE_SUITE
        )
        unchecked.add_skipped_info(message=_clean(reason))
        testcases.append(unchecked)
        properties.append([])
    for name, failure_type, message in _run_checks(verdict):
        testcase = junit_xml.TestCase(name=name, classname=GATE_SUITE)
        testcase.add_failure_info(message=_clean(message), failure_type=failure_type)
        testcases.append(testcase)
        properties.append([("verdict", _clean(message))])

    if verdict.latency is not None:
        for check in verdict.latency.checks:
            testcase = junit_xml.TestCase(name=f"latency:{check.statistic}", classname=GATE_SUITE)
            if not check.passed:
                testcase.add_failure_info(
                    message=_clean(check.message), failure_type="RagGateLatency"
                )
            testcases.append(testcase)
            seconds = "n/a" if check.seconds is None else f"{check.seconds:.4f}"
            properties.append(
                [
                    ("seconds", seconds),
                    ("limit", f"{check.limit:.4f}"),
                    ("n", str(verdict.latency.n)),
                    ("verdict", _clean(check.message)),
                ]
            )

    if verdict.alignment is not None:
        # An alarm, not a gate: it reads as a passing test case whose properties say so;
        # gating on alignment is a threshold on top_doc_usage.
        alignment = verdict.alignment
        testcases.append(junit_xml.TestCase(name="ignored_top_ranked", classname=GATE_SUITE))
        properties.append(
            [
                ("rate", f"{alignment.rate:.4f}"),
                ("n", str(alignment.n)),
                ("alarm_above", f"{alignment.alarm_above:.4f}"),
                ("alarm", str(alignment.alarm).lower()),
                ("verdict", _clean(alignment.message)),
            ]
        )

    for tag in verdict.tags:
        testcase = junit_xml.TestCase(name=f"tag:{tag.tag}:{tag.metric}", classname=GATE_SUITE)
        if not tag.passed:
            testcase.add_failure_info(message=_clean(tag.message), failure_type="RagGateThreshold")
        testcases.append(testcase)
        properties.append(
            [
                ("mean", "n/a" if tag.mean is None else f"{tag.mean:.4f}"),
                ("n", str(tag.n)),
                ("threshold", f"{tag.threshold:.4f}"),
            ]
        )

    # Gate the judge before it gates the system: one test case per metric with a floor.
    for metric, figures in verdict.agreement.items():
        if figures.passed is None:
            continue
        testcase = junit_xml.TestCase(name=f"agreement:{metric}", classname=GATE_SUITE)
        if not figures.passed:
            testcase.add_failure_info(
                message=_clean(figures.message), failure_type="RagGateJudgeAgreement"
            )
        testcases.append(testcase)
        measured = [("n", str(figures.n))]
        for name in figures.floors:
            figure = figures.statistic(name)
            value = None if figure is None else figure.value
            measured.append((name, "n/a" if value is None else f"{value:.4f}"))
            measured.append((f"min_{name}", f"{figures.floors[name]:.4f}"))
        properties.append([*measured, ("verdict", _clean(figures.message))])
    return testcases, properties


#: JUnit failure types of the gate's run-level checks.
_RUN_CHECK_TYPES = {
    "unreadable_files": "RagGateUnreadableFile",
    "case_thresholds": "RagGateCaseThreshold",
    "other_tests": "RagGateOtherTests",
}


def _run_checks(verdict: GateVerdict) -> list[tuple[str, str, str]]:
    """The gate's failing run-level checks as (name, failure type, message)."""
    checks: list[tuple[str, str, str]] = [
        (name, _RUN_CHECK_TYPES[name], verdict.run_checks[name])
        for name in ("unreadable_files", "case_thresholds")
        if name in verdict.run_checks
    ]
    if verdict.baseline is not None:
        for metric in verdict.baseline.regressed_metrics:
            delta = verdict.baseline.metrics[metric]
            checks.append((f"baseline:{metric}", "RagGateRegression", delta.message))
    if "other_tests" in verdict.run_checks:
        checks.append(
            ("other_tests", _RUN_CHECK_TYPES["other_tests"], verdict.run_checks["other_tests"])
        )
    return checks


def _attach_properties(suite: ET.Element, per_case: Sequence[Sequence[tuple[str, str]]]) -> None:
    """Give each ``<testcase>`` of ``suite`` its properties, first as the schema orders them."""
    for element, properties in zip(suite.iter("testcase"), per_case, strict=True):
        if not properties:
            continue
        container = ET.Element("properties")
        for name, value in properties:
            ET.SubElement(container, "property", {"name": name, "value": _clean(value)})
        element.insert(0, container)


def write_junit(
    path: str | os.PathLike[str],
    *,
    results: Sequence[CaseResult],
    verdict: GateVerdict,
    judge: JudgeInfo,
    failure_lines: Mapping[str, list[str]],
    bounds: Mapping[str, Bound] | None = None,
) -> None:
    """Write the JUnit XML report, atomically, as UTF-8.

    Suite ``rag-cases`` has one test case per golden case: its scores as properties, a
    ``<failure>`` when it misses its own per-case minimums, an ``<error>`` when it or one of
    its metrics errored. Suite ``rag-gate`` has one test case per metric (failing with the
    verdict line), one for the error rate, one per latency budget check, one for the
    ignored-top-ranked alarm and one per tag minimum.

    Args:
        path: The destination file.
        results: Every case result of the run.
        verdict: The gate's verdict.
        judge: The judge that scored the run.
        failure_lines: Per case id, the failure lines the case's pytest item reported
            (verdict first); cases not in it fall back to their own threshold check.
        bounds: The gate's thresholds, for each case's ``diagnosis`` property.
    """
    ordered = canonical_order(results)
    gate_cases, gate_properties = _gate_testcases(verdict)
    gate_suite = junit_xml.TestSuite(
        GATE_SUITE,
        gate_cases,
        properties={
            "verdict": verdict.status,
            "coverage": _clean(verdict.coverage),
            "recommendation": _clean(verdict.recommendation),
            "judge_kind": judge.kind,
            "judge_model": judge.model,
            "judge_selected_by": judge.selected_by,
        },
    )
    gate_element: ET.Element = gate_suite.build_xml_doc()
    _attach_properties(gate_element, gate_properties)
    _make_xml_safe(gate_element)
    ET.indent(gate_element, level=1)

    with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:
        case_totals = _spool_case_suite(ordered, failure_lines, spool, bounds or {})
        suite_attributes = {"name": CASES_SUITE, **case_totals}
        totals = {
            key: str(int(case_totals.get(key, "0")) + int(gate_element.get(key, "0")))
            for key in ("tests", "failures", "errors", "disabled")
        }
        root_attributes = {"name": "pytest-ragas-gate", **totals}
        root_attributes["time"] = f"{sum(result.scoring_s for result in ordered):.3f}"

        def chunks() -> Iterator[str]:
            yield '<?xml version="1.0" encoding="UTF-8"?>\n'
            yield f"<testsuites{_attributes(root_attributes)}>\n"
            yield f"  <testsuite{_attributes(suite_attributes)}"
            if not ordered:
                yield " />\n"
            else:
                yield ">\n"
                spool.seek(0)
                while block := spool.read(1 << 20):
                    yield block
                yield "  </testsuite>\n"
            yield "  " + ET.tostring(gate_element, encoding="unicode").rstrip() + "\n"
            yield "</testsuites>\n"

        write_lines_atomic(path, chunks())


#: Golden cases turned into XML at a time: the cases suite of 50,000 cases is never one
#: tree in memory.
_CASES_PER_BATCH = 500


def _spool_case_suite(
    ordered: Sequence[CaseResult],
    failure_lines: Mapping[str, list[str]],
    spool: IO[str],
    bounds: Mapping[str, Bound],
) -> dict[str, str]:
    """Write the cases suite's ``<testcase>`` elements to ``spool``; return its totals."""
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "disabled": 0}
    seconds = 0.0
    for start in range(0, len(ordered), _CASES_PER_BATCH):
        batch = ordered[start : start + _CASES_PER_BATCH]
        suite = junit_xml.TestSuite(
            CASES_SUITE, [_case_testcase(result, failure_lines, bounds) for result in batch]
        ).build_xml_doc()
        _attach_properties(suite, [_case_properties(result, bounds) for result in batch])
        _make_xml_safe(suite)
        for key in counts:
            counts[key] += int(suite.get(key, "0"))
        seconds += float(suite.get("time", "0") or 0)
        for testcase in suite:
            ET.indent(testcase, level=2)
            spool.write("    " + ET.tostring(testcase, encoding="unicode").rstrip() + "\n")
    return {**{key: str(value) for key, value in counts.items()}, "time": f"{seconds:g}"}


def _attributes(attributes: Mapping[str, str]) -> str:
    """`` name="value"`` pairs, escaped for an XML start tag."""
    return "".join(
        f" {name}={xml.sax.saxutils.quoteattr(_clean(value))}" for name, value in attributes.items()
    )
