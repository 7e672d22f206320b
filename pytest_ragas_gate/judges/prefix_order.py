"""Send the first request of a shared prompt prefix before the others that share it.

A provider writes a prompt prefix to its cache while it answers the request that sent it,
and a request that arrives before then cannot read it: two requests of a case that share
the case's contexts, sent at the same moment, would both pay the full price (Anthropic:
both pay the 1.25x write). So the first request with a given prefix goes out at once and
the others with that prefix wait until it is answered (or has failed for good), then
read the prefix at the cached price.

In the gate this costs no wall time with the core metrics: the context review is sent
first, and the claim verification, the other request that holds the contexts, waits for
the claim extraction anyway.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

#: How many answered prefixes are remembered; an older one is just sent without waiting.
_REMEMBERED = 4096


class PrefixOrder:
    """Orders requests by the prompt prefix they share (see the module docstring).

    The order binds to no event loop until a request waits, and one judge may serve
    several ``asyncio.run`` calls in a row: the waits are per loop-free ``asyncio.Event``.
    """

    def __init__(self) -> None:
        self._prefixes: OrderedDict[str, asyncio.Event] = OrderedDict()

    @staticmethod
    def key(*parts: str) -> str:
        """A short digest of the prefix text ``parts``."""
        digest = hashlib.sha256()
        for part in parts:
            digest.update(part.encode("utf-8", "surrogatepass"))
            digest.update(b"\x00")
        return digest.hexdigest()

    @asynccontextmanager
    async def turn(self, prefix_key: str | None) -> AsyncIterator[None]:
        """Wait while another request with ``prefix_key`` is in flight as its first.

        With ``prefix_key`` None (nothing worth caching), the request goes at once.
        """
        if prefix_key is None:
            yield
            return
        first = self._prefixes.get(prefix_key)
        if first is None:
            answered = asyncio.Event()
            self._remember(prefix_key, answered)
            try:
                yield
            finally:
                answered.set()
            return
        if not first.is_set():
            await first.wait()
        yield

    def _remember(self, prefix_key: str, answered: asyncio.Event) -> None:
        self._prefixes[prefix_key] = answered
        while len(self._prefixes) > _REMEMBERED:
            oldest_key, oldest = next(iter(self._prefixes.items()))
            if not oldest.is_set():
                break  # still in flight: its waiters need it
            del self._prefixes[oldest_key]
