"""The bounded runner: a call past its wall clock, its memory cap or its worker's life comes back as an outcome
with the bound it met, from the main thread and from any other; a batch's budgets leave the rest unrun; workers
are replaced and the pool keeps answering."""

from __future__ import annotations

import threading
import time

import pytest

from lemmata.core.bounded import BoundedPool
from lemmata.core.errors import LemmataError


def in_thread(fn):
    """``fn()`` run in a fresh non-main thread (as the space's scoring worker runs), its value or exception."""
    box: dict = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            box["error"] = exc

    t = threading.Thread(target=run)
    t.start()
    t.join(600)
    assert not t.is_alive()
    if "error" in box:
        raise box["error"]
    return box["value"]


@pytest.fixture
def sleeper():
    pool = BoundedPool("time:sleep", workers=2, seconds=0.5, memory_mb=300)
    yield pool
    pool.close()


@pytest.mark.parametrize("where", ["main", "thread"])
def test_time_bound_holds_in_any_thread_and_the_worker_is_replaced(sleeper, where):
    run = (lambda f: f()) if where == "main" else in_thread
    assert run(lambda: sleeper.call(0)).value is None  # started and warm
    t0 = time.monotonic()
    out = run(lambda: sleeper.call(60))
    assert out.bound == "time" and out.reason == "out of time" and not out.ok
    assert 0.5 <= out.seconds < 1.5 and time.monotonic() - t0 < 3
    ok = run(lambda: sleeper.call(0.01))  # a replacement answers at once
    assert ok.ok and ok.seconds < 1


def test_a_c_routine_holding_the_interpreter_is_cut_off_too():
    pool = BoundedPool("math:factorial", workers=1, seconds=0.5, memory_mb=300)
    try:
        assert pool.call(5).value == 120
        t0 = time.monotonic()
        out = in_thread(lambda: pool.call(10**8))  # minutes of C code, no bytecode boundary to interrupt
        assert out.bound == "time" and time.monotonic() - t0 < 3
    finally:
        pool.close()


def test_memory_crash_and_errors_are_outcomes_not_exceptions():
    pool = BoundedPool("builtins:bytearray", workers=1, seconds=5, memory_mb=300)
    try:
        out = pool.call(10**10)  # 10 GB: past the address-space cap
        assert out.bound == "memory" and out.reason == "out of memory"
        assert pool.call(10).bound == "error"  # a bytearray is no JSON value: reported, not raised
        assert pool.peak_rss_kb < 300 * 1024
    finally:
        pool.close()
    crash = BoundedPool("os:abort", workers=1, seconds=5, memory_mb=300)
    try:
        out = crash.call()
        assert out.bound == "crashed" and "died" in out.reason
    finally:
        crash.close()
    fails = BoundedPool("math:sqrt", workers=1, seconds=5, memory_mb=300)
    try:
        assert fails.call(-1).bound == "error" and "ValueError" in fails.call(-1).reason
        assert fails.call(4).value == 2.0
    finally:
        fails.close()


def test_a_batch_stops_when_its_overrun_or_its_time_budget_is_spent(sleeper):
    t0 = time.monotonic()
    out = sleeper.map([[60]] * 40, overrun_s=2, label="the file")
    assert time.monotonic() - t0 < 6
    cut = [o for o in out if o.bound == "time"]
    unrun = [o for o in out if o.bound == "budget"]
    assert 4 <= len(cut) <= 6 and len(cut) + len(unrun) == 40
    assert unrun[0].reason == "not run: the file lost 2 s to calls cut off by the bound (0.5 s / 300 MB)"
    t0 = time.monotonic()
    slow = sleeper.map([[0.3]] * 40, budget_s=1.0)  # each within the bound, the batch not
    assert time.monotonic() - t0 < 2.5
    assert sum(o.ok for o in slow) >= 4 and slow[-1].bound == "budget" and "time budget (1 s)" in slow[-1].reason
    assert [o.value for o in sleeper.map([[0]] * 6)] == [None] * 6  # the pool is whole again


def test_a_target_that_cannot_load_is_one_clear_error():
    pool = BoundedPool("lemmata.core.no_such_module:fn", workers=1, seconds=1, memory_mb=300)
    try:
        with pytest.raises(LemmataError, match="could not start: ModuleNotFoundError"):
            pool.call(1)
    finally:
        pool.close()
    tight = BoundedPool("math:sqrt", workers=1, seconds=1, memory_mb=5)
    try:
        with pytest.raises(LemmataError, match="more than the 5 MB bound allows"):
            tight.call(1)
    finally:
        tight.close()


def test_the_pools_start_up_is_not_the_batchs_time(tmp_path, monkeypatch):
    """A target whose import takes longer than the batch's budget (sympy and math-verify take seconds on a loaded
    machine) still answers every call: the budget runs from the first call handed to a worker."""
    (tmp_path / "slow_to_import.py").write_text("import time\ntime.sleep(1.5)\n\ndef echo(x):\n    return x\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.syspath_prepend(str(tmp_path))
    pool = BoundedPool("slow_to_import:echo", workers=1, seconds=2, memory_mb=300)
    try:
        out = pool.map([[i] for i in range(3)], budget_s=1.0)
        assert [o.value for o in out] == [0, 1, 2]
    finally:
        pool.close()
