"""Custom metrics from a conftest hook, and their own default thresholds.

Packages register metrics through the ``pytest_ragas_gate.metrics`` entry-point group;
a project registers them in its ``conftest.py`` with the ``pytest_rag_gate_metrics``
hook. Either way a metric is a plain :class:`~pytest_ragas_gate.metrics.base.Metric`
object, and its ``default_threshold`` gates it unless a threshold is configured.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .config import DEFAULT_THRESHOLDS, GateConfig
from .exceptions import ConfigError
from .metrics.base import Metric
from .metrics.registry import BUILTIN_METRIC_NAMES

if TYPE_CHECKING:
    import pytest

__all__ = ["check_metric", "hook_metrics", "with_metric_defaults"]


def check_metric(candidate: object, origin: str) -> Metric:
    """``candidate`` as a metric, or a ``ConfigError`` naming ``origin`` and what is wrong.

    Args:
        candidate: The object offered as a metric.
        origin: Where it came from, for the message.

    Returns:
        The metric.

    Raises:
        ConfigError: When it lacks a non-empty name, ``required_fields`` as strings, a
            ``default_threshold`` from 0 to 1 (or None), or an async ``score``.
    """
    problems: list[str] = []
    if isinstance(candidate, type):
        problems.append("it is a class; return an instance")
    elif not isinstance(candidate, Metric):
        problems.append("it lacks name, required_fields, default_threshold or score(case, judge)")
    else:
        name = candidate.name
        if not isinstance(name, str) or not name.strip():
            problems.append("its name must be a non-empty string")
        fields = candidate.required_fields
        if not isinstance(fields, tuple) or not all(isinstance(item, str) for item in fields):
            problems.append("its required_fields must be a tuple of field names")
        threshold = candidate.default_threshold
        if threshold is not None and (
            isinstance(threshold, bool)
            or not isinstance(threshold, (int, float))
            or not 0.0 <= threshold <= 1.0
        ):
            problems.append("its default_threshold must be None or a number from 0 to 1")
        if not inspect.iscoroutinefunction(candidate.score):
            problems.append("its score(case, judge) must be an async method")
    if problems:
        raise ConfigError(
            f"{origin} gave {candidate!r}, which is not a metric: {'; '.join(problems)}. "
            "See the Metric protocol (pytest_ragas_gate.Metric)."
        )
    assert isinstance(candidate, Metric)
    return candidate


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
    origin = "The pytest_rag_gate_metrics hook"
    found: dict[str, Metric] = {}
    for returned in pytest_config.hook.pytest_rag_gate_metrics(config=pytest_config):
        if returned is None:
            continue
        if isinstance(returned, (str, bytes, Mapping)) or not isinstance(returned, Iterable):
            raise ConfigError(
                f"{origin} returned a {type(returned).__name__}; return a list of metrics."
            )
        for candidate in returned:
            metric = check_metric(candidate, origin)
            if metric.name in known or metric.name in found:
                taken = "a built-in metric" if metric.name in BUILTIN_METRIC_NAMES else "a metric"
                raise ConfigError(
                    f"{origin} returned metric {metric.name!r}, but {taken} of that name is "
                    "already registered; give the custom metric a name of its own."
                )
            found[metric.name] = metric
    return found


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
        name: metric.default_threshold
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
