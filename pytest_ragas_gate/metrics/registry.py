"""The metric registry: the one path every metric of a run is registered through.

Built-in metrics, metrics of installed packages (the ``pytest_ragas_gate.metrics``
entry-point group) and metrics a ``conftest.py`` returns from the
``pytest_rag_gate_metrics`` hook all go through :meth:`MetricRegistry.register`. It
checks the object against the ``Metric`` protocol, refuses a name that is already taken,
and keeps registration order, which is the order of the summary. The scorer, the gate and
the reports then see plain ``Metric`` objects and never tell the kinds apart.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import cast

from ..exceptions import ConfigError
from ..golden.cases import GoldenCase
from .alignment import TopDocUsage
from .base import STAGES, Metric, MetricFacts, missing_fields
from .citations import CitationPrecision, CitationRecall
from .context import ContextPrecision, ContextRecall, ContextRelevance
from .conversation import KnowledgeRetention, TurnFaithfulnessMin
from .correctness import AnswerCorrectness
from .faithfulness import ContradictionRate, Faithfulness
from .relevancy import AnswerRelevancy, Embedder
from .retrieval_ids import IdPrecision, IdRecall, MeanReciprocalRank
from .tool_calls import MaxSteps, ToolCallPrecision, ToolCorrectness, ToolOrder
from .tool_selection import ToolSelection

__all__ = [
    "BUILTIN",
    "BUILTIN_FACTS",
    "BUILTIN_METRIC_NAMES",
    "ENTRY_POINT_GROUP",
    "HOOK",
    "Embedder",
    "MetricRegistry",
    "MetricSource",
    "applicable_metrics",
    "check_metric",
    "did_you_mean",
    "unknown_metric_error",
    "unknown_metric_message",
]

#: Built-in metrics in display order: generation first, then LLM-judged retrieval, then
#: id-based retrieval, then alignment, then the agent's tool choice and tool calls.
_BUILTIN_CLASSES: tuple[type[Metric], ...] = (
    Faithfulness,
    ContradictionRate,
    AnswerRelevancy,
    ContextPrecision,
    ContextRecall,
    AnswerCorrectness,
    ContextRelevance,
    IdRecall,
    IdPrecision,
    MeanReciprocalRank,
    TopDocUsage,
    CitationPrecision,
    CitationRecall,
    KnowledgeRetention,
    TurnFaithfulnessMin,
    ToolSelection,
    ToolCorrectness,
    ToolOrder,
    ToolCallPrecision,
    MaxSteps,
)

#: Every table of built-in metrics (default thresholds, directions, hints, stages) is
#: built from these, so a fact about a metric is written once, on its class.
BUILTIN_FACTS: dict[str, MetricFacts] = {
    facts.name: facts for facts in map(MetricFacts.of, _BUILTIN_CLASSES)
}

BUILTIN_METRIC_NAMES: tuple[str, ...] = tuple(BUILTIN_FACTS)

#: Third-party packages register metrics under this entry-point group.
ENTRY_POINT_GROUP = "pytest_ragas_gate.metrics"

#: ``live.oracle: both`` names each metric's gold-context score ``oracle_<metric>``; a
#: metric of such a name would be silently replaced by it (oracle.ORACLE_PREFIX).
RESERVED_PREFIX = "oracle_"

#: The protocol's attributes, as a message about a missing one names them.
_PROTOCOL_ATTRIBUTES: dict[str, str] = {
    "name": "name",
    "required_fields": "required_fields",
    "default_threshold": "default_threshold",
    "score": "score(case, judge)",
}


@dataclass(frozen=True)
class MetricSource:
    """Where a metric came from, as error messages name it.

    Attributes:
        description: The source as the subject of a sentence, without its capital, e.g.
            ``entry point 'x = pkg:Metric' in group 'pytest_ragas_gate.metrics'``.
        remedy: What the user does about a name clash from this source.
        builtin: Whether this is pytest-ragas-gate's own set of metrics.
    """

    description: str
    remedy: str = "give the metric a name of its own"
    builtin: bool = False

    @classmethod
    def entry_point(cls, entry_point: EntryPoint) -> MetricSource:
        """The source of a metric an installed package registers."""
        return cls(
            description=(
                f"entry point {entry_point.name + ' = ' + entry_point.value!r} "
                f"in group {ENTRY_POINT_GROUP!r}"
            ),
            remedy="give the metric a name of its own, or uninstall the package that provides it",
        )

    @property
    def sentence_start(self) -> str:
        """The description with a capital, to open an error message."""
        return self.description[:1].upper() + self.description[1:]

    @property
    def holder(self) -> str:
        """How a clash message names a metric already registered from here."""
        return "a built-in metric" if self.builtin else f"a metric from {self.description}"


#: pytest-ragas-gate's own metrics.
BUILTIN = MetricSource(description="pytest-ragas-gate", builtin=True)
#: A ``conftest.py``'s ``pytest_rag_gate_metrics`` hook.
HOOK = MetricSource(description="the pytest_rag_gate_metrics hook")
#: Installed packages, when only the metrics they gave are known (not which entry point).
INSTALLED = MetricSource(
    description=f"an installed package (entry-point group {ENTRY_POINT_GROUP!r})"
)


class MetricRegistry:
    """The metrics of a run, checked and keyed by name, in registration order.

    >>> registry = MetricRegistry()
    >>> registry.register_builtins()
    >>> list(registry.metrics)[:2]
    ['faithfulness', 'contradiction_rate']
    >>> registry.register(Faithfulness(), HOOK)
    Traceback (most recent call last):
    ...
    pytest_ragas_gate.exceptions.ConfigError: The pytest_rag_gate_metrics hook gave metric 'faithfulness', but a built-in metric of that name is already registered; give the metric a name of its own.
    """  # noqa: E501

    def __init__(self) -> None:
        """Start empty; register built-ins first so that they lead the summary."""
        self._metrics: dict[str, Metric] = {}
        self._sources: dict[str, MetricSource] = {}

    @classmethod
    def installed(
        cls,
        *,
        answer_relevancy_strategy: str = "judge",
        embedder: Embedder | None = None,
        citation_pattern: str | None = None,
    ) -> MetricRegistry:
        """The built-in metrics, then those of installed packages.

        Args:
            answer_relevancy_strategy: ``judge`` or ``reverse_questions``.
            embedder: The embedder ``reverse_questions`` needs.
            citation_pattern: The citation-marker regex (None: the default markers).

        Returns:
            The registry.

        Raises:
            ConfigError: On a bad relevancy strategy, or a bad or clashing entry point.
        """
        registry = cls()
        registry.register_builtins(
            answer_relevancy_strategy=answer_relevancy_strategy,
            embedder=embedder,
            citation_pattern=citation_pattern,
        )
        registry.register_entry_points()
        return registry

    @classmethod
    def of(cls, metrics: Mapping[str, Metric]) -> MetricRegistry:
        """A registry holding ``metrics``, e.g. the result of an earlier ``installed()``.

        A built-in name keeps its built-in source; any other metric is taken to come from
        an installed package.
        """
        registry = cls()
        for name, metric in metrics.items():
            registry.register(metric, BUILTIN if name in BUILTIN_METRIC_NAMES else INSTALLED)
        return registry

    @property
    def metrics(self) -> dict[str, Metric]:
        """A copy of the registered metrics, keyed by name, in registration order."""
        return dict(self._metrics)

    def register(self, candidate: object, source: MetricSource) -> Metric:
        """Check ``candidate`` and add it under its name.

        Args:
            candidate: The object offered as a metric.
            source: Where it came from, for error messages.

        Returns:
            The metric.

        Raises:
            ConfigError: When ``candidate`` is not a metric (see :func:`check_metric`) or
                its name is already registered.
        """
        metric = check_metric(candidate, source)
        taken_by = self._sources.get(metric.name)
        if taken_by is not None:
            raise ConfigError(
                f"{source.sentence_start} gave metric {metric.name!r}, but {taken_by.holder} "
                f"of that name is already registered; {source.remedy}."
            )
        self._metrics[metric.name] = metric
        self._sources[metric.name] = source
        return metric

    def register_all(self, returned: object, source: MetricSource) -> None:
        """Register each metric of a list a hook returned; None registers nothing.

        Raises:
            ConfigError: When ``returned`` is not a list of metrics, or as ``register``.
        """
        if returned is None:
            return
        if isinstance(returned, (str, bytes, Mapping)) or not isinstance(returned, Iterable):
            raise ConfigError(
                f"{source.sentence_start} returned a {type(returned).__name__}; return a list "
                "of metrics."
            )
        for candidate in returned:
            self.register(candidate, source)

    def register_builtins(
        self,
        *,
        answer_relevancy_strategy: str = "judge",
        embedder: Embedder | None = None,
        citation_pattern: str | None = None,
    ) -> None:
        """Register fresh instances of every built-in metric, in display order.

        Args:
            answer_relevancy_strategy: ``judge`` or ``reverse_questions``.
            embedder: The embedder ``reverse_questions`` needs.
            citation_pattern: The citation-marker regex (None: the default markers).

        Raises:
            ConfigError: When the answer relevancy strategy is unknown or lacks an embedder.
        """
        for metric_class in _BUILTIN_CLASSES:
            metric: Metric
            if metric_class is AnswerRelevancy:
                metric = AnswerRelevancy(strategy=answer_relevancy_strategy, embedder=embedder)
            elif metric_class in (CitationPrecision, CitationRecall):
                try:
                    metric = metric_class(citation_pattern)
                except ValueError as error:
                    raise ConfigError(str(error)) from error
            else:
                metric = metric_class()
            self.register(metric, BUILTIN)

    def register_entry_points(self) -> None:
        """Register the metrics installed packages provide under ``ENTRY_POINT_GROUP``.

        An entry point may name a ``Metric`` instance, a ``Metric`` class whose constructor
        takes no arguments, or a zero-argument factory returning a ``Metric``. They are
        registered in entry-point name order, so the summary's order does not depend on
        the order packages were installed in.

        Raises:
            ConfigError: When an entry point fails to load, or as ``register``.
        """
        for entry_point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name):
            source = MetricSource.entry_point(entry_point)
            self.register(_load_entry_point(entry_point, source), source)


def _load_entry_point(entry_point: EntryPoint, source: MetricSource) -> object:
    """The entry point's object, with a class or factory called to make the metric."""
    try:
        target = entry_point.load()
        # A class is checked before the attribute test because a Metric class carries the
        # protocol's attributes itself and would pass it.
        if isinstance(target, type) or _missing_attributes(target):
            target = target() if callable(target) else target
    except Exception as error:
        raise ConfigError(
            f"{source.sentence_start} could not be loaded ({type(error).__name__}: {error}); "
            "fix or uninstall the package that provides it."
        ) from error
    return target


def check_metric(candidate: object, source: MetricSource) -> Metric:
    """``candidate`` as a metric, or a ``ConfigError`` naming ``source`` and what is wrong.

    Args:
        candidate: The object offered as a metric.
        source: Where it came from, for the message.

    Returns:
        The metric.

    Raises:
        ConfigError: When it lacks a non-empty name, ``required_fields`` as strings, a
            ``default_threshold`` from 0 to 1 (or None), or an async ``score``, or
            declares a ``lower_is_better``, ``stage`` or ``hint`` of the wrong kind.

    >>> class Sync:
    ...     name, required_fields, default_threshold = "sync", ("answer",), None
    ...     def score(self, case, judge): ...
    >>> check_metric(Sync, HOOK)
    Traceback (most recent call last):
    ...
    pytest_ragas_gate.exceptions.ConfigError: The pytest_rag_gate_metrics hook gave <class 'pytest_ragas_gate.metrics.registry.Sync'>, which is not a metric: it is a class; return an instance. See the Metric protocol (pytest_ragas_gate.Metric).
    >>> check_metric(Sync(), HOOK)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pytest_ragas_gate.exceptions.ConfigError: The pytest_rag_gate_metrics hook gave <pytest_ragas_gate.metrics.registry.Sync object at ...>, which is not a metric: its score(case, judge) must be an async method. See the Metric protocol (pytest_ragas_gate.Metric).
    """  # noqa: E501
    problems = _protocol_problems(candidate)
    if problems:
        raise ConfigError(
            f"{source.sentence_start} gave {candidate!r}, which is not a metric: "
            f"{'; '.join(problems)}. See the Metric protocol (pytest_ragas_gate.Metric)."
        )
    # The facts with defaults (direction, stage, hint) are not required, so the protocol's
    # runtime check, which asks for every attribute, would refuse a metric that is fine.
    return cast(Metric, candidate)


def _missing_attributes(candidate: object) -> list[str]:
    """The required protocol attributes ``candidate`` lacks, as a message names them."""
    return [shown for name, shown in _PROTOCOL_ATTRIBUTES.items() if not hasattr(candidate, name)]


def _protocol_problems(candidate: object) -> list[str]:
    """What keeps ``candidate`` from being a metric, one phrase each; empty when it is one."""
    if isinstance(candidate, type):
        return ["it is a class; return an instance"]
    missing = _missing_attributes(candidate)
    if missing:
        return [f"it has no {', '.join(missing)}"]
    candidate = cast(Metric, candidate)
    problems: list[str] = []
    name = candidate.name
    if not isinstance(name, str) or not name.strip():
        problems.append("its name must be a non-empty string")
    elif name.startswith(RESERVED_PREFIX):
        problems.append(
            f"its name starts with {RESERVED_PREFIX!r}, which is reserved for the gold-context "
            "scores of live.oracle: both; give it another name"
        )
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
    if not isinstance(getattr(candidate, "lower_is_better", False), bool):
        problems.append("its lower_is_better must be True or False")
    if getattr(candidate, "stage", Metric.stage) not in STAGES:
        problems.append(f"its stage must be one of {', '.join(STAGES)}")
    if not isinstance(getattr(candidate, "hint", ""), str):
        problems.append("its hint must be a string")
    if not inspect.iscoroutinefunction(candidate.score):
        problems.append("its score(case, judge) must be an async method")
    return problems


def applicable_metrics(case: GoldenCase, metrics: Mapping[str, Metric]) -> list[str]:
    """The names, in ``metrics`` order, of the metrics whose required fields ``case`` has.

    Args:
        case: A golden case (with its answer and contexts filled in, in live mode).
        metrics: The selected metrics.

    Returns:
        The applicable metric names.
    """
    return [name for name, metric in metrics.items() if not missing_fields(metric, case)]


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``; did you mean 'x'?`` naming the known name closest to ``name``, else empty.

    >>> did_you_mean("faithfulnes", ["faithfulness", "mrr"]), did_you_mean("bleu", ["mrr"])
    ("; did you mean 'faithfulness'?", '')
    """
    matches = difflib.get_close_matches(name, list(known), n=1)
    return f"; did you mean {matches[0]!r}?" if matches else ""


def unknown_metric_message(name: str, known: Iterable[str]) -> str:
    """What every check says of a metric name nobody registered.

    Args:
        name: The name the user gave.
        known: Every registered metric name, in the order to list them.

    Returns:
        The message, suggesting the closest known name, else listing them all.

    >>> print(unknown_metric_message("faithfulnes", ["faithfulness", "mrr"]))
    unknown metric 'faithfulnes'; did you mean 'faithfulness'?
    >>> print(unknown_metric_message("bleu", ["faithfulness", "mrr"]))
    unknown metric 'bleu'; known metrics: faithfulness, mrr
    """
    known_names = list(known)
    suggestion = did_you_mean(name, known_names)
    return f"unknown metric {name!r}" + (suggestion or f"; known metrics: {', '.join(known_names)}")


def unknown_metric_error(name: str, known: Iterable[str]) -> ConfigError:
    """The error for a metric name nobody registered (see :func:`unknown_metric_message`)."""
    return ConfigError(unknown_metric_message(name, known))
