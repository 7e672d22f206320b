"""The offline judge's three-way verdict: supported, contradicted, or not in the contexts.

Contradicted is said only where the contexts plainly give another value for the same thing,
or a record's yes/no field says otherwise; a claim that is merely absent stays not in context.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from pytest_ragas_gate.golden.cases import Context, GoldenCase
from pytest_ragas_gate.judges.offline.judge import OfflineJudge
from pytest_ragas_gate.judges.requests import JudgeRequest, VerifyClaims
from pytest_ragas_gate.metrics.faithfulness import Faithfulness

APPLE = "Apple was founded in 1976 by Steve Jobs and Steve Wozniak in Los Altos."
LEGCO = "2022年1月3日上午，第七届立法会议员宣誓就职。第七届立法会90个议席全部顺利产生。"
SHOP = json.dumps(
    {
        "name": "Rosa's Taqueria",
        "attributes": {
            "WiFi": "u'no'",
            "BusinessAcceptsCreditCards": "True",
            "DogsAllowed": "False",
        },
    }
)


def verdict(claim: str, *contexts: str) -> tuple[str, str]:
    request = VerifyClaims(claims=[claim], contexts=list(contexts))
    found = asyncio.run(OfflineJudge().ask(request)).reply.verdicts[0]
    return found.verdict, found.reason


@pytest.mark.parametrize(
    ("claim", "context", "stated"),
    [
        ("Apple was founded in 1977.", APPLE, "1976"),
        ("第七届立法会80个议席全部产生。", LEGCO, "90"),
        ("议员于2022年1月5日宣誓就职。", LEGCO, "3"),
        (
            "The economy grew 7.4% in the first quarter.",
            "The economy grew 6.4% in the first quarter.",
            "6.4%",
        ),
    ],
)
def test_a_different_value_for_the_same_thing_is_contradicted(
    claim: str, context: str, stated: str
) -> None:
    said, reason = verdict(claim, context)
    assert said == "contradicted"
    assert stated in reason


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("Rosa's Taqueria offers free WiFi.", "contradicted"),
        ("Rosa's Taqueria does not accept credit cards.", "contradicted"),
        ("Dogs are allowed at Rosa's Taqueria.", "contradicted"),
        ("Rosa's Taqueria has no WiFi.", "supported"),
        ("Rosa's Taqueria accepts credit cards.", "supported"),
    ],
)
def test_record_yes_and_no_fields_decide_polarity(claim: str, expected: str) -> None:
    said, reason = verdict(claim, SHOP)
    assert said == expected, reason


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        # Absent, not contradicted: nothing in the context speaks of it.
        ("Apple has 500 stores.", APPLE),
        ("立法会有30个委员会。", LEGCO),
        # Hedged or rounded values are not contradicted by a precise one.
        ("The city has about 15 million residents.", "The city has 15.3 million residents."),
        ("立法会有超过80个议席。", LEGCO),
        # Same number of a different thing.
        ("Apple has 1977 employees.", APPLE),
        # A bare value says nothing about what it counts.
        ("80", LEGCO),
        # The context speaks of another span of time.
        (
            "Arsenal won 10 trophies between 1989 and 2005.",
            "We have won 47 trophies in our history.",
        ),
    ],
)
def test_doubt_stays_not_in_context(claim: str, context: str) -> None:
    said, reason = verdict(claim, context)
    assert said == "not_in_context", reason


class OfflineCaseJudge:
    """What a metric sees of the offline judge: the reply of each request."""

    async def ask(self, request: JudgeRequest[Any]) -> Any:
        return (await OfflineJudge().ask(request)).reply


def test_contradicted_claims_lower_faithfulness_like_absent_ones() -> None:
    case = GoldenCase(
        file="golden.jsonl",
        line=1,
        id="apple",
        question="When was Apple founded, and by whom?",
        answer="Apple was founded in 1977. It was founded by Steve Jobs.",
        contexts=[Context(text=APPLE)],
    )
    result = asyncio.run(Faithfulness().score(case, OfflineCaseJudge()))
    assert result.score == pytest.approx(0.5)


SSO = "The Team plan includes single sign-on (SSO)."


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        ("The Team plan has no single sign-on.", SSO),
        ("The Team plan does not include single sign-on.", SSO),
        ("The Team plan doesn't include single sign-on (SSO).", SSO),
        (
            "The Team plan isn't sold with single sign-on.",
            "The Team plan is sold with single sign-on.",
        ),
        ("The Team plan lacks SSO.", SSO),
        ("The Team plan comes without single sign-on.", "The Team plan comes with single sign-on."),
        ("The Team plan never includes SSO.", SSO),
    ],
)
def test_a_negated_claim_against_a_positive_context_is_contradicted(
    claim: str, context: str
) -> None:
    said, reason = verdict(claim, "Billing is monthly.", context)
    assert said == "contradicted", reason
    assert "without the claim's" in reason


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        # The context denies it too.
        ("The Team plan has no single sign-on.", "The Team plan has no single sign-on."),
        ("The Team plan lacks SSO.", "The Team plan does not include SSO."),
        # A reply's "No," answers a question; the rest is what the context says.
        (
            "No, New York is the most populous city in the United States.",
            "New York is the most populous city in the United States.",
        ),
        # Emphasis, not denial.
        (
            "The Team plan not only includes SSO but also audit logs.",
            "The Team plan includes SSO and audit logs.",
        ),
        # The speaker's own life is no claim about the contexts.
        ("I have never been on a cruise ship.", "A cruise ship is a passenger ship."),
        # The "not" denies another range than the one the context states.
        (
            "Deleted files cannot be recovered after 30 days.",
            "Deleted files can be recovered within 30 days.",
        ),
        ("Orders under $50 do not ship free.", "Orders over $50 ship free."),
        (
            "Refunds are not issued after 30 days.",
            "Refunds are issued within 30 days of purchase.",
        ),
        (
            "The API does not rate limit requests under 100 per minute.",
            "The API rate limits requests above 100 per minute.",
        ),
    ],
)
def test_a_negation_the_context_does_not_deny_is_no_contradiction(claim: str, context: str) -> None:
    said, reason = verdict(claim, context)
    assert said != "contradicted", reason


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("Single sign-on is not included in the Team plan.", "contradicted"),
        ("The Team plan comes without single sign-on.", "not_in_context"),
        ("Single sign-on isn't part of the Team plan.", "not_in_context"),
        ("The Team plan does not offer SSO.", "not_in_context"),
        ("Unfortunately the Team plan has no single sign-on.", "not_in_context"),
    ],
)
def test_a_negated_claim_is_never_supported_by_a_positive_context(
    claim: str, expected: str
) -> None:
    said, reason = verdict(claim, "Billing is monthly.", SSO)
    assert said == expected, reason


def test_a_negated_claim_stays_supported_by_a_context_that_denies_it() -> None:
    said, reason = verdict(
        "The Team plan does not include audit logs.", SSO, "Audit logs are not in the Team plan."
    )
    assert said == "supported", reason


def test_a_denied_claim_lowers_faithfulness() -> None:
    case = GoldenCase(
        file="golden.jsonl",
        line=1,
        id="sso",
        question="Does the Team plan have single sign-on?",
        answer="The Team plan has no single sign-on.",
        contexts=[Context(text=SSO)],
    )
    result = asyncio.run(Faithfulness().score(case, OfflineCaseJudge()))
    assert result.score == 0.0


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        # A bare "No." before the sentence that carries the denial.
        ("No. The Team plan never supports single sign-on.", SSO),
        # A negation in the clause's verb phrase stays with its prepositional phrase.
        (
            "Single sign-on is not available on the Team plan.",
            "Single sign-on is available on the Team plan.",
        ),
    ],
)
def test_a_plainly_denied_answer_in_other_wordings_scores_zero(answer: str, context: str) -> None:
    case = GoldenCase(
        file="golden.jsonl",
        line=1,
        id="sso",
        question="Does the Team plan have single sign-on?",
        answer=answer,
        contexts=[Context(text=context)],
    )
    result = asyncio.run(Faithfulness().score(case, OfflineCaseJudge()))
    assert result.score == 0.0
