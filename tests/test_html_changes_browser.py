"""The HTML report across runs, in headless Chromium: trends, what changed, URL state, phones.

Two gate runs with the offline judge: a baseline where every answer is right, then a run
where one answer drifted to a wrong year, compared with it and recorded in a history file
that already holds an older run (and a damaged line). The page of the second run must show
each gated metric's trend, the drifted case's old and new answer side by side with the
claim that broke, filter to what changed, keep its filters in the URL, and read on a phone.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gate_runs import GOOD, HALLUCINATED  # noqa: E402
from test_html_browser import (  # noqa: E402
    colours,
    console_problems,
    gate_page,
    open_case,
    panel_hidden,
    phone_browser,
    row_ids,
    rows,
    start_browser,
    wait_for,
)

pytestmark = pytest.mark.slow

RIGHT_YEAR = {**HALLUCINATED, "answer": "The Eiffel Tower was completed in 1889."}

BASE_ROWS: list[dict[str, Any]] = [
    {**GOOD, "id": "founders", "human": {"faithfulness": 1}},
    {**GOOD, "id": "founders-again", "human": {"faithfulness": 1}},
    {**RIGHT_YEAR, "id": "tower", "human": {"faithfulness": 1}},
    {**RIGHT_YEAR, "id": "tower-again", "human": {"faithfulness": 0}},
]

NEW_ROWS: list[dict[str, Any]] = [
    *BASE_ROWS[:2],
    {**HALLUCINATED, "id": "tower", "human": {"faithfulness": 0}},
    BASE_ROWS[3],
    {**GOOD, "id": "brand-new"},
]

OLDER_RUN = {
    "rag_gate_history": 1,
    "time": "2026-01-01T00:00:00+00:00",
    "commit": "0" * 40,
    "verdict": "passed",
    # Gated at 0.90 then; today's runs are gated at 0.85.
    "metrics": {"faithfulness": {"mean": 0.95, "n": 4, "threshold": 0.90, "passed": True}},
}


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("changes")
    (directory / "history.jsonl").write_text(
        json.dumps(OLDER_RUN) + "\n{damaged\n", encoding="utf-8"
    )
    options = ("--rag-gate-history=history.jsonl",)
    gate_page(directory, BASE_ROWS, *options, "--rag-gate-report=base.json")
    assert (directory / "base.json").is_file()
    return gate_page(directory, NEW_ROWS, *options, "--rag-gate-baseline=base.json")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    driver = start_browser(width=1400, height=900)
    yield driver
    driver.quit()


@pytest.fixture
def opened(browser: Any, page: Path) -> Any:
    browser.get("about:blank")
    console_problems(browser)
    browser.get(page.as_uri())
    wait_for(lambda: rows(browser))
    return browser


def test_each_gated_metric_draws_its_trend_with_the_threshold_and_this_run_marked(
    opened: Any, tmp_path: Path
) -> None:
    card = opened.find_element("css selector", '#metrics .card[data-metric="faithfulness"]')
    chart = card.find_element("css selector", "svg.trend-chart")
    points = chart.find_elements("css selector", "circle.trend-point")

    assert len(points) == 3  # the older run, the baseline run, this run
    assert "trend-current" in (points[-1].get_attribute("class") or "")
    assert "this run" in points[-1].find_element("css selector", "title").get_attribute(
        "textContent"
    )
    assert chart.find_element("css selector", "text.threshold-label").text == "≥0.85"
    # Each run is drawn against its own threshold: a step from 0.90 down to 0.85.
    steps = chart.find_element("css selector", "path.threshold-line").get_attribute("d")
    assert steps.count("V") == 1
    assert "it changed" in chart.find_element(
        "css selector", "path.threshold-line title"
    ).get_attribute("textContent")
    mean = card.find_element("css selector", ".mean").text
    label = chart.find_element("css selector", "text.value-label").text
    assert abs(float(label) - float(mean)) <= 0.005
    assert "last 3 runs" in card.find_element("css selector", "figcaption").text
    png = tmp_path / "trend.png"
    card.screenshot(str(png))
    assert colours(png.read_bytes()) > 10
    assert console_problems(opened) == []


def test_a_drifted_case_shows_old_and_new_answer_side_by_side_and_the_claim_that_broke(
    opened: Any, tmp_path: Path
) -> None:
    panel = open_case(opened, "tower")
    changes = panel.find_element("id", "panel-changes")

    sides = changes.find_elements("css selector", ".diff-side")
    assert [side.find_element("css selector", "h4").text for side in sides] == [
        "Baseline answer",
        "This run",
    ]
    assert [d.text for d in sides[0].find_elements("css selector", "del.diff-removed")] == ["1889."]
    [added] = sides[1].find_elements("css selector", "ins.diff-added")
    assert added.text == "1925."
    # The added year is in a contradicted claim: coloured as a contradiction, not in green.
    assert added.get_attribute("data-verdict") == "contradicted"
    assert "added-contradicted" in (added.get_attribute("class") or "")
    [claim] = changes.find_elements("css selector", "ol.items li")
    # The reworded claim is paired with the one it replaced: the claim that broke.
    assert claim.find_element("css selector", ".label").text.lower() == "supported → contradicted"
    assert "The Eiffel Tower was completed in 1925." in claim.text
    assert claim.find_element("css selector", ".reason").text == (
        "was: The Eiffel Tower was completed in 1889."
    )
    assert "faithfulness 1.000 → 0.000" in changes.text
    png = tmp_path / "panel.png"
    opened.save_screenshot(str(png))
    assert colours(png.read_bytes()) > 50


def test_changed_filter_card_and_bar_clicks_filter_and_the_url_restores_them(
    opened: Any,
) -> None:
    opened.find_element("id", "filter-changed").click()
    assert sorted(row_ids(opened)) == ["brand-new", "tower"]
    assert "changed=1" in opened.current_url
    opened.find_element("id", "filter-changed").click()

    opened.find_element("css selector", '#metrics .card[data-metric="faithfulness"] .mean').click()
    assert opened.find_element("id", "filter-miss").get_attribute("value") == "faithfulness"
    assert row_ids(opened) == ["tower"]

    opened.execute_script("document.getElementById('filter-miss').value = '';")
    opened.execute_script(
        "document.getElementById('filter-miss').dispatchEvent(new Event('change'))"
    )
    bar = opened.find_element(
        "css selector", '#metrics rect[data-metric="faithfulness"][data-low="0.0"]'
    )
    opened.execute_script(
        "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", bar
    )
    assert row_ids(opened) == ["tower"]
    assert opened.find_element("id", "filter-range").is_displayed()
    opened.find_element("css selector", '#case-head button[data-sort="id"]').click()
    url = opened.current_url
    assert "range=faithfulness%3A0.0" in url and "sort=id" in url

    opened.get("about:blank")
    opened.get(url)
    wait_for(lambda: rows(opened))

    assert row_ids(opened) == ["tower"]
    assert opened.find_element("id", "filter-range").is_displayed()
    assert opened.find_element("css selector", "#case-head th[aria-sort]").text.startswith("case")


def test_gated_metrics_and_diagnosis_come_first_and_the_chooser_shows_the_rest(
    opened: Any,
) -> None:
    heads = [cell.text for cell in opened.find_elements("css selector", "#case-head th")]
    assert heads[:3] == ["status", "case", "diagnosis"]
    gated = opened.execute_script(
        "return JSON.parse(document.getElementById('rag-gate-data').textContent).metrics"
        ".filter(function (m) { return typeof m.threshold === 'number'; })"
        ".map(function (m) { return m.name; })"
    )
    reported = opened.execute_script(
        "return JSON.parse(document.getElementById('rag-gate-data').textContent).metrics"
        ".filter(function (m) { return typeof m.threshold !== 'number'; })"
        ".map(function (m) { return m.name; })"
    )
    assert heads[3 : 3 + len(gated)] == gated
    assert not set(reported) & set(heads)

    opened.find_element("css selector", "#column-chooser summary").click()
    if reported:
        box = opened.find_element("css selector", f'input[data-column="metric:{reported[0]}"]')
        box.click()
        assert reported[0] in [
            c.text for c in opened.find_elements("css selector", "#case-head th")
        ]
        assert "cols=" in opened.current_url
    tags = opened.find_element("css selector", 'input[data-column="tags"]')
    tags.click()
    assert "tags" not in [c.text for c in opened.find_elements("css selector", "#case-head th")]


def test_binary_human_labels_get_a_confusion_matrix(opened: Any) -> None:
    matrix = opened.find_element("css selector", 'table.confusion[data-metric="faithfulness"]')
    cells = [cell.text for cell in matrix.find_elements("css selector", "tbody td")]

    # Human 1: founders, founders-again (judge pass); human 0: tower (judge fail),
    # tower-again (judge pass).
    assert cells == ["2", "0", "1", "1"]
    assert "judge at threshold 0.85" in matrix.find_element("css selector", "caption").text


def test_on_a_phone_each_case_is_a_card_and_nothing_is_cut(page: Path, tmp_path: Path) -> None:
    driver = phone_browser()
    try:
        driver.get(page.as_uri())
        wait_for(lambda: rows(driver))
        display, label, page_width, first_row_width = driver.execute_script(
            "var row = document.querySelector('#case-rows tr');"
            "var cell = row.querySelector('td.score');"
            "return [getComputedStyle(row).display,"
            " getComputedStyle(cell, '::before').content,"
            " document.documentElement.scrollWidth, row.getBoundingClientRect().width];"
        )
        png = tmp_path / "phone.png"
        driver.find_element("id", "cases").screenshot(str(png))
        driver.execute_script("document.querySelector('#case-rows a.case-link').click()")
        assert wait_for(lambda: not panel_hidden(driver))
    finally:
        driver.quit()
    assert display == "block"
    assert label.strip('"') != ""
    assert page_width <= 390
    assert first_row_width <= 390
    assert colours(png.read_bytes()) > 10


def test_the_largest_drops_come_before_the_case_table_each_case_once(opened: Any) -> None:
    drops = opened.find_elements("css selector", "#baseline ol.drops a")
    order = opened.execute_script(
        "return document.getElementById('baseline').compareDocumentPosition("
        "document.getElementById('cases')) & Node.DOCUMENT_POSITION_FOLLOWING"
    )

    assert order  # the cases follow the drops: a reviewer reads the regression first
    assert [link.text for link in drops] == ["golden.jsonl::tower"]
    drops[0].click()
    assert wait_for(lambda: not panel_hidden(opened))
    assert opened.find_element("id", "panel-changes").is_displayed()


def test_a_large_page_carries_its_cases_packed_and_still_opens_filters_and_searches(
    browser: Any, tmp_path: Path
) -> None:
    from gate_runs import case, write

    from pytest_ragas_gate.reports.html import PACK_OVER, write_html
    from pytest_ragas_gate.settings.config import GateConfig

    filler = "The refund arrives within five working days of the request. " * 16
    results = [
        case(f"case-{index:04d}", (index % 89) / 89, line=index + 1).model_copy(
            update={"answer": f"{filler} Answer {index}."}
        )
        for index in range(2500)
    ]
    report = json.loads(
        write(tmp_path / "r.json", results, config=GateConfig(bootstrap_resamples=100)).read_text(
            encoding="utf-8"
        )
    )
    page = tmp_path / "big.html"
    write_html(page, report, results)
    text = page.read_text(encoding="utf-8")
    assert len(text) < PACK_OVER  # 2,500 answers of 1 kB, packed
    assert filler not in text

    browser.get(page.as_uri())
    assert wait_for(lambda: rows(browser), timeout=10)

    assert browser.find_element("id", "case-count").text == "2500 of 2500 case(s)"
    search = browser.find_element("id", "filter-text")
    search.send_keys("Answer 1234.")
    assert wait_for(lambda: row_ids(browser) == ["case-1234"])
    panel = open_case(browser, "case-1234")
    assert "Answer 1234." in panel.find_element("css selector", "p.answer").text
    assert console_problems(browser) == []
