"""The OpenAI-compatible judge through the real SDK against the local fake server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fakellm import INVALID, FakeCall, FakeLLM, Raw, default_reply, status
from gate_runs import EVERY_KIND

from pytest_ragas_gate.exceptions import JudgeError, JudgeReplyError
from pytest_ragas_gate.judges.metered import MeteredJudge
from pytest_ragas_gate.judges.openai_judge import OpenAIJudge
from pytest_ragas_gate.judges.requests import ExtractClaims, JudgeRequest
from pytest_ragas_gate.judges.transport import RetryPolicy
from pytest_ragas_gate.scoring.results import CaseResult
from pytest_ragas_gate.usage import Usage

KEY = "test-key-not-real"
FAST = RetryPolicy(max_retries=3, base_delay_s=0.01, max_delay_s=0.05)


def make_judge(server: FakeLLM, **overrides: Any) -> OpenAIJudge:
    settings: dict[str, Any] = {
        "api_key": KEY,
        "base_url": server.openai_url,
        "timeout_s": 2.0,
        "retry_policy": FAST,
        "seed": 0,
    }
    settings.update(overrides)
    return OpenAIJudge(**settings)


async def ask_once(judge: OpenAIJudge | MeteredJudge, request: JudgeRequest[Any]) -> Any:
    try:
        return await judge.ask(request)
    finally:
        await judge.aclose()


@pytest.mark.parametrize("request_", EVERY_KIND, ids=lambda request: request.kind)
def test_every_request_kind_is_answered_and_validated(
    fake_llm: FakeLLM, request_: JudgeRequest[Any]
) -> None:
    answer = asyncio.run(ask_once(make_judge(fake_llm), request_))

    assert isinstance(answer.reply, request_.reply_type)
    assert answer.usage.calls == 1 and answer.usage.input_tokens > 0
    body = fake_llm.judge_requests()[0].body
    assert body["temperature"] == 0
    # One response format and one system prompt (the rules) for all kinds: a per-kind
    # json_schema, rendered before the system message, would break the prefix OpenAI
    # caches. Each request's own task and reply schema close its user message, so no
    # request pays for another kind's.
    assert body["response_format"] == {"type": "json_object"}
    assert [message["role"] for message in body["messages"]] == ["system", "user"]
    system, user = (message["content"] for message in body["messages"])
    assert "Reply schema" not in system and "Task:" not in system
    ending = user[user.index(f"Request kind: {request_.kind}.") :]
    assert "$defs" not in ending
    assert "\nTask: " in ending and "\nReply schema: {" in ending
    other_kinds = [kind for kind in EVERY_KIND if kind.kind != request_.kind]
    assert all(f"Request kind: {kind.kind}." not in user for kind in other_kinds)


def test_reasoning_models_get_no_temperature(fake_llm: FakeLLM) -> None:
    asyncio.run(ask_once(make_judge(fake_llm, model="gpt-5.4-mini"), EVERY_KIND[4]))

    assert "temperature" not in fake_llm.judge_requests()[0].body


def test_fenced_json_content_is_parsed(fake_llm: FakeLLM) -> None:
    fake_llm.responder = lambda call: Raw('```json\n{"claims": ["A is B."]}\n```')

    answer = asyncio.run(ask_once(make_judge(fake_llm), EVERY_KIND[0]))

    assert answer.reply.claims == ["A is B."]


def test_schema_invalid_reply_is_reasked_then_succeeds(fake_llm: FakeLLM) -> None:
    fake_llm.fail(INVALID, calls=[1])

    answer = asyncio.run(ask_once(make_judge(fake_llm), EVERY_KIND[1]))

    assert answer.usage.calls == 2
    roles = [m["role"] for m in fake_llm.judge_requests()[1].body["messages"]]
    assert roles == ["system", "user", "assistant", "user"]


def test_reasks_exhausted_raise_a_reply_error(fake_llm: FakeLLM) -> None:
    def never_json(call: FakeCall) -> dict[str, Any] | Raw:
        return Raw("Sure! Everything looks supported.")

    fake_llm.responder = never_json

    with pytest.raises(JudgeReplyError, match="verify_claims.*2 attempts.*not a JSON object"):
        asyncio.run(ask_once(make_judge(fake_llm, max_reasks=1), EVERY_KIND[1]))


def test_429_then_500_then_success(fake_llm: FakeLLM) -> None:
    fake_llm.fail(status(429, retry_after="0"), calls=[1])
    fake_llm.fail(status(500), calls=[2])

    answer = asyncio.run(ask_once(make_judge(fake_llm), EVERY_KIND[4]))

    assert answer.usage.retries == 2


def test_bad_key_fails_at_once_without_the_key_in_the_message(fake_llm: FakeLLM) -> None:
    fake_llm.required_key = "the-right-key"

    with pytest.raises(JudgeError) as caught:
        asyncio.run(ask_once(make_judge(fake_llm), EVERY_KIND[4]))

    assert len(fake_llm.requests) == 1
    assert "HTTP 401" in str(caught.value) and KEY not in str(caught.value)


def test_a_stepped_down_server_gets_the_kinds_json_schema(fake_llm: FakeLLM) -> None:
    original = fake_llm.responder
    seen: list[str | None] = []

    def responder(call: FakeCall) -> dict[str, Any] | Raw:
        seen.append((call.body.get("response_format") or {}).get("type"))
        return original(call)

    fake_llm.responder = responder
    judge = make_judge(fake_llm)
    judge.response_format = "json_schema"

    asyncio.run(ask_once(judge, EVERY_KIND[4]))

    assert seen == ["json_schema"]
    schema = fake_llm.judge_requests()[0].body["response_format"]["json_schema"]
    assert schema["name"] == "record_rate_relevancy" and schema["strict"] is False
    assert "$defs" not in schema["schema"]


def test_chinese_content_round_trips(fake_llm: FakeLLM) -> None:
    request = ExtractClaims(question="谁创立了苹果公司？", answer="苹果公司由乔布斯创立。")

    answer = asyncio.run(ask_once(make_judge(fake_llm), request))

    assert answer.reply.claims == ["苹果公司由乔布斯创立。"]


def test_embeddings(fake_llm: FakeLLM) -> None:
    judge = make_judge(fake_llm, embedding_model="fake-embed")

    async def run() -> tuple[list[list[float]], Any]:
        try:
            return await judge.embed_with_usage(["hello world", "hello world", "other"])
        finally:
            await judge.aclose()

    vectors, usage = asyncio.run(run())

    assert len(vectors) == 3 and vectors[0] == vectors[1] and vectors[0] != vectors[2]
    assert usage.calls == 1 and usage.input_tokens > 0
    recorded = [r for r in fake_llm.requests if r.path == "/v1/embeddings"][0]
    assert recorded.body["model"] == "fake-embed"
    assert recorded.body["encoding_format"] == "float"


def test_default_reply_is_used_for_unknown_responders(fake_llm: FakeLLM) -> None:
    fake_llm.responder = default_reply

    answer = asyncio.run(ask_once(make_judge(fake_llm), EVERY_KIND[6]))

    assert [v.relevant for v in answer.reply.verdicts] == [True, False]


def test_priced_usage_is_stored_in_a_result_and_read_back_unchanged(fake_llm: FakeLLM) -> None:
    judge = MeteredJudge(make_judge(fake_llm, model="gpt-4o-mini"))
    answer = asyncio.run(ask_once(judge, EVERY_KIND[0]))
    assert answer.usage.calls == 1 and answer.usage.cost_usd > 0

    result = CaseResult(id="c1", source="golden.jsonl:1", usage={"faithfulness": answer.usage})
    reloaded = CaseResult.model_validate_json(result.model_dump_json())

    assert reloaded.usage["faithfulness"] == answer.usage == judge.totals
    assert sum(reloaded.usage.values(), Usage()) == answer.usage
