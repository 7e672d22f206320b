"""The gate's settings: one validated model, and where each value came from.

Precedence, highest first: command line, environment (``RAG_GATE_*``), ``rag_gate.yaml``
(or ``--rag-gate-config PATH``), ``[tool.rag_gate]`` in ``pyproject.toml``, defaults.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from ..config_values import (
    NUMERIC_SETTINGS,
    check_cache_mode,
    check_number,
    check_repeats,
    check_tag_thresholds,
    check_thresholds,
    read_threshold,
)
from ..exceptions import ConfigError
from ..judges.cache import CacheMode
from ..judges.pricing import ModelPrice
from ..judges.structured_output import StructuredOutput
from ..metrics.citations import compile_citation_pattern
from ..metrics.registry import BUILTIN_FACTS, RESERVED_PREFIX, did_you_mean
from ..model_defaults import empty_list
from .bounds import Bound, Bounds, Direction
from .config_names import check_config_names
from .config_sections import SectionError, Translated, dotted_layer, public_key, translate
from .config_sources import (
    SettingSources,
    SourceLayer,
    file_describer,
    holds,
    line_namer,
    yaml_key_lines,
)
from .metric_keys import METRIC_ITEMS, METRIC_KEYS, TAG_METRIC_KEYS, MetricKeyed

# ``ppi``/``ppi_lower``/``ppi_upper`` gate on the prediction-powered estimate of the
# human-scale mean (and its interval), as ``mean``/``ci_lower``/``ci_upper`` do on the judge's.
Rule = Literal["mean", "ci_lower", "ci_upper", "ppi", "ppi_lower", "ppi_upper"]
# "auto", a built-in judge (anthropic, openai, offline) or a registered one, checked once
# the judges are known (an installed package or a conftest may add a kind).
JudgeKind = str

#: The built-in metrics' own default thresholds; other metrics are reported but not gated
#: by default.
DEFAULT_THRESHOLDS: dict[str, float] = {
    name: facts.default_threshold
    for name, facts in BUILTIN_FACTS.items()
    if facts.default_threshold is not None
}

#: The statistics a ``min_agreement`` floor may name: higher is better for each.
AGREEMENT_STATISTICS = ("auroc", "accuracy", "kappa", "spearman")

#: The statistics a budget may bound, and the percentile each one is (``max`` is 100).
LATENCY_STATISTICS: dict[str, float] = {"p50": 50.0, "p90": 90.0, "p95": 95.0, "p99": 99.0}


class LatencyBudget(BaseModel):
    """Most seconds per statistic of the target's per-case latency (``latency:`` setting).

    >>> LatencyBudget.model_validate({"p95": 2.0, "max": 5.0}).limits()
    {'p95': 2.0, 'max': 5.0}
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    p50: float | None = Field(default=None, gt=0)
    p90: float | None = Field(default=None, gt=0)
    p95: float | None = Field(default=None, gt=0)
    p99: float | None = Field(default=None, gt=0)
    max: float | None = Field(default=None, gt=0)

    @model_validator(mode="before")
    @classmethod
    def _known_statistics(cls, data: Any) -> Any:
        if isinstance(data, dict):
            known = [*LATENCY_STATISTICS, "max"]
            for key in data:
                if key not in known:
                    hint = did_you_mean(str(key), known) or "; valid: " + ", ".join(known)
                    raise ValueError(f"unknown latency statistic {key!r}{hint}")
        return data

    def limits(self) -> dict[str, float]:
        """The configured limits, in display order (percentiles, then ``max``)."""
        values = {name: getattr(self, name) for name in [*LATENCY_STATISTICS, "max"]}
        return {name: value for name, value in values.items() if value is not None}


# A scheme and its colon, with or without slashes: ``ftp:/x/y`` and ``mailto:a@b`` are URLs
# too, and read as paths they would be written as local files.
_URL_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_EXPECTED_OTEL = "expected a file path or an http:// or https:// URL of an OTLP/HTTP collector"


def otel_destination_problem(destination: str) -> str | None:
    r"""Why ``destination`` is neither an OTLP/JSON file path nor an OTLP/HTTP collector's URL.

    A value that starts with a URL scheme is a URL: it must be http(s) with ``//`` and a
    host, or a malformed one (``http:/host``, ``https:host``) would be written as a local
    file. One letter before the colon is a Windows drive (``C:\x``, ``C:/x``), a path.

    >>> [otel_destination_problem(d) is None for d in ("out/r.otlp.json", "https://c:4318",
    ...     "C:/out/r.json", r"C:\out\r.json", "ftp://x/y", "ftp:/x/y", "http:/c:4318")]
    [True, True, True, True, False, False, False]
    """
    value = destination.strip()
    scheme = _URL_SCHEME.match(value)
    if scheme is None or len(scheme.group(1)) == 1:
        return None
    if scheme.group(1).lower() not in ("http", "https"):
        return f"{destination!r} is a URL of another scheme; {_EXPECTED_OTEL}"
    if not value[len(scheme.group(0)) :].startswith("//") or not _has_host(value):
        return f"{destination!r} is not a well-formed http(s) URL with a host; {_EXPECTED_OTEL}"
    return None


def _has_host(url: str) -> bool:
    parsed = urlsplit(url)
    try:
        parsed.port  # noqa: B018 - urllib checks the port only when it is read
    except ValueError:
        return False
    return bool(parsed.hostname)


def otel_destination_ok(destination: str) -> bool:
    """An OTLP/JSON file path or an OTLP/HTTP collector's URL; see :func:`otel_destination_problem`.

    >>> [otel_destination_ok(d) for d in ("out/r.otlp.json", "https://c:4318", "ftp://x/y")]
    [True, True, False]
    """
    return otel_destination_problem(destination) is None


DEFAULT_CASE_FILES: tuple[str, ...] = tuple(
    f"{stem}.{ext}"
    for stem in ("golden*", "*.golden")
    for ext in ("jsonl", "json", "yaml", "yml", "csv")
)


class GateConfig(BaseModel):
    """Every setting of the gate, validated; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    judge: JudgeKind = "auto"
    model: str | None = None
    # How the openai judge asks for replies that fit the schema; auto probes a local server.
    structured_output: StructuredOutput = "auto"
    # Settings that name metrics carry a MetricKeyed marker: their names are checked.
    metrics: Annotated[list[str] | None, METRIC_ITEMS] = None
    thresholds: Annotated[dict[str, float | str | None], METRIC_KEYS] = Field(default_factory=dict)
    # Metrics whose threshold is a maximum besides the built-in ones (contradiction_rate):
    # a custom metric's ``lower_is_better = True`` lands here, so a saved report re-gates
    # every threshold of the metric (case, tag, config) in the same direction.
    lower_is_better: Annotated[list[str], METRIC_ITEMS] = Field(default_factory=empty_list)
    rule: Rule = "mean"
    rules: Annotated[dict[str, Rule], METRIC_KEYS] = Field(default_factory=dict)
    tag_thresholds: Annotated[dict[str, dict[str, float]], TAG_METRIC_KEYS] = Field(
        default_factory=dict
    )
    max_error_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    # A gated metric computed on fewer cases than this fails the gate (fail closed).
    min_cases: int = Field(default=1, ge=1)
    # A gated metric scored on a smaller share of the cases it was meant to judge (those
    # n/a for lack of a field count against it) fails the gate: one share for every
    # metric, or a mapping of metric → share with ``default`` for the rest.
    min_coverage: Annotated[float | dict[str, float], MetricKeyed("keys", ("default",))] = 0.9
    # Every unknown key of a golden row is an error of its case, not kept as metadata.
    strict_fields: bool = False
    confidence: float = Field(default=0.95, gt=0.0, lt=1.0)
    bootstrap_resamples: int = Field(default=2000, ge=100, le=100_000)
    seed: int = 0
    answer_relevancy_strategy: Literal["judge", "reverse_questions"] = "judge"
    embedding_model: str | None = None
    # The regex of inline citation markers (citation_precision, citation_recall).
    citation_pattern: str | None = None
    cache: CacheMode = "readwrite"
    cache_dir: str = ".rag_gate_cache"
    # The team's Ed25519 public key (rag-gate keygen): only entries it verifies are replayed.
    cache_public_key: str | None = None
    concurrency: int = Field(default=32, ge=1, le=1024)
    requests_per_minute: int | None = Field(default=None, ge=1)
    timeout_s: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=6, ge=0, le=20)
    retry_backoff_s: float = Field(default=0.5, gt=0, le=60)
    max_reasks: int = Field(default=2, ge=0, le=10)
    # Batch mode: requests go through the providers' batch APIs (half price, not at once).
    batch: bool = False
    batch_poll_s: float = Field(default=30.0, gt=0, le=3600)
    max_calls: int | None = Field(default=None, ge=0)
    max_cost: float | None = Field(default=None, ge=0)
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    case_files: list[str] = Field(default_factory=lambda: list(DEFAULT_CASE_FILES))
    # Golden files left out of the gate on purpose (globs on the rootdir-relative path or
    # the file name): listed as excluded, and the run can still pass.
    exclude: list[str] = Field(default_factory=empty_list)
    target: str | None = None
    # Seconds one live-target call may take before that case is an error.
    target_timeout: float = Field(default=60.0, gt=0)
    latency: LatencyBudget | None = None
    junit: str | None = None
    report: str | None = None
    report_details: Literal["core", "full"] = "core"
    html: str | None = None
    # The Markdown summary (as in the GitHub step summary), written to this file.
    markdown: str | None = None
    # The results as OpenTelemetry gen_ai.evaluation.result log records: an OTLP/JSON
    # file, or an OTLP/HTTP collector's URL.
    otel: str | None = None
    history: str | None = None
    baseline: str | None = None
    oracle: Literal["off", "only", "both"] = "off"
    corpus: str | None = None
    max_regression: float = Field(default=0.05, ge=0.0, le=1.0)
    # Each judge request asked this many times; the case scores the mean (judge noise).
    # ``auto`` repeats only the cases that can move the verdict (auto_repeats.py).
    repeats: int | Literal["auto"] = 1
    # A metric whose judge agrees with itself on fewer item verdicts fails the gate.
    min_judge_agreement: float | None = Field(default=None, ge=0.0, le=1.0)
    # A baseline that paired fewer cases than this has checked nothing (0 switches it off).
    min_paired: int = Field(default=1, ge=0)
    # Compare a metric the baseline scored with another judge, model or prompt version
    # (its deltas then measure the judge as much as the system); off: not evaluated.
    allow_judge_change: bool = False
    # Judge each changed answer against the baseline's (twice, positions swapped).
    pairwise: bool = False
    # The pairwise rule: the share of compared cases the new answers lose must stay at or
    # below this (None: the figures are reported, nothing is gated on them).
    pairwise_max_loss_rate: float | None = Field(default=None, ge=0.0, le=1.0)
    # Below this share of comparisons judged alike in both orders, the judge followed the
    # order of the answers rather than their content: the pairwise rule is not evaluated.
    pairwise_min_consistency: float = Field(default=0.7, ge=0.0, le=1.0)
    labels: str | None = None
    # Problems of a labels file (unknown ids, unmatched files, conflicting rows) stop the run.
    strict_labels: bool = False
    min_agreement: Annotated[dict[str, dict[str, float]], METRIC_KEYS] = Field(default_factory=dict)
    ppi_min_labels: int = Field(default=30, ge=2)
    ppi_power_tuning: bool = False

    @field_validator("min_agreement")
    @classmethod
    def _known_agreement_statistics(
        cls, value: dict[str, dict[str, float]]
    ) -> dict[str, dict[str, float]]:
        for metric, floors in value.items():
            for statistic, floor in floors.items():
                if statistic not in AGREEMENT_STATISTICS:
                    hint = did_you_mean(statistic, AGREEMENT_STATISTICS)
                    raise ValueError(
                        f"trust.agreement.human for {metric!r} names {statistic!r}; "
                        f"expected one of "
                        f"{', '.join(AGREEMENT_STATISTICS)}{hint}"
                    )
                if not -1.0 <= floor <= 1.0:
                    raise ValueError(
                        f"trust.agreement.human {statistic} for {metric!r} is {floor}; "
                        "expected a number from -1 to 1"
                    )
        return value

    @field_validator("otel")
    @classmethod
    def _otel_destination(cls, value: str | None) -> str | None:
        problem = None if value is None else otel_destination_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value

    @field_validator("citation_pattern")
    @classmethod
    def _citation_pattern_compiles(cls, value: str | None) -> str | None:
        if value is not None:
            compile_citation_pattern(value)
        return value

    @field_validator("repeats", mode="before")
    @classmethod
    def _repeats_typed(cls, value: Any) -> Any:
        return check_repeats(value)

    @field_validator("thresholds", mode="before")
    @classmethod
    def _thresholds_typed(cls, value: Any) -> Any:
        return check_thresholds(value)

    @field_validator("tag_thresholds", mode="before")
    @classmethod
    def _tag_thresholds_typed(cls, value: Any) -> Any:
        return check_tag_thresholds(value)

    @field_validator("cache", mode="before")
    @classmethod
    def _cache_mode_typed(cls, value: Any) -> Any:
        return check_cache_mode(value)

    @field_validator("cache_public_key", mode="before")
    @classmethod
    def _public_key_typed(cls, value: Any) -> Any:
        if value is None:
            return None
        # Signing loads only for a config that names a key.
        from ..judges.cache_signing import check_public_key

        return check_public_key(value)

    @field_validator(*NUMERIC_SETTINGS, mode="before")
    @classmethod
    def _numbers_typed(cls, value: Any) -> Any:
        return check_number(value, expected="a number")

    @field_validator("thresholds")
    @classmethod
    def _thresholds_in_unit_interval(
        cls, value: dict[str, float | str | None]
    ) -> dict[str, float | str | None]:
        # A bare number stays a number; ``<=X``/``>=X`` stay as written, so a saved
        # report's settings read back to the same bounds.
        normalised: dict[str, float | str | None] = {}
        for metric, threshold in value.items():
            if threshold is None:
                normalised[metric] = None
                continue
            number, stated = read_threshold(metric, threshold)
            symbol = {"min": ">=", "max": "<=", None: ""}[stated]
            normalised[metric] = f"{symbol}{number:g}" if stated else number
        return normalised

    @model_validator(mode="after")
    def _thresholds_in_their_metrics_direction(self) -> GateConfig:
        # A custom metric's direction is known once its class is (check_metric_directions
        # runs then); a built-in's, or one named under lower_is_better, is known now.
        for metric, threshold in self.thresholds.items():
            if threshold is not None and self.knows_direction(metric):
                try:
                    Bound.parse(metric, threshold, self.direction_of(metric))
                except ValueError as error:
                    # Raised on the model, this error would carry no setting: the
                    # context says which entry it is, so the message names its source.
                    raise PydanticCustomError(
                        "threshold_direction",
                        str(error),
                        {"setting": "thresholds", "entry": metric},
                    ) from None
        return self

    def knows_direction(self, metric: str) -> bool:
        """Whether the settings alone say which way ``metric``'s thresholds point."""
        return (
            metric in self.lower_is_better
            or metric in BUILTIN_FACTS
            or metric.removeprefix(RESERVED_PREFIX) in BUILTIN_FACTS
        )

    def direction_of(self, metric: str) -> Direction:
        """Which way every threshold of ``metric`` points (see :class:`Bounds`)."""
        return Bounds(lower_is_better=self.lower_is_better).direction_of(metric)

    @field_validator("tag_thresholds")
    @classmethod
    def _tag_thresholds_in_unit_interval(
        cls, value: dict[str, dict[str, float]]
    ) -> dict[str, dict[str, float]]:
        for tag, thresholds in value.items():
            for metric, threshold in thresholds.items():
                if not 0.0 <= threshold <= 1.0:
                    raise ValueError(
                        f"threshold for {metric!r} under tag {tag!r} is {threshold}; "
                        "expected a number from 0 to 1"
                    )
        return value

    @field_validator("min_coverage")
    @classmethod
    def _coverage_shares(cls, value: float | dict[str, float]) -> float | dict[str, float]:
        shares = value if isinstance(value, dict) else {"min_coverage": value}
        for name, share in shares.items():
            if not 0.0 <= share <= 1.0:
                where = "" if name == "min_coverage" else f" for {name!r}"
                raise ValueError(f"min_coverage{where} is {share}; expected a share from 0 to 1")
        return value

    def coverage_floor(self, metric: str) -> float:
        """The share of its cases ``metric`` must be scored on (``min_coverage``).

        >>> config = GateConfig(min_coverage={"default": 0.8, "context_recall": 0.5})
        >>> config.coverage_floor("context_recall"), config.coverage_floor("faithfulness")
        (0.5, 0.8)
        >>> GateConfig().coverage_floor("faithfulness")
        0.9
        """
        if not isinstance(self.min_coverage, dict):
            return self.min_coverage
        return self.min_coverage.get(metric, self.min_coverage.get("default", 0.9))

    def effective_thresholds(self) -> dict[str, float]:
        """Built-in defaults overlaid with the configured ones; ``null`` removes a default."""
        return {metric: bound.value for metric, bound in self.bounds().items()}

    def bounds(self) -> Bounds:
        """Every effective threshold, each in its metric's direction (minimum or maximum)."""
        merged: dict[str, float | str | None] = {**DEFAULT_THRESHOLDS, **self.thresholds}
        bounds: dict[str, Bound] = {}
        for metric, value in merged.items():
            if value is None:
                continue
            number, stated = read_threshold(metric, value)
            # The metric's direction; an operator speaks only for a metric whose direction
            # these settings cannot know (a custom metric checked when its class is loaded).
            if stated is None or self.knows_direction(metric):
                stated = self.direction_of(metric)
            bounds[metric] = Bound(number, stated)
        return Bounds(bounds, lower_is_better=self.lower_is_better)

    def rule_for(self, metric: str) -> Rule:
        """The decision rule of ``metric`` (its own, else the global one)."""
        return self.rules.get(metric, self.rule)


@dataclass(frozen=True)
class LoadedConfig:
    """The effective settings and a human description of where they came from.

    ``origins`` names, per setting given anywhere, the source whose value is in force
    (``command line``, ``environment``, a config file); defaults are not listed.
    """

    config: GateConfig
    source: str
    origins: Mapping[str, str] = field(default_factory=dict)
    #: One line per setting written in a spelling of earlier releases, with the new one.
    warnings: tuple[str, ...] = ()
    #: Where each setting and entry was given (``rag_gate.yaml:7``), for messages.
    sources: SettingSources = field(default_factory=SettingSources)

    def judge_choice(self) -> str:
        """How the judge setting was given, as the user wrote it (for the header and reports).

        >>> LoadedConfig(GateConfig(judge="offline"), "", {"judge": "environment"}).judge_choice()
        'RAG_GATE_JUDGE=offline'
        """
        judge = self.config.judge
        origin = self.origins.get("judge")
        if origin is None:
            return f"judge {judge} (default)"
        if origin == "command line":
            return f"--rag-gate-judge {judge}"
        if origin == "environment":
            return f"RAG_GATE_JUDGE={judge}"
        return f"judge: {judge} in {origin}"


ENV_KEYS: dict[str, str] = {
    "RAG_GATE_JUDGE": "judge",
    "RAG_GATE_MODEL": "model",
}


def load_config(
    *,
    rootdir: Path,
    cli: Mapping[str, Any],
    env: Mapping[str, str],
    config_path: str | None = None,
    assignments: Mapping[str, Any] | None = None,
    option_names: Mapping[str, str] | None = None,
    old_options: Collection[str] = (),
    assignment_names: Mapping[str, str] | None = None,
    shown_as: str | None = None,
) -> LoadedConfig:
    """Merge every source into one validated ``GateConfig``.

    ``cli`` holds only the options the user actually gave, under internal names;
    ``assignments`` the ``--rag-gate-set KEY=VALUE`` pairs (dotted sectioned keys), which
    win over them. Files are written in sections (``config_sections``); their flat
    spellings of earlier releases are read with a warning each, and one setting written
    both ways with two values is an error. Raises ``ConfigError`` naming the source and
    key at fault (``rag_gate.yaml:7``, ``--rag-gate-set judge.concurrency``), with the
    closest valid key for a misspelt one.

    >>> loaded = load_config(rootdir=Path("/nonexistent"), cli={"judge": "offline"}, env={})
    >>> loaded.config.judge, loaded.source
    ('offline', 'defaults + command line')

    Args:
        rootdir: Where ``rag_gate.yaml`` and ``pyproject.toml`` are read.
        cli: The settings of the dedicated options, by internal name.
        env: The environment.
        config_path: ``--rag-gate-config`` / ``RAG_GATE_CONFIG``.
        assignments: ``--rag-gate-set`` (and ``--rag-gate-output``), by dotted key.
        option_names: The option that gave each key of ``cli`` (``--rag-gate-threshold``).
        old_options: The keys of ``cli`` given by an option of earlier releases: the same
            setting given with ``--rag-gate-set`` must agree with it.
        assignment_names: How each key of ``assignments`` was given, when not with
            ``--rag-gate-set KEY`` (``--rag-gate-output otel``).
        shown_as: How messages name the ``config_path`` file (as the user wrote it).
    """
    files: list[tuple[str, dict[str, Any], dict[tuple[str, ...], int] | None]] = []
    pyproject = rootdir / "pyproject.toml"
    explicit_path = config_path or env.get("RAG_GATE_CONFIG")
    document = _read_toml(pyproject) if pyproject.is_file() else None
    check_config_names(rootdir, document, explicit_config=bool(explicit_path))
    if document is not None:
        table = _pyproject_table(pyproject, document)
        if table is not None:
            files.append((f"{pyproject.name} [tool.rag_gate]", table, None))
    if explicit_path:
        path = Path(explicit_path)
        if not path.is_absolute():
            path = rootdir / path
        if not path.is_file():
            raise ConfigError(f"Config file {shown_as or explicit_path} does not exist.")
        shown = shown_as or str(explicit_path)
        files.append((shown, *_read_yaml_mapping(path, shown)))
    else:
        default_yaml = rootdir / "rag_gate.yaml"
        if default_yaml.is_file():
            files.append((default_yaml.name, *_read_yaml_mapping(default_yaml, default_yaml.name)))

    warnings: list[str] = []
    layers: list[SourceLayer] = []
    for origin, written, lines in files:
        # Messages name a file's entries by line; the pyproject table's lines are unknown.
        shown = origin.split(" [", 1)[0] if lines is not None else origin
        describe = file_describer(shown, lines)
        translated = _translate(written, origin, line_namer(shown, lines))
        warnings.extend(translated.warnings)
        layers.append(SourceLayer(origin, translated.settings, describe))
    env_layer = {key: env[name] for name, key in ENV_KEYS.items() if env.get(name)}
    if env_layer:
        variables = {key: name for name, key in ENV_KEYS.items()}
        layers.append(
            SourceLayer("environment", env_layer, lambda setting, _path: variables[setting])
        )
    if cli:
        named = dict(option_names or {})
        layers.append(
            SourceLayer("command line", dict(cli), lambda setting, _path: named.get(setting, ""))
        )
    if assignments:
        assigned, assigned_warnings = _assignment_layer(assignments, assignment_names or {})
        layers.append(assigned)
        warnings.extend(assigned_warnings)
        if cli:
            _check_old_options(cli, old_options, option_names or {}, assigned)
    for layer in layers:
        _check_keys(layer.settings, layer.origin)
    sources = SettingSources(layers)
    merged, origins = layer_settings([(layer.origin, layer.settings) for layer in layers])
    try:
        config = GateConfig.model_validate(merged)
    except ValidationError as error:
        raise ConfigError(describe_validation_error(error, sources)) from None
    names = [layer.origin for layer in layers]
    return LoadedConfig(
        config=config,
        source=" + ".join(dict.fromkeys(["defaults", *names])),
        origins=origins,
        warnings=tuple(warnings),
        sources=sources,
    )


def _translate(
    written: Mapping[str, Any], origin: str, where: Callable[[tuple[str, ...]], str]
) -> Translated:
    try:
        return translate(written, origin, where)
    except SectionError as error:
        raise ConfigError(str(error)) from None


def _dotted(assignments: Mapping[str, Any]) -> dict[str, Any]:
    try:
        return dotted_layer(assignments)
    except SectionError as error:
        raise ConfigError(f"{error}.") from None


def _named(text: str) -> Callable[[tuple[str, ...]], str]:
    return lambda _path: text


def _assignment_layer(
    assignments: Mapping[str, Any], names: Mapping[str, str]
) -> tuple[SourceLayer, tuple[str, ...]]:
    """``--rag-gate-set`` as one layer that names, per entry, the key that set it."""
    # Each key translated alone says which setting (and entry) it gives; together they
    # are checked for one setting given in two spellings.
    given: list[tuple[str, str, Any]] = []
    for key, value in assignments.items():
        option = names.get(key, f"--rag-gate-set {key}")
        alone = _translate(_dotted({key: value}), "--rag-gate-set", _named(option))
        given += [(setting, option, entry) for setting, entry in alone.settings.items()]
    together = _translate(
        _dotted(assignments),
        "--rag-gate-set",
        lambda path: names.get(".".join(path), f"--rag-gate-set {'.'.join(path)}"),
    )

    def describe(setting: str, path: tuple[str, ...]) -> str:
        for name, given_by, entry in reversed(given):
            if name == setting and holds(entry, path):
                return str(given_by)
        return ""

    return SourceLayer("command line", together.settings, describe), together.warnings


def _check_old_options(
    cli: Mapping[str, Any],
    old_options: Collection[str],
    option_names: Mapping[str, str],
    assigned: SourceLayer,
) -> None:
    """An option of earlier releases and ``--rag-gate-set`` giving one setting must agree."""
    for key in old_options:
        if key in cli and key in assigned.settings and cli[key] != assigned.settings[key]:
            option = option_names.get(key, key)
            new = public_key(key)
            raise ConfigError(
                f"{option} and {new!r} ({assigned.name(key, ())}) are one setting with two "
                f"values: {cli[key]!r} and {assigned.settings[key]!r}; keep one, written "
                f"--rag-gate-set {new}=…"
            )


# Mapping-valued settings merge key by key across sources, so a threshold set in
# rag_gate.yaml does not drop the ones set in pyproject.toml.
_MERGED_MAPPINGS = frozenset(
    {"thresholds", "rules", "tag_thresholds", "prices", "latency", "min_agreement"}
)


def layer_settings(
    layers: Sequence[tuple[str, Mapping[str, Any]]],
) -> tuple[dict[str, Any], dict[str, str]]:
    """Settings from several sources, each over the ones before it, by one rule.

    A later source wins key by key; a mapping-valued setting (``thresholds``, ``rules``,
    ``tag_thresholds``, ``prices``, ``latency``, ``min_agreement``) merges entry by entry.
    The plugin layers config file < environment < command line; ``rag-gate`` layers a
    report's settings < ``--config`` < ``--threshold``.

    >>> merged, origins = layer_settings([
    ...     ("rag_gate.yaml", {"thresholds": {"faithfulness": 0.8}, "judge": "anthropic"}),
    ...     ("command line", {"thresholds": {"context_recall": 0.7}}),
    ... ])
    >>> merged["thresholds"], origins["thresholds"], origins["judge"]
    ({'faithfulness': 0.8, 'context_recall': 0.7}, 'command line', 'rag_gate.yaml')

    Args:
        layers: ``(source name, settings)`` pairs, lowest precedence first.

    Returns:
        The merged settings, and per key the last source that set it.
    """
    merged: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for origin, layer in layers:
        for key, value in layer.items():
            origins[key] = origin
            previous = merged.get(key)
            if key in _MERGED_MAPPINGS and isinstance(value, dict) and isinstance(previous, dict):
                merged[key] = {**previous, **value}
            else:
                merged[key] = value
    return merged, origins


def _check_keys(layer: Mapping[str, Any], origin: str) -> None:
    known = list(GateConfig.model_fields)
    for key in layer:
        if key not in GateConfig.model_fields:
            hint = did_you_mean(str(key), known) or f"; valid keys: {', '.join(known)}"
            raise ConfigError(f"Unknown setting {key!r} in {origin}{hint}")


def describe_validation_error(error: ValidationError, sources: SettingSources) -> str:
    """Every problem of ``error``, each naming its setting and where it was given.

    Args:
        error: The settings' validation error.
        sources: Where each setting (and entry) came from.
    """
    problems = []
    for detail in _without_union_members(error.errors()):
        loc = [str(part) for part in detail["loc"]]
        context = detail.get("ctx") or {}
        if not loc and "setting" in context:
            # A check across settings (a threshold against its metric's direction)
            # says which entry it is about.
            loc = [str(context["setting"]), str(context["entry"])]
        top = loc[0] if loc else ""
        origin = sources.where(top, loc[1:])
        # Name the setting as the user writes it (``judge.concurrency``, not ``concurrency``).
        location = ".".join([public_key(top), *loc[1:]]) if top else "settings"
        if detail["type"] == "threshold_direction":
            location = public_key(top)
        message = _shape_message(detail["type"], detail["msg"], detail.get("input"))
        if "expected_any" in detail:
            message = _union_message(top, detail["expected_any"], detail.get("input"))
        if detail["type"] == "literal_error" and isinstance(detail.get("input"), str):
            choices = re.findall(r"'([^']*)'", str(context.get("expected", "")))
            message += did_you_mean(detail["input"], choices)
        problems.append(f"setting {location!r} from {origin}: {message}")
    return "Invalid rag-gate configuration: " + "; ".join(problems) + "."


#: What a value of each pydantic type error's kind should have been, in the user's words.
_EXPECTED_KINDS = {
    "float_type": "a number",
    "float_parsing": "a number",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "string_type": "text",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "a list",
    "dict_type": "a mapping (key: value)",
}
#: Settings whose numbers have bounds a type error should already say.
_EXPECTED_NUMBERS = {"min_coverage": "a number between 0 and 1"}


def _is_union_member(part: object) -> bool:
    # Pydantic names the member of a union it tried in the location: ``float``,
    # ``dict[str,float]``, ``literal['auto']``, ``function-after[...]``.
    text = str(part)
    return text in ("float", "int", "str", "bool", "list", "dict", "none") or any(
        mark in text for mark in ("[", "function-")
    )


def _without_union_members(details: list[Any]) -> list[dict[str, Any]]:
    """Errors as the user wrote the value: one per place, not one per member of a union.

    ``min_coverage: {default: 0.5, faithfulness: null}`` fails both members of
    ``float | dict[str, float]``; only the member whose shape the value has (the mapping)
    says what is wrong. A place where every member failed outright says what each expected.
    """
    kept: dict[tuple[str, ...], dict[str, Any]] = {}
    unions: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for detail in details:
        loc = tuple(str(part) for part in detail["loc"])
        plain = tuple(part for part in loc if not _is_union_member(part))
        if plain == loc:
            kept[loc] = dict(detail)
        else:
            unions.setdefault(plain, []).append({**detail, "loc": plain})
    for place, members in unions.items():
        deeper = any(
            len(other) > len(place) and other[: len(place)] == place for other in [*unions, *kept]
        )
        if deeper:
            continue  # a member reached inside the value: its error is the one that matters
        if len(members) == 1 or any(m["type"] not in _EXPECTED_KINDS for m in members):
            kept.setdefault(place, members[0])
            continue
        expected = list(dict.fromkeys(_EXPECTED_KINDS[m["type"]] for m in members))
        kept[place] = {**members[0], "expected_any": expected}
    for place, detail in kept.items():
        if place not in unions or "expected_any" in detail or detail["type"] not in _EXPECTED_KINDS:
            continue
        kept[place] = {**detail, "expected_any": [_EXPECTED_KINDS[detail["type"]]]}
    return list(kept.values())


def _union_message(top: str, expected: list[str], given: Any) -> str:
    if expected == ["a number"] and top in _EXPECTED_NUMBERS:
        expected = [_EXPECTED_NUMBERS[top]]
    wanted = " or ".join(expected)
    if given is None:
        return f"expected {wanted}, got null; give {wanted}, or remove the key"
    return f"expected {wanted}, got {_shown(given)}"


def _shape_message(kind: str, message: str, given: Any) -> str:
    """Pydantic's message, saying what was given: ``expected a list, got the text 'x'``.

    Our own checks (``value_error``) already name the value; pydantic's type, choice and
    bound errors do not, and "Input should be a valid list" alone leaves the reader to
    guess which value was read and how to write it.
    """
    if kind == "value_error":
        return message.removeprefix("Value error, ")
    if kind == "threshold_direction":
        return message
    if kind == "list_type":
        if isinstance(given, str):
            return (
                f"expected a list, got the text {given[:60]!r}; write it as a list: [{given[:60]}]"
            )
        return f"expected a list, got {_shown(given)}"
    if kind == "dict_type":
        return f"expected a mapping (key: value), got {_shown(given)}"
    if given is None:
        return message
    return f"{message}, got {given!r}" if len(repr(given)) <= 60 else message


def _shown(value: Any) -> str:
    """A value as a message shows it: its kind and, when short, the value."""
    kinds = {bool: "the boolean", list: "a list", dict: "a mapping", str: "the text"}
    kind = next((name for cls, name in kinds.items() if isinstance(value, cls)), "")
    text = repr(value)
    if len(text) > 60:
        return kind or type(value).__name__
    return f"{kind} {text}".strip()


def _read_yaml_mapping(
    path: Path, shown: str | None = None
) -> tuple[dict[str, Any], dict[tuple[str, ...], int]]:
    """The file's settings, and the line of each of its keys; messages name it ``shown``."""
    import yaml  # deferred: the plugin stays import-light until --rag-gate is given

    from pytest_ragas_gate.yaml_keys import DuplicateKeyError, safe_load_unique

    try:
        text = path.read_text(encoding="utf-8-sig")
        data = safe_load_unique(text)
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"Config file {path} cannot be read: {error}.") from None
    except DuplicateKeyError as error:
        raise ConfigError(_duplicate_key_message(shown or str(path), text, error)) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise ConfigError(f"{where}: invalid YAML in the config file: {error}.") from None
    if data is None:
        return {}, {}
    if not isinstance(data, dict):
        raise ConfigError(
            f"Config file {path} must hold a mapping of settings, got {type(data).__name__}."
        )
    return {str(key): value for key, value in data.items()}, yaml_key_lines(text)


def _duplicate_key_message(path: str, text: str, error: Any) -> str:
    """Name a key written twice by its dotted path and both of its lines."""
    paths = [
        key_path
        for key_path, line in yaml_key_lines(text).items()
        if line == error.first_line and key_path[-1] == error.key
    ]
    key = ".".join(paths[0]) if paths else error.key
    return (
        f"{path}:{error.second_line}: {key!r} is written twice ({path}:{error.first_line} "
        f"and {path}:{error.second_line}); YAML would keep only the last: keep the one you "
        "mean and remove the other."
    )


def _read_toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path} cannot be read as TOML: {error}.") from None
    return data


def _pyproject_table(path: Path, data: Mapping[str, Any]) -> dict[str, Any] | None:
    table = data.get("tool", {}).get("rag_gate")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.rag_gate] must be a table.")
    return dict(table)
