"""The checks a loaded config passes beyond its types, shared by pytest and ``rag-gate``.

A threshold, rule or selection for a metric nobody registered is a typo, and a typo in a
threshold silently leaves the real metric at its default. ``pytest --rag-gate`` and every
``rag-gate`` command that reads a config file refuse it with the same message (exit 4).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from ..exceptions import ConfigError
from ..metrics.registry import MetricRegistry, unknown_metric_error
from .config import GateConfig

__all__ = ["check_metric_names", "report_metric_names"]


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


def report_metric_names(metrics: Iterable[str], config: GateConfig) -> list[str]:
    """The metric names a config read beside a saved report may name.

    Those pytest knows without a conftest (built-ins and installed packages), the metrics
    the report holds (conftest metrics and oracle scores included), and those its own
    settings named when pytest accepted them.
    """
    names = [*MetricRegistry.installed().metrics, *metrics, *config.thresholds]
    names += [*(config.metrics or []), *config.rules]
    return list(dict.fromkeys(names))
