"""Formalization metrics: correctness, pass@k (edge cases, against the binomial formula) and paired comparisons."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lemmata.core.errors import InputError
from lemmata.metrics.correctness import (
    correctness_report,
    paired_comparison,
    pass_at_k,
    pass_at_k_summary,
)
from lemmata.metrics.intervals import bootstrap_interval, paired_bootstrap_interval, wilson_interval


def v(i, compiles, faithful, group=None):
    out = {"item_id": f"it{i}", "compiles": compiles, "faithful": faithful}
    if group:
        out["group"] = group
    return out


def test_correctness_is_compiles_and_faithful():
    rows = [v(0, "yes", "yes", "a"), v(1, "yes", "no", "a"), v(2, "no", "yes", "b"), v(3, "yes", "uncertain", "b"),
            v(4, "pending", "not_evaluable", "b"), v(5, "yes", "pending", "b"), v(6, "pending", "yes", "a")]
    r = correctness_report(rows)
    assert (r.correctness.count, r.correctness.total, r.correctness.pending) == (1, 7, 2)
    assert r.correctness.wilson95 == wilson_interval(1, 7)
    assert (r.compile_rate.count, r.compile_rate.pending) == (4, 2)
    assert (r.faithful_given_compiles.count, r.faithful_given_compiles.total, r.faithful_given_compiles.pending) == (1, 4, 1)
    assert {g: (x.count, x.total, x.pending) for g, x in r.correctness.per_domain.items()} == {"a": (1, 3, 1), "b": (0, 4, 1)}
    assert r.correctness.domain_macro == pytest.approx((1 / 3 + 0) / 2)
    assert r.correctness.paper_cluster_bootstrap95 is None


def test_correctness_without_groups_and_nothing_compiling():
    r = correctness_report([v(0, "no", "not_evaluable"), v(1, "abstain", "no")])
    assert r.correctness.per_domain == {} and r.correctness.domain_macro is None
    assert r.faithful_given_compiles is None


@pytest.mark.parametrize("rows, message", [
    ([], "nothing to score"),
    ([v(0, "yes", "yes"), v(0, "no", "no")], "duplicate item_id 'it0'"),
    ([v(0, "compiled", "yes")], r"verdicts\[0\] \(it0\), field 'compiles'"),
    ([v(0, "yes", "yes", "a"), v(1, "yes", "yes")], r"not for \['it1'\]"),
])
def test_correctness_bad_input(rows, message):
    with pytest.raises(ValueError, match=message):
        correctness_report(rows)


@pytest.mark.parametrize("n, c, k", [(n, c, k) for n in (1, 2, 5, 13) for c in range(n + 1) for k in range(1, n + 1)])
def test_pass_at_k_equals_binomial_formula(n, c, k):
    exact = 1.0 - math.comb(n - c, k) / math.comb(n, k)
    assert pass_at_k(n, c, k) == pytest.approx(exact, abs=1e-12)


def test_pass_at_k_edge_cases():
    assert pass_at_k(8, 8, 1) == 1.0 and pass_at_k(8, 8, 8) == 1.0  # n = c
    assert pass_at_k(8, 0, 1) == 0.0 and pass_at_k(8, 0, 8) == 0.0  # c = 0
    assert pass_at_k(8, 1, 8) == 1.0  # k = n with one success
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)  # pass@1 = c / n
    big = pass_at_k(2000, 3, 128)  # the product form does not overflow where C(n, k) is astronomically large
    assert big == pytest.approx(1 - math.comb(1997, 128) / math.comb(2000, 128), rel=1e-12)


@pytest.mark.parametrize("args, message", [
    ((4, 1, 5), r"k \(5\) exceeds the number of attempts n \(4\)"),
    ((4, 1, 0), "k must be at least 1"),
    ((4, 1, -2), "k must be at least 1"),
    ((0, 0, 1), "n must be at least 1"),
    ((4, 5, 1), r"c must lie in \[0, n=4\]"),
    ((4, -1, 1), "c must lie in"),
    ((4.0, 1, 1), "n must be an integer"),
    ((4, 1, True), "k must be an integer"),
])
def test_pass_at_k_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        pass_at_k(*args)


def test_pass_at_k_summary():
    items = [{"item_id": "a", "n": 8, "c": 2, "group": "ch2"}, {"item_id": "b", "n": 8, "c": 0, "group": "ch2"},
             {"item_id": "c", "n": 8, "c": 8, "group": "ch3"}, {"item_id": "d", "n": 8, "c": 1, "pending": 3, "group": "ch3"}]
    s = pass_at_k_summary(items, 4, n_resamples=500, seed=3)
    expected = {i["item_id"]: pass_at_k(i["n"], i["c"], 4) for i in items}
    assert s.per_item == expected
    assert s.mean == pytest.approx(np.mean(list(expected.values())))
    assert s.ci95 == bootstrap_interval([expected[k] for k in "abcd"], n_resamples=500, seed=3)
    assert {g: (m.n_items, m.mean) for g, m in s.per_group.items()} == {
        "ch2": (2, pytest.approx((expected["a"] + expected["b"]) / 2)), "ch3": (2, pytest.approx((1 + expected["d"]) / 2))}
    assert s.pending_items == 1


@pytest.mark.parametrize("items, k, message", [
    ([{"item_id": "a", "n": 3, "c": 1}], 4, "field 'a': k"),
    ([{"item_id": "a", "n": 3, "c": 4}], 1, r"items\[0\] \(a\)"),
    ([{"item_id": "a", "n": 3, "c": 2, "pending": 2}], 1, "exceeds n"),
    ([{"item_id": "a", "n": 0, "c": 0}], 1, "greater than 0"),
    ([{"item_id": "a", "n": 3, "c": 1}, {"item_id": "a", "n": 3, "c": 1}], 1, "duplicate item_id 'a'"),
    ([{"item_id": "a", "n": 3, "c": 1}], 0, "k must be at least 1"),
    ([], 1, "nothing to score"),
])
def test_pass_at_k_summary_bad_input(items, k, message):
    with pytest.raises(ValueError, match=message):
        pass_at_k_summary(items, k)


def test_paired_comparison_binary():
    a = {"i1": True, "i2": True, "i3": False, "i4": True, "i5": False}
    b = {"i1": True, "i2": False, "i3": False, "i4": False, "i5": True}
    c = paired_comparison(a, b, n_resamples=400, seed=1)
    assert (c.mean_a, c.mean_b) == (0.6, 0.4) and c.difference == pytest.approx(0.2)
    assert c.contingency.model_dump() == {"both": 1, "only_a": 2, "only_b": 1, "neither": 1}
    ids = sorted(a)
    assert c.paired_bootstrap95 == paired_bootstrap_interval([a[i] for i in ids], [b[i] for i in ids], n_resamples=400, seed=1)


def test_paired_comparison_fractional_outcomes_have_no_contingency():
    c = paired_comparison({"x": 0.5, "y": 1.0}, {"x": 0.25, "y": 0.0}, n_resamples=0)
    assert c.contingency is None and c.difference == pytest.approx(0.625) and c.paired_bootstrap95 is None


@pytest.mark.parametrize("a, b, message", [
    ({}, {}, "no items"),
    ({"x": 1, "y": 0}, {"x": 1}, r"b: items missing here but present in a: \['y'\]"),
    ({"x": float("nan")}, {"x": 1}, "a, field 'x'"),
    ({"x": "maybe"}, {"x": 1}, "'maybe' is not a verdict"),
    ({"x": None}, {"x": 1}, "a, field 'x'"),
])
def test_paired_comparison_bad_input(a, b, message):
    with pytest.raises(InputError if a else ValueError, match=message):
        paired_comparison(a, b)
