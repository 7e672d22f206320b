"""The lines that say what the judge cache verified and rejected, for every summary."""

from __future__ import annotations

from ..judges.cache import JudgeCache
from ..judges.cache_integrity import CacheIntegrity

__all__ = ["cache_integrity_lines", "cache_signing_line"]


def cache_signing_line(cache: JudgeCache | None) -> str | None:
    """For the pytest header: whether the judge cache signs and verifies, by key fingerprint."""
    if cache is None or (cache.signer is None and cache.verifier is None):
        return None
    parts = []
    if cache.verifier is not None:
        parts.append(f"replays only entries signed by key {cache.verifier.fingerprint}")
    if cache.signer is not None:
        parts.append(f"signs what it writes with key {cache.signer.signed_by}")
    return "cache " + " and ".join(parts)


def cache_integrity_lines(integrity: CacheIntegrity | None, *, cache_mode: str) -> list[str]:
    """What the terminal and the step summary say about signed cache entries.

    >>> cache_integrity_lines(None, cache_mode="read")
    []
    >>> cache_integrity_lines(
    ...     CacheIntegrity(public_key_fingerprint="ab12", verified=2, rejected={"unsigned": 3}),
    ...     cache_mode="read",
    ... )  # doctest: +NORMALIZE_WHITESPACE
    ['3 cache entries failed verification: unsigned — not replayed; in read mode the cases
      that needed them are errors',
     'cache: 2 entries verified against cache.public_key ab12']
    """
    if integrity is None:
        return []
    lines: list[str] = []
    rejected = integrity.rejection_line()
    if rejected is not None:
        consequence = (
            "in read mode the cases that needed them are errors"
            if cache_mode == "read"
            else "the judge was asked again"
        )
        lines.append(f"{rejected} — not replayed; {consequence}")
    if integrity.public_key_fingerprint is not None:
        lines.append(
            f"cache: {_entries(integrity.verified)} verified against cache.public_key "
            f"{integrity.public_key_fingerprint}"
        )
    if integrity.signed:
        lines.append(f"cache: {_entries(integrity.signed)} written and signed")
    return lines


def _entries(count: int) -> str:
    return f"{count} entry" if count == 1 else f"{count} entries"
