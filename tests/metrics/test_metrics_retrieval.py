"""Retrieval metrics: documented definitions, our tie order, cut-at-k exactness and strict input checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval

from lemmata.core.errors import InputError
from lemmata.metrics.intervals import bootstrap_intervals
from lemmata.metrics.retrieval import (
    evaluate_run,
    map_at_k,
    mrr_at_k,
    ndcg_at_k,
    precision_at_k,
    rank_candidates,
    rank_consistent_run,
    recall_at_k,
    run_from_rankings,
)


def _ranking(scores):
    return [d for d, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))]


def _reference(run, qrels, kind, k, level=1):
    """The module docstring's definitions, written out directly."""
    out = {}
    for q, judged in qrels.items():
        top = _ranking(run[q])[:k]
        rel = {d for d, g in judged.items() if g >= level}
        hits = [d in rel for d in top]
        if kind == "recall":
            v = sum(hits) / len(rel)
        elif kind == "precision":
            v = sum(hits) / k
        elif kind == "mrr":
            v = next((1 / (i + 1) for i, h in enumerate(hits) if h), 0.0)
        elif kind == "map":
            v = sum(sum(hits[: i + 1]) / (i + 1) for i, h in enumerate(hits) if h) / len(rel)
        else:
            dcg = sum(max(judged.get(d, 0), 0) / math.log2(i + 2) for i, d in enumerate(top))
            ideal = sorted((g for g in judged.values() if g > 0), reverse=True)[:k]
            v = dcg / sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        out[q] = v
    return out


def _random_case(seed, n_queries=40, n_docs=30, style="mixed"):
    rng = np.random.default_rng(seed)
    run, qrels = {}, {}
    for qi in range(n_queries):
        q = f"q{qi:03d}"
        docs = [f"d{int(i):03d}" for i in rng.choice(200, size=int(rng.integers(0, n_docs)), replace=False)]
        scores = rng.random(len(docs)) if style == "distinct" else rng.integers(0, 8, size=len(docs)).astype(float)
        order = rng.permutation(len(docs))
        if style == "sorted" or (style == "mixed" and qi % 3 == 0):
            order = np.argsort(-scores, kind="stable")
        run[q] = {docs[i]: float(scores[i]) for i in order}
        pool = docs[:10] + [f"d{int(i):03d}" for i in rng.choice(200, size=3, replace=False)]
        judged = {d: int(rng.integers(0, 4)) for d in dict.fromkeys(pool)}
        judged[pool[-1]] = max(judged[pool[-1]], 1)
        qrels[q] = judged
    return run, qrels


MEASURES = ["recall@1", "recall@5", "precision@3", "ndcg@10", "ndcg@3", "mrr@4", "map@7", "recall@100"]


@pytest.mark.parametrize("seed, style", [(0, "mixed"), (1, "sorted"), (2, "unsorted"), (3, "mixed"), (7, "distinct")])
def test_matches_documented_definitions(seed, style):
    run, qrels = _random_case(seed, style=style)
    ev = evaluate_run(run, qrels, MEASURES, n_resamples=0)
    for name in MEASURES:
        kind, k = name.split("@")
        ref = _reference(run, qrels, kind, int(k))
        got = ev.per_query(name)
        assert got.keys() == ref.keys()
        for q in ref:
            assert got[q] == pytest.approx(ref[q], abs=1e-12), (name, q)
        assert ev.measures[name].mean == pytest.approx(np.mean(list(ref.values())), abs=1e-12)


@pytest.mark.parametrize("seed, style", [(4, "mixed"), (5, "mixed"), (8, "distinct"), (9, "unsorted")])
def test_cut_run_equals_full_rank_consistent_run(seed, style):
    run, qrels = _random_case(seed, n_docs=60, style=style)
    full = {q: {d: float(len(s) - i) for i, d in enumerate(_ranking(s))} for q, s in run.items()}
    direct = pytrec_eval.RelevanceEvaluator(qrels, {"recall_5", "ndcg_cut_10", "P_3", "map_cut_7"}).evaluate(full)
    ev = evaluate_run(run, qrels, ["recall@5", "ndcg@10", "precision@3", "map@7"], n_resamples=0)
    for name, trec in [("recall@5", "recall_5"), ("ndcg@10", "ndcg_cut_10"), ("precision@3", "P_3"), ("map@7", "map_cut_7")]:
        assert ev.per_query(name) == {q: direct[q][trec] for q in sorted(qrels)}


def test_ties_break_by_doc_id_ascending_not_trec_eval_order():
    qrels = {"q": {"b": 1}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}
    assert mrr_at_k(run, qrels, 10) == 0.5  # a, b, c
    direct = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)["q"]["recip_rank"]
    assert direct == 0.5  # trec_eval's own order c, b, a gives the same here ...
    qrels = {"q": {"a": 1}}
    assert mrr_at_k(run, qrels, 10) == 1.0
    assert pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)["q"]["recip_rank"] == 1 / 3  # ... not here


@pytest.mark.parametrize("arrival", ["sorted", "unsorted"])
@pytest.mark.parametrize("filler", [0, 30])
def test_scores_equal_in_single_precision_keep_double_precision_order(arrival, filler):
    # trec_eval compares scores as 32-bit floats: 1 + 1e-9 and 1 would tie there and 'b' would come first.
    scores = {"b": 1.0, "a": 1.0 + 1e-9, **{f"z{i:02d}": 0.5 - i / 100 for i in range(filler)}}
    items = sorted(scores.items(), key=lambda kv: -kv[1])
    run = {"q": dict(items if arrival == "sorted" else items[::-1])}
    assert pytrec_eval.RelevanceEvaluator({"q": {"a": 1}}, {"recip_rank"}).evaluate(run)["q"]["recip_rank"] == 0.5
    assert mrr_at_k(run, {"q": {"a": 1}}, 10) == 1.0
    assert recall_at_k(run, {"q": {"a": 1}}, 1) == 1.0
    assert rank_consistent_run(run)["q"]["a"] > rank_consistent_run(run)["q"]["b"]


def test_tie_straddling_the_cut():
    qrels = {"q": {"a": 1, "z": 1}}
    run = {"q": {"x": 3.0, "z": 2.0, "y": 2.0, "a": 2.0, "w": 1.0}}  # sorted by score, tie group spans k=2
    assert recall_at_k(run, qrels, 2) == 0.5  # x, a
    assert recall_at_k(run, qrels, 3) == 0.5  # x, a, y
    assert recall_at_k(run, qrels, 4) == 1.0


def test_unsorted_cut_with_infinite_scores_and_boundary_ties():
    qrels = {"q": {"e": 1, "c": 1}, "r": {"y": 1}}
    run = {"q": {"a": -math.inf, "e": 0.5, "b": 2.0, "d": 0.5, "c": -math.inf, "f": 1.0},
           "r": {"z": -math.inf, "y": -math.inf, "x": 3.0, "w": 1.0}}
    ev = evaluate_run(run, qrels, ["recall@3", "recall@4", "mrr@3", "mrr@4"], n_resamples=0)
    assert ev.per_query("recall@3") == {"q": 0.0, "r": 1.0}  # q: b f d | r: x w y
    assert ev.per_query("recall@4") == {"q": 0.5, "r": 1.0}  # q: b f d e
    assert ev.per_query("mrr@3") == {"q": 0.0, "r": 1 / 3}
    assert ev.per_query("mrr@4") == {"q": 0.25, "r": 1 / 3}


def test_mrr_is_cut_at_k():
    qrels = {"q": {"c": 1}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    assert mrr_at_k(run, qrels, 2) == 0.0
    assert mrr_at_k(run, qrels, 3) == pytest.approx(1 / 3)


def test_helpers_and_relevance_level():
    qrels = {"q": {"a": 1, "b": 3}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    assert recall_at_k(run, qrels, 1) == 0.5
    assert recall_at_k(run, qrels, 1, relevance_level=2) == 0.0
    assert precision_at_k(run, qrels, 2) == 1.0
    assert precision_at_k(run, qrels, 4) == 0.5
    ideal = 3 + 1 / math.log2(3)
    assert ndcg_at_k(run, qrels, 2) == pytest.approx((1 + 3 / math.log2(3)) / ideal)
    assert ndcg_at_k(run, qrels, 2, relevance_level=2) == pytest.approx((1 + 3 / math.log2(3)) / ideal)  # gains = grades
    assert map_at_k(run, qrels, 2) == 1.0
    assert map_at_k(run, qrels, 2, relevance_level=2) == 0.5


def test_single_measure_name_is_accepted():
    assert evaluate_run({"q": {"a": 1.0}}, {"q": {"a": 1}}, "recall@1", n_resamples=0).means() == {"recall@1": 1.0}


def test_empty_ranking_scores_zero():
    ev = evaluate_run({"q1": {}, "q2": {"a": 1.0}}, {"q1": {"a": 1}, "q2": {"a": 1}}, ["recall@5", "mrr@5"], n_resamples=0)
    assert ev.per_query("recall@5") == {"q1": 0.0, "q2": 1.0}
    assert ev.means() == {"recall@5": 0.5, "mrr@5": 0.5}


def test_bootstrap_over_queries():
    run, qrels = _random_case(6)
    ev = evaluate_run(run, qrels, ["recall@5", "ndcg@10"], n_resamples=300, seed=2)
    matrix = np.array([ev.measures["recall@5"].per_query, ev.measures["ndcg@10"].per_query]).T
    assert [ev.measures[n].ci95 for n in ("recall@5", "ndcg@10")] == bootstrap_intervals(matrix, n_resamples=300, seed=2)
    assert evaluate_run(run, qrels, ["recall@5"], n_resamples=0).measures["recall@5"].ci95 is None


def test_result_is_plain_data():
    ev = evaluate_run({"q": {"a": 1.0}}, {"q": {"a": 1}}, ["recall@1"], n_resamples=10)
    again = type(ev).model_validate_json(ev.model_dump_json())
    assert again.means() == ev.means() and again.query_ids == ("q",)
    with pytest.raises(KeyError, match="did you mean 'recall@1'"):
        ev.per_query("recall@10")


def test_rank_helpers():
    assert rank_candidates({"b": 1.0, "a": 1.0, "c": 2.0, "d": -1.0}) == ["c", "a", "b", "d"]
    untied = {"x": 2.0, "y": 1.0}
    out = rank_consistent_run({"q": {"b": 0.0, "a": -0.0}, "r": untied})
    assert out["q"] == {"a": 2.0, "b": 1.0} and out["r"] is untied
    unsorted_untied = {"y": 1.0, "x": 2.0}
    assert rank_consistent_run({"r": unsorted_untied})["r"] == {"x": 2.0, "y": 1.0}
    assert run_from_rankings({"q": ["b", "a"], "r": []}) == {"q": {"b": 2.0, "a": 1.0}, "r": {}}


@pytest.mark.parametrize("run, qrels, measures, message", [
    ({"q": {"a": 1.0}}, {"q": {"a": 1}, "r": {"a": 1}}, ["recall@1"], r"have no ranking: \['r'\]"),
    ({"q": {"a": 1.0}, "s": {}}, {"q": {"a": 1}}, ["recall@1"], r"have no qrels: \['s'\]"),
    ({"q": {"a": 1.0}}, {"q": {"a": 0}}, ["recall@1"], "field 'q': no relevant document"),
    ({"q": {"a": 1.0}}, {"q": {}}, ["recall@1"], "field 'q': no relevant document"),
    ({"q": {"a": 1.0}}, {"q": {"a": 1.5}}, ["recall@1"], "field 'q': grade of document 'a' is 1.5"),
    ({"q": {"a": 1.0}}, {"q": {"a": True}}, ["recall@1"], "grade of document 'a' is True"),
    ({"q": {"a": 1.0, "b": float("nan")}}, {"q": {"a": 1}}, ["recall@1"], "field 'q': score of document 'b' is NaN"),
    ({"q": {"a": "high"}}, {"q": {"a": 1}}, ["recall@1"], "score of document 'a' is 'high'"),
    ({"q": {"a": 1.0, 7: 0.5}}, {"q": {"a": 1}}, ["recall@1"], "document id 7 is not a string"),
    ({"q": {"a": 1.0}}, {"q": {"a": 1}}, ["recall@0"], "k must be a positive integer"),
    ({"q": {"a": 1.0}}, {"q": {"a": 1}}, ["ndcg@-3"], "k must be a positive integer"),
    ({"q": {"a": 1.0}}, {"q": {"a": 1}}, ["mmr@10"], "did you mean 'mrr'"),
    ({"q": {"a": 1.0}}, {"q": {"a": 1}}, ["recall"], "not of the form"),
    ({"q": {"a": 1.0}}, {"q": {"a": 1}}, [], "no measures"),
    ({}, {}, ["recall@1"], "qrels are empty"),
])
def test_bad_input_names_the_offender(run, qrels, measures, message):
    with pytest.raises(ValueError, match=message):
        evaluate_run(run, qrels, measures, n_resamples=0)


def test_nan_error_lists_every_offender():
    with pytest.raises(InputError) as info:
        evaluate_run({"q": {"a": float("nan")}, "r": {"b": float("nan")}}, {"q": {"a": 1}, "r": {"b": 1}}, ["recall@1"])
    assert [p.field for p in info.value.problems] == ["q", "r"]


def test_rankings_refuse_duplicates_and_strings():
    with pytest.raises(InputError, match="document 'a' ranked twice"):
        run_from_rankings({"q": ["a", "b", "a"]})
    with pytest.raises(InputError, match="got a string"):
        run_from_rankings({"q": "abc"})
