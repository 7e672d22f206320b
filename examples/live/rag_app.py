"""A toy RAG system for the live-mode example: keyword retrieval over a few support notes.

The gate calls ``answer(question)`` for every case (``target: rag_app:answer`` in
rag_gate.yaml). A real system would call its retriever and its model here; what matters
to the gate is the shape of the return value: the answer, the retrieved chunks in rank
order (with ids, so ``relevant_context_ids`` metrics work) and, for an agent, the tool
it chose. With ``live.oracle`` set the gate passes the case's gold chunks as
``contexts=`` and the system answers from them instead of retrieving.
"""

from __future__ import annotations

import re
from typing import Any

DOCUMENTS: dict[str, str] = {
    "plans-1": "The Team plan includes 2 TB of storage per user, shared across all devices.",
    "billing-2": "Extra storage costs $5 per 100 GB each month and is added by an administrator.",
    "billing-4": "Annual subscriptions can be refunded in full within 14 days of purchase.",
    "upload-1": "Files of up to 50 GB can be uploaded through the desktop app.",
    "upload-2": "The web uploader is limited to 5 GB per file.",
    "versions-1": "Previous versions of a file are kept for 180 days on the Team plan.",
    "security-1": "Two-factor authentication can be turned on in Settings under Security.",
}

BILLING_WORDS = {"refund", "refunded", "price", "cost", "costs", "invoice", "subscription"}


def _words(text: str) -> set[str]:
    return {word for word in re.findall(r"[a-z0-9]+", text.lower()) if len(word) > 2}


def retrieve(question: str, top_k: int = 2) -> list[dict[str, str]]:
    """The ``top_k`` notes sharing the most words with the question, best first."""
    asked = _words(question)
    ranked = sorted(DOCUMENTS.items(), key=lambda item: -len(asked & _words(item[1])))
    return [{"id": doc_id, "text": text} for doc_id, text in ranked[:top_k]]


def answer(question: str, contexts: list[str] | None = None) -> dict[str, Any]:
    """Answer from the top-ranked note; billing questions go to the billing tool."""
    tool = "billing_lookup" if _words(question) & BILLING_WORDS else "docs_search"
    if contexts is not None:  # oracle retrieval: the gold chunks, in order
        return {"answer": contexts[0], "contexts": contexts, "tool": tool}
    retrieved = retrieve(question)
    return {"answer": retrieved[0]["text"], "contexts": retrieved, "tool": tool}
