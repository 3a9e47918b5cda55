"""Top-k search over document vectors: exact in bounded memory, or approximate with its recall loss measured.

**Exact** (:class:`ExactIndex`, :func:`exact_search`): queries × documents by blocked matrix products
(float32, contiguous, one single-threaded BLAS product per query block × document block, written into one reused
buffer; query blocks, and document ranges within them when there are fewer query blocks than workers, run in
parallel threads), so memory is bounded by one block of scores per worker whatever the corpus size — the
document matrix may be a ``numpy.memmap`` read block by block. Each block yields the columns that reach its
rows' floor (a lower bound on the final k-th best score, rising as blocks pass), kept as one sortable key per
(score, tie-break) so that one ``np.partition`` or ``np.sort`` ranks by score descending, then document id
ascending (the order the metrics use), including ties at the k-th place: the result is exactly the top ``k`` of
the full ranking. Where numba is installed (the ``perf`` and ``test`` extras) that selection runs as one compiled
pass per block that releases the interpreter lock (:mod:`~lemmata.retrievers.exact_compiled`; the same answers,
compared in the tests), else in numpy; a query searched alone then also gets its scores from one compiled pass
that reads each document row once, in place of BLAS's slower matrix-vector product. Why this shape: FAISS ``IndexFlatIP`` does the same products with a heap per
query; ``perf/anchors_speed.py`` measures the two side by side.

**Eligibility filter**: a document may carry an integer key (e.g. a year; a
negative key means unknown and is always eligible) and a query an upper bound;
documents whose key exceeds the bound are never ranked for that query. That is
how a year cutoff is applied exactly, as a filter rather than a re-ranking.

**Approximate** (:class:`ApproximateIndex`, optional extra ``ann``): an inverted-file index with exact lists
from FAISS (``IndexIVFFlat``, spherical k-means cells; the default) or an HNSW graph from ``usearch``. Either
index only proposes candidates: they are re-scored exactly and ranked like the exact search, and
:func:`recall_against_exact` measures what the proposal loses; the figure is recorded with the run.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lemmata.retrievers.exact_compiled import kernel, products, scan_one, select

Ranking = list[tuple[str, float]]

#: documents per score block (queries × this many float32 scores are held at once, per worker: 8 MiB, so two
#: workers' blocks stay in a shared 32 MiB cache between the product and the scan that reads it)
DOC_BLOCK = 2048
#: queries per block (the unit of parallel work). 1,024 × 2,048 measured 3–5% faster than 256 × 8,192 (the same
#: 8 MiB of scores) on one BLAS thread: a taller query block packs each document block once for more queries
QUERY_BLOCK = 1024


def id_ranks(doc_ids: Sequence[str]) -> np.ndarray:
    """The position of each document id in ascending id order (the tie-break key).

    Ids that are already in ascending order (most corpora: a release's rows are sorted by id) skip the sort.

    >>> id_ranks(["b", "c", "a"]).tolist()
    [1, 2, 0]
    >>> id_ranks(["a", "b"]).tolist()
    [0, 1]
    """
    ids = [str(d) for d in doc_ids]
    if all(a < b for a, b in zip(ids, ids[1:])):
        return np.arange(len(ids), dtype=np.int64)
    order = np.argsort(np.asarray(ids, dtype=str), kind="stable")
    ranks = np.empty(len(ids), dtype=np.int64)
    ranks[order] = np.arange(len(ids))
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


#: the largest finite float32: a search's floor never drops below it, so a ``-inf`` (filtered) score never enters
_LOWEST = np.float32(-np.finfo(np.float32).max)
#: the ranking key of an empty place (no real key reaches it: see :func:`rank_keys`)
_EMPTY = np.uint64(2**64 - 1)
#: documents per product when a query is searched alone (a matrix-vector product: several document blocks at
#: once give each row the same bits as one block at a time, and cut the per-block overhead; 1 MiB of scores)
SINGLE_BLOCK = 262144


def rank_keys(scores: np.ndarray, tiebreak: np.ndarray) -> np.ndarray:
    """One ``uint64`` per (float32 score, tie-break rank) whose ascending order is the ranking order: score
    descending, then tie-break ascending — so one ``np.partition``/``np.sort`` of the keys replaces a two-key
    ``lexsort``, and the key alone carries the score back (:func:`key_scores`).

    The high 32 bits hold the score's bits mapped to an order-reversing integer; ``-0.0`` ranks as ``0.0`` (they
    tie, as floats compare) and the lowest bit remembers its sign, under the tie-break rank (below 2³¹).
    Scores are float32 without NaN.

    >>> k = rank_keys(np.array([0.5, 2.0, 0.5, -np.inf, -0.0, 0.0], np.float32), np.array([3, 0, 1, 2, 5, 4]))
    >>> np.argsort(k).tolist()
    [1, 2, 0, 5, 4, 3]
    >>> key_scores(k).tolist(), key_ranks(k).tolist()
    ([0.5, 2.0, 0.5, -inf, -0.0, 0.0], [3, 0, 1, 2, 5, 4])
    """
    bits = np.ascontiguousarray(scores, dtype=np.float32).view(np.int32).astype(np.int64)
    negative_zero = bits == -(2**31)
    bits[negative_zero] = 0
    ordered = np.where(bits >= 0, bits, bits ^ 0x7FFFFFFF)  # increases with the float
    high = (0x7FFFFFFF - ordered).astype(np.uint64)
    return (high << np.uint64(32)) | (tiebreak.astype(np.uint64) << np.uint64(1)) | negative_zero.astype(np.uint64)


def key_scores(keys: np.ndarray) -> np.ndarray:
    """The float32 scores that :func:`rank_keys` encoded, bit for bit."""
    ordered = 0x7FFFFFFF - (keys >> np.uint64(32)).astype(np.int64)
    bits = np.where(ordered >= 0, ordered, ordered ^ 0x7FFFFFFF).astype(np.int32)
    bits[(keys & np.uint64(1)).astype(bool)] = -(2**31)
    return bits.view(np.float32)


def key_ranks(keys: np.ndarray) -> np.ndarray:
    """The tie-break ranks that :func:`rank_keys` encoded."""
    return ((keys >> np.uint64(1)) & np.uint64(0x7FFFFFFF)).astype(np.int64)


def one_blas_thread():
    """A context in which BLAS runs on one thread (``threadpoolctl``), so a product's bits depend on its shape and
    the BLAS kernel alone, never on how many threads the library would otherwise split it over.

    The loaded libraries are looked up once per process (a lookup walks every shared object, milliseconds that a
    one-query search would pay each time); a BLAS loaded later is looked up again."""
    global _CONTROLLER
    import sys

    from threadpoolctl import ThreadpoolController

    if _CONTROLLER is None or _CONTROLLER[0] != len(sys.modules):
        _CONTROLLER = (len(sys.modules), ThreadpoolController())
    return _CONTROLLER[1].limit(limits=1, user_api="blas")


_CONTROLLER: tuple[int, Any] | None = None


#: columns of a query block's first document block whose k-th best score is each row's first floor: for a block
#: of several queries, and for a query searched alone (its partition is then small beside its product)
SEED_COLUMNS, SEED_COLUMNS_SINGLE = 2048, 16384


def _first_floor(scores: np.ndarray, rows: np.ndarray, k: int, columns: int) -> np.ndarray:
    """A first floor for ``rows`` of a score block: the k-th best of their first ``columns`` columns (at least
    ``4k``), NaN and filtered scores last — ``k`` scores reach it, so no final top-k score lies under it; ``-inf``
    where there are not ``k`` columns to choose from. (A few columns: their partition costs less than the
    extra hits a lower floor lets through.)

    >>> _first_floor(np.array([[0.1, np.nan, 0.75, 0.25, 0.5]], np.float32), np.array([0]), 2, 2048).tolist()
    [0.5]
    """
    c = min(scores.shape[1], max(columns, 4 * k))
    if c <= k:
        return np.full(rows.size, -np.inf, dtype=np.float32)
    part = scores[rows, :c]
    part.partition(c - k, axis=1)
    nan = np.isnan(part[:, c - k:]).any(axis=1)  # NaN partitions last: a row with any has one among its top k
    if nan.any():
        again = part[nan]
        np.copyto(again, np.float32(-np.inf), where=np.isnan(again))
        again.partition(c - k, axis=1)
        part[nan] = again
    return part[:, c - k]


class ExactIndex:
    """Exact top-k search over document vectors, prepared once: the float32 matrix (or memmap), each document's
    tie-break rank and id, optional eligibility keys. A query at a time pays only its own scan.

    Scores are the float32 products of fixed shapes — each query block of ``query_block`` rows (in query order)
    times each document block of ``doc_block`` rows starting at a multiple of ``doc_block``, one BLAS thread per
    product; a query block of one row is a matrix-vector product (with numba installed, one compiled pass of
    per-row dot products: :func:`~lemmata.retrievers.exact_compiled.products`, fused with the selection where no
    filter applies: :func:`~lemmata.retrievers.exact_compiled.scan_one`), whose bits do not depend on the
    document range — so the rankings are the same bits whatever the number of workers, cores or how the document
    range is split among them.

    Selection, per query block and document range: the k-th best score of each row's first columns
    (:func:`_first_floor`) is a floor no final top-k score lies under; each block's columns reaching the floor
    are found by one comparison (into a reused buffer) and one ``flatnonzero`` and appended, as :func:`rank_keys`
    (score desc, tie-break asc, exact at ties), to the row's held keys; a row holding more than ``2k`` is cut back
    to its ``k`` best by one ``np.partition`` and its floor rises to their worst. Ranges searched by different
    workers are merged the same way, and the ``k`` kept keys sorted once. With numba installed (and ``compiled``
    left true) each block's selection is one compiled pass instead (:func:`~lemmata.retrievers.exact_compiled.select`:
    the floor starts at the lowest finite score and rises at each cut; the same ``k`` keys are kept).
    """

    def __init__(self, docs: np.ndarray, doc_ids: Sequence[str], *, doc_keys: np.ndarray | None = None,
                 doc_block: int = DOC_BLOCK, query_block: int = QUERY_BLOCK, compiled: bool = True) -> None:
        if docs.ndim != 2 or docs.shape[0] != len(doc_ids):
            raise ValueError(f"{docs.shape[0] if docs.ndim else 0} document vectors for {len(doc_ids)} ids")
        if len(doc_ids) >= 2**31:
            raise ValueError(f"{len(doc_ids)} documents: exact search ranks fewer than 2**31")
        self.docs, self.doc_keys = docs, doc_keys
        self.doc_block, self.query_block = int(doc_block), int(query_block)
        self.tiebreak = id_ranks(doc_ids)
        ranked = self.tiebreak[:-1] < self.tiebreak[1:]
        self.by_rank = np.arange(len(doc_ids)) if ranked.all() else np.argsort(self.tiebreak)
        self.names = np.asarray(list(doc_ids), dtype=object)
        #: does each block's selection run as one compiled pass (numba installed and ``compiled`` not refused)?
        self.compiled = bool(compiled) and kernel() is not None

    def search(self, queries: np.ndarray, k: int, *, query_limits: Sequence[int | None] | None = None,
               excluded: Sequence[Any] | None = None, workers: int | None = None) -> list[Ranking]:
        """The top ``k`` ``(doc_id, score)`` of every query (see :func:`exact_search` for the arguments)."""
        from lemmata.core.collection import collection_paused

        rows, scores = self.top(queries, k, query_limits=query_limits, excluded=excluded, workers=workers)
        real = rows >= 0
        names = self.names[rows[real]].tolist()
        values = scores[real].tolist()
        out, at = [], 0
        with collection_paused():  # every pair and list built is kept (half the build time was collections)
            for count in real.sum(axis=1).tolist():
                out.append(list(zip(names[at:at + count], values[at:at + count])))
                at += count
        return out

    def top(self, queries: np.ndarray, k: int, *, query_limits: Sequence[int | None] | None = None,
            excluded: Sequence[Any] | None = None, workers: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`search` as arrays, the form FAISS returns: each query's document rows best first (``-1`` past
        the eligible documents) and their float32 scores (``-inf`` there)."""
        from lemmata.core.cores import usable_cores
        from lemmata.core.threads import run_all

        q = np.ascontiguousarray(queries, dtype=np.float32)
        n = self.docs.shape[0]
        if q.ndim != 2 or (n and q.shape[1] != self.docs.shape[1]):
            raise ValueError(f"query vectors of shape {q.shape} do not match documents of dimension "
                             f"{self.docs.shape[1]}")
        if query_limits is not None and (self.doc_keys is None or len(query_limits) != len(q)):
            raise ValueError("query_limits needs doc_keys and one limit per query")
        k = max(0, min(int(k), n))
        limits = None if query_limits is None else np.asarray(
            [np.iinfo(np.int64).max if x is None else int(x) for x in query_limits], dtype=np.int64)
        starts = list(range(0, len(q), self.query_block))
        workers = max(1, workers or usable_cores())
        tasks = [(qa, lo, hi) for qa in starts for lo, hi in self._ranges(-(-workers // max(1, len(starts))))]

        def run(task: tuple[int, int, int]) -> np.ndarray:
            qa, lo, hi = task
            rows = slice(qa, qa + self.query_block)
            return self._scan(q[rows], lo, hi, k, None if limits is None else limits[rows],
                              None if excluded is None else excluded[rows])

        with one_blas_thread():  # the threads are kept between searches (:mod:`lemmata.core.threads`)
            kept = run_all(run, tasks, name="lemmata-search", workers=workers)
        blocks = []
        for qa in starts:
            parts = [keys for (a, _, _), keys in zip(tasks, kept) if a == qa]
            keys = np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]
            if keys.shape[1] > k:
                keys = np.partition(keys, k - 1, axis=1)[:, :k]
            blocks.append(np.sort(keys, axis=1))
        keys = np.concatenate(blocks) if blocks else np.zeros((0, k), dtype=np.uint64)
        real = keys != _EMPTY
        rows = np.full(keys.shape, -1, dtype=np.int64)
        scores = np.full(keys.shape, -np.inf, dtype=np.float32)
        rows[real] = self.by_rank[key_ranks(keys[real])]
        scores[real] = key_scores(keys[real])
        return rows, scores

    def _ranges(self, parts: int) -> list[tuple[int, int]]:
        """The document range split into ``parts`` pieces (at most), each starting on a document block boundary, so
        splitting never changes a score (a matrix-vector product's bits depend on a row's place in its block
        modulo the kernel's row group: blocks start where the one-block products start)."""
        n = self.docs.shape[0]
        unit = self.doc_block
        blocks = -(-n // unit) if n else 1
        parts = max(1, min(parts, blocks))
        cuts = [min(n, round(i * blocks / parts) * unit) for i in range(parts + 1)]
        return [(a, b) for a, b in itertools.pairwise(cuts) if b > a] or [(0, n)]

    def _scan(self, qb: np.ndarray, lo: int, hi: int, k: int, limits: np.ndarray | None,
              excluded: Sequence[Any] | None) -> np.ndarray:
        """The ``k`` best :func:`rank_keys` of each query of one block over documents ``lo:hi`` (unordered;
        ``_EMPTY`` where fewer are eligible).

        Each row holds up to ``2k`` keys: the ``k`` best at its last compaction, then the hits of later blocks
        appended as they come; a row about to overflow is compacted back to its ``k`` best (one ``np.partition``)
        and its floor rises to their worst score. Between compactions the floor lags behind, which only lets a
        few more columns through."""
        m = len(qb)
        if k == 0:
            return np.full((m, 0), _EMPTY, dtype=np.uint64)
        room = 2 * k
        held = np.full((m, room), _EMPTY, dtype=np.uint64)
        count = np.zeros(m, dtype=np.int64)
        floor = np.full(m, -np.inf, dtype=np.float32)
        step = self.doc_block
        if m == 1 and self.doc_block % 64 == 0:  # whole blocks at once: every row keeps its place modulo 64
            step = self.doc_block * max(1, SINGLE_BLOCK // self.doc_block)
        width = min(step, hi - lo)
        product = np.empty(m * width, dtype=np.float32)
        reach = np.empty(m * width, dtype=bool)
        banned = None if excluded is None else [np.asarray(list(e), dtype=np.int64) for e in excluded]
        bound = np.full(m, _EMPTY, dtype=np.uint64)
        if self.compiled:
            floor[:] = _LOWEST
        alone = m == 1 and self.compiled and limits is None and banned is None  # products and selection fused
        for da in range(lo, hi, step):
            block = np.ascontiguousarray(self.docs[da:min(da + step, hi)], dtype=np.float32)
            w = block.shape[0]
            if alone and scan_one(block, qb[0], self.tiebreak[da:da + w], k, floor, bound, held, count):
                continue
            scores = product[:m * w].reshape(m, w)
            if not (m == 1 and self.compiled and products(block, qb[0], scores[0])):
                np.matmul(qb, block.T, out=scores)
            self._filter(scores, da, limits, banned)
            if self.compiled:
                select(scores, self.tiebreak[da:da + w], k, floor, bound, held, count)
                continue
            fresh = np.flatnonzero(floor == -np.inf)
            if fresh.size:
                floor[fresh] = _first_floor(scores, fresh, k, SEED_COLUMNS_SINGLE if m == 1 else SEED_COLUMNS)
            np.greater_equal(scores, np.maximum(floor, _LOWEST)[:, None], out=reach[:m * w].reshape(m, w))
            hits = np.flatnonzero(reach[:m * w])
            if not hits.size:
                continue
            row, col = np.divmod(hits, w)
            keys = rank_keys(scores.reshape(-1)[hits], self.tiebreak[da + col])
            counts = np.bincount(row, minlength=m)
            within = np.arange(hits.size) - (np.cumsum(counts) - counts)[row]
            over = count + counts > room
            if over.any():
                rows = np.flatnonzero(over)
                slot = np.cumsum(over) - 1
                pool = np.full((rows.size, room + int(counts[rows].max())), _EMPTY, dtype=np.uint64)
                pool[:, :room] = held[rows]
                late = over[row]
                pool[slot[row[late]], room + within[late]] = keys[late]
                best = np.partition(pool, k - 1, axis=1)[:, :k]
                held[rows, k:] = _EMPTY
                held[rows, :k] = best
                worst = best.max(axis=1)
                floor[rows[worst != _EMPTY]] = key_scores(worst[worst != _EMPTY])
                count[rows] = k - counts[rows]  # the appends below are skipped for them
                row, within, keys = row[~late], within[~late], keys[~late]
            held[row, count[row] + within] = keys
            count += counts
        return np.partition(held, k - 1, axis=1)[:, :k]

    def _filter(self, scores: np.ndarray, da: int, limits: np.ndarray | None,
                banned: list[np.ndarray] | None) -> None:
        """Set to ``-inf`` the scores of documents a query may not rank (year filter, exclusions)."""
        w = scores.shape[1]
        if limits is not None:
            keys = np.asarray(self.doc_keys[da:da + w], dtype=np.int64)
            np.copyto(scores, np.float32(-np.inf), where=(keys[None, :] > limits[:, None]) & (keys[None, :] >= 0))
        if banned is not None:
            for r, rows in enumerate(banned):
                inside = rows[(rows >= da) & (rows < da + w)]
                if inside.size:
                    scores[r, inside - da] = -np.inf


def exact_search(queries: np.ndarray, docs: np.ndarray, doc_ids: Sequence[str], k: int, *,
                 doc_keys: np.ndarray | None = None, query_limits: Sequence[int | None] | None = None,
                 excluded: Sequence[Any] | None = None, doc_block: int = DOC_BLOCK,
                 query_block: int = QUERY_BLOCK, workers: int | None = None) -> list[Ranking]:
    """The top ``k`` ``(doc_id, score)`` of every query by dot product (cosine for unit vectors).

    ``doc_keys`` / ``query_limits``: the eligibility filter (see the module);
    ``excluded``: per query, a collection of document row indices never ranked
    for it (a dynamic corpus). Scores are float32 products, compared as stored.

    The work — query blocks, and document ranges within them when there are fewer query blocks than ``workers``
    (default: one per usable core) — runs in threads, each product on one BLAS thread, so the scores and the
    rankings are the same whatever the number of workers or cores (see :class:`ExactIndex`, which a caller
    searching the same documents repeatedly keeps instead).

    >>> d = np.array([[1, 0], [0, 1], [1, 0], [0.6, 0.8]], dtype=np.float32)
    >>> q = np.array([[1, 0]], dtype=np.float32)
    >>> [(i, round(s, 2)) for i, s in exact_search(q, d, ["z", "y", "a", "b"], 3)[0]]
    [('a', 1.0), ('z', 1.0), ('b', 0.6)]
    >>> [i for i, _ in exact_search(q, d, ["z", "y", "a", "b"], 3, doc_keys=np.array([2020, -1, 2024, 2019]),
    ...                             query_limits=[2021])[0]]
    ['z', 'b', 'y']
    """
    index = ExactIndex(docs, doc_ids, doc_keys=doc_keys, doc_block=doc_block, query_block=query_block)
    return index.search(queries, k, query_limits=query_limits, excluded=excluded, workers=workers)


# -- approximate search ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class HnswParams:
    """usearch HNSW parameters: connectivity M, expansion while adding and while searching, and the over-fetch
    (``fetch`` × k candidates are taken from the graph and re-scored exactly before the top k is cut).

    Measured by ``perf/evaluate_speed.py --only ann`` at 1M synthetic 64-dim vectors (M=32, ef_add=128, one
    graph): recall@10 against exact 0.672 at ef_search=128, 0.915 at 512, 0.972 at 1024, 0.991 at 2048 (the
    default: the first setting past the 0.98 goal), 0.996 at 3072; an over-fetch of 2k added nothing over the
    expansion. The label records the setting with the run."""

    connectivity: int = 32
    expansion_add: int = 128
    expansion_search: int = 2048
    fetch: int = 1

    def label(self) -> str:
        """The index kind recorded in ``ModelInfo.index``.

        >>> HnswParams().label()
        'usearch-hnsw(M=32,ef_add=128,ef_search=2048,fetch=1k)'
        """
        return (f"usearch-hnsw(M={self.connectivity},ef_add={self.expansion_add},"
                f"ef_search={self.expansion_search},fetch={self.fetch}k)")


@dataclass(frozen=True)
class IvfParams:
    """FAISS inverted-file parameters: ``lists`` k-means cells (0: about 4·√n), ``probe`` cells searched per
    query, a training sample of ``train_per_list`` vectors per cell drawn with ``seed``, and the over-fetch.

    Measured by ``perf/evaluate_speed.py --only ann`` at 1M synthetic clustered 64-dim vectors: 4,000 cells,
    probe 64 gives recall@10 ≈ 0.99 against exact search (probe 32: ≈ 0.97) at many times its speed; the label
    records the setting with the run.

    >>> IvfParams().resolved(1_000_000).label()
    'faiss-ivf-flat(lists=4000,probe=64,fetch=1k)'
    """

    lists: int = 0
    probe: int = 64
    train_per_list: int = 64
    seed: int = 1234
    fetch: int = 1

    def resolved(self, n: int) -> IvfParams:
        """The parameters with ``lists`` fixed for ``n`` documents (never more cells than documents)."""
        import dataclasses
        import math

        lists = self.lists or max(1, round(4 * math.sqrt(n)))
        return dataclasses.replace(self, lists=max(1, min(lists, n)))

    def label(self) -> str:
        return f"faiss-ivf-flat(lists={self.lists},probe={self.probe},fetch={self.fetch}k)"


class ApproximateIndex:
    """An inner-product index over document vectors whose candidates are re-scored exactly and tie-broken by id:
    FAISS IVF (``IvfParams``, the default) or usearch HNSW (``HnswParams``).

    ``path``: where the built index is kept (a speed script reuses it); an existing file is loaded instead of
    building, and refused unless it holds one vector per document of this dimension. ``label`` names the index
    kind and its settings, as recorded in ``ModelInfo.index``.
    """

    def __init__(self, docs: np.ndarray, doc_ids: Sequence[str], params: IvfParams | HnswParams = IvfParams(), *,
                 threads: int = 0, path: str | None = None) -> None:
        self.docs, self.doc_ids = docs, list(doc_ids)
        self.tiebreak = id_ranks(self.doc_ids)
        if isinstance(params, HnswParams):
            self.params: IvfParams | HnswParams = params
            self._build_hnsw(threads, path)
        else:
            self.params = params.resolved(docs.shape[0])
            self._build_ivf(path)

    @property
    def label(self) -> str:
        return self.params.label()

    def _check_loaded(self, path: str, count: int, dim: int) -> None:
        if count != self.docs.shape[0] or dim != self.docs.shape[1]:
            raise ValueError(f"{path}: an index of {count} × {dim} vectors, not "
                             f"{self.docs.shape[0]} × {self.docs.shape[1]}")

    def _build_ivf(self, path: str | None) -> None:
        import os

        from lemmata.retrievers.encoders import require

        faiss = require("faiss", "ann")
        p, (n, dim) = self.params, self.docs.shape
        if path is not None and os.path.exists(path):
            self.index = faiss.read_index(path)
            self._check_loaded(path, self.index.ntotal, self.index.d)
        else:
            self.index = faiss.IndexIVFFlat(faiss.IndexFlatIP(dim), dim, p.lists, faiss.METRIC_INNER_PRODUCT)
            self.index.cp.seed = p.seed
            self.index.cp.spherical = True
            self.index.cp.max_points_per_centroid = p.train_per_list
            rng = np.random.default_rng(p.seed)
            sample = np.sort(rng.choice(n, size=min(n, p.lists * p.train_per_list), replace=False))
            self.index.train(np.ascontiguousarray(self.docs[sample], dtype=np.float32))
            for a in range(0, n, 262144):  # add in blocks: a memmap is never loaded whole
                self.index.add(np.ascontiguousarray(self.docs[a:a + 262144], dtype=np.float32))
            if path is not None:
                faiss.write_index(self.index, path)
        self.index.nprobe = p.probe

    def _build_hnsw(self, threads: int, path: str | None) -> None:
        import os

        from lemmata.retrievers.encoders import require

        usearch_index = require("usearch.index", "ann")
        p, docs = self.params, self.docs
        self.index = usearch_index.Index(ndim=int(docs.shape[1]), metric="ip", dtype="f32",
                                         connectivity=p.connectivity, expansion_add=p.expansion_add,
                                         expansion_search=p.expansion_search)
        if path is not None and os.path.exists(path):
            self.index.load(path)
            self._check_loaded(path, len(self.index), self.index.ndim)
            self.index.expansion_search = p.expansion_search
            return
        keys = np.arange(docs.shape[0], dtype=np.uint64)
        for a in range(0, docs.shape[0], 262144):
            self.index.add(keys[a:a + 262144], np.ascontiguousarray(docs[a:a + 262144], dtype=np.float32),
                           threads=threads)
        if path is not None:
            self.index.save(path)

    def candidates(self, q: np.ndarray, want: int, *, threads: int = 0) -> list[np.ndarray]:
        """Each query's proposed document rows (ascending), from the index alone."""
        if isinstance(self.params, HnswParams):
            self.index.expansion_search = self.params.expansion_search
            found = self.index.search(q, want, threads=threads)
            keys = np.asarray(found.keys).reshape(len(q), -1)
            counts = np.asarray(found.counts).reshape(len(q))
            return [np.sort(keys[r, :counts[r]].astype(np.int64)) for r in range(len(q))]
        self.index.nprobe = self.params.probe
        _, found = self.index.search(q, want)
        return [np.sort(row[row >= 0].astype(np.int64)) for row in found]

    def search(self, queries: np.ndarray, k: int, *, threads: int = 0) -> list[Ranking]:
        q = np.ascontiguousarray(queries, dtype=np.float32)
        k = min(k, len(self.doc_ids))
        out: list[Ranking] = []
        for r, idx in enumerate(self.candidates(q, max(k * self.params.fetch, 1), threads=threads)):
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
