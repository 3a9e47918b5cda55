"""The compiled functions behind :mod:`~lemmata.retrievers.bm25.compiled` (this module imports numba: only
:func:`~lemmata.retrievers.bm25.compiled.kernel` imports it, where numba is installed).

They are defined at module level so that numba's on-disk cache finds them again in every process: a function
compiled inside another holds its helpers as closure cells, which numba's cache key pickles with a per-process
id, so every process compiled the kernel again (seconds; minutes on a loaded machine) and added a cache file.
Every function releases the interpreter lock.
"""

from __future__ import annotations

import numba
import numpy as np


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
def kept_candidates(data, indices, indptr, terms, end, n, margin, held, sparse, block, mark, touched, cpos,
                    cval):  # pragma: no cover - compiled
    """How many candidates of one query's ranking this writes to the head of ``cpos`` / ``cval`` (at most
    ``max(held, 2 * n)`` held before they are cut to those that can still rank).

    A query whose postings number fewer than ``sparse`` × ``end`` reads back only the documents its postings
    touched in each block (listed as they are first added to, without a branch), not the whole block: a short
    query touches a few percent of the documents, and reading and clearing every block's sums cost more than its
    postings. A longer query reads each block in full, in order. Either way every document's sum is the same
    float, and the same candidates are kept (their order differs: the caller orders them)."""
    m = terms.size
    pos = np.empty(m, np.int64)
    stop = np.empty(m, np.int64)
    total = 0
    for i in range(m):
        pos[i] = indptr[terms[i]]
        stop[i] = indptr[terms[i] + 1]
        total += stop[i] - pos[i]
    listed = total < end * sparse
    size = block.size
    limit = max(held, 2 * n)
    kept = 0
    cut_once = False
    floor = 5e-324  # every score that may still rank is at least this (at first: every positive score)
    for start in range(0, end, size):
        hi = min(start + size, end)
        if listed:
            count = 0
            for i in range(m):  # each term's postings in this block, added in query-term order
                j = pos[i]
                s = stop[i]
                while j < s:
                    d = indices[j]
                    if d >= hi:
                        break
                    b = d - start
                    touched[count] = b  # kept only where b is new: the count moves on once per document
                    count += np.int64(1 - mark[b])
                    mark[b] = 1
                    block[b] += np.float64(data[j])
                    j += 1
                pos[i] = j
            for t in range(count):
                b = touched[t]
                if block[b] >= floor:
                    cpos[kept] = start + b
                    cval[kept] = block[b]
                    kept += 1
                block[b] = 0.0
                mark[b] = 0
        else:
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
    return kept


@numba.njit(nogil=True, cache=True)
def candidates(data, indices, indptr, terms, end, n, margin, held, sparse, block, mark, touched, cpos,
               cval):  # pragma: no cover - compiled
    kept = kept_candidates(data, indices, indptr, terms, end, n, margin, held, sparse, block, mark, touched, cpos,
                           cval)
    return cpos[:kept].copy(), cval[:kept].copy()


@numba.njit(nogil=True, cache=True)
def candidates_batch(data, indices, indptr, terms, term_starts, ends, ns, margin, held, sparse, block, mark,
                     touched, cpos, cval):  # pragma: no cover - compiled
    """Every query's candidates end to end, and where each query's start (``term_starts`` likewise)."""
    queries = ends.size
    starts = np.zeros(queries + 1, np.int64)
    room = max(1024, 4 * queries * 32)
    out_pos = np.empty(room, np.int64)
    out_val = np.empty(room, np.float64)
    total = 0
    for q in range(queries):
        starts[q] = total
        lo, hi = term_starts[q], term_starts[q + 1]
        if hi == lo or ends[q] <= 0:
            continue
        kept = kept_candidates(data, indices, indptr, terms[lo:hi], ends[q], ns[q], margin, held, sparse, block,
                               mark, touched, cpos, cval)
        if total + kept > room:
            room = max(2 * room, total + kept)
            grown_pos = np.empty(room, np.int64)
            grown_val = np.empty(room, np.float64)
            grown_pos[:total] = out_pos[:total]
            grown_val[:total] = out_val[:total]
            out_pos, out_val = grown_pos, grown_val
        out_pos[total:total + kept] = cpos[:kept]
        out_val[total:total + kept] = cval[:kept]
        total += kept
    starts[queries] = total
    return out_pos[:total].copy(), out_val[:total].copy(), starts
