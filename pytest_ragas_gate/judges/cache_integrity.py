"""What a run's judge cache verified, rejected and signed, as the reports carry it.

Apart from the signing itself (``cache_signing``, which loads ``cryptography``), so that
a report or a run without a signed cache can name these counts without loading it.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CacheIntegrity"]


class CacheIntegrity(BaseModel):
    """What a run's judge cache verified, rejected and signed; saved as ``run.cache_integrity``.

    Each xdist worker keeps its own counts; the controller sums them with :meth:`plus`.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    #: The fingerprint of ``cache_public_key``; None when entries are not verified.
    public_key_fingerprint: str | None = None
    verified: int = 0
    signed: int = 0
    #: Entries not replayed, by reason (unsigned, edited after signing, another key).
    rejected: dict[str, int] = Field(default_factory=dict)

    def plus(self, other: CacheIntegrity) -> CacheIntegrity:
        """The counts of two processes of one run together."""
        rejected = Counter(self.rejected)
        rejected.update(other.rejected)
        return CacheIntegrity(
            public_key_fingerprint=self.public_key_fingerprint or other.public_key_fingerprint,
            verified=self.verified + other.verified,
            signed=self.signed + other.signed,
            rejected=dict(sorted(rejected.items())),
        )

    def rejection_line(self) -> str | None:
        """``3 cache entries failed verification: edited after signing``, or None.

        >>> CacheIntegrity(rejected={"unsigned": 1}).rejection_line()
        '1 cache entry failed verification: unsigned'
        >>> CacheIntegrity(rejected={"unsigned": 1, "edited after signing": 2}).rejection_line()
        '3 cache entries failed verification: 2 edited after signing, 1 unsigned'
        """
        total = sum(self.rejected.values())
        if not total:
            return None
        entries = "cache entry" if total == 1 else "cache entries"
        if len(self.rejected) == 1:
            reasons = next(iter(self.rejected))
        else:
            reasons = ", ".join(
                f"{count} {reason}"
                for reason, count in sorted(self.rejected.items(), key=lambda item: -item[1])
            )
        return f"{total} {entries} failed verification: {reasons}"
