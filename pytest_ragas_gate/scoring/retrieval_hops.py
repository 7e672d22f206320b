"""The retrieval metrics of a multi-hop case, read per hop from the verdicts already made.

An agent that retrieves several times (one hop per retrieval call) hands the generator
the contexts of every hop; a case's ``context_precision`` then mixes a good first hop
with a useless second one. Each context keeps its hop (``Context.hop``), and the
per-chunk verdicts the retrieval metrics already gave are grouped by it — no judge call:

- ``context_precision``: the average precision of the hop's chunks in their rank order;
- ``context_relevance``: the share of the hop's chunks judged relevant;
- ``id_precision``: the share of the hop's context ids that are relevant;
- ``id_recall``: the share of the relevant ids that this hop retrieved first.

The JSON report adds them to a case as ``retrieval_hops`` and the HTML case panel shows
them; a case without hops has none.
"""

from __future__ import annotations

from typing import Any

from ..metrics.formulas import average_precision, share
from .results import CaseResult

__all__ = ["retrieval_hops"]

#: The metrics whose per-chunk verdicts (``index``, ``relevant``) say which chunk is relevant.
_CHUNK_METRICS = ("context_precision", "context_relevance")


def retrieval_hops(result: CaseResult) -> list[dict[str, Any]] | None:
    """Per hop, in hop order: its number, its contexts and its retrieval metrics.

    >>> result = CaseResult(id="c", source="g.jsonl:1", contexts=["a", "b", "c"],
    ...     context_hops=[1, 2, 2], details={"context_precision": [
    ...         {"index": 0, "relevant": True}, {"index": 1, "relevant": False},
    ...         {"index": 2, "relevant": True}]})
    >>> [(hop["hop"], hop["contexts"], round(hop["context_precision"], 3))
    ...  for hop in retrieval_hops(result)]
    [(1, 1, 1.0), (2, 2, 0.5)]
    """
    hops = result.context_hops
    if not hops or not any(hop is not None for hop in hops):
        return None
    relevant = _chunk_relevance(result)
    rows: list[dict[str, Any]] = []
    for hop in sorted({hop for hop in hops if hop is not None}):
        indexes = [index for index, found in enumerate(hops) if found == hop]
        row: dict[str, Any] = {"hop": hop, "contexts": len(indexes)}
        judged = [relevant[index] for index in indexes if index in relevant]
        if judged and len(judged) == len(indexes):
            row["context_precision"] = average_precision(judged)
            row["context_relevance"] = share(sum(judged), len(judged))
        row.update(_id_metrics(result, hop))
        rows.append(row)
    return rows


def _chunk_relevance(result: CaseResult) -> dict[int, bool]:
    for metric in _CHUNK_METRICS:
        verdicts = result.details.get(metric)
        if verdicts and metric not in result.errors:
            return {
                int(verdict["index"]): bool(verdict["relevant"])
                for verdict in verdicts
                if isinstance(verdict.get("index"), int) and "relevant" in verdict
            }
    return {}


def _id_metrics(result: CaseResult, hop: int) -> dict[str, float]:
    ranked = [
        detail for detail in result.details.get("id_precision") or [] if detail.get("hop") == hop
    ]
    if not ranked:
        return {}
    hits = sum(1 for detail in ranked if detail.get("relevant"))
    found: dict[str, float] = {"id_precision": share(hits, len(ranked))}
    gold = len(result.details.get("id_recall") or [])
    if gold:
        found["id_recall"] = share(hits, gold)
    return found
