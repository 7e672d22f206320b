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
from typing import Any

__all__ = ["MISSING", "Path", "parse_path", "resolve"]

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
