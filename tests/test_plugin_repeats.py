"""``--rag-gate-repeats K``: every judge request asked K times, and the judge's noise reported.

Driven through the real anthropic SDK against the fake server, whose noise switch flips
verdicts at random, drawn anew per request.
"""

from __future__ import annotations

import contextlib
import io
import statistics
from collections.abc import Iterator
from typing import Any

import pytest
from fakellm import FakeLLM
from gate_runs import case_row, gate_run, read_report, use_fake_judge, write_config, write_jsonl

from pytest_ragas_gate.cli import main

METRICS = "faithfulness,context_precision,context_recall,answer_relevancy"
#: Thresholds a noisy judge always meets, so a run fails only for what a test looks at.
ANY_SCORE = [f"--rag-gate-threshold={name}=0" for name in METRICS.split(",")]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        use_fake_judge(monkeypatch, fake)
        yield fake


#: How every run of this module gates: the anthropic judge on the fake server.
OPTIONS: dict[str, Any] = {"judge": "anthropic", "metrics": METRICS}


@pytest.mark.slow
def test_three_repeats_make_three_times_the_calls_and_a_cached_rerun_none(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    write_jsonl(pytester, "golden.jsonl", [case_row(index) for index in range(4)])
    once = gate_run(pytester, cache_dir="once", report="once.json", **OPTIONS)
    assert once.ret == pytest.ExitCode.OK, once.stdout.str()
    single_calls = server.calls

    thrice = gate_run(pytester, repeats=3, cache_dir="thrice", **OPTIONS)
    assert thrice.ret == pytest.ExitCode.OK, thrice.stdout.str()
    thrice.stdout.fnmatch_lines(["rag-gate: repeats 3 — every judge request asked 3 times*"])
    assert server.calls - single_calls == 3 * single_calls
    report = read_report(pytester.path / "report.json")
    assert report["usage"]["calls"] == 3 * single_calls
    assert report["config"]["repeats"] == 3

    before = server.calls
    replayed = gate_run(pytester, repeats=3, cache_dir="thrice", **OPTIONS)
    assert replayed.ret == pytest.ExitCode.OK, replayed.stdout.str()
    assert server.calls == before
    again = read_report(pytester.path / "report.json")
    assert again["usage"]["calls"] == 0
    assert again["usage"]["cache_hits"] == 3 * single_calls
    assert [case["scores"] for case in again["cases"]] == [
        case["scores"] for case in report["cases"]
    ]


def test_repeats_from_the_config_file_reuse_an_unrepeated_recording(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    write_jsonl(pytester, "golden.jsonl", [case_row(index) for index in range(2)])
    assert gate_run(pytester, **OPTIONS).ret == pytest.ExitCode.OK
    single_calls = server.calls
    write_config(pytester.path, repeats=2)
    result = gate_run(pytester, **OPTIONS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    # The first repeat keeps the key of an unrepeated request: only the second is sent.
    assert server.calls == 2 * single_calls


def rag_gate(*args: str) -> tuple[int, str]:
    """``rag-gate`` in this process (the test runs in the pytester directory)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            status = main(list(args))
        except SystemExit as exit_:
            status = int(exit_.code or 0)
    return status, out.getvalue()


def test_a_judge_that_never_flips_agrees_with_itself_fully(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    write_jsonl(pytester, "golden.jsonl", [case_row(index) for index in range(3)])
    result = gate_run(pytester, repeats=2, junit="junit.xml", **OPTIONS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(
        ["metric *verdict*judge agreement", "faithfulness *1.000 (sd 0.000, 3×2)"]
    )
    metrics = read_report(pytester.path / "report.json")["metrics"]
    for name in METRICS.split(","):
        assert metrics[name]["judge_noise"] == {
            "agreement": 1.0,
            "sd": 0.0,
            "cases": 3,
            "repeats": 2,
            "items": metrics[name]["judge_noise"]["items"],
        }, name
        assert metrics[name]["judge_noise"]["items"] >= 3


@pytest.mark.slow
def test_a_flipping_judge_shows_its_noise_in_every_report(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    server.flip_probability = 0.3
    write_jsonl(pytester, "golden.jsonl", [case_row(index) for index in range(8)])
    run = gate_run(
        pytester,
        *ANY_SCORE,
        repeats=3,
        junit="junit.xml",
        html="report.html",
        markdown="summary.md",
        **OPTIONS,
    )
    result, report = run
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    noise = report["metrics"]["faithfulness"]["judge_noise"]
    assert 0.0 <= noise["agreement"] < 1.0 and noise["sd"] > 0.0
    assert noise["cases"] == 8 and noise["repeats"] == 3
    case = report["cases"][0]
    assert len(case["repeat_scores"]["faithfulness"]) == 3
    assert case["scores"]["faithfulness"] == pytest.approx(
        sum(case["repeat_scores"]["faithfulness"]) / 3
    )
    shown = f"{noise['agreement']:.3f}"
    result.stdout.fnmatch_lines([f"faithfulness *{shown} (sd *, 8×3)"])

    (faithfulness,) = run.gate_suite().findall("testcase[@name='faithfulness']")
    properties = {prop.get("name"): prop.get("value") for prop in faithfulness.iter("property")}
    assert properties["judge_agreement"] == f"{noise['agreement']:.4f}"
    assert properties["judge_repeats"] == "3"

    markdown = run.markdown
    assert markdown is not None and "### Judge noise" in markdown
    assert f"| `faithfulness` | {noise['agreement']:.2f} |" in markdown
    html = (pytester.path / "report.html").read_text(encoding="utf-8")
    assert f"judge agreement {shown} (sd" in html

    # A saved report re-gates to the same figures, and a floor above them fails the gate.
    status, output = rag_gate("regate", "report.json", "-o", "regated.json")
    assert status == 0, output
    regated = read_report(pytester.path / "regated.json")
    assert regated["metrics"]["faithfulness"]["judge_noise"] == noise
    assert (
        regated["metrics"]["faithfulness"]["ci_low"] == report["metrics"]["faithfulness"]["ci_low"]
    )
    write_config(pytester.path, min_judge_agreement=0.999)
    status, output = rag_gate("regate", "report.json", "--config", "rag_gate.yaml")
    assert status == 1, output
    assert "FAILED faithfulness judge too noisy for this metric: agreement" in output


@pytest.mark.slow
def test_min_judge_agreement_fails_the_run_and_merge_reproduces_it(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    server.flip_probability = 0.4
    write_jsonl(pytester, "golden.jsonl", [case_row(index) for index in range(6)])
    write_config(
        pytester.path,
        repeats=3,
        min_judge_agreement=0.95,
        thresholds={
            "faithfulness": 0.0,
            "context_precision": 0.0,
            "context_recall": 0.0,
            "answer_relevancy": 0.0,
        },
    )
    shards = []
    for shard in ("1/2", "2/2"):
        name = f"shard-{shard[0]}.json"
        result = gate_run(pytester, shard=shard, report=name, **OPTIONS)
        assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
        result.stdout.fnmatch_lines(["FAILED * judge too noisy for this metric: agreement *"])
        shards.append(name)
    full = gate_run(pytester, junit="junit.xml", **OPTIONS)
    assert full.ret == pytest.ExitCode.TESTS_FAILED
    full.stdout.fnmatch_lines(["Block deployment — *judge too noisy for this metric: *"])
    # A CI view shows the noisy judge as a failing check of its own, as the JSON report does.
    noisy = [check for check in full.report["checks"] if check["kind"] == "judge_noise"]
    assert noisy and all(check["passed"] is False for check in noisy)
    suite = full.gate_suite()
    for check in noisy:
        failure = suite.find(f"testcase[@name='{check['name']}']/failure")
        assert failure is not None and failure.get("type") == "RagGateJudgeNoise"
        assert failure.get("message") == check["message"]
    status, output = rag_gate("merge", *shards, "-o", "merged.json")
    assert status == 1, output
    merged = read_report(pytester.path / "merged.json")
    whole = read_report(pytester.path / "report.json")
    assert merged["verdict"] == whole["verdict"] == "failed"
    for name in METRICS.split(","):
        assert merged["metrics"][name]["judge_noise"] == whole["metrics"][name]["judge_noise"]


def test_min_judge_agreement_without_repeats_checked_nothing(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    write_jsonl(pytester, "golden.jsonl", [case_row(index) for index in range(2)])
    write_config(pytester.path, min_judge_agreement=0.9)
    result = gate_run(pytester, **OPTIONS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(
        ["judge agreement not evaluated: *set judge.repeats to 2 or more*", "RAG gate: PARTIAL"]
    )


@pytest.mark.slow
def test_two_workers_report_the_judge_noise_of_a_serial_run(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    server.flip_probability = 0.3
    write_jsonl(pytester, "golden.jsonl", [case_row(index) for index in range(6)])
    serial = gate_run(pytester, *ANY_SCORE, repeats=3, report="serial.json", **OPTIONS)
    assert serial.ret == pytest.ExitCode.OK, serial.stdout.str()
    # Replayed from the same cache, so both runs hold the very same judge replies.
    distributed = gate_run(
        pytester, *ANY_SCORE, "-n", "2", repeats=3, report="xdist.json", **OPTIONS
    )
    assert distributed.ret == pytest.ExitCode.OK, distributed.stdout.str()
    one, two = read_report(pytester.path / "serial.json"), read_report(pytester.path / "xdist.json")
    assert two["usage"]["calls"] == 0
    for name in METRICS.split(","):
        assert two["metrics"][name] == one["metrics"][name]


@pytest.mark.slow
def test_a_batch_run_submits_every_repeat_as_a_request_of_its_own(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    server.flip_probability = 0.3
    write_jsonl(pytester, "golden.jsonl", [case_row(index) for index in range(4)])
    write_config(pytester.path, cache="off", batch_poll_s=0.05)
    result = gate_run(pytester, *ANY_SCORE, batch=True, repeats=3, **OPTIONS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    submitted = [custom_id for batch in server.batches.values() for custom_id, _ in batch.requests]
    # Identical requests are merged in a batch; the repeats of one request never are.
    assert len(submitted) == len(set(submitted)) == 3 * 4 * 4
    noise = read_report(pytester.path / "report.json")["metrics"]["faithfulness"]["judge_noise"]
    assert noise["agreement"] < 1.0 and noise["cases"] == 4


@pytest.mark.slow
def test_auto_repeats_a_seeded_sample_and_the_cases_near_a_threshold(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    server.flip_probability = 0.1
    write_jsonl(pytester, "golden.jsonl", [case_row(index) for index in range(16)])
    result = gate_run(pytester, repeats="auto", cache_dir="auto-cache", **OPTIONS)
    result.stdout.fnmatch_lines(["rag-gate: repeats auto — every case judged once;*"])
    report = read_report(pytester.path / "report.json")
    cases = {case["id"]: case for case in report["cases"]}
    picked = {
        case_id: case["auto_repeat"] for case_id, case in cases.items() if case["auto_repeat"]
    }
    reasons = [pick["reason"] for pick in picked.values()]
    assert reasons.count("sample") == 5
    assert set(reasons) <= {"sample", "near threshold"}
    for case_id, case in cases.items():
        repeated = len(case["repeat_scores"].get("faithfulness", []))
        assert repeated == (3 if case_id in picked else 0), case_id
    # The rule, recomputed: a case judged once lies farther than 1.96 within-case SDs
    # (as the sample measured them) from every threshold; a near one within them.
    sample = [cases[case_id] for case_id, pick in picked.items() if pick["reason"] == "sample"]
    thresholds = {metric: report["metrics"][metric]["threshold"] for metric in METRICS.split(",")}

    def band(metric: str) -> float:
        spreads = [statistics.stdev(case["repeat_scores"][metric]) for case in sample]
        return 1.96 * statistics.fmean(spreads)

    def near(case: dict[str, Any]) -> bool:
        first = (
            case["scores"]
            if not case["repeat_scores"]
            else {metric: scores[0] for metric, scores in case["repeat_scores"].items()}
        )
        return any(
            band(metric) > 0 and abs(first[metric] - limit) <= band(metric)
            for metric, limit in thresholds.items()
        )

    for case_id, case in cases.items():
        if case_id not in picked:
            assert not near(case), case_id
        elif picked[case_id]["reason"] == "near threshold":
            assert near(case), case_id
    extra = sum(pick["extra_calls"] for pick in picked.values())
    # Each picked case's first judgement is replayed from the cache: two new calls a request.
    assert extra == len(picked) * 3 * 2
    assert report["usage"]["calls"] == server.calls == 16 * 3 + extra
    result.stdout.fnmatch_lines(
        [
            f"repeats auto: {len(picked)} of 16 case(s) judged 3 times (5 sampled to measure "
            f"the judge, {reasons.count('near threshold')} near a threshold, 0 changed "
            f"against the baseline); {extra} extra judge call(s)"
        ]
    )
    # The same golden set picks the same cases, all replayed from the cache.
    before = server.calls
    gate_run(pytester, repeats="auto", cache_dir="auto-cache", report="again.json", **OPTIONS)
    again = read_report(pytester.path / "again.json")
    assert server.calls == before
    assert {case["id"] for case in again["cases"] if case["auto_repeat"]} == set(picked)


@pytest.mark.slow
def test_auto_repeats_the_cases_changed_against_the_baseline(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    rows = [case_row(index) for index in range(12)]
    write_jsonl(pytester, "golden.jsonl", rows)
    assert gate_run(pytester, report="base.json", **OPTIONS).ret == pytest.ExitCode.OK
    changed = {"case-003", "case-007"}
    for row in rows:
        if row["id"] in changed:
            row["answer"] = row["answer"].replace("1976", "1976, in a garage")
    write_jsonl(pytester, "golden.jsonl", rows)
    result = gate_run(pytester, repeats="auto", baseline="base.json", **OPTIONS)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    report = read_report(pytester.path / "report.json")
    picked = {
        case["id"]: case["auto_repeat"]["reason"] for case in report["cases"] if case["auto_repeat"]
    }
    assert changed <= set(picked)
    sampled = {case_id for case_id, reason in picked.items() if reason == "sample"}
    assert len(sampled) == 5
    # A judge that never disagrees with itself puts no case within its noise of a threshold.
    assert set(picked) == sampled | changed
    assert {picked[case_id] for case_id in changed - sampled} <= {"changed against the baseline"}


@pytest.mark.slow
def test_two_workers_auto_repeat_the_sample_of_a_serial_run(
    pytester: pytest.Pytester, server: FakeLLM
) -> None:
    write_jsonl(pytester, "golden.jsonl", [case_row(index) for index in range(12)])
    serial = gate_run(pytester, repeats="auto", report="serial.json", **OPTIONS)
    assert serial.ret == pytest.ExitCode.OK, serial.stdout.str()
    distributed = gate_run(pytester, "-n", "2", repeats="auto", report="xdist.json", **OPTIONS)
    assert distributed.ret == pytest.ExitCode.OK, distributed.stdout.str()
    picks = [
        {
            case["id"]: case["auto_repeat"]["reason"]
            for case in report["cases"]
            if case["auto_repeat"]
        }
        for report in (
            read_report(pytester.path / "serial.json"),
            read_report(pytester.path / "xdist.json"),
        )
    ]
    assert picks[0] == picks[1] and list(picks[0].values()) == ["sample"] * 5
    distributed.stdout.fnmatch_lines(["repeats auto: 5 of 12 case(s) judged 3 times *"])
