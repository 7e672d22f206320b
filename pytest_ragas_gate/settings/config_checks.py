"""The checks a loaded config passes beyond its types, shared by pytest and ``rag-gate``.

A threshold, rule, coverage floor, direction or selection for a metric nobody registered
is a typo, and a typo there silently leaves the real metric at its default. ``pytest
--rag-gate`` and every ``rag-gate`` command that reads a config file refuse it with the
same message (exit 4).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from ..exceptions import ConfigError
from ..judges.registry import AUTO, unknown_judge_message
from ..metrics.registry import MetricRegistry, unknown_metric_message
from .bounds import Bound
from .config import GateConfig
from .config_sections import public_key
from .config_sources import SettingSources
from .metric_keys import metric_keyed_settings

__all__ = [
    "check_judge_kind",
    "check_metric_names",
    "check_report_metric_names",
    "check_threshold_directions",
    "check_thresholds_selected",
    "not_selected_message",
    "report_metric_names",
]


def check_judge_kind(config: GateConfig, known: Collection[str], sources: Sources = None) -> None:
    """The judge named in the settings must be ``auto`` or one of ``known``.

    Raises:
        ConfigError: Naming the setting, its source, every known kind and the closest one.
    """
    if config.judge == AUTO or config.judge in known:
        return
    raise ConfigError(
        f"Invalid rag-gate configuration: setting {public_key('judge')!r} from "
        f"{_where(sources, 'judge')}: {unknown_judge_message(config.judge, known)}."
    )


#: Where settings came from: the loader's sources, or one source per setting.
Sources = SettingSources | Mapping[str, str] | None


def _where(sources: Sources, setting: str, path: Sequence[str] = ()) -> str:
    if isinstance(sources, SettingSources):
        return sources.where(setting, path)
    return (sources or {}).get(setting, "the settings")


def check_metric_names(config: GateConfig, known: Collection[str], sources: Sources = None) -> None:
    """Every metric named in the settings must be one of ``known``.

    Every setting marked as naming metrics (:mod:`.metric_keys`) is read, and every
    unknown name is named at once, each with its source (``rag_gate.yaml:3``).

    Args:
        config: The settings.
        known: Every metric name the run (or the report) knows.
        sources: Where each setting came from (``LoadedConfig.sources``), to name the file.

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
    _refuse_unknown_metrics(config, known, sources)
    check_thresholds_selected(config, sources)
    check_threshold_directions(config, sources)


def _refuse_unknown_metrics(config: GateConfig, known: Collection[str], sources: Sources) -> None:
    problems = []
    for setting, marker in metric_keyed_settings(GateConfig).items():
        for path, name in marker.names(getattr(config, setting)):
            if name not in known:
                problems.append(
                    f"setting {public_key(setting)!r} from {_where(sources, setting, path)}: "
                    f"{unknown_metric_message(name, known)}"
                )
    if problems:
        raise ConfigError("Invalid rag-gate configuration: " + "; ".join(problems))


def check_report_metric_names(config: GateConfig, metrics: Iterable[str], report: str) -> None:
    """Every metric a saved report's own ``config`` names is one the report can know.

    A report is re-gated on its ``config``, so a typo there (``min_coverage:
    {faithfulnes: 1.0}``) would leave the real metric at its default as silently as in a
    config file. Only names are checked: the rest was checked when the run wrote it.

    Args:
        config: The report's ``config``.
        metrics: The metrics the report holds.
        report: The report as the user named it, to say where the setting is.

    Raises:
        ConfigError: Naming the report, the setting and the closest known metric.

    Example:
        >>> check_report_metric_names(
        ...     GateConfig(lower_is_better=["faithfulnes"]), ["faithfulness"], "run.json"
        ... )
        Traceback (most recent call last):
        ...
        pytest_ragas_gate.exceptions.ConfigError: Invalid rag-gate configuration: setting 'lower_is_better' from run.json (config.lower_is_better): unknown metric 'faithfulnes'; did you mean 'faithfulness'?
    """  # noqa: E501
    known = [*MetricRegistry.installed().metrics, *metrics]
    sources = {
        setting: f"{report} (config.{setting})" for setting in metric_keyed_settings(GateConfig)
    }
    _refuse_unknown_metrics(config, list(dict.fromkeys(known)), sources)


def check_threshold_directions(config: GateConfig, sources: Sources = None) -> None:
    """Every threshold's operator agrees with its metric's direction.

    Run once every metric's direction is known (a custom metric's ``lower_is_better``
    included): ``>=`` on a lower-is-better metric, or ``<=`` on a higher-is-better one,
    would gate the wrong side.

    Raises:
        ConfigError: Naming the metric, where its threshold was given and the metric's
            direction.
    """
    for metric, threshold in config.thresholds.items():
        if threshold is None:
            continue
        try:
            Bound.parse(metric, threshold, config.direction_of(metric))
        except ValueError as error:
            origin = _where(sources, "thresholds", (metric,))
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


def check_thresholds_selected(config: GateConfig, sources: Sources = None) -> None:
    """Every configured threshold must be on a metric the run computes.

    A threshold on a metric ``metrics:`` leaves out would be dropped without a word, and
    the run would pass on what the user did not ask to gate. Every such threshold is
    named at once, each with its source.

    Raises:
        ConfigError: Naming the metrics, the settings and how to add the metrics.

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
    named: list[tuple[str, tuple[str, ...], str]] = [
        ("thresholds", (name,), name)
        for name, value in config.thresholds.items()
        if value is not None
    ]
    named += [
        ("tag_thresholds", (tag, name), name)
        for tag, by_tag in config.tag_thresholds.items()
        for name in by_tag
    ]
    outside = [entry for entry in named if entry[2] not in config.metrics]
    if not outside:
        return
    if len(outside) == 1:
        setting, path, name = outside[0]
        raise ConfigError(
            f"Invalid rag-gate configuration: setting {setting!r} from "
            f"{_where(sources, setting, path)}: " + not_selected_message(name, config.metrics)
        )
    metrics = list(dict.fromkeys(name for _, _, name in outside))
    listed = ",".join([*config.metrics, *metrics])
    each = ", ".join(
        f"{name!r} (setting {setting!r} from {_where(sources, setting, path)})"
        for setting, path, name in outside
    )
    raise ConfigError(
        f"Invalid rag-gate configuration: thresholds on {len(metrics)} metrics not among the "
        f"run's metrics ({', '.join(config.metrics) or 'none'}): {each}: add them to metrics: "
        f"(or --rag-gate-metrics {listed}), or remove the thresholds"
    )


def report_metric_names(metrics: Iterable[str], config: GateConfig) -> list[str]:
    """The metric names a config read beside a saved report may name.

    Those pytest knows without a conftest (built-ins and installed packages), the metrics
    the report holds (conftest metrics and oracle scores included), and those its own
    settings named when pytest accepted them.
    """
    names = [*MetricRegistry.installed().metrics, *metrics]
    for setting, marker in metric_keyed_settings(GateConfig).items():
        names += [name for _, name in marker.names(getattr(config, setting))]
    return list(dict.fromkeys(names))
