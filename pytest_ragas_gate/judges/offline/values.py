"""Numbers, dates, times and percentages read as values, so that spellings compare equal.

A value is found wherever it is written: glued to CJK characters (``第七届立法会90个议席``),
with a unit (``6.4%``, ``2.5 million``, ``1.2万``), as a time (``9 PM``, ``21:00``), as a month
name next to a number (``January 3``) or in Chinese numerals (``九十``, ``百分之六点四``,
``第七届``). Each :class:`Value` carries its canonical *forms* (what a claim needs to find) and
its *spellings* (what a context offers: the forms plus the digits as written), so that a
context saying ``21:0`` backs a claim saying ``9 PM`` and a context saying ``1.2万`` backs
``12,000``.

>>> sorted(value_spellings("2022年1月3日上午，第七届立法会90个议席"))
['1', '1月', '2022', '2022年', '3', '3日', '7', '7届', '90', '90个']
>>> [sorted(value.forms) for value in find_values("growth of 百分之六点四, open until 9 PM")]
[['6.4'], ['t21:00']]
>>> [sorted(value.forms) for value in find_values("January 3")]
[['1月'], ['3日']]
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import NamedTuple

__all__ = [
    "CN_COUNTERS",
    "MONTHS",
    "Value",
    "chinese_numeral",
    "find_values",
    "number_text",
    "value_spellings",
]

_CACHE_SIZE = 8192

MONTHS: dict[str, int] = {
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "may": 5,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
}
"""English month names and their numbers."""

_MONTH_ABBREVIATIONS = {name[:3]: number for name, number in MONTHS.items()} | {"sept": 9}

_SCALES = {
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
    "万": 10**4,
    "萬": 10**4,
    "亿": 10**8,
    "億": 10**8,
}

_THOUSANDS = re.compile(r"^\d{1,3}(?:,\d{3})+$")
_DECIMAL_COMMA = re.compile(r"^\d+,\d{1,2}$")

# A digit run may follow a CJK character ("会90个") but not a Latin letter ("A4", "MP3"): a
# letter-and-digit code is a name, not a value.
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9.])(?P<number>\d+(?:[.,]\d+)*)(?P<suffix>(?:st|nd|rd|th|s)(?![A-Za-z]))?"
    r"(?:\s*(?P<percent>%|percent\b|per\s+cent\b))?"
    r"(?:\s*(?P<scale>thousand|million|billion|trillion|万|萬|亿|億)(?![A-Za-z]))?"
)
_CLOCK = re.compile(r"(?<![\d.:])(?P<hour>\d{1,2}):(?P<minute>\d{1,2})(?![\d:]|\.\d)")
_MERIDIEM = re.compile(
    r"(?<![\d.:])(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s*(?P<half>[ap])\.?\s?m\b\.?",
    re.IGNORECASE,
)
_MONTH_NAME = re.compile(
    r"\b(?P<name>January|February|March|April|May|June|July|August|September|October"
    r"|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\b\.?",
)
_NEXT_TO_NUMBER = re.compile(r"^\s*(?:of\s+)?\d|\d(?:st|nd|rd|th)?,?\s*(?:of\s+)?$")

_CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "兩": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}
_CN_NUMERAL = re.compile(
    "(?P<prefix>第|百分之)?"
    "(?P<numeral>[零〇一二两兩三四五六七八九十百千万萬亿億]+(?:点[零〇一二三四五六七八九]+)?)"
)
CN_COUNTERS = frozenset(
    "个個年月日号號时時点點分秒人名次位届屆岁歲种種项項条條座家所件只部本场場天周倍元米层層户戶份季集章期"
)
# Words made of numerals that are not numbers: "十分" (very), "千万" (by all means), "万一"
# (in case), "一一" (one by one), "一点" (a little).
_CN_IDIOMS = ("十分", "千万", "万一", "萬一", "一一", "一点", "一點", "一些", "一样")


class Value(NamedTuple):
    """One value found in a text.

    Attributes:
        text: The value as written.
        forms: Canonical forms; a claim's value is backed when a context spells any of them.
        spellings: What the value offers as evidence: its forms and its digits as written.
        unit: What follows the value, lowercased ("%", "million", "个", "年", "pm"), or "".
        start: Where the value starts in the NFKC-normalised text.
        end: Where it ends.
    """

    text: str
    forms: frozenset[str]
    spellings: frozenset[str]
    unit: str
    start: int
    end: int


def number_text(raw: str) -> str:
    """A number as written, normalised: "1,000" → "1000", "3,5" → "3.5", "2.50" → "2.5".

    >>> [number_text(raw) for raw in ["1,000", "3,5", "2.50", "007"]]
    ['1000', '3.5', '2.5', '7']
    """
    if _THOUSANDS.match(raw):
        raw = raw.replace(",", "")
    raw = raw.replace(",", ".") if _DECIMAL_COMMA.match(raw) else raw
    if "." in raw:
        whole, _, fraction = raw.partition(".")
        if not whole.isdigit() or not fraction.isdigit():
            return raw
        fraction = fraction.rstrip("0")
        return f"{int(whole)}.{fraction}" if fraction else str(int(whole))
    return str(int(raw)) if raw.isdigit() else raw


def _scaled(number: str, scale: int) -> str:
    whole, _, fraction = number.partition(".")
    digits = int(whole + fraction) * scale
    divisor = 10 ** len(fraction)
    if digits % divisor:
        return number_text(f"{digits / divisor:.6f}")
    return str(digits // divisor)


def chinese_numeral(numeral: str) -> str | None:
    """The value of a numeral written in Chinese characters, as a number string.

    >>> [chinese_numeral(text) for text in ["九十", "十二", "三千五百", "一九九八"]]
    ['90', '12', '3500', '1998']
    >>> [chinese_numeral(text) for text in ["六点四", "两万"]]
    ['6.4', '20000']
    """
    whole, _, fraction = numeral.partition("点")
    if fraction and not all(char in _CN_DIGITS for char in fraction):
        return None
    value = _chinese_integer(whole)
    if value is None:
        return None
    if fraction:
        return number_text(f"{value}." + "".join(str(_CN_DIGITS[char]) for char in fraction))
    return str(value)


def _chinese_integer(numeral: str) -> int | None:
    if not numeral:
        return None
    if all(char in _CN_DIGITS for char in numeral):
        # Digit by digit, as years are read ("一九九八").
        return int("".join(str(_CN_DIGITS[char]) for char in numeral))
    total = 0
    section = 0
    digit: int | None = None
    for char in numeral:
        if char in _CN_DIGITS:
            digit = _CN_DIGITS[char]
        elif char in _CN_UNITS:
            section += (1 if digit is None else digit) * _CN_UNITS[char]
            digit = None
        elif char in _SCALES:
            section += digit or 0
            total = (total + (section or 1)) * _SCALES[char]
            section, digit = 0, None
        else:
            return None
    return total + section + (digit or 0)


def _unit_after(text: str, end: int) -> str:
    rest = text[end : end + 12].lstrip()
    if not rest:
        return ""
    if not rest[0].isascii():
        return rest[0] if rest[0].isalpha() else ""
    word = re.match(r"[A-Za-z%]+", rest)
    return word.group().lower() if word else ""


def _time_value(text: str, match: re.Match[str], hour: int) -> Value | None:
    minute = int(match.group("minute") or 0)
    if hour > 24 or minute > 59:
        return None
    canonical = f"t{hour % 24:02d}:{minute:02d}"
    written = {number_text(match.group("hour"))}
    spellings = frozenset({canonical, str(hour % 24), *written})
    return Value(
        match.group(), frozenset({canonical}), spellings, "time", match.start(), match.end()
    )


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _find_values(text: str, strict: bool) -> tuple[Value, ...]:
    found: list[Value] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= begin or start >= stop for begin, stop in taken)

    def add(value: Value | None) -> None:
        if value is not None and free(value.start, value.end):
            found.append(value)
            taken.append((value.start, value.end))

    has_letters = _LATIN_LETTER.search(text) is not None
    for match in _MERIDIEM.finditer(text) if has_letters else ():
        hour = int(match.group("hour"))
        if hour > 12:
            continue
        pm = match.group("half").lower() == "p"
        add(_time_value(text, match, hour % 12 + (12 if pm else 0)))
    for match in _CLOCK.finditer(text) if ":" in text else ():
        add(_time_value(text, match, int(match.group("hour"))))
    for match in _MONTH_NAME.finditer(text) if has_letters else ():
        name = match.group("name").lower()
        number = MONTHS.get(name) or _MONTH_ABBREVIATIONS.get(name)
        before, after = text[max(0, match.start() - 8) : match.start()], text[match.end() :]
        # "May" and "March" are words too; a month is a month next to a day or a year.
        if number and (_NEXT_TO_NUMBER.search(before) or _NEXT_TO_NUMBER.match(after[:8])):
            # A month is checked as a month: "July" is not backed by any 7 in the context.
            forms = frozenset({f"{number}月"})
            add(Value(match.group(), forms, forms, "month", match.start(), match.end()))
    for match in _NUMBER.finditer(text):
        raw = match.group("number").rstrip(".,")
        end = match.start("number") + len(raw)
        if match.group("suffix") and end == match.end("number"):
            # "2nd", "1990s": the suffix belongs to the value, it is not a word of its own.
            end = match.end("suffix")
        if "," in raw and not _THOUSANDS.match(raw) and not _DECIMAL_COMMA.match(raw):
            # A list written without spaces ("1,2,3"): each part is its own value.
            offset = match.start("number")
            for part in raw.split(","):
                if part:
                    single = frozenset({number_text(part)})
                    add(Value(part, single, single, "", offset, offset + len(part)))
                offset += len(part) + 1
            continue
        value = number_text(raw)
        number_forms, number_spellings = {value}, {value}
        unit = ""
        if match.group("percent"):
            unit, end = "%", match.end("percent")
        if match.group("scale") and match.group("percent") is None:
            scale = match.group("scale").lower()
            unit, end = scale, match.end("scale")
            number_forms = {_scaled(value, _SCALES[scale])}
            number_spellings |= number_forms
        if not unit:
            unit = _unit_after(text, end)
        add(
            Value(
                text[match.start() : end],
                frozenset(number_forms),
                frozenset(number_spellings),
                unit,
                match.start(),
                end,
            )
        )
    for match in _CN_NUMERAL.finditer(text) if _CN_NUMERAL_CHAR.search(text) else ():
        add(_chinese_value(text, match, strict))
    return _with_counters(text, sorted(found, key=lambda value: value.start))


def _near(first: Value, second: Value) -> bool:
    gap = second.start - first.end if first.start < second.start else first.start - second.end
    return 0 <= gap <= 5


_YEAR = re.compile(r"^(?:1\d|20)\d\d$")


def _with_counters(text: str, found: list[Value]) -> tuple[Value, ...]:
    """Bind each value to the CJK counter glued after it: "三年" is three years, not any 3.

    A claim's "3年" then needs a context that counts years, while a context's "3年" still
    offers a plain 3. A year written in digits offers "2009年", a month name "1月" and the day
    beside it "3日", so that a Chinese date is backed by an English one.
    """
    bound: list[Value] = []
    for index, value in enumerate(found):
        counter = text[value.end : value.end + 1]
        if counter in CN_COUNTERS:
            counted = frozenset(f"{form}{counter}" for form in value.forms)
            bound.append(
                Value(
                    value.text,
                    counted,
                    value.spellings | counted,
                    counter,
                    value.start,
                    value.end,
                )
            )
            continue
        forms, extra = value.forms, set[str]()
        if any(_YEAR.match(form) for form in value.forms):
            extra = {f"{form}年" for form in value.forms}
        neighbours = found[max(0, index - 1) : index] + found[index + 1 : index + 2]
        if value.unit != "month" and any(
            other.unit == "month" and _near(other, value) for other in neighbours
        ):
            # The day beside a month name is a day: "July 7" is "7月7日".
            days = {f"{form}日" for form in value.forms if len(form) <= 2}
            forms, extra = frozenset(days or forms), extra | days
        bound.append(
            Value(
                value.text,
                forms,
                value.spellings | extra,
                value.unit,
                value.start,
                value.end,
            )
        )
    return tuple(bound)


def _chinese_value(text: str, match: re.Match[str], strict: bool) -> Value | None:
    numeral, prefix = match.group("numeral"), match.group("prefix")
    following = text[match.end() : match.end() + 1]
    if any(idiom in text[match.start() : match.end() + 1] for idiom in _CN_IDIOMS) and not prefix:
        return None
    counted = following in CN_COUNTERS
    compound = len(numeral) > 1
    if strict:
        # In a claim a numeral must read as a number: a lone "一" before a counter is
        # mostly the article "a" ("一个城市").
        accepted = bool(prefix) or (
            counted and (numeral not in ("一", "兩", "两") or following in "月日号號")
        )
    else:
        accepted = bool(prefix) or counted or compound
    if not accepted:
        return None
    value = chinese_numeral(numeral)
    if value is None:
        return None
    unit = "%" if prefix == "百分之" else following
    forms = frozenset({value})
    return Value(match.group(), forms, forms, unit, match.start(), match.end())


_CN_NUMERAL_CHAR = re.compile("[零〇一二两兩三四五六七八九十百千万萬亿億]")
_LATIN_LETTER = re.compile("[A-Za-z]")
# Every value has a digit or a Chinese numeral (a month name counts only beside a number).
_MAY_HOLD_VALUE = re.compile(r"[\d零〇一二两兩三四五六七八九十百千万萬亿億]")


def _normalise(text: str) -> str:
    # NFKC folds full-width digits ("１９７６") onto ASCII, so offsets refer to this text.
    return unicodedata.normalize("NFKC", text)


def find_values(text: str, *, strict: bool = True) -> tuple[Value, ...]:
    """The values in ``text``, in order of appearance.

    Args:
        text: Any text, in any language.
        strict: Read Chinese numerals only where they must be numbers (a claim's values must
            all be found, so a word like "一个" must not become one); a context is read with
            ``strict=False`` and offers every numeral as a value.

    Returns:
        The values; their offsets refer to the NFKC-normalised text.
    """
    if not _MAY_HOLD_VALUE.search(text):
        # Most sentences hold no value; skip the passes below for them.
        return ()
    # Without Chinese numerals both readings agree: share one cache entry.
    return _find_values(_normalise(text), strict or not _CN_NUMERAL_CHAR.search(text))


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _value_spellings(text: str) -> frozenset[str]:
    spelled: set[str] = set()
    for value in find_values(text, strict=False):
        spelled |= value.spellings
    return frozenset(spelled)


def value_spellings(text: str) -> frozenset[str]:
    """Every spelling of every value ``text`` offers as evidence (read leniently)."""
    return _value_spellings(text)
