"""Fixtures shared by the test modules: the local fake LLM server, a keyless environment."""

from __future__ import annotations

import pytest

# Imported once here so in-process pytester runs never re-import it: PyYAML's C loader
# keeps the node classes of the first import.
import yaml  # noqa: F401
from fakellm import fake_llm

__all__ = ["fake_llm"]

_JUDGE_ENVIRONMENT = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "RAG_GATE_JUDGE",
    "RAG_GATE_MODEL",
    "RAG_GATE_CONFIG",
    "GITHUB_ACTIONS",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_OUTPUT",
)


@pytest.fixture(autouse=True)
def _keyless_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may depend on, or leak, a real key or CI setting of the machine it runs on."""
    for name in _JUDGE_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
