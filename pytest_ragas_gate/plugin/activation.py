"""Turning ``--rag-gate`` on: settings, metrics and judge, checked before collection.

Every problem found here is a usage error (pytest exits 4) with a message that names the
setting and, for a misspelt name, the closest valid one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..exceptions import UsageError
from ..metrics.base import Metric
from ..metrics.registry import MetricRegistry
from ..settings.config import GateConfig, LoadedConfig, load_config
from ..settings.config_checks import check_metric_names
from ..settings.config_location import locate_config
from ..settings.options import typed_value
from ..settings.run_environment import RunEnvironment
from .session import GateRun
from .xdist_exchange import WorkerInfo

if TYPE_CHECKING:
    from ..live.oracle import OracleTarget
    from ..live.targets import LiveTarget
    from ..reports.json_report import SavedReport
    from ..trust.labels import LabelSet


def start_run(
    config: pytest.Config,
    cli: Mapping[str, Any],
    *,
    assignments: Mapping[str, str] | None = None,
    notices: Sequence[str] = (),
    option_names: Mapping[str, str] | None = None,
    old_options: Sequence[str] = (),
    assignment_names: Mapping[str, str] | None = None,
) -> GateRun:
    """Build the run, or raise ``pytest.UsageError`` with a clear message.

    Args:
        config: pytest's config.
        cli: The settings of the dedicated options, under internal names.
        assignments: ``--rag-gate-set`` and ``--rag-gate-output``, by dotted key, unparsed.
        notices: Lines to print first (the old option spellings given).
        option_names: The option behind each key of ``cli`` (for messages).
        old_options: The keys of ``cli`` given with an option of earlier releases.
        assignment_names: How the keys of ``assignments`` not given with
            ``--rag-gate-set`` were given (``--rag-gate-output otel``).
    """
    # Captured once: every later reader of the surroundings gets this value.
    environment = RunEnvironment.capture()
    try:
        where = locate_config(
            config.rootpath,
            config.invocation_params.dir,
            config.option.rag_gate_config or os.environ.get("RAG_GATE_CONFIG"),
        )
        loaded = load_config(
            rootdir=where.directory,
            cli=cli,
            env=os.environ,
            config_path=where.explicit,
            assignments={
                key: value if key.startswith("outputs.") else typed_value(value)
                for key, value in (assignments or {}).items()
            },
            option_names=option_names,
            old_options=old_options,
            assignment_names=assignment_names,
        )
        _print_notices(config, [*notices, *loaded.warnings])
        from .custom_judges import run_judges

        judges = run_judges(config, loaded)
        metrics = available_metrics(loaded.config)
        from .custom_metrics import hook_metrics, with_metric_defaults

        metrics.update(hook_metrics(config, metrics))
        loaded = replace(loaded, config=with_metric_defaults(loaded.config, metrics))
        spec = loaded.config.target
        hooked = None if spec else config.hook.pytest_rag_gate_target(config=config)
        live = None
        if spec or hooked is not None:
            # Live mode loads only for a run with a target, configured or from the hook.
            from ..live.targets import resolve_target

            live = resolve_target(
                config,
                spec,
                max_threads=loaded.config.concurrency,
                timeout_s=loaded.config.target_timeout,
                hooked=hooked,
            )
        installed = metrics
        target: LiveTarget | OracleTarget | None = live
        if loaded.config.oracle != "off" or loaded.config.corpus:
            # Oracle mode (and its check of live.corpus) loads only when configured.
            from ..live.oracle import apply_oracle

            settings, metrics, target = apply_oracle(
                loaded.config, metrics, live, rootdir=config.invocation_params.dir
            )
            loaded = replace(loaded, config=settings)
        # Oracle-only runs drop the retrieval metrics; a threshold for one is not a typo.
        check_metric_names(loaded.config, {**installed, **metrics}, loaded.sources)
        _check_output_paths(loaded.config, config)
        _check_pairwise(loaded)
        if loaded.config.otel:
            from ..reports.otel import require_otel

            require_otel()
        baseline = _read_baseline(loaded.config, config)
        labels = _read_labels(loaded.config, config, metrics)
        from ..scoring.judge_factory import create_judge

        judge, info = create_judge(
            loaded.config,
            # The cache lives beside the config that was read, wherever pytest's rootdir went.
            rootdir=where.directory,
            env=environment.variables,
            chosen_by=loaded.judge_choice(),
            judges=judges,
        )
        from ..scoring.embedder import bind_embedder

        bind_embedder(metrics, judge, loaded.config)
    except UsageError as error:
        raise pytest.UsageError(str(error)) from None
    return GateRun(
        pytest_config=config,
        loaded=loaded,
        metrics=metrics,
        judge=judge,
        judge_info=info,
        environment=environment,
        worker=WorkerInfo.of(config),
        baseline=baseline,
        target=target,
        labels=labels,
    )


def _print_notices(config: pytest.Config, lines: Sequence[str]) -> None:
    """Old spellings, said once (by the xdist controller) before the run.

    Printed rather than warned: ``-W error`` must not turn a renamed key into a crash.
    """
    if not lines or hasattr(config, "workerinput"):
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    for line in lines:
        message = f"rag-gate: deprecated: {line}"
        if reporter is not None:
            reporter.write_line(message)
        else:
            sys.stderr.write(message + "\n")


def _check_output_paths(settings: GateConfig, config: pytest.Config) -> None:
    """Every report path must be writable now, before a judge call is paid for."""
    from ..settings.output_paths import output_paths_problems

    otel_file = settings.otel
    if otel_file:
        # The OTel stage loads only for a run that writes it; a collector's URL is
        # checked when the run sends to it, not as a path.
        from ..reports.otel import is_collector_url

        otel_file = None if is_collector_url(otel_file) else otel_file

    outputs = {
        "outputs.json": settings.report,
        "outputs.junit": settings.junit,
        "outputs.html": settings.html,
        "outputs.markdown": settings.markdown,
        "outputs.history": settings.history,
        "outputs.otel": otel_file,
        "GITHUB_STEP_SUMMARY (the Markdown summary)": os.environ.get("GITHUB_STEP_SUMMARY"),
    }
    problems = output_paths_problems(outputs, config.invocation_params.dir)
    if problems:
        raise UsageError("Cannot write the reports: " + "; ".join(problems) + ".")


def _check_pairwise(loaded: LoadedConfig) -> None:
    """``--rag-gate-set pairwise=true`` asks for a comparison only a baseline makes possible.

    ``pairwise: true`` in a config file stays quiet without one, as ``max_regression``
    does: the same file serves the runs on the main branch, which have no baseline.
    """
    settings = loaded.config
    if (
        settings.pairwise
        and not settings.baseline
        and loaded.origins.get("pairwise") == ("command line")
    ):
        raise UsageError(
            "pairwise=true on the command line judges the answers against a baseline's; name "
            "the baseline report with --rag-gate-baseline=PATH (or baseline.path in the "
            "config)."
        )


def _read_baseline(settings: GateConfig, config: pytest.Config) -> SavedReport | None:
    """The baseline report, read now so that a bad path stops the run before any judging."""
    if not settings.baseline:
        return None
    from ..reports.json_report import read_baseline

    return read_baseline(settings.baseline, rootdir=config.invocation_params.dir)


def _read_labels(
    settings: GateConfig, config: pytest.Config, metrics: Mapping[str, Metric]
) -> LabelSet | None:
    """The labels file (``labels:``), read now so that a bad row stops the run before judging."""
    if not settings.labels:
        return None
    from ..trust.label_checks import normalise_files
    from ..trust.labels import read_labels

    path = Path(settings.labels)
    if not path.is_absolute():
        path = config.invocation_params.dir / path
    if not path.is_file():
        raise UsageError(f"Labels file {settings.labels} does not exist.")
    labels = read_labels(path, settings.labels, metrics=metrics)
    return normalise_files(
        labels, rootdir=config.rootpath, invocation_dir=config.invocation_params.dir
    )


def available_metrics(config: GateConfig) -> dict[str, Metric]:
    """Built-in metrics first, in display order, then those from installed packages."""
    from ..scoring.embedder import deferred_embedder

    return MetricRegistry.installed(
        answer_relevancy_strategy=config.answer_relevancy_strategy,
        embedder=deferred_embedder(config),
        citation_pattern=config.citation_pattern,
    ).metrics
