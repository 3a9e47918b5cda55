"""Batch search on threads (a compiled index) or over forked worker processes that share the parent's loaded index.

Where the index ranks through its compiled kernel (numba installed:
:attr:`~lemmata.retrievers.bm25.postings.Postings.compiled`), scoring releases the
interpreter lock, so a batch runs on one thread per usable core
(:func:`threaded_rankings`), a chunk of queries per compiled call: no process starts, and the tokenizing and
the hits built here overlap the scoring. Otherwise a world query spends most of its time holding
the interpreter lock (the frozen
tokenizer's regular expressions, the gathers and sums over the index arrays, the
top-``n`` cut), so threads cannot run two at once. Forked processes can, and a fork shares the
parent's opened index (its vocabulary, its mapped arrays) instead of reloading or copying it: each worker
ranks a contiguous chunk of the batch with the world's own ``_top`` and sends
back only ``(position, score)`` lists, so results are the single-query results,
in order, on any worker count. The calling process ranks a share itself rather
than wait on the workers. Where ``fork`` is not available, or the batch is
small, the caller runs its loop instead.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from lemmata.core.cores import usable_cores

if TYPE_CHECKING:
    from lemmata.retrievers.bm25.postings import Rankings

#: fewest queries that make another worker process worth its start (a fork and a pool: tens of milliseconds)
MIN_PER_WORKER = 128
#: queries a default batch ranks here first, timing what one costs
PROBE = 32
#: a default batch forks only where its remaining queries would take at least this long here: below it the pool's
#: start and the hits built here while the workers rank cost about what the workers save (860 target theorems on a
#: quiet 2-core machine: 0.6 s in one process, 1.14× faster forked), and on a loaded machine more
MIN_FORKED_SECONDS = 1.0
#: queries whose rankings come back as one chunk of a batch (a chunk's hits are built together); a threaded
#: batch's chunks hold up to four times as many
CHUNK = 64

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


def batch_rankings(world: Any, queries: Sequence[tuple[str, int | None, int]], workers: int | None
                   ) -> Iterator[Rankings]:
    """The rankings of consecutive chunks of the batch, in order: on :func:`batch_workers` threads where the
    index ranks through its compiled kernel (:func:`threaded_rankings`), else ``world._top`` of every query in
    this process or forked ones (:func:`batch_tops`), gathered a chunk at a time. The rankings are the same
    whichever way they are computed."""
    from lemmata.retrievers.bm25.postings import Rankings

    count = batch_workers(len(queries), workers)
    if world._index.compiled:
        yield from threaded_rankings(world, queries, count)
        return
    tops = batch_tops(world, queries, workers, count)
    for start in range(0, len(queries), CHUNK):
        yield Rankings.of([next(tops) for _ in queries[start:start + CHUNK]])


def batch_tops(world: Any, queries: Sequence[tuple[str, int | None, int]], workers: int | None, count: int
               ) -> Iterator[list[tuple[int, float]]]:
    """``world._top`` of every query, in order, by ``count`` processes (:func:`batch_workers` of ``workers``).

    With the default worker count the first :data:`PROBE` queries are ranked
    here and timed; the rest are forked only where they would take at least
    :data:`MIN_FORKED_SECONDS` here (short queries or a small batch keep the
    loop), so a batch is not slower than its single searches.
    """
    import time

    if count > 1 and workers is None:
        start = time.perf_counter()
        head = [world._top(q, c, n) for q, c, n in queries[:PROBE]]
        each = (time.perf_counter() - start) / len(head)
        yield from head
        rest = queries[PROBE:]
        count = batch_workers(len(rest), None) if each * len(rest) >= MIN_FORKED_SECONDS else 1
        queries = rest
    if count > 1:
        yield from forked_tops(world, queries, count)
    else:
        for q, c, n in queries:
            yield world._top(q, c, n)


def threaded_rankings(world: Any, queries: Sequence[tuple[str, int | None, int]], workers: int
                      ) -> Iterator[Rankings]:
    """The rankings of consecutive chunks of the batch, in order, each ranked by one compiled call
    (:meth:`~lemmata.retrievers.bm25.postings.Postings.rank_prepared`, which releases the interpreter lock) on
    ``workers`` threads (none where ``workers`` is 1). This thread tokenizes and packs each chunk
    (``world._terms``, :meth:`~lemmata.retrievers.bm25.postings.Postings.prepare_batch`: they hold the lock)
    and hands the threads the compiled call alone, so ranking one chunk overlaps tokenizing the next; it orders
    each chunk's candidates and the caller builds its hits as its rankings come back. A worker takes the lock
    only to start and end its call, so it never waits behind the tokenizer between steps. No process starts."""
    from concurrent.futures import ThreadPoolExecutor

    step = max(1, min(CHUNK * 4, -(-len(queries) // (workers * 4))))  # four chunks a thread: none lags long

    def prepared(start: int) -> list[tuple[list[int], int, int]]:
        return [(*world._terms(q, c), n) for q, c, n in queries[start:start + step]]

    if workers == 1:
        for start in range(0, len(queries), step):
            yield world._rank_batch(prepared(start))
        return
    index = world._index
    with ThreadPoolExecutor(max_workers=workers) as pool:
        # the threads run the compiled call alone; packing and ordering hold the lock, so they run here
        ranked = [(batch, pool.submit(index.rank_prepared, batch))
                  for batch in (index.prepare_batch(prepared(start)) for start in range(0, len(queries), step))]
        for batch, future in ranked:
            yield index.rankings(batch, future.result(), world._tie_rank)


def _adopt(world: Any) -> None:
    global _WORLD
    _WORLD = world


def _rank(chunk: Sequence[tuple[str, int | None, int]]) -> list[list[tuple[int, float]]]:
    return [_WORLD._top(q, c, n) for q, c, n in chunk]


def forked_tops(world: Any, queries: Sequence[tuple[str, int | None, int]], workers: int
                ) -> Iterator[list[tuple[int, float]]]:
    """``world._top`` of every query, in order, computed by this process and ``workers - 1`` forked ones.

    The forked workers rank the batch's tail in chunks while this process
    ranks its head (one worker's share, less what building every query's hits
    here costs), so ``workers`` processes run, not ``workers + 1`` contending
    for as many cores. Rankings are yielded in order as soon as they are known,
    so the caller builds hits while the workers rank. The world reaches each
    worker through the fork itself (nothing is pickled but the query chunks and
    the rankings); a worker that dies (killed, out of memory) ends the batch with one
    :class:`~lemmata.core.errors.LemmataError` saying so, instead of waiting or a traceback.
    """
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    head = len(queries) // (workers + 1)  # the caller also builds every query's hits
    tail = queries[head:]
    step = max(1, -(-len(tail) // ((workers - 1) * 8)))  # eight chunks a worker: none lags long
    chunks = [list(tail[i:i + step]) for i in range(0, len(tail), step)]
    try:
        with ProcessPoolExecutor(max_workers=workers - 1, mp_context=multiprocessing.get_context("fork"),
                                 initializer=_adopt, initargs=(world,)) as pool:
            ranked = pool.map(_rank, chunks)
            for q, c, n in queries[:head]:
                yield world._top(q, c, n)
            for tops in ranked:
                yield from tops
    except BrokenProcessPool:
        from lemmata.core.errors import LemmataError

        raise LemmataError(f"batch search: a worker process ranking {len(tail):,} of the {len(queries):,} queries "
                           "died (killed, or out of memory), so the batch has no results: rerun it") from None
