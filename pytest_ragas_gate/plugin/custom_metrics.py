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

from ..metrics.base import Metric, MetricFacts
from ..metrics.registry import BUILTIN_METRIC_NAMES, HOOK, MetricRegistry
from ..settings.config import DEFAULT_THRESHOLDS, GateConfig

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

    Built-in metrics keep their defaults of ``DEFAULT_THRESHOLDS``; a configured
    threshold (a number, or ``null`` to leave the metric ungated) always wins. A custom
    metric that declares ``lower_is_better`` is named under ``lower_is_better`` (gated or
    not), and its threshold, default or configured as a bare number, written as a
    maximum (``<=X``). The thresholds land in ``thresholds``
    so the report's config re-gates to the same verdict, and so per-case and tag
    thresholds, which take the direction of the gate's, read it from the saved report.

    Args:
        config: The loaded settings.
        metrics: Every registered metric.

    Returns:
        The settings to gate with (``config`` itself when nothing changes).
    """
    selected = set(config.metrics) if config.metrics is not None else None
    settled: dict[str, Any] = {}
    # Every lower-is-better metric's direction, gated or report-only: its case and tag
    # thresholds are maxima too.
    lower = [
        name
        for name, metric in metrics.items()
        if name not in BUILTIN_METRIC_NAMES
        and MetricFacts.of(metric).lower_is_better
        and name not in config.lower_is_better
    ]
    for name, metric in metrics.items():
        if name in BUILTIN_METRIC_NAMES or name in DEFAULT_THRESHOLDS:
            continue
        configured = name in config.thresholds
        if not configured and selected is not None and name not in selected:
            continue
        facts = MetricFacts.of(metric)
        threshold = config.thresholds[name] if configured else facts.default_threshold
        if facts.lower_is_better and isinstance(threshold, (int, float)):
            # Saved with its direction: a regate has no metric object to ask.
            settled[name] = f"<={threshold}"
        elif not configured and threshold is not None:
            settled[name] = threshold
    if not settled and not lower:
        return config
    return config.model_copy(
        update={
            "thresholds": {**config.thresholds, **settled},
            "lower_is_better": [*config.lower_is_better, *lower],
        }
    )
