"""The world's scoring and top-``n`` cut as one compiled pass, where numba is installed (an optional accelerator).

:meth:`Postings.top <lemmata.retrievers.bm25.postings.Postings.top>` ranks with
plain numpy (:meth:`~lemmata.retrievers.bm25.postings.Postings.scores`, then
:func:`~lemmata.retrievers.bm25.postings.top_rounded`): a gather of every
posting, a scatter-add over every document and a scan of every score, each a
separate pass that holds the interpreter lock. With numba installed the same
ranking is one pass over the query's postings, a block of documents at a time
(a block's sums stay in the core's cache while every term adds to it, where one
array of every document's sums does not), keeping only the scores that can
still rank; it releases the interpreter lock, so batch searches run on threads.

The answer is the same, bit for bit: each document's weights are added, widened
to doubles, to zero in query-term order (what ``np.bincount`` does), only the
first ``end`` documents count, and the candidates kept are exactly those
:func:`~lemmata.retrievers.bm25.postings.top_rounded` keeps (every positive
score where there are at most ``n``, else every score at least the ``n``-th best
less the rounding margin); the caller rounds and orders them with the numpy
path's own code. The tests compare both paths on random indexes and queries.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

import numpy as np

_local = threading.local()


#: documents scored per block: a block's float64 sums (128 KiB) stay in the core's cache while every term adds to it
BLOCK = 1 << 14
#: candidates held before they are cut to those that can still rank (a lower bound on the n-th best score rises)
_HELD = 4096


@lru_cache(maxsize=1)
def kernel() -> Any:
    """The compiled functions ``(candidates, rows_ascending)``, or None where numba is not installed (compiled on
    first use, cached on disk where the package folder is writable)."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(nogil=True, cache=True)
    def rows_ascending(indices, indptr):  # pragma: no cover - compiled
        for t in range(indptr.size - 1):
            for j in range(indptr[t] + 1, indptr[t + 1]):
                if indices[j] <= indices[j - 1]:
                    return False
        return True

    @numba.njit(nogil=True, cache=True)
    def nth_best(vals, count, n):  # pragma: no cover - compiled
        return np.partition(vals[:count], count - n)[count - n]

    @numba.njit(nogil=True, cache=True)
    def cut(cpos, cval, kept, floor):  # pragma: no cover - compiled
        k = 0
        for c in range(kept):
            if cval[c] >= floor:
                cpos[k] = cpos[c]
                cval[k] = cval[c]
                k += 1
        return k

    @numba.njit(nogil=True, cache=True)
    def candidates(data, indices, indptr, terms, end, n, margin, block, cpos, cval):  # pragma: no cover - compiled
        m = terms.size
        pos = np.empty(m, np.int64)
        stop = np.empty(m, np.int64)
        for i in range(m):
            pos[i] = indptr[terms[i]]
            stop[i] = indptr[terms[i] + 1]
        size = block.size
        limit = max(_HELD, 2 * n)
        kept = 0
        cut_once = False
        floor = 5e-324  # every score that may still rank is at least this (at first: every positive score)
        for start in range(0, end, size):
            hi = min(start + size, end)
            for i in range(m):  # each term's postings in this block, added in query-term order
                j = pos[i]
                s = stop[i]
                while j < s:
                    d = indices[j]
                    if d >= hi:
                        break
                    block[d - start] += np.float64(data[j])
                    j += 1
                pos[i] = j
            for d in range(hi - start):
                if block[d] >= floor:
                    cpos[kept] = start + d
                    cval[kept] = block[d]
                    kept += 1
            block[:hi - start] = 0.0
            if kept >= limit:  # keep only the scores that can still rank: the n-th best so far only rises
                floor = max(floor, nth_best(cval, kept, n) - margin)
                kept = cut(cpos, cval, kept, floor)
                limit = max(limit, 2 * kept)
                cut_once = True
        if cut_once or kept > n:  # more than n positive scores: those within the margin of the n-th best
            kept = cut(cpos, cval, kept, nth_best(cval, kept, n) - margin)
        return cpos[:kept].copy(), cval[:kept].copy()

    return candidates, rows_ascending


def _buffers(documents: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """This thread's block of sums (all zero between calls: the kernel resets what it adds to) and room for
    ``documents`` candidates' positions and scores."""
    held = getattr(_local, "buffers", None)
    if held is None or held[1].size < documents:
        held = _local.buffers = (np.zeros(BLOCK, np.float64), np.empty(documents, np.int64),
                                 np.empty(documents, np.float64))
    return held


def candidates(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, term_ids: list[int], end: int, n: int,
               margin: float) -> tuple[np.ndarray, np.ndarray] | None:
    """``(positions ascending, unrounded scores)`` of the documents that may rank in the top ``n`` of the first
    ``end`` documents, or None where numba is not installed."""
    found = kernel()
    if found is None:
        return None
    return found[0](data, indices, indptr, np.asarray(term_ids, np.int64), int(end), int(n), float(margin),
                    *_buffers(int(end)))


def rows_ascending(indices: np.ndarray, indptr: np.ndarray) -> bool:
    """Does every row list its documents in strictly ascending order (what the blocked kernel reads them by)?
    False where numba is not installed."""
    found = kernel()
    return found is not None and bool(found[1](indices, indptr))
