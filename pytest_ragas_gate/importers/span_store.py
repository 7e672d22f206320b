"""Spans gathered by trace, in memory while few and in a temporary SQLite file beyond that.

A trace's spans may lie anywhere in an export, so none can be turned into a case before
the file is read to its end. Holding every span would make memory grow with the export;
past ``in_memory`` spans they move to an SQLite table on disk (the standard library's
embedded database, whose sort spills to disk too), and traces come back one at a time in
the order they were first seen, so memory stays bounded however large the export.
"""

from __future__ import annotations

import pickle
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Generic, TypeVar

__all__ = ["SpanStore"]

T = TypeVar("T")

#: Spans held in memory before the store moves to disk.
IN_MEMORY = 20_000


class SpanStore(Generic[T]):
    """Items (spans) grouped by key (trace id), first-seen order kept.

    >>> store = SpanStore[str](in_memory=2)
    >>> for trace, span in [("a", "root"), ("b", "root"), ("a", "child")]:
    ...     store.add(trace, span)
    >>> list(store.groups())
    [('a', ['root', 'child']), ('b', ['root'])]
    """

    def __init__(self, in_memory: int | None = None) -> None:
        self.in_memory = IN_MEMORY if in_memory is None else in_memory
        self._held: dict[str, list[T]] = {}
        self._first_seen: dict[str, int] = {}
        self._count = 0
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._database: sqlite3.Connection | None = None

    def add(self, key: str, item: T) -> None:
        """Keep ``item`` with the others of ``key``."""
        self._count += 1
        if self._database is None:
            self._held.setdefault(key, []).append(item)
            if self._count > self.in_memory:
                self._spill()
            return
        self._insert(key, item)

    def _spill(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="rag-gate-import-")
        self._database = sqlite3.connect(Path(self._folder.name) / "spans.sqlite")
        self._database.executescript(
            "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
            "CREATE TABLE traces (key TEXT PRIMARY KEY, first INTEGER);"
            "CREATE TABLE spans (key TEXT, position INTEGER, item BLOB);"
        )
        held, self._held = self._held, {}
        for key, items in held.items():
            for item in items:
                self._insert(key, item)

    def _insert(self, key: str, item: T) -> None:
        assert self._database is not None
        if key not in self._first_seen:
            self._first_seen[key] = len(self._first_seen)
            self._database.execute("INSERT INTO traces VALUES (?, ?)", (key, self._first_seen[key]))
        self._database.execute(
            "INSERT INTO spans VALUES (?, ?, ?)", (key, self._count, pickle.dumps(item))
        )

    def groups(self) -> Iterator[tuple[str, list[T]]]:
        """Each key with its items, in the order keys were first added; the store empties."""
        if self._database is None:
            while self._held:
                key = next(iter(self._held))
                yield key, self._held.pop(key)
            return
        try:
            rows = self._database.execute(
                "SELECT spans.key, spans.item FROM spans JOIN traces USING (key) "
                "ORDER BY traces.first, spans.position"
            )
            current: str | None = None
            items: list[T] = []
            for key, blob in rows:
                if key != current:
                    if current is not None:
                        yield current, items
                    current, items = key, []
                # Our own pickles of our own objects, written to a private temporary folder.
                items.append(pickle.loads(blob))
            if current is not None:
                yield current, items
        finally:
            self.close()

    def close(self) -> None:
        """Remove the temporary database, if there is one."""
        if self._database is not None:
            self._database.close()
            self._database = None
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None
        self._first_seen.clear()
