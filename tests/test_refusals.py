"""One definition of a refusal on every judge: it has no claims.

The same English and Chinese cases are gated with the offline judge and, through the real
SDKs against the local fake server, the anthropic and openai judges. A refusal makes
faithfulness not applicable (never "0 of 1 claims supported"), scores 0 on answer
relevancy (noncommittal), and is the right answer of an unanswerable case (empty
``reference_contexts``, or a reference saying the documents do not tell).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fakellm import FakeLLM

KEY = "test-key-not-real"
CONTEXTS = ["The Zorblax plan gives each user 2 TB of storage.", "Support is on weekdays."]
ZH_CONTEXTS = ["Zorblax 套餐为每位用户提供 2 TB 存储空间。", "客服在工作日提供支持。"]

CASES: list[dict[str, Any]] = [
    # Unanswerable by its empty reference_contexts (as `rag-gate synth` writes them).
    {
        "id": "en-refusal-unanswerable",
        "question": "What is the warranty period of the Zorblax plan?",
        "answer": "I don't know.",
        "contexts": CONTEXTS,
        "reference": "The warranty period is not covered.",
        "reference_contexts": [],
    },
    # Unanswerable by its reference, which says the documents do not tell.
    {
        "id": "zh-refusal-unanswerable",
        "question": "Zorblax 套餐的保修期是多久？",
        "answer": "抱歉，我无法回答这个问题。",
        "contexts": ZH_CONTEXTS,
        "reference": "文档中没有提到这一点，无法根据文档回答。",
    },
    {
        "id": "en-claim-unanswerable",
        "question": "What is the warranty period of the Zorblax plan?",
        "answer": "The Zorblax warranty lasts five years.",
        "contexts": CONTEXTS,
        "reference": "The documents do not say.",
    },
    # An answerable case: a refusal still has no claims, and misses the reference.
    {
        "id": "en-refusal-answerable",
        "question": "How much storage does the Zorblax plan give each user?",
        "answer": "I don't know.",
        "contexts": CONTEXTS,
        "reference": "The Zorblax plan gives each user 2 TB of storage.",
    },
    {
        "id": "zh-refusal-answerable",
        "question": "Zorblax 套餐为每位用户提供多少存储空间？",
        "answer": "无法回答。",
        "contexts": ZH_CONTEXTS,
        "reference": "Zorblax 套餐为每位用户提供 2 TB 存储空间。",
    },
]

EXPECTED: dict[str, dict[str, float | None]] = {
    "en-refusal-unanswerable": {
        "faithfulness": None,
        "answer_relevancy": 0.0,
        "answer_correctness": 1.0,
    },
    "zh-refusal-unanswerable": {
        "faithfulness": None,
        "answer_relevancy": 0.0,
        "answer_correctness": 1.0,
    },
    "en-claim-unanswerable": {"answer_correctness": 0.0},
    "en-refusal-answerable": {
        "faithfulness": None,
        "answer_relevancy": 0.0,
        "answer_correctness": 0.0,
    },
    "zh-refusal-answerable": {
        "faithfulness": None,
        "answer_relevancy": 0.0,
        "answer_correctness": 0.0,
    },
}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        yield fake


@pytest.mark.parametrize("judge", ["offline", "anthropic", "openai"])
def test_every_judge_scores_refusals_by_one_definition(
    pytester: pytest.Pytester, server: FakeLLM, judge: str
) -> None:
    golden = "".join(json.dumps(case, ensure_ascii=False) + "\n" for case in CASES)
    (pytester.path / "golden.jsonl").write_text(golden, encoding="utf-8")
    result = pytester.runpytest(
        "--rag-gate",
        "--rag-gate-judge",
        judge,
        "--rag-gate-metrics",
        "faithfulness,answer_relevancy,answer_correctness",
        "--rag-gate-report",
        "report.json",
        "-v",
    )
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    found = {case["id"]: case for case in report["cases"]}
    for case_id, expected in EXPECTED.items():
        scores = found[case_id]["scores"]
        assert found[case_id]["errors"] == {}, found[case_id]["errors"]
        assert {metric: scores[metric] for metric in expected} == expected, case_id
    refusal = found["zh-refusal-unanswerable"]
    assert refusal["reasons"]["faithfulness"] == "the answer makes no factual claims"
    assert "0 of 1 claims supported" not in result.stdout.str()
    if judge != "offline":
        # An unanswerable case's verdict comes from the claims alone: no classification.
        kinds = [server.kind_of(request) for request in server.judge_requests()]
        assert kinds.count("classify_correctness") == 2


REFUSALS = [
    "I'm sorry, the documents do not say what the warranty period is.",
    "I'm sorry, the documents do not say…",
    "The provided context does not mention the warranty period of the Zorblax plan.",
    "Unfortunately the documents do not state how long the warranty lasts.",
    "That information is not in the documents.",
    "Sorry — the context doesn't cover warranties.",
]


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_refusal_in_a_full_sentence_is_not_applicable_offline(
    pytester: pytest.Pytester, xdist: list[str]
) -> None:
    # Cut into phrases, "the documents do not say what the warranty period is" left
    # "… what the warranty period is" as a claim: faithfulness 0 instead of n/a.
    rows = [
        {
            "id": f"refusal-{index}",
            "question": "What is the warranty period of the Zorblax plan?",
            "answer": answer,
            "contexts": CONTEXTS,
        }
        for index, answer in enumerate(REFUSALS)
    ]
    rows.append({**rows[0], "id": "claim", "answer": "The Zorblax plan gives 2 TB of storage."})
    golden = "".join(json.dumps(row) + "\n" for row in rows)
    (pytester.path / "golden.jsonl").write_text(golden, encoding="utf-8")
    result = pytester.runpytest(
        "--rag-gate",
        "--rag-gate-judge",
        "offline",
        "--rag-gate-metrics",
        "faithfulness",
        "--rag-gate-output",
        "json=report.json",
        *xdist,
    )
    assert result.ret == 0, result.stdout.str()
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    scores = {case["id"]: case["scores"]["faithfulness"] for case in report["cases"]}
    assert scores == {**{f"refusal-{index}": None for index in range(len(REFUSALS))}, "claim": 1.0}
    assert report["metrics"]["faithfulness"]["n"] == 1
