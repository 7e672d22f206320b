"""End to end: `pytest --rag-gate` with the anthropic and openai judges, through the real SDKs.

The fake LLM server runs in this process; the runs under test find it through the
SDKs' own ``ANTHROPIC_BASE_URL`` / ``OPENAI_BASE_URL``, as a user's CI would.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakellm import INVALID, FakeLLM, Recorded, status
from gate_runs import gate_run

KEY = "test-key-not-real"
CORE_METRICS = "faithfulness,answer_relevancy,context_precision,context_recall"
CORE_REQUEST_KINDS = {"extract_claims", "rate_relevancy", "review_case"}


def case(index: int) -> dict[str, Any]:
    """A distinct, well-supported case: its own product name appears in every field."""
    product = f"Zorblax{index}"
    return {
        "id": f"case-{index}",
        "question": f"How much storage does the {product} plan give each user?",
        "answer": f"The {product} plan gives each user {index + 2} TB of storage. "
        f"The {product} plan includes file sharing.",
        "contexts": [
            f"The {product} plan gives each user {index + 2} TB of storage.",
            f"The {product} plan includes file sharing and version history.",
            "Support is available on weekdays.",
        ],
        "reference": f"The {product} plan gives each user {index + 2} TB of storage.",
    }


def write_cases(pytester: pytest.Pytester, count: int, name: str = "golden.jsonl") -> Path:
    path = pytester.path / name
    rows = [case(index) for index in range(count)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def write_config(pytester: pytest.Pytester, text: str) -> None:
    (pytester.path / "rag_gate.yaml").write_text(text, encoding="utf-8")


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    """A fake server both judges' SDKs are pointed at, with the Anthropic key set."""
    with FakeLLM() as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        yield fake


def scores_of(report: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    return {result["id"]: result["scores"] for result in report["cases"]}


def requests_by_case(server: FakeLLM, count: int) -> dict[int, list[Recorded]]:
    """Each judge request, filed under the case whose product name it mentions."""
    by_case: dict[int, list[Recorded]] = defaultdict(list)
    for request in server.judge_requests():
        owners = [index for index in range(count) if f"Zorblax{index} " in request.text]
        assert len(owners) == 1, request.text[:300]
        by_case[owners[0]].append(request)
    return by_case


def longest_sequential_chain(requests: list[Recorded]) -> int:
    """The most requests of one case that ran strictly one after another."""
    ordered = sorted(requests, key=lambda request: request.received_s)
    chain: list[int] = []
    for position, request in enumerate(ordered):
        before = [
            chain[earlier]
            for earlier in range(position)
            if (ordered[earlier].answered_s or 0.0) <= request.received_s
        ]
        chain.append(1 + max(before, default=0))
    return max(chain, default=0)


@pytest.mark.parametrize(
    ("judge", "model"), [("anthropic", "claude-sonnet-5-5"), ("openai", "gpt-4.1-mini")]
)
def test_header_summary_and_report_show_the_judge_and_its_usage(
    pytester: pytest.Pytester, server: FakeLLM, judge: str, model: str
) -> None:
    write_cases(pytester, 2)
    result = gate_run(pytester, judge=judge, metrics=CORE_METRICS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines([f"rag-gate: judge {judge} ({model}) — --rag-gate-judge {judge}"])
    result.stdout.fnmatch_lines(
        [
            f"judge: {judge} ({model})*",
            "judge usage: 6 calls, * input + * output tokens, $0.0*, 0 cache hits, 0 retries",
            "  answer_relevancy: 2 calls, * input + * output tokens, $*, 0 cache hits, 0 retries",
            # Context recall shares context precision's request, and the claim verification
            # goes with it (review_case): counted once, for the metric that asked first.
            "  context_precision: 2 calls, *",
            "  faithfulness: 2 calls, *",
            "RAG gate: PASSED",
        ]
    )
    report = result.report
    assert report["judge"]["kind"] == judge and report["judge"]["model"] == model
    usage = report["usage"]
    assert usage["calls"] == len(server.judge_requests()) == 6
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert usage["cost_usd"] > 0 and usage["cache_hits"] == 0 and usage["retries"] == 0
    by_metric = usage["by_metric"]
    assert {name: record["calls"] for name, record in by_metric.items()} == {
        "answer_relevancy": 2,
        "context_precision": 2,
        "faithfulness": 2,
    }
    for field in ("input_tokens", "output_tokens", "cost_usd"):
        assert sum(record[field] for record in by_metric.values()) == pytest.approx(usage[field])
    assert all(record["cost_usd"] > 0 for record in by_metric.values())


def test_cached_run_replays_without_a_key_and_without_calls(
    pytester: pytest.Pytester, server: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_cases(pytester, 3)
    recorded = gate_run(pytester, judge="anthropic", report="first.json")
    assert recorded.ret == pytest.ExitCode.OK, recorded.stdout.str()
    calls = server.calls
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    replayed = gate_run(pytester, cache="read", report="second.json")
    assert replayed.ret == pytest.ExitCode.OK, replayed.stdout.str()
    replayed.stdout.fnmatch_lines(["rag-gate: judge anthropic (*) — auto: *cache mode is read*"])
    replayed.stdout.fnmatch_lines(["judge usage: 0 calls, 0 input + 0 output tokens, *"])
    assert server.calls == calls
    first, second = recorded.report, replayed.report
    assert scores_of(second) == scores_of(first)
    assert second["usage"]["calls"] == 0
    assert second["usage"]["cache_hits"] == first["usage"]["calls"]


@pytest.mark.slow
def test_a_fully_cached_run_with_a_key_never_loads_the_sdk(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    write_cases(pytester, 2)
    pytester.makeconftest(
        """
        import gc
        import sys

        def pytest_sessionfinish(session):
            loaded = "anthropic" in sys.modules
            with open("sdk-loaded.txt", "w") as out:
                out.write(str(loaded))
            with open("gc-enabled.txt", "w") as out:
                out.write(f"{gc.isenabled()} {gc.get_freeze_count()}")
        """
    )
    command = ("--rag-gate", "--rag-gate-judge", "anthropic", "-p", "no:cacheprovider")
    recorded = pytester.runpytest_subprocess(*command)
    assert recorded.ret == pytest.ExitCode.OK, recorded.stdout.str()
    assert (pytester.path / "sdk-loaded.txt").read_text() == "True"
    # The SDK loads with the garbage collector paused and scoring spares what it loaded;
    # the user's tests get the collector back, seeing every object.
    # Nothing is left frozen but what a fresh interpreter freezes itself (CPython 3.12 does).
    startup = subprocess.run(
        [sys.executable, "-I", "-c", "import gc; print(gc.get_freeze_count())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert (pytester.path / "gc-enabled.txt").read_text() == f"True {startup}"
    calls = server.calls
    replayed = pytester.runpytest_subprocess(*command)
    assert replayed.ret == pytest.ExitCode.OK, replayed.stdout.str()
    assert server.calls == calls
    # Importing the SDK costs over a second; a run served by the cache does not pay it.
    assert (pytester.path / "sdk-loaded.txt").read_text() == "False"


def test_a_read_mode_miss_errors_its_case_and_leaves_no_deploy_decision(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    write_cases(pytester, 2)
    assert gate_run(pytester, judge="anthropic", report=None).ret == 0
    write_cases(pytester, 3)
    calls = server.calls
    result = gate_run(pytester, "-rE", judge="anthropic", cache="read", report=None)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["ERROR golden.jsonl::case-2 - *cache m*"])
    result.stdout.fnmatch_lines(["ERROR judge unreliable: 1 of 3 case(s) errored*"])
    result.stdout.fnmatch_lines(["RAG gate: ERROR"])
    assert server.calls == calls


@pytest.mark.slow
def test_xdist_workers_sharing_a_cache_send_each_request_once(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    write_cases(pytester, 6)
    common = ["--rag-gate", "--rag-gate-judge", "anthropic", "--rag-gate-metrics", CORE_METRICS]
    serial = pytester.runpytest(*common, "--rag-gate-cache-dir", "serial-cache")
    assert serial.ret == pytest.ExitCode.OK, serial.stdout.str()
    serial_calls = server.calls
    distributed = pytester.runpytest(*common, "-n", "2", "--rag-gate-cache-dir", "shared-cache")
    assert distributed.ret == pytest.ExitCode.OK, distributed.stdout.str()
    assert server.calls - serial_calls == serial_calls == 6 * 3
    bodies = [request.text for request in server.judge_requests()[serial_calls:]]
    assert len(set(bodies)) == len(bodies)


@pytest.mark.slow
def test_a_judge_that_always_fails_errors_every_case_and_decides_nothing(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    server.fail(status(500))
    write_cases(pytester, 3)
    write_config(pytester, "max_retries: 1\n")
    result = gate_run(pytester, judge="anthropic", junit="junit.xml")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(["ERROR judge unreliable: 3 of 3 case(s) errored*"])
    result.stdout.fnmatch_lines(
        ["RAG gate: ERROR", "Judge unavailable, no deploy decision — judge unreliable: *"]
    )
    assert "Traceback" not in result.stdout.str()
    report = result.report
    assert report["verdict"] == "error"
    for result_case in report["cases"]:
        assert result_case["errors"], result_case
        assert all("HTTP 500" in message for message in result_case["errors"].values())
    suites = ElementTree.parse(pytester.path / "junit.xml").getroot()
    cases = [
        element
        for element in suites.iter("testcase")
        if element.get("name", "").startswith("case-")
    ]
    assert len(cases) == 3
    assert all(element.find("error") is not None for element in cases)


def test_the_call_budget_stops_scoring_cleanly(pytester: pytest.Pytester, server: FakeLLM) -> None:
    write_cases(pytester, 4)
    write_config(pytester, "max_calls: 6\nconcurrency: 1\n")
    result = gate_run(pytester, "-rE", judge="anthropic", metrics=CORE_METRICS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert server.calls == 6
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors", 0) >= 2
    result.stdout.fnmatch_lines(["ERROR golden.jsonl::case-* - *call budget is spent*"])
    result.stdout.fnmatch_lines(
        [
            "ERROR judge budget spent (* case(s) left unscored): * of 4 case(s) errored*",
            "RAG gate: ERROR",
            "Judge unavailable, no deploy decision — judge budget spent*",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    report = result.report
    unscored = [result for result in report["cases"] if result["error"]]
    assert len(unscored) == outcomes["errors"]
    assert all("max_calls=6" in result["error"] for result in unscored)
    assert report["usage"]["calls"] == 6


def test_a_reply_that_breaks_the_schema_is_asked_again(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    server.fail(INVALID, calls=[1])
    write_cases(pytester, 1)
    result = gate_run(pytester, judge="anthropic", metrics=CORE_METRICS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["judge usage: 4 calls, *"])
    reasked = [request for request in server.judge_requests() if len(request.body["messages"]) == 3]
    assert len(reasked) == 1
    assert "could not be used" in reasked[0].body["messages"][2]["content"]
    assert result.report["usage"]["calls"] == 4


@pytest.mark.slow
def test_core_metrics_take_three_calls_per_case_and_two_in_a_row(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    server.latency_s = 0.2
    count = 4
    write_cases(pytester, count)
    result = gate_run(pytester, judge="anthropic", metrics=CORE_METRICS, report=None)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    by_case = requests_by_case(server, count)
    assert sorted(by_case) == list(range(count))
    for requests in by_case.values():
        kinds = [server.kind_of(request) for request in requests]
        # Faithfulness and the context metrics share one request with the contexts.
        assert len(requests) == 3 and set(kinds) == CORE_REQUEST_KINDS
        assert longest_sequential_chain(requests) <= 2
        # That request waits for the claims, and only for them.
        (extraction,) = [
            r for r, kind in zip(requests, kinds, strict=True) if kind == "extract_claims"
        ]
        (paired,) = [r for r, kind in zip(requests, kinds, strict=True) if kind == "review_case"]
        assert paired.received_s >= (extraction.answered_s or 0.0)


def test_reverse_questions_relevancy_embeds_through_the_openai_judge(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    write_cases(pytester, 2)
    write_config(
        pytester,
        "answer_relevancy_strategy: reverse_questions\nembedding_model: fake-embedding-small\n",
    )
    options: dict[str, Any] = {
        "judge": "openai",
        "metrics": "answer_relevancy",
        "report_details": "full",
    }
    result = gate_run(pytester, **options)
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()
    embeddings = [request for request in server.requests if request.path == "/v1/embeddings"]
    assert len(embeddings) == 2
    assert {request.body["model"] for request in embeddings} == {"fake-embedding-small"}
    assert all(len(request.body["input"]) == 4 for request in embeddings)
    report = result.report
    for result_case in report["cases"]:
        score = result_case["scores"]["answer_relevancy"]
        assert score is not None and 0.0 < score <= 1.0
        assert [sorted(item) for item in result_case["details"]["answer_relevancy"]] == [
            ["question", "similarity"]
        ] * 3
        # Two calls per case: generate the questions, then embed them with the question.
        assert result_case["usage"]["answer_relevancy"]["calls"] == 2
    # Embedding calls and tokens count like judge calls, per case, per metric and in total.
    # The structured-output probes of the server (once per run) are no judge calls.
    assert report["usage"]["calls"] == len(server.requests) - server.probes == 4
    requests_before = len(server.requests)
    cached = gate_run(pytester, **options)
    assert cached.ret == result.ret
    assert len(server.requests) == requests_before
    assert cached.report["usage"]["cache_hits"] == 4


def test_reverse_questions_without_an_embeddings_api_is_a_usage_error(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    write_cases(pytester, 1)
    write_config(pytester, "answer_relevancy_strategy: reverse_questions\n")
    result = gate_run(pytester, judge="anthropic", report=None)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*'reverse_questions'*the anthropic judge has no embeddings API*--rag-gate-judge openai*"]
    )
    assert server.calls == 0


@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_contradicted_claims_are_counted_and_gated_with_a_maximum(
    pytester: pytest.Pytester, server: FakeLLM, api: str
) -> None:
    rows = [
        {
            "id": "right-year",
            "question": "When was the Eiffel Tower completed?",
            "answer": "The Eiffel Tower was completed in 1889.",
            "contexts": ["The Eiffel Tower was completed in 1889 in Paris."],
        },
        {
            "id": "wrong-year",
            "question": "When was the Eiffel Tower completed?",
            "answer": "The Eiffel Tower was completed in 1925.",
            "contexts": ["The Eiffel Tower was completed in 1889 in Paris."],
        },
    ]
    (pytester.path / "golden.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8"
    )
    result = gate_run(
        pytester,
        judge=api,
        metrics="faithfulness,contradiction_rate",
        threshold=["faithfulness=0", "contradiction_rate<=0.02"],
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "contradiction_rate  0.500 *<=0.02*FAIL",
            "FAILED contradiction_rate mean 0.50 > 0.02 (n=2*",
        ]
    )
    report = result.report
    wrong = next(case for case in report["cases"] if case["id"] == "wrong-year")
    assert [claim["verdict"] for claim in wrong["details"]["faithfulness"]] == ["contradicted"]
    # Both metrics read one verification: two calls per case, as faithfulness alone.
    assert report["usage"]["calls"] == 4
    verify = [r for r in server.judge_requests() if "verify" in json.dumps(r.body)]
    assert verify and all("not_in_context" in json.dumps(r.body) for r in verify)
