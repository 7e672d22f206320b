"""The package's shape: data flows one way, with no import cycle, and rag-gate needs no pytest.

Imports are read from the source, so an import inside a function or under
``TYPE_CHECKING`` counts as much as one at the top of a module.

Every module has a layer, in pipeline order, and imports only from its own layer or those
before it: a lower stage never imports a higher one.
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


#: The pipeline's layers, in order; each module imports only from its layer or earlier ones.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = tuple(
    (
        layer,
        frozenset(
            NAME if module == "__init__" else f"{NAME}.{module}" for module in modules.split()
        ),
    )
    for layer, modules in (
        (
            "foundation",
            "exceptions usage text_safety atomic_files command_line long_lived stats options "
            "output_paths config_values config_names config_location cache_signing",
        ),
        ("golden", "cases golden_fields golden_formats loading sharding"),
        (
            "judges",
            "judges judges.base judges.requests judges.prompts judges.transport judges.text "
            "judges.values judges.records judges.contradiction judges.prefix_order "
            "judges.reply_validation judges.batch_apis judges.batching judges.anthropic_judge "
            "judges.openai_judge judges.offline judges.metered judges.pricing judges.refusal cache",
        ),
        (
            "metrics",
            "metrics metrics.base metrics._case_fields metrics.formulas metrics.alignment "
            "metrics.context metrics.correctness metrics.faithfulness metrics.relevancy "
            "metrics.retrieval_ids metrics.tool_selection metrics.registry",
        ),
        # The settings read the metrics' facts (default thresholds, directions).
        ("settings", "bounds config config_checks"),
        (
            "scoring",
            # judges.factory and judges.embedder build the run's judge from the settings
            # and bind it into the metrics: they rank with the scorer that uses them.
            "judges.factory judges.embedder repeats results score_checks interruption scheduler "
            "progress_relay gated_metrics case_checks unknown_fields synth.documents "
            "synth.chunking synth.dedup synth.requests synth.plan synth.pipeline synth.offline "
            "synth.golden_output synth.review",
        ),
        ("live", "live oracle oracle_gaps latency"),
        (
            "gate",
            "gate baseline diagnosis hints coverage ignored_top unevaluated agreement ppi labels "
            "label_checks judge_noise auto_repeats gate_changes gate_change_details judge_outage",
        ),
        (
            "reports",
            "reports reports.json_report reports.summary reports.markdown reports.github "
            "reports.junit reports.html reports.html_summary reports.pr_comment "
            "reports.gate_inputs reports.integrity reports.judge_noise_view",
        ),
        (
            "plugin and cli",
            "__init__ plugin session items hookspecs activation collection_census custom_metrics "
            "reports.terminal reports.html_rows cli labelling synth synth.command keygen "
            "importers importers.command importers.records importers.deepeval importers.promptfoo "
            "importers.datasets importers.openinference",
        ),
    )
)


def layer_of() -> dict[str, int]:
    return {module: rank for rank, (_, modules) in enumerate(LAYERS) for module in modules}


def back_imports(graph: dict[str, set[str]], rank: dict[str, int]) -> list[str]:
    """Every import of a later layer, as ``importer (layer) -> imported (layer)``."""
    names = [layer for layer, _ in LAYERS]
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


def test_every_module_has_a_layer() -> None:
    placed = [module for _, modules in LAYERS for module in modules]
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
