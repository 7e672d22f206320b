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
from ..gate.checks import CheckKind
from ..gate.diagnosis import diagnose
from ..gate.verdict import GateVerdict
from ..judges.base import JudgeInfo
from ..scoring.results import CaseResult, canonical_order, split_source
from ..settings.bounds import Bound

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
    result: CaseResult, failure_lines: Mapping[str, list[str]], own_misses: Mapping[str, list[str]]
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
    lines = failure_lines.get(result.id) or own_misses.get(result.key, [])
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


#: JUnit failure types of the gate's checks, by kind.
_FAILURE_TYPES: dict[CheckKind, str] = {
    "metric": "RagGateThreshold",
    "min_cases": "RagGateThreshold",
    "min_coverage": "RagGateThreshold",
    "tag": "RagGateThreshold",
    "error_rate": "RagGateErrorRate",
    "no_cases": "RagGateErrorRate",
    "unreadable_files": "RagGateUnreadableFile",
    "incomplete": "RagGateIncomplete",
    "case_thresholds": "RagGateCaseThreshold",
    "baseline": "RagGateRegression",
    "other_tests": "RagGateOtherTests",
    "latency": "RagGateLatency",
    "agreement": "RagGateJudgeAgreement",
    "judge_noise": "RagGateJudgeNoise",
    "pairwise": "RagGatePairwise",
}
#: Checks of one gated metric, whose failure output carries the hint.
_METRIC_KINDS = frozenset({"metric", "min_cases", "min_coverage"})
#: Checks whose failure in a run the judge could not decide is an error, not a failure.
_UNDECIDED_KINDS = frozenset({"metric", "min_cases", "min_coverage", "pairwise"})
#: Checks that decided nothing read as skipped, so no CI view shows them green.
_SKIPPED_KINDS = frozenset({"coverage", "gated_metrics", "not_evaluated"})


def _gate_testcases(verdict: GateVerdict) -> tuple[list[Any], list[list[tuple[str, str]]]]:
    """One ``rag-gate`` test case per check, with the check's figures as properties."""
    testcases: list[Any] = []
    # A judge that did not answer decided nothing: its checks are errors, not failures, so
    # a CI view tells "retry" from "quality below threshold".
    undecided = verdict.status == "error"
    for check in verdict.checks:
        testcase = junit_xml.TestCase(name=check.name, classname=GATE_SUITE)
        outcome = verdict.outcome(check.name) if check.kind in _METRIC_KINDS else None
        if outcome is not None and outcome.status == "not_judged":
            testcase.add_error_info(
                message=_clean(check.message), error_type="RagGateJudgeUnavailable"
            )
        elif undecided and check.name == "error_rate":
            testcase.add_error_info(
                message=_clean(verdict.recommendation), error_type="RagGateJudgeUnavailable"
            )
        elif check.passed is False and undecided and check.kind in _UNDECIDED_KINDS:
            testcase.add_error_info(
                message=_clean(check.message), error_type="RagGateJudgeUnavailable"
            )
        elif check.passed is False:
            output = check.message + (f"\nHint: {check.hint}" if check.hint else "")
            testcase.add_failure_info(
                message=_clean(check.message),
                output=_clean(output) if check.kind in _METRIC_KINDS else None,
                failure_type=_FAILURE_TYPES[check.kind],
            )
        elif check.passed is None and check.kind in _SKIPPED_KINDS:
            testcase.add_skipped_info(message=_clean(check.message))
        testcases.append(testcase)
    return testcases, [list(check.properties.items()) for check in verdict.checks]


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
            "deploy_decision": "true" if verdict.deploy_decision else "false",
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
        own_misses = {case.key: case.own_misses for case in verdict.cases}
        case_totals = _spool_case_suite(ordered, failure_lines, own_misses, spool, bounds or {})
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
    own_misses: Mapping[str, list[str]],
    spool: IO[str],
    bounds: Mapping[str, Bound],
) -> dict[str, str]:
    """Write the cases suite's ``<testcase>`` elements to ``spool``; return its totals."""
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "disabled": 0}
    seconds = 0.0
    for start in range(0, len(ordered), _CASES_PER_BATCH):
        batch = ordered[start : start + _CASES_PER_BATCH]
        suite = junit_xml.TestSuite(
            CASES_SUITE, [_case_testcase(result, failure_lines, own_misses) for result in batch]
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
