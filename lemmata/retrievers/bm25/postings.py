"""The one BM25 scoring path: a bm25s index's CSR arrays (terms by documents), summed term by term.

``bm25s`` (Lucene BM25, k1 = 1.5, b = 0.75) computes every document's weight for
every vocabulary term when it indexes; a query's scores are then the sum of its
distinct terms' rows. Everything that ranks with BM25 in Lemmata — the offline
baselines, the superseded 1.0.0 scholarly artifact and the 2.x worlds — builds
or loads its index with bm25s (a saved index's weights computed in array passes,
bit for bit bm25s': :mod:`~lemmata.retrievers.bm25.weights`) and scores through
:class:`Postings`, so there is one scoring path whatever the tokenizer
(:mod:`lemmata.retrievers.bm25.tokenizers`).

Rows are summed in query-term order, one term at a time, starting from zero, as
bm25s sums them: in ``float32`` for the baselines and the 1.0.0 artifact (bm25s'
own precision), in ``float64`` for the world. The rows are read straight from the
index's three arrays (``data``, ``indices``, ``indptr``; memory-mapped when loaded
from a folder), never copied into a sparse matrix. Frozen rankings round scores to
:data:`SCORE_DECIMALS` and break ties by document position (:func:`top_rounded`),
so a replayed query returns the same ids on every machine. :meth:`Postings.top`
gives the same ranking in one compiled pass where numba is installed
(:mod:`~lemmata.retrievers.bm25.compiled`).
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

K1, B, METHOD = 1.5, 0.75, "lucene"
#: decimals a frozen ranking keeps (scores are rounded before ties are broken)
SCORE_DECIMALS = 6
#: single queries a process ranks with numpy before it loads the compiled pass, unless numba is already in use
#: there. Numba's first use in a process (its import, its registries, the cached kernels) costs about half a
#: second, which a handful of single searches never earns back: on the current world numpy answers a target
#: theorem in 0.43 ms and a rendered proof state in 0.91 ms, the compiled pass in 0.45 and 0.73 ms (a one-off
#: CLI search, an agent run's 200). Both paths give the same answer, bit for bit; a batch takes the compiled
#: pass at once.
SINGLES_BEFORE_COMPILED = 2048
_singles = itertools.count()
#: the files of a saved bm25s index that scoring reads (bm25s' own names)
_ARRAYS = ("data", "indices", "indptr")


class Postings:
    """Term weights of a BM25 index: ``vocab`` (term -> row) and the CSR arrays of a terms-by-documents matrix
    (``indices[indptr[t]:indptr[t + 1]]`` are the documents of term ``t``, ascending, with weights ``data[...]``)."""

    def __init__(self, vocab: Mapping[str, int], data: np.ndarray, indices: np.ndarray, indptr: np.ndarray,
                 documents: int) -> None:
        self.vocab = vocab
        self.data, self.indices, self.indptr = data, indices, indptr
        self.documents = int(documents)

    @classmethod
    def from_bm25s(cls, retriever) -> "Postings":
        """The weights a ``bm25s.BM25`` index computed (shared, not copied)."""
        s = retriever.scores
        return cls(retriever.vocab_dict, np.asarray(s["data"]), np.asarray(s["indices"]), np.asarray(s["indptr"]),
                   int(s["num_docs"]))

    @classmethod
    def load(cls, folder: str | Path) -> "Postings":
        """An index folder written by :func:`write_index`, its arrays memory-mapped read-only (opening reads no
        weight; pages are read as queries touch them and shared by every process that maps the folder).

        The files are bm25s' own (``bm25s.BM25.load`` reads the same three arrays, the vocabulary and
        ``num_docs``); a caller that verifies them (a world checks every sha256 against its MANIFEST.json first)
        maps the verified bytes: the mapping is read-only, and a file replaced afterwards keeps its old pages.
        """
        root = Path(folder)
        params = json.loads((root / "params.index.json").read_text(encoding="utf-8"))
        vocab = json.loads((root / "vocab.index.json").read_text(encoding="utf-8"))
        # plain ndarray views of the maps: ``np.memmap``'s own indexing wraps every result in another memmap
        data, indices, indptr = (np.asarray(np.load(root / f"{name}.csc.index.npy", mmap_mode="r"))
                                 for name in _ARRAYS)
        return cls(vocab, data, indices, indptr, params["num_docs"])

    def term_ids(self, tokens: Iterable[str]) -> list[int]:
        """Rows of the distinct known ``tokens``, in first-seen order (each query term counts once).

        The tokens are made distinct first and looked up once each (a term has one row, so the rows come out
        distinct and in the same order), in C loops rather than a generator: a rendered proof state has hundreds.

        >>> Postings({"a": 0, "b": 1}, np.zeros(0, np.float32), np.zeros(0), np.zeros(3), 0).term_ids("bxab")
        [1, 0]
        """
        return [row for row in map(self.vocab.get, dict.fromkeys(tokens)) if row is not None]

    def _bounds(self, term_ids: Sequence[int]) -> list[list[int]]:
        """``[start, end)`` of each term's row in the arrays."""
        return self.indptr[np.asarray(term_ids, dtype=np.int64)[:, None] + (0, 1)].tolist()

    def rows(self, term_ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """``(documents, weights)`` of the terms' rows, concatenated in ``term_ids`` order (one copy each).

        >>> p = Postings({}, np.array([0.5, 1.25, 0.25, 2.0], np.float32), np.array([0, 2, 0, 1]),
        ...              np.array([0, 2, 4]), 3)
        >>> [a.tolist() for a in p.rows([1, 0])]
        [[0, 1, 0, 2], [0.25, 2.0, 0.5, 1.25]]
        """
        bounds = self._bounds(term_ids)
        if len(bounds) == 1:
            (lo, hi), = bounds
            return self.indices[lo:hi], self.data[lo:hi]
        # one copy of each row's slice, end to end (the rows are contiguous runs of the arrays)
        return (np.concatenate([self.indices[lo:hi] for lo, hi in bounds]),
                np.concatenate([self.data[lo:hi] for lo, hi in bounds]))

    def scores(self, term_ids: Sequence[int], dtype=np.float64, end: int | None = None) -> np.ndarray:
        """Every document's score (of the first ``end`` documents where given): the sum of the terms' rows, added
        term by term in ``dtype``.

        Each document's weights are added to zero one after another in query-term order, as bm25s (and the
        sparse product this replaced) add them, so the sums are the same floats: in ``float64`` by ``np.bincount``
        over :meth:`rows` (it adds each weight, exactly widened to a double, in array order), in ``float32`` one row
        at a time (a row holds each document once, so one vectorised add is that row's adds).

        >>> p = Postings({}, np.array([0.5, 1.25, 0.25, 2.0], np.float32), np.array([0, 2, 0, 1]),
        ...              np.array([0, 2, 4]), 3)
        >>> p.scores([1, 0]).tolist(), p.scores([0], end=2).tolist(), p.scores([1, 0], np.float32).tolist()
        ([0.75, 2.0, 1.25], [0.5, 0.0], [0.75, 2.0, 1.25])
        """
        size = self.documents if end is None else min(int(end), self.documents)
        if not len(term_ids):
            return np.zeros(size, dtype=dtype)
        if np.dtype(dtype) == np.float64:
            docs, weights = self.rows(term_ids)
            return np.bincount(docs, weights, minlength=self.documents)[:size]
        out = np.zeros(self.documents, dtype=dtype)
        for lo, hi in self._bounds(term_ids):
            out[self.indices[lo:hi]] += self.data[lo:hi]
        return out[:size]


    @cached_property
    def compiled(self) -> bool:
        """Does :meth:`top` rank through the compiled kernel, which releases the interpreter lock (numba installed,
        and every row in ascending document order, as bm25s writes them: checked once)?"""

        from lemmata.retrievers.bm25.compiled import rows_ascending

        return rows_ascending(self.indices, self.indptr)

    def _compiled_single(self) -> bool:
        """Does this single query take the compiled pass (:data:`SINGLES_BEFORE_COMPILED`)?"""
        if "numba" not in sys.modules and next(_singles) < SINGLES_BEFORE_COMPILED:
            return False
        return self.compiled

    def top(self, term_ids: Sequence[int], n: int, end: int | None = None,
            tie_rank: np.ndarray | None = None) -> list[tuple[int, float]]:
        """``top_rounded(self.scores(term_ids, end=end), n, end, tie_rank)`` (sums in ``float64``): in one compiled
        pass over the query's postings where numba is installed (:mod:`~lemmata.retrievers.bm25.compiled`, the
        same answer) and already in use in the process, or once it has ranked :data:`SINGLES_BEFORE_COMPILED`
        single queries; else by those two numpy steps.

        >>> p = Postings({}, np.array([0.5, 1.25, 0.25, 2.0], np.float32), np.array([0, 2, 0, 1]),
        ...              np.array([0, 2, 4]), 3)
        >>> p.top([1, 0], 2), p.top([1, 0], 5, end=2), p.top([], 3)
        ([(1, 2.0), (2, 1.25)], [(1, 2.0), (0, 0.75)], [])
        """
        from lemmata.retrievers.bm25.compiled import candidates

        end = self.documents if end is None else min(int(end), self.documents)
        if not len(term_ids) or end <= 0:
            return []
        found = None
        if n >= 1 and self._compiled_single():
            found = candidates(self.data, self.indices, self.indptr, list(term_ids), end, n, 10 ** -SCORE_DECIMALS)
        if found is None:
            return top_rounded(self.scores(term_ids, end=end), n, end, tie_rank=tie_rank)
        return _ordered(*found, n, tie_rank)

    def top_batch(self, queries: Sequence[tuple[Sequence[int], int | None, int]],
                  tie_rank: np.ndarray | None = None) -> "Rankings":
        """:meth:`top` of every ``(term_ids, end, n)`` query (each ``n`` at least 1), end to end: where the index
        ranks through the compiled kernel, every query's candidates come from one call (the interpreter is
        entered once per batch, and the lock released for all of it), and they are rounded and ordered
        together (:func:`_ordered_batch`, the same order :meth:`top` gives each); else query by query.

        The three steps are also separate (:meth:`prepare_batch`, :meth:`rank_prepared`, :meth:`rankings`), so
        that a threaded batch runs only the compiled call on its worker threads and the steps that hold the
        interpreter lock on the thread that tokenizes: a worker that needed the lock between compiled calls
        waited for it behind the tokenizer, a switch interval at a time.

        >>> p = Postings({}, np.array([0.5, 1.25, 0.25, 2.0], np.float32), np.array([0, 2, 0, 1]),
        ...              np.array([0, 2, 4]), 3)
        >>> p.top_batch([([1, 0], None, 2), ([], None, 3), ([1, 0], 2, 5)]).split()
        [[(1, 2.0), (2, 1.25)], [], [(1, 2.0), (0, 0.75)]]
        """
        batch = self.prepare_batch(queries)
        return self.rankings(batch, self.rank_prepared(batch), tie_rank)

    def prepare_batch(self, queries: Sequence[tuple[Sequence[int], int | None, int]]) -> "PreparedBatch":
        """The queries with their ends bounded by the document count, and packed for the compiled call where the
        index ranks through it."""
        from lemmata.retrievers.bm25.compiled import pack

        bounded = [(ids, self.documents if end is None else max(0, min(int(end), self.documents)), n)
                   for ids, end, n in queries]
        return PreparedBatch(bounded, pack(bounded) if bounded and self.compiled else None)

    def rank_prepared(self, batch: "PreparedBatch") -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Every query's candidates from one compiled call (the lock released for all of it), or None where the
        batch was not packed for it."""
        from lemmata.retrievers.bm25.compiled import candidates_packed

        if batch.packed is None:
            return None
        return candidates_packed(self.data, self.indices, self.indptr, batch.packed, 10 ** -SCORE_DECIMALS)

    def rankings(self, batch: "PreparedBatch", found: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
                 tie_rank: np.ndarray | None = None) -> "Rankings":
        """The batch's rankings from its candidates (:meth:`rank_prepared`), or query by query where it has none."""
        if found is None:
            return Rankings.of([self.top(ids, n, end, tie_rank=tie_rank) for ids, end, n in batch.queries])
        return _ordered_batch(*found, batch.packed.ns, tie_rank)


class PreparedBatch(NamedTuple):
    """A batch of ``(term_ids, end, n)`` queries, each ``end`` bounded by the document count, and their packed
    arrays for the compiled call (None where the index does not rank through it)."""

    queries: list[tuple[Sequence[int], int, int]]
    packed: Any


def _ordered(hits: np.ndarray, vals: np.ndarray, n: int, tie_rank: np.ndarray | None) -> list[tuple[int, float]]:
    """The ``n`` best of candidate positions ``hits`` (in any order) with unrounded scores ``vals``: rounded to
    :data:`SCORE_DECIMALS`, by rounded score descending, then ``tie_rank`` (or position) ascending."""
    rounded = np.round(vals, SCORE_DECIMALS)
    order = np.lexsort((hits if tie_rank is None else tie_rank[hits], -rounded))[:n]
    return [(int(hits[i]), float(rounded[i])) for i in order]


class Rankings(NamedTuple):
    """Rankings of a batch end to end: ``positions[starts[q]:starts[q + 1]]`` and ``scores[...]`` (rounded to
    :data:`SCORE_DECIMALS`) are query ``q``'s, best first (what :meth:`Postings.top` gives it, as arrays)."""

    positions: np.ndarray
    scores: np.ndarray
    starts: np.ndarray

    @classmethod
    def of(cls, tops: Sequence[Sequence[tuple[int, float]]]) -> "Rankings":
        """The rankings of :meth:`Postings.top` lists.

        >>> Rankings.of([[(4, 1.5)], []]).split()
        [[(4, 1.5)], []]
        """
        starts = np.zeros(len(tops) + 1, np.int64)
        np.cumsum([len(t) for t in tops], out=starts[1:])
        flat = [hit for top in tops for hit in top]
        return cls(np.fromiter((p for p, _ in flat), np.int64, len(flat)),
                   np.fromiter((s for _, s in flat), np.float64, len(flat)), starts)

    def split(self) -> list[list[tuple[int, float]]]:
        """Each query's ``(position, score)`` list, as :meth:`Postings.top` gives it."""
        pairs = list(zip(self.positions.tolist(), self.scores.tolist()))
        bounds = self.starts.tolist()
        return [pairs[lo:hi] for lo, hi in zip(bounds, bounds[1:])]


def _ordered_batch(hits: np.ndarray, vals: np.ndarray, starts: np.ndarray, ns: np.ndarray,
                   tie_rank: np.ndarray | None) -> Rankings:
    """:func:`_ordered` of every query's candidates at once (query ``q``'s are ``hits[starts[q]:starts[q + 1]]``):
    one stable sort by query, then the keys :func:`_ordered` sorts by, so each query's order is the one
    :func:`_ordered` gives it; its first ``ns[q]`` are kept.

    >>> _ordered_batch(np.array([0, 3, 5, 1]), np.array([1.0, 2.0, 1.0, 0.5]), np.array([0, 3, 4]),
    ...                np.array([2, 1]), None).split()
    [[(3, 2.0), (0, 1.0)], [(1, 0.5)]]
    """
    rounded = np.round(vals, SCORE_DECIMALS)
    counts = np.diff(starts)
    query = np.repeat(np.arange(counts.size), counts)
    order = np.lexsort((hits if tie_rank is None else tie_rank[hits], -rounded, query))
    # sorting by query first leaves query[order] == query: the i-th sorted candidate is query[i]'s
    keep = order[np.arange(order.size) - starts[query] < ns[query]]
    kept = np.zeros(counts.size + 1, np.int64)
    np.cumsum(np.minimum(counts, ns), out=kept[1:])
    return Rankings(hits[keep], rounded[keep], kept)


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
    return _ordered(hits, vals, n, tie_rank)


def write_index(docs: Sequence[Sequence[str]], folder: str | Path) -> dict[str, Any]:
    """Index tokenized ``docs`` with bm25s over the sorted vocabulary and save it to ``folder``.

    The weights are bm25s' own, computed in array passes
    (:func:`~lemmata.retrievers.bm25.weights.lucene_weights`, bit for bit
    what ``bm25s.BM25.index`` computes document by document), and bm25s saves
    the index. Returns what the index is (library version, documents,
    vocabulary size) for the artifact's description; the vocabulary is counted
    with bm25s' own empty-document token, which ``index`` adds to the mapping
    it is given, as every shipped artifact records it.
    """
    import bm25s

    from lemmata.retrievers.bm25.weights import lucene_weights, vocabulary_ids

    vocab, ids, lengths = vocabulary_ids(docs)  # the sorted vocabulary
    retriever = bm25s.BM25(k1=K1, b=B, method=METHOD)
    retriever.scores = lucene_weights(ids, lengths, len(vocab), k1=K1, b=B)
    retriever.nonoccurrence_array = None  # Lucene BM25 has none (what bm25s.BM25.index sets)
    if "" not in vocab:  # bm25s.BM25.index: its empty-document token after the vocabulary
        vocab[""] = max(vocab.values(), default=-1) + 1
    retriever.vocab_dict = vocab
    retriever.save(str(folder), show_progress=False)
    return {"library_version": bm25s.__version__, "documents": len(docs), "vocabulary": len(vocab)}
