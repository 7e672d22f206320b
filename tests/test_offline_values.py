"""Values, records and claim splitting of the offline judge: the spellings a user writes."""

from __future__ import annotations

import json

import pytest

from pytest_ragas_gate.judges.offline.judge import Evidence, check_support
from pytest_ragas_gate.judges.offline.records import key_words, read_record
from pytest_ragas_gate.judges.offline.text import numbers, split_claims
from pytest_ragas_gate.judges.offline.values import (
    chinese_numeral,
    find_values,
    value_spellings,
)

LEGCO = "据报道，2022年1月3日上午，第七届立法会议员宣誓。第七届立法会90个议席全部顺利产生。"


def supported(claim: str, *contexts: str) -> bool:
    return check_support(claim, Evidence.of(list(contexts))).supported


@pytest.mark.parametrize("answer", ["1月3日", "1 月 3 日", "January 3", "3 January 2022", "90"])
def test_values_glued_to_chinese_text_are_found(answer: str) -> None:
    assert supported(answer, LEGCO)


@pytest.mark.parametrize("answer", ["1月5日", "80", "January 5", "2021年"])
def test_other_values_are_not(answer: str) -> None:
    assert not supported(answer, LEGCO)


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        ("九十个议席", "立法会有90个议席。"),
        ("百分之六点四", "经济增长6.4%。"),
        ("The economy grew 6.4 percent.", "The economy grew 6.4%."),
        ("The shop is open until 9 PM.", "The shop is open 11:0-21:0."),
        ("Monday hours start at 11 am.", '{"hours": {"Monday": "11:0-21:0"}}'),
        ("全市人口12,000人", "全市人口1.2万人。"),
        ("2.5 million people live there.", "About 2,500,000 people live there."),
        ("It has two exits.", "It has 2 exits."),
    ],
)
def test_one_value_in_different_spellings(claim: str, context: str) -> None:
    assert supported(claim, context)


def test_a_counted_value_needs_its_counter() -> None:
    # "三年" is three years, not any 3 in the context.
    assert not supported("三年", "装配线有3个步骤。")
    assert supported("三年", "他学了3年功夫。")


def test_a_month_name_is_a_month_not_any_number() -> None:
    assert not supported("He was born on July 7, 1984.", "He was born in 1984 and has 7 siblings.")
    assert supported("He was born on July 7, 1984.", "He was born on 7 July 1984.")


def test_article_like_numerals_are_not_values_in_claims() -> None:
    # "一个" is mostly "a": a claim using it must not need a 1 in the context.
    assert find_values("这是一个城市") == ()
    assert find_values("十分重要") == ()
    assert [sorted(value.forms) for value in find_values("第七届")] == [["7届"]]


def test_values_and_numbers_helpers() -> None:
    assert chinese_numeral("三千五百") == "3500"
    assert chinese_numeral("一九九八") == "1998"
    assert {"90", "90个", "2022", "2022年"} <= value_spellings(LEGCO)
    assert numbers("第七届立法会90个议席") == {"7", "90"}
    assert "5" not in numbers("A4 paper, MP3 player")


def test_short_chinese_answer_must_have_all_its_bigrams() -> None:
    # 北京 and 大学 are there, 北京大学 is not.
    assert not supported("北京大学", "他在北京工作，后来去了一所大学。")
    assert supported("北京大学", "他毕业于北京大学。")


def test_json_record_is_read_as_field_value_facts() -> None:
    record = json.dumps(
        {
            "name": "Rosa's",
            "attributes": {
                "BusinessAcceptsCreditCards": "True",
                "BusinessParking": "{'garage': False, 'street': True}",
                "WiFi": "u'free'",
            },
            "hours": {"Monday": "11:0-21:0"},
        }
    )
    read = read_record(record)
    assert read is not None
    assert "Business Parking street: yes." in read.text.splitlines()
    assert supported("Rosa's accepts credit cards.", record)
    assert supported("Rosa's has street parking.", record)
    assert supported("Rosa's offers free WiFi.", record)
    assert supported("On Monday it opens at 11 AM.", record)
    assert not supported("Rosa's has a rooftop terrace.", record)


def test_key_value_lines_are_a_record_and_prose_is_not() -> None:
    assert read_record("name: Blue Door\narea: riverside\nfood: Italian") is not None
    assert read_record("The cafe is by the river. It serves Italian food.") is None
    assert read_record("Note: see {the appendix} for details and more") is None
    assert key_words("HasTV") == "Has TV (HasTV)"


def test_list_answers_split_into_items_without_lead_ins_or_labels() -> None:
    answer = (
        "Here is an overview:\n\n## Services\n- **Lending:** books and films.\n"
        "- **Study:** free study rooms.\n主要服务如下：\n1. 免费自习室"
    )
    assert split_claims(answer) == ["books and films.", "free study rooms.", "免费自习室"]
