"""``rag-gate synth``: a golden set, with retrieval ground truth, from the team's own documents.

documents (:mod:`.documents`) → chunks with stable ids (:mod:`.chunking`) → write requests
over a chunk or chunk pair (:mod:`.plan`, :mod:`.requests`) → critic, near-duplicates and
balance (:mod:`.pipeline`, :mod:`.dedup`) → golden JSON Lines with ``review: pending``
(:mod:`.golden_output`) → the review in the terminal (:mod:`.review`). The offline writer
(:mod:`.offline`) is deterministic and needs no key; LLM judges go through the gate's judge
stack. The command line is :mod:`.command`.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register_command"]


def _run(arguments: argparse.Namespace) -> int:
    from .command import run

    return run(arguments.synth_args)


def register_command(commands: argparse._SubParsersAction[Any]) -> None:
    """Add ``synth`` to the ``rag-gate`` subcommands; its own parser reads the rest."""
    parser = commands.add_parser(
        "synth",
        help="generate a golden set from documents; `synth review FILE` reviews it",
        add_help=False,
        # Every argument, --help included, goes on to the synth parser untouched.
        prefix_chars="\0",
    )
    parser.add_argument("synth_args", nargs=argparse.REMAINDER)
    parser.set_defaults(handler=_run)
