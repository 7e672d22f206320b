"""Parsers of option values, shared by the pytest options and the ``rag-gate`` command.

Standard library only: the plugin module imports this on every pytest run, and the
``rag-gate`` command must not load pytest.
"""

from __future__ import annotations

import argparse
import difflib
from typing import Any

from ..config_values import read_threshold

__all__ = [
    "parse_assignment",
    "parse_metric_list",
    "parse_output",
    "parse_positive_int",
    "parse_repeats",
    "parse_threshold",
    "typed_value",
]


#: How a null threshold is written on the command line, as YAML writes null.
NULL_SPELLINGS = ("null", "Null", "NULL", "~")


def parse_threshold(text: str) -> tuple[str, float | str | None]:
    """Parse ``METRIC=VALUE``, ``METRIC>=VALUE`` or ``METRIC<=VALUE`` (VALUE from 0 to 1).

    ``=`` takes the metric's own direction; ``<=`` makes the threshold a maximum (for a
    lower-is-better metric such as ``contradiction_rate``), kept as written.
    ``METRIC=null`` leaves the metric ungated, as ``null`` does in the config.

    >>> parse_threshold("faithfulness=0.9")
    ('faithfulness', 0.9)
    >>> parse_threshold("contradiction_rate<=0.02")
    ('contradiction_rate', '<=0.02')
    >>> parse_threshold("context_precision=null")
    ('context_precision', None)
    """
    for operator in ("<=", ">="):
        metric, separator, raw = text.partition(operator)
        if separator:
            break
    else:
        metric, separator, raw = text.partition("=")
        operator = ""
    if not separator or not metric.strip():
        raise argparse.ArgumentTypeError(
            f"expected METRIC=VALUE, METRIC>=VALUE or METRIC<=VALUE, got {text!r}"
        )
    if raw.strip() in NULL_SPELLINGS:
        if operator:
            raise argparse.ArgumentTypeError(
                f"a null threshold has no direction: write {metric.strip()}=null, got {text!r}"
            )
        return metric.strip(), None
    try:
        number = float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"threshold for {metric.strip()!r} must be a number from 0 to 1, got {raw!r}"
        ) from None
    if not 0.0 <= number <= 1.0:
        raise argparse.ArgumentTypeError(
            f"threshold for {metric.strip()!r} must be from 0 to 1, got {number}"
        )
    # The one reader of thresholds (the config and golden files use it too); the operator
    # is checked against the metric's direction once the metrics are known.
    value, _ = read_threshold(metric.strip(), number)
    if operator:
        return metric.strip(), f"{operator}{value:g}"
    return metric.strip(), value


def parse_metric_list(text: str) -> list[str]:
    """Parse ``NAME,NAME``.

    >>> parse_metric_list("faithfulness, context_recall")
    ['faithfulness', 'context_recall']
    """
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("expected a comma-separated list of metric names")
    return names


def parse_positive_int(text: str) -> int:
    """Parse a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


def parse_repeats(text: str) -> int | str:
    """Parse ``judge.repeats``: a whole number from 1 to 20, or ``auto``.

    >>> parse_repeats("3"), parse_repeats("auto")
    (3, 'auto')
    """
    if text.strip().lower() == "auto":
        return "auto"
    value = parse_positive_int(text)
    if value > 20:
        raise argparse.ArgumentTypeError(f"expected at most 20 repeats, or auto, got {value}")
    return value


def parse_output(text: str) -> tuple[str, str]:
    """Parse ``--rag-gate-output KIND=PATH``.

    >>> parse_output("junit=out/junit.xml")
    ('junit', 'out/junit.xml')
    """
    from .config_sections import OUTPUT_KINDS

    kind, separator, path = text.partition("=")
    kind = kind.strip().lower()
    if not separator or not path.strip():
        raise argparse.ArgumentTypeError(
            f"expected KIND=PATH with KIND one of {', '.join(OUTPUT_KINDS)}, got {text!r}"
        )
    if kind not in OUTPUT_KINDS:
        close = difflib.get_close_matches(kind, OUTPUT_KINDS, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise argparse.ArgumentTypeError(
            f"unknown output kind {kind!r}: expected one of {', '.join(OUTPUT_KINDS)}{hint}"
        )
    return kind, path.strip()


def parse_assignment(text: str) -> tuple[str, str]:
    """Parse ``--rag-gate-set KEY=VALUE``; the value is typed later, as in the config file.

    >>> parse_assignment("judge.concurrency=8")
    ('judge.concurrency', '8')
    """
    key, separator, value = text.partition("=")
    key = key.strip()
    if not separator or not key or any(not part for part in key.split(".")):
        raise argparse.ArgumentTypeError(
            f"expected KEY=VALUE with a config key such as judge.concurrency, got {text!r}"
        )
    return key, value


def typed_value(text: str) -> Any:
    """A ``--rag-gate-set`` value read as YAML, as the same value in the config file is.

    ``on``/``off``/``yes``/``no`` stay words (``cache.mode=off``): only ``true`` and
    ``false`` are booleans on the command line.

    >>> typed_value("8"), typed_value("off"), typed_value("true"), typed_value("[a, b]")
    (8, 'off', True, ['a', 'b'])
    """
    import yaml  # deferred: only a run that sets a key reads YAML here

    from pytest_ragas_gate.yaml_keys import safe_load_unique

    try:
        value = safe_load_unique(text)
    except yaml.YAMLError:
        return text
    if isinstance(value, bool) and text.strip().lower() not in ("true", "false"):
        return text.strip()
    if value is None and text.strip().lower() not in ("null", "~"):
        return text
    return value
