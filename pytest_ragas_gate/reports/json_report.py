"""The machine-readable JSON report: build it, write it atomically, load it back.

The report keeps every :class:`~pytest_ragas_gate.scoring.results.CaseResult` whole, together with
the config that gated it, so ``rag-gate gate`` can feed a saved report back to
:func:`~pytest_ragas_gate.gate.verdict.evaluate_gate` and reach the very verdict of the run.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..atomic_files import write_lines_atomic, write_text_atomic
from ..exceptions import ReportError, UsageError
from ..gate.baseline import BaselineComparison
from ..gate.case_verdicts import CaseVerdict, case_verdicts
from ..gate.deploy_decision import scored_by
from ..gate.diagnosis import diagnose
from ..gate.verdict import GateVerdict, RunFacts
from ..judges.base import JudgeInfo
from ..scoring.results import CaseResult, canonical_order
from ..scoring.retrieval_hops import retrieval_hops
from ..settings.bounds import Bound
from ..settings.config import GateConfig
from ..text_safety import json_text
from ..usage import Usage

__all__ = [
    "SCHEMA_VERSION",
    "baseline_results",
    "JudgeInfo",
    "SavedReport",
    "build_report",
    "load_report",
    "read_baseline",
    "report_cases",
    "saved_case_verdicts",
    "write_report",
    "baseline_report",
    "saved_stamp",
]

#: Bumped on any change that an older reader would misread; additions keep the version.
#: Version 2 added ``"partial"`` to the values of ``verdict`` and the run facts (``run``);
#: ``"ungated"`` came later as an addition: like ``"partial"`` it is no deploy decision, and a
#: reader that only deploys on ``"passed"`` reads it right.
SCHEMA_VERSION = 2

#: Versions this one reads; a version-1 report has no run facts and re-gates without them.
READABLE_VERSIONS = (1, 2)


@dataclass(frozen=True)
class SavedReport:
    """A JSON report read back from disk, ready to be re-gated."""

    path: Path
    results: list[CaseResult]
    config: GateConfig
    metrics: list[str]
    judge: JudgeInfo
    facts: RunFacts
    raw: dict[str, Any]


def _outcome_entry(verdict: GateVerdict, metric: str) -> dict[str, Any]:
    """``{"outcome": …}``: what the gate decided the metric's figures mean."""
    outcome = verdict.outcome(metric)
    if outcome is None:
        return {}
    return {"outcome": outcome.model_dump(mode="json", exclude={"metric"})}


#: The ``run`` object's stamp when the run's commit and CI run are not known.
_UNSTAMPED: dict[str, str | None] = {"commit": None, "run_url": None}


def build_report(
    *,
    results: Sequence[CaseResult],
    verdict: GateVerdict,
    config: GateConfig,
    judge: JudgeInfo,
    usage_by_metric: Mapping[str, Usage],
    wall_s: float,
    scoring_s: float,
    incomplete: bool = False,
    facts: RunFacts | None = None,
    shard: Mapping[str, int] | None = None,
    include_cases: bool = True,
    stamp: Mapping[str, str | None] | None = None,
) -> dict[str, Any]:
    """The report as a JSON-ready dict (schema version :data:`SCHEMA_VERSION`).

    Args:
        results: Every case result of the run.
        verdict: The gate's verdict over ``results``.
        config: The config the verdict was reached with.
        judge: The judge that scored the run.
        usage_by_metric: Judge usage per metric.
        wall_s: Wall time of the whole run, in seconds.
        scoring_s: Wall time of the scoring pass, in seconds.
        incomplete: True when the run stopped early (budget, interrupt) and not every
            selected case was scored.
        facts: The run facts the verdict was reached with (saved so a re-gate reaches it
            again); the baseline comparison is saved under ``baseline``.
        shard: ``{"index", "count"}`` of a shard run, None for a whole run.
        include_cases: False leaves ``cases`` out, for :func:`write_report` to stream them
            from the results.
        stamp: ``{"commit", "run_url"}`` of the run, as its environment gave them (see
            :mod:`pytest_ragas_gate.reports.run_stamp`); default: neither known.

    Returns:
        A dict of plain JSON values.
    """
    total = sum(usage_by_metric.values(), Usage())
    facts = facts or RunFacts()
    return {
        "schema_version": SCHEMA_VERSION,
        "verdict": verdict.status,
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
        "incomplete": incomplete,
        "partial": verdict.partial,
        "coverage": verdict.coverage,
        "run": {
            **facts.model_dump(mode="json", exclude={"baseline"}),
            "gated_cases": verdict.total_cases,
            "collected_cases": verdict.collected_cases,
            "below_own_thresholds": list(verdict.below_own_thresholds),
            **(_UNSTAMPED if stamp is None else stamp),
        },
        "judge": judge.model_dump(mode="json"),
        "config": config.model_dump(mode="json"),
        "metrics": {
            name: {
                **aggregate.model_dump(mode="json", exclude={"metric"}),
                **_outcome_entry(verdict, name),
            }
            for name, aggregate in verdict.metrics.items()
        },
        "tags": [tag.model_dump(mode="json") for tag in verdict.tags],
        "error_rate": {
            "total_cases": verdict.total_cases,
            "errored_cases": verdict.errored_cases,
            "error_rate": verdict.error_rate,
            "max_error_rate": verdict.max_error_rate,
            "passed": verdict.error_rate_passed,
            "message": verdict.error_rate_message,
        },
        "failures": list(verdict.failures),
        # Everything the gate decided, one check each, as the JUnit gate suite lists them.
        "checks": [check.model_dump(mode="json") for check in verdict.checks],
        "failing_metrics": list(verdict.failing_metrics),
        "recommendation": verdict.recommendation,
        # True only when the run passed and an LLM judge scored every gated metric that
        # asks a judge; false for the offline heuristic and for every other verdict.
        "deploy_decision": verdict.deploy_decision,
        "hints": dict(verdict.hints),
        "latency": None if verdict.latency is None else verdict.latency.model_dump(mode="json"),
        "alignment": (
            None if verdict.alignment is None else verdict.alignment.model_dump(mode="json")
        ),
        "usage": {
            **total.model_dump(mode="json"),
            "by_metric": {
                metric: record.model_dump(mode="json") for metric, record in usage_by_metric.items()
            },
        },
        "timing": {"wall_s": wall_s, "scoring_s": scoring_s},
        "shard": shard,
        "baseline": None if facts.baseline is None else facts.baseline.model_dump(mode="json"),
        # The new answers judged against the baseline's (pairwise: true): rates, intervals,
        # position-consistency, the first losses side by side; null otherwise.
        "pairwise": None if verdict.pairwise is None else verdict.pairwise.model_dump(mode="json"),
        "diagnosis": None if verdict.diagnosis is None else verdict.diagnosis.model_dump(),
        # Each gap over the cases scored both ways, with their number n.
        "oracle_gaps": [gap.model_dump(mode="json") for gap in verdict.oracle_gaps],
        # Checks asked for that checked nothing (they make the run partial).
        "not_evaluated": list(verdict.not_evaluated),
        # Conversations, their turns and the turns that broke (null without conversations).
        "conversations": verdict.conversations,
        # Judge–human agreement per labelled metric (figures with intervals, floors,
        # verdict); the PPI estimate of each metric sits under metrics.<name>.ppi.
        "agreement": {
            metric: figures.model_dump(mode="json", exclude={"metric"})
            for metric, figures in verdict.agreement.items()
        },
        "cases": list(_records(results, config, verdict.cases)) if include_cases else [],
    }


#: The metrics whose per-item details a ``core`` report keeps: what a person reads to see
#: why a case failed (claims, chunks, reference statements). Other metrics' details derive
#: from these or from the scores, and ``report_details: full`` keeps them too.
CORE_DETAILS = frozenset(
    {
        "faithfulness",
        "context_precision",
        "context_recall",
        "citation_precision",
        "knowledge_retention",
        # Each expected tool call, whether it was made and, if not, why: what to fix.
        "tool_correctness",
    }
)


def _statement_key(text: object) -> str:
    """A statement as the case panel matches it: lower case, letters and digits only."""
    return " ".join(re.sub(r"[\W_]+", " ", str(text or "").lower()).split())


def _omitted_statements(details: Any, reference: Any) -> list[Any]:
    """answer_correctness's false negatives: the reference statements the answer left out.

    A ``core`` report keeps only these of its details, for the case panel to mark them. A
    statement context_recall also lists keeps no reason: the panel shows that statement
    with context_recall's own reason, so a second one would only weigh on the page.
    """
    if not isinstance(details, list):
        return []
    listed = {
        _statement_key(item.get("statement"))
        for item in (reference if isinstance(reference, list) else [])
        if isinstance(item, dict)
    }
    return [
        {key: value for key, value in item.items() if key != "reason"}
        if _statement_key(item.get("statement")) in listed
        else item
        for item in details
        if isinstance(item, dict) and item.get("classification") == "FN"
    ]


#: Keys of a case record derived from the result and the settings, not read back.
DERIVED_CASE_KEYS = ("diagnosis", "retrieval_hops", "verdict")

#: The fields of the gate's case verdict a case record keeps under ``verdict``.
_VERDICT_FIELDS = {"status", "misses", "own_misses", "newly_failing", "newly_passing"}


def _case_record(
    result: CaseResult, *, full: bool, bounds: Mapping[str, Bound], verdict: CaseVerdict
) -> dict[str, Any]:
    """One case of the report; an errored metric always keeps its details (its traceback).

    ``diagnosis`` (the component to fix, see :mod:`pytest_ragas_gate.gate.diagnosis`),
    ``verdict`` (the gate's verdict of the case: status, thresholds missed, newly failing
    or passing against the baseline) and ``retrieval_hops`` (a multi-hop case's retrieval
    metrics per hop, see :mod:`pytest_ragas_gate.scoring.retrieval_hops`) are derived from
    the scores and thresholds, so a re-gate with other thresholds derives them afresh.
    """
    record = result.model_dump(mode="json")
    if not full:
        kept = {
            metric: details
            for metric, details in record["details"].items()
            if metric in CORE_DETAILS or metric in result.errors
        }
        omitted = _omitted_statements(
            record["details"].get("answer_correctness"), record["details"].get("context_recall")
        )
        if omitted and "answer_correctness" not in kept:
            kept["answer_correctness"] = omitted
        record["details"] = kept
    found = diagnose(result, bounds)
    record["diagnosis"] = None if found is None else found.model_dump()
    record["verdict"] = verdict.model_dump(mode="json", include=_VERDICT_FIELDS)
    hops = retrieval_hops(result)
    if hops is not None:
        record["retrieval_hops"] = hops
    return record


def saved_case_verdicts(
    report: Mapping[str, Any], results: Sequence[CaseResult]
) -> list[CaseVerdict]:
    """The gate's verdict of each case of a saved report, in canonical order.

    The report's config gives the thresholds and its baseline comparison the cases that
    missed them in the baseline, as when the run decided them.
    """
    config = GateConfig.model_validate(report.get("config") or {})
    ordered = canonical_order(results)
    baseline = report.get("baseline")
    if not isinstance(baseline, Mapping):
        return case_verdicts(ordered, config.bounds())
    try:
        comparison = BaselineComparison.model_validate(baseline)
    except ValidationError:
        # Not a comparison this version wrote: the cases are judged without it.
        return case_verdicts(ordered, config.bounds())
    return case_verdicts(
        ordered,
        config.bounds(),
        comparison.case_misses,
        comparison.new_cases,
        comparison.not_compared_metrics,
    )


def _records(
    results: Sequence[CaseResult], config: GateConfig, cases: Sequence[CaseVerdict]
) -> Iterator[dict[str, Any]]:
    full = config.report_details == "full"
    bounds = config.bounds()
    # By source too: a duplicate id errors, and must not lend its verdict to the first case.
    decided = {(case.key, case.source): case for case in cases}
    for result in canonical_order(results):
        verdict = decided[result.key, result.source]
        yield _case_record(result, full=full, bounds=bounds, verdict=verdict)


def report_cases(
    results: Sequence[CaseResult], config: GateConfig, cases: Sequence[CaseVerdict]
) -> Iterator[dict[str, Any]]:
    """Each case as a report with ``config`` writes it, in canonical order (for the HTML page)."""
    return _records(results, config, cases)


def write_report(
    path: str | os.PathLike[str],
    report: Mapping[str, Any],
    *,
    results: Sequence[CaseResult] | None = None,
    verdicts: Sequence[CaseVerdict] | None = None,
) -> None:
    """Write a report built by :func:`build_report` to ``path``, atomically.

    One case per line: the top-level keys first, then each case on a line of its own, so
    a 50,000-case report stays small (no indentation) yet greps and diffs by case. With
    ``results`` (and a report built with ``include_cases=False``) each case is dumped as it
    is written, so the whole report never sits in memory at once.

    Args:
        path: The destination file.
        report: The report dict.
        results: The case results to write as ``cases``, instead of ``report["cases"]``.
        verdicts: The gate's verdict of each result (default: as the report's config and
            baseline comparison decide them).
    """
    if results is not None:
        config = GateConfig.model_validate(report.get("config", {}))
        decided = saved_case_verdicts(report, results) if verdicts is None else verdicts
        cases: Iterable[Any] = _records(results, config, decided)
        count = len(results)
    else:
        stored = report.get("cases")
        if not isinstance(stored, list):
            write_text_atomic(path, json_text(report) + "\n")
            return
        cases, count = stored, len(stored)
    head = json_text({key: value for key, value in report.items() if key != "cases"})

    def lines() -> Iterator[str]:
        yield head[:-1] + (', "cases": [' if len(head) > 2 else '"cases": [')
        for index, case in enumerate(cases):
            yield "\n" + json_text(case) + ("," if index < count - 1 else "")
        yield "\n]}\n"

    write_lines_atomic(path, lines())


def _field_path(location: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in location) or "(the value itself)"


def _first_problem(error: ValidationError) -> str:
    problem = error.errors()[0]
    message = problem["msg"].removeprefix("Value error, ")
    return f"field {_field_path(tuple(problem['loc']))!r}: {message}"


def load_report(path: str | os.PathLike[str]) -> SavedReport:
    """Read a JSON report written by :func:`write_report`.

    Args:
        path: The report file.

    Returns:
        The report's case results, config, metric names (in report order) and judge.

    Raises:
        ReportError: The file cannot be read, is not JSON, has a missing or unknown
            ``schema_version``, or holds a config or case that does not validate.
    """
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"Cannot read the report {source}: {exc.strerror or exc}.") from exc
    except UnicodeDecodeError as exc:
        raise ReportError(f"The report {source} is not UTF-8 text: {exc.reason}.") from exc
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReportError(
            f"The report {source} is not JSON: line {exc.lineno}, column {exc.colno}: "
            f"{exc.msg}. Pass a file written by --rag-gate-output json=PATH."
        ) from exc
    if not isinstance(raw, dict):
        raise ReportError(
            f"The report {source} holds a JSON {type(raw).__name__}, not an object; "
            "pass a file written by --rag-gate-output json=PATH."
        )

    version = raw.get("schema_version")
    if version is None:
        raise ReportError(
            f"The report {source} has no 'schema_version'; it was not written by "
            "pytest-ragas-gate. Pass a file written by --rag-gate-output json=PATH."
        )
    if version not in READABLE_VERSIONS:
        raise ReportError(
            f"The report {source} has schema_version {version!r}; this version of "
            "pytest-ragas-gate reads schema_version "
            f"{' and '.join(str(known) for known in READABLE_VERSIONS)}. Re-run the gate to "
            "write a current report, or use the matching pytest-ragas-gate version."
        )

    for key, kind in (("config", dict), ("metrics", dict), ("cases", list), ("judge", dict)):
        if not isinstance(raw.get(key), kind):
            expected = "an object" if kind is dict else "a list"
            raise ReportError(f"The report {source} has no valid {key!r}: expected {expected}.")

    try:
        config = GateConfig.model_validate(raw["config"])
    except ValidationError as exc:
        raise ReportError(
            f"The report {source} has an invalid 'config': {_first_problem(exc)}."
        ) from exc
    try:
        judge = JudgeInfo.model_validate(raw["judge"])
    except ValidationError as exc:
        raise ReportError(
            f"The report {source} has an invalid 'judge': {_first_problem(exc)}."
        ) from exc

    facts = _facts(source, raw)

    results: list[CaseResult] = []
    for index, item in enumerate(raw["cases"]):
        if isinstance(item, dict):
            item = {key: value for key, value in item.items() if key not in DERIVED_CASE_KEYS}
        try:
            results.append(CaseResult.model_validate(item))
        except ValidationError as exc:
            case_id = item.get("id") if isinstance(item, dict) else None
            named = f" (id {case_id!r})" if isinstance(case_id, str) else ""
            raise ReportError(
                f"The report {source} has an invalid case at index {index}{named}: "
                f"{_first_problem(exc)}."
            ) from exc

    return SavedReport(
        path=source,
        results=results,
        config=config,
        metrics=list(raw["metrics"]),
        judge=judge,
        facts=facts,
        raw=raw,
    )


def _facts(source: Path, raw: Mapping[str, Any]) -> RunFacts:
    """The run facts of a report, with its baseline comparison; empty for version 1."""
    stored = raw.get("run")
    fields = (
        {key: value for key, value in stored.items() if key in RunFacts.model_fields}
        if isinstance(stored, dict)
        else {}
    )
    if raw.get("baseline") is not None:
        fields["baseline"] = raw["baseline"]
    if not fields.get("scored_by") and isinstance(raw.get("judge"), dict):
        # Written before each metric's judge was saved: one judge scored the whole run.
        kind = raw["judge"].get("kind")
        if isinstance(kind, str) and isinstance(raw.get("metrics"), dict):
            fields["scored_by"] = scored_by(list(raw["metrics"]), kind)
    try:
        return RunFacts.model_validate(fields)
    except ValidationError as exc:
        raise ReportError(
            f"The report {source} has invalid run facts ('run' or 'baseline'): "
            f"{_first_problem(exc)}."
        ) from exc


def read_baseline(path: str | Path, *, rootdir: Path) -> SavedReport:
    """Load the baseline report named in the settings, as a usage error when it cannot be.

    Args:
        path: The report, absolute or relative to ``rootdir``.
        rootdir: Where a relative path is resolved.

    Returns:
        The saved report.

    Raises:
        UsageError: The file is missing, unreadable or not a report of this schema.
    """
    resolved = Path(path)
    if not resolved.is_absolute():
        resolved = rootdir / resolved
    try:
        return load_report(resolved)
    except ReportError as error:
        raise UsageError(f"Baseline (--rag-gate-baseline {path}): {error}") from None


def baseline_results(
    saved: SavedReport, explicit: str | None = None, *, best_effort: bool = False
) -> list[CaseResult] | None:
    """The cases of a saved report's baseline: ``explicit``, else the one it was compared with.

    The report's own baseline is looked for where pytest ran (a relative path was relative
    to it), then beside the report; None when the report had none or it cannot be read.

    Args:
        saved: The saved report.
        explicit: A baseline report given on the command line, which takes precedence.
        best_effort: An unreadable ``explicit`` baseline is no baseline (None) rather
            than an error, for output that must never fail a step (the PR comment).

    Raises:
        ReportError: ``explicit`` cannot be read as a report, unless ``best_effort``.
    """
    baseline = baseline_report(saved, explicit, best_effort=best_effort)
    return None if baseline is None else baseline.results


def baseline_report(
    saved: SavedReport, explicit: str | None = None, *, best_effort: bool = False
) -> SavedReport | None:
    """The baseline report itself, found as :func:`baseline_results` finds it.

    Raises:
        ReportError: ``explicit`` cannot be read as a report, unless ``best_effort``.
    """
    if explicit:
        try:
            return load_report(explicit)
        except ReportError:
            if best_effort:
                return None
            raise
    if saved.facts.baseline is None:
        return None
    # ``rag-gate gate --baseline`` records the path in the comparison, not the config.
    stored = saved.config.baseline or saved.facts.baseline.path
    for path in (Path(stored), saved.path.parent / stored):
        if path.is_file():
            try:
                return load_report(path)
            except ReportError:
                return None
    return None


def saved_stamp(saved: SavedReport) -> dict[str, str | None]:
    """The ``{"commit", "run_url"}`` a report was written with (None where it has none)."""
    run = saved.raw.get("run")
    run = run if isinstance(run, dict) else {}
    return {
        key: run[key] if isinstance(run.get(key), str) else None for key in ("commit", "run_url")
    }
