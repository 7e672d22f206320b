"""The checks a loaded config passes beyond its types, shared by pytest and ``rag-gate``.

A threshold, rule or selection for a metric nobody registered is a typo, and a typo in a
threshold silently leaves the real metric at its default. ``pytest --rag-gate`` and every
``rag-gate`` command that reads a config file refuse it with the same message (exit 4).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from ..exceptions import ConfigError
from ..metrics.registry import MetricRegistry, unknown_metric_error
from .bounds import Bound
from .config import GateConfig

__all__ = [
    "check_metric_names",
    "check_threshold_directions",
    "check_thresholds_selected",
    "not_selected_message",
    "report_metric_names",
]


def check_metric_names(
    config: GateConfig, known: Collection[str], origins: Mapping[str, str] | None = None
) -> None:
    """Every metric named in the settings must be one of ``known``.

    Args:
        config: The settings.
        known: Every metric name the run (or the report) knows.
        origins: Where each setting came from (``LoadedConfig.origins``), to name the file.

    Raises:
        ConfigError: Naming the setting, its source and the closest known metric.

    Example:
        >>> check_metric_names(
        ...     GateConfig(thresholds={"faithfulnes": 0.5}), ["faithfulness"], {"thresholds": "t.yaml"}
        ... )
        Traceback (most recent call last):
        ...
        pytest_ragas_gate.exceptions.ConfigError: Invalid rag-gate configuration: setting 'thresholds' from t.yaml: unknown metric 'faithfulnes'; did you mean 'faithfulness'?
    """  # noqa: E501
    named: dict[str, Iterable[str]] = {
        "metrics": config.metrics or [],
        "thresholds": config.thresholds,
        "rules": config.rules,
        "min_agreement": config.min_agreement,
        "tag_thresholds": [name for by_tag in config.tag_thresholds.values() for name in by_tag],
    }
    for setting, names in named.items():
        for name in names:
            if name not in known:
                origin = (origins or {}).get(setting, "the settings")
                raise ConfigError(
                    f"Invalid rag-gate configuration: setting {setting!r} from {origin}: "
                    f"{unknown_metric_error(name, known)}"
                )
    check_thresholds_selected(config, origins)
    check_threshold_directions(config, origins)


def check_threshold_directions(
    config: GateConfig, origins: Mapping[str, str] | None = None
) -> None:
    """Every threshold's operator agrees with its metric's direction.

    Run once every metric's direction is known (a custom metric's ``lower_is_better``
    included): ``>=`` on a lower-is-better metric, or ``<=`` on a higher-is-better one,
    would gate the wrong side.

    Raises:
        ConfigError: Naming the metric, the setting and the metric's direction.
    """
    for metric, threshold in config.thresholds.items():
        if threshold is None:
            continue
        try:
            Bound.parse(metric, threshold, config.direction_of(metric))
        except ValueError as error:
            origin = (origins or {}).get("thresholds", "the settings")
            raise ConfigError(
                f"Invalid rag-gate configuration: setting 'thresholds' from {origin}: {error}"
            ) from None


def not_selected_message(metric: str, selected: Collection[str]) -> str:
    """Why a threshold on ``metric`` gates nothing, and how to make it gate.

    >>> print(not_selected_message("context_recall", ["faithfulness"]))
    a threshold for 'context_recall', which is not among the run's metrics (faithfulness): add it to metrics: (or --rag-gate-metrics faithfulness,context_recall), or remove the threshold
    """  # noqa: E501
    listed = ",".join([*selected, metric])
    return (
        f"a threshold for {metric!r}, which is not among the run's metrics "
        f"({', '.join(selected) or 'none'}): add it to metrics: (or --rag-gate-metrics "
        f"{listed}), or remove the threshold"
    )


def check_thresholds_selected(config: GateConfig, origins: Mapping[str, str] | None = None) -> None:
    """Every configured threshold must be on a metric the run computes.

    A threshold on a metric ``metrics:`` leaves out would be dropped without a word, and
    the run would pass on what the user did not ask to gate.

    Raises:
        ConfigError: Naming the metric, the setting and how to add the metric.

    Example:
        >>> check_thresholds_selected(
        ...     GateConfig(metrics=["faithfulness"], thresholds={"context_recall": 0.99}),
        ...     {"thresholds": "command line"},
        ... )
        Traceback (most recent call last):
        ...
        pytest_ragas_gate.exceptions.ConfigError: Invalid rag-gate configuration: setting 'thresholds' from command line: a threshold for 'context_recall', which is not among the run's metrics (faithfulness): add it to metrics: (or --rag-gate-metrics faithfulness,context_recall), or remove the threshold
    """  # noqa: E501
    if config.metrics is None:
        return
    named: dict[str, Iterable[str]] = {
        "thresholds": [name for name, value in config.thresholds.items() if value is not None],
        "tag_thresholds": [name for by_tag in config.tag_thresholds.values() for name in by_tag],
    }
    for setting, names in named.items():
        for name in names:
            if name not in config.metrics:
                origin = (origins or {}).get(setting, "the settings")
                raise ConfigError(
                    f"Invalid rag-gate configuration: setting {setting!r} from {origin}: "
                    + not_selected_message(name, config.metrics)
                )


def report_metric_names(metrics: Iterable[str], config: GateConfig) -> list[str]:
    """The metric names a config read beside a saved report may name.

    Those pytest knows without a conftest (built-ins and installed packages), the metrics
    the report holds (conftest metrics and oracle scores included), and those its own
    settings named when pytest accepted them.
    """
    names = [*MetricRegistry.installed().metrics, *metrics, *config.thresholds]
    names += [*(config.metrics or []), *config.rules]
    return list(dict.fromkeys(names))
