"""promptfoo: a results file (``promptfoo eval -o results.json``) or a config's tests.

A result gives the question and contexts from its ``vars`` (``query``/``question``/
``input``/``prompt``; ``context``/``contexts``), the answer from the provider's
``response.output``, the reference from a ``context-recall`` assert's ``value`` rendered
with the test's vars (``{{reference}}`` is the ``reference`` var; a template the vars
cannot render is left out with a warning), else a ``reference``/``expected_output``/
``ground_truth`` var, and per-case thresholds from the
``context-faithfulness``, ``context-recall``, ``answer-relevance`` and
``context-relevance`` asserts. The ``tests:`` of a ``promptfooconfig.yaml`` (inline, or
``file://`` YAML or CSV beside it), or a tests CSV, become live-mode cases: no answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..exceptions import CommandError
from .records import (
    Imported,
    Invalid,
    Malformed,
    Outcome,
    Place,
    Skipped,
    csv_rows,
    pick_text,
    text_list,
)

__all__ = ["read_promptfoo"]

QUESTION_VARS = ("query", "question", "input", "user_input", "prompt")
CONTEXT_VARS = ("context", "contexts", "retrieved_contexts", "documents")
REFERENCE_VARS = ("reference", "expected_output", "ground_truth", "expected")
#: promptfoo assert type → this gate's metric.
ASSERT_METRICS = {
    "context-faithfulness": "faithfulness",
    "context-recall": "context_recall",
    "answer-relevance": "answer_relevancy",
    "context-relevance": "context_relevance",
}


def read_promptfoo(path: Path) -> Iterator[Outcome]:
    """The cases of a results JSON, a config YAML or a tests CSV."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        yield from _tests_csv(path, [])
        return
    document = _load(path)
    if suffix in (".yaml", ".yml"):
        yield from _config_tests(path, document)
        return
    results = results_of(path, document)
    for index, result in enumerate(results, start=1):
        yield _result(Place(str(path), "item", index), result)


def _load(path: Path) -> Any:
    import yaml

    from pytest_ragas_gate.yaml_keys import safe_load_unique

    try:
        text = path.read_text(encoding="utf-8-sig")
        if path.suffix.lower() in (".yaml", ".yml"):
            return safe_load_unique(text)
        return json.loads(text)
    except OSError as error:
        raise CommandError(f"Cannot read {path}: {error.strerror or error}.") from None
    except UnicodeDecodeError as error:
        raise CommandError(f"{path} is not UTF-8 text ({error.reason}).") from None
    except json.JSONDecodeError as error:
        raise CommandError(f"{path}:{error.lineno} is not valid JSON ({error.msg}).") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise CommandError(f"{path}{line} is not valid YAML ({error}).") from None


def _vars(test: Mapping[str, Any], field: str) -> dict[str, Any]:
    variables = test.get("vars") or {}
    if not isinstance(variables, Mapping):
        raise Invalid(field, f"expected an object of variables, got {type(variables).__name__}")
    return dict(variables)


def _fields(
    variables: Mapping[str, Any], asserts: list[Any], prefix: str, notes: list[str]
) -> dict[str, Any]:
    """Question, contexts, reference and thresholds from a test's vars and asserts.

    What could not be taken as data (a template no variable renders) is appended to
    ``notes``, a sentence each.
    """
    name = next((key for key in QUESTION_VARS if key in variables), None)
    if name is None:
        texts = [key for key, value in variables.items() if isinstance(value, str)]
        if len(texts) != 1:
            raise Invalid(
                f"{prefix}vars",
                f"expected a question variable ({', '.join(QUESTION_VARS)})",
            )
        name = texts[0]
    fields: dict[str, Any] = {
        "question": pick_text(variables[name], f"{prefix}vars.{name}", required=True)
    }
    context_name = next((key for key in CONTEXT_VARS if key in variables), None)
    if context_name is not None:
        contexts = text_list(variables[context_name], f"{prefix}vars.{context_name}")
        if contexts:
            fields["contexts"] = contexts
    reference = None
    thresholds: dict[str, float] = {}
    for index, check in enumerate(asserts):
        if not isinstance(check, Mapping) or check.get("type") not in ASSERT_METRICS:
            continue
        metric = ASSERT_METRICS[str(check["type"])]
        threshold = check.get("threshold")
        if threshold is not None:
            if isinstance(threshold, bool) or not isinstance(threshold, int | float):
                raise Invalid(f"{prefix}assert[{index}].threshold", "expected a number 0–1")
            if not 0 <= threshold <= 1:
                raise Invalid(
                    f"{prefix}assert[{index}].threshold", f"expected 0–1, got {threshold}"
                )
            thresholds[metric] = float(threshold)
        if metric == "context_recall" and isinstance(check.get("value"), str):
            reference = _rendered(check["value"], variables, f"{prefix}assert[{index}]", notes)
    if reference is None:
        key = next((key for key in REFERENCE_VARS if key in variables), None)
        if key is not None:
            reference = pick_text(variables[key], f"{prefix}vars.{key}")
            if reference is not None and _TEMPLATE_START in reference:
                notes.append(
                    f"{prefix}vars.{key}: the value {reference!r} is a template promptfoo did "
                    "not render; no reference taken from it"
                )
                reference = None
    if reference:
        fields["reference"] = reference
    if thresholds:
        fields["thresholds"] = thresholds
    return fields


_TEMPLATE_START = "{{"
#: A Nunjucks expression that only names a variable: ``{{reference}}``, ``{{ vars.answer }}``.
_VARIABLE = re.compile(r"\{\{-?\s*(?:vars\.)?([A-Za-z_][\w]*)\s*-?\}\}")


def _rendered(value: str, variables: Mapping[str, Any], where: str, notes: list[str]) -> str | None:
    """An assert's value with the test's variables put in, as promptfoo renders it.

    The results file keeps each assert as written, so a ``context-recall`` value is often
    ``{{reference}}``: the reference is the variable it names. A template that the
    variables cannot render (a missing variable, a filter, a tag) is never data.
    """
    missing: list[str] = []

    def put(match: re.Match[str]) -> str:
        name = match.group(1)
        found = variables.get(name)
        if isinstance(found, str):
            return found
        if isinstance(found, list) and all(isinstance(item, str) for item in found):
            return "\n".join(found)
        missing.append(name)
        return match.group(0)

    text = _VARIABLE.sub(put, value).strip()
    if missing:
        names = ", ".join(repr(name) for name in missing)
        notes.append(
            f"{where}: the value {value!r} names the variable {names}, which the test's vars "
            "do not give as text; no reference taken from it"
        )
        return None
    if _TEMPLATE_START in text:
        notes.append(
            f"{where}: the value {value!r} is a template the test's vars do not render; no "
            "reference taken from it"
        )
        return None
    return text or None


def _asserts(test: Mapping[str, Any], field: str) -> list[Any]:
    asserts = test.get("assert") or []
    if not isinstance(asserts, list):
        raise Invalid(field, f"expected a list of asserts, got {type(asserts).__name__}")
    return asserts


def _result(place: Place, result: object) -> Outcome:
    if not isinstance(result, Mapping):
        return Malformed(place, "(result)", "expected an object")
    response = result.get("response") if isinstance(result.get("response"), Mapping) else {}
    error = result.get("error") or (response or {}).get("error")
    output = (response or {}).get("output")
    if error and not output:
        first_line = str(error).splitlines()[0][:120] if str(error) else ""
        return Skipped(place, f"the provider failed: {first_line}", "the provider failed")
    test = result.get("testCase") if isinstance(result.get("testCase"), Mapping) else {}
    notes: list[str] = []
    try:
        variables = {**_vars(test or {}, "testCase.vars"), **_vars(result, "vars")}
        fields = _fields(variables, _asserts(test or {}, "testCase.assert"), "testCase.", notes)
        answer = pick_text(output, "response.output")
    except Invalid as invalid:
        return Malformed(place, invalid.field, invalid.expected)
    if answer is None:
        return Skipped(place, "the provider's output is empty")
    fields = {"question": fields.pop("question"), "answer": answer, **fields}
    provider = result.get("provider")
    metadata: dict[str, Any] = {
        "provider": provider.get("id") if isinstance(provider, Mapping) else provider,
        "test_index": result.get("testIdx"),
        "prompt_index": result.get("promptIdx"),
    }
    if isinstance(test, Mapping) and test.get("description"):
        metadata["description"] = test["description"]
    return Imported(
        place,
        fields,
        metadata={k: v for k, v in metadata.items() if v is not None},
        warnings=_named(test, notes),
    )


def _named(test: object, notes: list[str]) -> list[str]:
    """``notes`` naming the test by its description, as promptfoo's own report does."""
    description = test.get("description") if isinstance(test, Mapping) else None
    if not description:
        return notes
    return [f"test {str(description)!r}: {note}" for note in notes]


def _config_tests(path: Path, document: object) -> Iterator[Outcome]:
    if not isinstance(document, Mapping) or "tests" not in document:
        raise CommandError(f"{path} has no 'tests:'; expected a promptfooconfig.yaml.")
    default = document.get("defaultTest")
    default_asserts = default.get("assert") if isinstance(default, Mapping) else None
    defaults = default_asserts if isinstance(default_asserts, list) else []
    tests = document["tests"]
    entries = tests if isinstance(tests, list) else [tests]
    for index, test in enumerate(entries, start=1):
        place = Place(str(path), "test", index)
        if isinstance(test, str) and test.startswith("file://"):
            referenced = (path.parent / test.removeprefix("file://")).resolve()
            if referenced.suffix.lower() == ".csv":
                yield from _tests_csv(referenced, defaults)
            elif referenced.suffix.lower() in (".yaml", ".yml"):
                loaded = _load(referenced)
                inner = loaded if isinstance(loaded, list) else [loaded]
                for number, item in enumerate(inner, start=1):
                    yield _test(Place(str(referenced), "test", number), item, defaults)
            else:
                yield Skipped(place, f"tests from {test} are not read (only CSV or YAML)")
            continue
        yield _test(place, test, defaults)


def _test(place: Place, test: object, defaults: list[Any]) -> Outcome:
    if not isinstance(test, Mapping):
        return Malformed(place, "(test)", "expected an object with vars")
    notes: list[str] = []
    try:
        fields = _fields(_vars(test, "vars"), [*defaults, *_asserts(test, "assert")], "", notes)
    except Invalid as invalid:
        return Malformed(place, invalid.field, invalid.expected)
    metadata = {"description": test["description"]} if test.get("description") else {}
    extra = test.get("metadata")
    if isinstance(extra, Mapping):
        metadata.update(extra)
    return Imported(place, fields, metadata=metadata, warnings=_named(test, notes))


def _tests_csv(path: Path, defaults: list[Any]) -> Iterator[Outcome]:
    """A promptfoo tests CSV: a column per variable; ``__``-columns are promptfoo's own."""
    for read in csv_rows(path):
        if isinstance(read, Malformed):
            yield read
            continue
        place, row = read
        variables = {key: value for key, value in row.items() if not key.startswith("__")}
        test: dict[str, Any] = {"vars": variables}
        if row.get("__description"):
            test["description"] = row["__description"]
        yield _test(place, test, defaults)


def results_of(path: Path, document: object) -> list[Any]:
    """The result rows of promptfoo's results file (``results.results``, or a bare list).

    Raises:
        CommandError: ``document`` is not a promptfoo results file.
    """
    results: object = document.get("results") if isinstance(document, Mapping) else None
    if isinstance(results, Mapping):
        results = results.get("results")
    if not isinstance(results, list):
        raise CommandError(
            f"{path} is not a promptfoo results file: expected 'results.results' to be a "
            "list (write it with promptfoo eval -o results.json)."
        )
    return results
