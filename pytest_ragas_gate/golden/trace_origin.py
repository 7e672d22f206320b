"""The trace a golden case was imported from, so a result can be sent back beside it.

``rag-gate import otlp|openinference|langfuse`` writes each case's provenance under
``metadata.import`` (``{"format": "otlp", "file": …, "trace": <trace id>}``) and the id of
the trace's root span as ``metadata.root_span_id``. A case written by hand may name them
itself as ``metadata.trace_id`` and ``metadata.span_id``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["TRACE_FORMATS", "trace_origin"]

#: The import formats whose cases are traces.
TRACE_FORMATS = frozenset({"otlp", "openinference", "langfuse"})


def trace_origin(metadata: Mapping[str, Any]) -> dict[str, str] | None:
    """``{"trace_id", "span_id"}`` (the span only when known) of a case, or None.

    >>> trace_origin({"import": {"format": "otlp", "file": "t.json", "trace": "ab"},
    ...               "root_span_id": "cd"})
    {'trace_id': 'ab', 'span_id': 'cd'}
    >>> trace_origin({"import": {"format": "deepeval", "file": "d.json", "item": 1}}) is None
    True
    >>> trace_origin({"trace_id": "ab"})
    {'trace_id': 'ab'}
    """
    imported = metadata.get("import")
    trace_id: Any = metadata.get("trace_id")
    if trace_id is None and isinstance(imported, Mapping):
        if imported.get("format") in TRACE_FORMATS:
            trace_id = imported.get("trace")
    if not isinstance(trace_id, str) or not trace_id:
        return None
    origin = {"trace_id": trace_id}
    span_id = metadata.get("span_id", metadata.get("root_span_id"))
    if isinstance(span_id, str) and span_id and not span_id.startswith("#"):
        origin["span_id"] = span_id
    return origin
