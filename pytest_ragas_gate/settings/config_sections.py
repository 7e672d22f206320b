"""The config file's sections (``judge:``, ``cache:``, ``outputs:``, ...) and their settings.

``rag_gate.yaml``, ``[tool.rag_gate]`` and ``--rag-gate-set KEY=VALUE`` are written in
sections, one top-level key per concept; the gate keeps one flat model of its settings
(``GateConfig``). ``SECTIONED`` is the one table between the two: a setting added to the
model lands in the file with one line here. The flat spellings of earlier releases are
still read, each with a warning that prints its new spelling, so no team's file stops
being read without a word; they go in ``REMOVED_IN``.

Standard library only: the plugin's option parsers use this module on every pytest run.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "OUTPUT_KINDS",
    "REMOVED_IN",
    "SECTIONED",
    "SectionError",
    "Translated",
    "dotted_layer",
    "public_key",
    "public_keys",
    "translate",
]

#: The release in which the flat keys, old option spellings and old command names go.
REMOVED_IN = "0.3.0"

#: Sectioned key (a path of names) to the internal setting it is. A path whose setting is
#: a mapping (``thresholds``, ``judge.budget.prices``) takes the whole mapping.
SECTIONED: dict[tuple[str, ...], str] = {
    # what is judged, and how it is gated
    ("metrics",): "metrics",
    ("thresholds",): "thresholds",
    ("tag_thresholds",): "tag_thresholds",
    ("rules",): "rules",
    ("max_error_rate",): "max_error_rate",
    ("min_cases",): "min_cases",
    ("min_coverage",): "min_coverage",
    ("lower_is_better",): "lower_is_better",
    ("pairwise",): "pairwise",
    ("pairwise_max_loss_rate",): "pairwise_max_loss_rate",
    ("pairwise_min_consistency",): "pairwise_min_consistency",
    ("statistics", "confidence"): "confidence",
    ("statistics", "bootstrap_resamples"): "bootstrap_resamples",
    ("statistics", "seed"): "seed",
    # the golden files
    ("golden", "files"): "case_files",
    ("golden", "exclude"): "exclude",
    ("golden", "strict_fields"): "strict_fields",
    # the judge
    ("judge", "provider"): "judge",
    ("judge", "model"): "model",
    ("judge", "embedding_model"): "embedding_model",
    ("judge", "structured_output"): "structured_output",
    ("judge", "concurrency"): "concurrency",
    ("judge", "requests_per_minute"): "requests_per_minute",
    ("judge", "timeout_s"): "timeout_s",
    ("judge", "max_retries"): "max_retries",
    ("judge", "retry_backoff_s"): "retry_backoff_s",
    ("judge", "max_reasks"): "max_reasks",
    ("judge", "batch"): "batch",
    ("judge", "batch_poll_s"): "batch_poll_s",
    ("judge", "repeats"): "repeats",
    ("judge", "budget", "max_calls"): "max_calls",
    ("judge", "budget", "max_cost"): "max_cost",
    ("judge", "budget", "prices"): "prices",
    # how some metrics read an answer
    ("metric_options", "answer_relevancy_strategy"): "answer_relevancy_strategy",
    ("metric_options", "citation_pattern"): "citation_pattern",
    # the judge cache
    ("cache", "mode"): "cache",
    ("cache", "dir"): "cache_dir",
    ("cache", "public_key"): "cache_public_key",
    # files the run writes
    ("outputs", "json"): "report",
    ("outputs", "details"): "report_details",
    ("outputs", "junit"): "junit",
    ("outputs", "html"): "html",
    ("outputs", "markdown"): "markdown",
    ("outputs", "history"): "history",
    ("outputs", "otel"): "otel",
    # the previous run compared with
    ("baseline", "path"): "baseline",
    ("baseline", "max_regression"): "max_regression",
    ("baseline", "min_paired"): "min_paired",
    ("baseline", "allow_judge_change"): "allow_judge_change",
    # how far the judge is trusted
    ("trust", "labels"): "labels",
    ("trust", "strict_labels"): "strict_labels",
    ("trust", "agreement", "human"): "min_agreement",
    ("trust", "agreement", "self"): "min_judge_agreement",
    ("trust", "ppi", "min_labels"): "ppi_min_labels",
    ("trust", "ppi", "power_tuning"): "ppi_power_tuning",
    # live mode
    ("live", "target"): "target",
    ("live", "timeout"): "target_timeout",
    ("live", "latency"): "latency",
    ("live", "oracle"): "oracle",
    ("live", "corpus"): "corpus",
}

#: ``--rag-gate-output KIND=PATH``: every file kind under ``outputs:`` but the JSON details.
OUTPUT_KINDS: tuple[str, ...] = tuple(
    path[1] for path in SECTIONED if path[0] == "outputs" and path[1] != "details"
)

#: Internal settings written differently in a file: ``rules:`` also holds the default rule.
_RULE_DEFAULT = "default"


class SectionError(ValueError):
    """A key the sections do not have, or a value of the wrong shape for its place."""


#: Names the place of a key path in its source (``rag_gate.yaml:3``).
PathNamer = Callable[[tuple[str, ...]], str]


@dataclass
class _Placed:
    """The settings of one layer so far, and the key path each was written under."""

    origin: str
    where: PathNamer
    settings: dict[str, Any] = field(default_factory=dict)
    spelled: dict[str, tuple[str, ...]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def put(self, internal: str, value: Any, path: tuple[str, ...]) -> None:
        """Set ``internal``; the same setting already written another way must agree."""
        earlier = self.spelled.get(internal)
        if earlier is not None and earlier != path and self.settings[internal] != value:
            first, second = ".".join(earlier), ".".join(path)
            raise SectionError(
                f"{first!r} ({self.where(earlier)}) and {second!r} ({self.where(path)}) are "
                f"one setting with two values: {self.settings[internal]!r} and {value!r}; "
                f"keep one, written {public_key(internal)!r}"
            )
        self.settings[internal] = value
        self.spelled[internal] = path


@dataclass(frozen=True)
class Translated:
    """A layer of settings under internal names, and the old spellings it used."""

    settings: dict[str, Any]
    warnings: tuple[str, ...]


def public_key(internal: str) -> str:
    """The dotted sectioned key of an internal setting name.

    >>> public_key("cache_dir"), public_key("rule")
    ('cache.dir', 'rules.default')
    """
    if internal == "rule":
        return f"rules.{_RULE_DEFAULT}"
    return _PUBLIC.get(internal, internal)


def public_keys() -> list[str]:
    """Every dotted key, in the order of ``SECTIONED``."""
    return [".".join(path) for path in SECTIONED]


_PUBLIC: dict[str, str] = {internal: ".".join(path) for path, internal in SECTIONED.items()}
_INTERNAL_NAMES = frozenset([*SECTIONED.values(), "rule"])
# Prefixes of sectioned paths: the sections and subsections a mapping may open.
_SECTIONS = frozenset(path[:depth] for path in SECTIONED for depth in range(1, len(path)))


def _nearest(key: str) -> str:
    close = difflib.get_close_matches(key, public_keys(), n=1, cutoff=0.6)
    if close:
        return f"; did you mean {close[0]!r}?"
    leaf = key.rsplit(".", 1)[-1]
    by_leaf = [name for name in public_keys() if name.rsplit(".", 1)[-1] == leaf]
    if by_leaf:
        return f"; did you mean {by_leaf[0]!r}?"
    sections = sorted({path[0] for path in SECTIONED})
    return "; valid top-level keys: " + ", ".join(sections)


def translate(layer: Mapping[str, Any], origin: str, where: PathNamer | None = None) -> Translated:
    """Settings written in sections (or in the flat spelling of old) as internal names.

    >>> translated = translate({"judge": {"provider": "offline", "concurrency": 4}}, "f.yaml")
    >>> translated.settings, translated.warnings
    ({'judge': 'offline', 'concurrency': 4}, ())
    >>> translate({"cache_dir": ".c"}, "f.yaml").warnings[0]
    "f.yaml: 'cache_dir' is now written 'cache.dir' (the flat spelling is read until 0.3.0)"

    Args:
        layer: The settings as written.
        origin: The source, for messages.
        where: Names the place of a key path (its line); default: ``origin``.

    Raises:
        SectionError: An unknown key, named with the closest valid one, or one setting
            written in its old and its new spelling with two different values.
    """
    placed = _Placed(origin, where or (lambda _path: origin))
    for key, value in layer.items():
        _place((str(key),), value, placed)
    return Translated(placed.settings, tuple(placed.warnings))


def _place(path: tuple[str, ...], value: Any, placed: _Placed) -> None:
    origin = placed.origin
    internal = SECTIONED.get(path)
    if internal == "rules":
        _place_rules(value, placed)
        return
    if internal is not None:
        placed.put(internal, value, path)
        return
    if path in _SECTIONS and isinstance(value, Mapping):
        for key, inner in value.items():
            _place((*path, str(key)), inner, placed)
        return
    dotted = ".".join(path)
    if len(path) == 1 and dotted in _INTERNAL_NAMES:
        # A flat key of earlier releases (``judge: anthropic``, ``cache_dir: x``).
        new = public_key(dotted)
        placed.warnings.append(
            f"{origin}: {dotted!r} is now written {new!r} "
            f"(the flat spelling is read until {REMOVED_IN})"
        )
        placed.put(dotted, value, path)
        return
    if path in _SECTIONS:
        raise SectionError(
            f"{dotted!r} in {origin} is a section: it takes a mapping of "
            + ", ".join(sorted({".".join(p) for p in SECTIONED if p[: len(path)] == path}))
            + f", got {value!r}"
        )
    raise SectionError(f"Unknown setting {dotted!r} in {origin}{_nearest(dotted)}")


def _place_rules(value: Any, placed: _Placed) -> None:
    """``rules:`` is one rule for every metric, or per metric with ``default`` for the rest."""
    if isinstance(value, str):
        placed.put("rule", value, ("rules",))
        return
    if not isinstance(value, Mapping):
        raise SectionError(
            f"'rules' in {placed.origin} must be a rule name or a mapping of metric to rule "
            f"(with {_RULE_DEFAULT!r} for every other metric), got {value!r}"
        )
    per_metric = {str(key): rule for key, rule in value.items() if key != _RULE_DEFAULT}
    if _RULE_DEFAULT in value:
        placed.put("rule", value[_RULE_DEFAULT], ("rules", _RULE_DEFAULT))
    if per_metric:
        placed.put("rules", per_metric, ("rules",))


def dotted_layer(assignments: Mapping[str, Any]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs with dotted keys as one nested layer.

    >>> dotted_layer({"judge.concurrency": 4, "thresholds.faithfulness": 0.9})
    {'judge': {'concurrency': 4}, 'thresholds': {'faithfulness': 0.9}}
    """
    layer: dict[str, Any] = {}
    for key, value in assignments.items():
        *parents, leaf = key.split(".")
        node = layer
        for parent in parents:
            child = node.setdefault(parent, {})
            if not isinstance(child, dict):
                raise SectionError(f"--rag-gate-set {key}: {parent!r} is given a value already")
            node = child
        node[leaf] = value
    return layer
