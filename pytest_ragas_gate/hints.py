"""One-line optimisation hints for metrics that fail the gate.

The four RAGAS metrics follow the optimisation advice of seed 000; ``top_doc_usage``
follows seed 003's retriever–generator alignment advice. A metric without its own hint
(a custom one) gets :data:`GENERIC_HINT`.
"""

from __future__ import annotations

__all__ = ["GENERIC_HINT", "HINTS", "hint_for"]

HINTS: dict[str, str] = {
    "faithfulness": (
        "Tighten the generation prompt to answer only from the retrieved context, add "
        "citations to the sources, and try a model that follows the context more closely."
    ),
    "answer_relevancy": (
        "Prompt the generator to answer the question directly, improve query understanding "
        "of the user's intent, and trim redundant content from answers."
    ),
    "context_recall": (
        "Use hybrid retrieval (keyword + vector), chunk documents so each chunk keeps its "
        "meaning intact, and try a stronger embedding model."
    ),
    "context_precision": (
        "Improve the ranking of retrieved chunks, retrieve in stages (coarse then fine), "
        "and add a cross-encoder reranker."
    ),
    "context_relevance": (
        "Retrieve fewer, more focused chunks: raise the similarity cut-off, rerank before "
        "truncating, and split long chunks that mix topics."
    ),
    "answer_correctness": (
        "Check retrieval first (context recall), then prompt the generator to state every "
        "fact the context supports and nothing it does not; compare against a stronger model."
    ),
    "top_doc_usage": (
        "The generator ignores the top-ranked chunk: review the chunk size, the embedding "
        "model and the reranker's calibration so retrieval rank matches what the answer uses."
    ),
    "id_recall": (
        "Relevant chunks are not retrieved: raise top-k, add keyword search to vector "
        "search (hybrid retrieval), or try a stronger embedding model."
    ),
    "id_precision": (
        "Too many irrelevant chunks are retrieved: lower top-k, add a similarity cut-off, "
        "or add a reranker to drop weak matches."
    ),
    "mrr": (
        "The first relevant chunk ranks too low: add a cross-encoder reranker or tune the "
        "hybrid-retrieval weights so the best match comes first."
    ),
    "latency": (
        "Profile retrieval, reranking and generation separately; cache frequent queries, "
        "trim the context sent to the model, or use a faster model."
    ),
}

GENERIC_HINT = (
    "Open the JSON report and read the lowest-scoring cases' per-item verdicts and reasons "
    "to find the failing stage."
)


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
