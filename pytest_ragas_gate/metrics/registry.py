"""The metric registry: built-in metrics and third-party ones from an entry-point group.

Both kinds are plain ``Metric`` objects keyed by name, so the scorer, the gate and the
reports never tell them apart.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Iterable, Mapping
from importlib.metadata import EntryPoint, entry_points

from ..cases import GoldenCase
from ..exceptions import ConfigError
from .alignment import TopDocUsage
from .base import Metric
from .context import ContextPrecision, ContextRecall, ContextRelevance
from .correctness import AnswerCorrectness
from .faithfulness import Faithfulness
from .relevancy import AnswerRelevancy, Embedder
from .retrieval_ids import IdPrecision, IdRecall, MeanReciprocalRank

__all__ = [
    "BUILTIN_METRIC_NAMES",
    "ENTRY_POINT_GROUP",
    "Embedder",
    "applicable_metrics",
    "builtin_metrics",
    "load_entry_point_metrics",
    "unknown_metric_error",
]

#: Built-in metrics in display order: generation first, then LLM-judged retrieval, then
#: id-based retrieval, then alignment.
BUILTIN_METRIC_NAMES: tuple[str, ...] = (
    "faithfulness",
    "answer_relevancy",
    "context_precision",
    "context_recall",
    "answer_correctness",
    "context_relevance",
    "id_recall",
    "id_precision",
    "mrr",
    "top_doc_usage",
)

#: Third-party packages register metrics under this entry-point group.
ENTRY_POINT_GROUP = "pytest_ragas_gate.metrics"


def builtin_metrics(
    *, answer_relevancy_strategy: str = "judge", embedder: Embedder | None = None
) -> dict[str, Metric]:
    """Fresh instances of every built-in metric, keyed by name in display order.

    Args:
        answer_relevancy_strategy: ``judge`` or ``reverse_questions``.
        embedder: The embedder ``reverse_questions`` needs.

    Returns:
        The metrics, keyed by ``BUILTIN_METRIC_NAMES``.

    Raises:
        ConfigError: When the answer relevancy strategy is unknown or lacks an embedder.
    """
    metrics: list[Metric] = [
        Faithfulness(),
        AnswerRelevancy(strategy=answer_relevancy_strategy, embedder=embedder),
        ContextPrecision(),
        ContextRecall(),
        AnswerCorrectness(),
        ContextRelevance(),
        IdRecall(),
        IdPrecision(),
        MeanReciprocalRank(),
        TopDocUsage(),
    ]
    by_name = {metric.name: metric for metric in metrics}
    return {name: by_name[name] for name in BUILTIN_METRIC_NAMES}


def load_entry_point_metrics() -> dict[str, Metric]:
    """Load the metrics that installed packages register under ``ENTRY_POINT_GROUP``.

    An entry point may name a ``Metric`` instance, a ``Metric`` class whose constructor
    takes no arguments, or a zero-argument factory returning a ``Metric``.

    Returns:
        The metrics keyed by their ``name``, ordered by entry-point name.

    Raises:
        ConfigError: When an entry point fails to load, is not a metric, reuses a built-in
            metric's name, or provides the same name as another entry point.
    """
    loaded: dict[str, Metric] = {}
    providers: dict[str, str] = {}
    for entry_point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name):
        metric = _metric_from_entry_point(entry_point)
        origin = f"{entry_point.name} = {entry_point.value}"
        if metric.name in BUILTIN_METRIC_NAMES:
            raise ConfigError(
                f"Entry point {origin!r} in group {ENTRY_POINT_GROUP!r} provides metric "
                f"{metric.name!r}, which is a built-in metric's name; give the metric a "
                "name of its own."
            )
        if metric.name in providers:
            raise ConfigError(
                f"Entry points {providers[metric.name]!r} and {origin!r} in group "
                f"{ENTRY_POINT_GROUP!r} both provide metric {metric.name!r}; uninstall one "
                "of the packages or rename one of the metrics."
            )
        providers[metric.name] = origin
        loaded[metric.name] = metric
    return loaded


def _metric_from_entry_point(entry_point: EntryPoint) -> Metric:
    origin = f"{entry_point.name} = {entry_point.value}"
    try:
        target = entry_point.load()
        # A class is checked before the instance test because a Metric class carries the
        # protocol's attributes itself and would pass it.
        if isinstance(target, type) or not isinstance(target, Metric):
            target = target() if callable(target) else target
    except Exception as error:
        raise ConfigError(
            f"Entry point {origin!r} in group {ENTRY_POINT_GROUP!r} could not be loaded "
            f"({type(error).__name__}: {error}); fix or uninstall the package that "
            "provides it."
        ) from error
    if (
        isinstance(target, type)
        or not isinstance(target, Metric)
        or not isinstance(target.name, str)
        or not target.name
        or not inspect.iscoroutinefunction(target.score)
    ):
        raise ConfigError(
            f"Entry point {origin!r} in group {ENTRY_POINT_GROUP!r} gave {target!r}, which "
            "is not a metric; it must name a Metric instance, a Metric class with a "
            "no-argument constructor, or a factory returning one (a non-empty name, "
            "required_fields, default_threshold and an async score(case, judge))."
        )
    return target


def applicable_metrics(case: GoldenCase, metrics: Mapping[str, Metric]) -> list[str]:
    """The names, in ``metrics`` order, of the metrics whose required fields ``case`` has.

    Args:
        case: A golden case (with its answer and contexts filled in, in live mode).
        metrics: The selected metrics.

    Returns:
        The applicable metric names.
    """
    return [
        name
        for name, metric in metrics.items()
        if all(case.has(field) for field in metric.required_fields)
    ]


def unknown_metric_error(name: str, known: Iterable[str]) -> ConfigError:
    """The error for a metric name nobody registered, suggesting the closest known one.

    Args:
        name: The name the user gave.
        known: Every registered metric name.

    Returns:
        The error to raise.

    >>> print(unknown_metric_error("faithfulnes", ["faithfulness", "mrr"]))
    unknown metric 'faithfulnes'; did you mean 'faithfulness'?
    >>> print(unknown_metric_error("bleu", ["faithfulness", "mrr"]))
    unknown metric 'bleu'; known metrics: faithfulness, mrr
    """
    known_names = list(known)
    matches = difflib.get_close_matches(name, known_names, n=1)
    if matches:
        return ConfigError(f"unknown metric {name!r}; did you mean {matches[0]!r}?")
    return ConfigError(f"unknown metric {name!r}; known metrics: {', '.join(known_names)}")
