"""A custom metric registered from conftest.py: are the answer's citations backed?

Answers of this example cite the chunk they use as ``[chunk-id]``. ``cites_sources``
checks each cited sentence against the chunk it cites, with one judge request per cited
chunk, and scores the share of citations that hold. An answer that cites nothing scores
0.0. The metric's ``default_threshold`` gates it unless rag_gate.yaml sets another.
"""

from __future__ import annotations

import asyncio
import re

from pytest_ragas_gate import CaseJudge, GoldenCase, Metric, MetricResult, VerifyClaims

CITATION = re.compile(r"\s*\[([A-Za-z][\w-]*)\]")


class CitesSources(Metric):
    """Share of the answer's ``[id]`` citations whose sentence the cited chunk supports."""

    name = "cites_sources"
    required_fields: tuple[str, ...] = ("answer", "contexts")
    default_threshold: float | None = 0.75
    # Subclassing Metric gives the facts this metric does not declare their defaults
    # (lower_is_better False, the generic hint); it measures the generator's answers.
    stage = "generation"

    async def score(self, case: GoldenCase, judge: CaseJudge) -> MetricResult:
        chunks = {context.id: context.text for context in case.contexts or [] if context.id}
        cited: dict[str, list[str]] = {}
        for sentence in re.split(r"(?<=[.!?])\s+", case.answer or ""):
            for chunk_id in CITATION.findall(sentence):
                cited.setdefault(chunk_id, []).append(CITATION.sub("", sentence).strip())
        if not cited:
            return MetricResult(score=0.0, reason="the answer cites no source")

        async def check(chunk_id: str, sentences: list[str]) -> list[dict[str, object]]:
            if chunk_id not in chunks:
                return [
                    {
                        "chunk": chunk_id,
                        "sentence": text,
                        "supported": False,
                        "reason": "cites a chunk that was not retrieved",
                    }
                    for text in sentences
                ]
            # The judge returns a verdict per sentence; the score is computed here.
            reply = await judge.ask(VerifyClaims(claims=sentences, contexts=[chunks[chunk_id]]))
            return [
                {
                    "chunk": chunk_id,
                    "sentence": verdict.claim,
                    "supported": verdict.supported,
                    "reason": verdict.reason,
                }
                for verdict in reply.verdicts
            ]

        checked = await asyncio.gather(*(check(key, texts) for key, texts in cited.items()))
        details = [detail for group in checked for detail in group]
        supported = sum(1 for detail in details if detail["supported"])
        return MetricResult(
            score=supported / len(details),
            details=details,
            reason=f"{supported} of {len(details)} citation(s) supported by the cited chunk",
        )


def pytest_rag_gate_metrics() -> list[Metric]:
    """Register the custom metric with the gate."""
    return [CitesSources()]
