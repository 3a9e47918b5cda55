"""The exact search's selection pass compiled, where numba is installed (an optional accelerator).

:meth:`ExactIndex._scan <lemmata.retrievers.search.ExactIndex>` finds, in plain numpy, the columns of a block of
scores that reach each row's floor: a comparison into a buffer, a ``flatnonzero``, then keys built, counted and
scattered into each row's held keys — several passes over the block and a handful of temporaries, each holding
the interpreter lock. With numba installed the same selection is one pass over the block, row by row, while the
block is still in cache: a group of ``GROUP`` scores is counted against the row's floor (a comparison the compiler
vectorizes) and only a group holding a hit is looked at score by score; a hit becomes its :func:`rank_keys
<lemmata.retrievers.search.rank_keys>` key, is dropped when it ranks after the row's ``k``-th best so far, and is
appended otherwise; a row holding ``2k`` keys is cut back to its ``k`` best and its floor rises to their worst.
The pass releases the interpreter lock, so the search's worker threads select in parallel.

The answer is the same, bit for bit: both paths keep, of every finite score (NaN and ``-inf``, the filtered
documents, never rank), exactly the ``k`` smallest keys, and the caller sorts and decodes them with the same
code. The tests compare both paths on random blocks full of ties and signed zeros.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

#: scores counted at once against the floor before any is looked at alone (a fixed trip count the compiler
#: turns into vector comparisons; a group without a hit costs a few instructions)
GROUP = 64
#: an empty place in a row's held keys (as in :mod:`~lemmata.retrievers.search`: no real key reaches it)
_EMPTY = np.uint64(2**64 - 1)


@lru_cache(maxsize=1)
def kernel() -> Any:
    """The compiled selection pass, or None where numba is not installed (compiled on first use, cached on disk
    where the package folder is writable)."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(nogil=True, cache=True, inline="always")
    def key_of(bits, rank):  # pragma: no cover - compiled
        """:func:`~lemmata.retrievers.search.rank_keys` of one score (its int32 bits) and tie-break rank."""
        b = np.int64(bits)
        sign = np.uint64(0)
        if b == -2147483648:  # -0.0 ranks as 0.0; the lowest bit remembers its sign
            b = np.int64(0)
            sign = np.uint64(1)
        if b < 0:
            b = b ^ np.int64(0x7FFFFFFF)
        high = np.uint64(np.int64(0x7FFFFFFF) - b)
        return (high << np.uint64(32)) | (np.uint64(rank) << np.uint64(1)) | sign

    @numba.njit(nogil=True, cache=True)
    def cut(held, k, scratch):  # pragma: no cover - compiled
        """Keep a full row's ``k`` smallest keys in its first ``k`` places (the rest emptied); their largest key
        (and its score's bits in ``scratch``)."""
        best = np.partition(held, k - 1)[:k]
        held[:k] = best
        held[k:] = _EMPTY
        worst = best.max()
        b = np.int64(0x7FFFFFFF) - np.int64(worst >> np.uint64(32))
        if b < 0:
            b = b ^ np.int64(0x7FFFFFFF)
        scratch[0] = np.int32(b)  # the int32 bits of the worst kept score (0.0 for -0.0: they compare equal)
        return worst

    @numba.njit(nogil=True, cache=True)
    def select(scores, bits, ranks, k, floor, bound, held, count, scratch, as_float):  # pragma: no cover
        m, w = scores.shape
        room = held.shape[1]
        for r in range(m):
            row = scores[r]
            f = floor[r]
            top = bound[r]
            c = count[r]
            g = 0
            while g < w:
                e = g + GROUP
                if e <= w:  # a whole group: counted first, with a fixed trip count the compiler vectorizes
                    group = row[g:e]
                    reach = 0
                    for x in range(GROUP):
                        if group[x] >= f:
                            reach += 1
                    if reach == 0:
                        g = e
                        continue
                else:
                    e = w
                for x in range(g, e):
                    if not row[x] >= f:
                        continue
                    key = key_of(bits[r, x], ranks[x])
                    if key >= top:  # ranks after the k-th best kept so far
                        continue
                    if c == room:
                        top = cut(held[r], k, scratch)
                        f = as_float[0]
                        c = k
                        if key >= top:
                            continue
                    held[r, c] = key
                    c += 1
                g = e
            floor[r] = f
            bound[r] = top
            count[r] = c

    return select


def select(scores: np.ndarray, ranks: np.ndarray, k: int, floor: np.ndarray, bound: np.ndarray, held: np.ndarray,
           count: np.ndarray) -> bool:
    """Add the keys of one C-contiguous float32 block of ``scores`` (rows: queries; columns: documents of tie-break
    ``ranks``) that may still rank in each row's top ``k`` to ``held`` (``2k`` keys a row, the first ``count``
    real), raising ``floor`` (the row's ``k``-th best score so far, a float32) and ``bound`` (its key) as rows are
    cut back. False (nothing done) where numba is not installed."""
    found = kernel()
    if found is None:
        return False
    scratch = np.zeros(1, np.int32)
    found(scores, scores.view(np.int32), ranks, int(k), floor, bound, held, count, scratch, scratch.view(np.float32))
    return True
