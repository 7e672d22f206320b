"""pytest-html rows for golden cases: their scores, and a link to the case in our page.

Registered by the plugin only when pytest-html is installed and the gate is on, so these
hooks always have pytest-html's hook specifications to match. The summary section shows the
gate's verdict, table and recommendation (:mod:`pytest_ragas_gate.reports.html_summary`). A
golden-case row gets a "RAG scores" cell with each metric's score (a missed threshold marked)
and, when ``outputs.html`` writes our page, a link that opens the case's panel there.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from ..gate.case_verdicts import case_verdict
from ..gate.verdict import GateVerdict
from ..reports.anchors import case_anchor
from ..reports.html_summary import verdict_prefix, verdict_summary
from ..scoring.results import CaseResult
from ..settings.bounds import Bound
from .items import attached_result

__all__ = ["PytestHtmlRows"]

#: Where the cell goes: after pytest-html's result and test-name columns.
COLUMN = 2


class PytestHtmlRows:
    """pytest-html's table hooks for golden cases.

    Args:
        config: The pytest config (its ``htmlpath`` is where pytest-html writes).
        page: Our HTML report, or None when none is written.
        bounds: The gate's thresholds, to mark the scores that miss theirs.
    """

    def __init__(
        self,
        config: Any,
        page: Path | None,
        bounds: Mapping[str, Bound],
        verdict: Callable[[], GateVerdict | None] = lambda: None,
    ) -> None:
        self.config = config
        self.page = page
        self.bounds = bounds
        self.verdict = verdict

    def pytest_html_results_summary(
        self, prefix: list[str], summary: list[str], postfix: list[str], session: Any
    ) -> None:
        """Show the gate's verdict above pytest-html's counts, and its table below them."""
        verdict = self.verdict()
        if verdict is None:
            return
        prefix.append(verdict_prefix(verdict))
        summary.extend(verdict_summary(verdict))

    def _link(self, result: CaseResult) -> str | None:
        """The link from pytest-html's file to the case's panel in our page."""
        if self.page is None:
            return None
        htmlpath = getattr(self.config.option, "htmlpath", None)
        base = Path(self.config.invocation_params.dir)
        directory = (base / htmlpath).parent if htmlpath else base
        relative = os.path.relpath(self.page, directory).replace(os.sep, "/")
        return f"{relative}#{case_anchor(result.key)}"

    def pytest_html_results_table_header(self, cells: list[str]) -> None:
        """Add the "RAG scores" column."""
        cells.insert(COLUMN, '<th class="rag-scores">RAG scores</th>')

    def pytest_html_results_table_row(self, report: Any, cells: list[str]) -> None:
        """Fill the column: a golden case's scores and link, empty for other tests."""
        result = attached_result(report)
        cells.insert(COLUMN, str(self.cell(result)))

    def cell(self, result: CaseResult | None) -> Markup:
        """The cell of one row, escaped: case ids and metric names are user text."""
        if result is None:
            return Markup('<td class="rag-scores"></td>')
        missed = set(case_verdict(result, self.bounds).missed_metrics)
        parts = []
        if result.error is not None:
            parts.append(Markup("<strong>error</strong>"))
        for metric, score in result.scores.items():
            text = "n/a" if score is None else f"{score:.2f}"
            if score is not None and metric in missed:
                parts.append(Markup("<strong>{} {}</strong>").format(metric, text))
            else:
                parts.append(escape(f"{metric} {text}"))
        for metric in result.errors:
            parts.append(Markup("<strong>{} error</strong>").format(metric))
        link = self._link(result)
        if link is not None:
            parts.append(Markup('<a href="{}">case panel</a>').format(link))
        return Markup('<td class="rag-scores">{}</td>').format(Markup(" · ").join(parts))
