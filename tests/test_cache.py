"""The reply cache, the metered judge (cache, budgets, cost) and the judge factory."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import multiprocessing
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeLLM
from gate_runs import EVERY_KIND, TEST_KEY, make_judge

from pytest_ragas_gate.exceptions import BudgetExceeded, JudgeError, UsageError
from pytest_ragas_gate.judges.cache import JudgeCache, cache_key
from pytest_ragas_gate.judges.metered import MeteredJudge
from pytest_ragas_gate.judges.pricing import ModelPrice, PriceTable
from pytest_ragas_gate.judges.requests import JudgeRequest, RateRelevancy
from pytest_ragas_gate.scoring.judge_factory import create_judge
from pytest_ragas_gate.settings.config import GateConfig


def metered(server: FakeLLM, cache_dir: Path, mode: Any = "readwrite", **kw: Any) -> MeteredJudge:
    return MeteredJudge(make_judge(server), cache=JudgeCache(cache_dir, mode), **kw)


def ask_all(judge: MeteredJudge, requests: list[JudgeRequest[Any]]) -> list[Any]:
    async def run() -> list[Any]:
        try:
            return [await judge.ask(request) for request in requests]
        finally:
            await judge.aclose()

    return asyncio.run(run())


@pytest.mark.slow
def test_readwrite_then_read_replays_with_the_server_stopped(tmp_path: Path) -> None:
    with FakeLLM() as server:
        first = ask_all(metered(server, tmp_path), EVERY_KIND)
        assert server.calls == len(EVERY_KIND)
    # The server is gone: a replay that sent anything would fail.
    replay = metered(server, tmp_path, "read")
    again = ask_all(replay, EVERY_KIND)

    assert [a.reply for a in again] == [a.reply for a in first]
    assert replay.calls == 0 and replay.cache_hits == len(EVERY_KIND)
    assert all(a.usage.cache_hits == 1 and a.usage.calls == 0 for a in again)
    entry = json.loads(next(tmp_path.glob("*/*.json")).read_text(encoding="utf-8"))
    assert entry["usage"]["calls"] == 1 and entry["judge"] == "anthropic"


def test_read_mode_miss_is_an_error_that_says_how_to_record(tmp_path: Path) -> None:
    with FakeLLM() as server:
        judge = metered(server, tmp_path, "read")
        with pytest.raises(JudgeError, match="cache miss in read mode for rate_relevancy"):
            ask_all(judge, [EVERY_KIND[4]])
        assert server.calls == 0 and judge.errors == 1


def test_corrupt_entry_is_ignored_and_rewritten(tmp_path: Path) -> None:
    with FakeLLM() as server:
        ask_all(metered(server, tmp_path), [EVERY_KIND[4]])
        (entry_path,) = tmp_path.glob("*/*.json")
        entry_path.write_text('{"format": 1, "key": "half-writ', encoding="utf-8")

        judge = metered(server, tmp_path)
        (answer,) = ask_all(judge, [EVERY_KIND[4]])

        assert answer.usage.calls == 1 and server.calls == 2
        assert judge.cache is not None and judge.cache.corrupt == 1
        assert json.loads(entry_path.read_text(encoding="utf-8"))["reply"]["rating"] == 5


def test_entry_that_no_longer_validates_is_a_miss(tmp_path: Path) -> None:
    with FakeLLM() as server:
        ask_all(metered(server, tmp_path), [EVERY_KIND[4]])
        (entry_path,) = tmp_path.glob("*/*.json")
        entry = json.loads(entry_path.read_text(encoding="utf-8"))
        entry["reply"]["rating"] = 42
        entry_path.write_text(json.dumps(entry), encoding="utf-8")

        (answer,) = ask_all(metered(server, tmp_path), [EVERY_KIND[4]])

        assert answer.usage.calls == 1


def test_cache_never_holds_the_api_key(tmp_path: Path) -> None:
    with FakeLLM() as server:
        ask_all(metered(server, tmp_path), EVERY_KIND)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert TEST_KEY not in path.read_text(encoding="utf-8")
    key = cache_key(judge_kind="anthropic", model="m", prompt_version="1", kind="k", payload={})
    assert key == cache_key(
        judge_kind="anthropic", model="m", prompt_version="1", kind="k", payload={}
    )
    assert key != cache_key(
        judge_kind="anthropic", model="m", prompt_version="2", kind="k", payload={}
    )


ENTRY_KEYS = [
    cache_key(judge_kind="a", model="m", prompt_version="1", kind="rate_relevancy", payload=index)
    for index in range(5)
]
WRITE_ROUNDS = 40


def _padding(writer: int, round_: int) -> str:
    # Several kilobytes, so that a reader catching a write half-way would see it.
    return f"writer {writer} round {round_};" * 400


def _write_entries(
    directory: str, worker: int, started: Any, partner_started: Any, results: Any
) -> None:
    cache = JudgeCache(Path(directory))
    began = time.monotonic()
    for round_ in range(WRITE_ROUNDS):
        for index, key in enumerate(ENTRY_KEYS):
            cache.store(
                key,
                reply={
                    "rating": 1 + index % 5,
                    "writer": worker,
                    "round": round_,
                    "padding": _padding(worker, round_),
                },
                usage={"calls": 1},
                about={"request_kind": "rate_relevancy"},
            )
        if round_ == 0:
            # Neither writer gets past its first round before the other has started, so
            # their writes to the same keys overlap.
            started.set()
            partner_started.wait(timeout=60)
    results.put((worker, cache.writes, cache.write_errors, began, time.monotonic()))


def _read_while_writing(directory: Path, writing: threading.Event) -> tuple[JudgeCache, int]:
    """Load every entry over and over while the writers run; return the reader and its hits."""
    cache = JudgeCache(directory, "read")
    seen = 0
    while writing.is_set():
        for index, key in enumerate(ENTRY_KEYS):
            entry = cache.load(key)
            if entry is None:
                continue
            seen += 1
            reply = entry.reply
            assert reply["rating"] == 1 + index % 5
            assert reply["padding"] == _padding(reply["writer"], reply["round"]), "a torn entry"
        # Leave the writers most of the CPU; a few hundred sweeps are plenty.
        time.sleep(0.002)
    return cache, seen


@pytest.mark.slow
def test_two_processes_writing_the_same_entries_leave_valid_files(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    started = {worker: context.Event() for worker in (1, 2)}
    results = context.Queue()
    workers = [
        context.Process(
            target=_write_entries,
            args=(str(tmp_path), worker, started[worker], started[3 - worker], results),
        )
        for worker in (1, 2)
    ]
    writing = threading.Event()
    writing.set()
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        reader = pool.submit(_read_while_writing, tmp_path, writing)
        for worker in workers:
            worker.start()
        outcomes = {}
        for _ in workers:
            worker_id, writes, write_errors, began, ended = results.get(timeout=120)
            outcomes[worker_id] = (writes, write_errors, began, ended)
        for worker in workers:
            worker.join(timeout=60)
            assert worker.exitcode == 0
        writing.clear()
        reader_cache, seen = reader.result(timeout=60)

    # Both processes wrote every entry, every round, and their writing overlapped.
    for writes, write_errors, _, _ in outcomes.values():
        assert (writes, write_errors) == (WRITE_ROUNDS * len(ENTRY_KEYS), 0)
    (_, _, began_1, ended_1), (_, _, began_2, ended_2) = outcomes[1], outcomes[2]
    assert max(began_1, began_2) < min(ended_1, ended_2)
    # A reader racing the writers never met half an entry.
    assert seen > 0 and reader_cache.corrupt == 0

    entries = list(tmp_path.glob("*/*.json"))
    assert sorted(path.stem for path in entries) == sorted(ENTRY_KEYS)
    assert not list(tmp_path.rglob("*.tmp"))
    cache = JudgeCache(tmp_path, "read")
    for key in ENTRY_KEYS:
        loaded = cache.load(key)
        assert loaded is not None
        # The last write wins whole: some writer's final round, reply and all.
        assert loaded.reply["writer"] in (1, 2) and loaded.reply["round"] == WRITE_ROUNDS - 1
        assert loaded.reply["padding"] == _padding(loaded.reply["writer"], WRITE_ROUNDS - 1)
        RateRelevancy(question="q", answer="a").parse_reply(loaded.reply)


def test_call_budget_stops_sending(tmp_path: Path) -> None:
    with FakeLLM() as server:
        judge = metered(server, tmp_path, "off", max_calls=2)
        requests: list[JudgeRequest[Any]] = [
            RateRelevancy(question=f"q{i}", answer=f"q{i}") for i in range(3)
        ]
        with pytest.raises(BudgetExceeded, match="max_calls=2"):
            ask_all(judge, requests)
        assert server.calls == 2 and judge.calls == 2


def test_cost_budget_stops_sending_and_cache_hits_are_free(tmp_path: Path) -> None:
    with FakeLLM() as server:
        prices = PriceTable(
            {"claude-sonnet-4-6": ModelPrice(input_per_mtok=1e6, output_per_mtok=0)}
        )
        judge = metered(server, tmp_path, pricing=prices, max_cost=1.0)
        first = ask_all(judge, [EVERY_KIND[4]])[0]
        assert first.usage.cost_usd > 1.0 and judge.cost_usd == first.usage.cost_usd

        judge = metered(server, tmp_path, pricing=prices, max_cost=1.0)
        judge.totals = first.usage
        (hit,) = ask_all(judge, [EVERY_KIND[4]])  # cached: no budget needed
        assert hit.usage.cache_hits == 1 and hit.usage.cost_usd == 0.0
        with pytest.raises(BudgetExceeded, match="max_cost"):
            ask_all(metered(server, tmp_path, pricing=prices, max_cost=0.0), [EVERY_KIND[0]])
        assert server.calls == 1


def test_unknown_model_cost_is_zero_and_flagged() -> None:
    cost = PriceTable().cost("llama-local", input_tokens=1000, output_tokens=1000)
    assert cost.usd == 0.0 and not cost.priced
    assert (
        PriceTable().cost("claude-sonnet-4-5-20250929", input_tokens=10**6, output_tokens=0).priced
    )


# --- the factory -----------------------------------------------------------------------------


def test_auto_without_key_is_offline(tmp_path: Path) -> None:
    judge, info = create_judge(GateConfig(), rootdir=tmp_path, env={})
    assert (info.kind, judge.kind) == ("offline", "offline")
    assert info.selected_by == "auto: ANTHROPIC_API_KEY is not set, using the offline judge"


def test_auto_with_key_is_anthropic_with_cache_under_rootdir(tmp_path: Path) -> None:
    judge, info = create_judge(GateConfig(), rootdir=tmp_path, env={"ANTHROPIC_API_KEY": TEST_KEY})
    assert info.kind == "anthropic" and info.model == "claude-sonnet-5-5"
    assert judge.cache is not None and judge.cache.directory == tmp_path / ".rag_gate_cache"
    asyncio.run(judge.aclose())


def test_explicit_anthropic_without_key_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--rag-gate-judge anthropic needs ANTHROPIC_API_KEY"):
        create_judge(GateConfig(judge="anthropic"), rootdir=tmp_path, env={})


def test_openai_without_key_or_base_url_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="OPENAI_API_KEY"):
        create_judge(GateConfig(judge="openai"), rootdir=tmp_path, env={})


def test_keyless_read_mode_replays_what_a_keyed_run_recorded(tmp_path: Path) -> None:
    with FakeLLM() as server:
        env = {"ANTHROPIC_API_KEY": TEST_KEY, "ANTHROPIC_BASE_URL": server.url}
        config = GateConfig(model="claude-sonnet-4-6", max_retries=0)
        recorder, _ = create_judge(config, rootdir=tmp_path, env=env)
        recorded = ask_all(recorder, [EVERY_KIND[0]])
        assert server.calls == 1

    replay_config = GateConfig(model="claude-sonnet-4-6", cache="read")
    replayer, info = create_judge(replay_config, rootdir=tmp_path, env={})
    assert info.kind == "anthropic" and "read" in info.selected_by
    assert replayer.replay_only
    assert ask_all(replayer, [EVERY_KIND[0]])[0].reply == recorded[0].reply
    replayer, _ = create_judge(replay_config, rootdir=tmp_path, env={})
    with pytest.raises(JudgeError, match="cache miss in read mode"):
        ask_all(replayer, [EVERY_KIND[1]])


@pytest.mark.slow
def test_openai_through_the_factory_with_a_base_url_only(tmp_path: Path) -> None:
    with FakeLLM() as server:
        judge, info = create_judge(
            GateConfig(judge="openai", model="local-llama", cache="off"),
            rootdir=tmp_path,
            env={"OPENAI_BASE_URL": server.openai_url},
        )
        (answer,) = ask_all(judge, [EVERY_KIND[4]])
    assert info.kind == "openai" and answer.reply.rating == 5
    assert not judge.priced and judge.cost_usd == 0.0
