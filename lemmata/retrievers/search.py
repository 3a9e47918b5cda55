"""Top-k search over document vectors: exact in bounded memory, or approximate with its recall loss measured.

**Exact** (:func:`exact_search`): queries × documents by blocked matrix products
(float32, contiguous, one BLAS product per query block × document block), so
memory is bounded by one block of scores whatever the corpus size — the
document matrix may be a ``numpy.memmap`` read block by block. Each block keeps
its best ``k`` per query (one comparison with its running k-th score, ``np.partition`` where more pass) and
the blocks' lists are merged as arrays; ranks sort
by score descending, then document id ascending (the order the metrics use),
including ties at the k-th place, so the result is exactly the top ``k`` of the
full ranking.

**Eligibility filter**: a document may carry an integer key (e.g. a year; a
negative key means unknown and is always eligible) and a query an upper bound;
documents whose key exceeds the bound are never ranked for that query. That is
how a year cutoff is applied exactly, as a filter rather than a re-ranking.

**Approximate** (:class:`ApproximateIndex`): an HNSW index from ``usearch``
(optional extra), whose candidates are re-scored exactly and ranked like the
exact search; :func:`recall_against_exact` measures what it loses, and the
figure is recorded with the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Ranking = list[tuple[str, float]]

#: documents per score block (queries × this many float32 scores are held at once)
DOC_BLOCK = 16384
#: queries per block
QUERY_BLOCK = 1024


def id_ranks(doc_ids: Sequence[str]) -> np.ndarray:
    """The position of each document id in ascending id order (the tie-break key).

    >>> id_ranks(["b", "c", "a"]).tolist()
    [1, 2, 0]
    """
    order = np.argsort(np.asarray(doc_ids, dtype=object).astype(str), kind="stable")
    ranks = np.empty(len(doc_ids), dtype=np.int64)
    ranks[order] = np.arange(len(doc_ids))
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


def _block_candidates(scores: np.ndarray, threshold: np.ndarray, tiebreak: np.ndarray,
                      k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row of one score block, the columns (padded rows × m, m ≤ k; padding scores ``-inf``) that can still
    enter the row's top ``k`` by (score desc, tiebreak asc).

    ``threshold`` is each row's k-th best score so far: a column below it can
    never enter, and after the first blocks few columns reach it, so one
    comparison over the block finds them. A row with more than ``k`` columns at
    or above it is cut to its exact top ``k`` by ``np.partition`` over those rows
    at once, a tie at the cut decided by the tie-break; so the merge of the
    blocks' lists is the exact top ``k`` of the whole row. NaN scores never
    rank; ``-inf`` marks a filtered or excluded column and is dropped at the end.

    >>> c, s = _block_candidates(np.array([[0.5, 0.9, 0.5, 0.5]], dtype=np.float32), np.array([-np.inf]),
    ...                          np.array([3, 0, 1, 2]), 2)
    >>> sorted(c[0].tolist())
    [1, 2]
    """
    rows, width = scores.shape
    mask = scores >= threshold[:, None]
    counts = mask.sum(axis=1)
    heavy = np.flatnonzero(counts > k)
    if heavy.size:
        sub = scores[heavy]
        np.copyto(sub, np.float32(-np.inf), where=np.isnan(sub))  # partition would sort NaN as largest
        kth = np.partition(sub, width - k, axis=1)[:, width - k]
        sub_mask = (sub >= kth[:, None]) & (sub > -np.inf)
        mask[heavy] = sub_mask
        counts[heavy] = sub_mask.sum(axis=1)
        for j in np.flatnonzero(counts[heavy] > k):  # ties at the cut: the smallest tiebreaks
            r = heavy[j]
            above = np.flatnonzero(sub[j] > kth[j])
            equal = np.flatnonzero(sub[j] == kth[j])
            need = k - above.size
            equal = equal[np.argpartition(tiebreak[equal], need - 1)[:need]]
            mask[r] = False
            mask[r, above] = True
            mask[r, equal] = True
            counts[r] = k
    r_idx, c_idx = np.divmod(np.flatnonzero(mask), width)  # flat: far faster than 2-D nonzero on a sparse mask
    m = int(counts.max()) if rows else 0
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


def exact_search(queries: np.ndarray, docs: np.ndarray, doc_ids: Sequence[str], k: int, *,
                 doc_keys: np.ndarray | None = None, query_limits: Sequence[int | None] | None = None,
                 excluded: Sequence[Any] | None = None, doc_block: int = DOC_BLOCK,
                 query_block: int = QUERY_BLOCK) -> list[Ranking]:
    """The top ``k`` ``(doc_id, score)`` of every query by dot product (cosine for unit vectors).

    ``doc_keys`` / ``query_limits``: the eligibility filter (see the module);
    ``excluded``: per query, a collection of document row indices never ranked
    for it (a dynamic corpus). Scores are float32 products, compared as stored.

    >>> d = np.array([[1, 0], [0, 1], [1, 0], [0.6, 0.8]], dtype=np.float32)
    >>> q = np.array([[1, 0]], dtype=np.float32)
    >>> [(i, round(s, 2)) for i, s in exact_search(q, d, ["z", "y", "a", "b"], 3)[0]]
    [('a', 1.0), ('z', 1.0), ('b', 0.6)]
    >>> [i for i, _ in exact_search(q, d, ["z", "y", "a", "b"], 3, doc_keys=np.array([2020, -1, 2024, 2019]),
    ...                             query_limits=[2021])[0]]
    ['z', 'b', 'y']
    """
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
    out: list[Ranking] = []
    for qa in range(0, len(q), query_block):
        qb = q[qa:qa + query_block]
        limits = None
        if query_limits is not None:
            limits = np.asarray([np.iinfo(np.int64).max if x is None else int(x)
                                 for x in query_limits[qa:qa + query_block]], dtype=np.int64)
        best_idx = np.zeros((len(qb), 0), dtype=np.int64)
        best_sc = np.zeros((len(qb), 0), dtype=np.float32)
        for da in range(0, n, doc_block):
            block = np.ascontiguousarray(docs[da:da + doc_block], dtype=np.float32)
            scores = qb @ block.T
            if limits is not None:
                keys = np.asarray(doc_keys[da:da + doc_block], dtype=np.int64)
                late = (keys[None, :] > limits[:, None]) & (keys[None, :] >= 0)
                scores[late] = -np.inf
            if excluded is not None:
                for r in range(len(qb)):
                    rows = [i - da for i in excluded[qa + r] if da <= i < da + block.shape[0]]
                    if rows:
                        scores[r, rows] = -np.inf
            if k == 0:
                continue
            threshold = best_sc[:, k - 1] if best_sc.shape[1] == k else np.full(len(qb), -np.inf, np.float32)
            cols, picked = _block_candidates(scores, threshold, tiebreak[da:da + block.shape[0]], k)
            best_idx, best_sc = _merge(np.concatenate([best_idx, cols + da], axis=1),
                                       np.concatenate([best_sc, picked], axis=1), tiebreak, k)
        for r in range(len(qb)):
            keep = best_sc[r] > -np.inf
            out.append([(doc_ids[int(i)], float(v)) for i, v in zip(best_idx[r][keep], best_sc[r][keep])])
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


class ApproximateIndex:
    """An inner-product HNSW index over document vectors; candidates re-scored exactly and tie-broken by id.

    ``path``: where the built graph is kept (a speed script reuses it); an existing file is loaded instead of
    building, and refused unless it holds one vector per document of this dimension.
    """

    def __init__(self, docs: np.ndarray, doc_ids: Sequence[str], params: HnswParams = HnswParams(), *,
                 threads: int = 0, path: str | None = None) -> None:
        import os

        from lemmata.retrievers.encoders import require

        usearch_index = require("usearch.index", "ann")
        self.docs, self.doc_ids, self.params = docs, list(doc_ids), params
        self.tiebreak = id_ranks(self.doc_ids)
        self.index = usearch_index.Index(ndim=int(docs.shape[1]), metric="ip", dtype="f32",
                                         connectivity=params.connectivity, expansion_add=params.expansion_add,
                                         expansion_search=params.expansion_search)
        if path is not None and os.path.exists(path):
            self.index.load(path)
            if len(self.index) != docs.shape[0] or self.index.ndim != docs.shape[1]:
                raise ValueError(f"{path}: an index of {len(self.index)} × {self.index.ndim} vectors, not "
                                 f"{docs.shape[0]} × {docs.shape[1]}")
            self.index.expansion_search = params.expansion_search
            return
        keys = np.arange(docs.shape[0], dtype=np.uint64)
        for a in range(0, docs.shape[0], 262144):  # add in blocks: a memmap is never loaded whole
            self.index.add(keys[a:a + 262144], np.ascontiguousarray(docs[a:a + 262144], dtype=np.float32),
                           threads=threads)
        if path is not None:
            self.index.save(path)

    def search(self, queries: np.ndarray, k: int, *, threads: int = 0) -> list[Ranking]:
        q = np.ascontiguousarray(queries, dtype=np.float32)
        k = min(k, len(self.doc_ids))
        self.index.expansion_search = self.params.expansion_search
        found = self.index.search(q, max(k * self.params.fetch, 1), threads=threads)
        keys = np.asarray(found.keys).reshape(len(q), -1)
        counts = np.asarray(found.counts).reshape(len(q))
        out: list[Ranking] = []
        for r in range(len(q)):
            idx = np.sort(keys[r, :counts[r]].astype(np.int64))
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
