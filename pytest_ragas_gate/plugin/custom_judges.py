"""The judges a run can select: the built-in ones, a conftest's, and installed packages'.

A project registers judge factories in its ``conftest.py`` with the
``pytest_rag_gate_judges`` hook; packages register them under the
``pytest_ragas_gate.judges`` entry-point group, read only when the judge asked for is
none of the built-in ones and no conftest's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..judges.registry import AUTO, JudgeRegistry
from ..scoring.judge_factory import builtin_judges
from ..settings.config import LoadedConfig
from ..settings.config_checks import check_judge_kind

if TYPE_CHECKING:
    import pytest

__all__ = ["HOOK", "run_judges"]

#: Where a conftest's judges come from, for messages.
HOOK = "A conftest's pytest_rag_gate_judges hook"


def run_judges(pytest_config: pytest.Config, loaded: LoadedConfig) -> JudgeRegistry:
    """Every judge the run can select, once the selected kind is checked to be among them.

    Raises:
        ConfigError: a hook returns something other than a mapping of kind to factory,
            a kind is taken twice, an entry point fails to load, or the selected kind is
            nobody's.
    """
    judges = builtin_judges()
    for returned in pytest_config.hook.pytest_rag_gate_judges(config=pytest_config):
        judges.register_all(returned, HOOK)
    if loaded.config.judge not in (AUTO, *judges.kinds):
        judges.register_installed()
    check_judge_kind(loaded.config, judges.kinds, loaded.sources)
    return judges
