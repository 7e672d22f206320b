"""The HTML report: one self-contained page, the same from a run and from a saved report.

The page is parsed with the standard library's HTML parser, as a browser tokenises it,
so "escaped" here means what a browser would see: no element, attribute or script that
the case data did not get from our own template. tests/test_html_browser.py opens it in
a real browser.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from gate_runs import GOOD, HALLUCINATED, case, good_rows, write, write_config, write_jsonl

from pytest_ragas_gate import cli
from pytest_ragas_gate.reports.html import case_anchor, claim_segments, render_html
from pytest_ragas_gate.scoring.results import CaseResult
from pytest_ragas_gate.settings.config import GateConfig

SCRIPT_ANSWER = "<script>alert(1)</script>"
ATTRIBUTE_BREAKOUT = '"><img src=x onerror=alert(1)>'
CLOSING_TAGS = "</script><!-- </style>"

#: Cases whose text tries every way out of its place in the page.
HOSTILE_ROWS: list[dict[str, Any]] = [
    {**HALLUCINATED, "id": "script-answer", "answer": SCRIPT_ANSWER, "tags": ["<b>tag</b>"]},
    {**GOOD, "id": "attribute-breakout", "question": ATTRIBUTE_BREAKOUT},
    {
        **HALLUCINATED,
        # The id reaches the Jinja-rendered failure lines through a case threshold.
        "id": ATTRIBUTE_BREAKOUT,
        "answer": f"{CLOSING_TAGS} The Eiffel Tower was completed in 1925.",
        "thresholds": {"faithfulness": 0.9},
    },
]


class Page(HTMLParser):
    """What a browser's tokeniser finds in the page: elements, attributes, script texts."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._in_script: dict[str, str | None] | None = None
        self.text: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script = dict(attrs)
            self.scripts.append((self._in_script, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = None

    def handle_data(self, data: str) -> None:
        if self._in_script is not None:
            attributes, text = self.scripts[-1]
            self.scripts[-1] = (attributes, text + data)
        else:
            self.text.append(data)

    def data(self) -> dict[str, Any]:
        """The JSON the page's script reads."""
        for attributes, text in self.scripts:
            if attributes.get("id") == "rag-gate-data":
                loaded: dict[str, Any] = json.loads(text)
                return loaded
        raise AssertionError("the page has no data script")

    def names(self) -> set[str]:
        return {tag for tag, _ in self.tags}


def gate(pytester: pytest.Pytester, *extra: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--rag-gate",
        "--rag-gate-judge",
        "offline",
        "--rag-gate-cache",
        "off",
        "-p",
        "no:randomly",
        *extra,
    )


def read_page(path: Path) -> tuple[str, Page]:
    text = path.read_text(encoding="utf-8")
    return text, Page(text)


# --- one page, two ways -----------------------------------------------------------------


def test_the_run_and_rag_gate_html_write_the_same_page(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    write_jsonl(pytester, "golden.jsonl", [*good_rows(2), HALLUCINATED])
    result = gate(pytester, "--rag-gate-report", "out/r.json", "--rag-gate-html", "out/r.html")
    assert result.ret == pytest.ExitCode.TESTS_FAILED

    status = cli.main(
        ["html", str(pytester.path / "out/r.json"), "-o", str(pytester.path / "c.html")]
    )

    assert status == 0
    assert "wrote" in capsys.readouterr().out
    from_run = (pytester.path / "out" / "r.html").read_text(encoding="utf-8")
    assert (pytester.path / "c.html").read_text(encoding="utf-8") == from_run
    page = Page(from_run)
    assert page.data()["cases"][0]["id"] == "wrong-year"
    assert "RAG gate: FAILED" in "".join(page.text)


def test_the_html_setting_of_the_config_file_writes_the_page(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    write_config(pytester.path, html="reports/gate.html")

    result = gate(pytester)

    assert result.ret == pytest.ExitCode.OK
    _, page = read_page(pytester.path / "reports" / "gate.html")
    assert [case["id"] for case in page.data()["cases"]] == ["good-0", "good-1"]


def test_the_page_of_merged_shards_holds_every_case(tmp_path: Path) -> None:
    first = write(tmp_path / "1.json", [case("a", 0.9, line=1)], shard={"index": 1, "count": 2})
    second = write(tmp_path / "2.json", [case("b", 0.2, line=2)], shard={"index": 2, "count": 2})
    assert cli.main(["merge", str(first), str(second), "-o", str(tmp_path / "m.json")]) == 1

    assert cli.main(["html", str(tmp_path / "m.json"), "-o", str(tmp_path / "m.html")]) == 0

    _, page = read_page(tmp_path / "m.html")
    assert [case["id"] for case in page.data()["cases"]] == ["b", "a"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["missing.json", "-o", "x.html"], "Cannot read the report missing.json"),
        (["REPORT", "-o", "REPORT/x.html"], "Cannot write REPORT/x.html"),
    ],
)
def test_rag_gate_render_html_says_what_is_wrong_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    arguments: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "REPORT", [case("a", 0.9)])

    status = cli.main(["render", *arguments])

    error = capsys.readouterr().err
    assert status == 4
    assert error.startswith("rag-gate render: ") and message in error
    assert len(error.strip().splitlines()) == 1


# --- self-contained and safe --------------------------------------------------------------


@pytest.fixture
def hostile_page(pytester: pytest.Pytester) -> tuple[str, Page]:
    write_jsonl(pytester, "golden.jsonl", HOSTILE_ROWS)
    gate(pytester, "--rag-gate-html", "page.html")
    return read_page(pytester.path / "page.html")


def test_case_text_never_becomes_markup(hostile_page: tuple[str, Page]) -> None:
    text, page = hostile_page

    # Only our own elements: no <img>, no <b>, exactly our two scripts.
    assert "img" not in page.names() and "b" not in page.names()
    assert [attributes.get("id") for attributes, _ in page.scripts] == ["rag-gate-data", None]
    assert not [
        (tag, name) for tag, attributes in page.tags for name in attributes if name.startswith("on")
    ]
    # The data script cannot be ended or commented out by a case.
    data_text = page.scripts[0][1]
    for fragment in ("</script", "<!--", "<img", "<b>"):
        assert fragment not in data_text
    # ... and still hands the script the exact strings.
    cases = {case["id"]: case for case in page.data()["cases"]}
    assert cases["script-answer"]["answer"] == SCRIPT_ANSWER
    assert cases["script-answer"]["tags"] == ["<b>tag</b>"]
    assert cases["attribute-breakout"]["question"] == ATTRIBUTE_BREAKOUT
    assert cases[ATTRIBUTE_BREAKOUT]["answer"].startswith(CLOSING_TAGS)
    # Text rendered by the template (the failure line naming the case) is escaped text.
    assert any(ATTRIBUTE_BREAKOUT in line for line in page.text)
    assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in text
    # The tag filter offers the tag as text.
    assert '<option value="&lt;b&gt;tag&lt;/b&gt;">&lt;b&gt;tag&lt;/b&gt;</option>' in text


def test_the_page_fetches_nothing_and_runs_only_its_own_script(
    hostile_page: tuple[str, Page],
) -> None:
    text, page = hostile_page

    policy = next(
        attributes["content"]
        for tag, attributes in page.tags
        if tag == "meta" and attributes.get("http-equiv") == "Content-Security-Policy"
    )
    assert policy is not None
    assert "default-src 'none'" in policy
    script = page.scripts[1][1]
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy
    # Nothing points outside the file: every link is a fragment or a data: URL.
    for tag, attributes in page.tags:
        for name in ("src", "href", "action"):
            value = attributes.get(name)
            if value is not None:
                assert value.startswith(("#", "data:")), (tag, name, value)
    assert not re.search(r"https?://|//[a-z]", text.replace("http://www.w3.org/2000/svg", ""))


def test_no_secret_reaches_the_page(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-never-in-a-page")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-never-in-a-page")
    write_jsonl(pytester, "golden.jsonl", good_rows(1))

    gate(pytester, "--rag-gate-html", "page.html")

    text = (pytester.path / "page.html").read_text(encoding="utf-8")
    assert "never-in-a-page" not in text


def test_chinese_and_english_text_is_kept_as_written(tmp_path: Path) -> None:
    chinese = CaseResult(
        id="退款",
        source="golden.yaml:3",
        question="退款需要多长时间？",
        answer="退款在五个工作日内到账。",
        scores={"faithfulness": 1.0},
        details={"faithfulness": [{"claim": "退款在五个工作日内到账。", "verdict": "supported"}]},
    )
    report = json.loads(write(tmp_path / "r.json", [chinese, case("en", 0.9)]).read_text())

    text = render_html(report, [chinese, case("en", 0.9)])

    assert '<meta charset="utf-8">' in text
    data = Page(text).data()
    by_id = {case["id"]: case for case in data["cases"]}
    assert by_id["退款"]["question"] == "退款需要多长时间？"
    assert "退款需要多长时间？" in text  # as UTF-8, not \u escapes
    assert by_id["退款"]["segments"] == [[0, 12, 0]]


# --- what the page shows ------------------------------------------------------------------


def test_worst_cases_come_first(tmp_path: Path) -> None:
    results = [
        case("fine", 0.95, line=1),
        case("low", 0.1, line=2),
        case("lower", 0.05, line=3),
        case("broken", None, line=4).model_copy(update={"error": "the target raised"}),
        case("own", 0.9, line=5).model_copy(update={"thresholds": {"faithfulness": 0.95}}),
        case("middle", 0.8, line=6),
    ]
    report = json.loads(write(tmp_path / "r.json", results).read_text())

    data = Page(render_html(report, results)).data()

    order = [(case["id"], case["status"]) for case in data["cases"]]
    assert order == [
        ("broken", "error"),
        ("own", "fail"),
        ("lower", "below"),
        ("low", "below"),
        ("middle", "below"),
        ("fine", "pass"),
    ]
    low = next(case for case in data["cases"] if case["id"] == "low")
    assert low["misses"] == ["faithfulness"]
    assert low["anchor"] == case_anchor("golden.jsonl::low")


def test_metric_cards_show_mean_interval_threshold_and_distribution(tmp_path: Path) -> None:
    results = [case(f"c{index}", score, line=index) for index, score in enumerate([0.2, 0.9, 1.0])]
    report = json.loads(write(tmp_path / "r.json", results).read_text())

    text = render_html(report, results)

    card = re.search(
        r'<article class="card card-fail" data-metric="faithfulness"[^>]*>(.*?)</article>',
        text,
        re.S,
    )
    assert card is not None, text
    body = card.group(1)
    # The mean as the gate shows it everywhere: digits enough to compare with the threshold.
    assert '<p class="mean">0.70</p>' in body
    assert "threshold ≥ 0.85 (mean)" in body
    assert "95% CI" in body
    # The threshold line at 0.85 of the 200-unit-wide chart; the bar of 0.2 is on the failing side.
    assert 'class="threshold-line" x1="170.0"' in body
    # The bins whose middle is below 0.85 (0.0–0.1 … 0.7–0.8) are drawn as failing.
    assert body.count('class="bar-miss"') == 8
    assert "1 case(s) from 0.2 to 0.3" in body
    # Each bar carries its count; the threshold line its value.
    assert re.search(r'<text class="count"[^>]*>1</text>', body)
    assert re.search(r'<text class="threshold-label"[^>]*>0.85</text>', body)


def test_baseline_deltas_per_metric_and_per_case(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester, "golden.jsonl", good_rows(2))
    gate(pytester, "--rag-gate-report", "base.json")
    regressed = [good_rows(2)[0], {**GOOD, "answer": "Apple was founded in 1925.", "id": "good-1"}]
    write_jsonl(pytester, "golden.jsonl", regressed)

    gate(pytester, "--rag-gate-baseline", "base.json", "--rag-gate-html", "page.html")

    text, page = read_page(pytester.path / "page.html")
    assert "baseline on the same 2 paired cases 1.000 → 0.500" in text
    assert "Largest per-case drops" in text
    assert f'<a href="#{case_anchor("golden.jsonl::good-1")}">golden.jsonl::good-1</a>' in text
    by_id = {case["id"]: case for case in page.data()["cases"]}
    assert by_id["good-1"]["deltas"]["faithfulness"] == [1.0, 0.0]


def test_blocks_the_page_does_not_know_are_still_shown(tmp_path: Path) -> None:
    results = [case("a", 0.9)]
    report = json.loads(write(tmp_path / "r.json", results).read_text())
    report["metrics"]["faithfulness"]["ppi"] = {"mean": 0.91, "ci_low": 0.8}
    report["agreement"] = {"faithfulness": {"spearman": {"value": 0.77}, "note": "<i>x</i>"}}
    report["future_block"] = {"figure": 0.123456}
    report["usage"]["cache_read_tokens"] = 1234

    text = render_html(report, results)

    assert "Judge–human agreement" in text and "&lt;i&gt;x&lt;/i&gt;" in text
    assert "<dt>ppi</dt>" in text and "0.91" in text
    assert "<dt>future_block</dt>" in text and "0.1235" in text
    assert "<th>cache read tokens</th>" in text and "1,234" in text


@pytest.mark.slow
def test_a_1000_case_page_stays_one_reasonable_file(tmp_path: Path) -> None:
    results = [case(f"case-{index:04d}", (index % 100) / 100, line=index) for index in range(1000)]
    report = json.loads(
        write(tmp_path / "r.json", results, config=GateConfig(bootstrap_resamples=100)).read_text()
    )

    text = render_html(report, results)

    assert len(Page(text).data()["cases"]) == 1000
    # Rows are drawn a page at a time by the script, not written into the HTML.
    assert text.count("<tr") < 40
    assert len(text.encode("utf-8")) < 1_500_000


def test_the_page_carries_its_script_and_style_without_comments_or_indentation(
    tmp_path: Path,
) -> None:
    results = [case("c0", 0.9)]
    report = json.loads(write(tmp_path / "r.json", results).read_text())

    text = render_html(report, results)

    script = Page(text).scripts[1][1]
    style = text.split("<style>", 1)[1].split("</style>", 1)[0]
    for code in (script, style):
        lines = code.strip().splitlines()
        assert len(lines) > 50
        assert not [line for line in lines if line != line.lstrip() or not line]
        assert not [line for line in lines if line.startswith(("//", "/*"))]


# --- claims in the answer -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "claims", "segments"),
    [
        ("A is 1. B is 2.", ["A is 1.", "B is 2."], [[0, 7, 0], [8, 15, 1]]),
        ("A is 1. B is 2.", ["B is 2.", "A is 1."], [[0, 7, 1], [8, 15, 0]]),
        ("A is 1.", ["A is one", "A is 1."], [[0, 7, 1]]),
        # JavaScript counts UTF-16 code units: the emoji is two.
        ("😀 A is 1.", ["A is 1."], [[3, 10, 0]]),
        ("A is 1.", ["A is 1.", "is 1"], [[0, 7, 0]]),
    ],
)
def test_claims_are_found_in_the_answer(
    answer: str, claims: list[str], segments: list[list[int]]
) -> None:
    assert claim_segments(answer, [{"claim": claim} for claim in claims]) == segments


# --- pytest-html --------------------------------------------------------------------------------


def pytest_html_rows(path: Path) -> dict[str, list[str]]:
    """Each test's table row in a pytest-html report (kept as JSON in the page)."""
    import html

    text = path.read_text(encoding="utf-8")
    blob = re.search(r'data-jsonblob="([^"]*)"', text)
    assert blob is not None
    tests = json.loads(html.unescape(blob.group(1)))["tests"]
    return {test_id: runs[-1]["resultsTableRow"] for test_id, runs in tests.items()}


def test_pytest_html_rows_carry_scores_and_a_link_to_the_case_panel(
    pytester: pytest.Pytester,
) -> None:
    pytest.importorskip("pytest_html", reason="pytest-html is not installed")
    write_jsonl(pytester, "golden.jsonl", [GOOD, {**HALLUCINATED, "id": "<img src=x>"}])
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")

    gate(pytester, "--rag-gate-html", "out/gate.html", "--html", "reports/tests.html")

    rows = pytest_html_rows(pytester.path / "reports" / "tests.html")
    founders = rows["golden.jsonl::founders"][2]
    assert founders.startswith('<td class="rag-scores">faithfulness 1.00 · ')
    assert '<a href="../out/gate.html#case=golden.jsonl%3A%3Afounders">case panel</a>' in founders
    hostile = rows["golden.jsonl::<img src=x>"][2]
    assert "<strong>faithfulness 0.00</strong>" in hostile  # below the gate's 0.85
    assert "<img" not in hostile and "%3Cimg%20src%3Dx%3E" in hostile
    assert rows["test_plain.py::test_plain"][2] == '<td class="rag-scores"></td>'


def test_what_to_fix_and_what_retrieval_costs_are_shown(tmp_path: Path) -> None:
    results = [case("weak-recall", 0.95, recall=0.2, line=1), case("fine", 0.95, line=2)]
    report = json.loads(write(tmp_path / "r.json", results).read_text())
    report["oracle_gaps"] = [
        {"metric": "faithfulness", "retriever": 0.71, "oracle": 0.93, "gap": 0.22}
    ]

    text = render_html(report, results)

    section = text[text.index('<article id="what-to-fix">') :]
    section = section[: section.index("</article>")]
    # One row per component, the cases without a problem ("ok") included.
    assert '<tr><th scope="row">retrieval</th><td>1</td></tr>' in section
    assert '<tr><th scope="row">ok</th><td>1</td></tr>' in section
    assert "Fix the retriever first:" in section
    # Advice is alarm red only when the gate failed.
    alarm = '<p class="alarm"><strong>Fix the retriever first:'
    assert (alarm in section) == (report["verdict"] == "failed")
    report["verdict"] = "passed"
    assert alarm not in render_html(report, results)
    assert (
        "faithfulness 0.71 with your retriever, 0.93 with gold contexts: retrieval costs 0.22"
        in text
    )


def test_agreement_is_a_metric_by_statistic_table_and_ppi_a_line_of_the_card(
    tmp_path: Path,
) -> None:
    results = [case("a", 0.9)]
    report = json.loads(write(tmp_path / "r.json", results).read_text())
    report["metrics"]["faithfulness"]["labelled"] = 40
    report["metrics"]["faithfulness"]["ppi"] = {
        "labelled": 40,
        "unlabelled": 20,
        "estimate": 0.7,
        "ci_low": 0.4713,
        "ci_high": 0.9287,
        "judge_mean": 0.7,
        "human_mean": 0.65,
        "rectifier": 0.0,
    }
    interval = {"value": 0.78, "ci_low": 0.56, "ci_high": 0.95}
    report["agreement"] = {
        "faithfulness": {"n": 40, "binary": True, "kappa": interval, "floors": {}, "passed": None}
    }

    text = render_html(report, results)

    row = re.search(r'<tr data-metric="faithfulness">(.*?)</tr>', text, re.S)
    assert row is not None, text
    assert '<th scope="col">Cohen\'s κ</th>' in text.replace("&#39;", "'")
    assert "<td>40</td>" in row.group(1) and "<td>0.78 [0.56–0.95]</td>" in row.group(1)
    assert "<dl" not in row.group(1)
    assert "human scale (PPI) <strong>0.700</strong>, CI 0.471–0.929" in text
    assert "40 labelled, 20 unlabelled" in text
    assert "<dt>ppi</dt>" not in text


def test_the_largest_drops_name_each_case_once(tmp_path: Path) -> None:
    from pytest_ragas_gate.reports.html import page_context

    # Case "a" drops on both metrics: one line for it, at its larger drop.
    base = [case("a", 1.0, 1.0, line=1), case("b", 1.0, 1.0, line=2)]
    new = [case("a", 0.1, 0.2, line=1), case("b", 0.5, 1.0, line=2)]
    report = json.loads(write(tmp_path / "r.json", new).read_text())

    drops = page_context(report, new, baseline=base)["drops"]

    assert [drop["case"] for drop in drops] == ["golden.jsonl::a", "golden.jsonl::b"]


def test_the_below_threshold_filter_offers_only_metrics_a_case_can_be_below(
    tmp_path: Path,
) -> None:
    results = [case("a", 0.9, line=1), case("b", 0.2, line=2)]
    report = json.loads(write(tmp_path / "r.json", results).read_text())
    gated = sorted(
        name for name, aggregate in report["metrics"].items() if aggregate.get("threshold")
    )
    # A metric without a threshold, as the report lists reported-only metrics.
    report["metrics"]["answer_correctness"] = {"mean": 0.5, "n": 2, "threshold": None}

    text = render_html(report, results)

    select = text[text.index('<select id="filter-miss">') :]
    select = select[: select.index("</select>")]
    offered = sorted(re.findall(r'<option value="([^"]+)">', select))
    assert offered == gated and "answer_correctness" not in offered


def test_the_baseline_is_named_by_its_commit_and_run(tmp_path: Path) -> None:
    base = write(tmp_path / "base.json", [case("a", 0.9), case("b", 0.9, line=2)])
    raw = json.loads(base.read_text(encoding="utf-8"))
    raw["run"].update(commit="abcdef0123456789", run_url="https://ci.example/runs/7")
    base.write_text(json.dumps(raw), encoding="utf-8")
    now = write(tmp_path / "now.json", [case("a", 0.9), case("b", 0.2, line=2)])
    compared = tmp_path / "compared.json"
    cli.main(["regate", str(now), "--baseline", str(base), "-o", str(compared)])

    assert cli.main(["html", str(compared), "-o", str(tmp_path / "page.html")]) == 0

    text = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert (
        'The run of commit <code>abcdef0</code> (<a href="https://ci.example/runs/7">CI run</a>)'
        in text
    )
