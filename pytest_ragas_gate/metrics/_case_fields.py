"""Typed access to the case fields a metric declared in ``required_fields``.

The scorer only runs a metric on cases that have its required fields, so a missing field
here means a caller skipped that check; it is reported as a case error rather than
scored, because scoring an absent answer as an empty one would invent a number.
"""

from __future__ import annotations

from ..exceptions import CaseError
from ..golden.cases import Context, GoldenCase


def required_text(case: GoldenCase, field: str, metric: str) -> str:
    """The case's text ``field`` (``answer`` or ``reference``), present and non-empty.

    Args:
        case: The case being scored.
        field: A ``str | None`` field of ``GoldenCase``.
        metric: The metric asking, for the error message.

    Returns:
        The field's text.

    Raises:
        CaseError: When the field is missing or blank.
    """
    value = getattr(case, field, None)
    if not isinstance(value, str) or not value.strip():
        raise _missing(case, field, metric)
    return value


def required_contexts(case: GoldenCase, metric: str) -> list[Context]:
    """The case's retrieved contexts in rank order, at least one.

    Args:
        case: The case being scored.
        metric: The metric asking, for the error message.

    Returns:
        The contexts.

    Raises:
        CaseError: When the case has no contexts.
    """
    if not case.contexts:
        raise _missing(case, "contexts", metric)
    return case.contexts


def _missing(case: GoldenCase, field: str, metric: str) -> CaseError:
    return CaseError(
        f"Case {case.id!r} ({case.source}) has no {field!r}, which metric {metric!r} needs; "
        f"add {field!r} to the case or leave {metric!r} out of the selected metrics."
    )
