"""The three baseline retrievers behind one constructor, so every track runs them the same way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from lemmata.retrievers.fusion import RRF_K, Ranking, top_k

RetrieverName = Literal["bm25", "static", "hybrid"]
RETRIEVERS: tuple[str, ...] = ("bm25", "static", "hybrid")

#: leaderboard names of the baselines
MODEL_NAMES = {
    "bm25": "BM25 (bm25s)",
    "static": "Static embeddings (tokenlearn-static-model)",
    "hybrid": "Hybrid BM25 + static (RRF k=60)",
}


class Retriever(Protocol):
    doc_ids: list[str]

    @property
    def config(self) -> dict: ...

    def search_many(self, queries: Sequence[str], k: int | None = None) -> list[Ranking]: ...


class HybridIndex:
    """Reciprocal-rank fusion of BM25 and static embeddings over their *complete* rankings.

    Fusing the whole corpus (not a top-100 cut) keeps the fused scores exact.
    """

    def __init__(self, doc_ids: Sequence[str], texts: Sequence[str]) -> None:
        from lemmata.retrievers.bm25 import BM25Index
        from lemmata.retrievers.static_embeddings import StaticEmbeddingIndex

        self.parts = (BM25Index(doc_ids, texts), StaticEmbeddingIndex(doc_ids, texts))
        self.doc_ids = list(doc_ids)

    @property
    def config(self) -> dict:
        return {"retriever": "hybrid", "fusion": f"reciprocal rank fusion, k={RRF_K}, complete rankings",
                "parts": [p.config for p in self.parts]}

    def search_many(self, queries: Sequence[str], k: int | None = None) -> list[Ranking]:
        """Exactly :func:`reciprocal_rank_fusion` of the parts' complete rankings, computed on score arrays.

        Holding two complete rankings as lists for every query does not fit in
        memory for a corpus of a few hundred thousand records (the Re²Math
        world); the ranks are computed per query with the same order (score
        descending, doc id ascending) and summed in the same order (BM25 term
        first), so every fused score is bit-identical to the list version.
        """
        import numpy as np

        bm25, static = self.parts
        n = len(self.doc_ids)
        tiebreak = np.empty(n, dtype=np.int64)
        tiebreak[np.argsort(np.asarray(self.doc_ids, dtype=object).astype(str), kind="stable")] = np.arange(n)
        dense = static.scores_many(queries)
        out: list[Ranking] = []
        for query, dense_row in zip(queries, dense):
            fused = np.zeros(n, dtype=np.float64)
            for scores in (bm25.scores(query), dense_row):
                ranks = np.empty(n, dtype=np.int64)
                ranks[np.lexsort((tiebreak, -np.asarray(scores).astype(np.float64)))] = np.arange(1, n + 1)
                fused += 1.0 / (RRF_K + ranks)
            out.append(top_k(fused, self.doc_ids, k))
        return out


def build_retriever(name: str, doc_ids: Sequence[str], texts: Sequence[str]) -> Retriever:
    """Index ``texts`` (addressed by ``doc_ids``) with the named baseline."""
    if name == "bm25":
        from lemmata.retrievers.bm25 import BM25Index

        return BM25Index(doc_ids, texts)
    if name == "static":
        from lemmata.retrievers.static_embeddings import StaticEmbeddingIndex

        return StaticEmbeddingIndex(doc_ids, texts)
    if name == "hybrid":
        return HybridIndex(doc_ids, texts)
    from lemmata.core.registry import suggest

    raise ValueError(suggest("retriever", name, RETRIEVERS))


#: the last index :func:`shared_retriever` built: ``(name, corpus fingerprint)`` -> index
_LAST: dict[tuple[str, str], Retriever] = {}


def shared_retriever(name: str, doc_ids: Sequence[str], texts: Sequence[str]) -> Retriever:
    """:func:`build_retriever`, reusing the last index when the same baseline indexes the same corpus again.

    Both renderings of a track (``raw`` and ``assisted``) rank one corpus — for Re²Math source retrieval the
    world's 354k records, a BM25 build of tens of seconds — so a run of both builds its index once. One index
    is kept (the corpus is fingerprinted by its ids and texts in order; an index is never changed by a search).

    >>> a = shared_retriever("bm25", ["d1", "d2"], ["prime numbers", "graphs"])
    >>> a is shared_retriever("bm25", ["d1", "d2"], ["prime numbers", "graphs"])
    True
    >>> a is shared_retriever("bm25", ["d1", "d2"], ["prime numbers", "trees"])
    False
    """
    import hashlib

    digest = hashlib.sha256()
    for doc_id, text in zip(doc_ids, texts, strict=True):
        digest.update(doc_id.encode("utf-8", "surrogatepass") + b"\0" + text.encode("utf-8", "surrogatepass") + b"\0")
    key = (name, digest.hexdigest())
    if key not in _LAST:
        _LAST.clear()  # the previous index goes before the next one is built
        _LAST[key] = build_retriever(name, doc_ids, texts)
    return _LAST[key]
