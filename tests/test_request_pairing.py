"""One request with the contexts where faithfulness and the context metrics would send two.

End to end through the real SDKs against the fake server: what is sent, what it costs,
and that scores, errors and cached re-runs are those of the two requests sent apart.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fakellm import FakeLLM, Recorded, _segments
from gate_runs import read_report
from test_plugin_judges import KEY, case, requests_by_case, scores_of, write_cases

from pytest_ragas_gate.judges.offline.judge import OfflineJudge
from pytest_ragas_gate.judges.requests import ReviewCase, ReviewContexts, VerifyClaims

CORE_METRICS = "faithfulness,answer_relevancy,context_precision,context_recall"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        yield fake


def run(pytester: pytest.Pytester, judge: str, metrics: str, *extra: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--rag-gate",
        "--rag-gate-judge",
        judge,
        "--rag-gate-metrics",
        metrics,
        "--rag-gate-report",
        "report.json",
        "--rag-gate-report-details",
        "full",
        *extra,
    )


def report_of(pytester: pytest.Pytester) -> dict[str, Any]:
    return read_report(pytester.path / "report.json")


def sends_contexts(request: Recorded, index: int) -> bool:
    """Whether ``request`` carries case ``index``'s second retrieved context (not in its answer)."""
    return case(index)["contexts"][1] in request.text


def contexts_block(request: Recorded) -> dict[str, Any]:
    """The Anthropic user message's first block: the contexts."""
    block: dict[str, Any] = request.body["messages"][0]["content"][0]
    return block


@pytest.mark.parametrize("judge", ["anthropic", "openai"])
def test_the_contexts_of_a_case_are_sent_once_and_each_metric_reads_its_part(
    pytester: pytest.Pytester, server: FakeLLM, judge: str
) -> None:
    count = 3
    write_cases(pytester, count)
    result = run(pytester, judge, CORE_METRICS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    for index, requests in requests_by_case(server, count).items():
        with_contexts = [request for request in requests if sends_contexts(request, index)]
        assert [server.kind_of(request) for request in with_contexts] == ["review_case"]
    details = {entry["id"]: entry["details"] for entry in report_of(pytester)["cases"]}
    # Each metric reads its own part of the one reply, as if asked apart.
    for index in range(count):
        row = case(index)
        verdicts = [detail["verdict"] for detail in details[row["id"]]["faithfulness"]]
        assert verdicts == ["supported", "supported"]
        assert len(details[row["id"]]["context_precision"]) == len(row["contexts"])
        assert len(details[row["id"]]["context_recall"]) == 1


def test_the_split_reply_equals_the_two_replies_asked_apart() -> None:
    row = case(0)
    verify = VerifyClaims(claims=row["answer"].split(". "), contexts=row["contexts"])
    review = ReviewContexts(
        question=row["question"], reference=row["reference"], contexts=row["contexts"]
    )
    judge = OfflineJudge()
    both = ReviewCase.of(verify, review).parse_reply(
        judge.answer(ReviewCase.of(verify, review)).model_dump()
    )
    assert both.claim_verdicts() == judge.answer(verify)
    assert both.context_review() == judge.answer(review)


def test_a_reply_that_misses_a_claim_or_a_chunk_is_asked_again() -> None:
    row = case(0)
    request = ReviewCase(
        question=row["question"],
        reference=row["reference"],
        claims=["a", "b"],
        contexts=row["contexts"],
    )
    verdict = {"claim": "a", "verdict": "supported"}
    chunks = [{"index": index, "relevant": True} for index in range(len(row["contexts"]))]
    with pytest.raises(ValueError, match="1 verdict\\(s\\) for 2 claim"):
        request.parse_reply({"verdicts": [verdict], "chunks": chunks, "statements": []})
    with pytest.raises(ValueError, match="index 2 is missing"):
        request.parse_reply(
            {"verdicts": [verdict, verdict], "chunks": chunks[:2], "statements": []}
        )


def test_context_metrics_alone_send_their_review_at_once(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    server.latency_s = 0.2
    write_cases(pytester, 2)
    result = run(pytester, "openai", "answer_relevancy,context_precision,context_recall")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    requests = server.judge_requests()
    assert sorted(server.kind_of(request) for request in requests) == [
        "rate_relevancy",
        "rate_relevancy",
        "review_contexts",
        "review_contexts",
    ]
    # Nothing held the reviews back: every request was sent before any was answered.
    first_answer = min(request.answered_s or 0.0 for request in requests)
    assert all(request.received_s < first_answer for request in requests)


def test_an_answer_without_claims_lets_the_review_go_alone(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    row = {**case(0), "answer": "I don't know."}
    (pytester.path / "golden.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    result = run(pytester, "anthropic", CORE_METRICS, "-p", "no:randomly")
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()
    kinds = sorted(server.kind_of(request) or "" for request in server.judge_requests())
    assert kinds == ["extract_claims", "rate_relevancy", "review_contexts"]
    scores = scores_of(report_of(pytester))["case-0"]
    assert scores["faithfulness"] is None
    assert scores["context_precision"] == 1.0 and scores["context_recall"] == 1.0


def test_a_failed_extraction_lets_the_review_go_alone(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    write_cases(pytester, 1)
    original = server.responder

    def responder(call: Any) -> Any:
        if call.kind == "extract_claims":
            return {"no": "claims"}  # never valid: re-asked, then a judge error
        return original(call)

    server.responder = responder
    result = run(pytester, "openai", CORE_METRICS)
    report = report_of(pytester)
    entry = report["cases"][0]
    assert "faithfulness" in entry["errors"], result.stdout.str()
    assert entry["scores"]["context_precision"] == 1.0
    assert entry["scores"]["context_recall"] == 1.0
    assert "review_contexts" in [server.kind_of(request) for request in server.judge_requests()]


def test_a_cached_rerun_replays_the_paired_request_without_calls(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    write_cases(pytester, 2)
    first = run(pytester, "openai", CORE_METRICS, "--rag-gate-cache", "readwrite")
    assert first.ret == pytest.ExitCode.OK, first.stdout.str()
    scores = scores_of(report_of(pytester))
    sent = len(server.judge_requests())
    assert sent == 6
    again = run(pytester, "openai", CORE_METRICS, "--rag-gate-cache", "readwrite")
    assert again.ret == pytest.ExitCode.OK, again.stdout.str()
    assert len(server.judge_requests()) == sent
    assert scores_of(report_of(pytester)) == scores


def test_anthropic_caches_the_contexts_only_when_another_request_reads_them(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    write_cases(pytester, 1)
    run(pytester, "anthropic", CORE_METRICS)
    (paired,) = [r for r in server.judge_requests() if server.kind_of(r) == "review_case"]
    assert "cache_control" not in contexts_block(paired)
    server.requests.clear()
    # Claim verification and context relevance both send the contexts: cached once.
    run(pytester, "anthropic", "faithfulness,context_relevance")
    with_contexts = [r for r in server.judge_requests() if sends_contexts(r, 0)]
    assert sorted(server.kind_of(r) or "" for r in with_contexts) == [
        "judge_chunks",
        "verify_claims",
    ]
    assert all("cache_control" in contexts_block(request) for request in with_contexts)


@pytest.mark.slow
def test_anthropic_writes_the_shared_system_block_once_per_run(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    server.latency_s = 0.1
    write_cases(pytester, 6)
    result = run(pytester, "anthropic", CORE_METRICS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    requests = sorted(server.judge_requests(), key=lambda request: request.received_s)
    # The first request goes alone and writes the tools and system block; every other
    # request of the run is sent after it is answered and reads them.
    assert all(request.received_s >= (requests[0].answered_s or 0.0) for request in requests[1:])
    shared = sum(
        tokens
        for identity, tokens, _ in _segments(requests[0].body)
        if identity.startswith(("tool:", "system:"))
    )
    usage = report_of(pytester)["usage"]
    assert usage["cache_write_tokens"] == shared
    assert usage["cache_read_tokens"] == shared * (len(requests) - 1)
