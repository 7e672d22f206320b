"""Which imported cases are written: ``--where``, ``--since``/``--until`` and ``--sample``.

Filters look at a case as it will be written (its fields and ``metadata``) and at its
timestamp (a trace's root span start, a run's start, an item's creation time). A sample
of ``N`` keeps the ``N`` cases with the smallest hash of ``seed`` and case id: the choice
does not depend on file order or on how many files are read, a re-import picks the same
cases, and memory holds at most ``N`` cases per stratum however large the export.
``--stratify KEY`` shares the ``N`` among the values of ``KEY`` in proportion to how many
cases have each (largest remainders; every value gets one while ``N`` allows).
"""

from __future__ import annotations

import hashlib
import heapq
import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from .paths import MISSING, Path, parse_path, resolve

__all__ = ["CaseFilter", "Sampler", "as_time", "parse_time", "value_at"]


def value_at(row: Mapping[str, Any], path: Path) -> Any:
    """``path`` in a golden row: a field (``answer``), else under ``metadata``.

    >>> value_at({"question": "q", "metadata": {"env": "prod"}}, ("env",))
    'prod'
    """
    found = resolve(row, path)
    if found is MISSING and isinstance(row.get("metadata"), Mapping):
        found = resolve(row["metadata"], path)
    return found


def as_time(value: object) -> datetime | None:
    """A timestamp as an aware datetime: ISO 8601 text, or epoch s/ms/µs/ns as a number.

    >>> as_time("2026-11-25T18:00:00Z").isoformat()
    '2026-11-25T18:00:00+00:00'
    >>> as_time("1764093600000000000").isoformat()
    '2025-11-25T18:00:00+00:00'
    >>> as_time("yesterday") is None
    True
    """
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        seconds = float(value)
        for scale in (1e9, 1e6, 1e3):  # ns, µs, ms: no date of interest is that far out
            if abs(seconds) > scale * 1e8:
                seconds /= scale
                break
        try:
            return datetime.fromtimestamp(seconds, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str):
        try:
            return as_time(datetime.fromisoformat(_iso(value.strip())))
        except ValueError:
            return None
    return None


def _iso(text: str) -> str:
    """ISO 8601 as Python 3.10's ``fromisoformat`` reads it: ``Z`` and nanoseconds too.

    >>> _iso("2026-11-25T18:00:00.123456789Z")
    '2026-11-25T18:00:00.123456+00:00'
    """
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    return re.sub(r"(\.\d{6})\d+", r"\1", text)


def parse_time(text: str) -> datetime:
    """An option's timestamp: ISO 8601 (a date alone is its midnight UTC) or epoch seconds.

    Raises:
        ValueError: ``text`` is neither.
    """
    parsed = as_time(text)
    if parsed is None:
        raise ValueError(
            f"expected an ISO 8601 date or time such as 2026-11-25T18:00Z, got {text!r}"
        )
    return parsed


@dataclass
class CaseFilter:
    """``--where KEY=VALUE`` (all must hold) and ``--since``/``--until`` (inclusive/exclusive)."""

    where: list[tuple[str, Path, str]] = field(default_factory=list)
    since: datetime | None = None
    until: datetime | None = None

    def rejects(self, row: Mapping[str, Any], timestamp: object) -> str | None:
        """Why ``row`` (with its source ``timestamp``) is left out, or None to keep it."""
        for shown, path, wanted in self.where:
            found = value_at(row, path)
            if found is MISSING or found is None:
                return f"no {shown} (--where {shown}={wanted})"
            values = found if isinstance(found, list) else [found]
            if not any(_text(value) == wanted for value in values):
                return f"{shown} is not {wanted!r} (--where)"
        if self.since is None and self.until is None:
            return None
        moment = as_time(timestamp)
        if moment is None:
            return "no timestamp (--since/--until)"
        if self.since is not None and moment < self.since:
            return "before --since"
        if self.until is not None and moment >= self.until:
            return "at or after --until"
        return None


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def parse_where(text: str) -> tuple[str, Path, str]:
    """``KEY=VALUE`` of ``--where``.

    Raises:
        ValueError: no ``=``, or KEY is no path.
    """
    key, equals, wanted = text.partition("=")
    if not equals or not key.strip():
        raise ValueError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), parse_path(key.strip()), wanted


@dataclass(order=True)
class _Held:
    rank: tuple[int, int]  # negated hash and order: heapq keeps the largest hash on top
    row: dict[str, Any] = field(compare=False)


class Sampler:
    """The ``size`` cases with the smallest hash of ``seed`` and id, optionally per stratum."""

    def __init__(self, size: int, seed: int, stratify: Path | None = None) -> None:
        self.size = size
        self.seed = seed
        self.stratify = stratify
        self.offered: Counter[str] = Counter()
        self._held: dict[str, list[_Held]] = {}
        self._order = 0

    def _hash(self, case_id: str) -> int:
        digest = hashlib.sha256(f"{self.seed}\0{case_id}".encode("utf-8", "surrogatepass"))
        return int.from_bytes(digest.digest()[:8], "big")

    def stratum(self, row: Mapping[str, Any]) -> str:
        """The stratum of ``row``: the value of ``--stratify`` as text, or ``(none)``."""
        if self.stratify is None:
            return ""
        found = value_at(row, self.stratify)
        if found is MISSING or found is None or found == []:
            return "(none)"
        return _text(found[0] if isinstance(found, list) else found)

    def offer(self, row: dict[str, Any]) -> None:
        """Consider ``row`` (with its final ``id``) for the sample."""
        stratum = self.stratum(row)
        self.offered[stratum] += 1
        self._order += 1
        held = self._held.setdefault(stratum, [])
        item = _Held((-self._hash(str(row["id"])), -self._order), row)
        if len(held) < self.size:
            heapq.heappush(held, item)
        elif item.rank > held[0].rank:
            heapq.heapreplace(held, item)

    def shares(self) -> dict[str, int]:
        """How many cases each stratum gives (proportional, largest remainders).

        >>> sampler = Sampler(4, 0, ("k",))
        >>> sampler.offered.update({"a": 90, "b": 9, "c": 1})
        >>> sampler.shares()
        {'a': 2, 'b': 1, 'c': 1}
        """
        total = sum(self.offered.values())
        if total <= self.size:
            return dict(self.offered)
        strata = sorted(self.offered)
        if len(strata) <= self.size:
            shares = {stratum: 1 for stratum in strata}
            left = self.size - len(strata)
            quotas = {s: (self.offered[s] - 1) * left / (total - len(strata)) for s in strata}
        else:
            shares = {stratum: 0 for stratum in strata}
            left = self.size
            quotas = {s: self.offered[s] * left / total for s in strata}
        for stratum in strata:
            shares[stratum] += int(quotas[stratum])
        remaining = self.size - sum(shares.values())
        by_remainder = sorted(
            strata, key=lambda s: (-(quotas[s] - int(quotas[s])), -self.offered[s], s)
        )
        for stratum in by_remainder[:remaining]:
            shares[stratum] += 1
        return {s: min(count, self.offered[s]) for s, count in shares.items()}

    def chosen(self) -> list[dict[str, Any]]:
        """The sampled rows, in the order they were offered."""
        picked: list[_Held] = []
        for stratum, count in self.shares().items():
            held = sorted(self._held.get(stratum, []), reverse=True)
            picked.extend(held[:count])
        picked.sort(key=lambda item: -item.rank[1])
        return [item.row for item in picked]
