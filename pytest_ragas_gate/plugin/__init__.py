"""The pytest entry point: options and activation only.

pytest imports this module on every run of every user, so it imports nothing but pytest
and the standard library; the gate itself loads only when ``--rag-gate`` is given.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..golden.sharding import parse_shard
from ..settings.options import parse_metric_list, parse_positive_int, parse_repeats, parse_threshold

if TYPE_CHECKING:
    from .session import GateRun

RUN_KEY = pytest.StashKey["GateRun"]()
HOOKS_NAME = "rag-gate"
XDIST_HOOKS_NAME = "rag-gate-xdist"
PYTEST_HTML_HOOKS_NAME = "rag-gate-pytest-html"

JUDGES = ("auto", "anthropic", "openai", "offline")
CACHE_MODES = ("readwrite", "read", "off")
REPORT_DETAILS = ("core", "full")


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Declare the hooks a conftest.py may implement (live-mode target, custom metrics)."""
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the ``rag-gate`` option group."""
    group = parser.getgroup("rag-gate", "RAG quality gate")
    group.addoption(
        "--rag-gate",
        action="store_true",
        dest="rag_gate",
        default=False,
        help="Collect golden RAG cases, score them and gate the run on the metrics (default: off).",
    )
    group.addoption(
        "--rag-gate-judge",
        dest="rag_gate_judge",
        choices=JUDGES,
        default=None,
        metavar="{" + ",".join(JUDGES) + "}",
        help="Judge: anthropic when ANTHROPIC_API_KEY is set, else offline (default: auto).",
    )
    group.addoption(
        "--rag-gate-model",
        dest="rag_gate_model",
        default=None,
        metavar="NAME",
        help="Judge model (default: the judge's own default).",
    )
    group.addoption(
        "--rag-gate-config",
        dest="rag_gate_config",
        default=None,
        metavar="PATH",
        help="Config file (default: rag_gate.yaml in rootdir, then [tool.rag_gate]).",
    )
    group.addoption(
        "--rag-gate-threshold",
        dest="rag_gate_thresholds",
        action="append",
        type=parse_threshold,
        default=None,
        metavar="METRIC=VALUE",
        help="Minimum for a metric; repeatable; overrides config (default: built-in thresholds).",
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
        "--rag-gate-junit",
        dest="rag_gate_junit",
        default=None,
        metavar="PATH",
        help="Write the JUnit XML report here (default: none).",
    )
    group.addoption(
        "--rag-gate-report",
        dest="rag_gate_report",
        default=None,
        metavar="PATH",
        help="Write the JSON report here (default: none).",
    )
    group.addoption(
        "--rag-gate-report-details",
        dest="rag_gate_report_details",
        choices=REPORT_DETAILS,
        default=None,
        metavar="{" + ",".join(REPORT_DETAILS) + "}",
        help="Per-item judge details in the JSON report: core keeps those of faithfulness, "
        "context precision and recall (and every error); full keeps all (default: core).",
    )
    group.addoption(
        "--rag-gate-html",
        dest="rag_gate_html",
        default=None,
        metavar="PATH",
        help="Write the self-contained HTML report here (default: none).",
    )
    group.addoption(
        "--rag-gate-otel",
        dest="rag_gate_otel",
        default=None,
        metavar="PATH|URL",
        help="Send each case's scores as OpenTelemetry gen_ai.evaluation.result log records: "
        "OTLP/JSON to a file, or OTLP/HTTP to a collector's http(s) URL; needs "
        "pytest-ragas-gate[otel] (default: none).",
    )
    group.addoption(
        "--rag-gate-history",
        dest="rag_gate_history",
        default=None,
        metavar="PATH",
        help="Append one JSON line per run (time, commit, verdict, per-metric mean/CI/n) to "
        "this history file; the HTML report draws each gated metric's trend from it "
        "(default: none).",
    )
    group.addoption(
        "--rag-gate-baseline",
        dest="rag_gate_baseline",
        default=None,
        metavar="PATH",
        help="A previous JSON report to compare against (default: none).",
    )
    group.addoption(
        "--rag-gate-pairwise",
        dest="rag_gate_pairwise",
        action="store_true",
        default=None,
        help="Judge each answer that changed against the baseline's answer to the same case "
        "(twice, positions swapped; needs --rag-gate-baseline) and report win, loss and tie "
        "rates (default: off).",
    )
    group.addoption(
        "--rag-gate-labels",
        dest="rag_gate_labels",
        default=None,
        metavar="PATH",
        help="Human labels by case id (human_<metric> columns), to measure judge-human "
        "agreement and the prediction-powered estimate (default: labels inline only).",
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
        "--rag-gate-cache",
        dest="rag_gate_cache",
        choices=CACHE_MODES,
        default=None,
        metavar="{" + ",".join(CACHE_MODES) + "}",
        help="Judge cache mode; read replays and fails on a miss (default: readwrite).",
    )
    group.addoption(
        "--rag-gate-cache-dir",
        dest="rag_gate_cache_dir",
        default=None,
        metavar="PATH",
        help="Judge cache directory (default: .rag_gate_cache in rootdir).",
    )
    group.addoption(
        "--rag-gate-concurrency",
        dest="rag_gate_concurrency",
        type=parse_positive_int,
        default=None,
        metavar="N",
        help="Most concurrent judge requests per worker, adaptive on 429s (default: 32).",
    )
    group.addoption(
        "--rag-gate-repeats",
        dest="rag_gate_repeats",
        type=parse_repeats,
        default=None,
        metavar="K",
        help="Ask each judge request K times, score each case by the mean and report "
        "the judge's own noise per metric; auto repeats only what can move the verdict "
        "(default: 1).",
    )
    group.addoption(
        "--rag-gate-batch",
        action="store_true",
        dest="rag_gate_batch",
        default=None,
        help="Send the judge requests through the provider's batch API at half price; "
        "results come back in minutes to hours (default: off).",
    )
    group.addoption(
        "--rag-gate-target",
        dest="rag_gate_target",
        default=None,
        metavar="MODULE:FUNCTION",
        help="Live mode: the RAG system to call for each case (default: none, static mode).",
    )
    group.addoption(
        "--rag-gate-oracle",
        dest="rag_gate_oracle",
        nargs="?",
        const="only",
        choices=("off", "only", "both"),
        default=None,
        metavar="{only,both}",
        help="Live mode: call the target with each case's gold contexts (contexts=) instead "
        "of letting it retrieve; 'both' also runs it as usual and reports the gap "
        "(default: off).",
    )
    group.addoption(
        "--rag-gate-corpus",
        dest="rag_gate_corpus",
        default=None,
        metavar="PATH",
        help="JSON Lines of {id, text}: the chunks relevant_context_ids name, as gold "
        "contexts for --rag-gate-oracle (default: reference_contexts only).",
    )


def cli_settings(config: pytest.Config) -> dict[str, Any]:
    """The settings given on the command line, as config keys."""
    option = config.option
    settings: dict[str, Any] = {
        "judge": option.rag_gate_judge,
        "model": option.rag_gate_model,
        "metrics": option.rag_gate_metrics,
        "junit": option.rag_gate_junit,
        "report": option.rag_gate_report,
        "report_details": option.rag_gate_report_details,
        "html": option.rag_gate_html,
        "otel": option.rag_gate_otel,
        "history": option.rag_gate_history,
        "baseline": option.rag_gate_baseline,
        "pairwise": option.rag_gate_pairwise,
        "labels": option.rag_gate_labels,
        "oracle": option.rag_gate_oracle,
        "corpus": option.rag_gate_corpus,
        "cache": option.rag_gate_cache,
        "cache_dir": option.rag_gate_cache_dir,
        "concurrency": option.rag_gate_concurrency,
        "repeats": option.rag_gate_repeats,
        "batch": option.rag_gate_batch,
        "target": option.rag_gate_target,
    }
    if option.rag_gate_thresholds:
        settings["thresholds"] = dict(option.rag_gate_thresholds)
    return {key: value for key, value in settings.items() if value is not None}


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """Activate the gate only when ``--rag-gate`` is given."""
    if not config.option.rag_gate:
        return
    from .activation import start_run

    run = start_run(config, cli_settings(config))
    config.stash[RUN_KEY] = run
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
        from .items import select_shard

        shard = config.option.rag_gate_shard
        self.run.census_taker.deselect_reason = f"not in --rag-gate-shard {shard}"
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
        from .items import attach_result

        attach_result(item, report, as_json=self.run.worker.is_worker)
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
        self.run.finish(session)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Print the per-metric table and the verdict."""
        from .terminal import write_summary

        write_summary(self.run, terminalreporter)


class XdistHooks:
    """The xdist controller's share of an active run, registered only when xdist is there."""

    def __init__(self, run: GateRun) -> None:
        self.run = run

    def pytest_configure_node(self, node: Any) -> None:
        """Show the workers' scoring progress from the controller, as a serial run does."""
        self.run.relay_progress(node.workerinput)

    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """Take a finished worker's collection counts, census, timing and usage stop."""
        self.run.add_worker_output(getattr(node, "workeroutput", None) or {})
