"""Time to render the HTML report, and its size, for 100 and 1,000 realistic cases.

For each size, gates N synthetic cases (those of ``offline_gate.py``: half English, half
Chinese, 4 ranked contexts, claims and reference statements) with the offline judge in a
subprocess, then times ``rag-gate html`` on the saved report in this process (reading the
report, rendering, writing: best of 3) and prints the page's size beside the JSON
report's. With ``--browser`` (needs chromium, chromedriver and Selenium) it also opens the
page in headless Chromium and times until the first page of the case table is drawn.

    python benchmarks/html_report.py --cases 100 1000 --browser
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
            "--rag-gate-cache",
            "off",
            "--rag-gate-report",
            "report.json",
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
    """Best wall time of ``rag-gate html`` (read, render, write) over ``repeats`` runs."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        write_saved_report_html(report, page)
        best = min(best, time.perf_counter() - started)
    return best


def browser_seconds(page: Path) -> float:
    """Seconds from navigation until headless Chromium has drawn the case table's rows."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("google-chrome") or ""
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    try:
        driver.get("about:blank")
        started = time.perf_counter()
        driver.get(page.as_uri())
        while not driver.find_elements("css selector", "#case-rows tr[data-key]"):
            time.sleep(0.01)
        return time.perf_counter() - started
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--browser", action="store_true", help="also time Chromium")
    arguments = parser.parse_args()
    print(f"{'cases':>6}  {'render':>9}  {'html':>9}  {'json':>9}  {'browser':>9}", flush=True)
    with tempfile.TemporaryDirectory() as work:
        for count in arguments.cases:
            report = gated_report(Path(work) / str(count), count)
            page = report.with_suffix(".html")
            seconds = render_seconds(report, page)
            shown = f"{browser_seconds(page):8.2f}s" if arguments.browser else "        -"
            print(
                f"{count:>6}  {seconds:8.3f}s  {page.stat().st_size / 1e6:7.2f}MB  "
                f"{report.stat().st_size / 1e6:7.2f}MB  {shown}",
                flush=True,
            )


if __name__ == "__main__":
    main()
