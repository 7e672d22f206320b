"""Strict types for settings a YAML file can silently turn into something else.

YAML 1.1 reads ``off``, ``no`` and ``false`` as the boolean false, and ``on``, ``yes`` and
``true`` as true; Python's ``bool`` is an ``int``, so without a check ``faithfulness: off``
becomes a threshold of 0.0 and ``cache: off`` an unknown cache mode. A number in quotes
(``"0.9"``) is a string, refused in the config as in the golden cases, so one rule holds
everywhere: a threshold is a number from 0 to 1, or a string that names its direction
(``">=0.9"``, ``"<=0.02"``).

Each check returns the value unchanged or raises ``ValueError`` with a message that says
what YAML read and how to write it; the config loader names the key and the source.
"""

from __future__ import annotations

import math
from typing import Any, Literal

__all__ = [
    "NUMERIC_SETTINGS",
    "check_cache_mode",
    "check_number",
    "check_repeats",
    "check_tag_thresholds",
    "check_thresholds",
    "read_threshold",
    "yaml_boolean",
]

#: Settings whose value is a number; a boolean or a string there is a typing mistake.
NUMERIC_SETTINGS: tuple[str, ...] = (
    "max_error_rate",
    "min_cases",
    "confidence",
    "bootstrap_resamples",
    "seed",
    "concurrency",
    "requests_per_minute",
    "timeout_s",
    "max_retries",
    "retry_backoff_s",
    "max_reasks",
    "batch_poll_s",
    "max_calls",
    "max_cost",
    "max_regression",
    "min_judge_agreement",
    "pairwise_min_consistency",
    "ppi_min_labels",
)


def yaml_boolean(value: bool) -> str:
    """What YAML read, in words that show which spellings it came from.

    >>> yaml_boolean(False)
    'the boolean false (YAML reads off, no and false so)'
    """
    words = "on, yes and true" if value else "off, no and false"
    return f"the boolean {str(value).lower()} (YAML reads {words} so)"


def check_number(value: Any, *, expected: str) -> Any:
    """Refuse a boolean or a string where a number is expected; anything else passes on.

    >>> check_number(True, expected="a number from 0 to 1")
    Traceback (most recent call last):
    ...
    ValueError: was read as the boolean true (YAML reads on, yes and true so); expected a number from 0 to 1
    >>> check_number("0.5", expected="a number")
    Traceback (most recent call last):
    ...
    ValueError: is the string '0.5'; write the number without quotes (0.5)
    """  # noqa: E501
    if isinstance(value, bool):
        raise ValueError(f"was read as {yaml_boolean(value)}; expected {expected}")
    if isinstance(value, str):
        raise ValueError(_string_message(value, expected))
    return value


def check_repeats(value: Any) -> Any:
    """A whole number of repeats from 1 to 20, or ``auto``.

    >>> check_repeats(3), check_repeats("auto")
    (3, 'auto')
    >>> check_repeats(0)
    Traceback (most recent call last):
    ...
    ValueError: is 0; expected a whole number of repeats from 1 to 20, or auto
    """
    expected = "a whole number of repeats from 1 to 20, or auto"
    if value == "auto" or value is None:
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"is {value!r}; expected {expected}")
    if not 1 <= value <= 20:
        raise ValueError(f"is {value}; expected {expected}")
    return value


def _string_message(value: str, expected: str) -> str:
    text = value.strip()
    try:
        number = float(text)
    except ValueError:
        return f"is the string {value!r}; expected {expected}"
    if not math.isfinite(number):
        return f"is the string {value!r}; expected {expected}"
    return f"is the string {value!r}; write the number without quotes ({text})"


def read_threshold(metric: str, raw: float | str) -> tuple[float, Literal["min", "max"] | None]:
    """A threshold as written: its value, and the direction its operator states (if any).

    The one reader of threshold text, for the command line, the config and golden files:
    a number from 0 to 1, or a string ``>=X`` (a minimum) / ``<=X`` (a maximum) / ``X``.
    Which direction the threshold has is the metric's; the caller checks that a stated
    one agrees.

    Raises:
        ValueError: with a message naming the metric and what was expected.

    >>> read_threshold("contradiction_rate", "<=0.02"), read_threshold("faithfulness", 0.85)
    ((0.02, 'max'), (0.85, None))
    """
    stated: Literal["min", "max"] | None = None
    text: float | str = raw
    if isinstance(raw, str):
        text = raw.strip()
        for operator, named in ((">=", "min"), ("<=", "max")):
            if text.startswith(operator):
                stated = "min" if named == "min" else "max"
                text = text[len(operator) :].strip()
                break
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ValueError(
            f"threshold for {metric!r} is {raw!r}; expected a number from 0 to 1, "
            "optionally written as >=X (a minimum) or <=X (a maximum)"
        ) from None
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"threshold for {metric!r} is {value}; expected a number from 0 to 1")
    return value, stated


def check_thresholds(value: Any) -> Any:
    """Each threshold: a number, null, or a string starting with ``>=`` / ``<=``.

    >>> check_thresholds({"faithfulness": False})
    Traceback (most recent call last):
    ...
    ValueError: threshold for 'faithfulness' was read as the boolean false (YAML reads off, no and false so); give a number from 0 to 1, or null to leave the metric ungated
    >>> check_thresholds({"faithfulness": "0.9"})
    Traceback (most recent call last):
    ...
    ValueError: threshold for 'faithfulness' is the string '0.9'; write the number without quotes (0.9), or as '>=0.9' / '<=0.9' to give its direction
    >>> check_thresholds({"contradiction_rate": "<=0.02", "faithfulness": None})
    {'contradiction_rate': '<=0.02', 'faithfulness': None}
    """  # noqa: E501
    if not isinstance(value, dict):
        return value
    for metric, threshold in value.items():
        if isinstance(threshold, bool):
            raise ValueError(
                f"threshold for {metric!r} was read as {yaml_boolean(threshold)}; give a "
                "number from 0 to 1, or null to leave the metric ungated"
            )
        if isinstance(threshold, str) and threshold.strip()[:2] not in (">=", "<="):
            text = threshold.strip()
            try:
                float(text)
            except ValueError:
                continue  # not a number at all: the bound parser says what is expected
            raise ValueError(
                f"threshold for {metric!r} is the string {threshold!r}; write the number "
                f"without quotes ({text}), or as '>={text}' / '<={text}' to give its direction"
            )
    return value


def check_tag_thresholds(value: Any) -> Any:
    """Each per-tag threshold is a number (no boolean, no string).

    >>> check_tag_thresholds({"zh": {"faithfulness": "0.9"}})
    Traceback (most recent call last):
    ...
    ValueError: threshold for 'faithfulness' under tag 'zh' is the string '0.9'; write the number without quotes (0.9)
    """  # noqa: E501
    if not isinstance(value, dict):
        return value
    for tag, thresholds in value.items():
        if not isinstance(thresholds, dict):
            continue
        for metric, threshold in thresholds.items():
            try:
                check_number(threshold, expected="a number from 0 to 1")
            except ValueError as error:
                raise ValueError(f"threshold for {metric!r} under tag {tag!r} {error}") from None
    return value


def check_cache_mode(value: Any) -> Any:
    """``cache: off`` reaches us as false: say so, and how to write it.

    >>> check_cache_mode(False)
    Traceback (most recent call last):
    ...
    ValueError: was read as the boolean false (YAML reads off, no and false so), not as the mode 'off'; quote it: mode: "off" (or --rag-gate-set cache.mode=off)
    """  # noqa: E501
    if isinstance(value, bool) and value:
        raise ValueError(
            f'was read as {yaml_boolean(value)}; expected one of readwrite, read or "off"'
        )
    if isinstance(value, bool):
        raise ValueError(
            f"was read as {yaml_boolean(value)}, not as the mode 'off'; quote it: "
            'mode: "off" (or --rag-gate-set cache.mode=off)'
        )
    return value
