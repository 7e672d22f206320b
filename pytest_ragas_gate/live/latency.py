"""The latency budget of live mode: percentiles of the target's per-case seconds.

Live mode records each question's latency beside its answer; here the run's latencies
(``CaseResult.latency_s``) are summarised and, when ``latency: {p50: …, p95: …, max: …}``
is configured, compared with the budget. Like the rest of the gate this is a pure
function of (case results, settings), so a re-gated report reaches the same verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from ..scoring.results import CaseResult
from ..settings.config import LATENCY_STATISTICS, LatencyBudget
from ..stats import percentile

__all__ = [
    "LatencyCheck",
    "LatencyVerdict",
    "evaluate_latency",
    "latency_rows",
]

# Latencies are measured with perf_counter; a budget met to the microsecond passes.
_TOLERANCE = 1e-9


class LatencyCheck(BaseModel):
    """One statistic against its limit."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    statistic: str
    seconds: float | None
    limit: float
    passed: bool
    message: str


class LatencyVerdict(BaseModel):
    """The run's latency summary and, when a budget is set, its checks.

    ``passed`` is None when no budget is configured: latency is then reported, not gated.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    n: int
    # Calls that failed (raised, timed out, no answer): counted in n and the statistics
    # with the seconds they took, so a timeout cannot make p95 look better by vanishing.
    errors: int = 0
    p50: float | None
    p95: float | None
    max: float | None
    checks: list[LatencyCheck]
    passed: bool | None
    failures: list[str]
    summary: str


def _seconds(value: float, limit: float) -> tuple[str, str]:
    """Both values with 2 decimals, or 4 when 2 would print a failing pair as equal."""
    shown, budget = f"{value:.2f}", f"{limit:.2f}"
    if shown == budget and value > limit + _TOLERANCE:
        shown, budget = f"{value:.4f}", f"{limit:.4f}"
    return f"{shown}s", f"{budget}s"


def _short(seconds: float) -> str:
    """Seconds for the table: ``1.234s``, or milliseconds below one second (``12.3ms``)."""
    return f"{seconds:.3f}s" if seconds >= 1.0 else f"{seconds * 1000:.1f}ms"


def _statistic(latencies: Sequence[float], name: str) -> float:
    return max(latencies) if name == "max" else percentile(latencies, LATENCY_STATISTICS[name])


def evaluate_latency(
    results: Sequence[CaseResult], budget: LatencyBudget | None
) -> LatencyVerdict | None:
    """Summarise the measured latencies and check them against ``budget``.

    A call that failed (raised, timed out, gave no answer) counts with the seconds it
    took, and is reported as an error; a case whose call never started has no latency.

    Args:
        results: Every case result of the run.
        budget: The ``latency`` setting, or None.

    Returns:
        None when nothing was measured and no budget is set (static mode), else the
        verdict. A budget with no measured case fails: a budget nobody met is not met.

    >>> from pytest_ragas_gate.scoring.results import CaseResult
    >>> runs = [CaseResult(id=str(i), source="g:1", latency_s=s) for i, s in enumerate([1.0, 3.0])]
    >>> verdict = evaluate_latency(runs, LatencyBudget(p95=2.0))
    >>> verdict.passed, verdict.failures
    (False, ['latency p95 2.90s > 2.00s (n=2)'])
    """
    latencies = sorted(result.latency_s for result in results if result.latency_s is not None)
    limits = budget.limits() if budget is not None else {}
    if not latencies and not limits:
        return None
    n = len(latencies)
    errors = sum(1 for result in results if result.target_failed)
    counted = f"n={n}, {errors} errored" if errors else f"n={n}"
    checks: list[LatencyCheck] = []
    for name, limit in limits.items():
        if not latencies:
            checks.append(
                LatencyCheck(
                    statistic=name,
                    seconds=None,
                    limit=limit,
                    passed=False,
                    message=(
                        f"latency {name} has no measured cases (n=0); a latency budget needs "
                        "live mode (live.target)"
                    ),
                )
            )
            continue
        seconds = _statistic(latencies, name)
        passed = seconds <= limit + _TOLERANCE
        shown, allowed = _seconds(seconds, limit)
        checks.append(
            LatencyCheck(
                statistic=name,
                seconds=seconds,
                limit=limit,
                passed=passed,
                message=f"latency {name} {shown} {'≤' if passed else '>'} {allowed} ({counted})",
            )
        )
    p50 = _statistic(latencies, "p50") if latencies else None
    p95 = _statistic(latencies, "p95") if latencies else None
    slowest = latencies[-1] if latencies else None
    summary = (
        f"latency: p50 {_short(p50)} · p95 {_short(p95)} · max {_short(slowest)} ({counted})"
        if p50 is not None and p95 is not None and slowest is not None
        else "latency: no measured cases (n=0)"
    )
    failures = [check.message for check in checks if not check.passed]
    return LatencyVerdict(
        n=n,
        errors=errors,
        p50=p50,
        p95=p95,
        max=slowest,
        checks=checks,
        passed=None if not checks else not failures,
        failures=failures,
        summary=summary,
    )


#: One row of the terminal summary table: metric, mean, CI, threshold, rule, n, n/a,
#: errors, verdict.
TableRow = tuple[str, str, str, str, str, str, str, str, str]


def latency_rows(verdict: LatencyVerdict | None) -> list[TableRow]:
    """Rows for the summary table, in its columns (metric … verdict), one per check.

    Without a budget, one ``report`` row shows the p95.
    """
    if verdict is None:
        return []
    if not verdict.checks:
        seconds = "-" if verdict.p95 is None else _short(verdict.p95)
        return [("latency p95", seconds, "-", "-", "-", str(verdict.n), "-", "-", "report")]
    return [
        (
            f"latency {check.statistic}",
            "-" if check.seconds is None else _short(check.seconds),
            "-",
            f"≤{check.limit:.2f}s",
            "-",
            str(verdict.n),
            "-",
            "-",
            "PASS" if check.passed else "FAIL",
        )
        for check in verdict.checks
    ]
