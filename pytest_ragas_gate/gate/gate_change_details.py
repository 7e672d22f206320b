"""The words for one changed gate input: a golden file's cases, a config file's settings.

:mod:`pytest_ragas_gate.gate.gate_changes` finds which files of a pull request are inputs of the
gate; this module reads both revisions of one such file and says what changed in it.
"""

from __future__ import annotations

import difflib
import json
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import ValidationError

from ..exceptions import GoldenFileError
from ..golden.loading import load_golden_file
from ..judges.cache_signing import check_public_key, fingerprint
from ..scoring.results import CaseResult
from ..settings.config import GateConfig
from .case_verdicts import case_verdicts

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "METRIC_ENTRY_POINTS",
    "failing_cases",
    "golden_change",
    "invocation_change",
    "settings_changes",
]

#: What marks a line of a workflow or a pytest config as one that runs or tunes the gate.
GATE_MARKS = ("rag-gate", "rag_gate", "pytest-ragas-gate")

#: The entry-point group of custom metrics (metrics/registry.py), read from pyproject.toml.
METRIC_ENTRY_POINTS = "pytest_ragas_gate.metrics"

SettingsChangeKind = Literal["config", "public_key", "entry_points", "invocation"]


# --- golden files ---------------------------------------------------------------------------


def _cases(path: str, text: str | None) -> dict[str, dict[str, Any]] | None:
    """The cases of one revision of a golden file by id, or None when it cannot be read."""
    if text is None:
        return {}
    with tempfile.TemporaryDirectory(prefix="rag-gate-base-") as folder:
        copy = Path(folder) / PurePosixPath(path).name
        copy.write_text(text, encoding="utf-8")
        try:
            loaded = load_golden_file(copy, display_path=path)
        except GoldenFileError:
            return None
    return {
        case.id: case.model_dump(mode="json", exclude={"file", "line"}) for case in loaded.cases
    }


def golden_change(
    path: str,
    before_text: str | None,
    after_text: str | None,
    status: str,
    failing: Mapping[str, str],
) -> str:
    """What changed in a golden file: cases added, removed (failing ones called out), edited.

    Args:
        path: the file, as the diff names it.
        before_text: its text at the base (None: absent).
        after_text: its text at the head (None: absent).
        status: git's status letter (``A`` added, ``D`` deleted, ``M`` modified).
        failing: case id → why it failed in the baseline.
    """
    before = _cases(path, before_text)
    after = _cases(path, after_text)
    if before is None or after is None:
        return "golden file changed (one side cannot be read)"
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    edited = sorted(case for case in set(before) & set(after) if before[case] != after[case])
    parts: list[str] = []
    if status.startswith("A"):
        parts.append(f"new golden file with {len(after)} case(s)")
    elif status.startswith("D"):
        parts.append(f"golden file removed with its {len(before)} case(s)")
    for label, ids in (("added", added), ("removed", removed), ("edited", edited)):
        if ids and not (status[:1] in "AD" and label in ("added", "removed")):
            parts.append(f"{len(ids)} case(s) {label}: {_ids(ids)}")
    for case in removed:
        if case in failing:
            parts.append(f"removed case {case} failed in the baseline ({failing[case]})")
    return "; ".join(parts) or "reformatted"


def _ids(ids: Sequence[str], shown: int = 5) -> str:
    listed = ", ".join(ids[:shown])
    return listed + (f" and {len(ids) - shown} more" if len(ids) > shown else "")


# --- settings -------------------------------------------------------------------------------


def _settings(path: str, text: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The gate's settings and the custom-metric entry points of one revision of a file."""
    if text is None:
        return {}, {}
    if PurePosixPath(path).name == "pyproject.toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return {"(unreadable pyproject.toml)": True}, {}
        tool = data.get("tool", {})
        settings = tool.get("rag_gate", {}) if isinstance(tool, dict) else {}
        project = data.get("project", {})
        groups = project.get("entry-points", {}) if isinstance(project, dict) else {}
        entry_points = groups.get(METRIC_ENTRY_POINTS, {}) if isinstance(groups, dict) else {}
        return (
            settings if isinstance(settings, dict) else {},
            entry_points if isinstance(entry_points, dict) else {},
        )
    import yaml

    from pytest_ragas_gate.yaml_keys import safe_load_unique

    try:
        data = safe_load_unique(text)
    except yaml.YAMLError:
        return {"(unreadable YAML)": True}, {}
    return (data if isinstance(data, dict) else {}), {}


def _thresholds(settings: Mapping[str, Any]) -> dict[str, str]:
    """The thresholds in force (defaults counted), as text; raw values when invalid."""
    try:
        config = GateConfig.model_validate(
            {key: settings[key] for key in ("thresholds",) if key in settings}
        )
    except ValidationError:
        raw = settings.get("thresholds")
        return {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}
    return {
        metric: f"{'<=' if bound.direction == 'max' else ''}{bound.value:.2f}"
        for metric, bound in config.bounds().items()
    }


def _shown(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def _key_name(key: str) -> str:
    try:
        return f"{fingerprint(check_public_key(key))} (fingerprint)"
    except ValueError:
        return _shown(key)


def settings_changes(
    path: str, before_text: str | None, after_text: str | None
) -> list[tuple[SettingsChangeKind, str]]:
    """Each changed setting of a config file as ``(kind, before → after)``.

    Thresholds are compared as in force (the defaults counted); ``cache_public_key`` by
    fingerprint; in ``pyproject.toml`` the custom-metric entry points too.
    """
    before, before_entry_points = _settings(path, before_text)
    after, after_entry_points = _settings(path, after_text)
    changes: list[tuple[SettingsChangeKind, str]] = []
    thresholds_before, thresholds_after = _thresholds(before), _thresholds(after)
    for metric in sorted(set(thresholds_before) | set(thresholds_after)):
        old = thresholds_before.get(metric, "not gated")
        new = thresholds_after.get(metric, "not gated")
        if old != new:
            changes.append(("config", f"threshold {metric} {old} → {new}"))
    for key in sorted((set(before) | set(after)) - {"thresholds"}):
        old_value, new_value = before.get(key), after.get(key)
        if old_value == new_value:
            continue
        if key == "cache_public_key":
            old = "none" if old_value is None else _key_name(str(old_value))
            new = "none" if new_value is None else _key_name(str(new_value))
            changes.append(
                (
                    "public_key",
                    f"cache.public_key {old} → {new}: the key that decides which "
                    "judge-cache entries are replayed",
                )
            )
            continue
        old = "not set" if key not in before else _shown(old_value)
        new = "not set" if key not in after else _shown(new_value)
        changes.append(("config", f"{key} {old} → {new}"))
    if before_entry_points != after_entry_points:
        changes.append(
            (
                "entry_points",
                f"custom-metric entry points ({METRIC_ENTRY_POINTS}) "
                f"{_shown(before_entry_points)} → {_shown(after_entry_points)}",
            )
        )
    if PurePosixPath(path).name == "pyproject.toml":
        addopts = invocation_change(_addopts(before_text), _addopts(after_text))
        if addopts is not None:
            changes.append(("invocation", f"[tool.pytest.ini_options] addopts {addopts}"))
    return changes


def _addopts(text: str | None) -> str | None:
    """Pytest's ``addopts`` in a pyproject.toml, one option per line, or None."""
    if text is None:
        return None
    try:
        table = tomllib.loads(text).get("tool", {}).get("pytest", {}).get("ini_options", {})
    except (tomllib.TOMLDecodeError, AttributeError):
        return None
    value = table.get("addopts") if isinstance(table, dict) else None
    if isinstance(value, list):
        return "\n".join(str(option) for option in value)
    return None if value is None else "\n".join(str(value).split())


def failing_cases(results: Sequence[CaseResult], config: GateConfig) -> dict[str, str]:
    """Case id → why it failed, for the cases of a baseline that errored or scored low.

    A case "failed" when the gate's case verdict says so: it errored, missed its own
    thresholds, or scored below the gate's threshold of a metric — the cases whose removal
    would raise a mean.
    """
    failing: dict[str, str] = {}
    for case in case_verdicts(results, config.bounds()):
        if not case.failing:
            continue
        reasons = ["errored"] if case.status == "errored" else []
        reasons += case.own_misses + [miss.line for miss in case.gate_misses]
        failing[case.id] = ", ".join(dict.fromkeys(reasons))
    return failing


def invocation_change(before_text: str | None, after_text: str | None) -> str | None:
    r"""The changed lines of a workflow or pytest config that runs the gate, or None.

    A file counts when either revision mentions the gate; every changed line is shown then,
    since an Action input (``thresholds: |`` and the lines below it) need not name it.

    >>> invocation_change(
    ...     "uses: org/pytest-ragas-gate@v1\nthresholds: faithfulness=0.85\n",
    ...     "uses: org/pytest-ragas-gate@v1\nthresholds: faithfulness=0.10\n",
    ... )
    'changed lines: - thresholds: faithfulness=0.85 / + thresholds: faithfulness=0.10'
    >>> invocation_change("name: docs\n", "name: docs site\n") is None
    True
    """
    before, after = _lines(before_text), _lines(after_text)
    if not any(mark in line.lower() for line in before + after for mark in GATE_MARKS):
        return None
    removed, added = [], []
    for tag, low, high, new_low, new_high in difflib.SequenceMatcher(
        None, before, after, autojunk=False
    ).get_opcodes():
        if tag != "equal":
            removed += [line for line in before[low:high] if line]
            added += [line for line in after[new_low:new_high] if line]
    if not removed and not added:
        return None
    shown = [f"- {line}" for line in removed[:4]] + [f"+ {line}" for line in added[:4]]
    more = len(removed) + len(added) - len(shown)
    return "changed lines: " + " / ".join(shown) + (f" (+{more} more)" if more else "")


def _lines(text: str | None) -> list[str]:
    return [] if text is None else [" ".join(line.split()) for line in text.splitlines()]
