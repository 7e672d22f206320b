"""``rag-gate import promptfoo-config CONFIG -o DIR``: write the golden set and ``rag_gate.yaml``.

The golden set goes to ``DIR/golden_promptfoo.jsonl``; ``rag_gate.yaml`` goes where
``pytest --rag-gate DIR`` will read it (pytest's rootdir for that command, found as pytest
finds it), unless ``--config PATH`` names the file. Nothing is replaced without
``--force``, and nothing is written when the config cannot be imported whole.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import yaml

from ..atomic_files import write_lines_atomic
from ..command_line import EXIT_PASSED, EXIT_USAGE
from ..exceptions import CommandError
from .promptfoo_config import (
    RAG_ASSERTS,
    ConfigImport,
    fill_from_results,
    parse_config_mapping,
    read_config,
)

__all__ = ["GOLDEN_NAME", "import_config"]

#: The golden file's name: the gate's default ``golden.files`` globs find it in DIR.
GOLDEN_NAME = "golden_promptfoo.jsonl"


def import_config(arguments: argparse.Namespace) -> int:
    """Import ``arguments.sources[0]``; exit 4 under ``--strict`` when an assert is unmapped."""
    if len(arguments.sources) != 1:
        raise CommandError("promptfoo-config reads one config: give one promptfooconfig.yaml.")
    source = Path(arguments.sources[0])
    if not source.is_file():
        raise CommandError(f"The source {source} is not a file.")
    output = Path(arguments.output)
    if output.exists() and not output.is_dir():
        raise CommandError(
            f"The output {output} is a file; promptfoo-config writes a directory (-o golden/)."
        )
    golden = output / GOLDEN_NAME
    config = Path(arguments.config) if arguments.config else _config_place(output)
    for target in (golden, config):
        if target.exists() and not arguments.force:
            raise CommandError(f"{target} already exists; pass --force to replace it.")
    try:
        mapping = parse_config_mapping(arguments.map)
    except ValueError as error:
        raise CommandError(f"{error}.") from None
    imported = read_config(source, mapping)
    filled, result_notes = 0, list[str]()
    if arguments.results:
        filled, result_notes = fill_from_results(imported, Path(arguments.results))
    _print_table(source, imported)
    if imported.unmapped and arguments.strict:
        print(
            f"rag-gate import promptfoo-config: --strict: {len(imported.unmapped)} unmapped "
            "assert(s), nothing written:"
        )
        for line in imported.unmapped:
            print(f"  {line}")
        return EXIT_USAGE
    try:
        output.mkdir(parents=True, exist_ok=True)
        write_lines_atomic(
            golden, (json.dumps(case, ensure_ascii=False) + "\n" for case in imported.cases)
        )
        write_lines_atomic(config, iter([_config_text(source, golden, config, imported, filled)]))
    except OSError as error:
        raise CommandError(f"Cannot write {output}: {error.strerror or error}.") from None
    answered = (
        f"{filled} with answers from {arguments.results}" if arguments.results else "live mode"
    )
    print(
        f"rag-gate import promptfoo-config: wrote {len(imported.cases)} case(s) ({answered}) "
        f"to {golden} and the gate config to {config}."
    )
    for line in imported.unmapped:
        print(f"  unmapped: {line}")
    for note in [*imported.notes, *result_notes]:
        print(f"  note: {note}")
    print(f"Run: pytest --rag-gate {output}" + _config_option(config, output))
    return EXIT_PASSED


def _rootdir(golden_dir: Path) -> Path:
    """The rootdir ``pytest --rag-gate golden_dir`` will have, where it reads ``rag_gate.yaml``.

    Found by pytest's own function, whose arguments differ between pytest releases: only
    those it takes are passed. Should it ever fail, the current directory is the answer.
    """
    import inspect

    from _pytest.config import findpaths

    offered: dict[str, object] = {
        "inifile": None,
        "args": [str(golden_dir.resolve())],
        "rootdir_cmd_arg": None,
        "invocation_dir": Path.cwd(),
        "override_ini": None,
        "config": None,
    }
    try:
        accepted = inspect.signature(findpaths.determine_setup).parameters
        found = findpaths.determine_setup(
            **{name: value for name, value in offered.items() if name in accepted}  # type: ignore[arg-type]
        )
        return Path(found[0])
    except Exception:  # a pytest whose internals moved: the directory pytest runs in
        return Path.cwd()


def _config_place(output: Path) -> Path:
    """``rag_gate.yaml`` at the rootdir of ``pytest --rag-gate OUT`` when that holds OUT.

    A rootdir outside OUT's ancestors (OUT elsewhere than the project pytest runs in) is
    not written to: the config goes beside the golden set, named with --rag-gate-config.
    """
    rootdir = _rootdir(output).resolve()
    if output.resolve().is_relative_to(rootdir):
        return rootdir / "rag_gate.yaml"
    return output / "rag_gate.yaml"


def _config_option(config: Path, output: Path) -> str:
    expected = _rootdir(output) / "rag_gate.yaml"
    return "" if config.resolve() == expected.resolve() else f" --rag-gate-config={config}"


def _print_table(source: Path, imported: ConfigImport) -> None:
    rows = sorted(imported.table.values(), key=lambda row: (row.unmapped, row.kind))
    width = max([len("assert"), *(len(row.kind) for row in rows)])
    print(f"rag-gate import promptfoo-config: {source}: {len(imported.cases)} test(s)")
    print(f"  {'assert':<{width}}  tests  mapped to")
    for row in rows:
        print(f"  {row.kind:<{width}}  {len(row.tests):>5}  {row.mapped}")
    if not rows:
        print("  (no asserts)")


def _config_text(
    source: Path, golden: Path, config: Path, imported: ConfigImport, filled: int
) -> str:
    per_case = sorted(
        {metric for case in imported.cases for metric in case.get("thresholds", {})}
        - set(imported.thresholds)
    )
    thresholds: dict[str, float | None] = dict(imported.thresholds)
    # promptfoo gates these per test only: their case thresholds hold them, and the gate's
    # default on the mean would be a requirement promptfoo never made.
    thresholds.update({metric: None for metric in per_case if metric in RAG_ASSERTS.values()})
    # Only what promptfoo asserted runs: a metric it never asserted would otherwise be
    # gated at the gate's default (context_recall 0.80 on a first run with no reference).
    metrics = sorted({*imported.thresholds, *per_case})
    lines = [
        f"# Written by rag-gate import promptfoo-config from {source.name}.",
        "# defaultTest asserts are the gate thresholds below (promptfoo's default where an",
        "# assert gave none); each test's own asserts are that case's thresholds in",
        f"# {golden}. null: gated per case only.",
    ]
    body = (
        yaml.safe_dump({"metrics": metrics, "thresholds": thresholds}, sort_keys=False)
        if thresholds
        else ""
    )
    lines.append(body.rstrip() if body else "# thresholds: {}  (no defaultTest or test thresholds)")
    if filled < len(imported.cases):
        lines += [
            "",
            "# Cases without an answer run in live mode: name the function that answers a",
            "# question with your system (it returns the answer and the retrieved contexts).",
            "# live:",
            "#   target: my_rag.app:answer",
        ]
    return "\n".join(lines) + "\n"
