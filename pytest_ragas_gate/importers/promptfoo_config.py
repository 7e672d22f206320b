"""A ``promptfooconfig.yaml`` as a golden set and the gate's thresholds.

Each promptfoo test becomes a case. The question is the variable the prompt template puts
the question in (found from the ``{{var}}`` names the prompts use, or named with ``--map
question=vars.NAME``); the contexts are the ``context`` variable, as promptfoo's RAG
asserts read it (a string is one retrieved text, a list one text per item, a ``file://``
path the file's text relative to the config); the reference is an ``expected`` /
``ground_truth`` / ``reference`` variable, else the ``factuality`` or ``context-recall``
value. Tests come inline, from ``file://`` CSV, YAML, JSON or JSONL files (globs too) and
under ``defaultTest``, whose ``vars`` and ``assert`` every test inherits.

Asserts: the five RAG asserts become thresholds of the gate's metrics (in ``defaultTest``
the gate's own thresholds; in a test that case's ``thresholds``), the deterministic ones
and ``llm-rubric`` go into the case's ``asserts`` for :mod:`..metrics.answer_checks` with a
per-case threshold of 1.0 (the case fails when promptfoo's test would), and every other
assert is *unmapped*: listed by test and assert, never dropped silently.
"""

from __future__ import annotations

import difflib
import glob
import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..exceptions import CommandError
from ..metrics.answer_checks import ASSERT_METRICS as CHECK_ASSERTS
from ..metrics.answer_checks import check_passes
from .promptfoo import _load, results_of
from .records import Place, csv_rows

__all__ = [
    "DEFAULT_THRESHOLDS",
    "RAG_ASSERTS",
    "UNCHECKED_ASSERTS",
    "AssertRow",
    "ConfigImport",
    "fill_from_results",
    "parse_config_mapping",
    "read_config",
]

#: promptfoo's RAG asserts → the gate's metric.
RAG_ASSERTS: dict[str, str] = {
    "context-faithfulness": "faithfulness",
    "context-recall": "context_recall",
    "context-relevance": "context_relevance",
    "answer-relevance": "answer_relevancy",
    "factuality": "answer_correctness",
}

#: The threshold promptfoo applies when an assert gives none, as promptfoo 0.121.20 (the
#: npm package) does: ``assertion.threshold ?? 0`` for the four RAG asserts, so a bare one
#: only reports. ``factuality`` has no number: it fails only when the grader finds the
#: answer disagreeing with the reference (its category D; a subset or superset passes),
#: which an F1 of answer claims against reference statements meets at about 0.5.
DEFAULT_THRESHOLDS: dict[str, float] = {
    "context-faithfulness": 0.0,
    "context-recall": 0.0,
    "context-relevance": 0.0,
    "answer-relevance": 0.0,
    "factuality": 0.5,
}

#: The case's metadata key naming the asserts the gate cannot run (see ``scoring.results``).
UNCHECKED_ASSERTS = "unchecked_asserts"

QUESTION_VARS = ("query", "question", "input", "user_input", "prompt")
CONTEXT_VARS = ("context", "contexts", "retrieved_contexts", "documents")
REFERENCE_VARS = ("expected", "ground_truth", "reference", "expected_output")

#: Why an assert type has no counterpart in the gate.
_UNMAPPED_REASONS: dict[str, str] = {
    "javascript": "runs JavaScript code",
    "python": "runs Python code",
    "ruby": "runs Ruby code",
    "webhook": "calls a webhook",
    "similar": "promptfoo scores it by embedding similarity; no embedding check is shipped",
    "assert-set": "a group of asserts with its own threshold",
    "select-best": "compares the outputs of several prompts",
    "max-score": "compares the outputs of several prompts",
    "latency": "times the provider, which the gate does per case under live.latency",
    "cost": "reads the provider's cost",
}

_VARIABLE = re.compile(r"\{\{-?\s*(?:vars\.)?([A-Za-z_]\w*)\s*(?:\|[^}]*)?-?\}\}")
_GLOB = re.compile(r"[*?\[]")
_CSV_ASSERT = re.compile(r"^(not-)?([a-z][a-z-]*)(?:\((\d+(?:\.\d+)?)\))?(?::([\s\S]*))?$")


@dataclass
class AssertRow:
    """One line of the import table: an assert type, what it became, the tests using it."""

    kind: str
    mapped: str
    tests: set[str] = field(default_factory=set)
    unmapped: bool = False


@dataclass
class ConfigImport:
    """What a config gave: cases, the gate's thresholds, the assert table and notes."""

    cases: list[dict[str, Any]] = field(default_factory=list)
    thresholds: dict[str, float] = field(default_factory=dict)
    table: dict[str, AssertRow] = field(default_factory=dict)
    #: ``test 'x' (file row 2): assert[1] javascript not mapped: runs JavaScript code``.
    unmapped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: The vars of each case as written (``file://`` unread), as promptfoo's results keep
    #: them, by case id.
    variables: dict[str, dict[str, Any]] = field(default_factory=dict)

    def use(self, kind: str, mapped: str, test: str, *, unmapped: bool = False) -> None:
        """Count ``test`` among the users of assert ``kind``, which became ``mapped``."""
        row = self.table.setdefault(kind, AssertRow(kind, mapped, unmapped=unmapped))
        row.tests.add(test)


def parse_config_mapping(entries: list[str]) -> dict[str, str]:
    """``--map FIELD=vars.NAME`` entries as field → variable name.

    >>> parse_config_mapping(["question=vars.query", "contexts=docs"])
    {'question': 'query', 'contexts': 'docs'}

    Raises:
        ValueError: An entry is not ``FIELD=vars.NAME`` for question, contexts or reference.
    """
    mapping: dict[str, str] = {}
    for entry in entries:
        name, equals, path = (part.strip() for part in entry.partition("="))
        variable = path.removeprefix("vars.")
        if not equals or name not in ("question", "contexts", "reference"):
            raise ValueError(
                f"--map {entry!r}: expected question=vars.NAME, contexts=vars.NAME or "
                "reference=vars.NAME"
            )
        if not re.fullmatch(r"[A-Za-z_][\w-]*", variable):
            raise ValueError(f"--map {entry!r}: expected a variable name after 'vars.'")
        mapping[name] = variable
    return mapping


def read_config(path: Path, mapping: Mapping[str, str]) -> ConfigImport:
    """The cases, thresholds and assert table of the promptfoo config at ``path``.

    Raises:
        CommandError: The file is not a promptfoo config, a tests file it names cannot be
            read, or a test cannot be a case (no question variable, a bad threshold); the
            message names the file, the test and the field.
    """
    document = _load(path)
    if not isinstance(document, Mapping) or "tests" not in document:
        raise CommandError(f"{path} has no 'tests:'; expected a promptfooconfig.yaml.")
    base = path.parent
    default = _default_test(document.get("defaultTest"), base, path)
    prompt_vars = _prompt_variables(document.get("prompts"), base)
    result = ConfigImport()
    ids: Counter[str] = Counter()
    for place, test in _tests(document["tests"], base, path):
        expansions = list(_expanded(test, default))
        for number, expanded in enumerate(expansions, start=1):
            shown = place
            if len(expansions) > 1:
                shown = Place(
                    place.file, place.unit, f"{place.number}, vars {number} of {len(expansions)}"
                )
            _add_case(result, shown, expanded, default, prompt_vars, mapping, base, ids)
    if not result.cases:
        raise CommandError(f"{path} gave no test to import.")
    _ids_apart(result, ids)
    return result


# --- tests and their files ----------------------------------------------------------------


def _default_test(value: object, base: Path, config: Path) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, str):
        value = _load(_referenced(value, base))
    if not isinstance(value, Mapping):
        raise CommandError(f"{config}: 'defaultTest' must be an object (vars, assert, ...).")
    return dict(value)


def _referenced(reference: str, base: Path) -> Path:
    return (base / reference.removeprefix("file://")).resolve()


def _tests(value: object, base: Path, config: Path) -> Iterator[tuple[Place, object]]:
    entries = value if isinstance(value, list) else [value]
    for index, entry in enumerate(entries, start=1):
        if isinstance(entry, str):
            yield from _tests_from(entry, base, Place(str(config), "test", index))
        else:
            yield Place(str(config), "test", index), entry


def _tests_from(reference: str, base: Path, where: Place) -> Iterator[tuple[Place, object]]:
    text = reference.removeprefix("file://")
    if _GLOB.search(text):
        paths = sorted(Path(found) for found in glob.glob(str(base / text), recursive=True))
        if not paths:
            raise CommandError(f"{where}: {reference!r} matches no file beside the config.")
    else:
        paths = [_referenced(text, base)]
    for path in paths:
        if not path.is_file():
            raise CommandError(f"{where}: the tests file {path} does not exist.")
        suffix = path.suffix.lower()
        if suffix == ".csv":
            yield from _csv_tests(path)
        elif suffix == ".jsonl":
            yield from _jsonl_tests(path)
        elif suffix in (".yaml", ".yml", ".json"):
            loaded = _load(path)
            items = loaded if isinstance(loaded, list) else [loaded]
            for number, item in enumerate(items, start=1):
                yield Place(str(path), "test", number), item
        else:
            raise CommandError(
                f"{where}: tests from {path.name} are not read: a generator script or an "
                "unknown format; expected CSV, YAML, JSON or JSONL."
            )


def _jsonl_tests(path: Path) -> Iterator[tuple[Place, object]]:
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(f"Cannot read {path}: {error}.") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield Place(str(path), "line", number), json.loads(line)
        except json.JSONDecodeError as error:
            raise CommandError(f"{path}:{number} is not valid JSON ({error.msg}).") from None


def _csv_tests(path: Path) -> Iterator[tuple[Place, object]]:
    """Read promptfoo's tests CSV: a column per var, ``__expected`` columns its asserts."""
    for read in csv_rows(path):
        if not isinstance(read, tuple):
            raise CommandError(str(read))
        place, row = read
        test: dict[str, Any] = {"vars": {}, "assert": []}
        metric = row.get("__metric") or None
        for key, value in row.items():
            if key.startswith("__expected"):
                if value.strip():
                    test["assert"].append({**_csv_assert(value), "metric": metric})
            elif key == "__description":
                test["description"] = value
            elif key == "__threshold":
                if value.strip():
                    try:
                        test["threshold"] = float(value)
                    except ValueError:
                        raise CommandError(
                            f"{place}: __threshold: expected a number, got {value!r}."
                        ) from None
            elif key.startswith("__metadata:"):
                test.setdefault("metadata", {})[key.removeprefix("__metadata:")] = value
            elif not key.startswith("__"):
                test["vars"][key] = value
        yield place, test


def _csv_assert(text: str) -> dict[str, Any]:
    """One ``__expected`` cell as promptfoo's ``assertionFromString`` reads it."""
    for prefix, kind in (
        ("javascript:", "javascript"),
        ("fn:", "javascript"),
        ("eval:", "javascript"),
    ):
        if text.startswith(prefix):
            return {"type": kind, "value": text.removeprefix(prefix).strip()}
    for prefix in ("grade:", "llm-rubric:"):
        if text.startswith(prefix):
            return {"type": "llm-rubric", "value": text.removeprefix(prefix)}
    if text.startswith("python:") or (text.startswith("file://") and ".py" in text):
        return {"type": "python", "value": text}
    match = _CSV_ASSERT.match(text)
    if match is None or match.group(2) not in _KNOWN_CSV_TYPES:
        return {"type": "equals", "value": text}
    negated, kind, threshold, value = match.groups()
    check: dict[str, Any] = {"type": (negated or "") + kind, "value": value}
    if kind in ("contains-all", "contains-any", "icontains-all", "icontains-any"):
        check["value"] = [part.strip() for part in (value or "").split(",")]
    if kind in (*RAG_ASSERTS, "similar", "starts-with") and kind != "factuality":
        default = 0.8 if kind == "similar" else 0.75
        check["threshold"] = float(threshold) if threshold else default
    return check


_KNOWN_CSV_TYPES = {
    *RAG_ASSERTS,
    *(kind.removeprefix("not-") for kind in CHECK_ASSERTS),
    *_UNMAPPED_REASONS,
    "equals",
    "starts-with",
    "contains-json",
    "levenshtein",
    "rouge-n",
    "bleu",
    "classifier",
    "perplexity",
    "perplexity-score",
    "model-graded-closedqa",
}


# --- one test -----------------------------------------------------------------------------


def _expanded(test: object, default: Mapping[str, Any]) -> Iterator[object]:
    """The tests promptfoo runs for ``test``: one per combination of its list-valued vars.

    promptfoo runs a test once per value of a var that holds a list (every combination of
    several), unless ``options.disableVarExpansion`` passes the list on whole.
    """
    if not isinstance(test, Mapping) or not isinstance(test.get("vars"), Mapping):
        yield test
        return
    options = [item.get("options") for item in (default, test)]
    if any(isinstance(option, Mapping) and option.get("disableVarExpansion") for option in options):
        yield test
        return
    combinations: list[dict[str, Any]] = [{}]
    for name, value in test["vars"].items():
        values = value if isinstance(value, list) and value else [value]
        combinations = [{**done, name: item} for done in combinations for item in values]
    for variables in combinations:
        yield {**test, "vars": variables}


def _prompt_variables(prompts: object, base: Path) -> list[str]:
    """The ``{{var}}`` names the prompts use, in order; prompt files are read beside the config."""
    texts: list[str] = []

    def gather(item: object) -> None:
        if isinstance(item, str):
            if item.startswith("file://"):
                # ``file://prompts.py:make_prompt`` names a function in the file.
                name, _, function = item.removeprefix("file://").rpartition(":")
                target = _referenced(name if name and "/" not in function else item, base)
                if target.is_file() and target.suffix.lower() not in (".py", ".js", ".ts"):
                    try:
                        texts.append(target.read_text(encoding="utf-8"))
                    except (OSError, UnicodeDecodeError):
                        pass
            else:
                texts.append(item)
        elif isinstance(item, Mapping):
            for value in item.values():
                gather(value)
        elif isinstance(item, list):
            for value in item:
                gather(value)

    gather(prompts)
    names: list[str] = []
    for text in texts:
        for name in _VARIABLE.findall(text):
            if name not in names:
                names.append(name)
    return names


def _add_case(
    result: ConfigImport,
    place: Place,
    test: object,
    default: Mapping[str, Any],
    prompt_vars: list[str],
    mapping: Mapping[str, str],
    base: Path,
    ids: Counter[str],
) -> None:
    if not isinstance(test, Mapping):
        raise CommandError(f"{place}: expected a test object with vars, got {type(test).__name__}.")
    raw_vars = {**_mapping(default.get("vars"), place, "defaultTest.vars")}
    raw_vars.update(_mapping(test.get("vars"), place, "vars"))
    variables = {name: _var_value(value, base, place, name) for name, value in raw_vars.items()}
    description = test.get("description")
    label = f"test {str(description)!r} ({place})" if description else f"test {place}"
    question_var = _question_var(variables, prompt_vars, mapping, place)
    question = variables[question_var]
    if not isinstance(question, str) or not question.strip():
        raise CommandError(f"{place}: vars.{question_var}: expected the question as text.")
    case: dict[str, Any] = {"question": question}
    contexts = _contexts(variables, mapping, question_var, place)
    if contexts:
        case["contexts"] = contexts
    reference = _reference_var(variables, mapping)
    thresholds: dict[str, float] = {}
    asserts: list[dict[str, Any]] = []
    unchecked: list[str] = []
    _unknown_keys(result, test, label)
    transformed = _test_transform(default, test)
    defaults = _asserts(default.get("assert"), place, "defaultTest.assert")
    own = _asserts(test.get("assert"), place, "assert")
    for origin, checks in (("defaultTest", defaults), ("test", own)):
        for index, check in enumerate(checks):
            where = f"{'defaultTest.' if origin == 'defaultTest' else ''}assert[{index}]"
            found = _map_assert(
                result, check, variables, label, where, origin == "defaultTest", transformed
            )
            if isinstance(found, str):
                unchecked.append(found)
                continue
            metric, threshold, kept = found
            if kept is not None:
                asserts.append(kept)
                thresholds[metric] = 1.0
            elif origin == "test" and threshold is not None:
                thresholds[metric] = threshold
            if reference is None and check.get("type") in ("factuality", "context-recall"):
                value = _render(check.get("value"), variables)
                reference = value if isinstance(value, str) and value.strip() else None
    share = _test_threshold(test, default)
    if share is not None and (own or defaults):
        reason = (
            f"promptfoo passes the test when a share {share!r} of its weighted asserts "
            "pass; the gate requires each mapped assert"
        )
        result.use("threshold (test)", f"not mapped: {reason}", label, unmapped=True)
        result.unmapped.append(f"{label}: threshold not mapped: {reason}")
        unchecked.append(f"promptfoo test threshold {share!r}: {reason}")
    if reference:
        case["reference"] = reference
    if asserts:
        case["asserts"] = asserts
    if thresholds:
        case["thresholds"] = thresholds
    metadata: dict[str, Any] = {}
    if description:
        metadata["description"] = str(description)
    for source in (default.get("metadata"), test.get("metadata")):
        if isinstance(source, Mapping):
            metadata.update(source)
    metadata["import"] = {
        "format": "promptfoo-config",
        "file": place.file,
        place.unit: place.number,
    }
    if unchecked:
        # The gate reads these: a case carrying checks it cannot run decides no deploy.
        metadata[UNCHECKED_ASSERTS] = unchecked
    case_id = _case_id(raw_vars, ids)
    result.cases.append({"id": case_id, **case, "metadata": metadata})
    result.variables[case_id] = raw_vars


def _mapping(value: object, place: Place, name: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise CommandError(f"{place}: {name}: expected an object of variables.")
    return dict(value)


def _asserts(value: object, place: Place, name: str) -> list[Mapping[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, Mapping) for item in value):
        raise CommandError(f"{place}: {name}: expected a list of asserts, each with a type.")
    return list(value)


def _var_value(value: object, base: Path, place: Place, name: str) -> object:
    """A variable as promptfoo gives it to the prompt: ``file://`` paths read as text."""
    if not isinstance(value, str) or not value.startswith("file://"):
        return value
    path = _referenced(value, base)
    if path.suffix.lower() in (".py", ".js", ".ts", ".mjs", ".cjs"):
        raise CommandError(
            f"{place}: vars.{name}: {value} is a script promptfoo runs to make the value; "
            "write its output to a text file and name that instead."
        )
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise CommandError(f"{place}: vars.{name}: the file {path} does not exist.") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(f"{place}: vars.{name}: cannot read {path}: {error}.") from None
    if path.suffix.lower() in (".json", ".yaml", ".yml"):
        return _load(path)
    return text


def _question_var(
    variables: Mapping[str, object],
    prompt_vars: list[str],
    mapping: Mapping[str, str],
    place: Place,
) -> str:
    if "question" in mapping:
        name = mapping["question"]
        if name not in variables:
            raise CommandError(
                f"{place}: --map question=vars.{name}, but the test has no var {name!r} "
                f"(it has {', '.join(variables) or 'none'})."
            )
        return name
    context = mapping.get("contexts") or next((c for c in CONTEXT_VARS if c in variables), None)
    used = [name for name in prompt_vars if name in variables and name != context]
    texts = [name for name in used if isinstance(variables[name], str)]
    for candidates in (texts, [n for n, v in variables.items() if isinstance(v, str)]):
        preferred = [name for name in QUESTION_VARS if name in candidates]
        if preferred:
            return preferred[0]
        rest = [name for name in candidates if name != context]
        if len(rest) == 1:
            return rest[0]
    raise CommandError(
        f"{place}: cannot tell which var holds the question (the prompt uses "
        f"{', '.join(prompt_vars) or 'no var'}; the test has {', '.join(variables) or 'none'}); "
        "name it with --map question=vars.NAME."
    )


def _contexts(
    variables: Mapping[str, object], mapping: Mapping[str, str], question: str, place: Place
) -> list[str]:
    name = mapping.get("contexts") or next((c for c in CONTEXT_VARS if c in variables), None)
    if name is None or name == question:
        return []
    if name not in variables:
        raise CommandError(
            f"{place}: --map contexts=vars.{name}, but the test has no var {name!r}."
        )
    value = variables[name]
    # promptfoo's RAG asserts read vars.context whole, as one retrieved text.
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return [item for item in value if item.strip()]
    raise CommandError(f"{place}: vars.{name}: expected the contexts as text or a list of texts.")


def _reference_var(variables: Mapping[str, object], mapping: Mapping[str, str]) -> str | None:
    names = [mapping["reference"]] if "reference" in mapping else list(REFERENCE_VARS)
    for name in names:
        value = variables.get(name)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _render(value: object, variables: Mapping[str, object]) -> object:
    """An assert value with ``{{var}}`` put in, as promptfoo renders it; else as written."""
    if not isinstance(value, str) or "{{" not in value:
        return value

    def put(match: re.Match[str]) -> str:
        found = variables.get(match.group(1))
        return found if isinstance(found, str) else match.group(0)

    return _VARIABLE.sub(put, value)


def _map_assert(
    result: ConfigImport,
    check: Mapping[str, Any],
    variables: Mapping[str, object],
    label: str,
    where: str,
    from_default: bool,
    transformed: bool = False,
) -> tuple[str, float | None, dict[str, Any] | None] | str:
    """The metric an assert becomes, its threshold and the kept assert.

    An unmapped assert gives the line the case keeps in ``unchecked_asserts`` instead.
    """
    kind = str(check.get("type") or "")
    reason: str | None = None
    if not kind:
        near = difflib.get_close_matches("type", [str(key) for key in check], n=1, cutoff=0.5)
        hint = f" (did you mean 'type' for {near[0]!r}?)" if near else ""
        reason = f"{where} has no type{hint}"
    elif check.get("transform"):
        reason = "transforms the output first (transform:), which the gate does not"
    elif transformed:
        reason = "its test transforms the output first (options.transform), which the gate does not"
    if reason is None and kind in RAG_ASSERTS:
        threshold = _threshold(check.get("threshold"), label, where)
        metric = RAG_ASSERTS[kind]
        value = DEFAULT_THRESHOLDS[kind] if threshold is None else threshold
        if from_default:
            result.thresholds[metric] = value
            result.use(kind, f"{metric} (gate threshold {value:g})", label)
        else:
            result.use(kind, f"{metric} (case thresholds)", label)
        if check.get("contextTransform"):
            result.notes.append(
                f"{label}: {where} {kind} reads its context from the provider's output "
                "(contextTransform); the gate reads the contexts the target or --results give"
            )
        return metric, value, None
    if reason is None:
        value_problem = _value_problem(kind, _render(check.get("value"), variables))
        if kind in CHECK_ASSERTS and value_problem is None:
            metric = CHECK_ASSERTS[kind]
            kept: dict[str, Any] = {"type": kind, "value": _render(check.get("value"), variables)}
            if check.get("metric"):
                kept["metric"] = check["metric"]
            result.use(kind, f"{metric} (case threshold 1.0)", label)
            return metric, 1.0, kept
        reason = _UNMAPPED_REASONS.get(kind.removeprefix("not-"), "no counterpart in the gate")
        if kind in CHECK_ASSERTS and value_problem is not None:
            reason = value_problem
    shown = kind or "(no type)"
    result.use(shown, f"not mapped: {reason}", label, unmapped=True)
    result.unmapped.append(f"{label}: {where} {shown} not mapped: {reason}")
    return f"promptfoo {where} {shown}: {reason}"


def _test_transform(default: Mapping[str, Any], test: Mapping[str, Any]) -> bool:
    """Whether the test's ``options.transform`` (its own or defaultTest's) changes the output."""
    for source in (default, test):
        options = source.get("options")
        if isinstance(options, Mapping) and options.get("transform"):
            return True
    return False


def _test_threshold(test: Mapping[str, Any], default: Mapping[str, Any]) -> object:
    """The test-level ``threshold`` of promptfoo: the share of weighted asserts that must pass."""
    value = test.get("threshold")
    return default.get("threshold") if value is None else value


#: The keys promptfoo reads on a test (its ``TestCase`` type, 0.121).
TEST_KEYS = (
    "description",
    "vars",
    "assert",
    "options",
    "threshold",
    "metadata",
    "provider",
    "providerOutput",
    "prompts",
    "assertScoringFunction",
)


def _unknown_keys(result: ConfigImport, test: Mapping[str, Any], label: str) -> None:
    for key in test:
        if str(key) in TEST_KEYS:
            continue
        near = difflib.get_close_matches(str(key), TEST_KEYS, n=1, cutoff=0.6)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        result.unmapped.append(f"{label}: unknown test key {str(key)!r}, ignored{hint}")


def _value_problem(kind: str, value: object) -> str | None:
    """Why a deterministic or rubric assert's value cannot be checked; None when it can."""
    if kind == "llm-rubric":
        if isinstance(value, str) and value.strip():
            return None
        return "its rubric is not a text (an object rubric or a file) and cannot be graded here"
    if kind.endswith("is-json") and value not in (None, ""):
        return "validates a JSON schema, which is not checked here"
    try:
        check_passes(kind, "", value)
    except ValueError as error:
        return str(error)
    return None


def _threshold(value: object, label: str, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise CommandError(
            f"{label}: {where}.threshold: expected a number from 0 to 1, got {value!r}."
        )
    return float(value)


def _case_id(variables: Mapping[str, Any], ids: Counter[str]) -> str:
    """``pf-<hash>`` of the test's vars as written: the same test keeps its id when re-imported.

    Tests that share their vars share this id until :func:`_ids_apart` tells them apart.
    """
    base = "pf-" + _digest(variables, 10)
    ids[base] += 1
    return base


def _digest(value: object, length: int) -> str:
    canonical = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:length]


def _ids_apart(result: ConfigImport, ids: Counter[str]) -> None:
    """Tests with the same vars take ``pf-<vars>-<contents>`` ids, whatever their order.

    The contents are the case as imported (asserts, thresholds, reference, description…)
    without where it was found, so reordering the tests keeps every id; only tests that are
    identical in every respect are numbered in file order, and they are interchangeable.
    """
    for base, count in ids.items():
        if count < 2:
            continue
        variables = result.variables.pop(base)
        seen: Counter[str] = Counter()
        for case in result.cases:
            if case["id"] != base:
                continue
            metadata = {key: value for key, value in case["metadata"].items() if key != "import"}
            contents = {key: value for key, value in case.items() if key not in ("id", "metadata")}
            tail = _digest({**contents, "metadata": metadata}, 6)
            seen[tail] += 1
            case["id"] = f"{base}-{tail}" if seen[tail] == 1 else f"{base}-{tail}-{seen[tail]}"
            result.variables[case["id"]] = variables


# --- results ------------------------------------------------------------------------------


def fill_from_results(imported: ConfigImport, path: Path) -> tuple[int, list[str]]:
    """Put the answers of promptfoo's results file into the cases, pairing tests by vars.

    A test run by several providers or prompts takes the first result; the notes say how
    many it had. Contexts a result's response carries (``metadata.contexts``) replace the
    context var's.

    Returns:
        How many cases got an answer, and notes on the tests that got none.

    Raises:
        CommandError: The file is not a promptfoo results file.
    """
    results = results_of(path, _load(path))
    # Tests with the same vars are told apart by promptfoo's test index: the k-th such case
    # of the config (file order) takes the results of the k-th such test index.
    by_vars: dict[str, dict[object, list[Mapping[str, Any]]]] = {}
    for result in results:
        if isinstance(result, Mapping):
            tests = by_vars.setdefault(_vars_key(result.get("vars")), {})
            tests.setdefault(result.get("testIdx"), []).append(result)
    seen: Counter[str] = Counter()
    filled, notes = 0, []
    for case in imported.cases:
        key = _vars_key(imported.variables[case["id"]])
        groups = [
            group
            for _, group in sorted(
                by_vars.get(key, {}).items(),
                key=lambda item: item[0] if isinstance(item[0], int) else -1,
            )
        ]
        position = seen[key]
        seen[key] += 1
        if position < len(groups):
            found = groups[position]
        else:
            # A results file without test indexes: every test with these vars shares them.
            found = groups[0] if list(by_vars.get(key, {})) == [None] else []
        answered = [r for r in found if _output(r) is not None]
        label = case["metadata"].get("description") or case["question"][:60]
        if not answered:
            why = "its provider failed" if found else "no result has its vars"
            notes.append(f"test {label!r}: no answer in {path.name} ({why}); left for live mode")
            continue
        first = answered[0]
        case["answer"] = _output(first)
        contexts = _result_contexts(first)
        if contexts:
            case["contexts"] = contexts
        if len(answered) > 1:
            notes.append(
                f"test {label!r}: {len(answered)} results (providers or prompts); the first "
                "was taken"
            )
        filled += 1
    return filled, notes


def _vars_key(variables: object) -> str:
    return json.dumps(variables or {}, sort_keys=True, ensure_ascii=False, default=str)


def _output(result: Mapping[str, Any]) -> str | None:
    response = result.get("response")
    output = response.get("output") if isinstance(response, Mapping) else None
    if isinstance(output, str) and output.strip():
        return output
    if output is not None and not isinstance(output, str):
        return json.dumps(output, ensure_ascii=False)
    return None


def _result_contexts(result: Mapping[str, Any]) -> list[str]:
    response = result.get("response")
    metadata = response.get("metadata") if isinstance(response, Mapping) else None
    found = metadata.get("contexts") if isinstance(metadata, Mapping) else None
    if isinstance(found, list) and all(isinstance(item, str) for item in found):
        return [item for item in found if item.strip()]
    return []
