r"""The refusal rules of the offline writer's questions, as data: one registry, one place.

Each :class:`Rule` has a name, the language it reads (``en``, ``zh`` or ``any``), the
refusal it gives (a :data:`.offline.REFUSALS` key the summary counts) and a check over the
question and its reference. The writer runs them on every fact it would ask
(:func:`.offline.chunk_facts`) and the critic on every case it is shown
(:func:`.offline.wording_problem`), so a rule added here refuses in both, for every kind.

A bad question found in a draft gets its rule here: add a :class:`Rule` to :data:`RULES`
and a line to ``tests/synth_rules/en.jsonl`` or ``zh.jsonl`` (sentence in, the expected
question or refusal out), which ``tests/test_synth_rules.py`` runs.

>>> refusal("VitePress 是什么？的要归功于 Vue 模板的多少语法兼容性？", "…", chinese=True)
('two_questions', 'misread')
>>> refusal("Where is the paths loader module run .js?", "…", chinese=False)
('split_name', 'misread')
>>> refusal("How long do snapshots stay?", "Snapshots stay 14 days.", chinese=False) is None
True
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

__all__ = ["RULES", "Rule", "refusal"]

Language = Literal["en", "zh", "any"]


@dataclass(frozen=True)
class Rule:
    """One refusal: ``check(question, reference)`` is true when the case must not be written.

    ``refuses`` is the :data:`.offline.REFUSALS` key the summary counts it under
    (``misread``, ``vague``, ``leaning``); ``why`` says it to the reader of the code.
    """

    name: str
    language: Language
    refuses: str
    why: str
    check: Callable[[str, str], bool]


def _matches(pattern: str, *, on: Literal["question", "reference", "either"] = "question"):  # type: ignore[no-untyped-def]
    compiled = re.compile(pattern)

    def check(question: str, reference: str) -> bool:
        if on == "question":
            return compiled.search(question) is not None
        if on == "reference":
            return compiled.search(reference) is not None
        return compiled.search(question) is not None or compiled.search(reference) is not None

    return check


#: Markup of a docs site that must never reach a question: anchors, containers,
#: admonitions, alerts, reStructuredText literals and roles, Markdown emphasis and links.
_MARKUP = (
    r"\{#[\w-]+\}|^\s*:::|:::\s*\w|!!!\s*\w|\[!(?:NOTE|TIP|WARNING|IMPORTANT|CAUTION)\]"
    r"|``|:[a-z]+(?::[a-z]+)?:`|\*\*|\]\(|\{\{[<%]|</?[A-Z][A-Za-z]*[\s/>]"
)

RULES: tuple[Rule, ...] = (
    Rule(
        "markup",
        "any",
        "misread",
        "a docs site's markup (anchor, container, admonition, role, link) read as words",
        _matches(_MARKUP, on="either"),
    ),
    Rule(
        "split_name",
        "any",
        "misread",
        'a name cut at its dot ("run in Node.js" asked as "run .js")',
        _matches(r"\s\.[a-z]{1,5}[?？]$"),
    ),
    Rule(
        "two_questions",
        "zh",
        "misread",
        "two questions glued into one: a question mark before the end",
        lambda question, _: bool(re.search(r"[？?].", question.strip())),
    ),
    Rule(
        "label_clause",
        "zh",
        "misread",
        "a list item's label (「特性：说明」) or a second clause after a colon or semicolon",
        _matches(r"[：；:;]"),
    ),
    Rule(
        "subordinate_clause",
        "zh",
        "misread",
        "the wh-word asked inside a subordinate clause (与其说、虽然、如果 …)",
        _matches(r"^(?:与其|不如|虽然|尽管|即使|即便|如果|假如|只要|除非|无论|不管)"),
    ),
    Rule(
        "imagined_example",
        "zh",
        "misread",
        "a made-up example asked as a fact (想象、假设、比如)",
        _matches(r"^(?:想象|设想|假设|假如|比如|例如|譬如|举个例子)", on="either"),
    ),
    Rule(
        "imagined_example",
        "en",
        "misread",
        "a made-up example asked as a fact (imagine, suppose, say you)",
        _matches(r"^(?:Imagine|Suppose|Say you|Let's say|For example, if)\b", on="reference"),
    ),
    Rule(
        "adjective_answer",
        "en",
        "misread",
        'a "what" asked of a sentence whose answer is one describing word ("… is now required")',
        lambda question, reference: bool(
            re.match(r"(?:In [^,]+, )?[Ww]hat (?:is|are|was|were)\b", question)
            and re.search(
                r"\b(?:is|are|was|were)\s+(?:(?:now|also|not|still|always|only|\w+ly)\s+)?"
                r"(?:required|optional|\w+(?:able|ible|ive|ful|ous|ent|ant))\.?$",
                reference,
            )
        ),
    ),
    Rule(
        "pointing_subject",
        "zh",
        "vague",
        "the question names its subject only by pointing (这、此、该、上述、以下)",
        _matches(r"^(?:在[^，]{1,20}中，)?(?:这|此|该|上述|以下|如下|前者|后者|其)"),
    ),
    Rule(
        "pointing_reference",
        "zh",
        "leaning",
        "the reference leans on the page (此文件、上述、如下、以下)",
        _matches(r"此(?:文件|页|处|时|方法|选项)|上述|如下|以下|下面的|上面的", on="reference"),
    ),
)


def refusal(question: str, reference: str, *, chinese: bool) -> tuple[str, str] | None:
    """The first rule refusing the case, as (rule name, refusal key), or None."""
    language = "zh" if chinese else "en"
    for rule in RULES:
        if rule.language in (language, "any") and rule.check(question, reference):
            return rule.name, rule.refuses
    return None
