"""Ranked-retrieval metrics computed by ``trec_eval`` (through ``pytrec_eval``), ties broken our way.

A *run* maps each query id to ``{doc id: score}``; *qrels* map each query id to
``{doc id: grade}`` (integer grades; unjudged documents count as non-relevant).
A document is *relevant* when its grade is ``>= relevance_level`` (default 1).

Ranking. Documents are ranked by (score descending, doc id ascending), scores
compared as given (double precision). trec_eval breaks score ties by doc id
*descending* and compares scores in *single* precision, so each query whose ranking
has a tie that matters — in double precision, or created by rounding to single
precision — is rewritten with rank-valued scores (``n, n-1, ..., 1`` in our order)
before evaluation. Every measure below depends on the top k documents only, so each
ranking is also cut at the largest requested k — the values are unchanged and
trec_eval has far less to do. Queries whose scores arrive strictly decreasing (the
usual case) are recognised vectorised and only sliced.

Measures (``name@k``, k >= 1; per query, then averaged over queries):

* ``recall@k`` — |relevant ∩ top-k| / |relevant| (trec_eval ``recall_k``).
* ``precision@k`` — |relevant ∩ top-k| / k, also when fewer than k are ranked (``P_k``).
* ``ndcg@k`` — DCG@k / ideal DCG@k with gain = the qrels grade of every document with a
  positive grade (``relevance_level`` does not apply) and discount log2(rank + 1)
  (``ndcg_cut_k``); the ideal ranking is built from all judged grades.
* ``mrr@k`` — 1 / rank of the first relevant document if that rank is <= k, else 0
  (trec_eval ``recip_rank``, cut at k).
* ``map@k`` — sum of precision@r over the ranks r <= k of relevant documents, divided
  by |relevant| (``map_cut_k``).

Strictness. The run and the qrels must cover exactly the same queries, every query
must have at least one relevant document (otherwise recall is undefined), scores must
not be NaN and grades must be integers; violations raise :class:`InputError` naming
the query (and document). A query with an empty ranking scores 0 on every measure.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter, methodcaller

import numpy as np
from pydantic import Field

from lemmata.core.errors import InputError, Problem
from lemmata.core.models import Frozen
from lemmata.metrics.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_intervals

Run = Mapping[str, Mapping[str, float]]
Qrels = Mapping[str, Mapping[str, int]]

MEASURE_KINDS: dict[str, str] = {
    "recall": "recall_{k}",
    "precision": "P_{k}",
    "ndcg": "ndcg_cut_{k}",
    "mrr": "recip_rank",
    "map": "map_cut_{k}",
}
DEFAULT_MEASURES: tuple[str, ...] = ("recall@10", "ndcg@10", "mrr@10")
_MEASURE = re.compile(r"^(?P<kind>[a-z]+)@(?P<k>-?\d+)$")
_MAX_LISTED = 20
_keys, _values = methodcaller("keys"), methodcaller("values")


class MeasureResult(Frozen):
    """One measure over all queries: mean, bootstrap-over-queries interval and per-query values."""

    name: str = Field(description="e.g. 'ndcg@10'")
    trec_eval: str = Field(description="the trec_eval measure it is computed from")
    mean: float
    ci95: tuple[float, float] | None = Field(description="percentile bootstrap over queries; None when not requested")
    per_query: tuple[float, ...] = Field(description="aligned with RetrievalEvaluation.query_ids")


class RetrievalEvaluation(Frozen):
    """Every requested measure of one run against one set of qrels."""

    query_ids: tuple[str, ...] = Field(description="sorted query ids")
    relevance_level: int
    n_resamples: int = Field(ge=0, description="bootstrap resamples over queries; 0 = no interval")
    seed: int = Field(ge=0)
    measures: dict[str, MeasureResult]

    def means(self) -> dict[str, float]:
        return {name: m.mean for name, m in self.measures.items()}

    def per_query(self, name: str) -> dict[str, float]:
        if name not in self.measures:
            from lemmata.core.registry import suggest

            raise KeyError(suggest("measure", name, self.measures))
        return dict(zip(self.query_ids, self.measures[name].per_query))


def parse_measure(name: str) -> tuple[str, int]:
    """``'ndcg@10'`` → ``('ndcg', 10)``; unknown kinds and k <= 0 are refused.

    >>> parse_measure("recall@100")
    ('recall', 100)
    >>> parse_measure("mrr@0")
    Traceback (most recent call last):
    ...
    ValueError: measure 'mrr@0': k must be a positive integer
    >>> parse_measure("recal@10")
    Traceback (most recent call last):
    ...
    ValueError: unknown measure kind 'recal'; did you mean 'recall'? (known: map, mrr, ndcg, precision, recall)
    """
    m = _MEASURE.match(name) if isinstance(name, str) else None
    if m is None:
        raise ValueError(f"measure {name!r} is not of the form '<kind>@<k>' with kind in {sorted(MEASURE_KINDS)}")
    kind, k = m.group("kind"), int(m.group("k"))
    if kind not in MEASURE_KINDS:
        from lemmata.core.registry import suggest

        raise ValueError(suggest("measure kind", kind, MEASURE_KINDS))
    if k <= 0:
        raise ValueError(f"measure {name!r}: k must be a positive integer")
    return kind, k


def _check_score(query: str, doc: object, score: object) -> None:
    if not isinstance(doc, str):
        raise InputError([Problem("run", f"document id {doc!r} is not a string", field=f"{query}")])
    if isinstance(score, bool) or not isinstance(score, (int, float, np.integer, np.floating)):
        raise InputError([Problem("run", f"score of document {doc!r} is {score!r}, not a number", field=f"{query}")])
    if math.isnan(score):
        raise InputError([Problem("run", f"score of document {doc!r} is NaN", field=f"{query}")])


def rank_candidates(scores: Mapping[str, float]) -> list[str]:
    """Document ids ordered by (score descending, doc id ascending) — the order every Lemmata metric uses.

    >>> rank_candidates({"b": 0.5, "a": 0.5, "c": 0.9, "d": 0.1})
    ['c', 'a', 'b', 'd']
    >>> rank_candidates({"a": float("nan")})
    Traceback (most recent call last):
    ...
    lemmata.core.errors.InputError: 1 problem found:
      - run, field '<candidates>': score of document 'a' is NaN
    """
    for doc, score in scores.items():
        _check_score("<candidates>", doc, score)
    return [doc for doc, _ in sorted(sorted(scores.items()), key=itemgetter(1), reverse=True)]


def run_from_rankings(rankings: Mapping[str, Sequence[str]]) -> dict[str, dict[str, float]]:
    """A run from ranked lists (best first), scored ``n, n-1, ..., 1``; a repeated document is refused.

    >>> run_from_rankings({"q1": ["d3", "d1"]})
    {'q1': {'d3': 2.0, 'd1': 1.0}}
    >>> run_from_rankings({"q1": ["d3", "d1", "d3"]})
    Traceback (most recent call last):
    ...
    lemmata.core.errors.InputError: 1 problem found:
      - rankings, field 'q1': document 'd3' ranked twice (positions 1 and 3)
    """
    problems: list[Problem] = []
    run: dict[str, dict[str, float]] = {}
    for query, docs in rankings.items():
        if isinstance(docs, (str, bytes)):
            problems.append(Problem("rankings", "expected a list of document ids, got a string", field=str(query)))
            continue
        docs = list(docs)
        n = len(docs)
        scored = {doc: float(n - i) for i, doc in enumerate(docs)}
        if len(scored) != n:
            seen: dict[str, int] = {}
            for i, doc in enumerate(docs):
                if doc in seen:
                    problems.append(Problem("rankings", f"document {doc!r} ranked twice (positions {seen[doc] + 1} "
                                                        f"and {i + 1})", field=str(query)))
                    break
                seen[doc] = i
        bad = [d for d in docs if not isinstance(d, str)]
        if bad:
            problems.append(Problem("rankings", f"document id {bad[0]!r} is not a string", field=str(query)))
        run[query] = scored
    if problems:
        raise InputError(problems[:_MAX_LISTED])
    return run


def rank_consistent_run(run: Run) -> dict[str, Mapping[str, float]]:
    """The run with every tied query rescored by rank, so trec_eval sees our tie order.

    A tie is one as trec_eval sees it: equal scores, or scores equal once rounded to
    single precision. Queries without ties are returned as the same mapping objects.

    >>> rank_consistent_run({"q": {"b": 1.0, "a": 1.0, "c": 0.5}, "r": {"x": 2.0, "y": 1.0}})
    {'q': {'a': 3.0, 'b': 2.0, 'c': 1.0}, 'r': {'x': 2.0, 'y': 1.0}}
    """
    return _prepare(run, None)


def _top(scores: Mapping[str, float], prefix: int | None, depth: int | None) -> dict[str, float]:
    """The first ``depth`` documents in our order (from the first ``prefix`` items when the caller
    knows the rest cannot enter), rescored by rank."""
    items = list(scores.items()) if prefix is None else list(itertools.islice(scores.items(), prefix))
    ordered = sorted(sorted(items), key=itemgetter(1), reverse=True)
    if depth is not None:
        ordered = ordered[:depth]
    n = len(ordered)
    return {doc: float(n - i) for i, (doc, _) in enumerate(ordered)}


def _cut_unsorted(rows: np.ndarray, queries: list[str], dicts: list[Mapping[str, float]], scores: np.ndarray,
                  starts: np.ndarray, lengths: np.ndarray, depth: int, out: dict) -> np.ndarray:
    """Cut unsorted rankings longer than ``depth`` in one vectorised pass; returns the rows left to sort.

    The ``depth + 1`` best scores of every row are found with one ``argpartition`` over a
    padded matrix; a row whose top ``depth + 1`` holds no tie (in single precision, as
    trec_eval compares) keeps its original scores
    (trec_eval then orders it as we do), a row with a tie there is returned for sorting.
    """
    if rows.size == 0:
        return rows
    lens = lengths[rows]
    width = int(lens.max())
    offsets = np.cumsum(lens) - lens
    row_of = np.repeat(np.arange(rows.size), lens)
    col_of = np.arange(int(lens.sum())) - np.repeat(offsets, lens)
    matrix = np.full((rows.size, width), -np.inf)
    matrix[row_of, col_of] = scores[np.repeat(starts[rows], lens) + col_of]
    best = np.argpartition(-matrix, depth, axis=1)[:, :depth + 1]
    values = np.take_along_axis(matrix, best, axis=1)
    order = np.argsort(-values, axis=1, kind="stable")
    best, values = np.take_along_axis(best, order, axis=1), np.take_along_axis(values, order, axis=1)
    single = values.astype(np.float32)  # trec_eval compares scores in single precision
    tied = (single[:, 1:] == single[:, :-1]).any(axis=1)
    clean = np.flatnonzero(~tied)
    for qi, picks, vals in zip(rows[clean].tolist(), best[clean, :depth].tolist(), values[clean, :depth].tolist()):
        keys = list(dicts[qi])
        out[queries[qi]] = {keys[j]: v for j, v in zip(picks, vals)}
    return rows[tied]


def _prepare(run: Run, depth: int | None) -> dict[str, Mapping[str, float]]:
    """The run as trec_eval must see it: our tie order, cut to the top ``depth`` documents.

    Every supported measure depends on the top-k documents only, so cutting each
    ranking at the largest requested k leaves every value unchanged and spares
    trec_eval most of the work. Scores are flattened once into one array: queries
    whose scores arrive strictly decreasing (the usual order) are cut with ``islice``
    and keep their scores; unsorted queries are cut in one vectorised ``argpartition``;
    only queries with a tie in the part that matters are sorted in Python and rescored
    by rank. NaN and non-numeric scores are refused.
    """
    queries = list(run)
    dicts = [run[q] for q in queries]
    lengths = np.fromiter(map(len, dicts), dtype=np.int64, count=len(dicts))
    total = int(lengths.sum())
    try:
        scores = np.fromiter(itertools.chain.from_iterable(map(_values, dicts)), dtype=np.float64, count=total)
    except (TypeError, ValueError):
        for q, d in zip(queries, dicts):
            for doc, score in d.items():
                _check_score(q, doc, score)
        raise
    if not set(map(type, itertools.chain.from_iterable(map(_keys, dicts)))) <= {str}:
        for q, d in zip(queries, dicts):
            for doc, score in d.items():
                _check_score(q, doc, score)
    starts = np.cumsum(lengths) - lengths
    nan = np.flatnonzero(np.isnan(scores))
    if nan.size:
        problems = []
        for pos in nan[:_MAX_LISTED]:
            qi = int(np.searchsorted(starts, pos, side="right")) - 1
            doc = list(dicts[qi])[int(pos - starts[qi])]
            problems.append(Problem("run", f"score of document {doc!r} is NaN", field=queries[qi]))
        raise InputError(problems)

    if total > 1:
        single = scores.astype(np.float32)  # trec_eval compares scores in single precision
        ok = single[1:] < single[:-1]
        ok[starts[(starts > 0) & (starts < total)] - 1] = True  # pairs that cross into the next query
        suspects = np.flatnonzero(~ok)
    else:
        suspects = np.empty(0, dtype=np.int64)
    owner = np.searchsorted(starts, suspects, side="right") - 1
    rising = scores[suspects] < scores[suspects + 1]
    unsorted = np.unique(owner[rising])
    ties = ~rising if depth is None else ~rising & (suspects - starts[owner] < depth)
    tied = np.setdiff1d(np.unique(owner[ties]), unsorted, assume_unique=True)

    if depth is None:
        out: dict[str, Mapping[str, float]] = dict(zip(queries, dicts))
    else:
        cut = itertools.islice
        out = {q: (d if n <= depth else dict(cut(d.items(), depth)))
               for q, d, n in zip(queries, dicts, lengths.tolist())}
    if depth is not None and unsorted.size:
        long = unsorted[lengths[unsorted] > depth]
        unsorted = unsorted[lengths[unsorted] <= depth]
        unsorted = np.concatenate([unsorted, _cut_unsorted(long, queries, dicts, scores, starts, lengths, depth, out)])
    for qi in unsorted.tolist():
        d = dicts[qi]
        n, start = int(lengths[qi]), int(starts[qi])
        if np.unique(scores[start:start + n].astype(np.float32)).size != n:  # else trec_eval's order is ours
            out[queries[qi]] = _top(d, None, depth)
    for qi in tied.tolist():
        n, start = int(lengths[qi]), int(starts[qi])
        prefix = n
        if depth is not None and n > depth:
            # Sorted with ties: only the tie group straddling position `depth` can reach past it.
            boundary = scores[start + depth - 1]
            below = np.flatnonzero(scores[start + depth:start + n] < boundary)
            prefix = depth + int(below[0]) if below.size else n
        out[queries[qi]] = _top(dicts[qi], prefix, depth)
    return out


def _validate(run: Run, qrels: Qrels, relevance_level: int) -> list[str]:
    problems: list[Problem] = []
    if not isinstance(relevance_level, int) or isinstance(relevance_level, bool):
        raise ValueError(f"relevance_level must be an integer, got {relevance_level!r}")
    if not qrels:
        raise ValueError("qrels are empty: there is nothing to evaluate")
    if run.keys() != qrels.keys():
        missing = sorted(set(qrels) - set(run))
        extra = sorted(set(run) - set(qrels))
        if missing:
            problems.append(Problem("run", f"{len(missing)} judged querie(s) have no ranking: {missing[:_MAX_LISTED]} "
                                           "(give an empty ranking to score them 0)"))
        if extra:
            problems.append(Problem("run", f"{len(extra)} querie(s) have no qrels: {extra[:_MAX_LISTED]}"))
    for query, judged in qrels.items():
        if len(problems) >= _MAX_LISTED:
            break
        if not isinstance(query, str):
            problems.append(Problem("qrels", f"query id {query!r} is not a string"))
            continue
        relevant = 0
        for doc, grade in judged.items():
            if type(grade) is not int:
                problems.append(Problem("qrels", f"grade of document {doc!r} is {grade!r}, not an integer", field=query))
                break
            relevant += grade >= relevance_level
        else:
            if relevant == 0:
                problems.append(Problem("qrels", f"no relevant document (grade >= {relevance_level}); "
                                                 "recall is undefined — drop the query from the qrels", field=query))
    if problems:
        raise InputError(problems[:_MAX_LISTED])
    return sorted(qrels)


def evaluate_run(
    run: Run,
    qrels: Qrels,
    measures: Iterable[str] = DEFAULT_MEASURES,
    *,
    relevance_level: int = 1,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> RetrievalEvaluation:
    """Per-query and mean values of ``measures`` (e.g. ``'recall@10'``), with bootstrap-over-queries intervals.

    ``n_resamples=0`` skips the intervals (they cost O(resamples x queries)).

    >>> qrels = {"q1": {"a": 2, "b": 1}, "q2": {"c": 1}}
    >>> run = {"q1": {"x": 0.9, "a": 0.5, "b": 0.5}, "q2": {"d": 0.3, "c": 0.3}}
    >>> ev = evaluate_run(run, qrels, ["recall@2", "mrr@1", "precision@2"], n_resamples=0)
    >>> ev.means()
    {'recall@2': 0.75, 'mrr@1': 0.5, 'precision@2': 0.5}
    >>> ev.per_query("recall@2")
    {'q1': 0.5, 'q2': 1.0}
    >>> evaluate_run({"q1": {}}, qrels)
    Traceback (most recent call last):
    ...
    lemmata.core.errors.InputError: 1 problem found:
      - run: 1 judged querie(s) have no ranking: ['q2'] (give an empty ranking to score them 0)
    """
    import pytrec_eval

    if isinstance(measures, str):
        measures = [measures]
    specs = [(name, *parse_measure(name)) for name in dict.fromkeys(measures)]
    if not specs:
        raise ValueError("no measures requested")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 0:
        raise ValueError(f"n_resamples must be a non-negative integer, got {n_resamples!r}")
    query_ids = _validate(run, qrels, relevance_level)
    scored = _prepare(run, max(k for _, _, k in specs))

    trec = {name: MEASURE_KINDS[kind].format(k=k) for name, kind, k in specs}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(trec.values()), relevance_level=relevance_level)
    results = evaluator.evaluate(scored)
    zero = dict.fromkeys(trec.values(), 0.0)
    columns = list(dict.fromkeys(trec.values()))
    rows = [results.get(q, zero) for q in query_ids]
    table = np.array([[r[c] for c in columns] for r in rows], dtype=np.float64).reshape(len(query_ids), len(columns))
    values = {}
    for name, kind, k in specs:
        col = table[:, columns.index(trec[name])]
        if kind == "mrr":
            with np.errstate(divide="ignore"):
                first_hit = np.rint(1.0 / col)
            col = np.where((col > 0) & (first_hit <= k), col, 0.0)
        values[name] = col
    matrix = np.stack([values[name] for name, _, _ in specs], axis=1)
    intervals = bootstrap_intervals(matrix, n_resamples=n_resamples, seed=seed) if n_resamples else [None] * len(specs)
    means = matrix.mean(axis=0)
    results_by_name = {
        name: MeasureResult.model_construct(name=name, trec_eval=trec[name], mean=float(means[j]), ci95=intervals[j],
                                            per_query=tuple(matrix[:, j].tolist()))
        for j, (name, _, _) in enumerate(specs)
    }
    return RetrievalEvaluation.model_construct(query_ids=tuple(query_ids), relevance_level=relevance_level,
                                               n_resamples=n_resamples, seed=seed, measures=results_by_name)


def _mean(run: Run, qrels: Qrels, name: str, relevance_level: int) -> float:
    return evaluate_run(run, qrels, [name], relevance_level=relevance_level, n_resamples=0).measures[name].mean


def recall_at_k(run: Run, qrels: Qrels, k: int, *, relevance_level: int = 1) -> float:
    """Mean over queries of |relevant ∩ top-k| / |relevant|."""
    return _mean(run, qrels, f"recall@{k}", relevance_level)


def precision_at_k(run: Run, qrels: Qrels, k: int, *, relevance_level: int = 1) -> float:
    """Mean over queries of |relevant ∩ top-k| / k."""
    return _mean(run, qrels, f"precision@{k}", relevance_level)


def ndcg_at_k(run: Run, qrels: Qrels, k: int, *, relevance_level: int = 1) -> float:
    """Mean over queries of nDCG@k with graded gains (the qrels grades)."""
    return _mean(run, qrels, f"ndcg@{k}", relevance_level)


def mrr_at_k(run: Run, qrels: Qrels, k: int, *, relevance_level: int = 1) -> float:
    """Mean over queries of 1/rank of the first relevant document within the top k (0 if none)."""
    return _mean(run, qrels, f"mrr@{k}", relevance_level)


def map_at_k(run: Run, qrels: Qrels, k: int, *, relevance_level: int = 1) -> float:
    """Mean over queries of average precision cut at k (divided by |relevant|)."""
    return _mean(run, qrels, f"map@{k}", relevance_level)
