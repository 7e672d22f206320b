"""Write ``docs/reference.md``: every command-line option and configuration key, from the code.

The pytest options are read from the plugin's ``pytest_addoption``, the configuration keys
from the ``GateConfig`` model (type, default, bounds), and the ``rag-gate`` commands from
their argparse parser, so the page cannot drift from the code: ``tests/test_docs.py``
fails when the file differs from what this script writes. Run it after changing an
option, a key or a command::

    python scripts/docs_reference.py          # rewrite docs/reference.md
    python scripts/docs_reference.py --check  # exit 1 when it is stale
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from pytest_ragas_gate.cli import build_parser
from pytest_ragas_gate.plugin import pytest_addoption
from pytest_ragas_gate.settings.config import GateConfig
from pytest_ragas_gate.settings.config_sections import OUTPUT_KINDS, SECTIONED

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "reference.md"

HEADER = """# Reference

Every command-line option and configuration key, generated from the code by
`scripts/docs_reference.py` (a test fails when this page is stale). What each one is for
is explained on the page of its task; this page is the complete list.
"""


class _OptionRecorder:
    """Stands in for pytest's parser and option group: records each ``addoption``."""

    def __init__(self) -> None:
        self.options: list[tuple[tuple[str, ...], dict[str, Any]]] = []

    def getgroup(self, name: str, description: str = "") -> _OptionRecorder:
        return self

    def addoption(self, *names: str, **settings: Any) -> None:
        self.options.append((names, settings))

    def addini(self, *arguments: Any, **settings: Any) -> None:
        """Ini options are not part of the rag-gate group."""


def _cell(text: object) -> str:
    """Text for a table cell: one line, its pipes and angle brackets escaped."""
    return " ".join(str(text).split()).replace("|", "\\|").replace("<", "&lt;")


def _argument(settings: dict[str, Any]) -> str:
    if settings.get("action") in ("store_true", "store_false"):
        return ""
    metavar = settings.get("metavar")
    if metavar:
        return f"`{metavar}`"
    choices = settings.get("choices")
    return "`{" + ",".join(choices) + "}`" if choices else "`VALUE`"


def pytest_options() -> Iterator[str]:
    """The table of ``--rag-gate-*`` options."""
    recorder = _OptionRecorder()
    pytest_addoption(recorder)  # type: ignore[arg-type]
    yield "## pytest options"
    yield ""
    yield "| option | argument | what it does |"
    yield "|---|---|---|"
    for names, settings in recorder.options:
        if settings.get("help") == argparse.SUPPRESS:
            continue  # an old spelling, kept as a hidden alias (docs/changelog.md)
        shown = ", ".join(f"`{name}`" for name in names)
        yield f"| {shown} | {_argument(settings)} | {_cell(settings.get('help', ''))} |"
    yield ""


def _type_name(annotation: object) -> str:
    """A type as the same text on every Python version."""
    origin, arguments = get_origin(annotation), get_args(annotation)
    # "or", not "|": a pipe in a table cell's code needs an escape that MkDocs shows.
    if origin is Literal:
        return " or ".join(repr(argument) for argument in arguments)
    if origin in (Union, UnionType):
        return " or ".join(_type_name(argument) for argument in arguments)
    if origin is not None:
        inner = ", ".join(_type_name(argument) for argument in arguments)
        return f"{getattr(origin, '__name__', str(origin))}[{inner}]"
    if annotation is type(None):
        return "None"
    return getattr(annotation, "__name__", str(annotation))


def _type(field: FieldInfo) -> str:
    return _type_name(field.annotation)


def _default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        value: object = field.default_factory()  # type: ignore[call-arg]
    elif field.default is PydanticUndefined:
        return "required"
    else:
        value = field.default
    return f"`{value!r}`"


def _bounds(field: FieldInfo) -> str:
    found = []
    for item in field.metadata:
        for name, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
            if getattr(item, name, None) is not None:
                found.append(f"{sign} {getattr(item, name)}")
    return ", ".join(found)


#: Keys with an option of their own; every other key is set with ``--rag-gate-set``.
OPTION_OF_KEY = {
    "judge.provider": "--rag-gate-judge",
    "metrics": "--rag-gate-metrics",
    "thresholds": "--rag-gate-threshold",
    "baseline.path": "--rag-gate-baseline",
}


def config_keys() -> Iterator[str]:
    """The table of ``rag_gate.yaml`` / ``[tool.rag_gate]`` keys, by section."""
    yield "## Configuration keys"
    yield ""
    yield (
        "Keys of `rag_gate.yaml` (or `--rag-gate-config PATH`) and of `[tool.rag_gate]` in "
        "`pyproject.toml`, written in sections: `judge.model` is `model:` under `judge:`. "
        "On the command line, `--rag-gate-set KEY=VALUE` sets any of them and wins; the "
        "`outputs` keys are also `--rag-gate-output KIND=PATH`."
    )
    yield ""
    yield "| key | type | default | bounds | option |"
    yield "|---|---|---|---|---|"
    rows = list(SECTIONED.items())
    at = next(index for index, (path, _) in enumerate(rows) if path == ("rules",))
    rows.insert(at, (("rules", "default"), "rule"))
    for path, internal in rows:
        key = ".".join(path)
        field = GateConfig.model_fields[internal]
        option = OPTION_OF_KEY.get(key)
        if path[0] == "outputs" and path[1] in OUTPUT_KINDS:
            option = f"--rag-gate-output {path[1]}=PATH"
        shown = f"`{option}`" if option else ""
        yield (
            f"| `{key}` | `{_cell(_type(field))}` | {_cell(_default(field))} | "
            f"{_bounds(field)} | {shown} |"
        )
    yield ""


def _subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            # Commands without help (the old names) are hidden aliases: not listed.
            listed = {choice.dest for choice in action._choices_actions}
            for name, subparser in action.choices.items():
                if name not in listed:
                    continue
                nested = list(_subcommands(subparser))
                if nested:
                    for inner, inner_parser in nested:
                        yield f"{name} {inner}", inner_parser
                else:
                    yield name, subparser


def commands() -> Iterator[str]:
    """One table per ``rag-gate`` command."""
    yield "## rag-gate commands"
    yield ""
    for name, parser in sorted(_subcommands(build_parser())):
        yield f"### rag-gate {name}"
        yield ""
        if parser.description:
            yield _cell(parser.description)
            yield ""
        yield "| argument | what it does |"
        yield "|---|---|"
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            if action.option_strings:
                metavar = "" if action.nargs == 0 else f" {action.metavar or action.dest.upper()}"
                shown = ", ".join(f"`{option}{metavar}`" for option in action.option_strings)
            else:
                shown = f"`{action.metavar or action.dest}`"
            yield f"| {shown} | {_cell(action.help or '')} |"
        yield ""


def render() -> str:
    """The whole page."""
    parts = [HEADER, *pytest_options(), *config_keys(), *commands()]
    return "\n".join(parts).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the page, or with ``--check`` say whether it is current."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    arguments = parser.parse_args(argv)
    page = render()
    if arguments.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != page:
            print(f"{PAGE} is stale: run python scripts/docs_reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(page, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
