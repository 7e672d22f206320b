"""The ERROR page, a failed page with metrics not judged, and the mixed-judge banner, in Chromium.

Each page is read at 1400×900 and on a 390×844 phone: the cards carry the gate's status
for each metric, the outage and mixed-judge boxes are on screen, nothing runs wider than
the window and the console stays clean.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_html_browser import console_problems, phone_browser, start_browser, wait_for  # noqa: E402
from test_metric_outcome import (  # noqa: E402
    GATED,
    METRICS,
    OUTAGE,
    _case,
    _config,
    _outage,
    _page,
    _scored,
)

from pytest_ragas_gate.gate.baseline import compare_to_baseline  # noqa: E402
from pytest_ragas_gate.gate.verdict import RunFacts, evaluate_gate  # noqa: E402

pytestmark = pytest.mark.slow

WARNING = "baseline scored by the offline judge, this run by openai: deltas mix judge changes"


def _error_page(folder: Path) -> Path:
    config = _config()
    baseline_results = [_scored(i, 0.95) for i in range(6)]
    results = [_outage(i) for i in range(6)]
    comparison = compare_to_baseline(baseline_results, results, METRICS, config, path="base.json")
    facts = RunFacts(baseline=comparison.model_copy(update={"warnings": [WARNING]}))
    verdict = evaluate_gate(results, METRICS, config, facts)
    path = folder / "error.html"
    path.write_text(_page(verdict, results, facts, config, baseline=baseline_results), "utf-8")
    return path


def _failed_page(folder: Path) -> Path:
    results = [_outage(i) for i in range(4)]
    results.append(
        _case(
            4,
            id="refund-order-7",
            metrics=[*METRICS, "max_steps"],
            scores={"max_steps": 0.0},
            errors={metric: OUTAGE for metric in METRICS},
            judge_errors=list(METRICS),
            thresholds={"max_steps": 1.0},
        )
    )
    config = _config()
    verdict = evaluate_gate(results, [*METRICS, "max_steps"], config)
    path = folder / "failed.html"
    path.write_text(_page(verdict, results, RunFacts(), config), "utf-8")
    return path


@pytest.fixture(params=["desktop", "phone"])
def driver(request: pytest.FixtureRequest) -> Iterator[Any]:
    opened = (
        start_browser(width=1400, height=900) if request.param == "desktop" else phone_browser()
    )
    opened.size_name = request.param
    try:
        yield opened
    finally:
        opened.quit()


def _statuses(driver: Any) -> dict[str, tuple[str, str]]:
    found = driver.execute_script(
        "return Array.from(document.querySelectorAll('article.card')).map(function (c) {"
        "  return [c.dataset.metric, [c.dataset.status,"
        "          c.querySelector('.badge').textContent.trim()]]; });"
    )
    return {metric: (status, badge) for metric, (status, badge) in found}


def _visible(driver: Any, selector: str) -> bool:
    return bool(
        driver.execute_script(
            "var e = document.querySelector(arguments[0]);"
            "if (!e) { return false; } var r = e.getBoundingClientRect();"
            "return r.width > 0 && r.height > 0 && r.left >= 0 && r.right <= window.innerWidth;",
            selector,
        )
    )


def _fits(driver: Any) -> bool:
    return bool(
        driver.execute_script(
            "return document.documentElement.scrollWidth <= window.innerWidth + 1;"
        )
    )


def test_the_error_page_judges_nothing_and_shows_the_mixed_judge_banner(
    driver: Any, tmp_path: Path
) -> None:
    driver.get(_error_page(tmp_path).as_uri())
    wait_for(lambda: driver.find_elements("css selector", "#case-rows tr"))
    statuses = _statuses(driver)
    for metric in GATED:
        assert statuses[metric] == ("not_judged", "not judged")
    assert statuses["context_relevance"][0] == "report_only"
    assert _visible(driver, "section.outage")
    assert _visible(driver, "section.mixed-judge")
    body = driver.find_element("css selector", "body").text
    assert "newly failing" not in body.lower()
    assert "Since the baseline" in body
    assert _fits(driver)
    assert console_problems(driver) == []
    driver.save_screenshot(str(tmp_path / f"error-{driver.size_name}.png"))


def test_a_failed_page_names_its_metrics_not_judged_and_its_real_failure(
    driver: Any, tmp_path: Path
) -> None:
    driver.get(_failed_page(tmp_path).as_uri())
    wait_for(lambda: driver.find_elements("css selector", "#case-rows tr"))
    statuses = _statuses(driver)
    for metric in GATED:
        assert statuses[metric] == ("not_judged", "not judged")
    assert statuses["max_steps"] == ("failed", "FAIL")
    assert _visible(driver, "section.outage")
    text = driver.find_element("css selector", "section.outage").text
    assert "Not judged: faithfulness, answer_relevancy, context_recall" in text
    # The case the failure names is counted where the failure says it is.
    pill = driver.find_element("css selector", ".status-fail").text
    assert pill.startswith("1 below their own thresholds")
    assert _fits(driver)
    assert console_problems(driver) == []
    driver.save_screenshot(str(tmp_path / f"failed-{driver.size_name}.png"))
