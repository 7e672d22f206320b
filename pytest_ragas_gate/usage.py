"""What judging costs: calls, tokens, retries, cache hits and dollars.

One model serves the judges, which add it up per request, and the results and reports,
which store it per case and metric. It imports nothing from the rest of the package, so
both can depend on it without depending on each other.

``input_tokens`` counts every prompt token; ``cache_read_tokens`` and
``cache_write_tokens`` say how many of them the provider read from, or wrote to, its
prompt cache (billed at a fraction, or a premium, of the input price). ``cache_hits``
counts requests answered from the gate's own reply cache, which cost nothing.

>>> total = Usage(calls=1, input_tokens=120, cost_usd=0.1) + Usage(calls=2, cache_hits=1,
...                                                             cost_usd=0.2)
>>> total.calls, total.input_tokens, total.cache_hits, total.cost_usd
(3, 120, 1, 0.3)
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
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            retries=self.retries + other.retries,
            cache_hits=self.cache_hits + other.cache_hits,
            cost_usd=round(self.cost_usd + other.cost_usd, COST_DIGITS),
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )
