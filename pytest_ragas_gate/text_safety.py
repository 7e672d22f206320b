r"""Lone surrogates: Python strings that no encoder accepts, and how files stay writable.

A JSON or YAML ``\ud800`` escape, a judge's reply, a live target's output or a file name of
undecodable bytes can each hand Python a string holding half of a UTF-16 surrogate pair on
its own. Encoding such a string as UTF-8 raises, so hashing it or writing it to a file
would crash the run. Golden cases holding one are rejected when they are loaded (see
:mod:`.golden_fields`); text from elsewhere can still reach a file, so JSON writers go
through :func:`json_text`.

>>> json_text({"reason": "cut \ud83d here", "lang": "中文"})
'{"reason": "cut \\ud83d here", "lang": "中文"}'
>>> import json
>>> json.loads(json_text(["\ud800"])) == ["\ud800"]
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["LONE_SURROGATE", "json_text", "lone_surrogate_problem", "printable", "texts_in"]

#: One half of a UTF-16 surrogate pair: never valid on its own in Unicode text.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate_problem(value: Any, *, in_name: bool = False) -> str | None:
    r"""Why ``value`` is not valid Unicode text, or None when every string in it is.

    A JSON, YAML or Python ``\uXXXX`` escape can write half of a UTF-16 surrogate pair on
    its own. Python keeps it as a lone surrogate, which no encoder accepts: hashing the
    question, sending it to a judge or writing a report would fail. Every field of a golden
    case is checked with this when the case is loaded, so no golden text downstream holds
    one.

    Args:
        value: A field's value: a string, or lists and mappings of them (keys included).
        in_name: Whether ``value`` is the field's name rather than its value.

    >>> print(lone_surrogate_problem(["fine", {"text": "Who \ud800 founded it?"}]))
    ... # doctest: +ELLIPSIS
    contains a lone surrogate (\ud800), which is not valid Unicode text (an escape of half ...
    >>> lone_surrogate_problem("\U0001f600 is fine") is None
    True
    """
    # Most values are one string, checked for every field of every case: no walk for it.
    for text in (value,) if isinstance(value, str) else texts_in(value, keys=True):
        found = LONE_SURROGATE.search(text)
        if found is not None:
            return (
                ("its name " if in_name else "")
                + f"contains a lone surrogate (\\u{ord(found.group()):04x}), which is not "
                "valid Unicode text (an escape of half a UTF-16 surrogate pair); write the "
                "character itself instead of its escape"
            )
    return None


def texts_in(value: Any, *, keys: bool = False) -> Iterator[str]:
    """Every string in ``value``: itself, or the items and values of its lists and mappings.

    Args:
        value: A string, or lists and mappings holding strings at any depth.
        keys: Whether the keys of mappings are included.
    """
    if isinstance(value, str):
        yield value
        return
    # A stack rather than recursion: YAML lets a value nest deeper than Python's stack, and
    # its aliases can make a list contain itself.
    pending = [value]
    seen: set[int] = set()
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            yield item
            continue
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, Mapping):
            pending.extend(item.values())
            if keys:
                pending.extend(item.keys())


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _byte_escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte os.fsdecode could not decode, kept this way
        return f"\\x{code - 0xDC00:02x}"
    return _escaped(match)


def printable(text: str) -> str:
    r"""``text`` with each lone surrogate written as an escape, so it can always be printed.

    A file name's undecodable byte shows as that byte (``\xff``), as ``ls -b`` shows it.

    >>> print(printable("golden_\udcff.jsonl"), printable("a\ud800b"))
    golden_\xff.jsonl a\ud800b
    """
    return LONE_SURROGATE.sub(_byte_escaped, text)


def json_text(data: Any, **options: Any) -> str:
    r"""``json.dumps(data, ensure_ascii=False, **options)`` that always encodes as UTF-8.

    Non-ASCII text stays readable; only a lone surrogate is written as its ``\uXXXX``
    escape, which every JSON reader (Python's included) turns back into the same string.
    With ``ensure_ascii=False`` such a character can only stand inside a JSON string, so
    the escape is always in a valid place.

    Args:
        data: What to serialise.
        **options: Further :func:`json.dumps` options (``indent``, ``sort_keys`` …).

    Returns:
        The JSON text.
    """
    return LONE_SURROGATE.sub(_escaped, json.dumps(data, ensure_ascii=False, **options))
