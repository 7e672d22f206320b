"""The HTML report's case panel shows a conversation's turns as a chat (headless Chromium)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_conversation_metrics import PLAN_CHAT
from test_html_browser import console_problems, gate_page, open_case, rows, start_browser, wait_for


@pytest.mark.slow  # a real browser, as every browser test
def test_a_turns_panel_shows_its_conversation_as_a_chat(tmp_path: Path) -> None:
    page = gate_page(tmp_path / "chat", [PLAN_CHAT])
    driver = start_browser()
    try:
        driver.get(page.as_uri())
        wait_for(lambda: rows(driver))
        panel = open_case(driver, "plan-chat#3")
        section = next(
            element
            for element in panel.find_elements("css selector", "section.panel-section")
            if element.find_elements("css selector", "ol.chat")
        )
        assert section.find_element("css selector", "h3").text.lower() == ("conversation plan-chat")
        turns = section.find_elements("css selector", "li.chat-turn")
        assert len(turns) == 3
        assert "And the other one?" in turns[1].text
        assert "The Max plan of Zorblax gives 10 TB of storage." in turns[1].text
        # The broken turn is the current one, failed; the others link to their panels.
        current = section.find_element("css selector", "li.chat-current")
        assert "status-fail" in (current.get_attribute("class") or "")
        assert "The Pro plan has a free trial of 90 days." in current.text
        assert "faithfulness 0.000" in current.text
        # The broken turn says so, whichever turn's panel is open.
        [broke] = section.find_elements("css selector", "li.chat-broke")
        assert broke.find_element("css selector", ".turn-broke").text.startswith(
            "This turn broke the conversation"
        )
        assert "The Pro plan has a free trial of 90 days." in broke.text
        links = section.find_elements("css selector", "li.chat-turn a")
        assert [link.text for link in links] == ["1.", "2."]
        links[0].click()
        assert wait_for(lambda: "plan-chat#1" in panel.text)
        # Cards count conversations, histograms turns: each said once, in its unit.
        card = driver.find_element("css selector", '#metrics .card[data-metric="faithfulness"]')
        counts = card.find_element("css selector", ".counts-line").text
        assert counts.startswith(
            "n 1 (each of the 1 conversation counted once); the histogram counts 3 turn(s)"
        )
        run = driver.find_element("id", "run").text
        assert "conversations: conversations" not in driver.page_source
        assert "1 with 3 turns" in run
        assert console_problems(driver) == []
    finally:
        driver.quit()
