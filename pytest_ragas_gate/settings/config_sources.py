"""Where each setting, and each entry of a mapping or list setting, was given.

A message about a setting names the place the user wrote it — ``rag_gate.yaml:7``,
``--rag-gate-threshold``, ``--rag-gate-set thresholds.faithfulness``, ``RAG_GATE_JUDGE`` —
so that the fix is one look away. Settings merge entry by entry across sources, so the
source of ``thresholds.faithfulness`` may not be the source of ``thresholds`` as a whole:
:meth:`SettingSources.where` finds the last source that gave the entry itself.

Standard library and PyYAML only (YAML is read here only when a config file is).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .config_sections import public_key

__all__ = [
    "SettingSources",
    "SourceLayer",
    "file_describer",
    "holds",
    "line_namer",
    "yaml_key_lines",
]

#: Describes the source of an entry: (internal setting, path inside it) → ``rag_gate.yaml:7``.
Describer = Callable[[str, tuple[str, ...]], str]

#: Paths in a file (keys as written, list items by their value) → line (1-based).
KeyLines = Mapping[tuple[str, ...], int]


@dataclass(frozen=True)
class SourceLayer:
    """One source's settings (internal names) and how to name where an entry came from."""

    origin: str
    settings: Mapping[str, Any]
    describe: Describer = field(default=lambda _setting, _path: "")

    def name(self, setting: str, path: tuple[str, ...]) -> str:
        """The source of ``setting`` (at ``path``), or the layer's origin when it cannot say."""
        return self.describe(setting, path) or self.origin


class SettingSources:
    """The sources of a run's settings, lowest precedence first.

    >>> sources = SettingSources([
    ...     SourceLayer("rag_gate.yaml", {"thresholds": {"faithfulness": 0.8}}),
    ...     SourceLayer("command line", {"thresholds": {"context_recall": 0.7}},
    ...                 lambda setting, path: "--rag-gate-threshold"),
    ... ])
    >>> sources.where("thresholds", ("faithfulness",)), sources.where("thresholds", ("context_recall",))
    ('rag_gate.yaml', '--rag-gate-threshold')
    >>> sources.where("judge")
    'the defaults'
    """  # noqa: E501

    def __init__(self, layers: Sequence[SourceLayer] = ()) -> None:
        self.layers = tuple(layers)

    def where(self, setting: str, path: Sequence[str] = ()) -> str:
        """The last source that gave ``setting`` at ``path`` (or the longest part of it).

        A validation error's path may run past what any source wrote (pydantic adds the
        member of a union it tried); the entry is then the longest prefix a source holds.
        """
        steps = tuple(str(step) for step in path)
        for depth in range(len(steps), -1, -1):
            for layer in reversed(self.layers):
                if setting in layer.settings and holds(layer.settings[setting], steps[:depth]):
                    return layer.name(setting, steps[:depth])
        return "the defaults"


def holds(value: Any, path: Sequence[str]) -> bool:
    """Whether a setting's value has an entry at ``path`` (keys, or a list's item last).

    >>> holds({"zh": {"mrr": 0.5}}, ("zh", "mrr")), holds(["mrr"], ("mrr",)), holds({}, ("x",))
    (True, True, False)
    """
    for step in path:
        if isinstance(value, Mapping) and step in value:
            value = value[step]
        elif isinstance(value, list) and step in [str(item) for item in value]:
            value = None
        else:
            return False
    return True


def spellings(setting: str) -> list[tuple[str, ...]]:
    """The paths a file may write ``setting`` under: its sectioned key, then its flat one.

    >>> spellings("concurrency"), spellings("rule")
    ([('judge', 'concurrency'), ('concurrency',)], [('rules', 'default'), ('rules',), ('rule',)])
    """
    sectioned = tuple(public_key(setting).split("."))
    paths = [sectioned, (setting,)]
    if setting == "rule":
        paths.insert(1, ("rules",))
    return list(dict.fromkeys(paths))


def file_describer(name: str, lines: KeyLines | None) -> Describer:
    """Name an entry of a config file as ``name:line`` where its line is known, else ``name``."""

    def describe(setting: str, path: tuple[str, ...]) -> str:
        for depth in range(len(path), -1, -1):
            for spelled in spellings(setting):
                line = (lines or {}).get((*spelled, *path[:depth]))
                if line is not None:
                    return f"{name}:{line}"
        return name

    return describe


def line_namer(name: str, lines: KeyLines | None) -> Callable[[tuple[str, ...]], str]:
    """Name a key path of a config file as ``name:line`` where its line is known, else ``name``.

    >>> line_namer("rag_gate.yaml", {("rule",): 1})(("rule",))
    'rag_gate.yaml:1'
    """

    def where(path: tuple[str, ...]) -> str:
        line = (lines or {}).get(path)
        return name if line is None else f"{name}:{line}"

    return where


def yaml_key_lines(text: str) -> dict[tuple[str, ...], int]:
    r"""The line of every key of a YAML document, and of every scalar item of its lists.

    >>> lines = yaml_key_lines("judge:\n  concurrency: 8\nlower_is_better:\n  - mrr\n")
    >>> lines[("judge", "concurrency")], lines[("lower_is_better", "mrr")]
    (2, 4)
    """
    import yaml

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return {}
    lines: dict[tuple[str, ...], int] = {}

    def walk(node: yaml.Node, path: tuple[str, ...]) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    lines.setdefault((*path, str(key.value)), key.start_mark.line + 1)
                    walk(value, (*path, str(key.value)))
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                if isinstance(item, yaml.ScalarNode):
                    lines.setdefault((*path, str(item.value)), item.start_mark.line + 1)

    if root is not None:
        walk(root, ())
    return lines
