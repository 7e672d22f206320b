"""The reply schema a request sends to a server that constrains decoding to it.

The reply models say what a reply may hold; a request knows more: one verdict per claim,
one relevance verdict per retrieved chunk, chunk indexes 0 to n-1, a statement or more
from a reference with text but no more than its words allow, a claim no longer than the
text it restates. A server that turns
the schema into a grammar (llama.cpp, llama-cpp-python, vLLM, Ollama) then cannot let a
small model give three verdicts for two claims, and a cap on free text keeps it from
writing a reason until the token limit, which under a grammar it otherwise may.

Only the schema sent in the schema modes (``json_schema``, ``json_object_schema``,
``tools``) is bounded. The prompt, and so the cache key and OpenAI's prompt cache, stay
as they are; the reply models are unchanged, so replies cached before still validate and
a longer reason from a server that ignores the bounds is no error.
"""

from __future__ import annotations

import copy
from typing import Any

from .prompts import reply_schema
from .requests import JudgeRequest

__all__ = ["REASON_MAX_CHARS", "TEXT_MAX_CHARS", "bounded_reply_schema"]

#: A reason is one or two sentences; what a metric reads is the verdict beside it.
REASON_MAX_CHARS = 240
#: Claims, statements and questions: far above any atomic claim, far below a ramble.
TEXT_MAX_CHARS = 600

_INDEX_FIELD = "index"
_REASON_FIELD = "reason"


def bounded_reply_schema(request: JudgeRequest[Any]) -> dict[str, Any]:
    """The reply schema of ``request`` with the lengths it knows and capped free text.

    >>> from pytest_ragas_gate.judges.requests import VerifyClaims
    >>> schema = bounded_reply_schema(VerifyClaims(claims=["a", "b"], contexts=["c"]))
    >>> verdicts = schema["properties"]["verdicts"]
    >>> verdicts["minItems"], verdicts["maxItems"]
    (2, 2)
    >>> verdicts["items"]["properties"]["reason"]["maxLength"]
    240
    """
    schema = reply_schema(request.reply_type)
    _cap_strings(schema, None, request.text_limits())
    properties: dict[str, Any] = schema.get("properties", {})
    for name, (least, most) in request.item_counts().items():
        array = properties.get(name)
        if not isinstance(array, dict) or array.get("type") != "array":
            continue
        if least:
            array["minItems"] = least
        if most is None:
            continue
        array["maxItems"] = most
        items = array.get("items")
        if not isinstance(items, dict) or least != most:
            continue
        if _INDEX_FIELD in items.get("properties", {}):
            # Each item names its position: only 0 to n-1 are positions. (An enum, since
            # not every grammar converter honours ``maximum``.)
            positioned: dict[str, Any] = copy.deepcopy(items)
            positioned["properties"][_INDEX_FIELD]["enum"] = list(range(most))
            array["items"] = positioned
    return schema


def _cap_strings(node: Any, name: str | None, limits: dict[str, int]) -> None:
    """Give every free-text string a ``maxLength`` (reasons a shorter one), in place.

    ``limits`` bounds a field by the text it restates (:meth:`JudgeRequest.text_limits`);
    a string array's items take their array's name.
    """
    if isinstance(node, list):
        for item in node:
            _cap_strings(item, name, limits)
        return
    if not isinstance(node, dict):
        return
    if node.get("type") == "string" and "enum" not in node and "maxLength" not in node:
        cap = REASON_MAX_CHARS if name == _REASON_FIELD else TEXT_MAX_CHARS
        node["maxLength"] = min(cap, limits.get(name or "", cap))
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            for field, field_schema in value.items():
                _cap_strings(field_schema, field, limits)
        elif key in ("items", "anyOf", "oneOf", "allOf", "additionalProperties"):
            _cap_strings(value, name, limits)
