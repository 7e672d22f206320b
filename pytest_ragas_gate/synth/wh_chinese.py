r"""Chinese declarative sentences into the questions their informative span answers.

Chinese asks in place: the span is replaced by its question word — an amount by
``多少``/``几`` with its unit, a year by ``哪一年``, a date by ``哪一天``, an agent after
``由`` by ``谁``, a place after ``位于`` by ``哪里``; ``X是Y`` becomes ``X是什么？`` and a
``因为``/``由于`` clause becomes ``为什么…？``. Only the clause holding the span is kept,
and a subject that is a pronoun (它、该、本、此) becomes the document's name, so the
question stands alone and repeats little of its sentence. Rule-based for the reason given
in :mod:`.wh_english`; Chinese word segmenters (jieba) are not needed for these shapes.

>>> [fact.question for fact in sentence_facts("年度订阅在购买后14天内可以全额退款。", "退款与账单")]
['年度订阅在购买后多少天内可以全额退款？']
>>> [fact.question for fact in sentence_facts("该服务由北京数据公司运营。", "云盘")]
['云盘由谁运营？']
"""

from __future__ import annotations

import re

from .wh_english import Fact

__all__ = ["sentence_facts"]

_UNITS = (
    "个小时|小时|分钟|秒钟|秒|天|日|周|星期|个月|月|年|次|人|名|位|元|美元|欧元|块|GB|MB|TB|KB|倍|页|项|条"
    "|种|家|所|台|岁|字|行|张|本|篇|份|门|座"
)
_AMOUNT = re.compile(rf"(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>{_UNITS})")
_PERCENT = re.compile(r"(?P<num>\d+(?:\.\d+)?)\s*%")
_YEAR = re.compile(
    r"(?P<year>(?:1[6-9]|20)\d\d)\s*年(?:(?P<month>\d{1,2})月(?:(?P<day>\d{1,2})[日号])?)?"
)
_DATE = re.compile(r"(?P<month>\d{1,2})月(?P<day>\d{1,2})[日号]")
_AGENT = re.compile(
    r"由(?P<name>[^，。；、由]{2,16}?)(?=开发|维护|编写|发布|提供|负责|创建|运营|管理|制定|设计|翻译|出版|主办)"
)
_PLACE = re.compile(
    r"(?:位于|设在|坐落于|存储在|保存在|总部在)(?P<name>[^，。；、]{2,12}?)(?=[，。；、]|$|的)"
)
_DEFINITION = re.compile(
    r"^(?P<term>[^，,。：:是指]{2,15}?)(?P<verb>是指|指的是|是)(?P<rest>.{6,})$"
)
_CAUSE = re.compile(r"^(?:因为|由于)(?P<cause>[^，]{3,})，(?:所以|因此)?(?P<main>.{4,})$")
_DEFINED = re.compile(r"^(?:一|指|用于|用来|由|一种|一个)")
_PRONOUN = re.compile(r"^(?:它们|它|该|本|此|这个|这些|这|其)")
_TIME_MINUTES = {
    "秒": 1 / 60,
    "秒钟": 1 / 60,
    "分钟": 1.0,
    "小时": 60.0,
    "个小时": 60.0,
    "天": 1440.0,
    "日": 1440.0,
    "周": 10080.0,
    "星期": 10080.0,
    "个月": 43800.0,
    "月": 43800.0,
    "年": 525600.0,
}
_SMALL_COUNT = frozenset("个 天 小时 次 人 名 位 周 种 项 条 家 台 本 张 份 门 座".split())


def _clause(sentence: str, start: int, end: int) -> tuple[str, int, int]:
    """The comma-separated clause of ``sentence`` holding ``start:end``, and its bounds."""
    left = max(sentence.rfind(mark, 0, start) for mark in "，；：,;")
    right_marks = [sentence.find(mark, end) for mark in "，；：,;"]
    right = min([mark for mark in right_marks if mark >= 0], default=len(sentence))
    return sentence[left + 1 : right], left + 1, right


def _subject_named(clause: str, name: str, whole: str) -> str:
    """The clause with a pronoun subject replaced by ``name`` (or ``name`` put in front)."""
    if _PRONOUN.match(clause):
        stripped = _PRONOUN.sub("", clause, count=1)
        # "该服务" → "<name>": the pronoun and a short noun after it name the document's topic.
        generic = re.match(r"^(?:服务|产品|项目|软件|程序|工具|系统|文档|方案|套餐)", stripped)
        if generic or not name:
            # "该服务" is the document's topic itself.
            return f"{name}{stripped[generic.end() :] if generic else stripped}"
        return f"{name}的{stripped}"
    if not whole:
        # A clause cut from its sentence may lack its subject: say what it is about.
        return f"在{name}中，{clause}" if name else clause
    return clause


def _ask(sentence: str, start: int, end: int, word: str, name: str) -> str | None:
    clause, left, right = _clause(sentence, start, end)
    local_start, local_end = start - left, end - left
    if word in ("哪一年", "什么时候", "哪一天") and clause[local_start - 1 : local_start] in (
        "于",
        "在",
    ):
        local_start -= 1
    asked = clause[:local_start] + word + clause[local_end:]
    conjunction = re.match(r"^(?:所以|因此|但是|但|并且|而且|并|且|同时)", asked)
    if conjunction:
        asked = asked[conjunction.end() :]
    if len(asked) < 5:
        return None
    whole = asked if left == 0 else ""
    asked = _subject_named(asked, name, whole)
    return asked.rstrip("。！；;.!") + "？"


def sentence_facts(sentence: str, name: str) -> list[Fact]:
    """Every question ``sentence`` answers, most informative first (see the module)."""
    text = sentence.strip().rstrip("。！；;.!")
    if not text or text.endswith(("？", "?")) or len(text) > 120:
        return []
    facts: list[Fact] = []
    for match in _YEAR.finditer(text):
        word = "哪一天" if match.group("day") else "什么时候" if match.group("month") else "哪一年"
        question = _ask(text, match.start(), match.end(), word, name)
        if question:
            facts.append(
                Fact(
                    question,
                    match.group(),
                    sentence,
                    "when",
                    name,
                    float(match.group("year")),
                    "year",
                    2.5,
                )
            )
    taken = [(match.start(), match.end()) for match in _YEAR.finditer(text)]
    for match in _DATE.finditer(text):
        if any(start <= match.start() < end for start, end in taken):
            continue
        question = _ask(text, match.start(), match.end(), "哪一天", name)
        if question:
            facts.append(Fact(question, match.group(), sentence, "when", name, score=2.5))
    for match in _AMOUNT.finditer(text):
        if any(start <= match.start() < end for start, end in taken):
            continue
        before = text[max(0, match.start() - 2) : match.start()]
        if re.search(r"[A-Za-z._#-]$|第$", before):
            continue  # "Python 3", "第3章": a label, not an amount
        number, unit = float(match.group("num")), match.group("unit")
        rate = before.endswith("每")
        ask_word = (
            "几" if number <= 10 and unit in _SMALL_COUNT and number == int(number) else "多少"
        )
        question = _ask(text, match.start(), match.end(), ask_word + unit, name)
        if question:
            counted = (
                "time"
                if unit in _TIME_MINUTES
                else "money"
                if unit in ("元", "美元", "欧元", "块")
                else unit
            )
            value = number * _TIME_MINUTES[unit] if unit in _TIME_MINUTES else number
            facts.append(
                Fact(
                    question,
                    match.group(),
                    sentence,
                    "how_many",
                    name,
                    value,
                    counted,
                    1.0 if rate else 3.0,
                )
            )
    for match in _PERCENT.finditer(text):
        question = _ask(text, match.start(), match.end(), "百分之多少", name)
        if question:
            facts.append(
                Fact(
                    question,
                    match.group(),
                    sentence,
                    "percentage",
                    name,
                    float(match.group("num")),
                    "percent",
                    2.0,
                )
            )
    agent = _AGENT.search(text)
    if agent:
        question = _ask(text, agent.start("name"), agent.end("name"), "谁", name)
        if question:
            facts.append(Fact(question, agent.group("name"), sentence, "who", name, score=2.5))
    place = _PLACE.search(text)
    if place:
        question = _ask(text, place.start("name"), place.end("name"), "哪里", name)
        if question:
            facts.append(Fact(question, place.group("name"), sentence, "where", name, score=2.5))
    cause = _CAUSE.match(text)
    if cause:
        main = _subject_named(cause.group("main"), name, cause.group("main"))
        facts.append(
            Fact(f"为什么{main}？", cause.group("cause"), sentence, "why", name, score=2.0)
        )
    definition = _DEFINITION.match(text)
    if definition and (
        not _DEFINED.match(definition.group("rest"))
        or re.search(
            r"如果|您|我们|你|下面|这|那|[还就都也只总正即便才又而则的]$", definition.group("term")
        )
    ):
        definition = None  # "最终还是…", "如果您只是…": not "X is a Y"
    if definition and not facts:
        term = definition.group("term")
        if _PRONOUN.match(term):
            term = name
        if term:
            ask = "指的是什么" if "指" in definition.group("verb") else "是什么"
            facts.append(
                Fact(f"{term}{ask}？", definition.group("rest"), sentence, "what", term, score=1.5)
            )
    if not facts:
        facts += [fact for shape in _SHAPES if (fact := shape(text, sentence)) is not None]
    kept = [fact for fact in facts if fact.answer not in fact.question]
    return sorted(kept, key=lambda fact: -fact.score)


#: "数据加载可以被用于获取远程数据": what a named thing is for. Not "一个用于数据加载的文件"
#: (an attribute, 的 follows) nor a pronoun's purpose (这、该 name nothing).
_PURPOSE = re.compile(
    r"^(?P<subject>(?!一个|一种|这|该|此|它|其|我们|你)[^，。；：:]{2,20}?)"
    r"(?P<verb>可以被用于|可以用于|可被用于|可用于|被用于|用于|用来)"
    r"(?P<purpose>[^，。；：:]{3,30})(?:[，。；]|$)"
)


def _purpose_fact(text: str, sentence: str) -> Fact | None:
    match = _PURPOSE.match(text)
    if match is None or re.search(r"[的地得]$|[A-Za-z]$", match.group("subject").strip()):
        return None
    subject = match.group("subject").strip()
    verb = match.group("verb").replace("被", "")
    return Fact(
        f"{subject}{verb}什么？", match.group("purpose"), sentence, "what", subject, score=1.2
    )


#: Further shapes, each asked only of a sentence no shape above read.
_SHAPES = (_purpose_fact,)
