"""What judging costs: calls, tokens, retries, cache hits and dollars.

One model serves the judges, which add it up per request, and the results and reports,
which store it per case and metric. It imports nothing from the rest of the package, so
both can depend on it without depending on each other.

>>> Usage(calls=1, input_tokens=120, cost_usd=0.1) + Usage(calls=2, cache_hits=1, cost_usd=0.2)
Usage(calls=3, input_tokens=120, output_tokens=0, retries=0, cache_hits=1, cost_usd=0.3)
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["Usage"]

#: Dollar sums are rounded to this many places, so that adding many small costs reads
#: 0.3 and not 0.30000000000000004 in reports, and re-adding a report's figures matches.
COST_DIGITS = 8


class Usage(BaseModel):
    """What answering requests cost: calls sent, tokens, retries, cache hits, dollars.

    Immutable; totals are built with ``+`` (and ``sum(usages, Usage())``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    retries: int = 0
    cache_hits: int = 0
    cost_usd: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            retries=self.retries + other.retries,
            cache_hits=self.cache_hits + other.cache_hits,
            cost_usd=round(self.cost_usd + other.cost_usd, COST_DIGITS),
        )
