"""Dotted paths into JSON records: what ``--map FIELD=PATH``, ``--where`` and ``--stratify`` name.

A path is keys joined by dots, with ``[N]`` for a list item (``[-1]`` the last) and ``[*]``
for every item: ``request.messages[-1].content``, ``retrieval.hits[*].text``. A key that
itself holds dots (``"input.value"`` of a flattened span) is written in brackets and
quotes: ``attributes["input.value"]``; a dotted key is also found when written plainly.
Written here, not taken from JSONPath libraries, because this small grammar is all the
options accept and its error messages name the option and the position at fault.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["MISSING", "DeadEnd", "Path", "dead_end", "parse_path", "resolve", "show_path"]

#: One step: a plain key, ``[N]``, ``[*]`` or ``["quoted.key"]``.
_STEP = re.compile(r"""\.?(?:\[(?:(\*)|(-?\d+)|"([^"]*)"|'([^']*)')\]|([^.\[\]]+))""")

Path = tuple[str | int | None, ...]
"""Keys (str), list indexes (int) and ``[*]`` (None)."""


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


#: What :func:`resolve` gives for a path that leads nowhere.
MISSING: Any = _Missing()


def parse_path(text: str) -> Path:
    """The steps of ``text``.

    >>> parse_path('inputs.docs[*].text')
    ('inputs', 'docs', None, 'text')
    >>> parse_path('attributes["input.value"]')
    ('attributes', 'input.value')

    Raises:
        ValueError: ``text`` is no path; the message says where it stops making sense.
    """
    steps: list[str | int | None] = []
    position = 0
    while position < len(text):
        match = _STEP.match(text, position)
        if match is None or match.end() == position or (position == 0 and text[0] == "."):
            raise ValueError(f"{text!r} is no path at character {position + 1}")
        star, index, double, single, key = match.groups()
        if star:
            steps.append(None)
        elif index is not None:
            steps.append(int(index))
        else:
            steps.append(next(part for part in (double, single, key) if part is not None))
        position = match.end()
    if not steps:
        raise ValueError("an empty path")
    return tuple(steps)


def resolve(value: object, path: Path) -> Any:
    """What ``path`` names in ``value``: a list where it passes a ``[*]``, else one value.

    >>> record = {"hits": [{"text": "a"}, {"text": "b"}], "input.value": "q"}
    >>> resolve(record, parse_path("hits[*].text")), resolve(record, parse_path("input.value"))
    (['a', 'b'], 'q')
    >>> resolve(record, parse_path("hits[5]"))
    MISSING
    """
    if not path:
        return value
    step, rest = path[0], path[1:]
    if step is None:
        if not isinstance(value, list):
            return MISSING
        found = [resolve(item, rest) for item in value]
        return [item for item in found if item is not MISSING]
    if isinstance(step, int):
        if not isinstance(value, list) or not -len(value) <= step < len(value):
            return MISSING
        return resolve(value[step], rest)
    if not isinstance(value, Mapping):
        return MISSING
    if step in value:
        return resolve(value[step], rest)
    # A flattened record keeps dotted keys whole: ``input.value`` is one key there.
    for length in range(len(rest), 0, -1):
        if all(isinstance(part, str) for part in rest[:length]):
            joined = ".".join([step, *(str(part) for part in rest[:length])])
            if joined in value:
                return resolve(value[joined], rest[length:])
    return MISSING


@dataclass(frozen=True)
class DeadEnd:
    """Where a path stops leading anywhere in a record: the steps it took, the keys there."""

    reached: Path
    keys: tuple[str, ...]


def dead_end(value: object, path: Path) -> DeadEnd | None:
    """Where ``path`` stops in ``value``, or None when it leads to a value or an empty list.

    >>> record = {"hits": [{"text": "a", "score": 1}]}
    >>> dead_end(record, parse_path("hits[*].txt"))
    DeadEnd(reached=('hits', None), keys=('score', 'text'))
    >>> dead_end(record, parse_path("hits[*].text")) is None
    True
    """
    if resolve(value, path) is not MISSING and not _empty_star(value, path):
        return None
    return _stop(value, path, ())


def _empty_star(value: object, path: Path) -> bool:
    """Whether a ``[*]`` of ``path`` found items but none of them held the rest of it."""
    if not path:
        return False
    step, rest = path[0], path[1:]
    if step is None:
        return isinstance(value, list) and bool(value) and not resolve(value, path)
    found = resolve(value, path[:1])
    return found is not MISSING and _empty_star(found, rest)


def _stop(value: object, path: Path, taken: Path) -> DeadEnd:
    step, rest = path[0], path[1:]
    if step is None and isinstance(value, list):
        within = {str(key) for item in value if isinstance(item, Mapping) for key in item}
        deeper = [_stop(item, rest, (*taken, None)) for item in value if rest]
        stops = [end for end in deeper if end.reached != (*taken, None)]
        if stops:
            return stops[0]
        return DeadEnd((*taken, None), tuple(sorted(within)))
    found = resolve(value, path[:1])
    if found is MISSING or not rest:
        keys = tuple(sorted(str(key) for key in value)) if isinstance(value, Mapping) else ()
        return DeadEnd(taken, keys)
    return _stop(found, rest, (*taken, step))


def show_path(path: Path) -> str:
    """``path`` written as the options take it.

    >>> show_path(("hits", None, "text")), show_path(()), show_path(("a.b", 0))
    ('hits[*].text', '(the record)', '["a.b"][0]')
    """
    text = ""
    for step in path:
        if step is None:
            text += "[*]"
        elif isinstance(step, int):
            text += f"[{step}]"
        elif "." in step or "[" in step:
            text += f'["{step}"]'
        else:
            text += f".{step}" if text else step
    return text or "(the record)"
