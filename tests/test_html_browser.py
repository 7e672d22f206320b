"""The HTML report in a real headless Chromium, driven by Selenium.

Debian's ``chromium`` and ``chromium-driver`` packages provide the browser; without them
(or without Selenium) every test here is skipped, saying what to install. The page is
opened from ``file://`` as someone opening a CI artifact would: it must show no console
error, request nothing, put the worst case first, filter and sort, show a case's claims
with their verdicts, and keep hostile case text as text.

The screenshot in the README comes from :func:`capture`:
``python tests/test_html_browser.py docs/html-report.png``.
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from gate_runs import GOOD, HALLUCINATED, case, write  # noqa: E402

pytestmark = pytest.mark.slow

#: Payloads that would run script if the page ever turned case text into markup; each
#: sets a global the test looks for.
PAYLOADS = {
    "script-answer": "<script>window.__pwned = 'script'</script>",
    "img-question": '"><img src=x onerror="window.__pwned = \'img\'">',
}

ROWS: list[dict[str, Any]] = [
    {**GOOD, "id": "founders", "tags": ["billing", "en"]},
    {**GOOD, "id": "founders-again", "tags": ["security"]},
    {**HALLUCINATED, "id": "wrong-year", "tags": ["billing"]},
    {
        "id": "refund-time",
        "question": "退款需要多长时间？",
        "answer": "退款在五个工作日内到账。",
        "contexts": ["退款在五个工作日内退回原支付方式。"],
        "reference": "退款在五个工作日内到账。",
        "tags": ["zh", "billing"],
    },
    {**HALLUCINATED, "id": "script-answer", "answer": PAYLOADS["script-answer"]},
    {**GOOD, "id": "img-question", "question": PAYLOADS["img-question"], "tags": ["security"]},
]


# --- the browser ----------------------------------------------------------------------------


def _executable(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


def start_browser(width: int = 1400, height: int = 1000) -> Any:
    """A headless Chromium logging console messages and network events, or a skip."""
    webdriver = pytest.importorskip(
        "selenium.webdriver", reason="Selenium is not installed: pip install -e '.[dev]'"
    )
    from selenium.webdriver.chrome.service import Service

    browser = _executable("chromium", "chromium-browser", "google-chrome")
    driver = _executable("chromedriver")
    if browser is None or driver is None:
        pytest.skip(
            "headless Chromium is not installed: apt-get install chromium chromium-driver "
            f"(chromium: {browser or 'missing'}, chromedriver: {driver or 'missing'})"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--hide-scrollbars",
        f"--window-size={width},{height}",
        "--force-device-scale-factor=1",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=options)


def phone_browser() -> Any:
    """Chromium with a true 390×844 viewport: a headless window is at least 500 px wide."""
    driver = start_browser(width=500, height=844)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": False},
    )
    return driver


def requested_urls(driver: Any) -> list[str]:
    """Every URL the page asked for since the last call (DevTools network events)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def console_problems(driver: Any) -> list[str]:
    """Console errors and warnings since the last call."""
    return [
        entry["message"]
        for entry in driver.get_log("browser")
        if entry["level"] in ("SEVERE", "WARNING")
    ]


def capture(
    page: Path,
    png: Path,
    *,
    open_worst: bool = True,
    width: int = 1600,
    case_selector: str = "#case-rows a.case-link",
) -> None:
    """Screenshot ``page`` (a case's panel open, the worst by default) to ``png``."""
    driver = start_browser(width=width, height=1000)
    try:
        driver.get(page.as_uri())
        if open_worst:
            # Through the link's address, as a pytest-html row opens it: the page behind
            # stays at its top, so the picture shows the verdict and the cards too.
            anchor = driver.find_element("css selector", case_selector)
            driver.get(anchor.get_attribute("href"))
            wait_for(lambda: not panel_hidden(driver))
        png.parent.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(png))
    finally:
        driver.quit()


# --- pages ------------------------------------------------------------------------------------


def gate_page(directory: Path, rows: list[dict[str, Any]] | None, *extra: str) -> Path:
    """Run the gate with the offline judge in a subprocess; its HTML page.

    ``rows`` become ``golden.jsonl`` in ``directory``; None gates the golden files there.
    """
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    if rows is not None:
        (directory / "golden.jsonl").write_text(
            "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8"
        )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--rag-gate",
            "--rag-gate-judge",
            "offline",
            "--rag-gate-cache",
            "off",
            "--rag-gate-html",
            "page.html",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            "-q",
            *extra,
        ],
        cwd=directory,
        capture_output=True,
        check=False,
        timeout=240,
    )
    page = directory / "page.html"
    assert page.is_file()
    return page


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return gate_page(tmp_path_factory.mktemp("page"), ROWS)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    driver = start_browser()
    yield driver
    driver.quit()


@pytest.fixture
def opened(browser: Any, page: Path) -> Any:
    """The page, freshly loaded, with the logs of earlier tests drained."""
    browser.get("about:blank")
    console_problems(browser)
    requested_urls(browser)
    browser.get(page.as_uri())
    wait_for(lambda: rows(browser))
    return browser


def wait_for(condition: Any, timeout: float = 5.0) -> Any:
    # The page re-renders the table and panel on every step; an element found just before
    # a re-render goes stale, which means "not yet", not a failure of the page.
    stale = pytest.importorskip("selenium.common.exceptions").StaleElementReferenceException
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = condition()
        except stale:
            if time.monotonic() > deadline:
                raise
            value = None
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def rows(driver: Any) -> list[Any]:
    return list(driver.find_elements("css selector", "#case-rows tr[data-key]"))


def row_ids(driver: Any) -> list[str]:
    return [row.find_element("css selector", "a.case-link").text for row in rows(driver)]


def panel_hidden(driver: Any) -> bool:
    return bool(driver.execute_script("return document.getElementById('case-panel').hidden"))


def open_case(driver: Any, case_id: str) -> Any:
    link = next(
        row.find_element("css selector", "a.case-link")
        for row in rows(driver)
        if row.find_element("css selector", "a.case-link").text == case_id
    )
    link.click()
    assert wait_for(lambda: not panel_hidden(driver))
    return driver.find_element("id", "panel-content")


# --- the tests --------------------------------------------------------------------------------


def test_the_page_loads_from_file_without_errors_or_requests(opened: Any, page: Path) -> None:
    open_case(opened, "wrong-year")
    opened.find_element("id", "filter-text").send_keys("founders")

    assert console_problems(opened) == []
    assert requested_urls(opened) == [page.as_uri()]


def test_the_worst_case_comes_first(opened: Any) -> None:
    first = rows(opened)[0]
    assert first.get_attribute("data-status") in ("error", "fail", "below")
    data = json.loads(
        opened.execute_script("return document.getElementById('rag-gate-data').textContent")
    )
    assert first.get_attribute("data-key") == data["cases"][0]["key"]
    faithfulness = first.find_elements("css selector", "td.score")[0]
    assert faithfulness.text == "0.000" and "miss" in faithfulness.get_attribute("class")


def test_filtering_by_tag_and_text(opened: Any) -> None:
    from selenium.webdriver.support.select import Select

    Select(opened.find_element("id", "filter-tag")).select_by_value("billing")
    assert sorted(row_ids(opened)) == ["founders", "refund-time", "wrong-year"]
    assert opened.find_element("id", "case-count").text == "3 of 6 case(s)"

    opened.find_element("id", "filter-text").send_keys("退款")
    assert row_ids(opened) == ["refund-time"]


def test_sorting_by_a_metric_puts_its_worst_first_then_reverses(opened: Any) -> None:
    def faithfulness_column() -> list[float]:
        metrics = [th.text for th in opened.find_elements("css selector", "#case-head th")]
        index = metrics.index("faithfulness")
        return [float(row.find_elements("css selector", "td")[index].text) for row in rows(opened)]

    opened.find_element("css selector", "button[data-sort='metric:faithfulness']").click()
    ascending = faithfulness_column()
    assert ascending == sorted(ascending) and ascending[0] < ascending[-1]
    header = opened.find_element("css selector", "button[data-sort='metric:faithfulness']")
    assert header.find_element("xpath", "..").get_attribute("aria-sort") == "ascending"

    header.click()
    assert faithfulness_column() == sorted(ascending, reverse=True)


def test_a_case_panel_shows_claims_with_verdicts_contexts_and_statements(opened: Any) -> None:
    panel = open_case(opened, "wrong-year")

    assert panel.find_element("id", "panel-title").text == "wrong-year"
    claims = panel.find_elements("css selector", "ol.items li[data-verdict]")
    # The contexts give 1889 for the same thing: the offline judge calls 1925 contradicted.
    assert [claim.get_attribute("data-verdict") for claim in claims] == ["contradicted"]
    assert "The Eiffel Tower was completed in 1925." in claims[0].text
    highlighted = panel.find_element("css selector", ".answer .claim")
    assert highlighted.get_attribute("data-verdict") == "contradicted"
    assert highlighted.get_attribute("title").startswith("contradicted: ")
    contexts = panel.find_elements("css selector", "li[data-relevant]")
    assert [context.get_attribute("data-relevant") for context in contexts] == ["true"]
    # Labels are upper-cased by the style sheet, and Selenium reads the text as shown.
    assert "IN THE CONTEXTS" in panel.text and "Scores and thresholds" in panel.text
    assert "faithfulness 0.00 < 0.85 (gate threshold)" in panel.text

    opened.find_element("id", "panel-close").click()
    assert wait_for(lambda: panel_hidden(opened))


def test_a_link_to_a_case_opens_its_panel(browser: Any, page: Path) -> None:
    browser.get(page.as_uri() + "#case=golden.jsonl%3A%3Arefund-time")
    assert wait_for(lambda: not panel_hidden(browser))
    panel = browser.find_element("id", "panel-content")
    assert "退款需要多长时间？" in panel.text
    assert panel.find_elements("css selector", ".answer .claim[data-verdict='supported']")


def test_hostile_case_text_stays_text(opened: Any) -> None:
    for case_id, payload in PAYLOADS.items():
        panel = open_case(opened, case_id)
        assert payload in panel.text
        opened.find_element("id", "panel-close").click()

    assert opened.execute_script("return window.__pwned === undefined")
    assert opened.find_elements("css selector", "img") == []
    assert len(opened.find_elements("css selector", "script")) == 2
    assert console_problems(opened) == []


def test_a_screenshot_of_the_page_is_not_blank(page: Path, tmp_path: Path) -> None:
    png = tmp_path / "report.png"

    capture(page, png, width=1000)

    assert colours(png.read_bytes()) > 50


def test_a_thousand_cases_page_through_quickly(browser: Any, tmp_path: Path) -> None:
    from pytest_ragas_gate.reports.html import write_html
    from pytest_ragas_gate.settings.config import GateConfig

    results = [case(f"case-{index:04d}", (index % 97) / 97, line=index) for index in range(1000)]
    report_path = write(tmp_path / "r.json", results, config=GateConfig(bootstrap_resamples=100))
    report = json.loads(report_path.read_text(encoding="utf-8"))
    write_html(tmp_path / "big.html", report, results)

    started = time.monotonic()
    browser.get((tmp_path / "big.html").as_uri())
    assert wait_for(lambda: rows(browser))
    loaded = time.monotonic() - started

    assert len(rows(browser)) == 50
    assert browser.find_element("id", "page-info").text.startswith("cases 1–50 of 1000")
    browser.find_element("id", "page-next").click()
    assert browser.find_element("id", "page-info").text.startswith("cases 51–100 of 1000")
    assert loaded < 5.0
    assert console_problems(browser) == []


# --- a PNG reader, so the blank check needs no imaging library -----------------------------


def colours(png: bytes) -> int:
    """How many distinct colours a sample of the PNG's pixels has (8-bit RGB or RGBA)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    position, compressed = 8, bytearray()
    width = height = channels = 0
    while position < len(png):
        length = int.from_bytes(png[position : position + 4], "big")
        kind = png[position + 4 : position + 8]
        body = png[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour_type = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour_type in (2, 6)
            channels = 3 if colour_type == 2 else 4
        elif kind == b"IDAT":
            compressed += body
        position += 12 + length
    raw = zlib.decompress(bytes(compressed))
    stride = width * channels
    previous = bytearray(stride)
    seen: set[bytes] = set()
    for row in range(height):
        start = row * (stride + 1)
        line = _unfilter(
            raw[start], bytearray(raw[start + 1 : start + 1 + stride]), previous, channels
        )
        seen.update(bytes(line[i : i + 3]) for i in range(0, stride, channels * 5))
        previous = line
    return len(seen)


def _unfilter(kind: int, line: bytearray, previous: bytearray, channels: int) -> bytearray:
    if kind == 1:
        for i in range(channels, len(line)):
            line[i] = (line[i] + line[i - channels]) & 255
    elif kind == 2:
        line = bytearray((x + y) & 255 for x, y in zip(line, previous, strict=True))
    elif kind == 3:
        for i in range(len(line)):
            left = line[i - channels] if i >= channels else 0
            line[i] = (line[i] + (left + previous[i]) // 2) & 255
    elif kind == 4:
        for i in range(len(line)):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    return line


if __name__ == "__main__":
    # The README's screenshot: the example golden set run twice into a history, the second
    # time with one answer drifted and compared with the first, gated strictly enough that
    # it fails, its worst case open (old and new answer side by side).
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/html-report.png").resolve()
    with tempfile.TemporaryDirectory() as work:
        example = Path(work) / "examples"
        shutil.copytree(ROOT / "examples", example, ignore=shutil.ignore_patterns("live", "*.json"))
        strict = ("--rag-gate-threshold", "answer_relevancy=0.8", "--rag-gate-history=h.jsonl")
        gate_page(example, None, *strict, "--rag-gate-report=base.json")
        golden = example / "golden_support.jsonl"
        golden.write_text(
            golden.read_text(encoding="utf-8").replace(
                '"answer": "The Team plan includes 2 TB', '"answer": "The Team plan includes 7 TB'
            ),
            encoding="utf-8",
        )
        html = gate_page(example, None, *strict, "--rag-gate-baseline=base.json")
        capture(html, target, case_selector="#baseline ol.drops a")
    print(f"wrote {target}")


def test_the_header_sticks_and_the_case_column_stays_while_scrolling_both_ways(
    page: Path,
) -> None:
    driver = start_browser(width=700, height=500)
    try:
        driver.get(page.as_uri())
        wait_for(lambda: rows(driver))
        driver.execute_script(
            "var wrap = document.querySelector('.table-wrap');"
            "wrap.scrollIntoView(); wrap.scrollTop = wrap.scrollHeight; wrap.scrollLeft = 10000;"
        )
        assert driver.execute_script("return document.querySelector('.table-wrap').scrollLeft") > 0
        wrap, head, case_head, last_case = driver.execute_script(
            "function box(el) { var r = el.getBoundingClientRect(); return [r.left, r.top]; }"
            "var cells = document.querySelectorAll('#case-rows td.case-cell');"
            "return [box(document.querySelector('.table-wrap')),"
            " box(document.querySelector('#case-head th:last-child')),"
            " box(document.querySelector('#case-head th.case-cell')),"
            " box(cells[cells.length - 1])];"
        )
    finally:
        driver.quit()
    # The header row is at the top of the scrolled area, the case column at its left.
    assert abs(head[1] - wrap[1]) <= 2
    assert abs(case_head[0] - wrap[0]) <= 2
    assert abs(last_case[0] - wrap[0]) <= 2


def test_on_a_phone_the_panel_score_table_is_not_cut(page: Path) -> None:
    driver = phone_browser()
    try:
        driver.get(page.as_uri())
        wait_for(lambda: rows(driver))
        driver.execute_script("document.querySelector('#case-rows a.case-link').click()")
        assert wait_for(lambda: not panel_hidden(driver))
        table_width, room = driver.execute_script(
            "var table = document.querySelector('#panel-content table.scores');"
            "return [table.scrollWidth, table.parentNode.clientWidth];"
        )
    finally:
        driver.quit()
    assert table_width <= room


def test_a_case_panel_shows_the_human_label_beside_the_judge_score(
    browser: Any, tmp_path: Path
) -> None:
    labelled = [{**HALLUCINATED, "id": "labelled", "human": {"faithfulness": 1}}]
    browser.get(gate_page(tmp_path, labelled).as_uri())
    wait_for(lambda: rows(browser))

    panel = open_case(browser, "labelled")

    heads = [cell.text for cell in panel.find_elements("css selector", "table.scores thead th")]
    assert "human label" in heads
    row = panel.find_element("css selector", 'table.scores tr[data-metric="faithfulness"]')
    # The offline judge finds the wrong year unfaithful; the person said faithful.
    assert row.find_element("css selector", "td.human").text == "1.000 judge and human disagree"


def test_an_errored_case_keeps_its_question_tags_and_error(browser: Any, tmp_path: Path) -> None:
    (tmp_path / "target.py").write_text(
        "def answer(question, **kwargs):\n"
        "    if 'boom' in question:\n"
        "        raise RuntimeError('the retriever timed out')\n"
        "    return {'answer': 'It was completed in 1889.', 'contexts': ['Completed in 1889.']}\n",
        encoding="utf-8",
    )
    golden = [
        {"id": "fine", "question": "When was it completed?", "reference": "1889"},
        {
            "id": "broken",
            "question": "boom: when was it built?",
            "reference": "1889",
            "tags": ["flaky"],
        },
    ]
    page = gate_page(tmp_path, golden, "--rag-gate-target", "target:answer")
    browser.get(page.as_uri())
    wait_for(lambda: rows(browser))
    browser.find_element("id", "filter-text").send_keys("boom")
    assert wait_for(lambda: row_ids(browser) == ["broken"])

    panel = open_case(browser, "broken")

    assert "boom: when was it built?" in panel.text
    assert "flaky" in panel.text and "the retriever timed out" in panel.text
    assert not panel.find_elements("css selector", "table.scores")
    assert "No metric was scored" in panel.find_element("css selector", ".no-scores").text


def test_tooltips_say_a_verdict_once_and_context_ids_keep_their_case(
    browser: Any, tmp_path: Path
) -> None:
    sourced = {
        **HALLUCINATED,
        "id": "sourced",
        "contexts": [{"id": "Doc-A7", "text": HALLUCINATED["contexts"][0]}],
    }
    browser.get(gate_page(tmp_path, [sourced]).as_uri())
    wait_for(lambda: rows(browser))

    panel = open_case(browser, "sourced")

    claim = panel.find_element("css selector", "span.claim")
    title = claim.get_attribute("title")
    assert title.startswith("contradicted: ") and title.count("contradicted:") == 1
    for reason in panel.find_elements("css selector", ".items li[data-verdict] .reason"):
        assert not reason.text.lower().startswith("contradicted:")
    assert panel.find_element("css selector", ".items .source-id").text == "Doc-A7"


def test_tab_stays_in_the_panel_and_escape_returns_to_the_row(opened: Any) -> None:
    from selenium.webdriver.common.keys import Keys

    link = next(
        row.find_element("css selector", "a.case-link")
        for row in rows(opened)
        if row.find_element("css selector", "a.case-link").text == "wrong-year"
    )
    link.send_keys(Keys.ENTER)
    assert wait_for(lambda: not panel_hidden(opened))

    def focus_in_panel() -> bool:
        return bool(
            opened.execute_script(
                "return document.getElementById('case-panel').contains(document.activeElement)"
            )
        )

    for _ in range(12):
        opened.switch_to.active_element.send_keys(Keys.TAB)
        assert focus_in_panel()
    for _ in range(3):
        opened.switch_to.active_element.send_keys(Keys.SHIFT, Keys.TAB)
        assert focus_in_panel()

    opened.switch_to.active_element.send_keys(Keys.ESCAPE)

    assert wait_for(lambda: panel_hidden(opened))
    focused = opened.switch_to.active_element
    assert focused.get_attribute("class") == "case-link" and focused.text == "wrong-year"


def test_dark_mode_follows_the_system_setting(browser: Any, page: Path) -> None:
    browser.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": "dark"}]},
    )
    try:
        browser.get(page.as_uri())
        wait_for(lambda: rows(browser))
        paper = browser.execute_script(
            "return getComputedStyle(document.querySelector('.table-wrap')).backgroundColor"
        )
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    red, green, blue = (int(part) for part in paper[paper.index("(") + 1 : -1].split(",")[:3])
    assert red + green + blue < 3 * 80, paper


def test_a_metric_cards_more_figures_stay_inside_the_card(browser: Any, tmp_path: Path) -> None:
    # A case without a reference gives context recall its long-named n/a figures
    # (not_applicable_missing_fields): they wrap inside the card, not past its edge.
    cases = [
        {**ROWS[0], "id": f"with-{index}"} if index else {**ROWS[0], "id": "no-reference"}
        for index in range(3)
    ]
    cases[0].pop("reference", None)
    page = gate_page(tmp_path / "figures", cases)
    browser.get(page.as_uri())
    wait_for(lambda: rows(browser))
    spills = browser.execute_script(
        "document.querySelectorAll('details.extra').forEach(d => { d.open = true; });"
        "return [...document.querySelectorAll('details.extra dl.kv')].filter(list => {"
        "  const card = list.closest('article').getBoundingClientRect();"
        "  return list.getBoundingClientRect().right > card.right + 1;"
        "}).map(list => list.closest('article').querySelector('h3').textContent.trim());"
    )
    assert spills == []


def test_on_a_phone_each_gated_metric_line_says_how_sure_it_is(page: Path) -> None:
    driver = phone_browser()
    try:
        driver.get(page.as_uri())
        wait_for(lambda: rows(driver))
        lines = driver.execute_script(
            "return [...document.querySelectorAll('#metric-cards .card')].map(card => {"
            "  const ci = card.querySelector('.ci'), box = card.getBoundingClientRect();"
            "  const shown = ci && getComputedStyle(ci).display !== 'none';"
            "  return [card.dataset.metric, card.classList.contains('card-report'),"
            "          shown ? ci.textContent.trim() : null,"
            "          shown && ci.getBoundingClientRect().right <= box.right + 1];"
            "});"
        )
    finally:
        driver.quit()
    gated = [line for line in lines if not line[1]]
    assert gated
    for metric, _, interval, inside in gated:
        assert interval is not None and "CI" in interval, metric
        assert inside, metric
    # Metrics only reported stay one line each, so the cases come within two screens.
    assert all(interval is None for _, reported, interval, _ in lines if reported)
