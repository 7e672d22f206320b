"""The offline writer's rules, one line each in tests/synth_rules/<language>.jsonl.

A line gives a chunk and its document's title and the question the writer must ask
(``question``), the refusal it must give (``refused``, a key of the summary's refusal
counts) or nothing at all (``none``); or a question and reference and the rule of
``pytest_ragas_gate/synth/rules.py`` that must refuse it (``rule``, null for none). A
newcomer who finds a bad question adds a line here and the rule in ``synth/rules.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_ragas_gate.synth.offline import _chunk_reading
from pytest_ragas_gate.synth.rules import RULES, refusal

CORPUS = Path(__file__).parent / "synth_rules"


def _lines() -> list[Any]:
    cases = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            row = json.loads(line)
            if "note" not in row:
                cases.append(pytest.param(path.stem, row, id=f"{path.stem}:{number}"))
    return cases


@pytest.mark.parametrize(("language", "row"), _lines())
def test_rule_corpus_line(language: str, row: dict[str, Any]) -> None:
    chinese = language == "zh"
    if "rule" in row:
        ruled = refusal(row["question"], row["reference"], chinese=chinese)
        assert (ruled[0] if ruled else None) == row["rule"]
        return
    facts, refused = _chunk_reading(row["chunk"], row["title"], chinese, frozenset())
    asked = [fact.question for fact in facts]
    if "question" in row:
        assert row["question"] in asked
    else:
        assert asked == []
        assert list(refused) == ([row["refused"]] if "refused" in row else [])


def test_every_rule_has_a_line_of_the_corpus() -> None:
    named = {
        json.loads(line).get("rule")
        for path in CORPUS.glob("*.jsonl")
        for line in path.read_text(encoding="utf-8").splitlines()
    }
    assert {rule.name for rule in RULES} - named == set()
