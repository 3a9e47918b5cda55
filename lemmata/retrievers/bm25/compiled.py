"""The world's scoring and top-``n`` cut as one compiled pass, where numba is installed (an optional accelerator).

:meth:`Postings.top <lemmata.retrievers.bm25.postings.Postings.top>` ranks with
plain numpy (:meth:`~lemmata.retrievers.bm25.postings.Postings.scores`, then
:func:`~lemmata.retrievers.bm25.postings.top_rounded`): a gather of every
posting, a scatter-add over every document and a scan of every score, each a
separate pass that holds the interpreter lock. With numba installed the same
ranking is one pass over the query's postings, a block of documents at a time
(a block's sums stay in the core's cache while every term adds to it, where one
array of every document's sums does not), keeping only the scores that can
still rank (a short query reads back only the documents it touched: :data:`SPARSE`); it releases the interpreter lock, so batch searches run on threads,
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
from typing import Any, NamedTuple

import numpy as np

from lemmata.core.accelerator import compiled_module

_local = threading.local()


#: documents scored per block: a block's float64 sums (128 KiB) stay in the core's cache while every term adds to it
BLOCK = 1 << 14
#: candidates held before they are cut to those that can still rank (a lower bound on the n-th best score rises)
_HELD = 4096
#: a query with fewer postings than this share of the documents it ranks reads back only the documents it touched
#: (the world's 860 target theorems, about 28,000 postings over 343,000 documents: 1.7× faster); a longer one
#: reads every block in full (its 860 rendered proof states, about 112,000: listing would cost 5–15% more)
SPARSE = 0.25


def kernel() -> Any:
    """The compiled functions' module (:mod:`~lemmata.retrievers.bm25.kernels`), or None where numba is not
    installed."""
    return compiled_module("lemmata.retrievers.bm25.kernels")


def _buffers(documents: int) -> tuple[np.ndarray, ...]:
    """This thread's block of sums and its marks of touched documents (all zero between calls: the kernel resets
    what it adds to), room to list a block's touched documents, and room for ``documents`` candidates' positions
    and scores."""
    held = getattr(_local, "buffers", None)
    if held is None or held[3].size < documents:
        held = _local.buffers = (np.zeros(BLOCK, np.float64), np.zeros(BLOCK, np.uint8), np.empty(BLOCK, np.int64),
                                 np.empty(documents, np.int64), np.empty(documents, np.float64))
    return held


def candidates(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, term_ids: list[int], end: int, n: int,
               margin: float) -> tuple[np.ndarray, np.ndarray] | None:
    """``(positions, unrounded scores)`` of the documents that may rank in the top ``n`` of the first ``end``
    documents (in no set order: the caller orders them), or None where numba is not installed."""
    found = kernel()
    if found is None:
        return None
    return found.candidates(data, indices, indptr, np.asarray(term_ids, np.int64), int(end), int(n), float(margin),
                            _HELD, float(SPARSE), *_buffers(int(end)))


class Packed(NamedTuple):
    """A batch of ``(term_ids, end, n)`` queries as the arrays the compiled call reads: every query's terms end to
    end (query ``q``'s are ``terms[term_starts[q]:term_starts[q + 1]]``), each ``end`` and each ``n``."""

    terms: np.ndarray
    term_starts: np.ndarray
    ends: np.ndarray
    ns: np.ndarray


def pack(queries: Sequence[tuple[Sequence[int], int, int]]) -> Packed:
    """The :class:`Packed` arrays of ``(term_ids, end, n)`` queries (each ``end`` at most the document count, each
    ``n`` at least 1). Packing is Python work that holds the interpreter lock, so a threaded batch packs on the
    thread that tokenizes and hands a worker only the compiled call (:func:`candidates_packed`).

    >>> pack([([3, 1], 9, 2), ([], 0, 1)]).term_starts.tolist()
    [0, 2, 2]
    """
    lengths = np.fromiter((len(t) for t, _, _ in queries), np.int64, len(queries))
    term_starts = np.zeros(len(queries) + 1, np.int64)
    np.cumsum(lengths, out=term_starts[1:])
    terms = np.fromiter((t for ids, _, _ in queries for t in ids), np.int64, int(term_starts[-1]))
    ends = np.fromiter((e for _, e, _ in queries), np.int64, len(queries))
    ns = np.fromiter((n for _, _, n in queries), np.int64, len(queries))
    return Packed(terms, term_starts, ends, ns)


def candidates_packed(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, packed: Packed, margin: float
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`candidates` of every packed query in one compiled call: positions and scores end to end, and the
    ``len(queries) + 1`` offsets where each query's start (a query without terms, or with ``end`` 0, has none);
    None where numba is not installed. Beside the call itself it takes the interpreter lock only to find this
    thread's buffers."""
    found = kernel()
    if found is None:
        return None
    return found.candidates_batch(data, indices, indptr, packed.terms, packed.term_starts, packed.ends, packed.ns,
                                  float(margin), _HELD, float(SPARSE), *_buffers(int(packed.ends.max(initial=0))))


def candidates_batch(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray,
                     queries: Sequence[tuple[Sequence[int], int, int]], margin: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`candidates_packed` of the :func:`pack` of ``queries``."""
    return candidates_packed(data, indices, indptr, pack(queries), margin)


def rows_ascending(indices: np.ndarray, indptr: np.ndarray) -> bool:
    """Does every row list its documents in strictly ascending order (what the blocked kernel reads them by)?
    False where numba is not installed."""
    found = kernel()
    return found is not None and bool(found.rows_ascending(indices, indptr))
