"""Estimated cost of judge calls, in US dollars per million tokens.

The built-in table covers the default judge models and a few common ones. Prices change:
users override or extend them with ``prices`` in the configuration. A model with no known
price costs 0.0 with ``priced=False``, so reports can say "cost unknown" rather than
"free".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..config import ModelPrice


@dataclass(frozen=True)
class Price:
    """US dollars per million input and output tokens."""

    input_per_mtok: float
    output_per_mtok: float


#: List prices at the time of writing (standard tier, no batch or cache discounts).
DEFAULT_PRICES: dict[str, Price] = {
    # Anthropic
    "claude-sonnet-5-5": Price(2.0, 10.0),
    "claude-sonnet-5": Price(2.0, 10.0),
    "claude-opus-5": Price(5.0, 25.0),
    "claude-sonnet-4-6": Price(3.0, 15.0),
    "claude-sonnet-4-5": Price(3.0, 15.0),
    "claude-opus-4-7": Price(5.0, 25.0),
    "claude-opus-4-6": Price(5.0, 25.0),
    "claude-opus-4-5": Price(5.0, 25.0),
    "claude-haiku-4-5": Price(1.0, 5.0),
    # OpenAI
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "gpt-4.1": Price(2.0, 8.0),
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4o": Price(2.50, 10.0),
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
            self._prices[model] = Price(price.input_per_mtok, price.output_per_mtok)

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

    def cost(self, model: str, *, input_tokens: int, output_tokens: int) -> Cost:
        """The estimated cost of ``input_tokens`` and ``output_tokens`` on ``model``."""
        price = self.price_for(model)
        if price is None:
            return Cost(0.0, priced=False)
        usd = (input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1e6
        return Cost(usd, priced=True)
