"""pytest-ragas-gate: a quality gate for RAG systems, as a pytest plugin.

The package's top level stays import-light because pytest imports the plugin module (and
so this package) on every run; the public names below load on first access.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .cases import Context, GoldenCase
    from .config import GateConfig
    from .judges.base import CaseJudge
    from .judges.requests import (
        AttributeAnswer,
        AttributeStatements,
        ClassifyCorrectness,
        ExtractClaims,
        GenerateQuestions,
        JudgeChunks,
        JudgeRequest,
        RateRelevancy,
        ReviewContexts,
        VerifyClaims,
    )
    from .metrics.base import Metric, MetricResult
    from .results import CaseResult

__all__ = [
    "AttributeAnswer",
    "AttributeStatements",
    "CaseJudge",
    "CaseResult",
    "ClassifyCorrectness",
    "Context",
    "ExtractClaims",
    "GateConfig",
    "GenerateQuestions",
    "GoldenCase",
    "JudgeChunks",
    "JudgeRequest",
    "Metric",
    "MetricResult",
    "RateRelevancy",
    "ReviewContexts",
    "VerifyClaims",
    "__version__",
]

__version__ = "0.1.0"

# The judge requests are what a custom metric may ask; every judge knows how to answer them.
_LAZY = {
    **{
        name: "pytest_ragas_gate.judges.requests"
        for name in (
            "AttributeAnswer",
            "AttributeStatements",
            "ClassifyCorrectness",
            "ExtractClaims",
            "GenerateQuestions",
            "JudgeChunks",
            "JudgeRequest",
            "RateRelevancy",
            "ReviewContexts",
            "VerifyClaims",
        )
    },
    "CaseJudge": "pytest_ragas_gate.judges.base",
    "CaseResult": "pytest_ragas_gate.results",
    "Context": "pytest_ragas_gate.cases",
    "GateConfig": "pytest_ragas_gate.config",
    "GoldenCase": "pytest_ragas_gate.cases",
    "Metric": "pytest_ragas_gate.metrics.base",
    "MetricResult": "pytest_ragas_gate.metrics.base",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_ragas_gate' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
