r"""Structured contexts read as field/value facts: JSON records, ``key: value`` lines.

A context that is one JSON object (a business listing, a product, a table row) is a set of
facts, not a punctuation-heavy sentence. Each leaf becomes one short sentence built from its
key's words and its value: ``"BusinessAcceptsCreditCards": "True"`` reads "Business Accepts
Credit Cards: yes.", nested objects are flattened ("attributes" → "Ambience" → "casual"),
string values that hold a Python literal (``"{'garage': False}"``, ``"u'free'"``) are read
as what they hold, and opening hours stay times (``"11:0-21:0"``). Fields whose value is a
yes or a no keep that polarity, so that a claim can be found contradicted by them.

>>> record = read_record('{"name": "Joe\'s", "WiFi": "u\'no\'", "attributes": '
...                      '{"BusinessAcceptsCreditCards": "True"}}')
>>> print(record.text)
name: Joe's.
Wi Fi (WiFi): no.
attributes Business Accepts Credit Cards: yes.
>>> [(field.key, field.polarity) for field in record.fields if field.polarity is not None]
[('WiFi', False), ('BusinessAcceptsCreditCards', True)]
"""

from __future__ import annotations

import ast
import functools
import json
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["Field", "Record", "read_record"]

_CACHE_SIZE = 1024
_MAX_DEPTH = 6

_YES = frozenset(["true", "yes", "y"])
_NO = frozenset(["false", "no", "n", "none", "null"])

_KEY_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_KEY_VALUE_LINE = re.compile(
    r"^\s*(?:[-*•]\s*)?(?P<key>[^\W\d][\w /()&'-]{0,40}?)\s*[:：]\s*(?P<value>\S.*)$"
)
_MIN_KEY_VALUE_LINES = 3


@dataclass(frozen=True)
class Field:
    """One leaf of a record.

    Attributes:
        path: The keys from the record's root to this leaf.
        value: The leaf's value as text ("yes"/"no" for booleans).
        polarity: True for a yes, False for a no, None for any other value.
    """

    path: tuple[str, ...]
    value: str
    polarity: bool | None

    @property
    def key(self) -> str:
        """The leaf's own key."""
        return self.path[-1] if self.path else ""

    @property
    def sentence(self) -> str:
        """The field as one short sentence: its parent's and its own key words, its value.

        The parent names what a nested leaf is about ("Business Parking garage: no").
        """
        keys = " ".join(key_words(key) for key in self.path[-2:])
        value = self.value.replace("_", " ").rstrip(" .")
        return f"{keys}: {value}."


@dataclass(frozen=True)
class Record:
    """A structured context: its fields and their reading as plain text."""

    fields: tuple[Field, ...]
    text: str


def key_words(key: str) -> str:
    """A key written as words: camel case and snake case split ("HasTV" → "Has TV (HasTV)").

    When splitting leaves a part of one or two letters ("WiFi" → "Wi Fi"), the key as written
    is kept beside it, so that both spellings are found.

    >>> [key_words(key) for key in ["BusinessAcceptsCreditCards", "review_count", "WiFi"]]
    ['Business Accepts Credit Cards', 'review count', 'Wi Fi (WiFi)']
    """
    parts = [word for chunk in re.split(r"[_\-\s.]+", key) for word in _KEY_WORD.findall(chunk)]
    if not parts:
        return key
    words = " ".join(parts)
    if len(parts) > 1 and any(len(part) <= 2 and part.isalpha() for part in parts):
        return f"{words} ({key})"
    return words


def _literal(text: str) -> Any:
    """A Python or JSON literal held in a string (Yelp writes ``"u'free'"``), else the text."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[('\"u" or len(stripped) > 2000:
        return text
    if stripped[0] == "u" and stripped[1:2] in ("'", '"'):
        stripped = stripped[1:]
    try:
        return ast.literal_eval(stripped)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


def _leaves(value: Any, path: tuple[str, ...], depth: int) -> list[Field]:
    if isinstance(value, str):
        parsed = _literal(value)
        if parsed is not value and not isinstance(parsed, str):
            return _leaves(parsed, path, depth + 1)
        value = parsed
    if depth > _MAX_DEPTH:
        return [Field(path, str(value), None)]
    if isinstance(value, dict):
        fields: list[Field] = []
        for key, inner in value.items():
            fields.extend(_leaves(inner, (*path, str(key)), depth + 1))
        return fields
    if isinstance(value, list | tuple):
        if all(not isinstance(item, dict | list | tuple) for item in value):
            return [Field(path, ", ".join(str(item) for item in value), None)]
        fields = []
        for item in value:
            fields.extend(_leaves(item, path, depth + 1))
        return fields
    if isinstance(value, bool):
        return [Field(path, "yes" if value else "no", value)]
    if value is None:
        return [Field(path, "no", False)]
    text = str(value).strip()
    lowered = text.lower()
    if lowered in _YES:
        return [Field(path, "yes", True)]
    if lowered in _NO:
        return [Field(path, "no", False)]
    return [Field(path, text, None)]


def _json_object(text: str) -> Any:
    stripped = text.strip()
    start = min(
        (index for index in (stripped.find("{"), stripped.find("[")) if index >= 0), default=-1
    )
    # A short lead-in ("Business data: {...}") is allowed; prose with braces is not a record.
    if start < 0 or start > 80 or stripped[-1:] not in ("}", "]"):
        return None
    try:
        return json.loads(stripped[start:])
    except ValueError:
        parsed = _literal(stripped[start:])
        return None if isinstance(parsed, str) else parsed


def _key_value_lines(text: str) -> list[Field] | None:
    lines = [line for line in text.splitlines() if line.strip()]
    matches = [_KEY_VALUE_LINE.match(line) for line in lines]
    found = [match for match in matches if match]
    if len(found) < _MIN_KEY_VALUE_LINES or len(found) < 0.6 * len(lines):
        return None
    fields: list[Field] = []
    for match in found:
        fields.extend(_leaves(match.group("value").strip(), (match.group("key").strip(),), 0))
    return fields


@functools.lru_cache(maxsize=_CACHE_SIZE)
def read_record(text: str) -> Record | None:
    """Read ``text`` as a record, or None when it is prose.

    Args:
        text: One context: a JSON object or array (possibly after a short lead-in), or
            ``key: value`` lines (YAML-like, at least three, most of the text).

    Returns:
        The record's fields and their text (one sentence per field), or None.
    """
    data = _json_object(text) if ("{" in text or "[" in text) else None
    if isinstance(data, dict | list) and data:
        fields = _leaves(data, (), 0)
    else:
        found = _key_value_lines(text) if ":" in text or "：" in text else None
        if not found:
            return None
        fields = found
    fields = [field for field in fields if field.path]
    if not fields:
        return None
    return Record(tuple(fields), "\n".join(field.sentence for field in fields))
