"""Custom metrics from a conftest hook, and their own default thresholds.

Packages register metrics through the ``pytest_ragas_gate.metrics`` entry-point group;
a project registers them in its ``conftest.py`` with the ``pytest_rag_gate_metrics``
hook. Either way a metric goes through the one
:class:`~pytest_ragas_gate.metrics.registry.MetricRegistry`, which checks it, and its
``default_threshold`` gates it unless a threshold is configured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .config import DEFAULT_THRESHOLDS, GateConfig
from .metrics.base import Metric
from .metrics.registry import BUILTIN_METRIC_NAMES, HOOK, MetricRegistry

if TYPE_CHECKING:
    import pytest

__all__ = ["hook_metrics", "with_metric_defaults"]


def hook_metrics(pytest_config: pytest.Config, known: Mapping[str, Metric]) -> dict[str, Metric]:
    """The metrics that conftest files return from ``pytest_rag_gate_metrics``.

    Args:
        pytest_config: The pytest config whose hook is called.
        known: The metrics already registered (built-ins and entry points).

    Returns:
        The new metrics keyed by name, in the order the hooks returned them.

    Raises:
        ConfigError: When a hook returns something other than a list of metrics, or a
            name that is already taken.
    """
    registry = MetricRegistry.of(known)
    for returned in pytest_config.hook.pytest_rag_gate_metrics(config=pytest_config):
        registry.register_all(returned, HOOK)
    return {name: metric for name, metric in registry.metrics.items() if name not in known}


def with_metric_defaults(config: GateConfig, metrics: Mapping[str, Metric]) -> GateConfig:
    """``config`` with each selected custom metric's ``default_threshold`` as a threshold.

    Built-in metrics keep the seed defaults of ``DEFAULT_THRESHOLDS``; a configured
    threshold (a number, or ``null`` to leave the metric ungated) always wins. The
    defaults land in ``thresholds`` so the report's config re-gates to the same verdict.

    Args:
        config: The loaded settings.
        metrics: Every registered metric.

    Returns:
        The settings to gate with (``config`` itself when nothing changes).
    """
    selected = set(config.metrics) if config.metrics is not None else None
    defaults: dict[str, Any] = {
        # A custom metric that declares ``lower_is_better = True`` gets a maximum.
        name: f"<={metric.default_threshold}"
        if getattr(metric, "lower_is_better", False)
        else metric.default_threshold
        for name, metric in metrics.items()
        if metric.default_threshold is not None
        and name not in BUILTIN_METRIC_NAMES
        and name not in DEFAULT_THRESHOLDS
        and name not in config.thresholds
        and (selected is None or name in selected)
    }
    if not defaults:
        return config
    return config.model_copy(update={"thresholds": {**config.thresholds, **defaults}})
