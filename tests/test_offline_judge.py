from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel

from pytest_ragas_gate.golden.cases import Context, GoldenCase
from pytest_ragas_gate.judges.offline import judge as offline
from pytest_ragas_gate.judges.offline import text
from pytest_ragas_gate.judges.offline.judge import OfflineJudge
from pytest_ragas_gate.judges.offline.text import (
    content_tokens,
    is_noncommittal,
    numbers,
    split_claims,
    split_sentences,
)
from pytest_ragas_gate.judges.requests import (
    ALL_REQUEST_TYPES,
    AttributeAnswer,
    AttributeStatements,
    ClassifyCorrectness,
    ExtractClaims,
    GenerateQuestions,
    JudgeChunks,
    JudgeRequest,
    RateRelevancy,
    ReviewCase,
    ReviewContexts,
    VerifyCitations,
    VerifyClaims,
)
from pytest_ragas_gate.metrics.faithfulness import Faithfulness
from pytest_ragas_gate.usage import Usage

APPLE_CONTEXT = "Apple was founded in 1976 by Steve Jobs, Steve Wozniak and Ronald Wayne."
APPLE_CONTEXT_ZH = "苹果公司于1976年由史蒂夫·乔布斯、史蒂夫·沃兹尼亚克和罗恩·韦恩创立。"


def ask(request: JudgeRequest[Any]) -> Any:
    answer = asyncio.run(OfflineJudge().ask(request))
    assert answer.usage == Usage()
    return answer.reply


def test_identity() -> None:
    judge = OfflineJudge()
    assert judge.kind == "offline"
    assert judge.model == "heuristic-v1"
    asyncio.run(judge.aclose())


def test_extract_claims_english() -> None:
    reply = ask(
        ExtractClaims(
            question="Who founded Apple?",
            answer="Apple was founded by Steve Jobs. It was founded in 1980! Was it?",
        )
    )
    assert reply.claims[:2] == ["Apple was founded by Steve Jobs.", "It was founded in 1980!"]


def test_extract_claims_splits_lists_into_atomic_facts() -> None:
    claims = ask(ExtractClaims(question="", answer=APPLE_CONTEXT)).claims
    assert claims == [
        "Apple was founded in 1976",
        "Apple was founded by Steve Jobs",
        "Apple was founded by Steve Wozniak",
        "Apple was founded by Ronald Wayne.",
    ]


def test_extract_claims_chinese_keeps_language() -> None:
    claims = ask(
        ExtractClaims(question="谁创立了苹果？", answer="苹果很大。它很有名！真的吗？是的；")
    ).claims
    assert claims[:2] == ["苹果很大。", "它很有名！"]
    assert all("苹果" in claim or "它" in claim or "真的" in claim for claim in claims)


def test_bare_yes_asserts_the_question() -> None:
    claims = ask(ExtractClaims(question="Were both bands formed in 1990?", answer="Yes")).claims
    assert claims == ["Yes: were both bands formed in 1990"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Pi is about 3.14 today. Next.", ["Pi is about 3.14 today.", "Next."]),
        ("See e.g. the U.S. Army. Dr. Smith came.", ["See e.g. the U.S. Army.", "Dr. Smith came."]),
        ("William O. Douglas was born in 1898.", ["William O. Douglas was born in 1898."]),
        ("北京很大。上海呢？广州！深圳；", ["北京很大。", "上海呢？", "广州！", "深圳；"]),
        ("- first point\n- second point", ["first point", "second point"]),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_filler_is_not_a_claim() -> None:
    assert split_claims("Hi! Yes.") == []


def test_numbers_are_normalised() -> None:
    assert numbers("1,000 people in 1844–1846, pi 3.140") == {"1000", "1844", "1846", "3.14"}


def test_verify_wrong_year_is_unsupported() -> None:
    reply = ask(
        VerifyClaims(
            claims=[
                "Apple was founded by Steve Jobs.",
                "Apple was founded by Bill Gates.",
                "Apple was founded in 1980.",
            ],
            contexts=[APPLE_CONTEXT],
        )
    )
    assert [verdict.supported for verdict in reply.verdicts] == [True, False, False]
    assert "1980" in reply.verdicts[2].reason
    assert "gate" in reply.verdicts[1].reason


def test_words_present_but_number_differs_is_unsupported() -> None:
    reply = ask(
        VerifyClaims(
            claims=["The bridge is 1,400 metres long.", "The bridge is 1300 metres long."],
            contexts=["The bridge is 1,300 metres long and 1200 years old."],
        )
    )
    assert [verdict.supported for verdict in reply.verdicts] == [False, True]


def test_verify_chinese() -> None:
    reply = ask(
        VerifyClaims(
            claims=[
                "苹果公司由史蒂夫·乔布斯创立",
                "苹果公司由比尔·盖茨创立",
                "苹果公司创立于1980年",
            ],
            contexts=[APPLE_CONTEXT_ZH],
        )
    )
    assert [verdict.supported for verdict in reply.verdicts] == [True, False, False]


def test_faithfulness_of_the_apple_founders_example() -> None:
    answer = "苹果公司由史蒂夫·乔布斯和比尔·盖茨创立于1980年。"
    claims = ask(ExtractClaims(question="谁是苹果公司的创始人?", answer=answer)).claims
    verdicts = ask(VerifyClaims(claims=claims, contexts=[APPLE_CONTEXT_ZH])).verdicts
    supported = sum(verdict.supported for verdict in verdicts)
    assert 0 < supported < len(verdicts)


def test_attribute_statements() -> None:
    reply = ask(
        AttributeStatements(
            question="Tell me about France.",
            reference="Paris is the capital of France. France won the 2018 World Cup.",
            contexts=["Paris is the capital and largest city of France."],
        )
    )
    assert [verdict.attributed for verdict in reply.verdicts] == [True, False]


def test_classify_correctness() -> None:
    reply = ask(
        ClassifyCorrectness(
            question="Who founded Apple?",
            answer_claims=["Apple was founded by Steve Jobs.", "Apple was founded in 1980."],
            reference="Apple was founded by Steve Jobs. Apple is based in Cupertino.",
        )
    )
    assert [item.statement for item in reply.tp] == ["Apple was founded by Steve Jobs."]
    assert [item.statement for item in reply.fp] == ["Apple was founded in 1980."]
    assert [item.statement for item in reply.fn] == ["Apple is based in Cupertino."]


def test_rate_relevancy() -> None:
    good = ask(
        RateRelevancy(question="When was Apple founded?", answer="Apple was founded in 1976.")
    )
    off_topic = ask(RateRelevancy(question="When was Apple founded?", answer="Bananas are yellow."))
    assert good.rating == 5 and not good.noncommittal
    assert off_topic.rating < good.rating


@pytest.mark.parametrize(
    "answer",
    [
        "I don't know.",
        "Sorry, I cannot answer that.",
        "无法回答。",
        "我不知道",
        "不清楚",
        "没有相关信息",
    ],
)
def test_noncommittal(answer: str) -> None:
    assert is_noncommittal(answer)
    rating = ask(RateRelevancy(question="Who founded Apple?", answer=answer))
    assert rating.rating == 1 and rating.noncommittal
    assert ask(GenerateQuestions(answer=answer)).noncommittal


def test_committal_answers_are_not_noncommittal() -> None:
    assert not is_noncommittal("Apple was founded in 1976.")
    assert not is_noncommittal("苹果公司于1976年创立。")


def test_generate_questions() -> None:
    reply = ask(GenerateQuestions(answer="Apple was founded in 1976. It makes phones.", count=3))
    assert len(reply.questions) == 3
    assert all(question.endswith("?") for question in reply.questions)
    assert not reply.noncommittal


def test_judge_chunks() -> None:
    reply = ask(
        JudgeChunks(
            question="Who founded Apple?",
            target="Apple was founded by Steve Jobs in 1976.",
            against="reference",
            chunks=["Bananas are yellow.", APPLE_CONTEXT],
        )
    )
    assert [(verdict.index, verdict.relevant) for verdict in reply.verdicts] == [
        (0, False),
        (1, True),
    ]


def test_attribute_answer() -> None:
    reply = ask(
        AttributeAnswer(
            answer="Apple was founded by Steve Jobs in 1976.",
            contexts=["Bananas are yellow.", APPLE_CONTEXT, "Steve Jobs founded Apple."],
        )
    )
    assert reply.used_documents == [1, 2]


SAMPLE_REQUESTS: list[JudgeRequest[Any]] = [
    ExtractClaims(question="q", answer=APPLE_CONTEXT),
    VerifyClaims(claims=["Apple was founded in 1976."], contexts=[APPLE_CONTEXT]),
    AttributeStatements(question="q", reference=APPLE_CONTEXT, contexts=[APPLE_CONTEXT]),
    ClassifyCorrectness(question="q", answer_claims=["Apple."], reference=APPLE_CONTEXT),
    RateRelevancy(question="Who founded Apple?", answer=APPLE_CONTEXT),
    GenerateQuestions(answer=APPLE_CONTEXT_ZH),
    JudgeChunks(question="q", target="Apple", against="question", chunks=[APPLE_CONTEXT]),
    AttributeAnswer(answer=APPLE_CONTEXT, contexts=[APPLE_CONTEXT]),
    ReviewContexts(question="q", reference=APPLE_CONTEXT, contexts=[APPLE_CONTEXT, "Bananas."]),
    ReviewCase(
        question="q",
        reference=APPLE_CONTEXT,
        claims=["Apple was founded in 1976."],
        contexts=[APPLE_CONTEXT, "Bananas."],
    ),
    VerifyCitations(sentences=[APPLE_CONTEXT], cited=[[0]], contexts=[APPLE_CONTEXT]),
]


def test_review_contexts_answers_as_the_chunk_and_statement_requests_do() -> None:
    """Merging precision and recall into one request changes no offline score."""
    contexts = ["Bananas are yellow.", APPLE_CONTEXT]
    review = ask(ReviewContexts(question="q", reference=APPLE_CONTEXT, contexts=contexts))
    chunks = ask(
        JudgeChunks(question="q", target=APPLE_CONTEXT, against="reference", chunks=contexts)
    )
    statements = ask(AttributeStatements(question="q", reference=APPLE_CONTEXT, contexts=contexts))
    assert review.chunks == chunks.verdicts
    assert review.statements == statements.verdicts
    assert [verdict.relevant for verdict in review.chunks] == [False, True]


def test_every_request_type_is_answered() -> None:
    assert {type(request) for request in SAMPLE_REQUESTS} == set(ALL_REQUEST_TYPES)
    for request in SAMPLE_REQUESTS:
        assert isinstance(ask(request), request.reply_type)


@pytest.mark.parametrize("request_", SAMPLE_REQUESTS, ids=lambda request: request.kind)
def test_deterministic(request_: JudgeRequest[BaseModel]) -> None:
    first = ask(request_).model_dump()
    assert all(ask(request_).model_dump() == first for _ in range(3))


def test_changing_a_returned_value_does_not_change_the_next_answer() -> None:
    answer = "Apple was founded in 1976 by Steve Jobs. It cost $1,000."
    sentences, claims = split_sentences(answer), split_claims(answer)
    found, tokens = numbers(answer), content_tokens(answer)
    for returned in (sentences, claims, found, tokens):
        returned.clear()
    assert split_sentences(answer) == [
        "Apple was founded in 1976 by Steve Jobs.",
        "It cost $1,000.",
    ]
    assert split_claims(answer)[:2] == [
        "Apple was founded in 1976",
        "Apple was founded by Steve Jobs.",
    ]
    assert numbers(answer) == {"1976", "1000"}
    assert "apple" in [token.text for token in content_tokens(answer)]


def test_claims_are_checked_against_all_contexts_whatever_was_judged_before() -> None:
    contexts = ["Apple was founded in 1976.", "Steve Jobs founded Apple in California."]
    claim = "Apple was founded in 1976 by Steve Jobs in California."
    # Each chunk on its own first, then both together, in either order.
    ask(JudgeChunks(question="q", target=claim, against="reference", chunks=contexts))
    for ordered in (contexts, contexts[::-1]):
        verdict = ask(VerifyClaims(claims=[claim], contexts=ordered)).verdicts[0]
        assert verdict.supported, verdict.reason
    assert not ask(VerifyClaims(claims=[claim], contexts=contexts[:1])).verdicts[0].supported


@pytest.mark.parametrize("module", [text, offline], ids=lambda module: module.__name__)
def test_memoised_text_functions_are_bounded(module: object) -> None:
    # A 50,000-case run must not keep every text it has seen.
    caches = [value for value in vars(module).values() if hasattr(value, "cache_info")]
    assert caches
    assert all(cache.cache_info().maxsize is not None for cache in caches)


def test_ascii_texts_are_judged_without_compiling_the_cjk_patterns() -> None:
    # Those patterns take milliseconds to compile, on every run that would load them.
    patterns = (text._cjk_char, text._cjk_run, offline._cjk_character)
    for pattern in patterns:
        pattern.cache_clear()
    claims = ["Apple was founded in 1976."]
    verdict = ask(VerifyClaims(claims=claims, contexts=["Apple was founded in 1976."]))
    assert verdict.verdicts[0].supported
    assert [pattern.cache_info().currsize for pattern in patterns] == [0, 0, 0]
    cjk = ask(VerifyClaims(claims=["苹果公司成立于1976年。"], contexts=["苹果公司成立于1976年。"]))
    assert cjk.verdicts[0].supported
    # Non-ASCII text compiles what it needs.
    assert text._cjk_run.cache_info().currsize == offline._cjk_character.cache_info().currsize == 1


def test_closing_the_judge_lets_go_of_the_texts_it_memoised() -> None:
    # Kept, a run's texts would be walked by every collector pass for the rest of the process.
    request = VerifyClaims(claims=["Apple was founded in 1976."], contexts=["Apple, 1976."])
    judge = OfflineJudge()
    first = asyncio.run(judge.ask(request)).reply
    caches = [value for value in vars(text).values() if hasattr(value, "cache_info")]
    assert any(cache.cache_info().currsize for cache in caches)
    asyncio.run(judge.aclose())
    assert [cache.cache_info().currsize for cache in caches] == [0] * len(caches)
    assert asyncio.run(OfflineJudge().ask(request)).reply == first


def test_empty_inputs_are_answered() -> None:
    assert ask(ExtractClaims(question="", answer="")).claims == []
    assert (
        ask(VerifyClaims(claims=["Apple was founded."], contexts=[])).verdicts[0].supported is False
    )
    assert ask(JudgeChunks(question="", target="", against="question", chunks=["x"])).verdicts


def test_extract_claims_splits_a_plain_clause_at_its_phrases() -> None:
    answer = "Hans Dobida served as chairman of the Continental Cup until 2018."
    assert ask(ExtractClaims(question="", answer=answer)).claims == [
        "Hans Dobida served as chairman of the Continental Cup",
        "Hans Dobida served until 2018.",
    ]


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        ("2.5 million people live there.", ["2.5 million people live there."]),
        ("8.849 Meter.", ["8.849 Meter."]),
        ("1. Open settings. 2. Click save.", ["Open settings.", "Click save."]),
        ("1) Open settings. 2) Click save.", ["Open settings.", "Click save."]),
        ("1. Open settings.\n2. Click save.", ["Open settings.", "Click save."]),
        # A lead-in ending in a colon opens the list; it is not a claim.
        ("Steps: 1. Open settings. 2. Click save.", ["Open settings.", "Click save."]),
        # A lone number after a question is the answer, not a list marker.
        ("How many? 2. Phobos and Deimos.", ["2.", "Phobos and Deimos."]),
    ],
)
def test_claims_keep_decimals_and_drop_list_markers(answer: str, claims: list[str]) -> None:
    assert split_claims(answer) == claims
    assert ask(ExtractClaims(question="", answer=answer)).claims == claims


class OfflineCaseJudge:
    """What a metric sees of the offline judge: the reply of each request."""

    async def ask(self, request: JudgeRequest[Any]) -> Any:
        return (await OfflineJudge().ask(request)).reply


def faithfulness(answer: str, context: str) -> float | None:
    case = GoldenCase(
        file="golden.jsonl",
        line=1,
        id="case-1",
        question="",
        answer=answer,
        contexts=[Context(text=context)],
    )
    return asyncio.run(Faithfulness().score(case, OfflineCaseJudge())).score


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        ("2.5 million people live there.", "About 2.5 million people live there."),
        ("8.849 Meter.", "Mount Everest is 8.849 metres high."),
        ("8.849 Meter.", "Der Mount Everest ist 8.849 Meter hoch."),
        ("1. Open settings. 2. Click save.", "Open settings, then click save."),
    ],
)
def test_faithfulness_of_decimals_and_numbered_steps(answer: str, context: str) -> None:
    assert faithfulness(answer, context) == 1.0


def test_a_wrong_decimal_is_still_unfaithful() -> None:
    assert (
        faithfulness("3.5 million people live there.", "About 2.5 million people live there.")
        == 0.0
    )


def test_relevance_takes_the_asker_as_addressed_and_store_as_stored() -> None:
    question = "Where is my data stored?"
    answer = "Team plan administrators can choose to store data in the EU or the US data region."
    rating = ask(RateRelevancy(question=question, answer=answer))
    assert rating.rating == 5, rating.reason
    chunks = ask(
        JudgeChunks(question=question, target=question, against="question", chunks=[answer])
    )
    assert chunks.verdicts[0].relevant


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        ("I don't know.", []),
        ("Sorry, I cannot answer that from the provided documents.", []),
        ("The documents do not say.", []),
        ("无法回答。", []),
        ("抱歉，我无法回答这个问题。", []),
        ("根据提供的资料，无法确定他的出生日期。", []),
        ("文档中没有提到这一点，无法根据文档回答。", []),
        ("I'm not sure. The plan costs $5.", ["The plan costs $5."]),
        ("The free plan does not provide backups.", ["The free plan does not provide backups."]),
    ],
)
def test_a_refusal_has_no_claims_and_its_facts_stay(answer: str, claims: list[str]) -> None:
    # The definition the LLM judges are given: only what says the answer cannot tell goes.
    assert offline.extract_claims("When?", answer) == claims
