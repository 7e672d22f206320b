"""Time to render the HTML report, its size, first paint and interactions, up to 20,000 cases.

For each size, gates N synthetic cases (those of ``offline_gate.py``: half English, half
Chinese, 4 ranked contexts, claims and reference statements) with the offline judge in a
subprocess, then times ``rag-gate render`` on the saved report in this process (reading the
report, rendering, writing: best of 3) and prints the page's size beside the JSON
report's. With ``--browser`` (needs chromium, chromedriver and Selenium) it also opens the
page in headless Chromium and reports the first contentful paint (the browser's own
Paint Timing entry), the time until the first page of the case table is drawn, and the
slowest of three interactions timed inside the page, layout included: a status filter, a
sort by a metric, a free-text search (each over every case).

    python benchmarks/html_report.py --cases 100 2000 20000 --browser
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from offline_gate import synthetic_case  # noqa: E402

from pytest_ragas_gate.reports.html import write_saved_report_html  # noqa: E402


def gated_report(directory: Path, count: int) -> Path:
    """The JSON report of ``count`` synthetic cases gated with the offline judge."""
    directory.mkdir(parents=True)
    (directory / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (directory / "golden.jsonl").write_text(
        "".join(
            json.dumps(synthetic_case(index), ensure_ascii=False) + "\n" for index in range(count)
        ),
        encoding="utf-8",
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--rag-gate",
            "--rag-gate-judge",
            "offline",
            "--rag-gate-set",
            "cache.mode=off",
            "--rag-gate-output",
            "json=report.json",
            "-p",
            "no:randomly",
            "-q",
        ],
        cwd=directory,
        capture_output=True,
        check=False,
    )
    return directory / "report.json"


def render_seconds(report: Path, page: Path, repeats: int = 3) -> float:
    """Best wall time of ``rag-gate render`` (read, render, write) over ``repeats`` runs."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        write_saved_report_html(report, page)
        best = min(best, time.perf_counter() - started)
    return best


#: Each interaction is timed in the page: the handler runs and the table is laid out again.
_INTERACTIONS = {
    "filter": "var c = document.getElementById('filter-status'); c.value = 'problem';"
    " c.dispatchEvent(new Event('change'));",
    "sort": "document.querySelector('#case-head button[data-sort^=\"metric:\"]').click();",
    "search": "var c = document.getElementById('filter-text'); c.value = 'context';"
    " c.dispatchEvent(new Event('input'));",
}


def browser_figures(page: Path) -> tuple[float, float, dict[str, float]]:
    """First contentful paint, case table drawn (seconds), and each interaction (ms)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("google-chrome") or ""
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--window-size=1400,900",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    try:
        driver.get("about:blank")
        started = time.perf_counter()
        driver.get(page.as_uri())
        while not driver.find_elements("css selector", "#case-rows tr[data-key]"):
            time.sleep(0.01)
        table = time.perf_counter() - started
        paint = driver.execute_script(
            "var e = performance.getEntriesByName('first-contentful-paint')[0];"
            "return e ? e.startTime / 1000 : null;"
        )
        interactions = {}
        for name, script in _INTERACTIONS.items():
            interactions[name] = driver.execute_script(
                "var t = performance.now();" + script + " document.body.offsetHeight;"
                " return performance.now() - t;"
            )
        return float(paint or table), table, interactions
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, nargs="+", default=[100, 2000, 20000])
    parser.add_argument("--browser", action="store_true", help="also time Chromium")
    arguments = parser.parse_args()
    print(
        f"{'cases':>6}  {'render':>8}  {'html':>8}  {'json':>8}  {'paint':>7}  {'table':>7}  "
        f"{'filter':>8}  {'sort':>8}  {'search':>8}",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as work:
        for count in arguments.cases:
            report = gated_report(Path(work) / str(count), count)
            page = report.with_suffix(".html")
            seconds = render_seconds(report, page, repeats=3 if count <= 2000 else 1)
            shown = "       -        -" + "         -" * 3
            if arguments.browser:
                paint, table, interactions = browser_figures(page)
                shown = f"{paint:6.2f}s  {table:6.2f}s  " + "  ".join(
                    f"{interactions[name]:6.1f}ms" for name in ("filter", "sort", "search")
                )
            print(
                f"{count:>6}  {seconds:7.2f}s  {page.stat().st_size / 1e6:6.2f}MB  "
                f"{report.stat().st_size / 1e6:6.2f}MB  {shown}",
                flush=True,
            )


if __name__ == "__main__":
    main()
