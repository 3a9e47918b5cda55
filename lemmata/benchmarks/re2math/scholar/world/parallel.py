"""Batch search over forked worker processes that share the parent's loaded index.

A world query spends most of its time holding the interpreter lock (the frozen
tokenizer's regular expressions, scipy's sparse product, the top-``n`` cut), so
threads cannot run two at once. Forked processes can, and a fork shares the
parent's loaded index pages instead of reloading or copying them: each worker
ranks a contiguous chunk of the batch with the world's own ``_top`` and sends
back only ``(position, score)`` lists, so results are the single-query results,
in order, on any worker count. Where ``fork`` is not available, or the batch is
small, the caller runs its loop instead.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Sequence
from typing import Any

from lemmata.core.cores import usable_cores

#: fewest queries that make another worker process worth its start (a fork and a pool: tens of milliseconds)
MIN_PER_WORKER = 128

_WORLD: Any = None  # set in each forked worker by _adopt


def batch_workers(queries: int, workers: int | None) -> int:
    """How many processes rank ``queries`` queries: ``workers`` when given, else one per usable core and at
    most one per :data:`MIN_PER_WORKER` queries; always 1 where ``fork`` is not a start method.

    >>> batch_workers(10, None), batch_workers(10_000, 1)
    (1, 1)
    """
    if workers is not None and workers < 1:
        from lemmata.core.errors import InputError

        raise InputError.one("workers", f"workers must be at least 1, got {workers}", field="workers")
    if "fork" not in multiprocessing.get_all_start_methods() or queries < 2:
        return 1
    if workers is not None:
        return min(workers, queries)
    return max(1, min(usable_cores(), queries // MIN_PER_WORKER))


def _adopt(world: Any) -> None:
    global _WORLD
    _WORLD = world


def _rank(chunk: Sequence[tuple[str, int | None, int]]) -> list[list[tuple[int, float]]]:
    return [_WORLD._top(q, c, n) for q, c, n in chunk]


def forked_tops(world: Any, queries: Sequence[tuple[str, int | None, int]], workers: int
                ) -> Iterator[list[tuple[int, float]]]:
    """``world._top`` of every query, in order, computed by ``workers`` forked processes.

    Yields each query's ranking as soon as its chunk is back, so the caller
    builds the hits of early chunks while the workers rank later ones. The
    world reaches each worker through the fork itself (nothing is pickled but
    the query chunks and the rankings); a worker that dies makes the pool
    raise instead of waiting for it.
    """
    from concurrent.futures import ProcessPoolExecutor

    step = -(-len(queries) // (workers * 8))  # eight chunks a worker: the first comes back early, none lags long
    chunks = [list(queries[i:i + step]) for i in range(0, len(queries), step)]
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                             initializer=_adopt, initargs=(world,)) as pool:
        for tops in pool.map(_rank, chunks):
            yield from tops
