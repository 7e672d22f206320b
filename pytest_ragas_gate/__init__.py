"""pytest-ragas-gate: a quality gate for RAG systems, as a pytest plugin.

The package's top level stays import-light because pytest imports the plugin module (and
so this package) on every run; the public names below load on first access.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Every public name and the module it loads from: the one list of them. The judge
#: requests are what a custom metric may ask; every judge knows how to answer them.
_LAZY = {
    "AttributeAnswer": "pytest_ragas_gate.judges.requests",
    "AttributeStatements": "pytest_ragas_gate.judges.requests",
    "CaseJudge": "pytest_ragas_gate.judges.base",
    "CaseResult": "pytest_ragas_gate.scoring.results",
    "ClassifyCorrectness": "pytest_ragas_gate.judges.requests",
    "Context": "pytest_ragas_gate.golden.cases",
    "ExtractClaims": "pytest_ragas_gate.judges.requests",
    "GateConfig": "pytest_ragas_gate.settings.config",
    "GenerateQuestions": "pytest_ragas_gate.judges.requests",
    "GoldenCase": "pytest_ragas_gate.golden.cases",
    "JudgeChunks": "pytest_ragas_gate.judges.requests",
    "JudgeRequest": "pytest_ragas_gate.judges.requests",
    "Message": "pytest_ragas_gate.golden.cases",
    "Metric": "pytest_ragas_gate.metrics.base",
    "MetricResult": "pytest_ragas_gate.metrics.base",
    "RateRelevancy": "pytest_ragas_gate.judges.requests",
    "ReviewContexts": "pytest_ragas_gate.judges.requests",
    "VerifyCitations": "pytest_ragas_gate.judges.requests",
    "VerifyClaims": "pytest_ragas_gate.judges.requests",
}

__all__ = [*_LAZY, "__version__"]

__version__ = "0.1.0"

if TYPE_CHECKING:
    # What type checkers see of the lazy names above (each ``as`` itself re-exports it).
    from .golden.cases import Context as Context
    from .golden.cases import GoldenCase as GoldenCase
    from .golden.cases import Message as Message
    from .judges.base import CaseJudge as CaseJudge
    from .judges.requests import AttributeAnswer as AttributeAnswer
    from .judges.requests import AttributeStatements as AttributeStatements
    from .judges.requests import ClassifyCorrectness as ClassifyCorrectness
    from .judges.requests import ExtractClaims as ExtractClaims
    from .judges.requests import GenerateQuestions as GenerateQuestions
    from .judges.requests import JudgeChunks as JudgeChunks
    from .judges.requests import JudgeRequest as JudgeRequest
    from .judges.requests import RateRelevancy as RateRelevancy
    from .judges.requests import ReviewContexts as ReviewContexts
    from .judges.requests import VerifyCitations as VerifyCitations
    from .judges.requests import VerifyClaims as VerifyClaims
    from .metrics.base import Metric as Metric
    from .metrics.base import MetricResult as MetricResult
    from .scoring.results import CaseResult as CaseResult
    from .settings.config import GateConfig as GateConfig


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_ragas_gate' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
