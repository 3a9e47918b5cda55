"""The one BM25 scoring path: a bm25s index as a token-by-document ``scipy.sparse`` CSR matrix.

``bm25s`` (Lucene BM25, k1 = 1.5, b = 0.75) computes every document's weight for
every vocabulary term when it indexes; a query's scores are then the sum of its
distinct terms' rows. Everything that ranks with BM25 in Lemmata — the offline
baselines, the superseded 1.0.0 scholarly artifact and the 2.0.0 world — builds
or loads its index with bm25s and scores through :class:`Postings`, so there is
one scoring path whatever the tokenizer (:mod:`lemmata.retrievers.bm25.tokenizers`).

Rows are summed in query-term order, one term at a time, exactly as bm25s sums
them: in ``float32`` for the baselines and the 1.0.0 artifact (bm25s' own
precision), in ``float64`` for the world. Frozen rankings round scores to
:data:`SCORE_DECIMALS` and break ties by document position (:func:`top_rounded`),
so a replayed query returns the same ids on every machine.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

K1, B, METHOD = 1.5, 0.75, "lucene"
#: decimals a frozen ranking keeps (scores are rounded before ties are broken)
SCORE_DECIMALS = 6


class Postings:
    """Term weights of a BM25 index: ``vocab`` (term -> row) and a CSR matrix of terms by documents."""

    def __init__(self, vocab: Mapping[str, int], matrix) -> None:
        self.vocab = vocab
        self.matrix = matrix

    @classmethod
    def from_bm25s(cls, retriever) -> "Postings":
        """The weights a ``bm25s.BM25`` index computed (shared, not copied)."""
        from scipy.sparse import csr_matrix

        s = retriever.scores
        matrix = csr_matrix((np.asarray(s["data"]), np.asarray(s["indices"]), np.asarray(s["indptr"])),
                            shape=(len(s["indptr"]) - 1, int(s["num_docs"])), copy=False)
        return cls(retriever.vocab_dict, matrix)

    @classmethod
    def load(cls, folder: str | Path) -> "Postings":
        """An index folder written by :func:`write_index`."""
        import bm25s

        return cls.from_bm25s(bm25s.BM25.load(str(folder), show_progress=False))

    @property
    def documents(self) -> int:
        return self.matrix.shape[1]

    def term_ids(self, tokens: Iterable[str]) -> list[int]:
        """Rows of the distinct known ``tokens``, in first-seen order (each query term counts once)."""
        vocab = self.vocab
        return list(dict.fromkeys(vocab[t] for t in tokens if t in vocab))

    def scores(self, term_ids: Sequence[int], dtype=np.float64, end: int | None = None) -> np.ndarray:
        """Every document's score (of the first ``end`` documents where given): the sum of the terms' rows, added
        term by term in ``dtype``.

        The sparse product adds each document's entries in query-term order starting from zero; in ``float64``
        it reads a float64 copy of the weights made once (:attr:`matrix64`, exact: every float32 is a double)
        instead of converting the selected rows on every query, so the sums are the same doubles, faster.

        >>> from scipy.sparse import csr_matrix
        >>> p = Postings({"a": 0, "b": 1}, csr_matrix(np.array([[0.5, 0, 1.25], [0.25, 2.0, 0]], np.float32)))
        >>> p.scores([1, 0]).tolist(), p.scores([0], end=2).tolist(), p.scores([1, 0], np.float32).tolist()
        ([0.75, 2.0, 1.25], [0.5, 0.0], [0.75, 2.0, 1.25])
        """
        size = self.documents if end is None else min(int(end), self.documents)
        if not len(term_ids):
            return np.zeros(size, dtype=dtype)
        matrix = self.matrix64 if np.dtype(dtype) == np.float64 else self.matrix
        rows = matrix[np.asarray(term_ids, dtype=np.int64)]
        return (rows.T @ np.ones(len(term_ids), dtype=dtype))[:size]

    @property
    def matrix64(self):
        """The weights as float64, converted once (the world sums in float64)."""
        if getattr(self, "_matrix64", None) is None:
            self._matrix64 = self.matrix.astype(np.float64)
        return self._matrix64


#: score arrays at least this long find their candidates above a floor taken from every _SAMPLE_STRIDE-th score
_SAMPLED_FROM, _SAMPLE_STRIDE = 4096, 16


def top_rounded(scores: np.ndarray, n: int, end: int | None = None,
                tie_rank: np.ndarray | None = None) -> list[tuple[int, float]]:
    """Best ``n`` positive scores of ``scores[:end]`` as ``(position, score rounded to SCORE_DECIMALS)``.

    Order: rounded score descending, position ascending — positions are in id
    order, so ties break by id. Where positions are not in id order, ``tie_rank``
    (one integer per position, e.g. the id's rank) breaks ties instead.

    >>> top_rounded(np.array([1.0, 2.0, 1.0]), 3, tie_rank=np.array([9, 0, 4]))
    [(1, 2.0), (2, 1.0), (0, 1.0)]

    >>> top_rounded(np.array([0.5, 2.0000001, 0.0, 2.0, 0.1]), 3)
    [(1, 2.0), (3, 2.0), (0, 0.5)]
    >>> top_rounded(np.array([0.5, 2.0, 3.0]), 5, end=2)
    [(1, 2.0), (0, 0.5)]

    Long arrays take their candidates above a sampled floor; the result is the same:

    >>> big = np.zeros(10_000); big[[5, 17, 9_000]] = [1.0, 3.0, 1.0000004]
    >>> top_rounded(big, 2), top_rounded(big, 5)
    ([(17, 3.0), (5, 1.0)], [(17, 3.0), (5, 1.0), (9000, 1.0)])
    """
    s = scores if end is None else scores[:end]
    hits = None
    if s.size >= _SAMPLED_FROM:
        # The n-th best score of a subset is at most the n-th best of all, so every score that may be kept (at
        # least the n-th best minus the rounding margin) is at least this floor: candidates are the positions
        # at or above it — a few hundred instead of every positive score — and what follows is unchanged.
        sample = s[::_SAMPLE_STRIDE]
        sample = sample[sample > 0]
        if sample.size >= n:
            floor = np.partition(sample, sample.size - n)[sample.size - n] - 10 ** -SCORE_DECIMALS
            if floor > 0:
                hits = np.flatnonzero(s >= floor)
    if hits is None:
        hits = np.flatnonzero(s > 0)
    if hits.size == 0:
        return []
    vals = s[hits]
    if hits.size > n:
        kth = np.partition(vals, hits.size - n)[hits.size - n]
        keep = vals >= kth - 10 ** -SCORE_DECIMALS  # anything that may round to the n-th score
        hits, vals = hits[keep], vals[keep]
    rounded = np.round(vals, SCORE_DECIMALS)
    order = np.lexsort((hits if tie_rank is None else tie_rank[hits], -rounded))[:n]
    return [(int(hits[i]), float(rounded[i])) for i in order]


def write_index(docs: Sequence[Sequence[str]], folder: str | Path) -> dict[str, Any]:
    """Index tokenized ``docs`` with bm25s over the sorted vocabulary and save it to ``folder``.

    Returns what the index is (library version, documents, vocabulary size)
    for the artifact's description; the vocabulary is counted after bm25s
    indexed it, as every shipped artifact records it (bm25s adds its own
    empty-document token to the mapping it is given).
    """
    import bm25s

    vocab = {w: i for i, w in enumerate(sorted({w for d in docs for w in d}))}
    retriever = bm25s.BM25(k1=K1, b=B, method=METHOD)
    retriever.index(([[vocab[w] for w in d] for d in docs], vocab), show_progress=False)
    retriever.save(str(folder), show_progress=False)
    return {"library_version": bm25s.__version__, "documents": len(docs), "vocabulary": len(vocab)}
