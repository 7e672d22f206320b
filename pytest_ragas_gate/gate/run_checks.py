"""The gate's checks, one small function each: what it decided, with its figures.

Each function turns one part of the run — a metric's aggregate, a tag minimum, the error
rate, a latency budget, the baseline, judge–human agreement, the run-level facts — into
:class:`~.checks.GateCheck` values. The coverage check lives with the coverage ledger
(:mod:`.coverage`), the judge-noise check with the noise figures (:mod:`.judge_noise`),
checks that evaluated nothing in :mod:`.unevaluated`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..live.latency import LatencyVerdict
from ..scoring.results import CaseResult
from ..settings.config import GateConfig
from ..trust.figures import MetricAgreement
from .aggregates import MetricAggregate, TagVerdict
from .baseline_figures import BaselineComparison
from .checks import CheckKind, GateCheck
from .hints import hint_for
from .ignored_top import IgnoredTopRanked
from .judge_noise import noise_properties
from .judge_outage import judge_errored
from .run_facts import named

__all__ = [
    "agreement_checks",
    "alignment_check",
    "baseline_checks",
    "case_thresholds_check",
    "error_rate_check",
    "latency_checks",
    "metric_check",
    "other_tests_check",
    "percent",
    "tag_check",
    "ungated_check",
    "unreadable_files_check",
]


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def percent(rate: float) -> str:
    """A rate as a short percentage: 0.075 → ``"7.5%"``, 0.0 → ``"0%"``."""
    text = f"{rate * 100:.2f}".rstrip("0").rstrip(".")
    return f"{text}%"


def metric_check(aggregate: MetricAggregate, config: GateConfig) -> GateCheck:
    """A metric against its threshold; ``passed`` None when it has none (reported only).

    A gated metric computed on fewer than ``min_cases`` cases was never measured, so it
    fails as ``min_cases`` rather than as below its threshold, and without a hint.
    """
    properties = {
        "mean": _figure(aggregate.mean),
        "n": str(aggregate.n),
        "not_applicable": str(aggregate.not_applicable),
        "errors": str(aggregate.errors),
        "rule": aggregate.rule,
        "verdict": aggregate.message,
    }
    if aggregate.ci_low is not None and aggregate.ci_high is not None:
        properties["ci_low"] = f"{aggregate.ci_low:.4f}"
        properties["ci_high"] = f"{aggregate.ci_high:.4f}"
    if aggregate.ppi is not None:
        properties["labelled"] = str(aggregate.labelled)
        properties["ppi"] = f"{aggregate.ppi.estimate:.4f}"
        properties["ppi_ci_low"] = f"{aggregate.ppi.ci_low:.4f}"
        properties["ppi_ci_high"] = f"{aggregate.ppi.ci_high:.4f}"
    properties.update(noise_properties(aggregate.judge_noise))
    if aggregate.threshold is None:
        properties["gated"] = "false"
    else:
        properties["threshold"] = f"{aggregate.threshold:.4f}"
        properties["threshold_kind"] = aggregate.direction
    properties["cases"] = str(aggregate.cases)
    if aggregate.coverage is not None:
        properties["coverage"] = f"{aggregate.coverage:.4f}"
    if aggregate.min_coverage is not None:
        properties["min_coverage"] = f"{aggregate.min_coverage:.4f}"
    if aggregate.baseline_mean is not None:
        properties["baseline_mean"] = f"{aggregate.baseline_mean:.4f}"
    if aggregate.newly_failing:
        properties["newly_failing"] = "true"
    unmeasured = aggregate.n < config.min_cases
    failed = aggregate.passed is False
    uncovered = failed and not unmeasured and aggregate.coverage_passed is False
    return GateCheck(
        name=aggregate.metric,
        kind="min_cases" if failed and unmeasured else "min_coverage" if uncovered else "metric",
        passed=aggregate.passed,
        message=aggregate.message,
        cause=(
            None
            if not failed
            else f"gated metric(s) computed on fewer than min_cases {config.min_cases} case(s)"
            if unmeasured
            else "gated metric(s) computed on too few of their cases (min_coverage)"
            if uncovered
            else f"metric(s) {'below' if aggregate.direction == 'min' else 'above'} threshold"
        ),
        hint=hint_for(aggregate.metric) if failed and not unmeasured and not uncovered else None,
        subject=aggregate.metric,
        properties=properties,
        # Too few cases scored because the judge errored on the rest: retry, not a failure.
        judge_unavailable=failed and unmeasured and bool(aggregate.errors),
    )


def tag_check(tag: TagVerdict, results: Sequence[CaseResult]) -> GateCheck:
    """A per-tag minimum over the tagged cases."""
    silent = tag.n == 0 and any(judge_errored(r) for r in results if tag.tag in r.tags)
    return GateCheck(
        name=f"tag:{tag.tag}:{tag.metric}",
        kind="tag",
        passed=tag.passed,
        message=tag.message,
        cause=None
        if tag.passed
        # Nothing was measured: neither "below threshold" nor quality advice would be true.
        else f"tag {tag.tag!r} has no scored cases"
        if tag.n == 0
        else f"tag {tag.tag!r} {'below' if tag.direction == 'min' else 'above'} threshold",
        hint=None if tag.passed or tag.n == 0 else hint_for(tag.metric),
        subject=tag.metric,
        properties={
            "mean": _figure(tag.mean),
            "n": str(tag.n),
            "threshold": f"{tag.threshold:.4f}",
            **(
                {}
                if tag.ci_low is None or tag.ci_high is None
                else {"ci_low": f"{tag.ci_low:.4f}", "ci_high": f"{tag.ci_high:.4f}"}
            ),
        },
        judge_unavailable=not tag.passed and silent,
    )


def error_rate_check(
    results: Sequence[CaseResult], config: GateConfig, nothing_scored: str
) -> GateCheck:
    """Errored cases against ``max_error_rate``; a run that scored no case fails here.

    Args:
        results: Every case result of the run.
        config: The settings (``max_error_rate``).
        nothing_scored: Why a run without results scored nothing.
    """
    total = len(results)
    errored = sum(1 for result in results if result.errored)
    rate = errored / total if total else 0.0
    properties = {
        "total_cases": str(total),
        "errored_cases": str(errored),
        "error_rate": f"{rate:.4f}",
        "max_error_rate": f"{config.max_error_rate:.4f}",
    }
    if total == 0:
        return GateCheck(
            name="error_rate",
            kind="no_cases",
            passed=False,
            message=nothing_scored,
            cause="no golden cases were scored",
            properties=properties,
        )
    passed = rate <= config.max_error_rate
    # Malformed cases are input errors; only metric failures speak of the judge.
    judge_errors = sum(1 for result in results if result.errors)
    # A spent budget is a setting that stopped the run, not a judge that misbehaved.
    budget_stops = sum(1 for result in results if result.budget_spent)
    if passed or not judge_errors:
        prefix = ""
    elif budget_stops:
        prefix = f"judge budget spent ({budget_stops} case(s) left unscored): "
    else:
        prefix = "judge unreliable: "
    return GateCheck(
        name="error_rate",
        kind="error_rate",
        passed=passed,
        message=(
            f"{prefix}{errored} of {total} case(s) errored "
            f"({percent(rate)} {'≤' if passed else '>'} max_error_rate "
            f"{percent(config.max_error_rate)})"
        ),
        cause=None if passed else f"{errored} case(s) errored",
        properties=properties,
        judge_unavailable=not passed,
    )


def ungated_check(recommendation: str) -> GateCheck:
    """A run with no threshold in force: skipped, so no CI view shows a green gate."""
    return GateCheck(
        name="gated_metrics",
        kind="gated_metrics",
        passed=None,
        message=recommendation,
        properties={"verdict": "ungated"},
    )


def _run_failure(name: CheckKind, message: str, cause: str) -> GateCheck:
    """A failing check of the run itself, its line as its one property."""
    return GateCheck(
        name=name,
        kind=name,
        passed=False,
        message=message,
        cause=cause,
        properties={"verdict": message},
    )


def unreadable_files_check(unreadable: Sequence[str]) -> GateCheck | None:
    """Golden files that could not be read: their cases were never scored."""
    if not unreadable:
        return None
    return _run_failure(
        "unreadable_files",
        f"{len(unreadable)} golden file(s) could not be read, so their cases were not "
        "scored: " + "; ".join(problem.splitlines()[0] for problem in unreadable),
        f"{len(unreadable)} golden file(s) unreadable",
    )


def incomplete_check(results: Sequence[CaseResult]) -> GateCheck | None:
    """Cases the run stopped short of (interrupted, budget spent): no pass rests on them.

    Their errors count against ``max_error_rate`` too, but a rate that allows them must not
    make a run that was cut short read as passed.
    """
    short = [result.key for result in results if result.incomplete]
    if not short:
        return None
    check = _run_failure(
        "incomplete",
        f"the run stopped short of {len(short)} case(s) (interrupted or out of budget), so "
        f"it is incomplete: {named(short)}",
        f"incomplete run: {len(short)} case(s) not scored",
    )
    # A spent budget is the judge's silence: with no other failure the verdict stays
    # ``error`` (retry), as the error rate alone made it; an interruption is not.
    return check.model_copy(update={"judge_unavailable": True})


def case_thresholds_check(below_own: Sequence[str]) -> GateCheck | None:
    """Cases below their own per-case thresholds."""
    if not below_own:
        return None
    return _run_failure(
        "case_thresholds",
        f"{len(below_own)} case(s) below their own thresholds: {named(below_own)}",
        f"{len(below_own)} case(s) below their own thresholds",
    )


def other_tests_check(others: Sequence[str]) -> GateCheck | None:
    """Other tests that failed in the same pytest run."""
    if not others:
        return None
    return _run_failure(
        "other_tests",
        f"{len(others)} other test(s) failed in this run: {named(others)}",
        f"{len(others)} other test(s) failed",
    )


def baseline_checks(baseline: BaselineComparison | None) -> list[GateCheck]:
    """One failing check per metric that regressed against the baseline."""
    if baseline is None:
        return []
    checks: list[GateCheck] = []
    for metric in baseline.regressed_metrics:
        message = baseline.metrics[metric].message
        checks.append(
            GateCheck(
                name=f"baseline:{metric}",
                kind="baseline",
                passed=False,
                message=message,
                cause="metric(s) regressed",
                hint=hint_for(metric),
                subject=metric,
                properties={"verdict": message},
            )
        )
    return checks


def latency_checks(latency: LatencyVerdict | None) -> list[GateCheck]:
    """One check per latency budget (p50, p95, max)."""
    if latency is None:
        return []
    return [
        GateCheck(
            name=f"latency:{check.statistic}",
            kind="latency",
            passed=check.passed,
            message=check.message,
            cause=None if check.passed else "latency over budget",
            hint=None if check.passed else hint_for("latency"),
            subject=check.statistic,
            properties={
                "seconds": _figure(check.seconds),
                "limit": f"{check.limit:.4f}",
                "n": str(latency.n),
                "verdict": check.message,
            },
        )
        for check in latency.checks
    ]


def alignment_check(alignment: IgnoredTopRanked | None) -> GateCheck | None:
    """The ignored-top-ranked alarm: reported, never failing (gate on top_doc_usage)."""
    if alignment is None:
        return None
    return GateCheck(
        name="ignored_top_ranked",
        kind="alignment",
        passed=True,
        message=alignment.message,
        properties={
            "rate": f"{alignment.rate:.4f}",
            "n": str(alignment.n),
            "alarm_above": f"{alignment.alarm_above:.4f}",
            "alarm": str(alignment.alarm).lower(),
            "verdict": alignment.message,
        },
    )


def agreement_checks(agreement: dict[str, MetricAgreement]) -> list[GateCheck]:
    """Judge–human agreement against its floors: one check per metric with a floor."""
    checks: list[GateCheck] = []
    for metric, figures in agreement.items():
        if figures.passed is None:
            continue
        properties = {"n": str(figures.n)}
        for name in figures.floors:
            figure = figures.statistic(name)
            properties[name] = _figure(None if figure is None else figure.value)
            properties[f"min_{name}"] = f"{figures.floors[name]:.4f}"
        properties["verdict"] = figures.message
        checks.append(
            GateCheck(
                name=f"agreement:{metric}",
                kind="agreement",
                passed=figures.passed,
                message=figures.message,
                cause=None if figures.passed else "judge–human agreement below its floor",
                subject=metric,
                properties=properties,
            )
        )
    return checks
