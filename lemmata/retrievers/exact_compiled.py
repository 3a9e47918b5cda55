"""The exact search's selection pass compiled, where numba is installed (an optional accelerator).

:meth:`ExactIndex._scan <lemmata.retrievers.search.ExactIndex>` finds, in plain numpy, the columns of a block of
scores that reach each row's floor: a comparison into a buffer, a ``flatnonzero``, then keys built, counted and
scattered into each row's held keys — several passes over the block and a handful of temporaries, each holding
the interpreter lock. With numba installed the same selection is one pass over the block, row by row, while the
block is still in cache: a group of ``GROUP`` (:mod:`~lemmata.retrievers.exact_kernels`) scores is counted against the row's floor (a comparison the compiler
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



@lru_cache(maxsize=1)
def kernel() -> Any:
    """The compiled selection pass (:mod:`~lemmata.retrievers.exact_kernels`), or None where numba is not
    installed (compiled on first use, cached on disk where the package folder is writable)."""
    try:
        from lemmata.retrievers import exact_kernels
    except ImportError:
        return None
    return exact_kernels.select


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
