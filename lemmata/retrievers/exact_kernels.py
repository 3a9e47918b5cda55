"""The compiled functions behind :mod:`~lemmata.retrievers.exact_compiled` (this module imports numba: only
:func:`~lemmata.retrievers.exact_compiled.kernel` imports it, where numba is installed).

They are defined at module level so that numba's on-disk cache finds them again in every process (as
:mod:`lemmata.retrievers.bm25.kernels`): functions compiled inside another are cached under a per-process key, so
every process compiled them again and added cache files. Every function releases the interpreter lock.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic

#: scores compared with the floor at once into one bit mask (a fixed trip count the compiler turns into vector
#: comparisons; a group without a hit costs a few instructions): 64, a mask's bits
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
    (and its score's bits in ``scratch``).

    An in-place selection (Hoare's partition around the middle of three, narrowed to the side holding the
    ``k``-th place): the kept set is the ``k`` smallest keys whatever their order, and no array is allocated —
    ``np.partition`` copied the row and took about three times as long."""
    t = k - 1
    lo = 0
    hi = held.shape[0] - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        a, b, c = held[lo], held[mid], held[hi]
        if a > b:
            a, b = b, a
        if b > c:
            b = c
            if a > b:
                b = a
        pivot = b
        i = lo
        j = hi
        while i <= j:
            while held[i] < pivot:
                i += 1
            while pivot < held[j]:
                j -= 1
            if i <= j:
                held[i], held[j] = held[j], held[i]
                i += 1
                j -= 1
        if j < t:
            lo = i
        if t < i:
            hi = j
    worst = held[t]
    held[k:] = _EMPTY
    b = np.int64(0x7FFFFFFF) - np.int64(worst >> np.uint64(32))
    if b < 0:
        b = b ^ np.int64(0x7FFFFFFF)
    scratch[0] = np.int32(b)  # the int32 bits of the worst kept score (0.0 for -0.0: they compare equal)
    return worst


@intrinsic
def _lowest_bit(typingctx, mask):  # pragma: no cover - compiled
    """The index of the lowest set bit of a nonzero uint64 (LLVM's ``cttz``: one instruction)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        import llvmlite.ir as ir

        word = ir.IntType(64)
        fn = builder.module.declare_intrinsic("llvm.cttz", [word], ir.FunctionType(word, [word, ir.IntType(1)]))
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])

    return sig, codegen


@intrinsic
def _prefetch(typingctx, docs, row, col):  # pragma: no cover - compiled
    """Ask for the cache line holding ``docs[row, col]`` (LLVM's ``prefetch``: a read, kept in every cache level);
    no load, no fault, no change to any value."""
    sig = types.void(docs, row, col)

    def codegen(context, builder, signature, args):
        import llvmlite.ir as ir
        from numba.core import cgutils

        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1], args[2]], wraparound=False,
                                       boundscheck=False)
        byte = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        # named by llvmlite for the pointer type (``.p0i8``; LLVM versions with opaque pointers rename it on load)
        fn = builder.module.declare_intrinsic("llvm.prefetch", [byte], ir.FunctionType(ir.VoidType(),
                                                                                        [byte, i32, i32, i32]))
        builder.call(fn, [builder.bitcast(ptr, byte), ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


#: how far ahead of the rows being summed a lone query's pass asks for the document matrix, in bytes
AHEAD_BYTES = 8192
#: the widest row (floats) asked for ahead: wider rows are read as fast without (the hardware's own prefetch keeps
#: up where each row's sum is long), narrower ones faster with (measured on 32-, 64- and 128-float rows)
AHEAD_WIDEST = 128


@numba.njit(nogil=True, cache=True, inline="always")
def _rows_ahead(docs):  # pragma: no cover - compiled
    """How many rows ahead :func:`_ask_ahead` asks for (a multiple of four), 0 where it does not."""
    d = docs.shape[1]
    if d == 0 or d > AHEAD_WIDEST:
        return 0
    return max(4, AHEAD_BYTES // (4 * d)) // 4 * 4


@numba.njit(nogil=True, cache=True, inline="always")
def _ask_ahead(docs, r, ahead):  # pragma: no cover - compiled
    """Ask for rows ``r + ahead`` to ``r + ahead + 3`` of ``docs``, a cache line (16 floats) at a time, where they
    exist: a lone query's pass over short rows leaves too few reads in flight for one core's memory bandwidth
    (20–35 GB/s measured), and asking 8 KiB ahead raised it to 35–47 GB/s."""
    if ahead == 0 or r + ahead + 4 > docs.shape[0]:
        return
    for i in range(4):
        for col in range(0, docs.shape[1], 16):
            _prefetch(docs, r + ahead + i, col)


@numba.njit(nogil=True, cache=True, inline="always")
def _seed_floor(row, k):  # pragma: no cover - compiled
    """A floor no ``k``-th best score of a row lies under, from its first block alone: the lowest of the maxima of
    ``k`` disjoint runs of its scores, ``k`` scores that reach it (``-inf`` where a run holds no number, NaN being
    no score). A fresh row's floor is otherwise the lowest score, so that all of its first block's scores were
    held, ``2k`` at a time, and cut back about ``w / k`` times."""
    w = row.shape[0]
    low = np.float32(np.inf)
    for i in range(k):
        best = np.float32(-np.inf)
        for x in range(i * w // k, (i + 1) * w // k):
            if row[x] > best:
                best = row[x]
        if best < low:
            low = best
    return low


@numba.njit(nogil=True, cache=True)
def select(scores, bits, ranks, k, floor, bound, held, count, scratch, as_float):  # pragma: no cover
    """Each row's scores reaching its floor, in column order, held as keys unless they rank after the row's
    ``k``-th best so far (a full row is cut back to its ``k`` best first, and its floor rises).

    A group of ``GROUP`` scores is compared with the floor into one 64-bit mask (a comparison the compiler
    vectorizes); a group whose mask is empty costs those few instructions, and a group holding hits visits only
    its set bits, lowest first (:func:`_lowest_bit`), each score compared again with the floor, which a cut
    may have raised. Visiting the group's 64 scores one by one for a hit or two cost about twice as much, and
    in the first blocks of a scan, while the floors rise, most groups hold one."""
    m, w = scores.shape
    room = held.shape[1]
    whole = w - w % GROUP
    for r in range(m):
        row = scores[r]
        f = floor[r]
        top = bound[r]
        c = count[r]
        if c == 0 and w >= 4 * k:  # a row's first block: a floor from it before any score is held
            f = max(f, _seed_floor(row, k))
        base = 0
        while base < w:
            if base < whole:
                group = row[base:base + GROUP]
                mask = np.uint64(0)
                for x in range(GROUP):
                    mask |= np.uint64(group[x] >= f) << np.uint64(x)
                step = GROUP
            else:  # the last scores of a block whose width does not divide by GROUP: one at a time
                mask = np.uint64(1)
                step = 1
            while mask != 0:
                x = base + np.int64(_lowest_bit(mask))
                mask &= mask - np.uint64(1)
                if not row[x] >= f:  # a cut since the mask was made may have raised the floor past it
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
            base += step
        floor[r] = f
        bound[r] = top
        count[r] = c


@numba.njit(nogil=True, cache=True, fastmath={"reassoc", "contract"}, inline="always")
def _four(docs, r, q, out, o):  # pragma: no cover - compiled
    """``out[o + i] = docs[r + i] · q`` for ``i`` in 0..3: four rows' sums in one loop over the query, each row's
    sum reassociated into vector lanes exactly as a lone row's would be (the four are independent chains)."""
    s0 = np.float32(0.0)
    s1 = np.float32(0.0)
    s2 = np.float32(0.0)
    s3 = np.float32(0.0)
    for j in range(docs.shape[1]):
        qj = q[j]
        s0 += docs[r, j] * qj
        s1 += docs[r + 1, j] * qj
        s2 += docs[r + 2, j] * qj
        s3 += docs[r + 3, j] * qj
    out[o] = s0
    out[o + 1] = s1
    out[o + 2] = s2
    out[o + 3] = s3


@numba.njit(nogil=True, cache=True, inline="always")
def _padded_tail(docs, whole):  # pragma: no cover - compiled
    """The rows of ``docs`` from ``whole`` on (one to three) as a group of four, zero-padded: the last rows of a
    block that does not divide by four are summed by :func:`_four` like every other group."""
    pad = np.zeros((4, docs.shape[1]), dtype=docs.dtype)
    pad[:docs.shape[0] - whole] = docs[whole:]
    return pad


@numba.njit(nogil=True, cache=True, fastmath={"reassoc", "contract"})
def products(docs, q, out):  # pragma: no cover - compiled
    """``out[r] = docs[r] · q`` for every row: one query's scores over a document block.

    Rows go four at a time (:func:`_four`: the query is read once for four rows, and four sums are in flight —
    about a fifth faster than one row at a time, bound by reading the documents). The last rows of a block that
    does not divide by four are copied into a zero-padded group of four and summed by the same loop, so every
    row's sum is the same instructions on the same values wherever it falls.

    Each row's sum is reassociated into vector lanes (the only fast-math licence taken besides fused
    multiply-add: NaN and infinities propagate as in IEEE arithmetic), so a row's bits depend on that row, the
    query and the machine's vector width alone — never on where its block starts or how the range is split."""
    n = docs.shape[0]
    whole = n - n % 4
    ahead = _rows_ahead(docs)
    for r in range(0, whole, 4):
        _ask_ahead(docs, r, ahead)
        _four(docs, r, q, out, r)
    if whole < n:
        sums = np.empty(4, dtype=out.dtype)
        _four(_padded_tail(docs, whole), 0, q, sums, 0)
        out[whole:] = sums[:n - whole]


@numba.njit(nogil=True, cache=True, fastmath={"reassoc", "contract"})
def _scan_rows(docs, rows, q, ranks, k, floor, bound, held, count, scratch, as_float, sums, bits):  # pragma: no cover
    """:func:`scan_one`'s pass over the first ``rows`` rows of ``docs`` (a multiple of four of them are read)."""
    room = held.shape[1]
    f = floor[0]
    top = bound[0]
    c = count[0]
    whole = docs.shape[0] - docs.shape[0] % 4
    ahead = _rows_ahead(docs)
    for r in range(0, whole, 4):
        _ask_ahead(docs, r, ahead)
        _four(docs, r, q, sums, 0)
        if not (sums[0] >= f or sums[1] >= f or sums[2] >= f or sums[3] >= f):
            continue
        for i in range(4):
            if not sums[i] >= f:
                continue
            if r + i >= rows:
                break
            key = key_of(bits[i], ranks[r + i])
            if key >= top:
                continue
            if c == room:
                top = cut(held[0], k, scratch)
                f = as_float[0]
                c = k
                if key >= top:
                    continue
            held[0, c] = key
            c += 1
    floor[0] = f
    bound[0] = top
    count[0] = c


@numba.njit(nogil=True, cache=True)
def scan_one(docs, q, ranks, k, floor, bound, held, count, scratch, as_float, sums, bits):  # pragma: no cover
    """A lone query's :func:`products` and :func:`select` in one pass, for a block no filter touches: four rows'
    scores (:func:`_four`, the same instructions, hence the same bits) are compared with the floor as they are
    summed, and only those reaching it become keys. No score block is written and read back: that round trip
    through the cache was about a tenth of a lone query's time. The last rows of a block that does not divide
    by four go through the same pass zero-padded to four, as in :func:`products`. ``sums`` is a float32 scratch
    of four, ``bits`` its int32 view; the selection steps are :func:`select`'s."""
    n = docs.shape[0]
    whole = n - n % 4
    _scan_rows(docs[:whole], whole, q, ranks, k, floor, bound, held, count, scratch, as_float, sums, bits)
    if whole < n:
        _scan_rows(_padded_tail(docs, whole), n - whole, q, ranks[whole:], k, floor, bound, held, count, scratch,
                   as_float, sums, bits)
