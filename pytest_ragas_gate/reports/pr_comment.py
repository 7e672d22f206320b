"""The sticky pull-request comment: one comment per pull request, updated on every push.

Run after the gate (the GitHub Action's comment step does)::

    rag-gate comment rag-gate-report.json

It reads the JSON report, writes the verdict, the per-metric table with deltas against
the baseline, what the pull request changes in the gate's own inputs (thresholds, golden
cases, judge cache, conftest.py; the report's ``run.gate_changes``, or ``--base-ref REF``),
the worst regressed and failing cases and a link to the run (whose artifacts hold the HTML
report), and posts it through the GitHub REST API with the
``GITHUB_TOKEN`` of the environment. The comment it wrote before is found by a hidden
marker and edited in place, so a pull request keeps one comment however often it is
pushed.

Commenting never decides anything: a fork's read-only token (403), a missing token or
any API error prints a ``::warning::`` annotation and exits 0, so the gate's own step
keeps the verdict. Only a bad command line exits 4.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path, PurePath
from typing import Any

from ..command_line import CommandParser
from ..exceptions import CommentError, ReportError
from ..gate.baseline import CaseDelta, case_drops
from ..gate.gate_changes import GateChanges
from ..gate.verdict import GateVerdict, evaluate_gate
from ..scoring.results import CaseResult
from ..settings.config_sections import REMOVED_IN
from ..settings.run_environment import GitReader
from ..stats import format_interval
from .comment_arguments import COMMENT_DESCRIPTION, add_comment_arguments
from .gate_inputs import (
    changed_thresholds,
    changes_in_report_scope,
    gate_inputs_markdown,
    threshold_change_note,
)
from .history import entry_from_report, read_history, recent_runs, trend_line
from .json_report import SavedReport, baseline_report, load_report, saved_stamp
from .long_lists import cut_between_rows, error_groups, error_table, is_error_row
from .markdown import BELOW_REPORT_ONLY, code_span, plain_cell
from .run_stamp import commit_url, short_sha

__all__ = [
    "MARKER",
    "ApiError",
    "GitHub",
    "RunStampFacts",
    "comment_body",
    "main",
    "duplicate_body",
    "outdated_body",
    "post_comment",
    "run_marker",
]

#: The hidden first line that marks our comment among the others of a pull request.
MARKER = "<!-- pytest-ragas-gate: sticky pull-request comment -->"

#: Cases listed per table; the HTML report and the JSON report have them all.
MAX_CASES = 10

#: GitHub refuses comments longer than 65,536 characters.
MAX_BODY = 60_000

_HEADINGS = {
    "passed": "## ✅ RAG gate: PASSED",
    "failed": "## ❌ RAG gate: FAILED",
    "error": "## 🛑 RAG gate: ERROR",
    "partial": "## ⚠️ RAG gate: PARTIAL",
    "ungated": "## ⚠️ RAG gate: UNGATED",
}


# --- the body -------------------------------------------------------------------------------


def _text(text: str) -> str:
    """Plain text for a table cell or a line: no HTML, no mention, no new cell."""
    # A zero-width joiner keeps "@team" from notifying anyone.
    return plain_cell(text).replace("@", "@\u200d")


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _metric_row(
    name: str, verdict: GateVerdict, changed: Mapping[str, tuple[str, str]] | None = None
) -> str:
    aggregate = verdict.metrics[name]
    comparison = verdict.baseline
    interval = (
        "—"
        if aggregate.ci_low is None or aggregate.ci_high is None
        else format_interval(aggregate.ci_low, aggregate.ci_high, mark=aggregate.threshold)
    )
    threshold = "—"
    delta = comparison.metrics.get(name) if comparison is not None else None
    outcome = verdict.outcome(name)
    value = outcome.value_text
    if aggregate.threshold is not None:
        threshold = ("≤ " if aggregate.direction == "max" else "≥ ") + outcome.threshold_text
    change = "—"
    if delta is not None and delta.delta is not None:
        # Only a regression the verdict counts is flagged; other drops are shown.
        change = f"{delta.delta:+.2f}" + (" ❌" if outcome.regressed else "")
        if delta.judge_noise is not None:
            change += f" (judge noise ±{delta.judge_noise:.2f})"
    state = outcome.mark
    state += threshold_change_note(name, changed or {})
    return f"| {code_span(name)} | {value} | {interval} | {threshold} | {change} | {state} |"


def _metric_table(
    verdict: GateVerdict, changed: Mapping[str, tuple[str, str]] | None = None
) -> list[str]:
    """Gated metrics in the table; metrics only reported folded below it.

    A metric whose threshold this change moved says so beside its verdict, both ways.
    """
    header = [
        "| metric | mean | CI | threshold | Δ vs baseline | verdict |",
        "|---|---|---|---|---|---|",
    ]
    gated = [outcome.metric for outcome in verdict.outcomes if outcome.gated]
    reported = [name for name in verdict.metrics if name not in gated]
    lines = [*header, *(_metric_row(name, verdict, changed) for name in gated)] if gated else []
    if reported:
        count = len(reported)
        lines += [
            "",
            "<details><summary>"
            f"{count} metric{'' if count == 1 else 's'} reported, not gated"
            "</summary>",
            "",
            *header,
            *(_metric_row(name, verdict, changed) for name in reported),
            "",
            "</details>",
        ]
    return lines


def _showing(shown: int, total: int) -> list[str]:
    """The line under a cut table; the HTML and JSON reports list every row."""
    if shown >= total:
        return []
    return ["", f"Showing {shown} of {total}; the HTML report in the run's artifacts lists all."]


#: How much of each answer a row of the head-to-head table quotes.
_ANSWER_CHARS = 240


def _quoted(answer: str) -> str:
    flat = " ".join(answer.split())
    return _text(flat if len(flat) <= _ANSWER_CHARS else flat[: _ANSWER_CHARS - 1] + "…")


def _pairwise_losses(verdict: GateVerdict) -> list[str]:
    """The head-to-head line and the first losses, both answers side by side."""
    summary = verdict.pairwise
    if summary is None:
        return []
    lines = ["### Head to head with the baseline", "", _text(summary.line())]
    if summary.worst_losses:
        lines += [
            "",
            "| case | baseline's answer | this run's answer | why |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| {code_span(loss.case)} | {_quoted(loss.baseline_answer)} | "
            f"{_quoted(loss.new_answer)} | {_quoted(next(iter(loss.reasons), ''))} |"
            for loss in summary.worst_losses
        ]
        lines += _showing(len(summary.worst_losses), summary.losses)
    return lines


def _regressed_cases(
    verdict: GateVerdict, results: Sequence[CaseResult], baseline: Sequence[CaseResult] | None
) -> list[str]:
    """The largest per-case drops against the baseline, worst first."""
    if baseline is None:
        return []
    directions = {name: aggregate.direction for name, aggregate in verdict.metrics.items()}
    gated = {outcome.metric for outcome in verdict.outcomes if outcome.gated}
    drops = case_drops(baseline, results, directions, gated)
    if not drops:
        return []
    header = ["| case | metric | baseline | now | Δ |", "|---|---|---|---|---|"]

    def row(drop: CaseDelta) -> str:
        return (
            f"| {code_span(drop.case)} | {code_span(drop.metric)} | {drop.base:.2f} | "
            f"{drop.new:.2f} | {drop.delta:+.2f} |"
        )

    # Drops of gated metrics first; those of metrics only reported folded below them.
    on_gated = [drop for drop in drops if drop.metric in gated]
    reported = [drop for drop in drops if drop.metric not in gated]
    lines = [f"### Worst regressed cases ({len(on_gated)} drops of gated metrics)", ""]
    if on_gated:
        lines += [*header, *(row(drop) for drop in on_gated[:MAX_CASES])]
        lines += _showing(min(MAX_CASES, len(on_gated)), len(on_gated))
    if reported:
        count = len(reported)
        lines += [
            "",
            f"<details><summary>{count} drop{'' if count == 1 else 's'} of metrics reported, "
            "not gated</summary>",
            "",
            *header,
            *(row(drop) for drop in reported[:MAX_CASES]),
            *_showing(min(MAX_CASES, count), count),
            "",
            "</details>",
        ]
    return lines


def _failing_cases(verdict: GateVerdict) -> list[str]:
    """Errored cases, cases below their own thresholds, then cases below the gate's.

    The first two groups are listed whatever their number: each of them fails the gate on
    its own, so a reader must find every one here.
    """
    errors = error_table(error_groups(verdict.failing_cases), case=code_span, text=_text)
    # One order in every report: worst first, ties by metric and case (CaseVerdict.rank).
    ranked = sorted(
        (case for case in verdict.failing_cases if not is_error_row(case)),
        key=lambda case: case.rank,
    )
    failing = [(case.rank[0], case.key, case.why) for case in ranked]
    below = len(verdict.below_report_only)
    aside = (
        [
            "",
            f"{below} case{'' if below == 1 else 's'} {BELOW_REPORT_ONLY}; the HTML report "
            "lists them.",
        ]
        if below
        else []
    )
    if not failing:
        return aside[1:] + (["", *errors] if errors and aside else errors)
    always = sum(1 for group, *_ in failing if group < 2)
    shown = failing[: max(MAX_CASES, always)]
    lines = [
        f"### Failing cases ({len(failing)})",
        "",
        "| case | why |",
        "|---|---|",
    ]
    lines += [_failing_row(key, why) for _, key, why in shown]
    lines += _showing(len(shown), len(failing))
    return lines + aside + (["", *errors] if errors else [])


def _failing_row(key: str, why: str) -> str:
    """A failing case's row: the comment's cut never leaves one out."""
    return f"| {code_span(key)} | {_text(why)} |"


def _stamp_line(stamp: RunStampFacts) -> str:
    """``commit abc1234 · run 2026-05-01 12:00 UTC``, the commit linked to its page."""
    parts = []
    if stamp.commit:
        code = f"`{short_sha(stamp.commit)}`"
        parts.append("commit " + (f"[{code}]({stamp.commit_url})" if stamp.commit_url else code))
    if stamp.time:
        parts.append(f"run {_text(stamp.time)}")
    return " · ".join(parts)


def _baseline_name(baseline: SavedReport | None, fallback: str, environ: Mapping[str, str]) -> str:
    """The baseline as a reviewer can find it: its commit, else its run, else its file name."""
    stamp = saved_stamp(baseline) if baseline is not None else {"commit": None, "run_url": None}
    commit, run_url = stamp["commit"], stamp["run_url"]
    if commit:
        url = commit_url(commit, environ)
        code = f"`{short_sha(commit)}`"
        named = "of commit " + (f"[{code}]({url})" if url else code)
        return named + (f" ([run]({run_url}))" if run_url else "")
    if run_url:
        return f"of [this run]({run_url})"
    return code_span(PurePath(fallback).name)


@dataclass(frozen=True)
class RunStampFacts:
    """The commit and time a comment speaks for, so a reader sees when it is not the latest."""

    commit: str | None = None
    commit_url: str | None = None
    time: str | None = None


def _run_time(report: SavedReport) -> str | None:
    """The report's ``generated_at`` as ``2026-05-01 12:00 UTC``."""
    stamp = report.raw.get("generated_at")
    if not isinstance(stamp, str):
        return None
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def run_marker(status: str, commit: str | None) -> str:
    """The hidden last line: what run the comment shows, compared before marking it outdated.

    >>> run_marker("passed", "0123456789")
    '<!-- rag-gate run: passed 0123456 -->'
    """
    return f"<!-- rag-gate run: {status} {short_sha(commit) if commit else '-'} -->"


def comment_body(
    report: SavedReport,
    *,
    baseline: Sequence[CaseResult] | None = None,
    run_url: str | None = None,
    gate_changes: GateChanges | None = None,
    stamp: RunStampFacts | None = None,
    baseline_saved: SavedReport | None = None,
    environ: Mapping[str, str] | None = None,
    trend: Sequence[str] = (),
) -> str:
    """The comment's Markdown, its first line the hidden marker.

    Args:
        report: The gate's JSON report.
        baseline: The baseline's case results, for the worst regressed cases.
        run_url: The workflow run, whose artifacts hold the HTML report.
        gate_changes: The changes to the gate's inputs (default: the report's own).
        stamp: The head commit and run time the comment speaks for.
        baseline_saved: The baseline report, to name it by its commit or run.
        environ: The environment, for links to commits.
        trend: One line per gated metric on its course over the recorded runs.

    Returns:
        The body, at most :data:`MAX_BODY` characters.
    """
    environ = environ or {}
    verdict = evaluate_gate(report.results, report.metrics, report.config, report.facts)
    stamp = stamp or RunStampFacts(time=_run_time(report))
    judge = report.judge
    facts = [
        f"judge {code_span(judge.kind)}" + (f" ({code_span(judge.model)})" if judge.model else "")
    ]
    facts.append(_text(verdict.coverage))
    if run_url:
        facts.append(
            f"[workflow run]({run_url}) · HTML report in its [artifacts]({run_url}#artifacts)"
        )
    stamped = _stamp_line(stamp)
    lines = [
        MARKER,
        _HEADINGS.get(verdict.status, f"## RAG gate: {verdict.status.upper()}"),
        "",
        f"**{_text(verdict.recommendation)}**" + (f" — {stamped}" if stamped else ""),
        "",
        " · ".join(facts),
        "",
    ]
    if judge.kind == "offline":
        lines += [
            "> ⚠️ Scored by the offline heuristic judge: a smoke test, not an LLM judgement.",
            "",
        ]
    # What this change does to the gate itself is part of the decision: it comes first.
    changes = gate_changes or report.facts.gate_changes
    lead = gate_inputs_markdown(
        changes, report.facts.cache_integrity, cache_mode=report.config.cache
    )
    if lead:
        lines += [*lead[1:], ""]
    changed = changed_thresholds(changes)
    lines += _metric_table(verdict, changed)
    newly = [
        outcome.message for outcome in verdict.outcomes if outcome.metric in verdict.newly_failing
    ]
    if newly:
        lines += ["", *(f"> ❌ {_text(message)}" for message in newly)]
    if trend:
        lines += ["", "**Trend** (recorded runs, oldest first):", "", *(f"- {t}" for t in trend)]
    if verdict.baseline is not None:
        named = _baseline_name(baseline_saved, verdict.baseline.path, environ)
        lines += [
            "",
            f"Baseline {named}: {verdict.baseline.paired_cases} paired, "
            f"{len(verdict.baseline.new_cases)} new, "
            f"{len(verdict.baseline.removed_cases)} removed case(s).",
            *(f"> ⚠️ {_text(warning)}" for warning in verdict.baseline.warnings),
        ]
    unchecked = verdict.not_evaluated_checks
    if unchecked:
        lines += ["", *(f"> ⚠️ Not evaluated: {_text(check.message)}" for check in unchecked)]
    for section in (
        _pairwise_losses(verdict),
        _regressed_cases(verdict, report.results, baseline),
        _failing_cases(verdict),
    ):
        if section:
            lines += ["", *section]
    kept = {
        _failing_row(case.key, case.why) for case in verdict.failing_cases if not is_error_row(case)
    } | {
        _metric_row(outcome.metric, verdict, changed)
        for outcome in verdict.outcomes
        if outcome.gated
    }
    where = "the HTML report in the run's artifacts and the job's step summary"
    body = "\n".join(cut_between_rows(lines, MAX_BODY, keep=kept, where=where)) + "\n"
    # Last, so a cut body keeps it: what run the comment shows, read before marking it outdated.
    return body + run_marker(verdict.status, stamp.commit) + "\n"


# --- the GitHub REST API ------------------------------------------------------------------


class ApiError(CommentError):
    """GitHub answered a request with an error, or could not be reached (``status`` None)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Comment:
    """One comment of a pull request."""

    id: int
    body: str


#: How often a request is tried when GitHub answers 5xx or a rate limit, or cannot be reached.
ATTEMPTS = 4

#: The longest wait between two tries; a rate limit further away than this is given up on.
MAX_WAIT_S = 60.0


@dataclass(frozen=True)
class GitHub:
    """Just enough of the GitHub REST API to keep one comment on a pull request.

    A request answered 5xx or 429, a 403 of an exhausted rate limit, or a failed connection
    is tried again up to :data:`ATTEMPTS` times: after ``Retry-After`` or the rate limit's
    reset when GitHub names one, else after ``backoff_s`` doubled on each try.
    """

    api_url: str
    token: str
    repository: str
    timeout_s: float = 30.0
    attempts: int = ATTEMPTS
    backoff_s: float = 1.0
    sleep: Callable[[float], None] = time.sleep

    def _request(self, method: str, path: str, payload: Mapping[str, Any] | None = None) -> Any:
        for attempt in range(1, self.attempts + 1):
            try:
                return self._request_once(method, path, payload)
            except _Retryable as retry:
                self._wait_or_give_up(retry, attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    def _wait_or_give_up(self, retry: _Retryable, attempt: int) -> None:
        """Sleep before try ``attempt + 1``, or raise when the tries or the wait run out."""
        wait = retry.wait_s if retry.wait_s is not None else self.backoff_s * 2 ** (attempt - 1)
        if attempt == self.attempts or wait > MAX_WAIT_S:
            tries = f" (tried {attempt} times)" if attempt > 1 else ""
            raise ApiError(f"{retry.error}{tries}", retry.error.status) from None
        self.sleep(wait)

    def _request_once(
        self, method: str, path: str, payload: Mapping[str, Any] | None = None
    ) -> Any:
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        request = urllib.request.Request(
            self.api_url.rstrip("/") + path,
            data=data,
            method=method,
            headers={
                "Accept": "application/vnd.github+json",
                "Authorization": f"Bearer {self.token}",
                "Content-Type": "application/json",
                "User-Agent": "pytest-ragas-gate",
                "X-GitHub-Api-Version": "2022-11-28",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                text = response.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            failure = ApiError(
                f"{method} {path} answered HTTP {error.code}: {_api_message(error)}", error.code
            )
            wait = _retry_wait(error)
            rate_limited = error.code == 429 or (
                error.code == 403
                and (wait is not None or error.headers.get("x-ratelimit-remaining") == "0")
            )
            if error.code >= 500 or rate_limited:
                raise _Retryable(failure, wait) from None
            raise failure from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise _Retryable(ApiError(f"{method} {path} failed: {reason}"), None) from None
        try:
            return json.loads(text) if text else None
        except json.JSONDecodeError:
            raise ApiError(f"{method} {path} answered with something not JSON") from None

    def find_comments(self, number: int) -> list[Comment]:
        """Every comment on pull request ``number`` that carries :data:`MARKER`, oldest first."""
        found: list[Comment] = []
        page = 1
        while True:
            comments = self._request(
                "GET",
                f"/repos/{self.repository}/issues/{number}/comments?per_page=100&page={page}",
            )
            if not isinstance(comments, list):
                raise CommentError("the comments of the pull request are not a list")
            found += [
                Comment(int(comment["id"]), str(comment.get("body", "")))
                for comment in comments
                if isinstance(comment, dict) and MARKER in str(comment.get("body", ""))
            ]
            if len(comments) < 100:
                return found
            page += 1

    def find_comment(self, number: int) -> Comment | None:
        """Our comment on pull request ``number``: the oldest one carrying :data:`MARKER`."""
        found = self.find_comments(number)
        return found[0] if found else None

    def upsert(self, number: int, body: str) -> tuple[str, str]:
        """Create our comment, or edit it in place; returns ``(created|updated, url)``.

        The pull request keeps one comment whatever the network does: a POST that fails is
        not blindly tried again, since GitHub may have created the comment before the error
        reached us; the comments are listed again first and one that landed is edited
        instead. A second marked comment, found at any time, is deleted (or, when that is
        refused, marked outdated), so no stale verdict stays on the pull request.

        When the edit fails and the comment on the pull request shows another run (its
        verdict or commit differ), a one-line "outdated" note is patched in before the
        error is raised, so no reader takes the old verdict for the latest one.
        """
        found = self.find_comments(number)
        action = "updated"
        if not found:
            answer, found = self._create(number, body)
            if not found:
                return "created", _html_url(answer)
            action = "created"
        kept, extra = found[0], found[1:]
        path = f"/repos/{self.repository}/issues/comments/{kept.id}"
        try:
            answer = self._request("PATCH", path, {"body": body})
        except ApiError as error:
            raise self._mark_outdated(path, kept, body, error) from None
        url = _html_url(answer)
        for duplicate in extra:
            self._retire(duplicate, url)
        return action, url

    def _create(self, number: int, body: str) -> tuple[Any, list[Comment]]:
        """POST the comment: its answer, or the marked comments found after a failed try.

        Before each new try the comments are listed again: when a try that answered 5xx
        (or never answered) did create the comment, that comment is returned to be edited
        rather than a second one posted.
        """
        path = f"/repos/{self.repository}/issues/{number}/comments"
        for attempt in range(1, self.attempts + 1):
            try:
                return self._request_once("POST", path, {"body": body}), []
            except _Retryable as retry:
                self._wait_or_give_up(retry, attempt)
                landed = self.find_comments(number)
                if landed:
                    return None, landed
        raise AssertionError("unreachable")  # pragma: no cover

    def _retire(self, duplicate: Comment, kept_url: str) -> None:
        """Delete a second marked comment, or mark it outdated when it cannot be deleted."""
        path = f"/repos/{self.repository}/issues/comments/{duplicate.id}"
        try:
            self._request("DELETE", path)
            return
        except ApiError:
            pass
        if any(line.startswith(OUTDATED) for line in duplicate.body.splitlines()[1:2]):
            return
        where = f" ({kept_url})" if kept_url else ""
        note = duplicate_body(duplicate.body, where)
        try:
            self._request("PATCH", path, {"body": note})
        except ApiError as error:
            _warning(f"a second gate comment on the pull request could not be retired: {error}")

    def _mark_outdated(self, path: str, existing: Comment, body: str, error: ApiError) -> ApiError:
        shown, latest = _run_line(existing.body), _run_line(body)
        if shown == latest:
            return error
        note = outdated_body(existing.body, latest)
        try:
            self._request_once("PATCH", path, {"body": note})
        except (_Retryable, ApiError):
            return ApiError(
                f"{error}; marking the earlier comment outdated failed too, so it still shows "
                "an earlier run",
                error.status,
            )
        return ApiError(f"{error}; the earlier comment is now marked outdated", error.status)


class _Retryable(Exception):
    """A failure worth another try, after ``wait_s`` when GitHub says how long."""

    def __init__(self, error: ApiError, wait_s: float | None) -> None:
        super().__init__(str(error))
        self.error = error
        self.wait_s = wait_s


def _retry_wait(error: urllib.error.HTTPError) -> float | None:
    """Seconds GitHub asks us to wait: ``Retry-After``, else until ``x-ratelimit-reset``."""
    headers = error.headers
    if headers is None:
        return None
    retry_after = headers.get("Retry-After")
    if retry_after is not None:
        try:
            return max(0.0, float(retry_after))
        except ValueError:
            return None
    if headers.get("x-ratelimit-remaining") == "0" and headers.get("x-ratelimit-reset"):
        try:
            return max(0.0, float(headers["x-ratelimit-reset"]) - time.time())
        except ValueError:
            return None
    return None


def _run_line(body: str) -> str | None:
    """The hidden run marker of a body, or its heading for comments written before it."""
    for line in body.splitlines():
        if line.startswith("<!-- rag-gate run:"):
            return line
    return next((line for line in body.splitlines() if line.startswith("## ")), None)


#: The note put on a comment that the latest run could not replace.
OUTDATED = "> ⚠️ **Outdated**: "


def duplicate_body(old: str, where: str) -> str:
    """``old`` with a note under the marker pointing readers to the gate's one live comment."""
    kept = [line for line in old.splitlines() if not line.startswith(OUTDATED)]
    note = (
        f"{OUTDATED}a second copy of the gate's comment; the comment above{where} shows "
        "the latest run."
    )
    head, rest = kept[:1], kept[1:]
    return "\n".join([*head, note, "", *rest]) + "\n"


def _html_url(answer: Any) -> str:
    return str(answer.get("html_url", "")) if isinstance(answer, dict) else ""


def outdated_body(old: str, latest_marker: str | None) -> str:
    """``old`` with one note under the marker saying a newer run could not replace it."""
    kept = [line for line in old.splitlines() if not line.startswith(OUTDATED)]
    latest = ""
    if latest_marker and latest_marker.startswith("<!-- rag-gate run:"):
        status, _, commit = (
            latest_marker.removeprefix("<!-- rag-gate run:").strip(" ->").partition(" ")
        )
        latest = f" (verdict {status.upper()}" + (
            f", commit `{commit}`)" if commit and commit != "-" else ")"
        )
    note = (
        f"{OUTDATED}a newer run{latest} could not update this comment; this shows an "
        "earlier run. See the latest workflow run for the current verdict."
    )
    head, rest = kept[:1], kept[1:]
    return "\n".join([*head, note, "", *rest]) + "\n"


def _api_message(error: urllib.error.HTTPError) -> str:
    """The ``message`` of a GitHub error reply, with a hint for the usual 401 and 403."""
    try:
        message = str(json.loads(error.read().decode("utf-8")).get("message", ""))
    except (ValueError, AttributeError, OSError):
        message = ""
    message = message or str(error.reason)
    if error.headers is not None and error.headers.get("x-ratelimit-remaining") == "0":
        return message + " (the token's API rate limit is used up until it resets)"
    if error.code == 401:
        message += (
            " (the token is bad or expired: pass the workflow's GITHUB_TOKEN, or renew the "
            "personal access token given as github-token)"
        )
    elif error.code in (403, 404):
        message += (
            " (the token may not write to pull requests: a fork's pull request gets a "
            "read-only GITHUB_TOKEN; grant `permissions: pull-requests: write`)"
        )
    return message


# --- the command ----------------------------------------------------------------------------


def _annotation(kind: str, message: str) -> None:
    escaped = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    print(f"::{kind} title=RAG gate comment::{escaped}")


def _warning(message: str) -> None:
    _annotation("warning", message)


def _step_summary(line: str, environ: Mapping[str, str]) -> None:
    """Append ``line`` to the job's step summary, where a reviewer of the run looks."""
    path = environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as summary:
            summary.write(f"\n> {line}\n")
    except OSError:
        pass  # the annotation already says it; a summary is not worth failing over


def _event(environ: Mapping[str, str]) -> dict[str, Any]:
    path = environ.get("GITHUB_EVENT_PATH")
    if not path:
        return {}
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return event if isinstance(event, dict) else {}


def _head_commit(environ: Mapping[str, str], report: SavedReport) -> str | None:
    """The pull request's head commit: GITHUB_SHA of a pull_request event is a merge commit."""
    pull_request = _event(environ).get("pull_request")
    head = pull_request.get("head") if isinstance(pull_request, dict) else None
    sha = head.get("sha") if isinstance(head, dict) else None
    if isinstance(sha, str) and sha:
        return sha
    return environ.get("GITHUB_SHA") or saved_stamp(report)["commit"]


def _pull_request_number(environ: Mapping[str, str]) -> int | None:
    """The pull request of the triggering event (``GITHUB_EVENT_PATH``), if any."""
    event = _event(environ)
    for key in ("pull_request", "issue"):
        number = event.get(key, {}).get("number") if isinstance(event, dict) else None
        if isinstance(number, int):
            return number
    number = event.get("number") if isinstance(event, dict) else None
    return number if isinstance(number, int) else None


def _run_url(environ: Mapping[str, str]) -> str | None:
    server, repository, run = (
        environ.get("GITHUB_SERVER_URL", "https://github.com"),
        environ.get("GITHUB_REPOSITORY"),
        environ.get("GITHUB_RUN_ID"),
    )
    if not repository or not run:
        return None
    return f"{server.rstrip('/')}/{repository}/actions/runs/{run}"


def _parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="python -m pytest_ragas_gate.reports.pr_comment",
        description=COMMENT_DESCRIPTION + " Deprecated: use rag-gate comment.",
    )
    add_comment_arguments(parser)
    return parser


def _trend(report: SavedReport, explicit: str | None) -> list[str]:
    """One line per gated metric on its course over the recorded runs, this one last."""
    path = explicit or report.config.history
    if not path or not Path(path).is_file():
        return []
    try:
        entries, problems = read_history(path)
    except ReportError as error:
        entries, problems = [], [str(error)]
    for problem in problems:
        _warning(f"history: {problem}")
    current = entry_from_report(report.raw)
    runs = recent_runs(entries, current)
    lines = []
    for name, figures in current.metrics.items():
        line = trend_line(name, runs) if figures.passed is not None else None
        if line:
            lines.append(line)
    return lines


def post_comment(
    arguments: argparse.Namespace,
    environ: Mapping[str, str],
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[str, str] | None:
    """Post or update the comment; None when there is nothing to do.

    Raises:
        CommentError: The report cannot be read, or GitHub refused the comment.
        ReportError: A dry run's report cannot be read.
    """
    event = environ.get("GITHUB_EVENT_NAME", "")
    # A dry run is how a person checks the comment: it reads the report and prints the
    # body whatever --comment and the event say, and a bad report fails it (exit 4).
    if arguments.comment == "false" and not arguments.dry_run:
        return None
    if (
        arguments.comment == "auto"
        and event not in ("pull_request", "pull_request_target")
        and not arguments.dry_run
    ):
        print(f"rag-gate comment: not a pull request event ({event or 'none'}): no comment")
        return None
    try:
        report = load_report(arguments.report)
    except ReportError as error:
        if arguments.dry_run:
            raise
        raise CommentError(f"no comment: {error}") from None
    changes = None
    if arguments.base_ref:
        changes = changes_in_report_scope(report, arguments.base_ref, Path.cwd(), GitReader())
    baseline = baseline_report(report, arguments.baseline, best_effort=True)
    commit = _head_commit(environ, report)
    body = comment_body(
        report,
        baseline=None if baseline is None else baseline.results,
        run_url=_run_url(environ),
        gate_changes=changes,
        stamp=RunStampFacts(
            commit=commit,
            commit_url=None if commit is None else commit_url(commit, environ),
            time=_run_time(report),
        ),
        baseline_saved=baseline,
        environ=environ,
        trend=_trend(report, arguments.history),
    )
    if arguments.dry_run:
        sys.stdout.write(body)
        return None
    number = arguments.pr or _pull_request_number(environ)
    if number is None:
        raise CommentError("no comment: the event names no pull request (pass --pr N)")
    repository = arguments.repo or environ.get("GITHUB_REPOSITORY")
    if not repository:
        raise CommentError("no comment: GITHUB_REPOSITORY is not set (pass --repo OWNER/NAME)")
    token = environ.get("GITHUB_TOKEN", "")
    if not token:
        raise CommentError("no comment: GITHUB_TOKEN is not set; pass it to the step through env:")
    github = GitHub(
        api_url=environ.get("GITHUB_API_URL") or "https://api.github.com",
        token=token,
        repository=repository,
        sleep=sleep,
    )
    try:
        return github.upsert(number, body)
    except ApiError as error:
        raise ApiError(
            f"could not comment on pull request #{number}: {error}", error.status
        ) from None


def main(
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Run the command; 0 unless the command line is wrong (4).

    A refused or failed request is an error annotation and a line in the step summary: the
    pull request may show an earlier verdict. A fork's read-only token (403) and what stops
    a comment before any request (no token, no pull request) are warnings.

    Args:
        argv: The arguments (default: ``sys.argv[1:]``).
        environ: The environment (default: ``os.environ``).
        sleep: How to wait between tries (tests pass a recorder).
    """
    arguments = _parser().parse_args(argv)
    return run_comment(arguments, os.environ if environ is None else environ, sleep)


def run_comment(
    arguments: argparse.Namespace,
    environ: Mapping[str, str],
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """``rag-gate comment``: post or update the comment; 0 whatever GitHub answered.

    A refused or failed request is an error annotation and a line in the step summary: the
    pull request may show an earlier verdict. A fork's read-only token (403) and what stops
    a comment before any request (no token, no pull request) are warnings.
    """
    try:
        outcome = post_comment(arguments, environ, sleep)
    except ApiError as error:
        expected = error.status == 403 and "rate limit" not in str(error)
        _annotation("warning" if expected else "error", str(error))
        _step_summary(
            f"{'⚠️' if expected else '❌'} The pull-request comment was not updated: {error}",
            environ,
        )
        return 0
    except CommentError as error:
        _warning(str(error))
        return 0
    if outcome is not None:
        action, url = outcome
        print(f"rag-gate comment: {action} {url}".rstrip())
    return 0


if __name__ == "__main__":  # pragma: no cover
    print(
        "rag-gate comment: warning: python -m pytest_ragas_gate.reports.pr_comment is "
        f"deprecated and goes in {REMOVED_IN}: use rag-gate comment",
        file=sys.stderr,
    )
    sys.exit(main())
