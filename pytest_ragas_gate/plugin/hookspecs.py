"""Hooks a ``conftest.py`` can implement to configure the gate from Python.

They are called once, when ``--rag-gate`` turns the gate on, so implement them in an
*initial* conftest: the one in the rootdir or in a directory named on the command line
(as with ``pytest_addoption``). Under pytest-xdist every worker calls them too.

This module imports nothing but pytest: pytest loads it on every run.
"""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_rag_gate_target(config: pytest.Config) -> Any:
    """Return the live-mode target, or None to stay in static mode.

    The target is what ``live.target: MODULE:FUNCTION`` would name: a function
    (sync or async) taking the question and, optionally, the case; a LangChain-style
    runnable; or a LlamaIndex-style query engine. A configured ``target`` wins over this
    hook.

    Args:
        config: The pytest config.
    """


@pytest.hookspec
def pytest_rag_gate_metrics(config: pytest.Config) -> Any:
    """Return a list of custom metrics (objects following ``pytest_ragas_gate.Metric``).

    They join the built-in metrics and those of installed packages; a metric runs on every
    case that has its ``required_fields``, and its ``default_threshold`` gates it unless
    a threshold is configured.

    Args:
        config: The pytest config.
    """


@pytest.hookspec
def pytest_rag_gate_judges(config: pytest.Config) -> Any:
    """Return judge factories by kind, e.g. ``{"mycorp": factory}``.

    A factory takes a ``pytest_ragas_gate.JudgeSetup`` and returns an object following
    ``pytest_ragas_gate.Judge``; ``--rag-gate-judge mycorp`` (or ``judge.provider:
    mycorp``) selects it. They join the built-in judges and those installed packages
    register under the ``pytest_ragas_gate.judges`` entry-point group; a kind already
    taken is refused.

    Args:
        config: The pytest config.
    """
