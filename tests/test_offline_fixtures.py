"""The offline judge on small labelled fixtures, one file per known failure class.

Each row is judged exactly as the faithfulness metric judges it (claims, then verdicts); a
row is hallucinated when any claim is not supported. Rows marked ``known_limit`` name what
the offline judge still gets wrong; they are measured by ``benchmarks/offline_agreement.py``
and kept out of these assertions.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_ragas_gate.judges.offline.judge import OfflineJudge
from pytest_ragas_gate.judges.requests import ExtractClaims, VerifyClaims

FIXTURES = Path(__file__).parent / "data" / "offline_fixtures"
LABELLED = ["values", "short_answers", "structured_records", "long_lists"]


def rows(name: str) -> list[dict[str, Any]]:
    lines = (FIXTURES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def pinned(name: str) -> list[Any]:
    return [pytest.param(row, id=row["id"]) for row in rows(name) if not row.get("known_limit")]


def verdicts(question: str, answer: str, contexts: list[str]) -> list[Any]:
    judge = OfflineJudge()
    claims = asyncio.run(judge.ask(ExtractClaims(question=question, answer=answer))).reply.claims
    assert claims, f"no claims in {answer!r}"
    request = VerifyClaims(claims=claims, contexts=contexts)
    return list(asyncio.run(judge.ask(request)).reply.verdicts)


@pytest.mark.parametrize("row", [param for name in LABELLED for param in pinned(name)])
def test_fixture_row_is_judged_as_labelled(row: dict[str, Any]) -> None:
    found = verdicts(row["question"], row["answer"], row["contexts"])
    unsupported = [verdict.claim for verdict in found if not verdict.supported]
    if row["label"]:
        assert unsupported, f"hallucinated answer passed: {row['answer']!r}"
    else:
        assert not unsupported, f"faithful answer failed on {unsupported}"


@pytest.mark.parametrize("row", pinned("contradictions"))
def test_fixture_claim_gets_its_three_way_verdict(row: dict[str, Any]) -> None:
    request = VerifyClaims(claims=[row["claim"]], contexts=row["contexts"])
    verdict = asyncio.run(OfflineJudge().ask(request)).reply.verdicts[0]
    assert verdict.verdict == row["verdict"], verdict.reason


def test_every_failure_class_has_english_and_chinese_rows() -> None:
    for name in [*LABELLED, "contradictions"]:
        assert {row["lang"] for row in rows(name)} == {"en", "zh"}, name


def test_known_limits_say_what_goes_wrong() -> None:
    limits = [row for name in [*LABELLED, "contradictions"] for row in rows(name)]
    assert all(
        isinstance(row["known_limit"], str) and row["known_limit"]
        for row in limits
        if "known_limit" in row
    )
