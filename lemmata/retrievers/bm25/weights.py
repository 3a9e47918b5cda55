"""bm25s' index weights computed in a few array passes, bit for bit what ``bm25s.BM25.index`` computes.

``bm25s`` indexes document by document in Python (a ``Counter`` per document, a
score array per document, then a sparse matrix): on the 354k records of an
offline world that is most of a minute, run by every world build. The weights
are plain IEEE arithmetic, so they are computed here over every (document, term)
pair at once, in the same precisions and the same order of operations
(Lucene BM25: ``idf = log(1 + (N - df + 0.5) / (df + 0.5))`` in float64, stored
as float32; ``tfc = tf / (k1 * ((1 - b) + b * |d| / avgdl) + tf)`` in float64;
the weight ``idf * tfc`` stored as float32), and laid out as bm25s' default
(numpy) backend lays out its matrix (column-major: each term's documents
ascending; int32 document indices, int64 term pointers). The index is
still saved by bm25s itself, so its files are bm25s' own; a test compares every
array with ``bm25s.BM25.index`` on random corpora.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def lucene_weights(doc_ids: np.ndarray, doc_lengths: np.ndarray, n_vocab: int, *, k1: float,
                   b: float) -> dict[str, np.ndarray | int]:
    """The ``scores`` dict of ``bm25s.BM25(k1=k1, b=b, method="lucene")`` indexed over token ids (``data``,
    ``indices``, ``indptr``, ``num_docs``): ``doc_ids`` holds every document's token ids end to end, document ``d``
    being the next ``doc_lengths[d]`` of them; ids are below ``n_vocab``.

    >>> s = lucene_weights(np.array([0, 1, 0, 1]), np.array([3, 1]), 2, k1=1.5, b=0.75)
    >>> s["indptr"].tolist(), s["indices"].tolist(), [round(float(w), 4) for w in s["data"]]
    ([0, 1, 3], [0, 0, 1], [0.3412, 0.0595, 0.0941])
    """
    n_docs = int(doc_lengths.size)
    # bm25s: np.array([len(doc_ids) for doc_ids in corpus_token_ids]).mean()
    avg_doc_len = np.asarray(doc_lengths, dtype=np.int64).mean()
    doc = np.repeat(np.arange(n_docs, dtype=np.int64), doc_lengths)
    # one key per (term, document) pair: sorted, it is the column-major order of the sparse matrix
    pairs, tf = np.unique(np.asarray(doc_ids, dtype=np.int64) * max(n_docs, 1) + doc, return_counts=True)
    term, rows = np.divmod(pairs, max(n_docs, 1))
    df = np.bincount(term, minlength=n_vocab)
    idf = np.zeros(n_vocab, dtype=np.float32)
    for t in np.flatnonzero(df).tolist():  # Python's math.log, as bm25s calls it (numpy's log may round otherwise)
        d = int(df[t])
        idf[t] = math.log(1 + (n_docs - d + 0.5) / (d + 0.5))
    # per document, as bm25s evaluates it: k1 * ((1 - b) + b * l_d / l_avg), float64
    length_norm = k1 * ((1 - b) + b * doc_lengths.astype(np.float64) / avg_doc_len)
    tf64 = tf.astype(np.float32).astype(np.float64)
    tfc = tf64 / (length_norm[rows] + tf64)
    data = (idf[term].astype(np.float64) * tfc).astype(np.float32)
    # bm25s' default (numpy) sparse layout: int64 pointers, its int32 document indices
    indptr = np.zeros(n_vocab + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    return {"data": data, "indices": rows.astype(np.int32), "indptr": indptr, "num_docs": n_docs}


def vocabulary_ids(docs: Sequence[Sequence[str]]) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """The sorted vocabulary of ``docs`` (term -> id, ids in ``sorted()`` order), every document's token ids end to
    end and each document's length (the input of :func:`lucene_weights`).

    The terms are hashed and sorted by Arrow (a set and a dict lookup per token in Python are most of an index
    build): Arrow sorts strings by their UTF-8 bytes, which is code-point order, the order ``sorted()`` gives.

    >>> vocab, ids, lengths = vocabulary_ids([["b", "a", "b"], [], ["é", "a"]])
    >>> vocab, ids.tolist(), lengths.tolist()
    ({'a': 0, 'b': 1, 'é': 2}, [1, 0, 1, 2, 0], [3, 0, 2])
    """
    from itertools import chain

    import pyarrow as pa
    import pyarrow.compute as pc

    lengths = np.fromiter(map(len, docs), dtype=np.int64, count=len(docs))
    encoded = pa.array(list(chain.from_iterable(docs)), type=pa.string()).dictionary_encode()
    terms = encoded.dictionary  # in first-seen order
    order = pc.sort_indices(terms).to_numpy()
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    ids = rank[encoded.indices.to_numpy(zero_copy_only=False)] if lengths.sum() else np.zeros(0, np.int64)
    vocab = dict(zip(terms.take(pa.array(order)).to_pylist(), range(order.size)))
    return vocab, ids, lengths
