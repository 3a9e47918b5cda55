"""Rankings for the baseline retrievers: the ids they rank, exact top-k with deterministic ties, and fusion.

Every baseline indexes a corpus checked by :func:`corpus_ids` (one unique id per
text), scores the whole of it and ranks it here with :func:`top_k`, so equal scores
always break the same way — by document id, ascending — as the metrics do;
a run is then reproducible bit for bit whatever order the corpus was read in.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np

#: the constant of reciprocal-rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009), as in their paper
RRF_K = 60

Ranking = list[tuple[str, float]]


def corpus_ids(doc_ids: Sequence[str], texts: Sequence[str]) -> list[str]:
    """The ids of a corpus to index: one per text, unique, at least one.

    >>> corpus_ids(["a", "a"], ["x", "y"])
    Traceback (most recent call last):
    ...
    ValueError: doc ids must be unique
    """
    if len(doc_ids) != len(texts):
        raise ValueError(f"{len(doc_ids)} doc ids for {len(texts)} texts")
    if len(set(doc_ids)) != len(doc_ids):
        raise ValueError("doc ids must be unique")
    if not doc_ids:
        raise ValueError("cannot index an empty corpus")
    return list(doc_ids)


def top_k(scores: Sequence[float] | np.ndarray, doc_ids: Sequence[str], k: int | None) -> Ranking:
    """The ``k`` best ``(doc_id, score)`` pairs, by score descending then doc id ascending.

    ``k=None`` ranks every document. Scores are compared as stored (float32
    scores stay float32), so documents with bit-equal scores tie.

    >>> top_k([0.5, 2.0, 0.5, 1.0], ["d", "a", "b", "c"], 3)
    [('a', 2.0), ('c', 1.0), ('b', 0.5)]
    >>> top_k([1.0, 1.0], ["y", "x"], None)
    [('x', 1.0), ('y', 1.0)]
    """
    values = np.asarray(scores)
    if values.ndim != 1 or len(values) != len(doc_ids):
        raise ValueError(f"expected one score per document ({len(doc_ids)}), got shape {values.shape}")
    if not len(doc_ids):
        return []
    if k is not None and k < len(doc_ids) and values.dtype.kind in "iuf" and not np.isnan(values).any():
        return _top_few(values, doc_ids, max(k, 0))
    id_rank = np.argsort(np.asarray(doc_ids, dtype=object).astype(str), kind="stable")
    tiebreak = np.empty(len(doc_ids), dtype=np.int64)
    tiebreak[id_rank] = np.arange(len(doc_ids))
    order = np.lexsort((tiebreak, -values.astype(np.float64)))
    if k is not None:
        order = order[: max(k, 0)]
    return [(doc_ids[i], float(values[i])) for i in order]


def _top_few(values: np.ndarray, doc_ids: Sequence[str], k: int) -> Ranking:
    """:func:`top_k` for ``k`` below the corpus size, without sorting the corpus (scores free of NaN).

    Why: a baseline ranks a 354k-record world once per query, and sorting every score and every id there cost
    about 300 ms a query. The k-th best score is found by a partial sort; every document scoring above it
    is in the top k (fewer than k of them), and the places left go to the documents scoring exactly it, smallest
    id first: the same list as the full sort, tie for tie.

    >>> _top_few(np.array([0.5, 2.0, 0.5, 1.0, 0.5]), ["d", "a", "b", "c", "a0"], 3)
    [('a', 2.0), ('c', 1.0), ('a0', 0.5)]
    """
    if k == 0:
        return []
    scores = values.astype(np.float64)
    kth = -np.partition(-scores, k - 1)[k - 1]
    above = np.flatnonzero(scores > kth).tolist()
    tied = np.flatnonzero(scores == kth).tolist()
    above.sort(key=lambda i: (-scores[i], doc_ids[i], i))
    # ties: smallest id first (equal ids, as the full sort's stable order, by position)
    chosen = heapq.nsmallest(k - len(above), tied, key=lambda i: (doc_ids[i], i))
    return [(doc_ids[i], float(values[i])) for i in above + chosen]


def reciprocal_rank_fusion(rankings: Sequence[Ranking], k: int | None = None, *, rrf_k: int = RRF_K) -> Ranking:
    """Fuse rankings: a document scores ``sum(1 / (rrf_k + rank))`` over the lists it appears in (rank from 1).

    Why RRF: BM25 and cosine scores live on different scales; ranks do not.
    Ties break by doc id ascending, like every ranking here.

    >>> bm25 = [("a", 9.0), ("b", 5.0), ("c", 1.0)]
    >>> dense = [("c", 0.9), ("a", 0.8), ("d", 0.1)]
    >>> [(d, round(s, 5)) for d, s in reciprocal_rank_fusion([bm25, dense])]
    [('a', 0.03252), ('c', 0.03227), ('b', 0.01613), ('d', 0.01587)]
    """
    if rrf_k < 0:
        raise ValueError("rrf_k must be non-negative")
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, (doc_id, _score) in enumerate(ranking, start=1):
            fused[doc_id] = fused.get(doc_id, 0.0) + 1.0 / (rrf_k + rank)
    ids = sorted(fused)
    return top_k([fused[d] for d in ids], ids, k)
