"""The pytest entry point: options and activation only.

pytest imports this module on every run of every user, so it imports nothing but pytest
and the standard library; the gate itself loads only when ``--rag-gate`` is given.
"""

from __future__ import annotations

from argparse import SUPPRESS
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..golden.sharding import parse_shard
from ..long_lived import collector_spared, import_module_paused
from ..settings.config_sections import OUTPUT_KINDS, REMOVED_IN
from ..settings.options import parse_assignment, parse_metric_list, parse_output, parse_threshold
from .option_aliases import ALIASES

if TYPE_CHECKING:
    from .session import GateRun

RUN_KEY = pytest.StashKey["GateRun"]()
HOOKS_NAME = "rag-gate"
XDIST_HOOKS_NAME = "rag-gate-xdist"
PYTEST_HTML_HOOKS_NAME = "rag-gate-pytest-html"

JUDGES = ("auto", "anthropic", "openai", "offline")
#: The error pytest-xdist gives a worker that ended on its own KeyboardInterrupt.
XDIST_WORKER_INTERRUPTED = "keyboard-interrupt"


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Declare the hooks a conftest.py may implement (live-mode target, custom metrics)."""
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the ``rag-gate`` option group: what people change per run; the rest is config."""
    group = parser.getgroup("rag-gate", "RAG quality gate")
    group.addoption(
        "--rag-gate",
        action="store_true",
        dest="rag_gate",
        default=False,
        help="Collect golden RAG cases, score them and gate the run on the metrics (default: off).",
    )
    group.addoption(
        "--rag-gate-config",
        dest="rag_gate_config",
        default=None,
        metavar="PATH",
        help="Config file (default: rag_gate.yaml in rootdir, then [tool.rag_gate]).",
    )
    group.addoption(
        "--rag-gate-judge",
        dest="rag_gate_judge",
        default=None,
        # Open: an installed package or a conftest may register another kind of judge,
        # checked once the judges are known.
        metavar="{" + ",".join(JUDGES) + ",…}",
        help="Judge: anthropic when ANTHROPIC_API_KEY is set, else offline (default: auto); "
        "or a kind an installed package or a conftest registers.",
    )
    group.addoption(
        "--rag-gate-metrics",
        dest="rag_gate_metrics",
        type=parse_metric_list,
        default=None,
        metavar="NAME,NAME",
        help="Run only these metrics (default: every metric whose fields are present).",
    )
    group.addoption(
        "--rag-gate-threshold",
        dest="rag_gate_thresholds",
        action="append",
        type=parse_threshold,
        default=None,
        metavar="METRIC=VALUE",
        help="Threshold of a metric (METRIC=VALUE, METRIC>=VALUE or METRIC<=VALUE; "
        "METRIC=null leaves it ungated); repeatable; overrides config "
        "(default: built-in thresholds).",
    )
    group.addoption(
        "--rag-gate-baseline",
        dest="rag_gate_baseline",
        default=None,
        metavar="PATH",
        help="A previous JSON report to compare against (default: none).",
    )
    group.addoption(
        "--rag-gate-shard",
        dest="rag_gate_shard",
        type=parse_shard,
        default=None,
        metavar="K/N",
        help="Score only shard K of N of the golden cases, for a CI matrix (default: all).",
    )
    group.addoption(
        "--rag-gate-output",
        dest="rag_gate_outputs",
        action="append",
        type=parse_output,
        default=None,
        metavar="KIND=PATH",
        help="Write a report; repeatable; KIND is " + ", ".join(OUTPUT_KINDS) + " (default: none).",
    )
    group.addoption(
        "--rag-gate-set",
        dest="rag_gate_set",
        action="append",
        type=parse_assignment,
        default=None,
        metavar="KEY=VALUE",
        help="Set any config key, e.g. judge.concurrency=8 or cache.mode=read; repeatable; "
        "typed and checked as in the config file.",
    )
    for alias in ALIASES:
        group.addoption(alias.option, dest=alias.dest, default=None, help=SUPPRESS, **alias.kwargs)


def cli_settings(config: pytest.Config) -> dict[str, Any]:
    """The settings given by the dedicated options, as internal config keys."""
    option = config.option
    settings: dict[str, Any] = {
        "judge": option.rag_gate_judge,
        "metrics": option.rag_gate_metrics,
        "baseline": option.rag_gate_baseline,
    }
    for alias in ALIASES:
        settings[alias.key] = getattr(option, alias.dest)
    if option.rag_gate_thresholds:
        settings["thresholds"] = dict(option.rag_gate_thresholds)
    return {key: value for key, value in settings.items() if value is not None}


def cli_assignments(config: pytest.Config) -> dict[str, Any]:
    """``--rag-gate-output`` and ``--rag-gate-set``, as dotted config keys, later ones winning."""
    assignments: dict[str, Any] = {}
    for kind, path in config.option.rag_gate_outputs or []:
        assignments[f"outputs.{kind}"] = path
    for key, value in config.option.rag_gate_set or []:
        assignments[key] = value
    return assignments


#: The dedicated option behind each setting of :func:`cli_settings`, for messages.
OPTION_NAMES: dict[str, str] = {
    "judge": "--rag-gate-judge",
    "metrics": "--rag-gate-metrics",
    "baseline": "--rag-gate-baseline",
    "thresholds": "--rag-gate-threshold",
    **{alias.key: alias.option for alias in ALIASES},
}


def cli_assignment_names(config: pytest.Config) -> dict[str, str]:
    """The keys of :func:`cli_assignments` that ``--rag-gate-output`` gave, named as given."""
    set_keys = {key for key, _ in config.option.rag_gate_set or []}
    return {
        f"outputs.{kind}": f"--rag-gate-output {kind}"
        for kind, _ in config.option.rag_gate_outputs or []
        if f"outputs.{kind}" not in set_keys
    }


def deprecated_options(config: pytest.Config) -> list[str]:
    """One line per old option spelling given, naming the new one."""
    return [
        f"{alias.option} is deprecated and goes in {REMOVED_IN}: write {alias.new_spelling}"
        for alias in ALIASES
        if getattr(config.option, alias.dest) is not None
    ]


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """Activate the gate only when ``--rag-gate`` is given."""
    if not config.option.rag_gate:
        return
    # The gate's stages and the pydantic models they define are never garbage: the
    # collector, run over them while they load, found nothing and cost a tenth of a run.
    import_module_paused("pytest_ragas_gate.plugin.activation")
    from .activation import start_run

    run = start_run(
        config,
        cli_settings(config),
        assignments=cli_assignments(config),
        notices=deprecated_options(config),
        option_names=OPTION_NAMES,
        assignment_names=cli_assignment_names(config),
        old_options=[alias.key for alias in ALIASES if getattr(config.option, alias.dest)],
    )
    config.stash[RUN_KEY] = run
    run.cancellation.install()
    config.pluginmanager.register(GateHooks(run), HOOKS_NAME)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistHooks(run), XDIST_HOOKS_NAME)
    if config.pluginmanager.hasplugin("html"):
        from .html_rows import PytestHtmlRows

        html = run.config.html
        page = config.invocation_params.dir / html if html else None
        rows = PytestHtmlRows(config, page, run.config.bounds(), verdict=lambda: run.verdict)
        config.pluginmanager.register(rows, PYTEST_HTML_HOOKS_NAME)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Drop the run's hooks."""
    for name in (HOOKS_NAME, XDIST_HOOKS_NAME, PYTEST_HTML_HOOKS_NAME):
        hooks = config.pluginmanager.get_plugin(name)
        if hooks is not None:
            config.pluginmanager.unregister(hooks)
    if RUN_KEY in config.stash:
        config.stash[RUN_KEY].cancellation.restore()
        del config.stash[RUN_KEY]


class GateHooks:
    """The hooks of an active run; each hands off to the ``GateRun``."""

    def __init__(self, run: GateRun) -> None:
        self.run = run

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        """Say which judge, model, thresholds, cache and config are in force."""
        from .terminal import header_lines

        return header_lines(self.run)

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> Any:
        """Golden files become collectors."""
        if not self.run.claim(file_path):
            return None
        from .items import GoldenFile

        return GoldenFile.from_parent(parent, path=file_path, run=self.run)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """Note failed collections; xdist forwards workers' failed reports here too."""
        self.run.record_collect_error(report)

    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        """Keep only this job's shard of the golden cases (``--rag-gate-shard``)."""
        from ..gate.coverage import SHARD_REASON_PREFIX
        from .items import select_shard

        shard = config.option.rag_gate_shard
        self.run.census_taker.deselect_reason = f"{SHARD_REASON_PREFIX}{shard}"
        select_shard(config, items, shard)
        self.run.census_taker.deselect_reason = None

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        """Note which option left golden cases out, for the coverage ledger."""
        self.run.census_taker.deselected(items)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Take the census of golden files, then score every selected case at once."""
        self.run.take_census(session)
        if not self.run.pytest_config.option.collectonly:
            self.run.score(session)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Attach the case result to the report, so it reaches an xdist controller."""
        report = yield
        from .items import attach_result, attach_skip

        attach_result(item, report, as_json=self.run.worker.is_worker)
        attach_skip(item, report)
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Gather case results (in a serial run or on the xdist controller)."""
        self.run.record(report)

    def pytest_report_teststatus(self, report: pytest.TestReport, config: pytest.Config) -> Any:
        """Show each case's scores on its verbose line."""
        from .terminal import teststatus

        return teststatus(report)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Gate the run; the exit status then agrees with the verdict."""
        # Every test has run: the collector may skip the long-lived objects meanwhile.
        with collector_spared():
            self.run.finish(session)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Print the per-metric table and the verdict."""
        from .terminal import write_summary

        with collector_spared():
            write_summary(self.run, terminalreporter)


class XdistHooks:
    """The xdist controller's share of an active run, registered only when xdist is there."""

    def __init__(self, run: GateRun) -> None:
        self.run = run

    def pytest_configure_node(self, node: Any) -> None:
        """Show the workers' scoring progress from the controller, as a serial run does."""
        self.run.relay_progress(node.workerinput)

    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """Take a finished worker's collection counts, census, timing and usage stop.

        A worker that died (``error`` set, other than its own Ctrl-C) is lost: its cases
        that no item reported become errors of those cases.
        """
        if error is not None and error != XDIST_WORKER_INTERRUPTED:
            self.run.worker_lost(str(node.gateway.id), error)
            return
        self.run.add_worker_output(getattr(node, "workeroutput", None) or {})
