"""Sparing the garbage collector during scoring leaves it as the user had it afterwards."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_ragas_gate.golden.cases import Context, GoldenCase
from pytest_ragas_gate.judges.offline.judge import OfflineJudge
from pytest_ragas_gate.long_lived import collector_spared, import_module_paused
from pytest_ragas_gate.metrics.registry import MetricRegistry, applicable_metrics
from pytest_ragas_gate.scoring.scheduler import score_cases

# What a fresh interpreter holds frozen before any code runs: 0, except on CPython 3.12.
INTERPRETER_FROZE_AT_STARTUP = int(
    subprocess.run(
        [sys.executable, "-I", "-c", "import gc; print(gc.get_freeze_count())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
)


@pytest.fixture
def module_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in ("gate_sdk_like", "gate_sdk_broken"):
        sys.modules.pop(name, None)


def test_the_module_is_loaded_and_the_collector_runs_again(module_dir: Path) -> None:
    (module_dir / "gate_sdk_like.py").write_text(
        "class Model:\n    pass\n\nMODELS = [type(f'M{i}', (Model,), {}) for i in range(50)]\n"
    )
    frozen_before = gc.get_freeze_count()
    import_module_paused("gate_sdk_like")
    assert "gate_sdk_like" in sys.modules
    assert len(sys.modules["gate_sdk_like"].MODELS) == 50
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen_before


def test_what_an_import_builds_goes_straight_to_the_oldest_generation(module_dir: Path) -> None:
    # Young collections would otherwise walk it all, twice, before it got there.
    if INTERPRETER_FROZE_AT_STARTUP:
        pytest.skip("an interpreter that starts with frozen objects keeps them: no move")
    (module_dir / "gate_sdk_like.py").write_text(
        "class Model:\n    pass\n\nMODELS = [type(f'M{i}', (Model,), {}) for i in range(50)]\n"
    )
    import_module_paused("gate_sdk_like")
    models = sys.modules["gate_sdk_like"].MODELS
    oldest = {id(item) for item in gc.get_objects(generation=2)}
    assert id(models) in oldest and all(id(model) in oldest for model in models)
    assert gc.get_freeze_count() == 0 and gc.isenabled()


@pytest.mark.slow
def test_scoring_spares_what_it_loads_and_gives_everything_back(module_dir: Path) -> None:
    if INTERPRETER_FROZE_AT_STARTUP:
        pytest.skip(
            f"this interpreter starts with {INTERPRETER_FROZE_AT_STARTUP} frozen objects "
            "(CPython 3.12): scoring leaves them as they are, nothing is spared"
        )
    (module_dir / "gate_sdk_like.py").write_text(
        "class Model:\n    pass\n\nMODELS = [type(f'M{i}', (Model,), {}) for i in range(50)]\n"
    )
    holder = {"seed": 1}
    owner = [holder]
    with collector_spared():
        spared = gc.get_freeze_count()
        assert spared > 0
        import_module_paused("gate_sdk_like")
        assert gc.get_freeze_count() > spared
        # Frozen objects are hidden from gc.get_referrers() while scoring runs ...
        assert owner not in gc.get_referrers(holder)
    # ... and visible again to the user's tests (hypothesis's register_random relies on it).
    assert gc.get_freeze_count() == 0
    assert owner in gc.get_referrers(holder)


def is_frozen(holder: dict[str, int], owner: list[dict[str, int]]) -> bool:
    # The freeze count drops whenever a frozen object is freed, by any thread: whether one
    # known object is still frozen is what can be checked exactly (frozen objects are hidden
    # from gc.get_referrers).
    return owner not in gc.get_referrers(holder)


def test_a_process_that_froze_objects_itself_is_left_frozen() -> None:
    holder = {"seed": 1}
    owner = [holder]
    # Where the interpreter already froze objects at start-up, they stand for the user's.
    froze_here = not gc.get_freeze_count()
    if froze_here:
        gc.freeze()
    try:
        with collector_spared():
            pass
        assert gc.get_freeze_count() > 0
        assert not froze_here or is_frozen(holder, owner)
    finally:
        if froze_here:
            gc.unfreeze()
    assert not froze_here or not is_frozen(holder, owner)


@pytest.mark.slow
def test_an_interpreter_that_starts_with_frozen_objects_keeps_them_after_scoring(
    module_dir: Path,
) -> None:
    # CPython 3.12 starts with objects in the permanent generation: an unfreeze at the end of
    # scoring would move them into the collected generations for the rest of the process, so
    # scoring leaves such a process as it found it. Elsewhere this stands in for it by hand.
    (module_dir / "gate_sdk_like.py").write_text("VALUE = 1\n")
    holder = {"seed": 1}
    owner = [holder]
    froze_here = not gc.get_freeze_count()
    if froze_here:
        gc.freeze()
    try:
        assert gc.get_freeze_count() > 0
        with collector_spared():
            import_module_paused("gate_sdk_like")
        assert gc.get_freeze_count() > 0
        assert not froze_here or is_frozen(holder, owner)
        assert gc.isenabled()
    finally:
        if froze_here:
            gc.unfreeze()


@pytest.mark.slow
def test_garbage_made_after_loading_is_still_collected(module_dir: Path) -> None:
    (module_dir / "gate_sdk_like.py").write_text("VALUE = 1\n")
    import_module_paused("gate_sdk_like")

    class Node:
        pass

    node = Node()
    node.self = node  # type: ignore[attr-defined]
    alive = weakref.ref(node)
    del node
    gc.collect()
    assert alive() is None


def test_a_failed_import_raises_and_restores_the_collector(module_dir: Path) -> None:
    (module_dir / "gate_sdk_broken.py").write_text("import a_module_that_is_not_installed\n")
    with pytest.raises(ImportError):
        import_module_paused("gate_sdk_broken")
    assert gc.isenabled()


def test_a_collector_the_user_turned_off_stays_off(module_dir: Path) -> None:
    (module_dir / "gate_sdk_like.py").write_text("VALUE = 1\n")
    gc.disable()
    try:
        import_module_paused("gate_sdk_like")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_loaded_module_is_not_imported_again(module_dir: Path) -> None:
    (module_dir / "gate_sdk_like.py").write_text("LOADS = []\nLOADS.append(1)\n")
    import_module_paused("gate_sdk_like")
    import_module_paused("gate_sdk_like")
    assert sys.modules["gate_sdk_like"].LOADS == [1]


def _garbage_left_by_scoring(cases: int) -> int:
    """Objects the cyclic collector finds unreachable after scoring ``cases`` cases."""
    contexts = [Context(text="Apple was founded in 1976 by Steve Jobs and Steve Wozniak.")]
    golden = [
        GoldenCase(
            id=f"case-{index}",
            question="Who founded Apple and when?",
            answer="Apple was founded in 1976 by Steve Jobs and Steve Wozniak.",
            contexts=contexts,
            reference="Apple was founded in 1976 by Steve Jobs and Steve Wozniak.",
        )
        for index in range(cases)
    ]
    metrics = MetricRegistry.installed().metrics
    # Only the youngest generation is collected: what scoring made stays there while the
    # collector is off, and the rest of this process's objects need not be walked.
    gc.collect(0)
    gc.disable()
    try:
        results = asyncio.run(
            score_cases(
                golden,
                lambda case: applicable_metrics(case, metrics),
                metrics,
                OfflineJudge(),
                max_cases_in_flight=4,
            )
        )
        assert len(results) == cases and not any(result.errors for result in results.values())
        return gc.collect(0)
    finally:
        gc.enable()


def test_scored_cases_leave_no_garbage_cycles_behind() -> None:
    # Each judge request's task once held a copy of the context that held the case's view
    # of the judge, which held the task: cycles only the collector frees, each walked by
    # every collection until then, a dozen thousand objects per 100 cases.
    few, many = _garbage_left_by_scoring(5), _garbage_left_by_scoring(25)
    assert many - few < 20, (few, many)
