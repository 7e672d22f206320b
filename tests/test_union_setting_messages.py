"""End to end: a setting of two shapes that holds neither is explained in the user's words.

``min_coverage: {default: 0.5, faithfulness: null}`` used to be refused with pydantic's
names for the members of ``float | dict[str, float]``:
``setting 'min_coverage.float' …; setting 'min_coverage.dict[str,float].faithfulness'``.
"""

from __future__ import annotations

import pytest
from gate_runs import GOOD, assert_no_traceback, gate_run, write_jsonl

OPTIONS = {"judge": "offline", "cache": "off", "disable": ("randomly",)}


@pytest.mark.parametrize(
    ("yaml_text", "named"),
    [
        (
            "min_coverage: {default: 0.5, faithfulness: null}\n",
            "*setting 'min_coverage.faithfulness' from rag_gate.yaml:1: expected a number "
            "between 0 and 1, got null; give a number between 0 and 1, or remove the key.",
        ),
        (
            "min_coverage: most\n",
            "*setting 'min_coverage' from rag_gate.yaml:1: expected a number or a mapping "
            "(key: value), got the text 'most'.",
        ),
        (
            "thresholds:\n  faithfulness: [0.8]\n",
            "*setting 'thresholds.faithfulness' from rag_gate.yaml:2: expected a number or "
            "text, got a list*",
        ),
    ],
    ids=["null-entry", "text", "list-threshold"],
)
def test_a_union_setting_error_names_no_pydantic_type(
    pytester: pytest.Pytester, yaml_text: str, named: str
) -> None:
    write_jsonl(pytester, "golden.jsonl", [GOOD])
    (pytester.path / "rag_gate.yaml").write_text(yaml_text, encoding="utf-8")
    outcome = gate_run(pytester, **OPTIONS)
    assert outcome.ret == pytest.ExitCode.USAGE_ERROR, outcome.stdout.str()
    outcome.stderr.fnmatch_lines([named])
    for leaked in ("float", "dict[", "str]", "Input should"):
        assert leaked not in outcome.stderr.str()
    assert_no_traceback(outcome)
