"""The compiled functions behind :mod:`~lemmata.retrievers.exact_compiled` (this module imports numba: only
:func:`~lemmata.retrievers.exact_compiled.kernel` imports it, where numba is installed).

They are defined at module level so that numba's on-disk cache finds them again in every process (as
:mod:`lemmata.retrievers.bm25.kernels`): functions compiled inside another are cached under a per-process key, so
every process compiled them again and added cache files. Every function releases the interpreter lock.
"""

from __future__ import annotations

import numba
import numpy as np

#: scores counted at once against the floor before any is looked at alone (a fixed trip count the compiler
#: turns into vector comparisons; a group without a hit costs a few instructions)
GROUP = 64
#: an empty place in a row's held keys (as in :mod:`~lemmata.retrievers.search`: no real key reaches it)
_EMPTY = np.uint64(2**64 - 1)


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


@numba.njit(nogil=True, cache=True, fastmath={"reassoc", "contract"})
def products(docs, q, out):  # pragma: no cover - compiled
    """``out[r] = docs[r] · q`` for every row: one query's scores over a document block.

    Each row's sum is reassociated into vector lanes (the only fast-math licence taken besides fused
    multiply-add: NaN and infinities propagate as in IEEE arithmetic), so a row's bits depend on that row, the
    query and the machine's vector width alone — never on where its block starts or how the range is split."""
    n, d = docs.shape
    for r in range(n):
        s = np.float32(0.0)
        for j in range(d):
            s += docs[r, j] * q[j]
        out[r] = s
