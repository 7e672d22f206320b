"""What a refusal is, once for every judge: an answer that cannot tell makes no claims.

The LLM judges' prompt says an answer that cannot tell ("I don't know", "无法回答") has no
claims; the offline judge follows the same definition through :func:`is_refusal`, and the
answer-correctness metric reads a reference that says the documents do not tell with
:func:`declines`. The patterns are narrower than the noncommittal cue of answer relevancy:
"The free plan does not provide backups" is a claim, while "The documents do not say" is
not.

>>> is_refusal("I don't know."), is_refusal("抱歉，我无法回答这个问题。")
(True, True)
>>> is_refusal("The free plan does not provide backups.")
False
>>> declines("The backup data does not include logs.")
False
>>> declines("The documents do not say this, so it cannot be answered from them.")
True
>>> declines("文档中没有提到这一点，无法根据文档回答。"), declines("The plan costs $5.")
(True, False)
"""

from __future__ import annotations

import re

from .text import split_claims

__all__ = ["declines", "is_lead_in", "is_refusal", "refuses_whole"]

# What the answer was given to read. Not "data" or "record": "the backup data does not
# include logs" states a fact.
_SOURCES = (
    r"(?:documents?|docs|contexts?|sources?|texts?|passages?|articles?|materials?|"
    r"knowledge\s+base|excerpts?|(?:provided|given|available)\s+(?:content|information))"
)

_REFUSAL = re.compile(
    r"\bi\s*(?:do\s*n[o']t|don't|dont)\s+know\b"
    r"|\bi\s*(?:am|'m)\s+(?:not\s+sure|unable|not\s+able)\b"
    r"|\b(?:i\s+have|i've)\s+no\s+idea\b|^\W*no\s+idea\b"
    r"|\b(?:can\s*not|can't|cannot|could\s*n[o']t|unable\s+to|not\s+able\s+to)\s+"
    r"(?:answer|tell|say|determine|find|know|be\s+(?:determined|answered|found|known))\b"
    r"|\b(?:no|not\s+enough|insufficient)\s+(?:relevant\s+)?information\b"
    r"|\bthere\s+is\s+no\s+(?:mention|answer)\b"
    rf"|\b{_SOURCES}\b.*\b(?:do|does|did)\s*(?:n[o']t|not)\s+"
    r"(?:say|mention|specify|state|tell|contain|include|cover|provide|give|answer)"
    r"|\bnot\s+(?:mentioned|specified|stated|given|provided|covered|found|answered)\s+"
    rf"(?:in|by)\s+(?:the\s+)?(?:provided\s+|given\s+|retrieved\s+)?{_SOURCES}"
    # "That is not in the documents", "isn't covered by the provided context".
    r"|\b(?:is|are|was|were)\s*n[o']?t\s+"
    r"(?:(?:mentioned|covered|found|given|stated|included|available|listed)\s+)?"
    rf"(?:in|by)\s+(?:any\s+of\s+)?(?:the\s+)?(?:provided\s+|given\s+|retrieved\s+)?{_SOURCES}"
    r"|^\W*(?:unknown|no\s+answer|n/?a)\W*$"
    # "无法根据文档回答": the verb may come a few characters after 无法.
    r"|(?:无法|無法|不能)[^。！？，,]{0,12}?(?:回答|作答|确定|確定|判断|判斷|得知)"
    r"|不知道|不清楚|不确定|无从得知|無從得知"
    r"|没有足够的信息|信息不足|无法提供|无法判断|没有相关信息|沒有相關信息|无法得知|無法得知"
    r"|(?:文档|文件|资料|上下文|材料|文中|原文|文本|内容|信息)[^。！？]*?"
    r"(?:没有|沒有|未|并未|並未|没)(?:提到|提及|说明|說明|给出|給出|记载|記載|涉及|包含)"
    r"|わかりません|分かりません|知りません|모르겠|알 수 없",
    re.IGNORECASE,
)

# What a refusal opens with and nothing more: an apology, or "according to the documents".
_LEAD_IN = re.compile(
    r"^\W*(?:(?:i'?m\s+|i\s+am\s+|we\s+are\s+)?sorry|unfortunately|apologies"
    rf"|(?:according\s+to|based\s+on|from)\s+(?:the\s+)?(?:provided\s+|given\s+)?{_SOURCES})"
    r"\W*$"
    r"|^\W*(?:抱歉|很抱歉|对不起|對不起|不好意思|遗憾的是"
    r"|(?:根据|根據|依据|依據|从|從)(?:所)?(?:提供|给出|給出|现有|現有)?的?"
    r"(?:资料|資料|文档|文檔|文件|上下文|信息|材料|内容|內容|文本))\W*$",
    re.IGNORECASE,
)


def is_refusal(claim: str) -> bool:
    """Whether one claim (a sentence or clause) only says that the answer cannot tell."""
    return bool(_REFUSAL.search(claim.replace("’", "'")))


_NAMES_SOURCES = re.compile(rf"\b{_SOURCES}\b", re.IGNORECASE)


def refuses_whole(clause: str) -> bool:
    """Whether a whole clause is a refusal, the words after its refusal included.

    "The documents do not say when the office opens" is read whole: cut into phrases it
    leaves "… when the office opens", which reads like a claim. A clause qualifies when its
    refusal names what was read, or opens the clause (after "Sorry," at most); "I think he
    was well known, I don't know if …" keeps its opinion.

    >>> refuses_whole("I'm sorry, the documents do not say when the office opens.")
    True
    >>> refuses_whole("I think he was well known, I dont know if he was to me.")
    False
    """
    text = clause.replace("’", "'")
    found = _REFUSAL.search(text)
    if found is None:
        return False
    before = text[: found.start()]
    return (
        bool(_NAMES_SOURCES.search(found.group()))
        or not before.strip(" ,.;:—-")
        or (is_lead_in(before))
    )


def is_lead_in(claim: str) -> bool:
    """Whether one clause is only a refusal's opening ("Sorry", "根据提供的资料")."""
    return bool(_LEAD_IN.search(claim.replace("’", "'")))


def declines(text: str) -> bool:
    """Whether ``text`` as a whole cannot tell: every clause a refusal or its opening.

    A reference written this way marks an unanswerable case, where declining is the
    right answer.
    """
    clauses = split_claims(text)
    refusals = [clause for clause in clauses if is_refusal(clause)]
    return bool(refusals) and all(is_refusal(c) or is_lead_in(c) for c in clauses)
