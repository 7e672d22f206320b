"""The pytest options of earlier releases: still accepted, hidden from ``--help``, warned.

Each one is now a config key, set on the command line with ``--rag-gate-output KIND=PATH``
or ``--rag-gate-set KEY=VALUE``; the run prints the new spelling of every old one given.
They go in ``config_sections.REMOVED_IN``.

Standard library only (and the option parsers): pytest imports this on every run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..settings.options import parse_positive_int, parse_repeats

__all__ = ["ALIASES", "OptionAlias"]


@dataclass(frozen=True)
class OptionAlias:
    """An old option, the internal setting it gives, and how to write it now."""

    option: str
    key: str
    new_spelling: str
    kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def dest(self) -> str:
        """The option's attribute on ``config.option`` (as in earlier releases)."""
        return self.option.removeprefix("--").replace("-", "_")


ALIASES: tuple[OptionAlias, ...] = (
    OptionAlias("--rag-gate-model", "model", "--rag-gate-set judge.model=NAME"),
    OptionAlias("--rag-gate-junit", "junit", "--rag-gate-output junit=PATH"),
    OptionAlias("--rag-gate-report", "report", "--rag-gate-output json=PATH"),
    OptionAlias(
        "--rag-gate-report-details",
        "report_details",
        "--rag-gate-set outputs.details=core|full",
        {"choices": ("core", "full")},
    ),
    OptionAlias("--rag-gate-html", "html", "--rag-gate-output html=PATH"),
    OptionAlias("--rag-gate-history", "history", "--rag-gate-output history=PATH"),
    OptionAlias("--rag-gate-otel", "otel", "--rag-gate-output otel=PATH|URL"),
    OptionAlias(
        "--rag-gate-pairwise",
        "pairwise",
        "--rag-gate-set pairwise=true",
        {"action": "store_true"},
    ),
    OptionAlias("--rag-gate-labels", "labels", "--rag-gate-set trust.labels=PATH"),
    OptionAlias(
        "--rag-gate-cache",
        "cache",
        "--rag-gate-set cache.mode=readwrite|read|off",
        {"choices": ("readwrite", "read", "off")},
    ),
    OptionAlias("--rag-gate-cache-dir", "cache_dir", "--rag-gate-set cache.dir=PATH"),
    OptionAlias(
        "--rag-gate-concurrency",
        "concurrency",
        "--rag-gate-set judge.concurrency=N",
        {"type": parse_positive_int},
    ),
    OptionAlias(
        "--rag-gate-repeats", "repeats", "--rag-gate-set judge.repeats=K", {"type": parse_repeats}
    ),
    OptionAlias(
        "--rag-gate-batch", "batch", "--rag-gate-set judge.batch=true", {"action": "store_true"}
    ),
    OptionAlias("--rag-gate-target", "target", "--rag-gate-set live.target=MODULE:FUNCTION"),
    OptionAlias(
        "--rag-gate-oracle",
        "oracle",
        "--rag-gate-set live.oracle=only|both",
        {"nargs": "?", "const": "only", "choices": ("off", "only", "both")},
    ),
    OptionAlias("--rag-gate-corpus", "corpus", "--rag-gate-set live.corpus=PATH"),
)
