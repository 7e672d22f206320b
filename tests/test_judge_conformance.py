"""What every judge does, built-in or a team's own: one suite, run by each.

Each judge answers through the gate's ``MeteredJudge`` as a run uses it; the SDK judges
and the example judge of ``examples/custom_judge.py`` talk to tests/fakellm.py over HTTP.
A judge that sends nothing (offline) has no faults to survive and is never cached: those
checks assert exactly that of it.
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fakellm import INVALID, FakeLLM, status

from pytest_ragas_gate import AskContext, Judge, JudgeCapabilities, JudgeSetup
from pytest_ragas_gate.exceptions import JudgeError, JudgeReplyError
from pytest_ragas_gate.judges.anthropic_judge import AnthropicJudge
from pytest_ragas_gate.judges.base import NO_CONTEXT
from pytest_ragas_gate.judges.cache import JudgeCache
from pytest_ragas_gate.judges.metered import MeteredJudge
from pytest_ragas_gate.judges.offline.judge import OfflineJudge
from pytest_ragas_gate.judges.openai_judge import OpenAIJudge
from pytest_ragas_gate.judges.requests import ClaimVerdicts, VerifyClaims
from pytest_ragas_gate.judges.transport import RetryPolicy

KEY = "test-key-not-real"
FAST = RetryPolicy(max_retries=1, base_delay_s=0.01, max_delay_s=0.02)
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "custom_judge.py"

REQUEST = VerifyClaims(
    claims=["Paris is the capital of France.", "Paris has a population of 40 million."],
    contexts=["Paris is the capital and largest city of France, with 2.1 million residents."],
)


def example_factory() -> Callable[[JudgeSetup], Judge]:
    spec = importlib.util.spec_from_file_location("custom_judge", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    factory: Callable[[JudgeSetup], Judge] = module.factory
    return factory


def build(kind: str, server: FakeLLM) -> Judge:
    sdk: dict[str, Any] = {"api_key": KEY, "timeout_s": 2.0, "retry_policy": FAST, "seed": 0}
    if kind == "anthropic":
        return AnthropicJudge(base_url=server.url, **sdk)
    if kind == "openai":
        return OpenAIJudge(base_url=server.openai_url, **sdk)
    if kind == "offline":
        return OfflineJudge()
    env = {"MYCORP_EVAL_URL": server.url, "MYCORP_EVAL_TOKEN": KEY}
    return example_factory()(JudgeSetup(kind="mycorp", env=env, timeout_s=2.0))


KINDS = ["anthropic", "openai", "offline", "mycorp"]


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    kind: str = request.param
    return kind


@pytest.fixture
def server() -> Iterator[FakeLLM]:
    with FakeLLM(required_key=KEY) as running:
        yield running


def metered(kind: str, server: FakeLLM, cache: JudgeCache | None = None) -> MeteredJudge:
    return MeteredJudge(build(kind, server), cache=cache)


def ask(judge: MeteredJudge, context: AskContext = NO_CONTEXT) -> Any:
    async def once() -> Any:
        try:
            return await judge.ask(REQUEST, context=context)
        finally:
            await judge.aclose()

    return asyncio.run(once())


def sends(kind: str) -> bool:
    return kind != "offline"


def test_it_says_who_it_is_and_what_it_can_do(kind: str, server: FakeLLM) -> None:
    judge = build(kind, server)
    assert judge.kind == kind
    assert isinstance(judge.model, str) and judge.model
    assert isinstance(judge.capabilities, JudgeCapabilities)


def test_a_reply_is_the_request_s_validated_reply_model(kind: str, server: FakeLLM) -> None:
    answer = ask(metered(kind, server))
    assert isinstance(answer.reply, ClaimVerdicts)
    # One verdict per claim, in order: what the request's own check demands.
    assert [verdict.claim for verdict in answer.reply.verdicts] == REQUEST.claims
    assert answer.reply.verdicts[0].verdict == "supported"


def test_usage_counts_every_call_and_its_tokens(kind: str, server: FakeLLM) -> None:
    judge = metered(kind, server)
    answer = ask(judge)
    if not sends(kind):
        assert (answer.usage.calls, answer.usage.input_tokens, server.calls) == (0, 0, 0)
        return
    assert answer.usage.calls == server.calls == 1
    assert answer.usage.input_tokens > 0 and answer.usage.output_tokens > 0
    assert (judge.calls, judge.input_tokens) == (1, answer.usage.input_tokens)


def test_an_invalid_reply_is_asked_again_and_both_calls_count(kind: str, server: FakeLLM) -> None:
    if not sends(kind):
        pytest.skip("the offline judge sends nothing, so no reply of it is ever invalid")
    server.fail(INVALID, calls=[1])
    answer = ask(metered(kind, server))
    assert isinstance(answer.reply, ClaimVerdicts)
    assert answer.usage.calls == server.calls == 2


def test_a_reply_invalid_every_time_is_an_error_never_a_score(kind: str, server: FakeLLM) -> None:
    if not sends(kind):
        pytest.skip("the offline judge sends nothing, so no reply of it is ever invalid")
    server.fail(INVALID)
    judge = metered(kind, server)
    with pytest.raises(JudgeReplyError, match="no valid reply to the verify_claims request"):
        ask(judge)
    # The rejected replies were paid for: they count towards the totals and the budgets.
    assert judge.errors == 1 and judge.calls == server.calls == 3


def test_a_failing_service_is_a_judge_error_without_the_key(kind: str, server: FakeLLM) -> None:
    if not sends(kind):
        pytest.skip("the offline judge sends nothing, so nothing of it can fail")
    server.fail(status(500))
    judge = metered(kind, server)
    with pytest.raises(JudgeError) as raised:
        ask(judge)
    assert "500" in str(raised.value) and KEY not in str(raised.value)
    assert judge.errors == 1


def test_a_cached_reply_is_replayed_and_each_repeat_keyed_apart(
    kind: str, server: FakeLLM, tmp_path: Path
) -> None:
    first = ask(metered(kind, server, JudgeCache(tmp_path, "readwrite")))
    replayer = metered(kind, server, JudgeCache(tmp_path, "read"))
    if not sends(kind):
        # Deterministic and free: never cached, so a read-mode cache changes nothing.
        assert ask(replayer).reply == first.reply and replayer.cache_hits == 0
        assert not list(tmp_path.rglob("*.json"))
        return
    replayed = ask(replayer)
    assert replayed.reply == first.reply and replayed.usage.cache_hits == 1
    assert server.calls == 1
    # Another repeat of a repeated judgement is a judgement of its own, never a replay.
    again = metered(kind, server, JudgeCache(tmp_path, "readwrite"))
    ask(again, AskContext(repeat=1))
    assert server.calls == 2 and again.cache_hits == 0


def test_a_judge_without_embeddings_says_so(kind: str, server: FakeLLM) -> None:
    judge = build(kind, server)
    if judge.capabilities.embeddings:
        embedded = asyncio.run(judge.embed(["hello", "world"], context=NO_CONTEXT))
        assert len(embedded.vectors) == 2 and embedded.usage.calls == 1
        return
    with pytest.raises(JudgeError, match="no embeddings"):
        asyncio.run(judge.embed(["hello"], context=NO_CONTEXT))
