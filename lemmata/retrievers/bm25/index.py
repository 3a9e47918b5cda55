"""The offline baselines' BM25: an in-memory bm25s index over a fixed corpus, exact over the whole corpus.

The tokenizer is part of the baseline's definition, so it is fixed and written
down (:func:`~lemmata.retrievers.bm25.tokenizers.tokenize_baseline`) rather than
left to a library default. Scoring is Lucene BM25 with k1 = 1.5, b = 0.75
through the one scoring path (:class:`~lemmata.retrievers.bm25.postings.Postings`);
each distinct query term counts once, so a long proof state is not dominated by
the words it repeats.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lemmata.retrievers.bm25.postings import B, K1, METHOD, Postings
from lemmata.retrievers.bm25.tokenizers import BASELINE_TOKENIZER, tokenize_baseline
from lemmata.retrievers.fusion import Ranking, corpus_ids, top_k


class BM25Index:
    """A BM25 index over ``texts`` addressed by ``doc_ids``; exact scores over the whole corpus."""

    def __init__(self, doc_ids: Sequence[str], texts: Sequence[str], *, k1: float = K1, b: float = B) -> None:
        import bm25s

        self.doc_ids = corpus_ids(doc_ids, texts)
        self.k1, self.b = k1, b
        retriever = bm25s.BM25(k1=k1, b=b, method=METHOD)
        retriever.index([tokenize_baseline(t) for t in texts], show_progress=False)
        self._postings = Postings.from_bm25s(retriever)

    @property
    def config(self) -> dict:
        """What defines this baseline, for provenance."""
        import bm25s

        return {"retriever": "bm25", "library": f"bm25s=={bm25s.__version__}", "method": METHOD,
                "k1": self.k1, "b": self.b, "tokenizer": BASELINE_TOKENIZER}

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document for one query (zeros when no query term is in the vocabulary)."""
        return self._postings.scores(self._postings.term_ids(tokenize_baseline(query)), dtype=np.float32)

    def search(self, query: str, k: int | None = None) -> Ranking:
        """The top ``k`` documents (all when None), ties by doc id ascending."""
        return top_k(self.scores(query), self.doc_ids, k)

    def search_many(self, queries: Sequence[str], k: int | None = None) -> list[Ranking]:
        return [self.search(q, k) for q in queries]
