"""Estimated cost of judge calls, in US dollars per million tokens.

The built-in table covers the default judge models and a few common ones, with the
providers' discounts: input read from the provider's prompt cache (Anthropic 0.1x of the
input price, OpenAI 0.25x for the GPT-4.1 family and 0.5x for GPT-4o), input written to it
(Anthropic 1.25x, OpenAI no premium) and batch jobs (half price on every token, both
providers). Prices change: users override or extend them with ``prices`` in the
configuration. A model with no known price costs 0.0 with ``priced=False``, so reports can
say "cost unknown" rather than "free".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field


class ModelPrice(BaseModel):
    """US dollars per million input and output tokens, and the provider's discounts.

    ``cache_write_per_mtok`` / ``cache_read_per_mtok`` price the input tokens written to
    and read from the provider's prompt cache (default: the built-in table's ratios for
    the model's provider, e.g. 1.25x and 0.1x of input for Anthropic); ``batch_discount``
    is the share taken off every token of a batch job (default 0.5).
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)
    cache_write_per_mtok: float | None = Field(default=None, ge=0)
    cache_read_per_mtok: float | None = Field(default=None, ge=0)
    batch_discount: float | None = Field(default=None, ge=0, le=1)


#: Share of the input price that a cache write and a cache read cost, per provider.
ANTHROPIC_CACHE_WRITE = 1.25
ANTHROPIC_CACHE_READ = 0.10
#: Share of list price that the Message Batches API and the OpenAI Batch API charge.
BATCH_SHARE = 0.5


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens: input, output, cache write, cache read; batch share.

    ``cache_write_per_mtok`` / ``cache_read_per_mtok`` default to the input price (no
    discount, no premium) when None.
    """

    input_per_mtok: float
    output_per_mtok: float
    cache_write_per_mtok: float | None = None
    cache_read_per_mtok: float | None = None
    batch_share: float = BATCH_SHARE


def anthropic_price(input_per_mtok: float, output_per_mtok: float) -> Price:
    """An Anthropic model's price: cache writes at 1.25x input, reads at 0.1x."""
    return Price(
        input_per_mtok,
        output_per_mtok,
        cache_write_per_mtok=input_per_mtok * ANTHROPIC_CACHE_WRITE,
        cache_read_per_mtok=input_per_mtok * ANTHROPIC_CACHE_READ,
    )


def openai_price(input_per_mtok: float, output_per_mtok: float, *, cached: float) -> Price:
    """An OpenAI model's price: cached input at ``cached`` x input, no write premium."""
    return Price(
        input_per_mtok,
        output_per_mtok,
        cache_write_per_mtok=input_per_mtok,
        cache_read_per_mtok=input_per_mtok * cached,
    )


#: List prices at the time of writing (standard tier).
DEFAULT_PRICES: dict[str, Price] = {
    # Anthropic
    "claude-sonnet-5-5": anthropic_price(2.0, 10.0),
    "claude-sonnet-5": anthropic_price(2.0, 10.0),
    "claude-opus-5": anthropic_price(5.0, 25.0),
    "claude-sonnet-4-6": anthropic_price(3.0, 15.0),
    "claude-sonnet-4-5": anthropic_price(3.0, 15.0),
    "claude-opus-4-7": anthropic_price(5.0, 25.0),
    "claude-opus-4-6": anthropic_price(5.0, 25.0),
    "claude-opus-4-5": anthropic_price(5.0, 25.0),
    "claude-haiku-4-5": anthropic_price(1.0, 5.0),
    # OpenAI
    "gpt-4.1-mini": openai_price(0.40, 1.60, cached=0.25),
    "gpt-4.1-nano": openai_price(0.10, 0.40, cached=0.25),
    "gpt-4.1": openai_price(2.0, 8.0, cached=0.25),
    "gpt-4o-mini": openai_price(0.15, 0.60, cached=0.5),
    "gpt-4o": openai_price(2.50, 10.0, cached=0.5),
    "text-embedding-3-small": Price(0.02, 0.0),
    "text-embedding-3-large": Price(0.13, 0.0),
}

_PROVIDER_PREFIXES = ("anthropic/", "openai/", "azure/")
_SNAPSHOT_SUFFIX = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2}|latest)")


@dataclass(frozen=True)
class Cost:
    """The estimated cost of some tokens; ``priced`` is False when the model is unknown."""

    usd: float
    priced: bool


class PriceTable:
    """Looks up a model's price: user overrides first, then the built-in table.

    Dated snapshots and provider prefixes resolve to their family's price, so
    ``claude-sonnet-4-5-20250929`` and ``openai/gpt-4o-mini`` are priced.

    >>> table = PriceTable()
    >>> table.cost("gpt-4o-mini", input_tokens=1_000_000, output_tokens=0)
    Cost(usd=0.15, priced=True)
    >>> table.cost("my-local-llama", input_tokens=10, output_tokens=10)
    Cost(usd=0.0, priced=False)
    """

    def __init__(self, overrides: Mapping[str, ModelPrice] | None = None) -> None:
        self._prices: dict[str, Price] = dict(DEFAULT_PRICES)
        for model, price in (overrides or {}).items():
            self._prices[model] = _override(model, self.price_for(model), price)

    def price_for(self, model: str) -> Price | None:
        """The price of ``model``, or None when it is not known."""
        if model in self._prices:
            return self._prices[model]
        name = model
        for prefix in _PROVIDER_PREFIXES:
            if name.startswith(prefix):
                name = name[len(prefix) :]
        if name in self._prices:
            return self._prices[name]
        # A dated snapshot or alias of a known family: -20250929, -2024-07-18, -latest.
        for family, price in self._prices.items():
            if name.startswith(family) and _SNAPSHOT_SUFFIX.fullmatch(name[len(family) :]):
                return price
        return None

    def is_priced(self, model: str) -> bool:
        """Whether ``model`` has a known price."""
        return self.price_for(model) is not None

    def cost(
        self,
        model: str,
        *,
        input_tokens: int,
        output_tokens: int,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
        batch: bool = False,
    ) -> Cost:
        """The estimated cost of some tokens on ``model``.

        Args:
            model: the model name.
            input_tokens: every prompt token, cached ones included.
            output_tokens: completion tokens.
            cache_read_tokens: the input tokens read from the provider's prompt cache.
            cache_write_tokens: the input tokens written to it.
            batch: the tokens went through a batch job (discounted).

        >>> table = PriceTable()
        >>> table.cost("claude-haiku-4-5", input_tokens=2_000_000, output_tokens=0,
        ...            cache_read_tokens=1_000_000)
        Cost(usd=1.1, priced=True)
        """
        price = self.price_for(model)
        if price is None:
            return Cost(0.0, priced=False)
        uncached = max(0, input_tokens - cache_read_tokens - cache_write_tokens)
        read_price = (
            price.input_per_mtok if price.cache_read_per_mtok is None else price.cache_read_per_mtok
        )
        write_price = (
            price.input_per_mtok
            if price.cache_write_per_mtok is None
            else price.cache_write_per_mtok
        )
        usd = (
            uncached * price.input_per_mtok
            + cache_read_tokens * read_price
            + cache_write_tokens * write_price
            + output_tokens * price.output_per_mtok
        ) / 1e6
        if batch:
            usd *= price.batch_share
        return Cost(round(usd, 12), priced=True)


def _override(model: str, known: Price | None, price: ModelPrice) -> Price:
    """A configured price; unset cache and batch columns keep the provider's ratios."""
    if known is None and model.removeprefix("anthropic/").startswith("claude"):
        known = anthropic_price(1.0, 1.0)
    write_ratio = read_ratio = 1.0
    batch_share = BATCH_SHARE
    if known is not None and known.input_per_mtok > 0:
        if known.cache_write_per_mtok is not None:
            write_ratio = known.cache_write_per_mtok / known.input_per_mtok
        if known.cache_read_per_mtok is not None:
            read_ratio = known.cache_read_per_mtok / known.input_per_mtok
        batch_share = known.batch_share
    return Price(
        price.input_per_mtok,
        price.output_per_mtok,
        cache_write_per_mtok=(
            price.input_per_mtok * write_ratio
            if price.cache_write_per_mtok is None
            else price.cache_write_per_mtok
        ),
        cache_read_per_mtok=(
            price.input_per_mtok * read_ratio
            if price.cache_read_per_mtok is None
            else price.cache_read_per_mtok
        ),
        batch_share=batch_share if price.batch_discount is None else 1.0 - price.batch_discount,
    )
