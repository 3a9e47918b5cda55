"""BM25 over a fixed corpus (``bm25s``), with a tokenizer made for LaTeX and Lean text.

The tokenizer is part of the baseline's definition, so it is fixed and written
down here rather than left to a library default: lower-case, split on every
character that is not a letter or digit (``\\mathbb{R}`` → ``mathbb``, ``r``;
``Real.sqrt`` → ``real``, ``sqrt``; ``x_n`` → ``x``, ``n``), then drop English
stopwords and one-character tokens (bound variables such as ``x`` or ``n``
carry no topic). No stemming, so results do not depend on an optional stemmer.
Scoring is Lucene BM25 with k1 = 1.5, b = 0.75; each distinct query term counts
once, so a long proof state is not dominated by the words it repeats.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from lemmata.retrievers.fusion import Ranking, top_k

K1 = 1.5
B = 0.75
METHOD = "lucene"
_TOKEN = re.compile(r"[^\W_]+")


@lru_cache(maxsize=1)
def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


def tokenize(text: str) -> list[str]:
    """Tokens of one text, in order (duplicates kept).

    >>> tokenize(r"Let $f\\colon \\mathbb{R}^n \\to \\mathbb{R}$ be the Lipschitz map_2.")
    ['let', 'colon', 'mathbb', 'mathbb', 'lipschitz', 'map']
    >>> tokenize("theorem Nat.add_comm (a b : ℕ) : a + b = b + a")
    ['theorem', 'nat', 'add', 'comm']
    """
    stop = _stopwords()
    return [t for t in _TOKEN.findall(text.lower()) if len(t) > 1 and t not in stop]


def _unique(tokens: list[str]) -> list[str]:
    return list(dict.fromkeys(tokens))


class BM25Index:
    """A BM25 index over ``texts`` addressed by ``doc_ids``; exact scores over the whole corpus."""

    def __init__(self, doc_ids: Sequence[str], texts: Sequence[str], *, k1: float = K1, b: float = B) -> None:
        import bm25s

        if len(doc_ids) != len(texts):
            raise ValueError(f"{len(doc_ids)} doc ids for {len(texts)} texts")
        if len(set(doc_ids)) != len(doc_ids):
            raise ValueError("doc ids must be unique")
        if not doc_ids:
            raise ValueError("cannot index an empty corpus")
        self.doc_ids = list(doc_ids)
        self.k1, self.b = k1, b
        self._bm25 = bm25s.BM25(k1=k1, b=b, method=METHOD)
        self._bm25.index([tokenize(t) for t in texts], show_progress=False)

    @property
    def config(self) -> dict:
        """What defines this baseline, for provenance."""
        import bm25s

        return {"retriever": "bm25", "library": f"bm25s=={bm25s.__version__}", "method": METHOD,
                "k1": self.k1, "b": self.b, "tokenizer": "lower; split non-alphanumeric; drop en stopwords, len<2"}

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document for one query (zeros when no query term is in the vocabulary)."""
        ids = self._bm25.get_tokens_ids(_unique(tokenize(query)))
        if not ids:
            return np.zeros(len(self.doc_ids), dtype=np.float32)
        return np.asarray(self._bm25.get_scores_from_ids(ids), dtype=np.float32)

    def search(self, query: str, k: int | None = None) -> Ranking:
        """The top ``k`` documents (all when None), ties by doc id ascending."""
        return top_k(self.scores(query), self.doc_ids, k)

    def search_many(self, queries: Sequence[str], k: int | None = None) -> list[Ranking]:
        return [self.search(q, k) for q in queries]
