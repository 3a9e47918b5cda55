"""Top-k search over document vectors: exact in bounded memory, or approximate with its recall loss measured.

**Exact** (:func:`exact_search`): queries × documents by blocked matrix products
(float32, contiguous, one single-threaded BLAS product per query block × document block; query blocks run in
parallel threads), so memory is bounded by one block of scores per worker whatever the corpus size — the
document matrix may be a ``numpy.memmap`` read block by block. Each block yields the columns that reach its
rows' running k-th best score (``np.partition`` where more than ``k`` pass) and the candidates are sorted once
per query block; ranks sort
by score descending, then document id ascending (the order the metrics use),
including ties at the k-th place, so the result is exactly the top ``k`` of the
full ranking.

**Eligibility filter**: a document may carry an integer key (e.g. a year; a
negative key means unknown and is always eligible) and a query an upper bound;
documents whose key exceeds the bound are never ranked for that query. That is
how a year cutoff is applied exactly, as a filter rather than a re-ranking.

**Approximate** (:class:`ApproximateIndex`, optional extra ``ann``): an inverted-file index with exact lists
from FAISS (``IndexIVFFlat``, spherical k-means cells; the default) or an HNSW graph from ``usearch``. Either
index only proposes candidates: they are re-scored exactly and ranked like the exact search, and
:func:`recall_against_exact` measures what the proposal loses; the figure is recorded with the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Ranking = list[tuple[str, float]]

#: documents per score block (queries × this many float32 scores are held at once, per worker: 8 MiB, so two
#: workers' blocks stay in a shared 32 MiB cache between the product and the scan that reads it)
DOC_BLOCK = 8192
#: queries per block (the unit of parallel work)
QUERY_BLOCK = 256


def id_ranks(doc_ids: Sequence[str]) -> np.ndarray:
    """The position of each document id in ascending id order (the tie-break key).

    Ids that are already in ascending order (most corpora: a release's rows are sorted by id) skip the sort.

    >>> id_ranks(["b", "c", "a"]).tolist()
    [1, 2, 0]
    >>> id_ranks(["a", "b"]).tolist()
    [0, 1]
    """
    ids = [str(d) for d in doc_ids]
    if all(a < b for a, b in zip(ids, ids[1:])):
        return np.arange(len(ids), dtype=np.int64)
    order = np.argsort(np.asarray(ids, dtype=str), kind="stable")
    ranks = np.empty(len(ids), dtype=np.int64)
    ranks[order] = np.arange(len(ids))
    return ranks


def _row_top(scores: np.ndarray, tiebreak: np.ndarray, k: int) -> np.ndarray:
    """Indices of the best ``k`` of one score row, by (score desc, tiebreak asc), ties at the k-th place exact."""
    n = scores.shape[0]
    finite = np.isfinite(scores)
    if not finite.all():
        idx = np.flatnonzero(finite)
        return idx[_row_top(scores[idx], tiebreak[idx], k)] if idx.size else idx
    if n <= k:
        return np.lexsort((tiebreak, -scores.astype(np.float64)))
    kth = np.partition(scores, n - k)[n - k]
    above = np.flatnonzero(scores > kth)
    equal = np.flatnonzero(scores == kth)
    need = k - above.size
    if equal.size > need:
        equal = equal[np.argpartition(tiebreak[equal], need - 1)[:need]] if need > 0 else equal[:0]
    chosen = np.concatenate([above, equal])
    return chosen[np.lexsort((tiebreak[chosen], -scores[chosen].astype(np.float64)))]


def _heavy_rows(sub: np.ndarray, tiebreak: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's exact top ``k`` columns of a score block by (score desc, tiebreak asc), as flat
    ``(row, column)`` arrays; ``-inf`` (filtered) and NaN columns never rank."""
    width = sub.shape[1]
    np.copyto(sub, np.float32(-np.inf), where=np.isnan(sub))  # partition would sort NaN as largest
    kth = np.partition(sub, width - k, axis=1)[:, width - k]
    mask = (sub >= kth[:, None]) & (sub > -np.inf)
    for j in np.flatnonzero(mask.sum(axis=1) > k):  # ties at the cut: the smallest tiebreaks
        above = np.flatnonzero(sub[j] > kth[j])
        equal = np.flatnonzero(sub[j] == kth[j])
        need = k - above.size
        equal = equal[np.argpartition(tiebreak[equal], need - 1)[:need]]
        mask[j] = False
        mask[j, above] = True
        mask[j, equal] = True
    return np.divmod(np.flatnonzero(mask), width)


def _block_candidates(scores: np.ndarray, threshold: np.ndarray, tiebreak: np.ndarray,
                      k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row of one score block, the columns (padded rows × m; padding scores ``-inf``) that can still enter
    the row's top ``k`` by (score desc, tiebreak asc).

    ``threshold`` is a lower bound on each row's final k-th best score (the k-th best seen so far): a column
    below it can never enter, and after the first block few columns reach it, so one comparison over the block
    and one scan of the hits find them (the hits are counted per row from their positions, not by a second pass
    over the block). A row without a threshold yet, or with more than ``k`` hits, is cut to its exact top ``k``
    by ``np.partition``, a tie at the cut decided by the tie-break; so the union of the blocks' candidates holds
    the exact top ``k`` of the whole row. NaN scores never rank; ``-inf`` marks a filtered or excluded column
    and is dropped at the end.

    >>> c, s = _block_candidates(np.array([[0.5, 0.9, 0.5, 0.5]], dtype=np.float32), np.array([-np.inf]),
    ...                          np.array([3, 0, 1, 2]), 2)
    >>> sorted(c[0].tolist())
    [1, 2]
    >>> c, s = _block_candidates(np.array([[0.5, 0.9, 0.2]], dtype=np.float32), np.array([0.5], np.float32),
    ...                          np.array([0, 1, 2]), 2)
    >>> sorted(c[0].tolist()), s.shape
    ([0, 1], (1, 2))
    """
    rows, width = scores.shape
    fresh = ~(threshold > -np.inf)
    if width <= k:
        heavy = np.zeros(rows, dtype=bool)
        r_idx, c_idx = np.divmod(np.flatnonzero(scores == scores), width)  # every non-NaN column
    else:
        bound = np.where(fresh, np.float32(np.inf), threshold).astype(np.float32)
        r_idx, c_idx = np.divmod(np.flatnonzero(scores >= bound[:, None]), width)
        heavy = fresh | (np.bincount(r_idx, minlength=rows) > k)
    if heavy.any():
        light = ~heavy[r_idx]
        hr, hc = _heavy_rows(scores[heavy], tiebreak, k)
        r_idx = np.concatenate([r_idx[light], np.flatnonzero(heavy)[hr]])
        c_idx = np.concatenate([c_idx[light], hc])
        order = np.argsort(r_idx, kind="stable")
        r_idx, c_idx = r_idx[order], c_idx[order]
    counts = np.bincount(r_idx, minlength=rows)
    m = int(counts.max()) if rows and r_idx.size else 0
    starts = np.cumsum(counts) - counts
    pos = np.arange(r_idx.size) - starts[r_idx]
    cols = np.zeros((rows, m), dtype=np.int64)
    picked = np.full((rows, m), -np.inf, dtype=np.float32)
    cols[r_idx, pos] = c_idx
    picked[r_idx, pos] = scores[r_idx, c_idx]
    return cols, picked


def _merge(idx: np.ndarray, sc: np.ndarray, tiebreak: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's best ``k`` of its candidates, sorted by (score desc, tiebreak asc)."""
    order = np.lexsort((tiebreak[idx], -sc.astype(np.float64)), axis=-1)[:, :k]
    return np.take_along_axis(idx, order, axis=1), np.take_along_axis(sc, order, axis=1)


def one_blas_thread():
    """A context in which BLAS runs on one thread (``threadpoolctl``), so a product's bits depend on its shape and
    the BLAS kernel alone, never on how many threads the library would otherwise split it over."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def exact_search(queries: np.ndarray, docs: np.ndarray, doc_ids: Sequence[str], k: int, *,
                 doc_keys: np.ndarray | None = None, query_limits: Sequence[int | None] | None = None,
                 excluded: Sequence[Any] | None = None, doc_block: int = DOC_BLOCK,
                 query_block: int = QUERY_BLOCK, workers: int | None = None) -> list[Ranking]:
    """The top ``k`` ``(doc_id, score)`` of every query by dot product (cosine for unit vectors).

    ``doc_keys`` / ``query_limits``: the eligibility filter (see the module);
    ``excluded``: per query, a collection of document row indices never ranked
    for it (a dynamic corpus). Scores are float32 products, compared as stored.

    Query blocks are searched in parallel by ``workers`` threads (default: one per usable core), each product on one
    BLAS thread, so the scores — and the rankings — are the same whatever the number of workers or cores: they
    depend on the block shapes and the BLAS kernel only. Within a query block, each document block's candidates
    are kept as they come and only their k-th best score is tracked (one ``np.partition`` of at most 2k values
    per row), which tightens the next block's threshold; the candidates are sorted once, at the end.

    >>> d = np.array([[1, 0], [0, 1], [1, 0], [0.6, 0.8]], dtype=np.float32)
    >>> q = np.array([[1, 0]], dtype=np.float32)
    >>> [(i, round(s, 2)) for i, s in exact_search(q, d, ["z", "y", "a", "b"], 3)[0]]
    [('a', 1.0), ('z', 1.0), ('b', 0.6)]
    >>> [i for i, _ in exact_search(q, d, ["z", "y", "a", "b"], 3, doc_keys=np.array([2020, -1, 2024, 2019]),
    ...                             query_limits=[2021])[0]]
    ['z', 'b', 'y']
    """
    from concurrent.futures import ThreadPoolExecutor

    from lemmata.core.cores import usable_cores

    q = np.ascontiguousarray(queries, dtype=np.float32)
    n = docs.shape[0]
    if n != len(doc_ids):
        raise ValueError(f"{n} document vectors for {len(doc_ids)} ids")
    if q.ndim != 2 or (n and q.shape[1] != docs.shape[1]):
        raise ValueError(f"query vectors of shape {q.shape} do not match documents of dimension {docs.shape[1]}")
    if query_limits is not None and (doc_keys is None or len(query_limits) != len(q)):
        raise ValueError("query_limits needs doc_keys and one limit per query")
    k = max(0, min(int(k), n))
    tiebreak = id_ranks(doc_ids)
    names = np.asarray(list(doc_ids), dtype=object)

    def one(qa: int) -> list[Ranking]:
        limits = None
        if query_limits is not None:
            limits = np.asarray([np.iinfo(np.int64).max if x is None else int(x)
                                 for x in query_limits[qa:qa + query_block]], dtype=np.int64)
        return _search_query_block(q[qa:qa + query_block], docs, names, tiebreak, k, limits=limits,
                                   doc_keys=doc_keys, excluded=excluded[qa:qa + query_block] if excluded is not None
                                   else None, doc_block=doc_block)

    starts = list(range(0, len(q), query_block))
    workers = max(1, min(len(starts), workers or usable_cores()))
    with one_blas_thread():
        if workers == 1:
            blocks = [one(qa) for qa in starts]
        else:
            with ThreadPoolExecutor(workers, thread_name_prefix="lemmata-search") as pool:
                blocks = list(pool.map(one, starts))
    return [ranking for block in blocks for ranking in block]


def _search_query_block(qb: np.ndarray, docs: np.ndarray, names: np.ndarray, tiebreak: np.ndarray, k: int, *,
                        limits: np.ndarray | None, doc_keys: np.ndarray | None, excluded: Sequence[Any] | None,
                        doc_block: int) -> list[Ranking]:
    """One query block's exact top ``k`` over every document block (see :func:`exact_search`)."""
    n = docs.shape[0]
    found_idx: list[np.ndarray] = [np.zeros((len(qb), 0), dtype=np.int64)]
    found_sc: list[np.ndarray] = [np.zeros((len(qb), 0), dtype=np.float32)]
    best = np.full((len(qb), k), -np.inf, dtype=np.float32)  # the k best scores so far, unordered
    threshold = np.full(len(qb), -np.inf, dtype=np.float32)
    for da in range(0, n, doc_block):
        block = np.ascontiguousarray(docs[da:da + doc_block], dtype=np.float32)
        scores = qb @ block.T
        if limits is not None:
            keys = np.asarray(doc_keys[da:da + doc_block], dtype=np.int64)
            late = (keys[None, :] > limits[:, None]) & (keys[None, :] >= 0)
            scores[late] = -np.inf
        if excluded is not None:
            for r in range(len(qb)):
                rows = [i - da for i in excluded[r] if da <= i < da + block.shape[0]]
                if rows:
                    scores[r, rows] = -np.inf
        if k == 0:
            continue
        cols, picked = _block_candidates(scores, threshold, tiebreak[da:da + block.shape[0]], k)
        if not cols.shape[1]:
            continue
        found_idx.append(cols + da)
        found_sc.append(picked)
        both = np.concatenate([best, picked], axis=1)
        best = np.partition(both, both.shape[1] - k, axis=1)[:, both.shape[1] - k:]
        threshold = best.min(axis=1)
    best_idx, best_sc = _merge(np.concatenate(found_idx, axis=1), np.concatenate(found_sc, axis=1), tiebreak, k)
    out: list[Ranking] = []
    for r in range(len(qb)):
        keep = best_sc[r] > -np.inf
        out.append(list(zip(names[best_idx[r][keep]].tolist(), best_sc[r][keep].tolist())))
    return out


# -- approximate search ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class HnswParams:
    """usearch HNSW parameters: connectivity M, expansion while adding and while searching, and the over-fetch
    (``fetch`` × k candidates are taken from the graph and re-scored exactly before the top k is cut).

    Measured by ``perf/evaluate_speed.py --only ann`` at 1M synthetic 64-dim vectors (M=32, ef_add=128, one
    graph): recall@10 against exact 0.672 at ef_search=128, 0.915 at 512, 0.972 at 1024, 0.991 at 2048 (the
    default: the first setting past the 0.98 goal), 0.996 at 3072; an over-fetch of 2k added nothing over the
    expansion. The label records the setting with the run."""

    connectivity: int = 32
    expansion_add: int = 128
    expansion_search: int = 2048
    fetch: int = 1

    def label(self) -> str:
        """The index kind recorded in ``ModelInfo.index``.

        >>> HnswParams().label()
        'usearch-hnsw(M=32,ef_add=128,ef_search=2048,fetch=1k)'
        """
        return (f"usearch-hnsw(M={self.connectivity},ef_add={self.expansion_add},"
                f"ef_search={self.expansion_search},fetch={self.fetch}k)")


@dataclass(frozen=True)
class IvfParams:
    """FAISS inverted-file parameters: ``lists`` k-means cells (0: about 4·√n), ``probe`` cells searched per
    query, a training sample of ``train_per_list`` vectors per cell drawn with ``seed``, and the over-fetch.

    Measured by ``perf/evaluate_speed.py --only ann`` at 1M synthetic clustered 64-dim vectors: 4,000 cells,
    probe 64 gives recall@10 ≈ 0.99 against exact search (probe 32: ≈ 0.97) at many times its speed; the label
    records the setting with the run.

    >>> IvfParams().resolved(1_000_000).label()
    'faiss-ivf-flat(lists=4000,probe=64,fetch=1k)'
    """

    lists: int = 0
    probe: int = 64
    train_per_list: int = 64
    seed: int = 1234
    fetch: int = 1

    def resolved(self, n: int) -> IvfParams:
        """The parameters with ``lists`` fixed for ``n`` documents (never more cells than documents)."""
        import dataclasses
        import math

        lists = self.lists or max(1, round(4 * math.sqrt(n)))
        return dataclasses.replace(self, lists=max(1, min(lists, n)))

    def label(self) -> str:
        return f"faiss-ivf-flat(lists={self.lists},probe={self.probe},fetch={self.fetch}k)"


class ApproximateIndex:
    """An inner-product index over document vectors whose candidates are re-scored exactly and tie-broken by id:
    FAISS IVF (``IvfParams``, the default) or usearch HNSW (``HnswParams``).

    ``path``: where the built index is kept (a speed script reuses it); an existing file is loaded instead of
    building, and refused unless it holds one vector per document of this dimension. ``label`` names the index
    kind and its settings, as recorded in ``ModelInfo.index``.
    """

    def __init__(self, docs: np.ndarray, doc_ids: Sequence[str], params: IvfParams | HnswParams = IvfParams(), *,
                 threads: int = 0, path: str | None = None) -> None:
        self.docs, self.doc_ids = docs, list(doc_ids)
        self.tiebreak = id_ranks(self.doc_ids)
        if isinstance(params, HnswParams):
            self.params: IvfParams | HnswParams = params
            self._build_hnsw(threads, path)
        else:
            self.params = params.resolved(docs.shape[0])
            self._build_ivf(path)

    @property
    def label(self) -> str:
        return self.params.label()

    def _check_loaded(self, path: str, count: int, dim: int) -> None:
        if count != self.docs.shape[0] or dim != self.docs.shape[1]:
            raise ValueError(f"{path}: an index of {count} × {dim} vectors, not "
                             f"{self.docs.shape[0]} × {self.docs.shape[1]}")

    def _build_ivf(self, path: str | None) -> None:
        import os

        from lemmata.retrievers.encoders import require

        faiss = require("faiss", "ann")
        p, (n, dim) = self.params, self.docs.shape
        if path is not None and os.path.exists(path):
            self.index = faiss.read_index(path)
            self._check_loaded(path, self.index.ntotal, self.index.d)
        else:
            self.index = faiss.IndexIVFFlat(faiss.IndexFlatIP(dim), dim, p.lists, faiss.METRIC_INNER_PRODUCT)
            self.index.cp.seed = p.seed
            self.index.cp.spherical = True
            self.index.cp.max_points_per_centroid = p.train_per_list
            rng = np.random.default_rng(p.seed)
            sample = np.sort(rng.choice(n, size=min(n, p.lists * p.train_per_list), replace=False))
            self.index.train(np.ascontiguousarray(self.docs[sample], dtype=np.float32))
            for a in range(0, n, 262144):  # add in blocks: a memmap is never loaded whole
                self.index.add(np.ascontiguousarray(self.docs[a:a + 262144], dtype=np.float32))
            if path is not None:
                faiss.write_index(self.index, path)
        self.index.nprobe = p.probe

    def _build_hnsw(self, threads: int, path: str | None) -> None:
        import os

        from lemmata.retrievers.encoders import require

        usearch_index = require("usearch.index", "ann")
        p, docs = self.params, self.docs
        self.index = usearch_index.Index(ndim=int(docs.shape[1]), metric="ip", dtype="f32",
                                         connectivity=p.connectivity, expansion_add=p.expansion_add,
                                         expansion_search=p.expansion_search)
        if path is not None and os.path.exists(path):
            self.index.load(path)
            self._check_loaded(path, len(self.index), self.index.ndim)
            self.index.expansion_search = p.expansion_search
            return
        keys = np.arange(docs.shape[0], dtype=np.uint64)
        for a in range(0, docs.shape[0], 262144):
            self.index.add(keys[a:a + 262144], np.ascontiguousarray(docs[a:a + 262144], dtype=np.float32),
                           threads=threads)
        if path is not None:
            self.index.save(path)

    def candidates(self, q: np.ndarray, want: int, *, threads: int = 0) -> list[np.ndarray]:
        """Each query's proposed document rows (ascending), from the index alone."""
        if isinstance(self.params, HnswParams):
            self.index.expansion_search = self.params.expansion_search
            found = self.index.search(q, want, threads=threads)
            keys = np.asarray(found.keys).reshape(len(q), -1)
            counts = np.asarray(found.counts).reshape(len(q))
            return [np.sort(keys[r, :counts[r]].astype(np.int64)) for r in range(len(q))]
        self.index.nprobe = self.params.probe
        _, found = self.index.search(q, want)
        return [np.sort(row[row >= 0].astype(np.int64)) for row in found]

    def search(self, queries: np.ndarray, k: int, *, threads: int = 0) -> list[Ranking]:
        q = np.ascontiguousarray(queries, dtype=np.float32)
        k = min(k, len(self.doc_ids))
        out: list[Ranking] = []
        for r, idx in enumerate(self.candidates(q, max(k * self.params.fetch, 1), threads=threads)):
            scores = np.asarray(self.docs[idx], dtype=np.float32) @ q[r]
            keep = _row_top(scores, self.tiebreak[idx], k)
            out.append([(self.doc_ids[int(idx[i])], float(scores[i])) for i in keep])
        return out


def recall_against_exact(approx: Sequence[Ranking], exact: Sequence[Ranking], k: int = 10) -> float:
    """Mean fraction of the exact top ``k`` that the approximate top ``k`` also holds.

    >>> recall_against_exact([[("a", 1.0), ("c", 0.5)]], [[("a", 1.0), ("b", 0.9)]], k=2)
    0.5
    """
    if not exact:
        return 1.0
    hits = [len({d for d, _ in a[:k]} & {d for d, _ in e[:k]}) / max(1, min(k, len(e)))
            for a, e in zip(approx, exact)]
    return float(np.mean(hits))
