"""The compiled selection pass (numba installed) ranks exactly what the numpy path ranks: same rows, same score bits,
same order, on random blocks full of ties, signed zeros, NaN and filtered documents, across block boundaries,
query blocks, worker splits and the cuts of a row's held keys. A lone query's compiled product sums each row in
vector lanes: its scores are the exact dot products (to float32 rounding) and depend on the row alone."""

from __future__ import annotations

import numpy as np
import pytest

from lemmata.retrievers.search import ExactIndex

pytest.importorskip("numba")


def _case(rng: np.random.Generator, case: int):
    n = int(rng.integers(1, 1500))
    dim = int(rng.integers(1, 6))
    scale = float(rng.choice([1, 4]))  # whole numbers or quarters: every product and sum is exact in float32, so
    # BLAS and the compiled one-query product (which sum in different orders) give the same bits
    docs = (np.round(rng.normal(size=(n, dim)) * scale) / scale).astype(np.float32)
    if case % 3 == 0:
        docs[rng.random(n) < 0.5] = docs[0]  # a large tie group
    if case % 4 == 0:
        docs[rng.random(n) < 0.2] = -0.0  # signed zeros tie with zeros
    if case % 5 == 0:
        docs[rng.random(n) < 0.05, 0] = np.nan  # never ranked
    if case % 7 == 0:
        docs[:, 0] = np.linspace(-1, 1, n, dtype=np.float32)  # ascending: every column rises past the floor
        docs[:, 1:] = 0.0
    ids = [f"d{int(x)}-{i}" for i, x in enumerate(rng.integers(0, 10**6, size=n))]
    q = (np.round(rng.normal(size=(int(rng.integers(1, 9)), dim)) * 4) / 4).astype(np.float32)
    q[0] = 0.0  # every score equal: ranked by id alone
    years = rng.integers(1990, 2025, size=n)
    years[: n // 10] = -1
    return docs, ids, q, years


def test_compiled_selection_ranks_as_the_numpy_path():
    rng = np.random.default_rng(20)
    for case in range(30):
        docs, ids, q, years = _case(rng, case)
        n = len(ids)
        shape = {"doc_block": int(rng.choice([64, 128, 512])), "query_block": int(rng.choice([1, 3, 256]))}
        compiled = ExactIndex(docs, ids, doc_keys=years, **shape)
        plain = ExactIndex(docs, ids, doc_keys=years, compiled=False, **shape)
        assert compiled.compiled and not plain.compiled
        limits = [None if rng.random() < 0.3 else int(rng.integers(1990, 2025)) for _ in q]
        excluded = [sorted(set(rng.integers(0, n, size=3).tolist())) for _ in q]
        for k in {1, int(rng.choice([2, 7, 50])), n, n + 3}:
            for workers in (1, 3) if case % 2 else (1,):
                asked = {"query_limits": limits, "excluded": excluded, "workers": workers}
                rows, scores = compiled.top(q, k, **asked)
                want_rows, want_scores = plain.top(q, k, **asked)
                assert rows.tolist() == want_rows.tolist(), (case, k, workers)
                assert scores.tobytes() == want_scores.tobytes(), (case, k, workers)
            assert compiled.search(q, k) == plain.search(q, k), (case, k)
            assert compiled.search(q[:1], k) == plain.search(q[:1], k), (case, k)  # alone, unfiltered: fused


def test_a_lone_unfiltered_query_fuses_product_and_selection_to_the_same_bits():
    """A query searched alone with no filter takes the fused pass (scores compared with the floor as they are
    summed, none written): the same rows and score bits as the product-then-selection pass a filter forces (an
    empty exclusion list), on random floats whose sums round, at sizes that leave one to three rows over four,
    whatever the block size or number of workers."""
    rng = np.random.default_rng(23)
    for n, dim, k in ((1, 3, 5), (7, 64, 3), (1001, 17, 40), (4099, 256, 100), (6002, 64, 6002)):
        docs = rng.standard_normal((n, dim), dtype=np.float32)
        docs[rng.random(n) < 0.1] = docs[0]  # ties broken by id
        ids = [f"d{int(x)}-{i}" for i, x in enumerate(rng.integers(0, 10**6, size=n))]
        q = rng.standard_normal((1, dim), dtype=np.float32)
        for shape, workers in (({"doc_block": 64}, 1), ({"doc_block": 512}, 3), ({}, 2)):
            index = ExactIndex(docs, ids, **shape)
            rows, scores = index.top(q, k, workers=workers)
            want_rows, want_scores = index.top(q, k, excluded=[[]], workers=workers)
            assert rows.tolist() == want_rows.tolist(), (n, dim, shape)
            assert scores.tobytes() == want_scores.tobytes(), (n, dim, shape)


def test_compiled_threads_rank_as_one_thread():
    """Worker threads select at once (the compiled pass releases the interpreter lock): the same rankings."""
    rng = np.random.default_rng(21)
    docs = np.round(rng.normal(size=(5000, 8)), 1).astype(np.float32)
    ids = [f"d{i:05d}" for i in range(len(docs))]
    q = np.round(rng.normal(size=(40, 8)), 1).astype(np.float32)
    index = ExactIndex(docs, ids, doc_block=256, query_block=4)
    assert index.search(q, 30, workers=4) == index.search(q, 30, workers=1) == ExactIndex(
        docs, ids, doc_block=256, query_block=4, compiled=False).search(q, 30, workers=1)


def test_one_query_product_is_each_rows_dot_product_whatever_the_blocks():
    """The compiled one-query product: within float32 rounding of the exact dot product, NaN and infinities as in
    IEEE arithmetic, and the same bits (hence rankings) whatever the document block size or number of workers."""
    from lemmata.retrievers.exact_compiled import products

    rng = np.random.default_rng(22)
    docs = rng.standard_normal((9000, 256), dtype=np.float32)
    docs[7, 3], docs[8, 5] = np.nan, np.inf
    q = rng.standard_normal(256, dtype=np.float32)
    out = np.empty(len(docs), np.float32)
    assert products(docs, q, out)
    exact = docs.astype(np.float64) @ q.astype(np.float64)
    finite = np.isfinite(exact)
    assert np.isnan(out[7]) and np.isinf(out[8]) and np.isfinite(out[finite]).all()
    scale = np.abs(docs[finite]).astype(np.float64) @ np.abs(q).astype(np.float64)  # the sum of |terms|
    assert (np.abs(out[finite] - exact[finite]) <= 256 * 2**-24 * scale).all()
    for piece in (1000, 999, 7):  # pieces that leave one to three rows over four: padded, the same bits
        pieces = np.empty_like(out)
        for a in range(0, len(docs), piece):
            products(docs[a:a + piece], q, pieces[a:a + piece])
        assert pieces.tobytes() == out.tobytes(), piece
    ids = [f"d{i:05d}" for i in range(len(docs))]
    want = ExactIndex(docs, ids, doc_block=64).top(q[None], 50, workers=1)
    for shape, workers in (({"doc_block": 64}, 3), ({"doc_block": 8192}, 1), ({"doc_block": 512}, 2)):
        rows, scores = ExactIndex(docs, ids, **shape).top(q[None], 50, workers=workers)
        assert rows.tolist() == want[0].tolist() and scores.tobytes() == want[1].tobytes()
    assert want[1].tobytes() == out[want[0][0]].tobytes()


def test_a_first_block_floor_from_run_maxima_keeps_every_top_score():
    """The compiled pass starts a row's floor at the lowest maximum of ``k`` runs of its first block: runs that
    hold only NaN or filtered (``-inf``) scores, ``+inf`` scores, a top-k that sits in one run, and ties at the
    floor itself all rank as the numpy path ranks them."""
    rng = np.random.default_rng(29)
    n, k = 2048, 8
    docs = np.zeros((n, 2), dtype=np.float32)
    docs[:, 0] = np.round(rng.normal(size=n) * 4) / 4
    docs[: n // k, 0] = np.nan  # the first run: no number at all
    docs[n // k: 2 * n // k, 0] = 7.0  # a run of one value, tied
    docs[5 * n // k + 3, 0] = np.inf
    docs[6 * n // k: 6 * n // k + 40, 0] = np.linspace(3, 6, 40)  # the best scores, in one run
    ids = [f"d{i:05d}" for i in range(n)]
    years = np.where(np.arange(n) % 3 == 0, 2030, 2000)  # a third filtered for the limited query
    q = np.array([[1.0, 0.0], [-1.0, 0.0], [1.0, 0.0]], dtype=np.float32)
    for block in (512, 2048):
        compiled = ExactIndex(docs, ids, doc_keys=years, doc_block=block)
        plain = ExactIndex(docs, ids, doc_keys=years, doc_block=block, compiled=False)
        for want in (1, k, 60):
            asked = {"query_limits": [None, None, 2010]}
            rows, scores = compiled.top(q, want, **asked)
            want_rows, want_scores = plain.top(q, want, **asked)
            assert rows.tolist() == want_rows.tolist() and scores.tobytes() == want_scores.tobytes(), (block, want)
