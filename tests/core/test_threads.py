"""The kept compute threads (:mod:`lemmata.core.threads`): one pool per name and size, reused by every call;
nested work on a pool's own thread runs inline rather than waiting for threads that wait on it; a forked child
makes its own pool instead of submitting to threads that do not exist there."""

from __future__ import annotations

import os
import threading

import pytest

from lemmata.core.threads import run_all, shared_threads


def test_pools_are_kept_per_name_and_size_and_calls_run_in_order_on_them():
    assert shared_threads("lemmata-test", 2) is shared_threads("lemmata-test", 2)
    assert shared_threads("lemmata-test", 3) is not shared_threads("lemmata-test", 2)
    names = run_all(lambda i: (i, threading.current_thread().name), range(6), name="lemmata-test", workers=2)
    assert [i for i, _ in names] == list(range(6))
    assert {n.rsplit("_", 1)[0] for _, n in names} == {"lemmata-test"}
    # one item, or one worker: the calling thread
    assert run_all(lambda i: threading.current_thread().name, [0], name="lemmata-test", workers=2) == \
        [threading.current_thread().name]
    with pytest.raises(ZeroDivisionError):
        run_all(lambda i: 1 // i, [1, 0], name="lemmata-test", workers=2)


def test_nested_work_on_a_pool_thread_runs_inline():
    def outer(i: int) -> list[str]:
        # both threads of the pool are busy here: submitting to it again would wait for ever
        return run_all(lambda j: threading.current_thread().name, range(3), name="lemmata-nest", workers=2)

    done: list = []
    t = threading.Thread(target=lambda: done.append(run_all(outer, range(2), name="lemmata-nest", workers=2)))
    t.start()
    t.join(10)
    assert not t.is_alive() and len(done[0]) == 2
    assert all(len(set(names)) == 1 for names in done[0])  # each outer call ran its three inline


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork exists on POSIX systems only")
def test_a_forked_child_makes_its_own_pool():
    parent = shared_threads("lemmata-fork", 2)
    assert run_all(abs, [-1, -2], name="lemmata-fork", workers=2) == [1, 2]
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            ok = shared_threads("lemmata-fork", 2) is not parent and \
                run_all(abs, [-3, -4], name="lemmata-fork", workers=2) == [3, 4]
            os.write(write, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    assert os.read(read, 1) == b"1" and status == 0
