"""The live example's toy RAG system (``examples/live/rag_app.py``), over the synth corpus.

``rag-gate synth … --chunks-out chunks.jsonl`` writes the chunks under the ids the golden
cases name; indexing exactly those chunks is what makes ``id_recall``, ``id_precision``
and ``mrr`` meaningful. A real system keeps its own index and returns its own chunk ids:
chunk your documents the same way, or index the exported chunks.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "live"))

import rag_app  # noqa: E402  (examples/live/rag_app.py)

rag_app.DOCUMENTS = {
    row["id"]: row["text"]
    for row in map(json.loads, (HERE / "chunks.jsonl").read_text(encoding="utf-8").splitlines())
}

answer = rag_app.answer
