r"""YAML read with PyYAML's safe loaders, refusing a mapping key written twice.

PyYAML keeps the last of two equal keys without a word, although YAML requires the keys
of a mapping to be unique: ``default: mean`` followed by ``default: ci_lower`` would gate
on ``ci_lower`` while the file reads as if it said both. Every YAML file the gate reads
goes through these loaders, so the user hears of the second line instead.

>>> safe_load_unique("a: 1\nb: 2\n")
{'a': 1, 'b': 2}
>>> try:
...     safe_load_unique("rules:\n  default: mean\n  default: ci_lower\n")
... except DuplicateKeyError as error:
...     print(error.key, error.first_line, error.second_line)
default 2 3
"""

from __future__ import annotations

from typing import Any

import yaml

_MERGE_TAG = "tag:yaml.org,2002:merge"


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping holds one key twice; lines are 1-based."""

    def __init__(self, key: str, first: yaml.Mark, second: yaml.Mark) -> None:
        self.key = key
        self.first_line = first.line + 1
        self.second_line = second.line + 1
        super().__init__(
            None,
            None,
            f"{key!r} is written twice (lines {self.first_line} and {self.second_line}); keep one",
            second,
        )


def _check_unique(loader: yaml.constructor.SafeConstructor, node: yaml.Node) -> None:
    # Node kinds are compared by `id`: PyYAML's C loader keeps the node classes of its
    # first import, which differ from a re-imported module's.
    if getattr(node, "id", "") != "mapping":
        return
    seen: dict[Any, yaml.Mark] = {}
    for key_node, _value in node.value:
        if key_node.tag == _MERGE_TAG:
            # `<<: *defaults` followed by an explicit key is YAML's way to override.
            continue
        try:
            key = loader.construct_object(key_node, deep=True)
            hash(key)
        except (yaml.YAMLError, TypeError, ValueError):
            continue  # the base constructor reports an unusable key itself
        if key in seen:
            raise DuplicateKeyError(str(key), seen[key], key_node.start_mark)
        seen[key] = key_node.start_mark


_LOADERS: dict[type[yaml.SafeLoader], type[yaml.SafeLoader]] = {}


def unique_key_loader(base: type[yaml.SafeLoader]) -> type[yaml.SafeLoader]:
    """``base`` (``SafeLoader`` or ``CSafeLoader``) refusing a duplicate mapping key."""
    if base in _LOADERS:
        return _LOADERS[base]

    def construct_mapping(self: Any, node: yaml.MappingNode, deep: bool = False) -> Any:
        _check_unique(self, node)
        return base.construct_mapping(self, node, deep=deep)

    loader = type(f"UniqueKey{base.__name__}", (base,), {"construct_mapping": construct_mapping})
    _LOADERS[base] = loader
    return loader


def safe_load_unique(text: str) -> Any:
    """``yaml.safe_load`` that raises ``DuplicateKeyError`` for a key written twice."""
    return yaml.load(text, Loader=unique_key_loader(yaml.SafeLoader))  # noqa: S506 - safe base
