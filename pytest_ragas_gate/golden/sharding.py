"""Splitting the golden set across CI jobs: ``--rag-gate-shard K/N``.

A case belongs to shard ``K`` of ``N`` when a stable hash of its golden file and id is
``K - 1`` modulo ``N``. The hash depends on nothing but those two strings, so every job
of a matrix agrees on the split without talking to the others, a case stays in its shard
when other cases are added, and ``rag-gate gate`` recombines the shard reports.

Imported by the plugin module on every pytest run, so it needs only the standard library.
"""

from __future__ import annotations

import argparse
import hashlib
from dataclasses import dataclass

__all__ = ["Shard", "parse_shard", "shard_of"]


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, file: str, case_id: str) -> bool:
        """Whether the case ``case_id`` of golden file ``file`` belongs to this shard."""
        return shard_of(file, case_id, self.count) == self.index


def parse_shard(text: str) -> Shard:
    """Parse ``K/N``: shard K (from 1) of N.

    >>> parse_shard("2/4")
    Shard(index=2, count=4)
    """
    index_text, separator, count_text = text.partition("/")
    try:
        index, count = int(index_text), int(count_text)
    except ValueError:
        index = count = 0
        separator = ""
    if not separator:
        raise argparse.ArgumentTypeError(f"expected K/N such as 1/4, got {text!r}")
    if count < 1:
        raise argparse.ArgumentTypeError(f"the shard count N must be at least 1, got {text!r}")
    if not 1 <= index <= count:
        raise argparse.ArgumentTypeError(f"the shard K must be from 1 to {count}, got {text!r}")
    return Shard(index=index, count=count)


def shard_of(file: str, case_id: str, count: int) -> int:
    """The 1-based shard of a case among ``count`` shards.

    Args:
        file: The golden file as shown in case sources (relative to the rootdir).
        case_id: The case's id.
        count: How many shards.

    Returns:
        A number from 1 to ``count``.

    Example:
        >>> shard_of("golden.jsonl", "refunds", 1)
        1
        >>> shard_of("golden.jsonl", "refunds", 3) == shard_of("golden.jsonl", "refunds", 3)
        True
    """
    # Python's hash() is salted per process; a digest is the same in every CI job.
    digest = hashlib.sha256(f"{file}\0{case_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % count + 1
