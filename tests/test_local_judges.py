"""The openai judge behind local servers: each server's structured-output dialect.

The fake server speaks each dialect as recorded from the real servers (llama-cpp-python
refuses ``json_schema`` with HTTP 500, LM Studio ``json_object`` with 400; vLLM, Ollama
and llama.cpp constrain ``json_schema``) and answers as a small model does: only a
schema-constrained reply fits the schema, a bare ``json_object`` gets ``{}``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeLLM, sent_schema, structured_output_of
from gate_runs import EVERY_KIND, TEST_KEY, case_row, gate_run, write_config, write_jsonl

from pytest_ragas_gate.judges.openai_judge import OpenAIJudge, StructuredOutputWarning
from pytest_ragas_gate.judges.requests import ReviewContexts, VerifyClaims
from pytest_ragas_gate.judges.structured_output import choose_structured_output
from pytest_ragas_gate.judges.transport import RetryPolicy

METRICS = "faithfulness,answer_relevancy,context_precision,context_recall"
FAST = {"timeout_s": 2.0, "retry_backoff_s": 0.005, "max_retries": 6, "max_reasks": 2}

#: The mode ``auto`` picks on each server.
AUTO_PICKS = {
    "llama-cpp-python": "json_object_schema",
    "llama.cpp": "json_schema",
    "lm-studio": "json_schema",
    "vllm": "json_schema",
    "ollama": "json_schema",
}


@pytest.fixture
def local_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        yield server


def local_gate(pytester: pytest.Pytester, cases: int = 3, **settings: Any) -> Any:
    write_jsonl(pytester, "golden.jsonl", [case_row(index) for index in range(cases)])
    write_config(pytester.path, model="gemma-3-270m", **FAST, **settings)
    return gate_run(
        pytester, "-p", "no:randomly", judge="openai", metrics=METRICS, cache_dir="cache"
    )


def scored_cases(report: dict[str, Any]) -> int:
    return sum(
        1
        for case in report["cases"]
        if not case.get("errors") and all(score is not None for score in case["scores"].values())
    )


@pytest.mark.slow
@pytest.mark.parametrize("dialect", sorted(AUTO_PICKS))
def test_auto_scores_every_case_on_each_server_with_constrained_replies(
    pytester: pytest.Pytester, local_server: FakeLLM, dialect: str
) -> None:
    local_server.dialect = dialect

    outcome = local_gate(pytester)

    report = outcome.report
    assert scored_cases(report) == 3, report["cases"]
    assert report["usage"]["retries"] == 0
    # One call per request: no reply was re-asked, none was refused.
    assert local_server.refusals == 0
    sent = {structured_output_of(request.body) for request in local_server.judge_requests()}
    assert sent == {AUTO_PICKS[dialect]}
    outcome.stdout.fnmatch_lines(
        [f"rag-gate: structured output {AUTO_PICKS[dialect]} (auto: the server at *"]
    )


@pytest.mark.slow
def test_the_probe_is_kept_per_server_and_model(
    pytester: pytest.Pytester, local_server: FakeLLM
) -> None:
    local_server.dialect = "llama-cpp-python"
    local_gate(pytester, cases=1, cache="off")
    first_probes = local_server.probes

    outcome = local_gate(pytester, cases=1, cache="off")

    # json_schema refused (500), json_object_schema constrained: two probes, once.
    assert first_probes == 2 and local_server.probes == 2
    outcome.stdout.fnmatch_lines(["*structured output json_object_schema*read from*cache*"])
    kept = next((pytester.path / "cache" / "structured_output").glob("*.json"))
    record = json.loads(kept.read_text(encoding="utf-8"))
    assert record["mode"] == "json_object_schema" and record["model"] == "gemma-3-270m"
    assert "no-key-needed" not in kept.read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_format_refused_with_500_steps_down_without_a_retry(
    pytester: pytest.Pytester, local_server: FakeLLM
) -> None:
    local_server.dialect = "llama-cpp-python"

    outcome = local_gate(pytester, structured_output="json_schema", concurrency=4)

    report = outcome.report
    assert scored_cases(report) == 3
    assert report["usage"]["retries"] == 0
    assert local_server.probes == 0
    sent = [structured_output_of(request.body) for request in local_server.judge_requests()]
    # Each request in flight when the first refusal came back is refused once, no more.
    assert 1 <= sent.count("json_schema") == local_server.refusals <= 4
    assert set(sent) == {"json_schema", "json_object_schema"}
    outcome.stdout.fnmatch_lines(["*refused structured output json_schema (HTTP 500)*"])


@pytest.mark.slow
def test_json_object_named_in_the_config_is_sent_as_is(
    pytester: pytest.Pytester, local_server: FakeLLM
) -> None:
    local_server.dialect = "vllm"

    outcome = local_gate(pytester, cases=1, structured_output="json_object")

    # The small model closes a bare JSON object at once: the reply is re-asked, then
    # the case errors, and the gate fails closed.
    assert scored_cases(outcome.report) == 0
    assert outcome.ret == 1
    outcome.stdout.fnmatch_lines(["*structured output json_object (set in the config)*"])


@pytest.mark.slow
def test_a_named_tool_call_carries_the_reply(
    pytester: pytest.Pytester, local_server: FakeLLM
) -> None:
    local_server.dialect = "vllm"

    outcome = local_gate(pytester, cases=2, structured_output="tools")

    assert scored_cases(outcome.report) == 2
    body = local_server.judge_requests()[0].body
    assert body["tool_choice"]["function"]["name"] == body["tools"][0]["function"]["name"]


@pytest.mark.slow
def test_lm_studio_refusing_json_object_is_never_sent_it(
    pytester: pytest.Pytester, local_server: FakeLLM
) -> None:
    local_server.dialect = "lm-studio"

    local_gate(pytester, cases=2)

    assert local_server.refusals == 0
    assert all("json_object" != structured_output_of(r.body) for r in local_server.requests)


def test_openai_api_keeps_json_object_and_sends_no_probe(tmp_path: Path) -> None:
    for base_url in (None, "https://api.openai.com/v1"):
        choice = choose_structured_output(
            "auto",
            base_url=base_url,
            model="gpt-4.1-mini",
            api_key=TEST_KEY,
            timeout_s=0.1,
            cache_dir=tmp_path,
        )
        assert choice.mode == "json_object" and "prompt cache" in choice.reason
    assert not (tmp_path / "structured_output").exists()


def test_an_unreachable_server_is_not_kept_as_probed(tmp_path: Path) -> None:
    with FakeLLM() as server:
        url = server.openai_url
    choice = choose_structured_output(
        "auto", base_url=url, model="m", api_key=TEST_KEY, timeout_s=0.5, cache_dir=tmp_path
    )

    assert choice.mode == "json_schema" and "probe" in choice.reason
    assert not (tmp_path / "structured_output").exists()


def test_the_judge_steps_down_on_a_500_naming_response_format(local_server: FakeLLM) -> None:
    local_server.dialect = "llama-cpp-python"
    judge = OpenAIJudge(
        "gemma-3-270m",
        api_key=TEST_KEY,
        base_url=local_server.openai_url,
        retry_policy=RetryPolicy(max_retries=6, base_delay_s=0.01),
        structured_output="json_schema",
    )

    async def ask() -> Any:
        try:
            return await judge.ask(EVERY_KIND[0])
        finally:
            await judge.aclose()

    with pytest.warns(StructuredOutputWarning, match="json_object_schema from now on"):
        answer = asyncio.run(ask())

    assert answer.usage.retries == 0 and answer.usage.calls == 1
    assert judge.response_format == "json_object_schema"
    assert local_server.refusals == 1


def _ask_once(server: FakeLLM, request: Any, mode: Any = "json_object_schema") -> Any:
    judge = OpenAIJudge(
        "gemma-3-270m",
        api_key=TEST_KEY,
        base_url=server.openai_url,
        retry_policy=RetryPolicy(max_retries=6, base_delay_s=0.01),
        structured_output=mode,
    )

    async def ask() -> Any:
        try:
            return await judge.ask(request)
        finally:
            await judge.aclose()

    return asyncio.run(ask())


@pytest.mark.slow
@pytest.mark.parametrize("request_", EVERY_KIND, ids=lambda request: request.kind)
def test_every_kind_is_answered_in_one_call_when_the_grammar_knows_the_counts(
    local_server: FakeLLM, request_: Any
) -> None:
    # The small model behind the server writes one item too many wherever the schema
    # leaves an array's length open: three verdicts for two claims, a chunk twice.
    local_server.dialect = "llama-cpp-python"

    answer = _ask_once(local_server, request_)

    assert answer.usage.calls == 1 and answer.usage.retries == 0


def test_the_schema_sent_fixes_the_verdict_count_and_caps_reasons(local_server: FakeLLM) -> None:
    local_server.dialect = "llama-cpp-python"
    verify = VerifyClaims(claims=["Jobs founded Apple.", "Apple sells cars."], contexts=["x"])
    review = ReviewContexts(
        question="Who?", reference="Jobs founded Apple.", contexts=["a", "b", "c"]
    )

    _ask_once(local_server, verify)
    _ask_once(local_server, review)

    verify_schema, review_schema = (
        sent_schema(request.body) for request in local_server.judge_requests()
    )
    assert verify_schema is not None and review_schema is not None
    verdicts = verify_schema["properties"]["verdicts"]
    assert (verdicts["minItems"], verdicts["maxItems"]) == (2, 2)
    assert verdicts["items"]["properties"]["reason"]["maxLength"] <= 240
    chunks = review_schema["properties"]["chunks"]
    assert (chunks["minItems"], chunks["maxItems"]) == (3, 3)
    assert chunks["items"]["properties"]["index"]["enum"] == [0, 1, 2]
    claim = verdicts["items"]["properties"]["claim"]
    assert len("Apple sells cars.") < claim["maxLength"] < 100
    # "Jobs founded Apple." holds one statement: at least one, and no room for more.
    statements = review_schema["properties"]["statements"]
    assert (statements["minItems"], statements["maxItems"]) == (1, 1)


def test_json_object_sends_the_same_prompt_and_no_schema(local_server: FakeLLM) -> None:
    # OpenAI's prompt cache and the judge cache key read the prompt: bounding the schema
    # of the schema modes must leave json_object's request as it was.
    request = EVERY_KIND[1]
    judge = OpenAIJudge("gpt-4.1-mini", api_key=TEST_KEY, base_url=local_server.openai_url)
    as_json_object = judge.request_params(request)
    judge.response_format = "json_object_schema"
    as_schema = judge.request_params(request)

    assert as_json_object["response_format"] == {"type": "json_object"}
    assert as_json_object["messages"] == as_schema["messages"]
    assert '"maxItems"' not in json.dumps(as_json_object)
    assert as_schema["response_format"]["schema"]["properties"]["verdicts"]["maxItems"] == 2


def test_a_refused_format_under_warnings_as_errors_errors_its_cases_with_the_warning(
    local_server: FakeLLM, pytester: pytest.Pytester
) -> None:
    # Under -W error the judge does not step down quietly: the request the server refused
    # errors its case, naming the refusal and the setting that starts in the next mode.
    local_server.dialect = "llama-cpp-python"
    write_jsonl(pytester, "golden.jsonl", [case_row(index) for index in range(2)])
    write_config(pytester.path, model="gemma-3-270m", structured_output="json_schema", **FAST)

    outcome = gate_run(
        pytester,
        "-p",
        "no:randomly",
        "-W",
        "error",
        judge="openai",
        metrics="faithfulness",
        cache_dir="cache",
        tracebacks=False,
    )

    assert outcome.ret == 1
    assert outcome.report["error_rate"]["errored_cases"] == 2
    errors = [case["errors"]["faithfulness"] for case in outcome.report["cases"]]
    assert all("refused structured output json_schema" in error for error in errors), errors
    assert all("structured_output: json_object_schema" in error for error in errors), errors
    assert "openai_judge.py" not in outcome.stdout.str()
