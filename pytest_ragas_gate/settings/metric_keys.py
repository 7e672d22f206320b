"""Which settings name metrics, and where in their value the names are.

A setting that holds metric names (``thresholds``, ``min_coverage``, ``lower_is_better``,
``tag_thresholds`` …) says so on its field in :class:`~.config.GateConfig`, with one of the
markers below in its ``Annotated`` type. The check of metric names
(:func:`~.config_checks.check_metric_names`) reads the markers, so a setting added later
is checked by being marked, not by a second list to keep in step; a test holds every
mapping or list setting to be either marked or named in :data:`NOT_METRIC_KEYED`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

__all__ = [
    "METRIC_ITEMS",
    "METRIC_KEYS",
    "NOT_METRIC_KEYED",
    "TAG_METRIC_KEYS",
    "MetricKeyed",
    "metric_keyed_settings",
]

#: The mapping and list settings whose names are not metrics: model names, globs.
NOT_METRIC_KEYED: frozenset[str] = frozenset({"prices", "case_files", "exclude"})


@dataclass(frozen=True)
class MetricKeyed:
    """The marker of a setting that names metrics.

    Attributes:
        where: ``items`` (a list of names), ``keys`` (a mapping keyed by metric) or
            ``inner_keys`` (a mapping of mappings keyed by metric, as per tag).
        reserved: Keys that are not metrics (``default`` of ``min_coverage``).
    """

    where: Literal["items", "keys", "inner_keys"]
    reserved: tuple[str, ...] = ()

    def names(self, value: Any) -> list[tuple[tuple[str, ...], str]]:
        """Each metric the value names, with its path inside the setting.

        >>> METRIC_KEYS.names({"faithfulness": 0.9}), TAG_METRIC_KEYS.names({"zh": {"mrr": 1}})
        ([(('faithfulness',), 'faithfulness')], [(('zh', 'mrr'), 'mrr')])
        >>> MetricKeyed("keys", reserved=("default",)).names(0.9)
        []
        """
        if self.where == "items":
            items = value if isinstance(value, list) else []
            return [((str(name),), str(name)) for name in items]
        if not isinstance(value, Mapping):
            return []
        if self.where == "keys":
            return [((str(key),), str(key)) for key in value if key not in self.reserved]
        return [
            ((str(outer), str(key)), str(key))
            for outer, inner in value.items()
            if isinstance(inner, Mapping)
            for key in inner
            if key not in self.reserved
        ]


#: A list of metric names (``metrics``, ``lower_is_better``).
METRIC_ITEMS = MetricKeyed("items")
#: A mapping keyed by metric (``thresholds``, ``rules``, ``min_agreement``).
METRIC_KEYS = MetricKeyed("keys")
#: A mapping of tags, each a mapping keyed by metric (``tag_thresholds``).
TAG_METRIC_KEYS = MetricKeyed("inner_keys")


def metric_keyed_settings(model: type[BaseModel]) -> dict[str, MetricKeyed]:
    """The settings of ``model`` that name metrics, with their markers, in field order."""
    marked: dict[str, MetricKeyed] = {}
    for name, field in model.model_fields.items():
        for marker in field.metadata:
            if isinstance(marker, MetricKeyed):
                marked[name] = marker
    return marked
