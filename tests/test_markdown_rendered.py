"""The step summary and the pull-request comment as GitHub renders them.

Both are rendered with markdown-it-py (CommonMark with GitHub's tables and strikethrough),
then read as a browser would: every table keeps its columns whatever the case text holds,
the hidden marker stays hidden, and the first thing a reader meets is the verdict.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from gate_runs import case, cases, write

from pytest_ragas_gate import cli
from pytest_ragas_gate.reports.json_report import load_report
from pytest_ragas_gate.reports.pr_comment import MARKER, comment_body
from pytest_ragas_gate.settings.config import GateConfig

markdown_it = pytest.importorskip("markdown_it", reason="pip install -e '.[dev]'")


def github_html(markdown: str) -> str:
    """Markdown as GitHub renders it: CommonMark, tables, strikethrough, inline HTML kept."""
    renderer = markdown_it.MarkdownIt("commonmark", {"html": True})
    return str(renderer.enable(["table", "strikethrough"]).render(markdown))


class Rendered(HTMLParser):
    """The tables (rows of cell texts), the headings and the visible text of a page."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self.headings: list[str] = []
        self.text: list[str] = []
        self.tags: set[str] = set()
        self._cell: list[str] | None = None
        self._heading: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag in ("h1", "h2", "h3"):
            self._heading = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag in ("h1", "h2", "h3") and self._heading is not None:
            self.headings.append("".join(self._heading).strip())
            self._heading = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)
        if self._heading is not None:
            self._heading.append(data)


@pytest.fixture
def failing_report(tmp_path: Path) -> Path:
    """A run below its faithfulness threshold whose case ids carry table breakers."""
    run = cases([0.95, 0.2, 0.3, 0.95])
    run[1].id = "pipe | in id"
    run[2].id = "back`tick` and <b>tag</b>"
    base = write(tmp_path / "base.json", cases([0.95] * 4))
    raw = write(tmp_path / "raw.json", run)
    report = tmp_path / "report.json"
    cli.main(["regate", str(raw), "--baseline", str(base), "-o", str(report)])
    return report


def assert_tables_keep_their_columns(page: Rendered) -> None:
    assert page.tables
    for table in page.tables:
        widths = {len(row) for row in table}
        assert len(widths) == 1, table


def test_the_step_summary_renders_as_github_shows_it(
    failing_report: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    cli.main(["summary", str(failing_report)])
    markdown = capsys.readouterr().out
    page = Rendered(github_html(markdown))

    assert page.headings[0] == "❌ RAG gate: FAILED"
    assert_tables_keep_their_columns(page)
    cells = [cell for table in page.tables for row in table for cell in row]
    assert any("pipe | in id" in cell for cell in cells)
    assert "b" not in page.tags  # case text is never markup
    assert "<b>tag</b>" in "".join(page.text)


def test_the_pr_comment_renders_with_its_marker_hidden(failing_report: Path) -> None:
    body = comment_body(load_report(failing_report))
    html = github_html(body)
    page = Rendered(html)

    assert html.startswith(MARKER)  # an HTML comment: GitHub shows nothing of it
    assert MARKER not in "".join(page.text)
    assert page.headings[0] == "❌ RAG gate: FAILED"
    assert_tables_keep_their_columns(page)
    cells = [cell for table in page.tables for row in table for cell in row]
    assert any("pipe | in id" in cell for cell in cells)


def test_an_outage_renders_as_error_with_its_remedy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missed = case("c0", None, None)
    missed.scores = {}
    miss = "cache miss in read mode for claims (judge anthropic)"
    missed.errors = {"faithfulness": miss, "context_recall": miss}
    missed.judge_errors = ["faithfulness", "context_recall"]
    report = write(tmp_path / "report.json", [missed])
    capsys.readouterr()
    cli.main(["summary", str(report)])
    summary = Rendered(github_html(capsys.readouterr().out))
    assert summary.headings[0] == "🛑 RAG gate: ERROR"
    assert {row[-1] for row in summary.tables[0][1:]} == {"⚪ not judged"}
    assert "Hints" not in summary.headings
    body = comment_body(load_report(report))
    page = Rendered(github_html(body))

    assert page.headings[0] == "🛑 RAG gate: ERROR"
    # Nothing was judged: no metric reads as failed.
    verdicts = [row[-1] for row in page.tables[0][1:]]
    assert verdicts and set(verdicts) == {"⚪ not judged"}
    text = "".join(page.text)
    assert "refresh the cache on the default branch" in text
    assert "once the judge answers" not in text


@pytest.fixture
def lowered_report(tmp_path: Path) -> Path:
    """A passing run whose change lowered the faithfulness threshold from 0.90 to 0.85."""
    path = write(tmp_path / "report.json", cases([0.88, 0.87, 0.9]))
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw.setdefault("run", {})["gate_changes"] = {
        "base_ref": "origin/main",
        "changes": [
            {
                "kind": "config",
                "path": "rag_gate.yaml",
                "detail": "threshold faithfulness 0.90 → 0.85",
            }
        ],
    }
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def before_first_table(markdown: str) -> str:
    return markdown.split("\n|", 1)[0]


def test_the_summary_leads_with_the_decision_and_the_change_to_the_gate(
    lowered_report: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    cli.main(["summary", str(lowered_report)])
    markdown = capsys.readouterr().out
    lead = before_first_table(markdown)

    assert lead.startswith("## ✅ RAG gate: PASSED\n\n**Safe to deploy")
    assert "This change touches the gate itself" in lead
    assert "threshold faithfulness 0.90 → 0.85" in lead
    page = Rendered(github_html(markdown))
    [row] = [row for row in page.tables[0] if row[0] == "faithfulness"]
    assert row[-1] == "✅ pass · ⚠️ threshold 0.90 → 0.85 in this change"


def test_the_comment_leads_with_the_decision_and_the_change_to_the_gate(
    lowered_report: Path,
) -> None:
    body = comment_body(load_report(lowered_report))
    lead = before_first_table(body)

    assert lead.splitlines()[1] == "## ✅ RAG gate: PASSED"
    assert lead.splitlines()[3].startswith("**Safe to deploy")
    assert "This change touches the gate itself" in lead
    page = Rendered(github_html(body))
    [row] = [row for row in page.tables[0] if row[0] == "faithfulness"]
    assert row[-1] == "✅ pass · ⚠️ threshold 0.90 → 0.85 in this change"


def test_the_comment_lists_gated_drops_first_and_folds_the_others(tmp_path: Path) -> None:
    config = GateConfig(
        judge="anthropic", bootstrap_resamples=200, thresholds={"context_recall": None}
    )
    base = write(tmp_path / "base.json", cases([0.95] * 12), config=config)
    run = cases([0.9] * 12)
    for result in run:
        result.scores["context_recall"] = 0.1  # report-only drops, larger than any gated one
    raw = write(tmp_path / "raw.json", run, config=config)
    report = tmp_path / "report.json"
    cli.main(["regate", str(raw), "--baseline", str(base), "-o", str(report)])
    body = comment_body(load_report(report), baseline=load_report(base).results)
    page = Rendered(github_html(body))

    section = body.split("### Worst regressed cases", 1)[1]
    first_table = section.split("<details>", 1)[0]
    assert "`faithfulness`" in first_table and "`context_recall`" not in first_table
    assert "12 drops of metrics reported, not gated" in section
    gated_rows = [row for table in page.tables for row in table if row[1:2] == ["faithfulness"]]
    assert len(gated_rows) == 10


def test_the_summary_lists_gated_failing_cases_first_and_folds_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = GateConfig(
        judge="anthropic",
        bootstrap_resamples=200,
        thresholds={"context_recall": None},
        html="rag-report.html",
    )
    run = cases([0.5 - index / 100 for index in range(24)])
    for result in run[:3]:
        # Errors of a metric only reported: they rank worst of all, yet decide nothing.
        result.scores["context_recall"] = None
        result.errors = {"context_recall": "judge timed out"}
        result.scores["faithfulness"] = 0.99
    report = write(tmp_path / "report.json", run, config=config)
    capsys.readouterr()
    cli.main(["summary", str(report)])
    markdown = capsys.readouterr().out
    section = markdown.split("### Failing cases", 1)[1]
    first_table = section.split("<details>", 1)[0]

    assert "`faithfulness` 0.27 < " in first_table  # the furthest below, first
    assert "context_recall" not in first_table
    assert "… and 1 more in the HTML report." in first_table
    assert "3 failing cases of metrics reported, not gated" in section
    page = Rendered(github_html(markdown))
    folded = [row for table in page.tables for row in table if "context_recall" in row[-1]]
    assert len(folded) == 3
    assert_tables_keep_their_columns(page)


def test_a_lone_backtick_in_a_case_id_does_not_let_its_text_become_markup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = cases([0.95, 0.2, 0.95])
    run[1].id = "one`tick <b>bold</b>"
    # An error quotes what the row held: text, never markup.
    run[2].error = "field 'answer': expected a string, got '<b>loud</b>'"
    raw = write(tmp_path / "raw.json", run)
    capsys.readouterr()
    cli.main(["summary", str(raw)])
    page = Rendered(github_html(capsys.readouterr().out))

    assert "b" not in page.tags
    assert_tables_keep_their_columns(page)
    cells = [cell for table in page.tables for row in table for cell in row]
    assert "one`tick <b>bold</b>" in cells
    assert any("got '<b>loud</b>'" in cell for cell in cells)
