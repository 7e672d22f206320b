"""The head-to-head view of the HTML report, in headless Chromium.

A baseline run with every answer right, then a run where one answer lost a fact and one
was reworded, judged head to head (``--rag-gate-pairwise``) by the offline judge. The page
must link the loss from *Since the baseline* to its case panel, whose *Head to head with
the baseline* section says the new answer is worse, with the judge's reasons, while the
reworded case reads as a tie.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_html_browser import (  # noqa: E402
    console_problems,
    gate_page,
    open_case,
    panel_hidden,
    rows,
    start_browser,
    wait_for,
)
from test_pairwise import museum  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("pairwise")
    gate_page(directory, [museum(index) for index in range(4)], "--rag-gate-report=base.json")
    changed = [museum(0, "worse"), museum(1, "reworded"), museum(2), museum(3)]
    return gate_page(directory, changed, "--rag-gate-baseline=base.json", "--rag-gate-pairwise")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    driver = start_browser(width=1400, height=900)
    yield driver
    driver.quit()


def close(browser: Any) -> None:
    browser.find_element("id", "panel-close").click()
    assert wait_for(lambda: panel_hidden(browser))


def test_a_loss_is_linked_and_its_panel_says_why_beside_both_answers(
    browser: Any, page: Path
) -> None:
    browser.get(page.as_uri())
    wait_for(lambda: rows(browser))
    line = browser.find_element("id", "pairwise-line").text
    assert line.startswith("pairwise: the new answers lose to the baseline's on 1 of 4")
    browser.find_element("css selector", "#baseline ol.drops a[href*='museum-0']")

    panel = open_case(browser, "museum-0")
    section = panel.find_element("id", "panel-pairwise")
    assert "Worse than the baseline's answer" in section.text
    assert "This run shown first: A (faithfulness 0.00" in section.text
    sides = panel.find_element("id", "panel-changes").find_elements("css selector", ".diff-side")
    assert [side.find_element("css selector", "h4").text for side in sides] == [
        "Baseline answer",
        "This run",
    ]

    close(browser)
    panel = open_case(browser, "museum-1")
    assert "Neither better nor worse" in panel.find_element("id", "panel-pairwise").text
    # An unchanged answer was not compared: its panel has no head-to-head section.
    close(browser)
    panel = open_case(browser, "museum-2")
    assert not panel.find_elements("id", "panel-pairwise")
    assert console_problems(browser) == []
