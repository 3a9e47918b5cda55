"""The exact search's selection pass compiled, where numba is installed (an optional accelerator).

:meth:`ExactIndex._scan <lemmata.retrievers.search.ExactIndex>` finds, in plain numpy, the columns of a block of
scores that reach each row's floor: a comparison into a buffer, a ``flatnonzero``, then keys built, counted and
scattered into each row's held keys — several passes over the block and a handful of temporaries, each holding
the interpreter lock. With numba installed the same selection is one pass over the block, row by row, while the
block is still in cache: a group of ``GROUP`` (:mod:`~lemmata.retrievers.exact_kernels`) scores is compared
with the row's floor into one bit mask (a comparison the compiler vectorizes) and only the set bits of a group
holding hits are visited; a hit becomes its :func:`rank_keys
<lemmata.retrievers.search.rank_keys>` key, is dropped when it ranks after the row's ``k``-th best so far, and is
appended otherwise; a row holding ``2k`` keys is cut back to its ``k`` best and its floor rises to their worst.
The pass releases the interpreter lock, so the search's worker threads select in parallel.

A query searched alone (a one-row query block) gets its scores from a second compiled pass,
:func:`products`: each document row is read once and its dot product with the query summed in vector lanes,
four rows at a time. The product is bound by reading the document matrix; BLAS's matrix-vector product reads it
at about two thirds of this loop's speed here. Where no filter touches the block (no year limit, no exclusion),
:func:`scan_one` fuses that product with the selection: each group of four scores is compared with the floor as
it is summed, and no score block is written and read back. The bits of a reassociated sum differ from BLAS's in
the last places, so a lone query's scores can differ by an ulp from the numpy path's (a row's bits still depend
on that row alone, never on blocks, workers or fusion); the rankings they give are compared on exactly
representable vectors in the tests.

The selection's answer is the same, bit for bit: both paths keep, of every finite score (NaN and ``-inf``, the filtered
documents, never rank), exactly the ``k`` smallest keys, and the caller sorts and decodes them with the same
code. The tests compare both paths on random blocks full of ties and signed zeros.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lemmata.core.accelerator import compiled_module


def kernel() -> Any:
    """The compiled functions' module (:mod:`~lemmata.retrievers.exact_kernels`), or None where numba is not
    installed."""
    return compiled_module("lemmata.retrievers.exact_kernels")


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
    found.select(scores, scores.view(np.int32), ranks, int(k), floor, bound, held, count, scratch, scratch.view(np.float32))
    return True


def products(block: np.ndarray, query: np.ndarray, out: np.ndarray) -> bool:
    """One query's float32 scores over a C-contiguous float32 document ``block`` into ``out``, as one compiled
    pass that reads each document row once (:func:`~lemmata.retrievers.exact_kernels.products`). A lone query's
    search is bound by reading the document matrix: BLAS's matrix-vector product reads it more slowly than this
    loop, and FAISS's own row-by-row loop likewise. False (nothing done) where numba is not installed."""
    found = kernel()
    if found is None:
        return False
    found.products(block, query, out)
    return True


def scan_one(block: np.ndarray, query: np.ndarray, ranks: np.ndarray, k: int, floor: np.ndarray,
             bound: np.ndarray, held: np.ndarray, count: np.ndarray) -> bool:
    """:func:`products` then :func:`select` for one query over a C-contiguous float32 document ``block`` that no
    filter touches, as one compiled pass (:func:`~lemmata.retrievers.exact_kernels.scan_one`): the same scores,
    bit for bit, and the same keys kept, with no score block written. False (nothing done) where numba is not
    installed."""
    found = kernel()
    if found is None:
        return False
    scratch = np.zeros(1, np.int32)
    sums = np.empty(4, np.float32)
    found.scan_one(block, query, ranks, int(k), floor, bound, held, count, scratch, scratch.view(np.float32), sums,
                   sums.view(np.int32))
    return True
