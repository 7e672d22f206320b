"""``rag-gate comment REPORT``: the gate's sticky comment on the pull request.

The GitHub Action calls this after the gate step. The comment is rendered and posted by
``reports.pr_comment``, loaded only when the command runs.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..reports.comment_arguments import COMMENT_DESCRIPTION, add_comment_arguments

__all__ = ["register_command"]


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
