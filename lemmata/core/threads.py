"""Process-wide thread pools for compute that releases the interpreter lock (compiled passes, BLAS), kept between
calls.

A pool made for one call and shut down after it starts and joins its threads every time: for a lone exact-search
query split over two threads (a few milliseconds of work) that cost as much as the split saved, so the split
measured no faster than one thread; the same split on kept threads ran 1.4 times as fast. A pool is kept per
``(name, workers)``, so a caller asking for ``n`` threads gets ``n`` whatever others asked for; a forked child
starts with none (the parent's threads do not exist there) and makes its own.

A task that runs on one of these threads and asks for the same pool would wait for threads that are all waiting:
:func:`run_all` runs such nested work inline instead.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

__all__ = ["run_all", "shared_threads"]

T = TypeVar("T")
R = TypeVar("R")

_POOLS: dict[tuple[str, int], ThreadPoolExecutor] = {}
_LOCK = threading.Lock()
_INSIDE = threading.local()


def _forget_in_child() -> None:
    global _LOCK
    _POOLS.clear()
    _LOCK = threading.Lock()  # a lock held by a parent's thread at the fork would never be released here


if hasattr(os, "register_at_fork"):  # POSIX; where processes are spawned, a child imports this module afresh
    os.register_at_fork(after_in_child=_forget_in_child)


def shared_threads(name: str, workers: int) -> ThreadPoolExecutor:
    """The process's pool of ``workers`` threads named ``name`` (made on first use, kept until exit)."""
    key = (name, int(workers))
    with _LOCK:
        pool = _POOLS.get(key)
        if pool is None:
            pool = _POOLS[key] = ThreadPoolExecutor(key[1], thread_name_prefix=name, initializer=_mark)
        return pool


def _mark() -> None:
    _INSIDE.pool = True


def run_all(call: Callable[[T], R], items: Sequence[T] | Iterable[T], *, name: str, workers: int) -> list[R]:
    """``[call(item) for item in items]``, in order, on the shared pool ``(name, workers)``; inline where
    ``workers`` is 1, where there is one item, or where this thread is itself a shared pool's (nested work).

    >>> run_all(len, ["a", "bb", "ccc"], name="lemmata-doctest", workers=2)
    [1, 2, 3]
    """
    items = list(items)
    if workers <= 1 or len(items) <= 1 or getattr(_INSIDE, "pool", False):
        return [call(item) for item in items]
    return list(shared_threads(name, workers).map(call, items))  # fewer items than threads: the rest stay idle
