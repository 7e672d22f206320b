"""``rag-gate comment REPORT``: the gate's sticky comment on the pull request.

The GitHub Action calls this after the gate step. Its arguments live here, apart from
the comment's rendering and posting (``reports.pr_comment``), so that building the
``rag-gate`` parser does not load them.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["COMMENT_DESCRIPTION", "add_comment_arguments", "register_command"]

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
        "--dry-run", action="store_true", help="print the body instead of posting it"
    )


def register_command(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``comment`` to the ``rag-gate`` parser, with its ``handler``."""
    comment = commands.add_parser(
        "comment",
        help="post or update the gate's pull-request comment",
        description=COMMENT_DESCRIPTION,
    )
    add_comment_arguments(comment)
    comment.set_defaults(handler=_comment)


def _comment(arguments: argparse.Namespace) -> int:
    import os

    from ..reports.pr_comment import run_comment

    return run_comment(arguments, os.environ)
