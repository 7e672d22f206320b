r"""What a text states on its face: amounts, dates and definitions, found without the writer.

The summary's "could not" reasons are claims about the documents ("none states a year",
"none of its sentences states a definition"). Each is checked against this scan, which
reads the chunks directly rather than the facts the writer managed to ask: when the scan
finds what the claim denies, the summary says what the documents state and that the
writer could not ask it, instead of saying they state nothing.

>>> [(found.kind, found.text) for found in stated_amounts("It stops after 5 seconds (2024).")]
[('duration', '5 seconds'), ('year', '2024')]
>>> [(found.kind, found.text) for found in stated_amounts("年度订阅在购买后14天内退款。")]
[('duration', '14天')]
>>> stated_definitions("A host you can reach is called a node. It runs.")
['A host you can reach is called a node.']
>>> stated_definitions("Markdown 是一种轻量级标记语言。")
['Markdown 是一种轻量级标记语言。']
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..judges.offline.text import split_sentences

__all__ = ["Stated", "stated_amounts", "stated_definitions"]


@dataclass(frozen=True)
class Stated:
    """An amount or date as written (``text``) and what it counts (``kind``)."""

    kind: str
    text: str


_EN_UNITS = {
    "duration": r"(?:milli)?seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?"
    r"|years?|ms",
    "size": r"[KMGTP]i?B|bytes?|kilobytes?|megabytes?|gigabytes?|terabytes?",
    "price": r"USD|EUR|dollars?|euros?",
}
_EN_AMOUNT = re.compile(
    r"(?<![\w.])(?:(?P<money>[$€£]\s?\d[\d,]*(?:\.\d+)?)|(?P<num>\d[\d,]*(?:\.\d+)?)\s?(?:"
    + "|".join(f"(?P<{kind}>{units})" for kind, units in _EN_UNITS.items())
    + r")\b|(?P<percent>\d+(?:\.\d+)?\s?%))"
)
_YEAR = re.compile(r"(?<![\w.])(?:1[6-9]|20)\d\d(?![\w.]|\s?(?:%|[KMGT]i?B))")
_ZH_AMOUNT = re.compile(
    r"(?P<num>\d+(?:\.\d+)?)\s*(?:(?P<duration>秒钟|秒|分钟|个小时|小时|天|周|星期|个月)"
    r"|(?P<size>GB|MB|TB|KB|字节)|(?P<price>元|美元|欧元))"
)
_ZH_YEAR = re.compile(r"(?:1[6-9]|20)\d\d\s*年")
_EN_DEFINITION = re.compile(
    r"^(?!(?:Here|There|It|This|That|These|Those|What|Which|The following)\b)"
    r"(?:An?|The)?\s*[\w\s.-]{1,60}?"
    r"\s(?:is|are)\s(?:an?|the)\s\w"
    r"|\b(?:is|are)\s(?:called|known as|referred to as|defined as)\s(?:an?\s|the\s)?"
    r"[\w\s\"'“”.-]{1,40}\.?$"
    r"|^[\w.-]+(?:\s[\w.-]+){0,3}\s(?:means|refers to|stands for)\s(?!you|that|we|it)",
)
_ZH_DEFINITION = re.compile(
    r"^(?!下面|以下|如下|这|那|它|此)[^，。：]{2,30}(?:是一种|是一个|是一款|是指|指的是|被称为|称为|叫做)"
    r"[^：:]*$"
)


def stated_amounts(text: str) -> list[Stated]:
    """The amounts and years ``text`` writes, in order (English and Chinese)."""
    found: list[tuple[int, Stated]] = []
    for match in _EN_AMOUNT.finditer(text):
        kind = next(
            name for name in ("money", "duration", "size", "price", "percent") if match.group(name)
        )
        found.append((match.start(), Stated("price" if kind == "money" else kind, match.group())))
    for match in _ZH_AMOUNT.finditer(text):
        kind = next(name for name in ("duration", "size", "price") if match.group(name))
        found.append((match.start(), Stated(kind, match.group())))
    taken = {start for start, _ in found}
    for pattern in (_YEAR, _ZH_YEAR):
        for match in pattern.finditer(text):
            if match.start() not in taken:
                found.append((match.start(), Stated("year", match.group().rstrip("年 "))))
    return [stated for _, stated in sorted(found, key=lambda item: item[0])]


def stated_definitions(text: str) -> list[str]:
    """The sentences of ``text`` shaped as a definition ("X is a …", "X 是一种……")."""
    return [
        sentence.strip()
        for sentence in split_sentences(text)
        if not sentence.rstrip().endswith((":", "："))
        and (_EN_DEFINITION.search(sentence.strip()) or _ZH_DEFINITION.search(sentence))
    ]
