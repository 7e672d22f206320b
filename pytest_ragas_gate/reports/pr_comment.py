"""The sticky pull-request comment: one comment per pull request, updated on every push.

Run after the gate (the GitHub Action's comment step does)::

    python -m pytest_ragas_gate.reports.pr_comment rag-gate-report.json

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
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..command_line import CommandParser
from ..exceptions import CommentError, ReportError
from ..gate.baseline import case_deltas, pair_cases
from ..gate.gate_changes import GateChanges
from ..gate.verdict import GateVerdict, evaluate_gate
from ..scoring.results import CaseResult
from .gate_inputs import changes_in_report_scope, gate_inputs_markdown
from .json_report import SavedReport, baseline_results, load_report

__all__ = ["MARKER", "GitHub", "comment_body", "main", "post_comment"]

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


def _code(text: str) -> str:
    r"""``text`` as an inline code span inside a table cell: never markup, never a new cell.

    >>> print(_code("a|b`c"))
    ``a\|b`c``
    """
    flat = " ".join(text.split()).replace("|", "\\|")
    fence = "`"
    while fence in flat:
        fence += "`"
    padding = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{padding}{flat}{padding}{fence}"


def _text(text: str) -> str:
    """Plain text for a table cell or a line: no HTML, no mention, no new cell."""
    flat = " ".join(text.split())
    for character, escape in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("|", "\\|")):
        flat = flat.replace(character, escape)
    # A zero-width joiner keeps "@team" from notifying anyone.
    return flat.replace("@", "@\u200d")


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _metric_table(verdict: GateVerdict) -> list[str]:
    comparison = verdict.baseline
    lines = [
        "| metric | mean | CI | threshold | Δ vs baseline | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for name, aggregate in verdict.metrics.items():
        interval = (
            "—"
            if aggregate.ci_low is None or aggregate.ci_high is None
            else f"{aggregate.ci_low:.2f}–{aggregate.ci_high:.2f}"
        )
        threshold = "—"
        if aggregate.threshold is not None:
            threshold = ("≤ " if aggregate.direction == "max" else "≥ ") + _number(
                aggregate.threshold
            )
        delta = comparison.metrics.get(name) if comparison is not None else None
        change = "—"
        if delta is not None and delta.delta is not None:
            change = f"{delta.delta:+.2f}" + (" ❌" if delta.regressed else "")
            if delta.judge_noise is not None:
                change += f" (judge noise ±{delta.judge_noise:.2f})"
        state = (
            "reported" if aggregate.passed is None else "✅ pass" if aggregate.passed else "❌ fail"
        )
        lines.append(
            f"| {_code(name)} | {_number(aggregate.mean)} | {interval} | {threshold} | "
            f"{change} | {state} |"
        )
    return lines


def _regressed_cases(
    verdict: GateVerdict, results: Sequence[CaseResult], baseline: Sequence[CaseResult] | None
) -> list[str]:
    """The largest per-case drops against the baseline, worst first."""
    if baseline is None:
        return []
    pairs, _, _, _ = pair_cases(baseline, results)
    drops = []
    for name, aggregate in verdict.metrics.items():
        for change in case_deltas(pairs, name):
            worse = -change.delta if aggregate.direction == "min" else change.delta
            if worse > 1e-9:
                drops.append((-worse, change.case, name, change.base, change.new))
    if not drops:
        return []
    drops.sort()
    lines = [
        f"### Worst regressed cases ({len(drops)} case-metric drops)",
        "",
        "| case | metric | baseline | now | Δ |",
        "|---|---|---|---|---|",
    ]
    for _, case, metric, base, new in drops[:MAX_CASES]:
        lines.append(
            f"| {_code(case)} | {_code(metric)} | {base:.2f} | {new:.2f} | {new - base:+.2f} |"
        )
    return lines


def _failing_cases(verdict: GateVerdict, results: Sequence[CaseResult]) -> list[str]:
    """Errored cases, then cases below a threshold (their own or the gate's)."""
    failing: list[tuple[int, float, str, str]] = []
    for result in results:
        if result.errored:
            message = result.error or next(iter(result.errors.values()), "")
            first = message.splitlines()[0] if message else "error"
            failing.append((0, 0.0, result.key, f"error: {first}"))
            continue
        worst: tuple[float, str] | None = None
        for name, score in result.scores.items():
            aggregate = verdict.metrics.get(name)
            if score is None or aggregate is None:
                continue
            own = result.thresholds.get(name)
            threshold = own if own is not None else aggregate.threshold
            if threshold is None:
                continue
            shortfall = score - threshold if aggregate.direction == "min" else threshold - score
            if shortfall < -1e-9 and (worst is None or shortfall < worst[0]):
                relation = "<" if aggregate.direction == "min" else ">"
                worst = (shortfall, f"{name} {score:.2f} {relation} {threshold:.2f}")
        if worst is not None:
            failing.append((1, worst[0], result.key, worst[1]))
    if not failing:
        return []
    failing.sort()
    lines = [
        f"### Failing cases ({len(failing)})",
        "",
        "| case | why |",
        "|---|---|",
    ]
    lines += [f"| {_code(key)} | {_text(why)} |" for _, _, key, why in failing[:MAX_CASES]]
    return lines


def comment_body(
    report: SavedReport,
    *,
    baseline: Sequence[CaseResult] | None = None,
    run_url: str | None = None,
    gate_changes: GateChanges | None = None,
) -> str:
    """The comment's Markdown, its first line the hidden marker.

    Args:
        report: The gate's JSON report.
        baseline: The baseline's case results, for the worst regressed cases.
        run_url: The workflow run, whose artifacts hold the HTML report.
        gate_changes: The changes to the gate's inputs (default: the report's own).

    Returns:
        The body, at most :data:`MAX_BODY` characters.
    """
    verdict = evaluate_gate(report.results, report.metrics, report.config, report.facts)
    judge = report.judge
    facts = [f"judge {_code(judge.kind)}" + (f" ({_code(judge.model)})" if judge.model else "")]
    facts.append(_text(verdict.coverage))
    if run_url:
        facts.append(
            f"[workflow run]({run_url}) · HTML report in its [artifacts]({run_url}#artifacts)"
        )
    lines = [
        MARKER,
        _HEADINGS.get(verdict.status, f"## RAG gate: {verdict.status.upper()}"),
        "",
        f"**{_text(verdict.recommendation)}**",
        "",
        " · ".join(facts),
        "",
    ]
    if judge.kind == "offline":
        lines += [
            "> ⚠️ Scored by the offline heuristic judge: a smoke test, not an LLM judgement.",
            "",
        ]
    lines += _metric_table(verdict)
    if verdict.baseline is not None:
        lines += [
            "",
            f"Baseline {_code(verdict.baseline.path)}: {verdict.baseline.paired_cases} paired, "
            f"{len(verdict.baseline.new_cases)} new, "
            f"{len(verdict.baseline.removed_cases)} removed case(s).",
            *(f"> ⚠️ {_text(warning)}" for warning in verdict.baseline.warnings),
        ]
    unchecked = verdict.not_evaluated_checks
    if unchecked:
        lines += ["", *(f"> ⚠️ Not evaluated: {_text(check.message)}" for check in unchecked)]
    lines += gate_inputs_markdown(
        gate_changes or report.facts.gate_changes,
        report.facts.cache_integrity,
        cache_mode=report.config.cache,
    )
    for section in (
        _regressed_cases(verdict, report.results, baseline),
        _failing_cases(verdict, report.results),
    ):
        if section:
            lines += ["", *section]
    body = "\n".join(lines) + "\n"
    if len(body) > MAX_BODY:
        body = body[:MAX_BODY] + "\n\n… (cut: the full report is in the run's artifacts)\n"
    return body


# --- the GitHub REST API ------------------------------------------------------------------


@dataclass(frozen=True)
class GitHub:
    """Just enough of the GitHub REST API to keep one comment on a pull request."""

    api_url: str
    token: str
    repository: str
    timeout_s: float = 30.0

    def _request(self, method: str, path: str, payload: Mapping[str, Any] | None = None) -> Any:
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
            raise CommentError(
                f"{method} {path} answered HTTP {error.code}: {_api_message(error)}"
            ) from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise CommentError(f"{method} {path} failed: {reason}") from None
        try:
            return json.loads(text) if text else None
        except json.JSONDecodeError:
            raise CommentError(f"{method} {path} answered with something not JSON") from None

    def find_comment(self, number: int) -> int | None:
        """The id of our comment on pull request ``number``, found by :data:`MARKER`."""
        page = 1
        while True:
            comments = self._request(
                "GET",
                f"/repos/{self.repository}/issues/{number}/comments?per_page=100&page={page}",
            )
            if not isinstance(comments, list):
                raise CommentError("the comments of the pull request are not a list")
            for comment in comments:
                if isinstance(comment, dict) and MARKER in str(comment.get("body", "")):
                    return int(comment["id"])
            if len(comments) < 100:
                return None
            page += 1

    def upsert(self, number: int, body: str) -> tuple[str, str]:
        """Create our comment, or edit it in place; returns ``(created|updated, url)``."""
        existing = self.find_comment(number)
        if existing is None:
            answer = self._request(
                "POST", f"/repos/{self.repository}/issues/{number}/comments", {"body": body}
            )
            action = "created"
        else:
            answer = self._request(
                "PATCH", f"/repos/{self.repository}/issues/comments/{existing}", {"body": body}
            )
            action = "updated"
        url = answer.get("html_url", "") if isinstance(answer, dict) else ""
        return action, str(url)


def _api_message(error: urllib.error.HTTPError) -> str:
    """The ``message`` of a GitHub error reply, with a hint for the usual 403."""
    try:
        message = str(json.loads(error.read().decode("utf-8")).get("message", ""))
    except (ValueError, AttributeError, OSError):
        message = ""
    message = message or str(error.reason)
    if error.code in (401, 403, 404):
        message += (
            " (the token may not write to pull requests: a fork's pull request gets a "
            "read-only GITHUB_TOKEN; grant `permissions: pull-requests: write`)"
        )
    return message


# --- the command ----------------------------------------------------------------------------


def _warning(message: str) -> None:
    escaped = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    print(f"::warning title=RAG gate comment::{escaped}")


def _pull_request_number(environ: Mapping[str, str]) -> int | None:
    """The pull request of the triggering event (``GITHUB_EVENT_PATH``), if any."""
    path = environ.get("GITHUB_EVENT_PATH")
    if not path:
        return None
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
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
        description="Create or update the gate's comment on the pull request that triggered "
        "the workflow. Reads GITHUB_TOKEN, GITHUB_API_URL, GITHUB_REPOSITORY, "
        "GITHUB_EVENT_NAME and GITHUB_EVENT_PATH as GitHub Actions sets them. A failure to "
        "comment is a warning annotation, never a failed step.",
    )
    parser.add_argument("report", metavar="REPORT", help="the gate's JSON report")
    parser.add_argument(
        "--comment",
        choices=("auto", "true", "false"),
        default="auto",
        help="auto comments on pull_request and pull_request_target events only (default)",
    )
    parser.add_argument("--baseline", metavar="PATH", help="baseline report for case deltas")
    parser.add_argument(
        "--base-ref",
        metavar="REF",
        help="list what the checked-out commit changes in the gate's inputs against REF "
        "(default: the list in the report, written when GITHUB_BASE_REF was set)",
    )
    parser.add_argument("--pr", type=int, metavar="N", help="pull request number")
    parser.add_argument("--repo", metavar="OWNER/NAME", help="repository (GITHUB_REPOSITORY)")
    parser.add_argument(
        "--dry-run", action="store_true", help="print the body instead of posting it"
    )
    return parser


def post_comment(
    arguments: argparse.Namespace, environ: Mapping[str, str]
) -> tuple[str, str] | None:
    """Post or update the comment; None when there is nothing to do.

    Raises:
        CommentError: The report cannot be read, or GitHub refused the comment.
    """
    event = environ.get("GITHUB_EVENT_NAME", "")
    if arguments.comment == "false":
        return None
    if arguments.comment == "auto" and event not in ("pull_request", "pull_request_target"):
        print(f"rag-gate comment: not a pull request event ({event or 'none'}): no comment")
        return None
    try:
        report = load_report(arguments.report)
    except ReportError as error:
        raise CommentError(f"no comment: {error}") from None
    changes = None
    if arguments.base_ref:
        changes = changes_in_report_scope(report, arguments.base_ref, Path.cwd())
    body = comment_body(
        report,
        baseline=baseline_results(report, arguments.baseline, best_effort=True),
        run_url=_run_url(environ),
        gate_changes=changes,
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
    )
    try:
        return github.upsert(number, body)
    except CommentError as error:
        raise CommentError(f"could not comment on pull request #{number}: {error}") from None


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """Run the command; 0 unless the command line is wrong (4).

    Args:
        argv: The arguments (default: ``sys.argv[1:]``).
        environ: The environment (default: ``os.environ``).
    """
    arguments = _parser().parse_args(argv)
    try:
        outcome = post_comment(arguments, os.environ if environ is None else environ)
    except CommentError as error:
        _warning(str(error))
        return 0
    if outcome is not None:
        action, url = outcome
        print(f"rag-gate comment: {action} {url}".rstrip())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
