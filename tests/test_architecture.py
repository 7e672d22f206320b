"""The package's shape: data flows one way, with no import cycle, and rag-gate needs no pytest.

Imports are read from the source, so an import inside a function or under
``TYPE_CHECKING`` counts as much as one at the top of a module.

Every module has a layer, in pipeline order, and imports only from its own layer or those
before it: a lower stage never imports a higher one.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

from gate_runs import cases, write

import pytest_ragas_gate

PACKAGE = Path(pytest_ragas_gate.__file__).parent
NAME = PACKAGE.name

#: The modules that may import pytest: the plugin and what runs inside a pytest session.
PYTEST_MODULES = {
    f"{NAME}.plugin",
    f"{NAME}.plugin.session",
    f"{NAME}.plugin.items",
    f"{NAME}.plugin.hookspecs",
    f"{NAME}.plugin.activation",
    f"{NAME}.plugin.collection_census",
    f"{NAME}.plugin.custom_metrics",
    f"{NAME}.plugin.custom_judges",
    f"{NAME}.live.targets",
    f"{NAME}.plugin.terminal",
    f"{NAME}.plugin.html_rows",
    f"{NAME}.plugin.xdist_exchange",
    # Asks pytest (lazily) which rootdir ``pytest --rag-gate DIR`` will have, to put the
    # rag_gate.yaml it writes where that run reads it.
    f"{NAME}.importers.promptfoo_config_command",
}

#: The pipeline's layers, in order: the modules at the package's top level (the foundation),
#: then one sub-package each, then the package's own public names. Each module imports only
#: from its layer or earlier ones.
LAYER_ORDER = (
    "foundation",
    "golden",
    "judges",
    "metrics",
    # The settings read the metrics' facts (default thresholds, directions).
    "settings",
    "scoring",
    "live",
    "trust",
    "gate",
    "reports",
    "plugin",
    "synth",
    "importers",
    "cli",
    "public names",
)


def package_of(module: str, path: Path) -> str:
    """A module's layer: its sub-package, ``foundation`` at the top, or ``public names``."""
    if module == NAME:
        return "public names"
    if path.parent == PACKAGE:
        return "foundation"
    return path.relative_to(PACKAGE).parts[0]


def layers() -> tuple[tuple[str, frozenset[str]], ...]:
    placed = {module: package_of(module, path) for module, path in module_names().items()}
    return tuple(
        (layer, frozenset(module for module, name in placed.items() if name == layer))
        for layer in LAYER_ORDER
    )


def layer_of() -> dict[str, int]:
    return {module: rank for rank, (_, modules) in enumerate(layers()) for module in modules}


def back_imports(graph: dict[str, set[str]], rank: dict[str, int]) -> list[str]:
    """Every import of a later layer, as ``importer (layer) -> imported (layer)``."""
    names = list(LAYER_ORDER)
    return sorted(
        f"{module} ({names[rank[module]]}) -> {target} ({names[rank[target]]})"
        for module, targets in graph.items()
        for target in targets
        if target in rank and rank[target] > rank[module]
    )


def module_names() -> dict[str, Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def imports_of(module: str, path: Path, known: set[str]) -> set[str]:
    """Every module of the package (or ``pytest``) that ``module`` imports, anywhere."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                prefix = ".".join([*base, *([node.module] if node.module else [])])
            else:
                prefix = node.module or ""
            targets = [prefix, *(f"{prefix}.{alias.name}" for alias in node.names)]
        for target in targets:
            if target.split(".")[0] in ("pytest", "_pytest"):
                found.add("pytest")
            elif target in known and target != module:
                found.add(target)
    return found


@functools.cache
def _parsed_import_graph() -> dict[str, frozenset[str]]:
    # Parsed once per test process: every test of the module reads the same sources.
    modules = module_names()
    known = set(modules)
    return {module: frozenset(imports_of(module, path, known)) for module, path in modules.items()}


def import_graph() -> dict[str, set[str]]:
    """The package's import graph, a copy a test may change."""
    return {module: set(targets) for module, targets in _parsed_import_graph().items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in graph.get(node, set()) & set(graph):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_counting_every_import() -> None:
    graph = import_graph()
    # Submodules importing their own package's __init__ are not a cycle of concepts.
    for module, targets in graph.items():
        targets -= {parent for parent in graph if module.startswith(parent + ".")}
    assert cycles(graph) == []


def test_every_module_has_a_layer() -> None:
    unplaced = {
        module: package_of(module, path)
        for module, path in module_names().items()
        if package_of(module, path) not in LAYER_ORDER
    }
    assert unplaced == {}, "a sub-package that is not a layer of the pipeline"
    placed = [module for _, modules in layers() for module in modules]
    assert len(placed) == len(set(placed)), "a module is in two layers"
    assert set(placed) == set(import_graph()), set(import_graph()) ^ set(placed)


def test_no_module_imports_a_later_layer() -> None:
    graph = import_graph()
    for targets in graph.values():
        targets.discard("pytest")
    assert back_imports(graph, layer_of()) == []


def test_the_layer_check_finds_a_back_import() -> None:
    graph = {module: set(targets) for module, targets in import_graph().items()}
    graph[f"{NAME}.judges.base"].add(f"{NAME}.reports.json_report")
    assert back_imports(graph, layer_of()) == [
        f"{NAME}.judges.base (judges) -> {NAME}.reports.json_report (reports)"
    ]


def test_only_the_pytest_facing_modules_import_pytest() -> None:
    importers = {module for module, targets in import_graph().items() if "pytest" in targets}
    assert importers <= PYTEST_MODULES, sorted(importers - PYTEST_MODULES)


def test_the_gate_and_the_reports_import_no_pytest_and_no_session() -> None:
    graph = import_graph()
    for module in (
        f"{NAME}.gate.verdict",
        f"{NAME}.stats",
        f"{NAME}.scoring.results",
        f"{NAME}.gate.baseline",
    ):
        assert not graph[module] & {"pytest", f"{NAME}.plugin.session", f"{NAME}.reports"}, module
    for module, targets in graph.items():
        if module.startswith(f"{NAME}.judges"):
            assert not any(target.startswith(f"{NAME}.reports") for target in targets), module


#: The layers the architecture calls pure: they read the run's environment from the value
#: the plugin and the CLI capture (``settings.run_environment``), never from the process.
PURE_LAYERS = (f"{NAME}.gate", f"{NAME}.reports")
#: The GitHub API client reads its token and the event file itself.
AMBIENT_CLIENTS = {f"{NAME}.reports.pr_comment"}


def ambient_reads(source: str) -> list[str]:
    """Where ``source`` imports ``subprocess`` or reads the process environment."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [
                f"{node.lineno}: import {alias.name}"
                for alias in node.names
                if alias.name.split(".")[0] == "subprocess"
            ]
        elif isinstance(node, ast.ImportFrom) and node.module in ("subprocess", "os"):
            found += [
                f"{node.lineno}: from {node.module} import {alias.name}"
                for alias in node.names
                if node.module == "subprocess" or alias.name in ("environ", "environb", "getenv")
            ]
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in ("environ", "environb", "getenv")
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ):
            found.append(f"{node.lineno}: os.{node.attr}")
    return sorted(found, key=lambda where: int(where.split(":")[0]))


def pure_layer_reads(sources: dict[str, str]) -> dict[str, list[str]]:
    """Each pure-layer module of ``sources`` that reads an ambient input, and where."""
    return {
        module: reads
        for module, source in sources.items()
        if module.startswith(PURE_LAYERS)
        and module not in AMBIENT_CLIENTS
        and (reads := ambient_reads(source))
    }


def pure_layer_sources() -> dict[str, str]:
    return {
        module: path.read_text(encoding="utf-8")
        for module, path in module_names().items()
        if module.startswith(PURE_LAYERS)
    }


def test_the_gate_and_the_reports_run_no_git_and_read_no_environment() -> None:
    assert pure_layer_reads(pure_layer_sources()) == {}


def test_the_ambient_input_ban_finds_a_planted_read() -> None:
    sources = pure_layer_sources()
    report = f"{NAME}.reports.json_report"
    gate = f"{NAME}.gate.gate_changes"
    sources[report] += "\nimport os\nCOMMIT = os.environ.get('GITHUB_SHA')\n"
    sources[gate] += "\nimport subprocess\nfrom os import getenv\nREF = getenv('X')\n"
    lines = {module: source.count("\n") for module, source in sources.items()}
    assert pure_layer_reads(sources) == {
        report: [f"{lines[report]}: os.environ"],
        gate: [
            f"{lines[gate] - 2}: import subprocess",
            f"{lines[gate] - 1}: from os import getenv",
        ],
    }
    # The GitHub API client may read its token; nothing else in the layers may.
    client = f"{NAME}.reports.pr_comment"
    assert ambient_reads(sources[client]) and client not in pure_layer_reads(sources)


def test_rag_gate_never_loads_pytest(tmp_path: Path) -> None:
    report = write(tmp_path / "report.json", cases([0.9, 0.8, 0.95]))
    script = (
        "import sys\n"
        "from pytest_ragas_gate import cli\n"
        "for command in (['regate'], ['summary'], ['merge', '-o', sys.argv[2]]):\n"
        "    cli.main([*command[:1], sys.argv[1], *command[1:]])\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('pytest', '_pytest'))\n"
        "print('PYTEST MODULES:', loaded)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(report), str(tmp_path / "merged.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "PYTEST MODULES: []" in result.stdout, result.stdout + result.stderr
