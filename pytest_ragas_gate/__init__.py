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
    "Answer": "pytest_ragas_gate.judges.base",
    "AskContext": "pytest_ragas_gate.judges.base",
    "AttributeAnswer": "pytest_ragas_gate.judges.requests",
    "AttributeStatements": "pytest_ragas_gate.judges.requests",
    "CaseJudge": "pytest_ragas_gate.judges.base",
    "CaseResult": "pytest_ragas_gate.scoring.results",
    "ClassifyCorrectness": "pytest_ragas_gate.judges.requests",
    "Context": "pytest_ragas_gate.golden.cases",
    "Embedded": "pytest_ragas_gate.judges.base",
    "ExtractClaims": "pytest_ragas_gate.judges.requests",
    "GateConfig": "pytest_ragas_gate.settings.config",
    "GenerateQuestions": "pytest_ragas_gate.judges.requests",
    "GoldenCase": "pytest_ragas_gate.golden.cases",
    "Judge": "pytest_ragas_gate.judges.base",
    "JudgeCapabilities": "pytest_ragas_gate.judges.base",
    "JudgeChunks": "pytest_ragas_gate.judges.requests",
    "JudgeError": "pytest_ragas_gate.exceptions",
    "JudgeFactory": "pytest_ragas_gate.judges.registry",
    "JudgeRequest": "pytest_ragas_gate.judges.requests",
    "JudgeSetup": "pytest_ragas_gate.judges.registry",
    "Message": "pytest_ragas_gate.golden.cases",
    "Metric": "pytest_ragas_gate.metrics.base",
    "MetricResult": "pytest_ragas_gate.metrics.base",
    "ModelCall": "pytest_ragas_gate.judges.toolkit",
    "ModelReply": "pytest_ragas_gate.judges.toolkit",
    "RateRelevancy": "pytest_ragas_gate.judges.requests",
    "ReviewContexts": "pytest_ragas_gate.judges.requests",
    "VerifyCitations": "pytest_ragas_gate.judges.requests",
    "Usage": "pytest_ragas_gate.usage",
    "VerifyClaims": "pytest_ragas_gate.judges.requests",
    "valid_answer": "pytest_ragas_gate.judges.toolkit",
}

__all__ = [*_LAZY, "__version__"]

__version__ = "0.1.0"

if TYPE_CHECKING:
    # What type checkers see of the lazy names above (each ``as`` itself re-exports it).
    from .exceptions import JudgeError as JudgeError
    from .golden.cases import Context as Context
    from .golden.cases import GoldenCase as GoldenCase
    from .golden.cases import Message as Message
    from .judges.base import Answer as Answer
    from .judges.base import AskContext as AskContext
    from .judges.base import CaseJudge as CaseJudge
    from .judges.base import Embedded as Embedded
    from .judges.base import Judge as Judge
    from .judges.base import JudgeCapabilities as JudgeCapabilities
    from .judges.registry import JudgeFactory as JudgeFactory
    from .judges.registry import JudgeSetup as JudgeSetup
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
    from .judges.toolkit import ModelCall as ModelCall
    from .judges.toolkit import ModelReply as ModelReply
    from .judges.toolkit import valid_answer as valid_answer
    from .metrics.base import Metric as Metric
    from .metrics.base import MetricResult as MetricResult
    from .scoring.results import CaseResult as CaseResult
    from .settings.config import GateConfig as GateConfig
    from .usage import Usage as Usage


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_ragas_gate' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
