"""The three baseline retrievers behind one constructor, so every track runs them the same way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from lemmata.retrievers.fusion import RRF_K, Ranking, reciprocal_rank_fusion

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

    Fusing the whole corpus (not a top-100 cut) keeps the fused scores exact;
    the corpora here have at most a few thousand documents.
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
        lists = [p.search_many(queries, None) for p in self.parts]
        return [reciprocal_rank_fusion(pair, k) for pair in zip(*lists)]


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
