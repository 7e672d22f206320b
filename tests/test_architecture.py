"""The package's shape: data flows one way, with no import cycle, and rag-gate needs no pytest.

Imports are read from the source, so an import inside a function or under
``TYPE_CHECKING`` counts as much as one at the top of a module.
"""

from __future__ import annotations

import ast
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
    f"{NAME}.session",
    f"{NAME}.items",
    f"{NAME}.hookspecs",
    f"{NAME}.activation",
    f"{NAME}.collection_census",
    f"{NAME}.custom_metrics",
    f"{NAME}.live",
    f"{NAME}.reports.terminal",
}


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


def import_graph() -> dict[str, set[str]]:
    modules = module_names()
    known = set(modules)
    return {module: imports_of(module, path, known) for module, path in modules.items()}


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


def test_only_the_pytest_facing_modules_import_pytest() -> None:
    importers = {module for module, targets in import_graph().items() if "pytest" in targets}
    assert importers <= PYTEST_MODULES, sorted(importers - PYTEST_MODULES)


def test_the_gate_and_the_reports_import_no_pytest_and_no_session() -> None:
    graph = import_graph()
    for module in (f"{NAME}.gate", f"{NAME}.stats", f"{NAME}.results", f"{NAME}.baseline"):
        assert not graph[module] & {"pytest", f"{NAME}.session", f"{NAME}.reports"}, module
    for module, targets in graph.items():
        if module.startswith(f"{NAME}.judges"):
            assert not any(target.startswith(f"{NAME}.reports") for target in targets), module


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
