"""Sparing the garbage collector the objects that scoring loads and keeps.

Scoring loads, on a cache miss, a provider SDK: the ``anthropic`` and ``openai`` packages
define thousands of generated pydantic classes. CPython's cyclic collector walks every
tracked object on each full pass, many times while such a package loads and again during
the calls that follow; on a two-core CI machine that was a third of the ``anthropic``
import and 0.4 s of the rest of a 100-case run. None of those objects is garbage, so the
SDK loads with the collector paused, and while the cases are scored every object alive
at the start, and each SDK loaded meanwhile, sits in the collector's permanent generation
(:func:`gc.freeze`); reference counting still frees whatever becomes garbage.

Frozen objects are hidden from ``gc.get_objects()`` and ``gc.get_referrers()``, on which
tools in the user's own session rely (hypothesis's ``register_random``, leak checkers), so
the collector gets them back (:func:`gc.unfreeze`) before the first test runs. A process
that froze objects itself is left as it was, and so is one whose interpreter froze objects at
start-up (CPython 3.12 starts with a few hundred): :func:`gc.unfreeze` cannot tell them from
ours, and would hand them to the collector for the rest of the process. There the SDK still
loads with the collector paused; only the sparing during scoring is skipped.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import sys
from collections.abc import Iterator

_sparing = False


@contextlib.contextmanager
def collector_spared() -> Iterator[None]:
    """While the body runs, the cyclic collector skips what was alive at its start."""
    global _sparing
    if _sparing or gc.get_freeze_count():
        yield
        return
    gc.freeze()
    _sparing = True
    try:
        yield
    finally:
        _sparing = False
        gc.unfreeze()


def import_module_paused(name: str) -> None:
    """Import ``name`` with the cyclic collector paused.

    A no-op when the module is already loaded; raises ``ImportError`` as ``import`` does.
    The collector's enabled state is restored as it was, whatever happens. Inside
    :func:`collector_spared`, what the module built is spared too; outside it, what the
    module built goes straight to the collector's oldest generation.
    """
    if name in sys.modules:
        return
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        importlib.import_module(name)
    finally:
        if was_enabled:
            gc.enable()
    if _sparing:
        gc.freeze()
    elif not gc.get_freeze_count():
        # Left in the youngest generation, every object the import made would be walked by
        # the next young collection and again by the one after it (12 ms of a plain run,
        # for 100 cases, on the 2-core development machine) before reaching the oldest
        # one. A freeze and an unfreeze move them there at once, with no pass at all.
        gc.freeze()
        gc.unfreeze()
