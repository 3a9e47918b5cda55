"""Top-k search over document vectors: exact in bounded memory, or approximate with its recall loss measured.

**Exact** (:func:`exact_search`): queries × documents by blocked matrix products
(float32), so memory is bounded by one block of scores whatever the corpus size
— the document matrix may be a ``numpy.memmap`` read block by block. Each block
keeps its best ``k`` per query and the blocks' candidates are merged; ranks sort
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
QUERY_BLOCK = 256


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


class _Candidates:
    """Per query, the documents that can still be in its top ``k`` and a running score threshold.

    A document scoring below a query's threshold — the k-th best score among
    its candidates so far — can never enter its top ``k``, so each block only
    adds the few documents at or above it (ties kept: the id decides them at
    the end). A query's list is cut back to its exact top ``k`` whenever it
    grows past a bound, which raises the threshold.
    """

    def __init__(self, rows: int, k: int, tiebreak: np.ndarray) -> None:
        self.k, self.tiebreak = k, tiebreak
        self.idx: list[list[np.ndarray]] = [[] for _ in range(rows)]
        self.score: list[list[np.ndarray]] = [[] for _ in range(rows)]
        self.count = np.zeros(rows, dtype=np.int64)
        self.threshold: np.ndarray | None = None
        self.bound = 4 * k + 256

    def add(self, scores: np.ndarray, offset: int) -> None:
        width = scores.shape[1]
        if self.k == 0 or width == 0:
            return
        if self.threshold is None:  # the first block's k-th best is a lower bound of every final k-th best
            kk = min(self.k, width)
            self.threshold = np.partition(scores, width - kk, axis=1)[:, width - kk].astype(np.float32)
        mask = scores >= self.threshold[:, None]
        mask &= scores > -np.inf
        rows, cols = np.nonzero(mask)
        bounds = np.searchsorted(rows, np.arange(scores.shape[0] + 1))
        for r in np.flatnonzero(np.diff(bounds)):
            idx = cols[bounds[r]:bounds[r + 1]]
            self.idx[r].append(idx + offset)
            self.score[r].append(scores[r, idx])
            self.count[r] += idx.size
            if self.count[r] > self.bound:
                self._compact(r)

    def _compact(self, r: int) -> None:
        idx, sc = np.concatenate(self.idx[r]), np.concatenate(self.score[r])
        keep = _row_top(sc, self.tiebreak[idx], self.k)
        self.idx[r], self.score[r] = [idx[keep]], [sc[keep]]
        self.count[r] = keep.size
        if keep.size == self.k:
            self.threshold[r] = max(self.threshold[r], sc[keep].min())

    def top(self, r: int) -> tuple[np.ndarray, np.ndarray]:
        if not self.idx[r]:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        idx, sc = np.concatenate(self.idx[r]), np.concatenate(self.score[r])
        keep = _row_top(sc, self.tiebreak[idx], self.k)
        return idx[keep], sc[keep]


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
    q = np.asarray(queries, dtype=np.float32)
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
        cands = _Candidates(len(qb), k, tiebreak)
        for da in range(0, n, doc_block):
            block = np.asarray(docs[da:da + doc_block], dtype=np.float32)
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
            cands.add(scores, da)
        for r in range(len(qb)):
            idx, sc = cands.top(r)
            out.append([(doc_ids[int(i)], float(v)) for i, v in zip(idx, sc)])
    return out


# -- approximate search ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class HnswParams:
    """usearch HNSW parameters (connectivity M, expansion while adding and while searching)."""

    connectivity: int = 32
    expansion_add: int = 128
    expansion_search: int = 128

    def label(self) -> str:
        """The index kind recorded in ``ModelInfo.index``.

        >>> HnswParams().label()
        'usearch-hnsw(M=32,ef_add=128,ef_search=128)'
        """
        return (f"usearch-hnsw(M={self.connectivity},ef_add={self.expansion_add},"
                f"ef_search={self.expansion_search})")


class ApproximateIndex:
    """An inner-product HNSW index over document vectors; candidates re-scored exactly and tie-broken by id."""

    def __init__(self, docs: np.ndarray, doc_ids: Sequence[str], params: HnswParams = HnswParams(), *,
                 threads: int = 0) -> None:
        from lemmata.retrievers.encoders import require

        usearch_index = require("usearch.index", "ann")
        self.docs, self.doc_ids, self.params = docs, list(doc_ids), params
        self.tiebreak = id_ranks(self.doc_ids)
        self.index = usearch_index.Index(ndim=int(docs.shape[1]), metric="ip", dtype="f32",
                                         connectivity=params.connectivity, expansion_add=params.expansion_add,
                                         expansion_search=params.expansion_search)
        keys = np.arange(docs.shape[0], dtype=np.uint64)
        for a in range(0, docs.shape[0], 262144):  # add in blocks: a memmap is never loaded whole
            self.index.add(keys[a:a + 262144], np.ascontiguousarray(docs[a:a + 262144], dtype=np.float32),
                           threads=threads)

    def search(self, queries: np.ndarray, k: int, *, threads: int = 0) -> list[Ranking]:
        q = np.ascontiguousarray(queries, dtype=np.float32)
        k = min(k, len(self.doc_ids))
        found = self.index.search(q, max(k, 1), threads=threads)
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
