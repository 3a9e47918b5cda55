"""The world's scoring and top-``n`` cut as one compiled pass, where numba is installed (an optional accelerator).

:meth:`Postings.top <lemmata.retrievers.bm25.postings.Postings.top>` ranks with
plain numpy (:meth:`~lemmata.retrievers.bm25.postings.Postings.scores`, then
:func:`~lemmata.retrievers.bm25.postings.top_rounded`): a gather of every
posting, a scatter-add over every document and a scan of every score, each a
separate pass that holds the interpreter lock. With numba installed the same
ranking is one pass over the query's postings, a block of documents at a time
(a block's sums stay in the core's cache while every term adds to it, where one
array of every document's sums does not), keeping only the scores that can
still rank; it releases the interpreter lock, so batch searches run on threads,
and a batch of queries is one call (:func:`candidates_batch`), so the interpreter
is entered once per batch rather than once per query.

The answer is the same, bit for bit: each document's weights are added, widened
to doubles, to zero in query-term order (what ``np.bincount`` does), only the
first ``end`` documents count, and the candidates kept are exactly those
:func:`~lemmata.retrievers.bm25.postings.top_rounded` keeps (every positive
score where there are at most ``n``, else every score at least the ``n``-th best
less the rounding margin); the caller rounds and orders them with the numpy
path's own code. The tests compare both paths on random indexes and queries.
The compiled functions themselves are in :mod:`~lemmata.retrievers.bm25.kernels`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
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
    """The compiled functions' module (:mod:`~lemmata.retrievers.bm25.kernels`), or None where numba is not
    installed (compiled on first use, cached on disk where the package folder is writable)."""
    try:
        from lemmata.retrievers.bm25 import kernels
    except ImportError:
        return None
    return kernels


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
    return found.candidates(data, indices, indptr, np.asarray(term_ids, np.int64), int(end), int(n), float(margin),
                            _HELD, *_buffers(int(end)))


def candidates_batch(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray,
                     queries: Sequence[tuple[Sequence[int], int, int]], margin: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`candidates` of every ``(term_ids, end, n)`` query (each ``end`` at most the document count, each
    ``n`` at least 1) in one compiled call: positions and scores end to end, and the ``len(queries) + 1``
    offsets where each query's start (a query without terms, or with ``end`` 0, has none); None where numba is
    not installed."""
    found = kernel()
    if found is None:
        return None
    lengths = np.fromiter((len(t) for t, _, _ in queries), np.int64, len(queries))
    term_starts = np.zeros(len(queries) + 1, np.int64)
    np.cumsum(lengths, out=term_starts[1:])
    terms = np.fromiter((t for ids, _, _ in queries for t in ids), np.int64, int(term_starts[-1]))
    ends = np.fromiter((e for _, e, _ in queries), np.int64, len(queries))
    ns = np.fromiter((n for _, _, n in queries), np.int64, len(queries))
    return found.candidates_batch(data, indices, indptr, terms, term_starts, ends, ns, float(margin), _HELD,
                                  *_buffers(int(ends.max(initial=0))))


def rows_ascending(indices: np.ndarray, indptr: np.ndarray) -> bool:
    """Does every row list its documents in strictly ascending order (what the blocked kernel reads them by)?
    False where numba is not installed."""
    found = kernel()
    return found is not None and bool(found.rows_ascending(indices, indptr))
