"""One usage model for judges and reports, and the import layers around it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from pydantic import ValidationError

import pytest_ragas_gate
from pytest_ragas_gate.judges.base import JudgeInfo
from pytest_ragas_gate.reports import json_report
from pytest_ragas_gate.scoring.results import CaseResult
from pytest_ragas_gate.usage import Usage

PACKAGE = Path(pytest_ragas_gate.__file__).parent


def test_results_and_judges_share_one_usage_model() -> None:
    assert Usage is Usage
    assert "__add__" not in vars(CaseResult)
    total = sum([Usage(calls=1, cost_usd=0.1), Usage(calls=2, cost_usd=0.2)], Usage())
    assert total == Usage(calls=3, cost_usd=0.3)


def test_usage_is_immutable_and_rejects_unknown_fields() -> None:
    with pytest.raises(ValidationError):
        Usage(calls=1).calls = 2  # type: ignore[misc]
    with pytest.raises(ValidationError, match="tokens"):
        Usage.model_validate({"calls": 1, "tokens": 3})


def test_reports_reexport_the_judges_judge_info() -> None:
    assert json_report.JudgeInfo is JudgeInfo
    assert "JudgeInfo" in json_report.__all__


def imported_modules(module: Path) -> set[str]:
    """Every package module ``module`` imports, under TYPE_CHECKING and in functions too."""
    package = ".".join(("pytest_ragas_gate", *module.relative_to(PACKAGE).parent.parts))
    found: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, node.module] if node.module else parts)
            else:
                base = node.module or ""
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("pytest_ragas_gate.")}


def test_usage_imports_nothing_from_the_package() -> None:
    assert imported_modules(PACKAGE / "usage.py") == set()


def test_results_do_not_import_the_judges() -> None:
    assert not {
        name
        for name in imported_modules(PACKAGE / "scoring" / "results.py")
        if name.startswith("pytest_ragas_gate.judges")
    }


@pytest.mark.parametrize(
    "module",
    sorted((PACKAGE / "judges").rglob("*.py")),
    ids=lambda path: str(path.relative_to(PACKAGE / "judges")),
)
def test_judges_do_not_import_reports(module: Path) -> None:
    assert not {
        name for name in imported_modules(module) if name.startswith("pytest_ragas_gate.reports")
    }
