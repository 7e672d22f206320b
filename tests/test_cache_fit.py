"""Only replies a metric can score are cached; a cached one that cannot be scored is a miss.

Before, a reply that fitted its schema but not its request (a document index out of range,
a verdict count other than the claim count) was cached first and checked by the metric
afterwards: every later run replayed the same error, so a report-only metric blocked every
deploy until someone cleared the cache. Now the judge checks a reply against its request
before caching it (and re-asks), and a cached reply that fails the check is re-asked in
``readwrite`` mode and an error in ``read`` mode.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeCall, FakeLLM, default_reply
from gate_runs import (
    FAST_RETRIES,
    case_row,
    make_judge,
    read_report,
    use_fake_judge,
    write_config,
    write_golden,
)

from pytest_ragas_gate.exceptions import JudgeError, JudgeReplyError
from pytest_ragas_gate.judges.cache import JudgeCache
from pytest_ragas_gate.judges.metered import MeteredJudge
from pytest_ragas_gate.judges.requests import AttributeAnswer, JudgeRequest, VerifyClaims

USAGE = AttributeAnswer(answer="Steve Jobs founded Apple.", contexts=["Steve Jobs founded Apple."])
VERIFY = VerifyClaims(
    claims=["Steve Jobs founded Apple.", "Apple sells cars."],
    contexts=["Apple was founded by Steve Jobs."],
)


def out_of_range(call: FakeCall) -> dict[str, Any]:
    """Name a document that was never retrieved; answer everything else sensibly."""
    if call.kind == "attribute_answer":
        return {"used_documents": [0, 7], "reason": "doc 7"}
    return default_reply(call)


def one_verdict_short(call: FakeCall) -> dict[str, Any]:
    reply = default_reply(call)
    if call.kind == "verify_claims":
        reply["verdicts"] = reply["verdicts"][:-1]
    return reply


def ask(
    server: FakeLLM, cache_dir: Path, request: JudgeRequest[Any], mode: Any = "readwrite"
) -> Any:
    judge = MeteredJudge(make_judge(server, max_reasks=1), cache=JudgeCache(cache_dir, mode))

    async def run() -> Any:
        try:
            return await judge.ask(request)
        finally:
            await judge.aclose()

    return asyncio.run(run())


def entries(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.glob("*/*.json"))


@pytest.mark.parametrize(
    ("request_", "responder", "problem"),
    [
        (USAGE, out_of_range, "names document index(es) 7 but only 1 document(s) were given"),
        (VERIFY, one_verdict_short, "gives 1 verdict(s) for 2 claim(s)"),
    ],
    ids=["index-out-of-range", "verdict-count"],
)
def test_a_reply_that_cannot_be_scored_is_re_asked_and_never_cached(
    tmp_path: Path, request_: JudgeRequest[Any], responder: Any, problem: str
) -> None:
    with FakeLLM(responder=responder) as server:
        with pytest.raises(
            JudgeReplyError, match=re.escape("it does not fit the request: it " + problem)
        ):
            ask(server, tmp_path, request_)
        # The first reply and one re-ask, which quoted what was wrong.
        assert server.calls == 2
        reask = server.judge_requests()[-1].body["messages"][-1]["content"]
        assert problem in json.dumps(reask)
        assert entries(tmp_path) == []

        # The judge answers properly now: the next run asks, scores and caches.
        server.responder = default_reply
        answer = ask(server, tmp_path, request_)
        assert server.calls == 3 and answer.usage.calls == 1
        assert len(entries(tmp_path)) == 1


def test_a_cached_reply_that_cannot_be_scored_is_a_miss(tmp_path: Path) -> None:
    with FakeLLM() as server:
        ask(server, tmp_path, USAGE)
        (entry_path,) = entries(tmp_path)
        entry = json.loads(entry_path.read_text(encoding="utf-8"))
        # What an earlier release cached: it fits the schema, not the request.
        entry["reply"]["used_documents"] = [3]
        entry_path.write_text(json.dumps(entry), encoding="utf-8")

        with pytest.raises(JudgeError, match="cache miss in read mode for attribute_answer"):
            ask(server, tmp_path, USAGE, mode="read")
        assert server.calls == 1

        answer = ask(server, tmp_path, USAGE)
        assert answer.usage.calls == 1 and server.calls == 2
        rewritten = json.loads(entry_path.read_text(encoding="utf-8"))
        assert rewritten["reply"]["used_documents"] == [0]
        assert ask(server, tmp_path, USAGE).usage.cache_hits == 1
        assert server.calls == 2


def test_a_report_only_metric_does_not_block_the_next_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_golden(pytester.path, [case_row(index) for index in range(2)])
    write_config(pytester.path, judge="anthropic", model="claude-sonnet-4-6", **FAST_RETRIES)
    args = ("--rag-gate", "--rag-gate-metrics=faithfulness,top_doc_usage", "-p", "no:randomly")
    with FakeLLM(responder=out_of_range) as server:
        use_fake_judge(monkeypatch, server)
        first = pytester.runpytest(*args, "--rag-gate-report=first.json")
        assert first.ret == pytest.ExitCode.TESTS_FAILED, first.stdout.str()
        errors = [case["errors"] for case in read_report(pytester.path / "first.json")["cases"]]
        assert all("top_doc_usage" in error for error in errors), errors

        server.responder = default_reply
        second = pytester.runpytest(*args, "--rag-gate-report=second.json")
    assert second.ret == pytest.ExitCode.OK, second.stdout.str()
    second.stdout.fnmatch_lines(["top_doc_usage *report", "RAG gate: PASSED"])
