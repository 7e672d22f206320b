"""Retrieval metrics from chunk ids: no judge, just the gold ``relevant_context_ids``."""

from __future__ import annotations

from typing import Any

from ..golden.cases import GoldenCase
from ..judges.base import CaseJudge
from ._case_fields import required_contexts
from .base import Metric, MetricResult, Stage
from .formulas import id_precision, id_recall, reciprocal_rank

_ID_FIELDS: tuple[str, ...] = ("contexts", "relevant_context_ids")


class IdRecall(Metric):
    """|retrieved ∩ gold| / |gold|: how many of the chunks that should come back did."""

    name: str = "id_recall"
    required_fields: tuple[str, ...] = _ID_FIELDS
    default_threshold: float | None = None
    stage: Stage = "retrieval"
    hint: str = (
        "Relevant chunks are not retrieved: raise top-k, add keyword search to vector "
        "search (hybrid retrieval), or try a stronger embedding model."
    )
    judge_requests: tuple[str, ...] | None = ()

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; ``judge`` is not used."""
        retrieved, gold = _retrieved_and_gold(case, self.name)
        if not retrieved:
            return _no_ids()
        retrieved_set = set(retrieved)
        details: list[dict[str, Any]] = [
            {"id": gold_id, "retrieved": gold_id in retrieved_set} for gold_id in gold
        ]
        found = sum(1 for detail in details if detail["retrieved"])
        return MetricResult(
            score=id_recall(retrieved, gold),
            details=details,
            reason=f"{found} of {len(gold)} relevant ids retrieved",
        )


class IdPrecision(Metric):
    """|retrieved ∩ gold| / |retrieved|: how much of what came back should have."""

    name: str = "id_precision"
    required_fields: tuple[str, ...] = _ID_FIELDS
    default_threshold: float | None = None
    stage: Stage = "retrieval"
    hint: str = (
        "Too many irrelevant chunks are retrieved: lower top-k, add a similarity cut-off, "
        "or add a reranker to drop weak matches."
    )
    judge_requests: tuple[str, ...] | None = ()

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; ``judge`` is not used."""
        retrieved, gold = _retrieved_and_gold(case, self.name)
        if not retrieved:
            return _no_ids()
        details = _ranked_details(retrieved, gold, _hops(case))
        hits = sum(1 for detail in details if detail["relevant"])
        return MetricResult(
            score=id_precision(retrieved, gold),
            details=details,
            reason=f"{hits} of {len(retrieved)} retrieved ids relevant",
        )


class MeanReciprocalRank(Metric):
    """1 / rank of the first relevant retrieved id (0.0 if none); the gate's mean is MRR.

    Ranks count only the contexts that carry an id.
    """

    name: str = "mrr"
    required_fields: tuple[str, ...] = _ID_FIELDS
    default_threshold: float | None = None
    stage: Stage = "retrieval"
    hint: str = (
        "The first relevant chunk ranks too low: add a cross-encoder reranker or tune the "
        "hybrid-retrieval weights so the best match comes first."
    )
    judge_requests: tuple[str, ...] | None = ()

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        """Score one case; ``judge`` is not used."""
        retrieved, gold = _retrieved_and_gold(case, self.name)
        if not retrieved:
            return _no_ids()
        details = _ranked_details(retrieved, gold)
        relevance = [bool(detail["relevant"]) for detail in details]
        first = next((rank for rank, hit in enumerate(relevance, start=1) if hit), None)
        return MetricResult(
            score=reciprocal_rank(relevance),
            details=details,
            reason=(
                f"first relevant id at rank {first}"
                if first is not None
                else "no relevant id retrieved"
            ),
        )


def _retrieved_and_gold(case: GoldenCase, metric: str) -> tuple[list[str], list[str]]:
    """Distinct retrieved ids in rank order, and distinct gold ids in their given order.

    A chunk retrieved twice keeps its first (best) rank, so duplicates neither add hits
    nor push later chunks down.
    """
    contexts = required_contexts(case, metric)
    retrieved = list(dict.fromkeys(context.id for context in contexts if context.id))
    gold = list(dict.fromkeys(case.relevant_context_ids or []))
    return retrieved, gold


def _ranked_details(
    retrieved: list[str], gold: list[str], hops: dict[str, int] | None = None
) -> list[dict[str, Any]]:
    """Per retrieved id: its rank, whether it is relevant and, on a multi-hop case, its hop."""
    gold_set = set(gold)
    details: list[dict[str, Any]] = []
    for rank, context_id in enumerate(retrieved, start=1):
        detail: dict[str, Any] = {
            "rank": rank,
            "id": context_id,
            "relevant": context_id in gold_set,
        }
        if hops and context_id in hops:
            detail["hop"] = hops[context_id]
        details.append(detail)
    return details


def _hops(case: GoldenCase) -> dict[str, int]:
    """The hop that first returned each context id (empty when no context has a hop)."""
    found: dict[str, int] = {}
    for context in case.contexts or []:
        if context.id and context.hop is not None:
            found.setdefault(context.id, context.hop)
    return found


def _no_ids() -> MetricResult:
    return MetricResult.not_applicable("no retrieved context has an id")
