"""Dense baseline: static (model2vec-style) embeddings, cosine similarity, exact top-k.

The model is the 64-dimensional int8 model2vec model shipped inside the
``tokenlearn-static-model`` wheel (module ``static_model``); its files are in
the wheel, so it runs offline on a CPU in milliseconds per text.

That encoder silently keeps only the first 512 tokens of a text, and most
rendered Re²Math proof states are longer (the anchor and the last proof block
come last). A static model mean-pools token vectors, so a long text is
embedded here as the mean of the embeddings of consecutive windows of at most
:data:`WINDOW_CHARS` characters (cut at whitespace), weighted by window length
and renormalised. No window of any text in these benchmarks exceeds 340 tokens,
so nothing is truncated.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from lemmata.retrievers.fusion import Ranking, corpus_ids, top_k

MODEL = "tokenlearn-static-model"
WINDOW_CHARS = 400
_BATCH = 512


@lru_cache(maxsize=1)
def model_id() -> str:
    """Package and version of the model, for provenance (the weights are inside the wheel)."""
    from importlib.metadata import version

    return f"{MODEL}=={version(MODEL)}"


def windows(text: str, size: int = WINDOW_CHARS) -> list[str]:
    """Consecutive pieces of at most ``size`` characters, cut at whitespace where possible.

    >>> windows("aa bb cc dd", 5)
    ['aa bb', 'cc dd']
    >>> windows("abcdefgh", 3), windows("   ", 3)
    (['abc', 'def', 'gh'], [])
    """
    pieces: list[str] = []
    current = ""
    for word in text.split():
        while len(word) > size:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(word[:size])
            word = word[size:]
        if not word:
            continue
        if current and len(current) + 1 + len(word) > size:
            pieces.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        pieces.append(current)
    return pieces


def embed(texts: Sequence[str]) -> np.ndarray:
    """Unit-norm embeddings, one row per text (a zero row for a text without characters)."""
    from static_model import get_embeddings

    spans: list[tuple[int, int]] = []
    pieces: list[str] = []
    for text in texts:
        ws = windows(text)
        spans.append((len(pieces), len(pieces) + len(ws)))
        pieces.extend(ws)
    vectors: list[list[float]] = []
    for start in range(0, len(pieces), _BATCH):
        vectors.extend(get_embeddings(pieces[start:start + _BATCH]))
    piece_vecs = np.asarray(vectors, dtype=np.float64).reshape(len(pieces), -1) if pieces else None
    weights = np.asarray([len(p) for p in pieces], dtype=np.float64)
    dim = piece_vecs.shape[1] if piece_vecs is not None else 0
    out = np.zeros((len(texts), dim), dtype=np.float64)
    for i, (a, b) in enumerate(spans):
        if a == b:
            continue
        v = weights[a:b] @ piece_vecs[a:b]
        norm = np.linalg.norm(v)
        if norm > 0:
            out[i] = v / norm
    return out


class StaticEmbeddingIndex:
    """Cosine similarity against every document; exact, so ranks never depend on an ANN structure."""

    def __init__(self, doc_ids: Sequence[str], texts: Sequence[str]) -> None:
        self.doc_ids = corpus_ids(doc_ids, texts)
        self.matrix = embed(texts)

    @property
    def config(self) -> dict:
        return {"retriever": "static", "model": model_id(), "similarity": "cosine",
                "long_texts": f"length-weighted mean over {WINDOW_CHARS}-character windows"}

    def scores_many(self, queries: Sequence[str]) -> np.ndarray:
        """Cosine similarities, one row per query (float32 so that near-equal scores tie reproducibly)."""
        if not queries:
            return np.zeros((0, len(self.doc_ids)), dtype=np.float32)
        return (embed(queries) @ self.matrix.T).astype(np.float32)

    def search(self, query: str, k: int | None = None) -> Ranking:
        return self.search_many([query], k)[0]

    def search_many(self, queries: Sequence[str], k: int | None = None) -> list[Ranking]:
        return [top_k(row, self.doc_ids, k) for row in self.scores_many(queries)]
