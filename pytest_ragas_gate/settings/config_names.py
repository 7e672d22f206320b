"""Config files and tables under a name the gate does not read: an error, not silence.

Settings are read from ``rag_gate.yaml`` and ``[tool.rag_gate]`` only, one spelling each.
A file or table under a near-miss name (``rag_gate.yml``, ``rag-gate.yaml``,
``[tool.rag-gate]``) would otherwise be ignored without a word, and the thresholds the
team wrote there would never be in force; the gate names it and says how to fix it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..exceptions import ConfigError

__all__ = ["MISNAMED_FILES", "MISNAMED_TABLES", "check_config_names"]

#: Config file names people write for ``rag_gate.yaml``.
MISNAMED_FILES: tuple[str, ...] = ("rag_gate.yml", "rag-gate.yaml", "rag-gate.yml")

#: ``[tool.*]`` tables people write for ``[tool.rag_gate]``.
MISNAMED_TABLES: tuple[str, ...] = ("rag-gate", "ragas_gate", "ragas-gate", "pytest-ragas-gate")


def check_config_names(
    rootdir: Path, pyproject: Mapping[str, Any] | None, *, explicit_config: bool
) -> None:
    """Raise ``ConfigError`` for a config the gate would ignore because of its name.

    Args:
        rootdir: Where ``rag_gate.yaml`` is looked for.
        pyproject: The parsed ``pyproject.toml`` of the rootdir, if there is one.
        explicit_config: Whether a config file was named (``--rag-gate-config`` or
            ``RAG_GATE_CONFIG``); then no file is looked for by name.

    >>> check_config_names(Path("/nonexistent"), {"tool": {"rag-gate": {}}},
    ...                    explicit_config=False)
    Traceback (most recent call last):
    ...
    pytest_ragas_gate.exceptions.ConfigError: pyproject.toml has a [tool.rag-gate] table, which the gate does not read: its settings are under [tool.rag_gate] (with an underscore). Rename the table.
    """  # noqa: E501
    tools = (pyproject or {}).get("tool")
    if isinstance(tools, Mapping):
        for table in MISNAMED_TABLES:
            if table in tools:
                raise ConfigError(
                    f"pyproject.toml has a [tool.{table}] table, which the gate does not "
                    "read: its settings are under [tool.rag_gate] (with an underscore). "
                    "Rename the table."
                )
    if explicit_config:
        return
    for name in MISNAMED_FILES:
        if (rootdir / name).is_file():
            raise ConfigError(
                f"{name} in {rootdir} is not read: the gate's config file is rag_gate.yaml. "
                f"Rename it to rag_gate.yaml, or name it with --rag-gate-config {name}."
            )
