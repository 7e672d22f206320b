"""The arguments of ``rag-gate comment``, apart from the comment's rendering and posting.

``rag-gate`` builds its parser from them without loading ``pr_comment``; the old module
entry point (``python -m pytest_ragas_gate.reports.pr_comment``) reads the same ones.
"""

from __future__ import annotations

import argparse

__all__ = ["COMMENT_DESCRIPTION", "add_comment_arguments"]

COMMENT_DESCRIPTION = (
    "Create or update the gate's comment on the pull request that triggered the workflow. "
    "Reads GITHUB_TOKEN, GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_EVENT_NAME and "
    "GITHUB_EVENT_PATH as GitHub Actions sets them. A failure to comment is a warning "
    "annotation, never a failed step."
)


def add_comment_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``rag-gate comment``."""
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
    parser.add_argument(
        "--history",
        metavar="PATH",
        help="a run history file: one trend line per gated metric (default: the report's "
        "history setting, when its file is there)",
    )
    parser.add_argument("--pr", type=int, metavar="N", help="pull request number")
    parser.add_argument("--repo", metavar="OWNER/NAME", help="repository (GITHUB_REPOSITORY)")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="read the report and print the body instead of posting it, whatever --comment "
        "says; a report that cannot be read exits 4",
    )
