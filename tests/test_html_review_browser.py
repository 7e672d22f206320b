"""What a reviewer meets first on the HTML report, in headless Chromium at 1400×900 and 390×844.

A run its judge could not decide must never read as a quality failure; the page must read
as one document with a header that stays in view; the case panel steps through the
filtered cases; a phone shows the verdict, the baseline and the first failing cases
without cutting a word.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gate_runs import case, cases, write  # noqa: E402
from test_html_browser import (  # noqa: E402
    console_problems,
    gate_page,
    panel_hidden,
    phone_browser,
    rows,
    start_browser,
    wait_for,
)

from pytest_ragas_gate import cli  # noqa: E402
from pytest_ragas_gate.scoring.results import CaseResult  # noqa: E402
from pytest_ragas_gate.settings.config import GateConfig  # noqa: E402

pytestmark = pytest.mark.slow

SIZES = {"laptop": (1400, 900), "phone": (390, 844)}

CACHE_MISS = (
    "cache miss in read mode for claims (judge anthropic, model claude-test, key 0123456789ab…, "
    "cache .rag_gate_cache) — run once with a key in readwrite mode to record this request"
)


def browser_of(size: str) -> Any:
    if size == "phone":
        return phone_browser()
    width, height = SIZES[size]
    driver = start_browser(width=width, height=height)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    return driver


@pytest.fixture(params=list(SIZES), scope="module")
def driver(request: pytest.FixtureRequest) -> Iterator[Any]:
    browser = browser_of(request.param)
    browser.size_name = request.param
    yield browser
    browser.quit()


def html_of(report: Path) -> Path:
    page = report.with_suffix(".html")
    assert cli.main(["html", str(report), "-o", str(page)]) == 0
    return page


def shown(driver: Any, page: Path) -> Any:
    driver.get("about:blank")
    console_problems(driver)
    driver.get(page.as_uri())
    wait_for(lambda: rows(driver))
    return driver


def cache_missed(case_id: str, line: int) -> CaseResult:
    result = case(case_id, None, None, line=line)
    result.scores = {}
    result.errors = {"faithfulness": CACHE_MISS, "context_recall": CACHE_MISS}
    result.judge_errors = ["faithfulness", "context_recall"]
    return result


@pytest.fixture(scope="module")
def outage_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every case a miss of the read-only judge cache: a run that decided nothing."""
    results = [cache_missed(f"c{index}", index + 1) for index in range(6)]
    timed_out = case("slow", None, None, line=7)
    timed_out.scores = {}
    timed_out.errors = {"faithfulness": "the request timed out (tried 3 times)"}
    timed_out.judge_errors = ["faithfulness"]
    report = write(tmp_path_factory.mktemp("outage") / "report.json", [*results, timed_out])
    return html_of(report)


# --- 2. an error looks like an error -------------------------------------------------------


def test_an_outage_shows_its_cause_and_remedy_and_no_quality_verdict(
    driver: Any, outage_page: Path
) -> None:
    shown(driver, outage_page)

    header = driver.find_element("id", "verdict").text
    assert "RAG gate: ERROR" in header
    outage = driver.find_element("css selector", "#verdict .outage").text
    assert "read-only judge cache had no reply for 6 case(s)" in outage
    assert "refresh the cache on the default branch" in outage and "readwrite" in outage
    assert "run the gate again once the judge answers" not in header
    badges = [badge.text for badge in driver.find_elements("css selector", ".card .badge")]
    assert badges and "FAIL" not in badges and "PASS" not in badges
    assert set(badges) == {"not judged"}
    assert not driver.find_elements("css selector", "#verdict .hints")
    assert not driver.find_elements("id", "what-to-fix")
    assert "–––" not in driver.find_element("id", "metrics").text
    statuses = [row.find_element("css selector", "td .status").text.strip() for row in rows(driver)]
    assert statuses.count("cache miss") == 6 and statuses.count("timeout") == 1
    assert console_problems(driver) == []


def test_a_spent_budget_says_to_raise_the_budget(driver: Any, tmp_path: Path) -> None:
    results = []
    for index in range(3):
        result = case(f"b{index}", None, None, line=index + 1)
        result.scores = {}
        result.error = "The judge cost budget is spent: max_cost=$0.0100 and $0.0100 was spent"
        result.budget_spent = True
        results.append(result)
    shown(driver, html_of(write(tmp_path / "report.json", results)))

    outage = driver.find_element("css selector", "#verdict .outage").text
    assert "budget ran out" in outage and "raise max_cost" in outage
    statuses = {row.find_element("css selector", "td .status").text for row in rows(driver)}
    assert statuses == {"budget"}
    assert panel_hidden(driver)


# --- 6. one reading flow ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def failing_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 cases, 16 below the faithfulness threshold, compared with a baseline of 0.95 each."""
    directory = tmp_path_factory.mktemp("failing")
    scores = [0.2 + 0.04 * index if index < 16 else 0.95 for index in range(40)]
    base = write(directory / "base.json", cases([0.95] * 40))
    run = cases(scores)
    run[0].human = {"faithfulness": 1.0}  # the judge says 0.20: they disagree
    run[1].human = {"faithfulness": 0.0}  # the judge says 0.24: they agree
    run[2].details = {
        "context_recall": [
            {"statement": "It opened in 1889.", "attributed": True},
            {"statement": "It was built for the World's Fair.", "attributed": True},
        ],
        "answer_correctness": [
            {"statement": "It opened in 1889.", "classification": "TP", "reason": "said"},
            {"statement": "It was built for the World's Fair", "classification": "FN"},
        ],
    }
    raw = write(directory / "raw.json", run)
    report = directory / "report.json"
    cli.main(["regate", str(raw), "--baseline", str(base), "-o", str(report)])
    page = directory / "report.html"
    assert cli.main(["html", str(report), "-o", str(page), "--baseline", str(base)]) == 0
    return page


def panel_title(driver: Any) -> str:
    # Read in the page in one step: the panel re-renders on each key, so an element found
    # first and read after may already have been replaced.
    return str(driver.execute_script("return document.getElementById('panel-title').innerText"))


def test_the_page_scrolls_as_one_document_with_the_table_header_in_view(
    driver: Any, failing_page: Path
) -> None:
    shown(driver, failing_page)
    wrap_scrolls_itself = driver.execute_script(
        "var wrap = document.querySelector('.table-wrap');"
        "return wrap.scrollHeight > wrap.clientHeight + 1;"
    )
    assert not wrap_scrolls_itself  # no inner box traps the mouse wheel
    driver.execute_script(
        "var table = document.getElementById('case-table');"
        "window.scrollTo(0, table.getBoundingClientRect().top + window.scrollY + 600);"
    )
    if driver.size_name == "phone":
        return  # a phone shows each case as a card, with no header row

    def head_top() -> float:
        return float(
            driver.execute_script(
                "return document.querySelector('#case-head th').getBoundingClientRect().top"
            )
        )

    wait_for(lambda: abs(head_top()) <= 1.5)
    assert abs(head_top()) <= 1.5, head_top()


def test_the_case_panel_steps_through_the_filtered_cases(driver: Any, failing_page: Path) -> None:
    shown(driver, failing_page)
    Select = pytest.importorskip("selenium.webdriver.support.select").Select
    Select(driver.find_element("id", "filter-status")).select_by_value("problem")
    assert wait_for(lambda: len(rows(driver)) == 16)
    first, second = [
        row.find_element("css selector", "a.case-link").text for row in rows(driver)[:2]
    ]
    driver.execute_script("document.querySelector('#case-rows a.case-link').click()")
    assert wait_for(lambda: not panel_hidden(driver))
    assert panel_title(driver) == first
    assert driver.find_element("id", "panel-position").text == "1 of 16 shown"
    assert not driver.find_element("id", "panel-prev").is_enabled()

    driver.find_element("id", "panel-next").click()
    assert wait_for(lambda: panel_title(driver) == second)
    driver.switch_to.active_element.send_keys("k")
    assert wait_for(lambda: panel_title(driver) == first)
    for _ in range(15):
        driver.switch_to.active_element.send_keys("j")
    assert wait_for(lambda: driver.find_element("id", "panel-position").text == "16 of 16 shown")
    assert not driver.find_element("id", "panel-next").is_enabled()
    assert console_problems(driver) == []


# --- 5. a phone is a first-class screen -----------------------------------------------------

#: Words split across two lines inside the given elements (a Range per word, one box each).
SPLIT_WORDS = """
var split = [];
document.querySelectorAll(arguments[0]).forEach(function (node) {
  var walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
  var text;
  while ((text = walker.nextNode())) {
    var pattern = /[^\\s_]+/g, match;
    while ((match = pattern.exec(text.data))) {
      var range = document.createRange();
      range.setStart(text, match.index);
      range.setEnd(text, match.index + match[0].length);
      var tops = Array.from(range.getClientRects(), function (r) { return Math.round(r.top); });
      var lines = new Set(tops);
      if (lines.size > 1) { split.push(match[0]); }
    }
  }
});
return split;
"""


def test_on_a_phone_the_verdict_baseline_and_first_failing_cases_come_first(
    driver: Any, failing_page: Path
) -> None:
    shown(driver, failing_page)
    width, height = SIZES[driver.size_name]
    assert driver.execute_script("return document.documentElement.scrollWidth") <= width
    assert driver.execute_script(SPLIT_WORDS, ".card h3, #baseline li, #case-rows td") == []
    sort = driver.find_element("id", "sort-select")
    if driver.size_name != "phone":
        assert not sort.is_displayed()  # the header row sorts on a wide screen
        return
    card_heights = driver.execute_script(
        "return Array.from(document.querySelectorAll('#metrics .card'), "
        "function (card) { return card.getBoundingClientRect().height; });"
    )
    assert max(card_heights) < 60  # one line per metric
    first_row_bottom = driver.execute_script(
        "return document.querySelector('#case-rows tr').getBoundingClientRect().bottom + scrollY"
    )
    assert first_row_bottom < 2 * height

    Select = pytest.importorskip("selenium.webdriver.support.select").Select
    Select(sort).select_by_visible_text("faithfulness")
    driver.find_element("id", "sort-reverse").click()
    first = rows(driver)[0].find_element("css selector", "td.score").text
    assert first == "0.950"


def test_on_a_phone_the_case_panel_names_every_figure_and_breaks_no_word(
    driver: Any, failing_page: Path
) -> None:
    shown(driver, failing_page)
    driver.execute_script("document.querySelector('#case-rows a.case-link').click()")
    assert wait_for(lambda: not panel_hidden(driver))
    room = driver.execute_script(
        "var table = document.querySelector('#panel-content table.scores');"
        "return table.scrollWidth <= table.parentNode.clientWidth;"
    )
    assert room
    assert driver.execute_script(SPLIT_WORDS, "#panel-content table.scores th") == []
    if driver.size_name == "phone":
        labels = driver.execute_script(
            "return Array.from(document.querySelectorAll("
            "'#panel-content table.scores tbody td[data-label]'), function (cell) {"
            " return getComputedStyle(cell, '::before').content; });"
        )
        assert '"human label: "' in labels and '"vs baseline: "' in labels


# --- 7. the case panel ----------------------------------------------------------------------


def test_a_judge_human_disagreement_is_highlighted(driver: Any, failing_page: Path) -> None:
    shown(driver, failing_page)
    driver.get(failing_page.as_uri() + "#case=golden.jsonl%3A%3Ac0")
    assert wait_for(lambda: not panel_hidden(driver))
    row = driver.find_element("css selector", '#panel-content tr[data-metric="faithfulness"]')
    assert "disagree" in row.get_attribute("class")
    assert "judge and human disagree" in row.text
    driver.get(failing_page.as_uri() + "#case=golden.jsonl%3A%3Ac1")
    assert wait_for(lambda: panel_title(driver) == "c1")
    row = driver.find_element("css selector", '#panel-content tr[data-metric="faithfulness"]')
    assert "disagree" not in (row.get_attribute("class") or "")


def test_reference_statements_the_answer_omitted_are_marked(
    driver: Any, failing_page: Path
) -> None:
    shown(driver, failing_page)
    driver.get(failing_page.as_uri() + "#case=golden.jsonl%3A%3Ac2")
    assert wait_for(lambda: not panel_hidden(driver))
    section = next(
        part
        for part in driver.find_elements("css selector", "#panel-content section.panel-section")
        if part.find_element("css selector", "h3").text == "Reference statements"
    )
    items = section.find_elements("css selector", "ol.items li")
    assert [item.get_attribute("data-omitted") for item in items] == [None, "true"]
    label = items[1].find_element("css selector", ".label").text.lower()
    assert label == "in the contexts · omitted by the answer"
    assert "item-good" not in (items[1].get_attribute("class") or "")


# --- charts ---------------------------------------------------------------------------------


def test_the_mean_marker_never_sits_on_the_threshold_label(driver: Any, failing_page: Path) -> None:
    shown(driver, failing_page)
    if driver.size_name == "phone":
        driver.find_element("id", "cards-toggle").click()
    overlaps = driver.execute_script(
        "return Array.from(document.querySelectorAll('#metrics svg.chart'), function (chart) {"
        " var mark = chart.querySelector('.mean-mark'), label = chart.querySelector("
        "'.threshold-label');"
        " if (!mark || !label) { return false; }"
        " var a = mark.getBoundingClientRect(), b = label.getBoundingClientRect();"
        " return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;"
        "});"
    )
    assert overlaps and not any(overlaps)


def test_a_malformed_row_keeps_every_field_it_had(driver: Any, tmp_path: Path) -> None:
    row = {
        "id": "bad-human",
        "question": "When was the Eiffel Tower completed?",
        "answer": "It was completed in 1889.",
        "contexts": ["The Eiffel Tower was completed in 1889."],
        "tags": ["landmarks"],
        "thresholds": {"faithfulness": "high"},
    }
    page = gate_page(tmp_path, [row])
    shown(driver, page)
    driver.execute_script("document.querySelector('#case-rows a.case-link').click()")
    assert wait_for(lambda: not panel_hidden(driver))
    panel = driver.find_element("id", "panel-content").text
    assert "field 'thresholds'" in panel
    assert "When was the Eiffel Tower completed?" in panel
    assert "It was completed in 1889." in panel
    assert "The Eiffel Tower was completed in 1889." in panel
    assert "landmarks" in panel


def test_empty_histogram_bars_take_no_focus(driver: Any, failing_page: Path) -> None:
    shown(driver, failing_page)
    empty = driver.execute_script(
        "return Array.from(document.querySelectorAll('#metrics rect[data-count=\"0\"]'),"
        " function (bar) { return [bar.getAttribute('tabindex'), bar.getAttribute('role')]; });"
    )
    assert empty and all(pair == [None, None] for pair in empty)


# --- 3. gated metrics first -----------------------------------------------------------------


def test_the_worst_delta_column_reads_gated_metrics_only(driver: Any, tmp_path: Path) -> None:
    config = GateConfig(
        judge="anthropic", bootstrap_resamples=200, thresholds={"context_recall": None}
    )
    base = write(tmp_path / "base.json", cases([0.95, 0.95]), config=config)
    run = cases([0.9, 0.95])
    run[0].scores["context_recall"] = 0.1  # a report-only metric's large drop
    raw = write(tmp_path / "raw.json", run, config=config)
    report = tmp_path / "report.json"
    cli.main(["regate", str(raw), "--baseline", str(base), "-o", str(report)])
    page = tmp_path / "report.html"
    assert cli.main(["html", str(report), "-o", str(page), "--baseline", str(base)]) == 0
    shown(driver, page)

    cell = driver.execute_script(
        "var heads = Array.from(document.querySelectorAll('#case-head th'), function (th) {"
        " return th.textContent; });"
        "var column = heads.indexOf('worst gated Δ');"
        "var row = document.querySelector('#case-rows tr[data-key=\"golden.jsonl::c0\"]');"
        "return column < 0 ? null : [row.children[column].textContent, row.children[column].title];"
    )
    assert cell == ["−0.050", "faithfulness"]  # not context_recall's −0.800
