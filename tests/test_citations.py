"""citation_precision and citation_recall: markers, the worked example, every judge, end to end."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeLLM
from gate_runs import WORKERS, judges_by_workers, make_judge

from pytest_ragas_gate.golden.cases import Context, GoldenCase
from pytest_ragas_gate.judges.offline.judge import OfflineJudge
from pytest_ragas_gate.judges.openai_judge import OpenAIJudge
from pytest_ragas_gate.judges.requests import JudgeRequest
from pytest_ragas_gate.metrics.citations import (
    CitationPrecision,
    CitationRecall,
    compile_citation_pattern,
    find_citations,
)
from pytest_ragas_gate.metrics.registry import MetricRegistry

KEY = "test-key-not-real"

TICKET = "A day ticket is valid for 3 hours from its first use."
CHILDREN = "Children under 6 travel free on every line."

#: The worked example: the second sentence cites the ticket context, which says nothing of
#: children. By hand: citations (s1→[1] supports, s2→[1] does not) → precision 1/2 = 0.5;
#: factual sentences (s1 backed, s2 not) → recall 1/2 = 0.5.
WRONG_CONTEXT = {
    "id": "wrong-context",
    "question": "How long is a day ticket valid, and who travels free?",
    "answer": "A day ticket is valid for 3 hours from its first use [1]. "
    "Children under 6 travel free on every line [1].",
    "contexts": [TICKET, CHILDREN],
}
#: The same answer citing the right contexts: 1.0 and 1.0.
RIGHT_CONTEXT = {
    **WRONG_CONTEXT,
    "id": "right-context",
    "answer": "A day ticket is valid for 3 hours from its first use [1]. "
    "Children under 6 travel free on every line 【2】.",
}
#: No marker at all: citation_precision is n/a, citation_recall 0.
UNCITED = {
    **WRONG_CONTEXT,
    "id": "uncited",
    "answer": "A day ticket is valid for 3 hours from its first use.",
}


def golden(row: dict[str, Any]) -> GoldenCase:
    contexts = [Context(text=text) if isinstance(text, str) else text for text in row["contexts"]]
    return GoldenCase(
        id=row["id"], question=row["question"], answer=row["answer"], contexts=contexts
    )


class Replies:
    """What a metric sees of a judge: the reply of each request."""

    def __init__(self, judge: Any) -> None:
        self.judge = judge

    async def ask(self, request: JudgeRequest[Any]) -> Any:
        return (await self.judge.ask(request)).reply

    async def aclose(self) -> None:
        await self.judge.aclose()


def score_both(row: dict[str, Any], inner: Any) -> tuple[float | None, float | None]:
    case = golden(row)
    judge = Replies(inner)

    async def run() -> tuple[float | None, float | None]:
        try:
            precision = await CitationPrecision().score(case, judge)
            recall = await CitationRecall().score(case, judge)
        finally:
            await judge.aclose()
        return precision.score, recall.score

    return asyncio.run(run())


# --- markers ----------------------------------------------------------------------------------


def test_rank_id_and_fullwidth_markers_resolve_to_contexts() -> None:
    contexts = [Context(id="doc-a", text=TICKET), Context(id="doc-b", text=CHILDREN)]
    answer = "Valid for 3 hours [doc-a]. Kids go free【2】. Both hold [1, 2]. No source [sic]."
    sentences = find_citations(answer, contexts, compile_citation_pattern(None))
    assert sentences is not None
    assert [(s.text, s.cited) for s in sentences] == [
        ("Valid for 3 hours.", (0,)),
        ("Kids go free.", (1,)),
        ("Both hold.", (0, 1)),
        ("No source [sic].", ()),
    ]


def test_a_marker_naming_no_context_is_a_citation_that_supports_nothing() -> None:
    row = {
        **WRONG_CONTEXT,
        "answer": "A day ticket is valid for 3 hours from its first use [1][7].",
    }
    sentences = find_citations(
        row["answer"], golden(row).contexts or [], compile_citation_pattern(None)
    )
    assert sentences is not None and sentences[0].dangling == ("7",)
    assert score_both(row, OfflineJudge()) == (0.5, 1.0)


def test_a_configured_pattern_reads_other_markers() -> None:
    pattern = compile_citation_pattern(r"\(source (\d+)\)")
    contexts = [Context(text=TICKET), Context(text=CHILDREN)]
    sentences = find_citations("Kids go free (source 2).", contexts, pattern)
    assert sentences is not None and sentences[0].cited == (1,)
    assert find_citations("Kids go free [2].", contexts, pattern) is None


# --- the worked example, on every judge --------------------------------------------------------


def test_offline_judge_scores_the_worked_example_by_hand() -> None:
    assert score_both(WRONG_CONTEXT, OfflineJudge()) == (0.5, 0.5)
    assert score_both(RIGHT_CONTEXT, OfflineJudge()) == (1.0, 1.0)


def test_an_answer_without_markers_is_not_applicable_and_asks_nothing(fake_llm: FakeLLM) -> None:
    case = golden(UNCITED)
    judge = Replies(make_judge(fake_llm))
    precision = asyncio.run(CitationPrecision().score(case, judge))
    assert precision.score is None and precision.reason == "no citations"
    assert fake_llm.judge_requests() == []


@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_llm_judges_score_the_worked_example_in_one_request(fake_llm: FakeLLM, api: str) -> None:
    judge: Any = (
        make_judge(fake_llm)
        if api == "anthropic"
        else OpenAIJudge(api_key=KEY, base_url=fake_llm.openai_url, timeout_s=2.0, seed=0)
    )
    assert score_both(WRONG_CONTEXT, judge) == (0.5, 0.5)
    kinds = [FakeLLM.kind_of(request) for request in fake_llm.judge_requests()]
    # Each metric asks alone here; in a run the scheduler answers the shared request once.
    assert set(kinds) == {"verify_citations"}
    text = fake_llm.judge_requests()[0].text
    assert "Cites contexts: 0" in text and 'field=\\"sentence\\"' in text


def test_a_bad_citation_pattern_is_a_config_error() -> None:
    from pytest_ragas_gate.exceptions import ConfigError

    with pytest.raises(ConfigError, match=r"citation_pattern '\\\\d\+' has no group"):
        MetricRegistry.installed(citation_pattern=r"\d+")


# --- end to end ----------------------------------------------------------------------------------


def write_rows(directory: Path, rows: list[dict[str, Any]]) -> None:
    text = "".join(json.dumps(row) + "\n" for row in rows)
    (directory / "golden.jsonl").write_text(text, encoding="utf-8")


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        yield fake


@pytest.mark.parametrize(
    ("judge", "workers"), judges_by_workers(["offline", "anthropic", "openai"])
)
def test_the_report_holds_both_metrics_reported_not_gated(
    pytester: pytest.Pytester, server: FakeLLM, judge: str, workers: list[str]
) -> None:
    write_rows(pytester.path, [WRONG_CONTEXT, RIGHT_CONTEXT, UNCITED])
    result = pytester.runpytest(
        "--rag-gate",
        "--rag-gate-judge",
        judge,
        "--rag-gate-metrics",
        "faithfulness,citation_precision,citation_recall",
        "--rag-gate-report",
        "report.json",
        "-p",
        "no:cacheprovider",
        *workers,
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    precision = report["metrics"]["citation_precision"]
    assert (precision["mean"], precision["n"], precision["not_applicable"]) == (0.75, 2, 1)
    assert precision["threshold"] is None and precision["passed"] is None
    scores = {case["id"]: case["scores"] for case in report["cases"]}
    assert scores["wrong-context"]["citation_precision"] == 0.5
    # A marker is no part of a claim: its number is not a value the contexts must hold.
    assert scores["right-context"]["faithfulness"] == 1.0
    # Citing nothing is no recall at all; precision has no citation to judge.
    assert scores["uncited"]["citation_recall"] == 0.0
    details = {case["id"]: case["details"] for case in report["cases"]}
    wrong = details["wrong-context"]["citation_precision"]
    assert [(d["cited"], d["supported"]) for d in wrong] == [(["[1]"], True), (["[1]"], False)]
    if judge != "offline":
        kinds = [FakeLLM.kind_of(request) for request in server.judge_requests()]
        # One request per cited case, shared by both metrics; none for the uncited one.
        assert kinds.count("verify_citations") == 2
    result.stdout.re_match_lines([r"citation_precision +0\.750 .* - +- +2 of 3 +1 +0 +report"])


def test_a_bad_citation_pattern_in_the_config_exits_4(pytester: pytest.Pytester) -> None:
    write_rows(pytester.path, [WRONG_CONTEXT])
    (pytester.path / "rag_gate.yaml").write_text("citation_pattern: '[('\n", encoding="utf-8")
    result = pytester.runpytest("--rag-gate", "--rag-gate-judge", "offline")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "citation_pattern '[(' is not a regular expression" in result.stderr.str()
    assert "Traceback" not in result.stderr.str() + result.stdout.str()


@pytest.mark.parametrize("workers", WORKERS)
def test_a_configured_marker_is_no_part_of_a_claim_for_the_offline_judge(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    row = {
        "id": "source-markers",
        "question": "How long is a day ticket valid, and who travels free?",
        "answer": "A day ticket is valid for 3 hours from its first use (source 1). "
        "Children under 6 travel free on every line (source 2).",
        "contexts": [TICKET, CHILDREN],
    }
    write_rows(pytester.path, [row])
    (pytester.path / "rag_gate.yaml").write_text(
        "citation_pattern: '\\(source (\\d+)\\)'\n", encoding="utf-8"
    )
    result = pytester.runpytest(
        "--rag-gate",
        "--rag-gate-judge",
        "offline",
        "--rag-gate-metrics",
        "faithfulness,citation_precision",
        "-v",
        "-p",
        "no:cacheprovider",
        *workers,
    )
    # "(source 1)" says where a claim came from: its 1 is not a value the contexts lack.
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["*PASSED*faithfulness=1.00 citation_precision=1.00*"])
