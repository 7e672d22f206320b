"""Embeddings for the ``reverse_questions`` answer relevancy strategy, through the judge.

The metrics are built before the judge (a misspelt metric name must fail before any key
is needed), so answer relevancy gets a :class:`JudgeEmbedder`, which embeds through the
case's judge, and the judge is checked for embeddings once it exists. Embedding calls then share the
judge's cache, budgets, retries and usage totals; the OpenAI-compatible judge sends them
to ``/embeddings`` with ``embedding_model``.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..exceptions import UsageError
from ..judges.metered import MeteredJudge
from ..metrics.relevancy import JudgeEmbeddings
from ..settings.config import GateConfig

RELEVANCY_METRIC = "answer_relevancy"


#: Answer relevancy's embedder when the judge embeds.
JudgeEmbedder = JudgeEmbeddings


def deferred_embedder(config: GateConfig) -> JudgeEmbedder | None:
    """The embedder answer relevancy needs under ``config``, else None."""
    return JudgeEmbedder() if config.answer_relevancy_strategy == "reverse_questions" else None


def bind_embedder(metrics: Mapping[str, object], judge: MeteredJudge, config: GateConfig) -> None:
    """Refuse a judge without embeddings when answer relevancy embeds through it.

    Raises:
        UsageError: answer relevancy may run with ``reverse_questions`` and the judge has no
            embeddings API (only the OpenAI-compatible judge has one).
    """
    embedder = getattr(metrics.get(RELEVANCY_METRIC), "embedder", None)
    if not isinstance(embedder, JudgeEmbedder):
        return
    if config.metrics is not None and RELEVANCY_METRIC not in config.metrics:
        return
    if not judge.supports_embeddings:
        raise UsageError(
            "answer_relevancy_strategy 'reverse_questions' compares embeddings of the "
            f"question and of questions generated from the answer, and the {judge.kind} "
            "judge has no embeddings API. Use --rag-gate-judge openai (an OpenAI-compatible "
            "server, with embedding_model naming its embedding model), or set "
            "answer_relevancy_strategy: judge."
        )
