"""One-line optimisation hints for metrics that fail the gate.

Each built-in metric declares its own ``hint``; the latency budget, which is no metric,
has its hint here. A metric without a hint of its own gets :data:`GENERIC_HINT`.
"""

from __future__ import annotations

from ..metrics.base import GENERIC_HINT
from ..metrics.registry import BUILTIN_FACTS

__all__ = ["GENERIC_HINT", "HINTS", "hint_for"]

HINTS: dict[str, str] = {
    **{name: facts.hint for name, facts in BUILTIN_FACTS.items() if facts.hint != GENERIC_HINT},
    "latency": (
        "Profile retrieval, reranking and generation separately; cache frequent queries, "
        "trim the context sent to the model, or use a faster model."
    ),
}


def hint_for(metric: str) -> str:
    """The hint of ``metric``, or the generic one.

    Args:
        metric: A metric name.

    Returns:
        A one-line hint.

    Example:
        >>> hint_for("context_recall").startswith("Use hybrid retrieval")
        True
        >>> hint_for("my_custom_metric") == GENERIC_HINT
        True
    """
    return HINTS.get(metric, GENERIC_HINT)
