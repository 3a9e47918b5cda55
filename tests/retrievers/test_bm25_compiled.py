"""The compiled ranking (numba installed) answers exactly what the numpy path answers: same positions, same rounded
scores, same order, on random indexes with many tied weights, across block boundaries and candidate cuts, whether a
query reads back only the documents it touched or every block in full (:data:`~lemmata.retrievers.bm25.compiled.SPARSE`:
never, the shipped share, always)."""

from __future__ import annotations

import numpy as np
import pytest

from lemmata.retrievers.bm25 import Postings, top_rounded
from lemmata.retrievers.bm25 import compiled as bm25_compiled
from lemmata.retrievers.bm25.compiled import _HELD, BLOCK

SHARES = [0.0, bm25_compiled.SPARSE, float("inf")]

pytest.importorskip("numba")


def random_postings(seed: int, documents: int, terms: int) -> Postings:
    """A terms-by-documents CSR index: rows of up to half the documents, ascending, weights drawn from a few
    values (so sums tie, and tie within the rounding margin)."""
    rng = np.random.default_rng(seed)
    values = np.array([0.25, 0.5, 1.0, 1.0000004, 1.5, 2.0000001], np.float32)
    rows = [np.sort(rng.choice(documents, size=int(rng.integers(1, documents // 2)), replace=False))
            for _ in range(terms)]
    indptr = np.concatenate([[0], np.cumsum([r.size for r in rows])]).astype(np.int64)
    data = values[rng.integers(0, values.size, int(indptr[-1]))]
    return Postings({}, data, np.concatenate(rows).astype(np.int32), indptr, documents)


@pytest.mark.parametrize("share", SHARES)
@pytest.mark.parametrize("seed", [0, 1])
def test_compiled_top_is_the_numpy_top(seed, share, monkeypatch):
    monkeypatch.setattr(bm25_compiled, "SPARSE", share)
    documents = 2 * BLOCK + 123  # three blocks, the last one partial
    index = random_postings(seed, documents, 24)
    assert index.compiled
    rng = np.random.default_rng(seed + 100)
    tie_rank = rng.permutation(documents)
    checked = 0
    for _ in range(15):
        terms = [int(t) for t in rng.choice(24, size=int(rng.integers(1, 8)), replace=False)]
        end = int(rng.choice([documents, documents + 5, BLOCK, BLOCK + 1, int(rng.integers(1, documents))]))
        for n in (1, 3, 20, _HELD + 7, documents):
            for ranks in (None, tie_rank):
                expected = top_rounded(index.scores(terms, end=end), n, min(end, documents), tie_rank=ranks)
                assert index.top(terms, n, end, tie_rank=ranks) == expected, (terms, end, n)
                checked += 1
    assert checked == 150


def test_unsorted_rows_rank_through_numpy():
    """Rows out of document order (not what bm25s writes) are ranked by the numpy path, with the same answer."""
    index = Postings({}, np.array([1.0, 2.0, 0.5], np.float32), np.array([2, 0, 1], np.int32),
                     np.array([0, 3], np.int64), 3)
    assert not index.compiled
    assert index.top([0], 2) == top_rounded(index.scores([0]), 2) == [(0, 2.0), (2, 1.0)]


def test_batch_threads_rank_as_the_loop():
    """Threads sharing one compiled index (each with its own buffers) rank every query as one thread does."""
    from concurrent.futures import ThreadPoolExecutor

    index = random_postings(5, BLOCK + 99, 16)
    rng = np.random.default_rng(6)
    queries = [[int(t) for t in rng.choice(16, size=4, replace=False)] for _ in range(40)]
    alone = [index.top(q, 10) for q in queries]
    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(lambda q: index.top(q, 10), queries)) == alone


@pytest.mark.parametrize(("compiled", "share"), [(True, s) for s in SHARES] + [(False, None)])
def test_batch_ranks_each_query_as_top(compiled, share, monkeypatch):
    """One call ranking a batch (the compiled kernel over every query, or the numpy path query by query) gives
    each query exactly what ``top`` and the numpy ``top_rounded`` give it: cutoffs inside, at and past the end,
    queries without terms, candidate cuts, ties by position or by a tie rank."""
    documents = BLOCK + 517
    index = random_postings(11, documents, 20)
    if share is not None:
        monkeypatch.setattr(bm25_compiled, "SPARSE", share)
    if not compiled:
        index.__dict__["compiled"] = False  # the path taken where numba is not installed
    rng = np.random.default_rng(12)
    tie_rank = rng.permutation(documents)
    batch = []
    for i in range(60):
        terms = [int(t) for t in rng.choice(20, size=int(rng.integers(0 if i % 9 == 0 else 1, 6)), replace=False)]
        end = [None, 0, documents + 3, BLOCK, int(rng.integers(1, documents))][i % 5]
        batch.append((terms, end, [1, 5, 20, _HELD + 3][i % 4]))
    for ranks in (None, tie_rank):
        got = index.top_batch(batch, tie_rank=ranks).split()
        bounded = [min(documents, documents if e is None else e) for _, e, _ in batch]
        assert got == [index.top(t, n, e, tie_rank=ranks) for t, e, n in batch]
        assert got == [top_rounded(index.scores(t, end=e), n, e, tie_rank=ranks) if t and e else []
                       for (t, _, n), e in zip(batch, bounded)]
    assert sum(map(len, got)) > 1000 and any(not g for g in got)


def test_single_queries_take_numpy_until_the_compiled_pass_pays():
    """A fresh process ranks its first single queries with numpy (numba's first use costs about half a second,
    which a handful of searches never earns back) and loads the compiled pass after
    ``SINGLES_BEFORE_COMPILED`` of them: the same answers either way."""
    import subprocess
    import sys

    code = """
import sys
import numpy as np
from lemmata.retrievers.bm25 import postings
from lemmata.retrievers.bm25.postings import Postings, top_rounded
postings.SINGLES_BEFORE_COMPILED = 5
p = Postings({}, np.array([0.5, 1.25, 0.25, 2.0], np.float32), np.array([0, 2, 0, 1], np.int32),
             np.array([0, 2, 4], np.int64), 3)
want = top_rounded(p.scores([1, 0]), 2)
for _ in range(5):
    assert p.top([1, 0], 2) == want
    assert "numba" not in sys.modules
assert p.top([1, 0], 2) == want
assert "numba" in sys.modules and p.__dict__["compiled"] is True
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
