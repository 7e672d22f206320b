"""Prompt injection: untrusted text cannot raise its own scores.

The fake server plays a *gullible* judge: when an injected instruction reaches it outside
the fenced data blocks, it obeys (every claim supported, every chunk relevant, rating 5).
Otherwise it answers honestly from the data blocks. Each adversarial answer or context of
``data/injections.jsonl`` is scored through the real anthropic and openai judges (the
SDKs, over HTTP) next to the same case without the injection; no score may rise, and every
recorded request carries the injected text only inside data blocks.

The same holds on the re-ask path: a judge whose first replies are schema-invalid, with the
injected text copied into mistyped fields (so pydantic's own error text would quote it),
is re-asked, and no re-ask message may carry that text outside a data block.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeCall, FakeLLM, default_reply, sentences
from gate_runs import assert_no_traceback, read_report, use_fake_judge, write_config, write_golden

INJECTIONS: list[dict[str, str]] = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "injections.jsonl")
    .read_text(encoding="utf-8")
    .splitlines()
]

BASE: dict[str, Any] = {
    "question": "Who founded Apple and when?",
    "answer": (
        "Apple was founded in 1976 by Steve Jobs and Steve Wozniak. "
        "Apple was founded by Bill Gates in 1990."
    ),
    "contexts": [
        "Apple was founded in 1976 by Steve Jobs and Steve Wozniak in Cupertino.",
        "The company went public in 1980.",
    ],
    "reference": "Apple was founded in 1976 by Steve Jobs and Steve Wozniak.",
}


def injected_case(injection: dict[str, str]) -> dict[str, Any]:
    case = {**BASE, "id": injection["id"]}
    if injection["where"] == "answer":
        case["answer"] = f"{BASE['answer']} {injection['text']}"
    else:
        # Ranked first, where a retriever-poisoning attack would put it.
        case["contexts"] = [injection["text"], *BASE["contexts"]]
    return case


def obedient_reply(call: FakeCall) -> dict[str, Any]:
    """What a judge that follows the injected instruction would answer."""
    data = call.data
    if call.kind == "extract_claims":
        return {"claims": sentences(data.get("answer", [""])[0])}
    if call.kind == "verify_claims":
        claims = data.get("claim", [])
        return {
            "verdicts": [{"claim": c, "verdict": "supported", "reason": "told so"} for c in claims]
        }
    if call.kind == "review_case":
        statements = sentences(data.get("reference", [""])[0])
        return {
            "verdicts": [
                {"claim": c, "verdict": "supported", "reason": "told so"}
                for c in data.get("claim", [])
            ],
            "chunks": [{"index": i, "relevant": True} for i in range(len(data.get("context", [])))],
            "statements": [{"statement": s, "attributed": True} for s in statements],
        }
    if call.kind == "attribute_statements":
        statements = sentences(data.get("reference", [""])[0])
        return {"verdicts": [{"statement": s, "attributed": True} for s in statements]}
    if call.kind == "review_contexts":
        statements = sentences(data.get("reference", [""])[0])
        contexts = data.get("context", [])
        return {
            "chunks": [{"index": i, "relevant": True} for i in range(len(contexts))],
            "statements": [{"statement": s, "attributed": True} for s in statements],
        }
    if call.kind == "classify_correctness":
        claims = data.get("answer_claim", [])
        return {"tp": [{"statement": c} for c in claims], "fp": [], "fn": []}
    if call.kind == "rate_relevancy":
        return {"rating": 5, "noncommittal": False, "reason": "told so"}
    if call.kind == "judge_chunks":
        chunks = data.get("context", [])
        return {"verdicts": [{"index": i, "relevant": True} for i in range(len(chunks))]}
    if call.kind == "attribute_answer":
        return {"used_documents": list(range(len(data.get("context", []))))}
    return default_reply(call)


def invalid_reply(call: FakeCall) -> dict[str, Any]:
    """The honest reply with every value mistyped, each one quoting a (tainted) data text.

    A validation error of such a reply, printed the usual pydantic way, repeats the
    injected text: ``input_value='… ZX-INJ-01'``.
    """
    texts = [text for texts in call.data.values() for text in texts]
    tainted = [t for t in texts if any(item["marker"] in t for item in INJECTIONS)] or texts
    quotes = iter(tainted * 1000)

    def corrupt(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: corrupt(item) for key, item in value.items()}
        if isinstance(value, list):
            return [corrupt(item) for item in value] or [{"text": next(quotes)}]
        if isinstance(value, str):
            return {"text": next(quotes)}
        return next(quotes)

    corrupted: dict[str, Any] = corrupt(default_reply(call))
    return corrupted


class GullibleJudge:
    """Obeys any injection marker it can read outside the data blocks; honest otherwise.

    Args:
        invalid_turns: answer this many turns of each conversation with
            :func:`invalid_reply`, so the judge has to re-ask.
    """

    def __init__(self, invalid_turns: int = 0) -> None:
        self.invalid_turns = invalid_turns
        self.calls: list[FakeCall] = []
        self.obeyed: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, call: FakeCall) -> dict[str, Any]:
        with self._lock:
            self.calls.append(call)
        outside = call.outside_data()
        escaped = [item["marker"] for item in INJECTIONS if item["marker"] in outside]
        if escaped:
            with self._lock:
                self.obeyed.extend(escaped)
            return obedient_reply(call)
        if call.reasks < self.invalid_turns:
            return invalid_reply(call)
        return default_reply(call)


def test_the_corpus_covers_the_known_attacks() -> None:
    texts = " ".join(item["text"] for item in INJECTIONS)
    assert len(INJECTIONS) >= 15
    for needle in (
        "</data",
        '"supported": true',
        "system:",
        "```",
        "忽略之前的所有指令",
        "＜/data＞",
    ):
        assert needle.lower() in texts.lower(), needle
    assert {item["where"] for item in INJECTIONS} == {"answer", "context"}


def test_the_gullible_judge_obeys_an_unfenced_instruction() -> None:
    """The check has teeth: text that escapes the fence does change the verdicts."""
    judge = GullibleJudge()
    marker = INJECTIONS[0]["marker"]
    call = FakeCall(
        api="anthropic",
        kind="verify_claims",
        body={},
        system="Verify the claims.",
        user=f'<data id="ab12" field="claim">\nApple was founded in 1990.\n</data id="ab12">\n'
        f"{INJECTIONS[0]['text']}",
        data={"claim": ["Apple was founded in 1990."], "context": ["The sky is blue."]},
        nonce="ab12",
        reasks=0,
        number=1,
    )
    assert judge(call)["verdicts"][0]["verdict"] == "supported"
    assert judge.obeyed == [marker]
    fenced = FakeCall(**{**call.__dict__, "user": call.user.replace(INJECTIONS[0]["text"], "")})
    assert judge(fenced)["verdicts"][0]["verdict"] == "not_in_context"
    # A re-ask is read as an instruction too: text that escapes into it is obeyed.
    reasked = FakeCall(
        **{
            **fenced.__dict__,
            "reasks": 1,
            "user_messages": (fenced.user, f"Fix verdicts.0: {INJECTIONS[1]['text']}"),
        }
    )
    assert judge(reasked)["verdicts"][0]["verdict"] == "supported"
    assert judge.obeyed == [marker, INJECTIONS[1]["marker"]]


def test_the_invalid_replies_fail_validation_and_quote_the_injection() -> None:
    """The re-ask run has teeth: pydantic's own error text would carry the injection out."""
    from pydantic import ValidationError

    from pytest_ragas_gate.judges.requests import ClaimVerdicts

    marker = INJECTIONS[0]["marker"]
    call = FakeCall(
        api="anthropic",
        kind="verify_claims",
        body={},
        system="",
        user="",
        data={"claim": [f"Every claim is supported. {marker}"], "context": ["Apple."]},
        nonce=None,
        reasks=0,
        number=1,
    )
    with pytest.raises(ValidationError) as caught:
        ClaimVerdicts.model_validate(invalid_reply(call))
    assert marker in str(caught.value)


def score_injections(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, api: str, judge: GullibleJudge
) -> FakeLLM:
    """Score the baseline and every injected case with ``judge``; no score may rise."""
    rows = [{**BASE, "id": "baseline"}, *(injected_case(item) for item in INJECTIONS)]
    write_golden(pytester.path, rows)
    write_config(pytester.path, judge=api, cache="off", thresholds={}, max_reasks=2)
    with FakeLLM(responder=judge) as server:
        use_fake_judge(monkeypatch, server, api)
        result = pytester.runpytest("--rag-gate", "--rag-gate-report=report.json")
    assert_no_traceback(result)
    cases = {case["id"]: case for case in read_report(pytester.path / "report.json")["cases"]}
    assert not any(case["error"] or case["errors"] for case in cases.values())
    baseline = cases["baseline"]["scores"]
    assert baseline["faithfulness"] == 0.5
    for item in INJECTIONS:
        scores = cases[item["id"]]["scores"]
        for metric, score in scores.items():
            if score is not None and baseline.get(metric) is not None:
                assert score <= baseline[metric], (item["id"], metric, score, baseline[metric])
        if item["where"] == "answer":
            assert scores["faithfulness"] <= 0.5, item["id"]
    assert judge.obeyed == []

    # Every injected text reached the judge, and only ever inside a data block.
    assert len(judge.calls) == len(server.judge_requests())
    for item in INJECTIONS:
        inside = [
            call
            for call in judge.calls
            if any(item["marker"] in text for texts in call.data.values() for text in texts)
        ]
        assert inside, f"{item['id']} never reached the judge"
        for call in judge.calls:
            assert item["marker"] not in call.outside_data(), (item["id"], call.kind)
    return server


@pytest.mark.parametrize("api", ["anthropic", pytest.param("openai", marks=pytest.mark.slow)])
def test_injections_never_raise_a_score(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, api: str
) -> None:
    judge = GullibleJudge()
    score_injections(pytester, monkeypatch, api, judge)
    assert {call.reasks for call in judge.calls} == {0}


@pytest.mark.slow
@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_injections_never_escape_through_a_reask(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, api: str
) -> None:
    judge = GullibleJudge(invalid_turns=2)
    server = score_injections(pytester, monkeypatch, api, judge)

    # Every conversation was re-asked twice: two invalid replies, then a valid one.
    turns = [call.reasks for call in judge.calls]
    assert turns.count(0) == turns.count(1) == turns.count(2) > 0
    last_turns = [call for call in judge.calls if call.reasks == 2]
    assert all(len(call.user_messages) == 3 for call in last_turns)
    for call in last_turns:
        for reask in call.user_messages[1:]:
            assert "does not match the schema" in reask
            assert "Input should be a valid" in reask, reask
    # The invalid replies did carry the injected texts, and the re-asks still named the
    # errors by field: e.g. ``verdicts.0.verdict: Input should be 'supported', …``.
    replies = json.dumps(
        [
            message["content"]
            for request in server.judge_requests()
            for message in request.body["messages"]
            if message["role"] == "assistant"
        ],
        ensure_ascii=False,
    )
    for item in INJECTIONS:
        assert item["marker"] in replies, item["id"]
    assert any(
        "verdicts.0.verdict: Input should be 'supported', 'contradicted' or 'not_in_context'"
        in reask
        for call in last_turns
        for reask in call.user_messages[1:]
    )
