"""Provider prompt caching: the requests of a case share a byte-identical prefix, the
providers report reading it (as the fake server does, the way the real APIs do), and the
gate counts and prices the cached tokens in its usage and reports."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import pytest
from fakellm import FakeLLM
from gate_runs import TEST_KEY, make_judge, read_report, use_fake_judge, write_config, write_golden

from pytest_ragas_gate.judges.metered import MeteredJudge
from pytest_ragas_gate.judges.openai_judge import OpenAIJudge
from pytest_ragas_gate.judges.pricing import PriceTable
from pytest_ragas_gate.judges.prompts import build_prompt, request_nonce
from pytest_ragas_gate.judges.requests import (
    ExtractClaims,
    JudgeChunks,
    JudgeRequest,
    ReviewContexts,
    VerifyClaims,
)
from pytest_ragas_gate.judges.transport import RetryPolicy

#: Five chunks of about 300 words each, as a realistic retriever returns them.
CONTEXTS = [
    " ".join(
        f"Chunk {chunk} sentence {n}: Apple was founded in 1976 in Cupertino." for n in range(40)
    )
    for chunk in range(5)
]
QUESTION = "Who founded Apple and when?"
REFERENCE = "Apple was founded in 1976 by Steve Jobs and Steve Wozniak."


def case_requests(contexts: list[str] = CONTEXTS) -> list[JudgeRequest[Any]]:
    """The two requests of a case that read its contexts, writer first."""
    return [
        ReviewContexts(question=QUESTION, reference=REFERENCE, contexts=contexts),
        VerifyClaims(claims=["Apple was founded in 1976."], contexts=contexts),
    ]


def openai_judge(server: FakeLLM) -> OpenAIJudge:
    return OpenAIJudge(
        api_key=TEST_KEY,
        base_url=server.openai_url,
        timeout_s=2.0,
        retry_policy=RetryPolicy(max_retries=2, base_delay_s=0.01),
    )


async def ask_all(judge: Any, requests: list[JudgeRequest[Any]]) -> list[Any]:
    try:
        return list(await asyncio.gather(*(judge.ask(request) for request in requests)))
    finally:
        await judge.aclose()


# --- the layout ---------------------------------------------------------------------------


def test_requests_sharing_contexts_share_their_prefix_and_data_block_id() -> None:
    review, verify = (build_prompt(request) for request in case_requests())
    extract = build_prompt(ExtractClaims(question=QUESTION, answer="Apple is from 1976."))
    chunks = build_prompt(
        JudgeChunks(question=QUESTION, target=QUESTION, against="question", chunks=CONTEXTS)
    )

    assert review.system == verify.system == extract.system == chunks.system
    assert review.prefix == verify.prefix == chunks.prefix
    assert review.nonce == verify.nonce == chunks.nonce != extract.nonce
    assert review.prefix.startswith(f'The data blocks of this request carry id="{review.nonce}".')
    assert all(context in review.prefix for context in CONTEXTS)
    # Only the request's own data and its kind follow the shared prefix.
    assert QUESTION in review.rest and QUESTION not in review.prefix
    assert review.rest.endswith("reply through the record_review_contexts tool.")
    assert extract.prefix == ""
    other = build_prompt(case_requests([*CONTEXTS[:4], "Another chunk."])[0])
    assert other.nonce != review.nonce


def test_the_data_block_id_cannot_be_predicted_from_the_text() -> None:
    """The id is keyed per process: the same contexts get another id in another run, so
    no answer or context can carry a closing tag with the id of its own block."""
    program = (
        "from pytest_ragas_gate.judges.prompts import request_nonce\n"
        "from pytest_ragas_gate.judges.requests import VerifyClaims\n"
        "print(request_nonce(VerifyClaims(claims=['x'], contexts=['c'])))\n"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", program], capture_output=True, text=True, check=True
        ).stdout.strip()
        for _ in range(2)
    }
    assert len(runs) == 2
    here = request_nonce(VerifyClaims(claims=["x"], contexts=["c"]))
    assert here == request_nonce(VerifyClaims(claims=["y"], contexts=["c"]))
    assert here not in runs


# --- Anthropic ----------------------------------------------------------------------------


def test_anthropic_breakpoints_write_the_case_prefix_once_and_read_it_after(
    fake_llm: FakeLLM,
) -> None:
    fake_llm.latency_s = 0.05
    # Sent at the same moment: the verification waits for the review, which writes.
    review, verify = asyncio.run(ask_all(make_judge(fake_llm), case_requests()))

    first, second = fake_llm.judge_requests()
    assert second.received_s >= (first.answered_s or 0.0)
    for body in (first.body, second.body):
        assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
        assert body["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}
        assert "cache_control" not in body["messages"][0]["content"][1]
    assert first.body["system"] == second.body["system"]
    assert first.body["tools"] == second.body["tools"]
    assert first.body["tool_choice"] == second.body["tool_choice"]
    prefix = first.body["messages"][0]["content"][0]
    assert prefix == second.body["messages"][0]["content"][0]

    assert review.usage.cache_read_tokens == 0
    assert review.usage.cache_write_tokens > 1_500
    assert verify.usage.cache_read_tokens == review.usage.cache_write_tokens
    assert verify.usage.cache_write_tokens == 0
    # The gate's input tokens count every prompt token, cached ones included.
    assert verify.usage.input_tokens > verify.usage.cache_read_tokens


def test_another_case_reads_the_shared_system_prompt_only(fake_llm: FakeLLM) -> None:
    judge = make_judge(fake_llm)
    asyncio.run(ask_all(judge, case_requests()[:1]))
    other_case = case_requests([f"{context} (other case)" for context in CONTEXTS])[:1]

    (answer,) = asyncio.run(ask_all(make_judge(fake_llm), other_case))

    system_tokens = answer.usage.cache_read_tokens
    assert 1_000 < system_tokens < 2_500  # tools and system prompt, not the contexts
    assert answer.usage.cache_write_tokens > 1_500  # this case's contexts


def test_a_prefix_below_the_minimum_is_not_cached(fake_llm: FakeLLM) -> None:
    fake_llm.cache_min_tokens = 100_000

    answers = asyncio.run(ask_all(make_judge(fake_llm), case_requests()))

    assert all(a.usage.cache_read_tokens == a.usage.cache_write_tokens == 0 for a in answers)
    usage = fake_llm.judge_requests()[1]
    assert usage.body["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}


# --- OpenAI -------------------------------------------------------------------------------


def test_openai_automatic_prefix_caching_is_read_and_counted(fake_llm: FakeLLM) -> None:
    review, verify = asyncio.run(ask_all(openai_judge(fake_llm), case_requests()))

    first, second = fake_llm.judge_requests()
    assert first.body["messages"][0] == second.body["messages"][0]
    assert first.body["response_format"] == second.body["response_format"]
    assert review.usage.cache_read_tokens == 0
    # Automatic caching reads the longest seen prefix in 128-token steps from 1,024.
    assert verify.usage.cache_read_tokens >= 1_024 + 1_500
    assert (verify.usage.cache_read_tokens - 1_024) % 128 == 0
    assert verify.usage.cache_write_tokens == 0


# --- cost ---------------------------------------------------------------------------------


def test_cache_reads_and_writes_are_priced_at_the_providers_rates(fake_llm: FakeLLM) -> None:
    judge = MeteredJudge(make_judge(fake_llm, model="claude-haiku-4-5"), pricing=PriceTable())

    review, verify = asyncio.run(ask_all(judge, case_requests()))

    for answer in (review, verify):
        usage = answer.usage
        uncached = usage.input_tokens - usage.cache_read_tokens - usage.cache_write_tokens
        expected = (
            uncached * 1.0
            + usage.cache_write_tokens * 1.25
            + usage.cache_read_tokens * 0.1
            + usage.output_tokens * 5.0
        ) / 1e6
        assert usage.cost_usd == pytest.approx(expected)
    assert verify.usage.cost_usd < review.usage.cost_usd / 3
    assert judge.totals.cache_read_tokens == verify.usage.cache_read_tokens


def test_configured_prices_keep_the_providers_cache_ratios() -> None:
    from pytest_ragas_gate.judges.pricing import ModelPrice

    table = PriceTable(
        {
            "claude-new": ModelPrice(input_per_mtok=4.0, output_per_mtok=20.0),
            "my-model": ModelPrice(
                input_per_mtok=1.0,
                output_per_mtok=1.0,
                cache_read_per_mtok=0.5,
                batch_discount=0.25,
            ),
        }
    )

    read = table.cost("claude-new", input_tokens=10**6, output_tokens=0, cache_read_tokens=10**6)
    assert read.usd == pytest.approx(0.4)
    cost = table.cost(
        "my-model", input_tokens=2 * 10**6, output_tokens=0, cache_read_tokens=10**6, batch=True
    )
    assert cost.usd == pytest.approx((1.0 + 0.5) * 0.75)


# --- end to end ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_the_summary_and_report_show_prompt_cache_tokens(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, api: str
) -> None:
    rows = [
        {
            "id": f"case-{i}",
            "question": QUESTION,
            "answer": "Apple was founded in 1976.",
            "contexts": [f"{context} Case {i}." for context in CONTEXTS],
            "reference": REFERENCE,
        }
        for i in range(3)
    ]
    write_golden(pytester.path, rows)
    # The fake server stands for OpenAI's API, which auto would not probe.
    formats = {"structured_output": "json_object"} if api == "openai" else {}
    write_config(pytester.path, judge=api, cache="off", thresholds={}, **formats)
    with FakeLLM() as server:
        use_fake_judge(monkeypatch, server, api)
        result = pytester.runpytest(
            "--rag-gate",
            "--rag-gate-metrics=faithfulness,context_relevance",
            "--rag-gate-report=report.json",
        )

    result.stdout.fnmatch_lines(
        [
            "judge usage: 9 calls, * input + * output tokens, $* (* input tokens read from the "
            "provider's prompt cache, * written to it), 0 cache hits, 0 retries"
        ]
    )
    usage = read_report(pytester.path / "report.json")["usage"]
    assert usage["cache_read_tokens"] > 0.35 * usage["input_tokens"]
    assert usage["by_metric"]["faithfulness"]["cache_read_tokens"] > 0
    if api == "anthropic":
        assert usage["cache_write_tokens"] > 0
