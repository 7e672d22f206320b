"""Keeping the garbage collector off the objects that live as long as the process.

A gate run loads pydantic, its own models and, on a cache miss, a provider SDK: the
``anthropic`` and ``openai`` packages define thousands of generated pydantic classes.
CPython's cyclic collector walks every tracked object on each full pass, many times while
such a package loads, and again at pytest's end-of-session ``gc.collect()`` calls and at
interpreter shutdown. On a two-core CI machine that was a third of the ``anthropic``
import and most of a second per run. None of those objects is garbage, so once loaded
they are moved to the collector's permanent generation (:func:`gc.freeze`); reference
counting still frees whatever becomes garbage later, and objects made after a freeze are
collected as usual.
"""

from __future__ import annotations

import gc
import importlib
import sys


def freeze_loaded() -> None:
    """Move every object alive now out of the cyclic collector's sight."""
    gc.freeze()


def import_module_paused(name: str) -> None:
    """Import ``name`` with the cyclic collector paused, then freeze what it built.

    A no-op when the module is already loaded; raises ``ImportError`` as ``import`` does.
    The collector's enabled state is restored as it was, whatever happens.
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
    freeze_loaded()
