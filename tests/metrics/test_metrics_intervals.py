"""Intervals: Wilson against its closed form, bootstraps against a direct loop over the same draws."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lemmata.core.errors import InputError
from lemmata.metrics import intervals
from lemmata.metrics.intervals import (
    bootstrap_interval,
    bootstrap_intervals,
    cluster_bootstrap_interval,
    cluster_bootstrap_intervals,
    paired_bootstrap_interval,
    wilson_interval,
)


def _reference_cluster_bootstrap(values, clusters, n_resamples, seed, confidence=0.95):
    """The paper's definition written as a plain loop, consuming the generator like the vectorised code."""
    labels = sorted(set(clusters))
    members = {c: [v for v, k in zip(values, clusters) if k == c] for c in labels}
    rng = np.random.default_rng(seed)
    estimates = []
    for _ in range(n_resamples):
        drawn = rng.integers(0, len(labels), size=len(labels))
        rows = [v for i in drawn for v in members[labels[i]]]
        estimates.append(sum(rows) / len(rows))
    estimates.sort()
    alpha = 1 - confidence
    return estimates[int(alpha / 2 * (n_resamples - 1))], estimates[int((1 - alpha / 2) * (n_resamples - 1))]


def test_wilson_matches_closed_form_and_bounds():
    for s, n in [(0, 1), (1, 1), (6, 200), (74, 200), (199, 200), (5, 71)]:
        lo, hi = wilson_interval(s, n)
        p, z = s / n, 1.96
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        assert lo == pytest.approx(max(0.0, centre - half), abs=1e-15)
        assert hi == pytest.approx(min(1.0, centre + half), abs=1e-15)
        assert 0.0 <= lo <= p <= hi <= 1.0


def test_wilson_z_widens_interval():
    narrow, wide = wilson_interval(30, 100, z=1.0), wilson_interval(30, 100, z=2.576)
    assert wide[0] < narrow[0] and wide[1] > narrow[1]


@pytest.mark.parametrize("args, message", [
    ((1, 0), "total must be a positive count"),
    ((-1, 5), "successes must lie in"),
    ((6, 5), "successes must lie in"),
    ((1.5, 5), "successes must be an integer"),
    ((True, 5), "successes must be an integer"),
    ((1, 5, 0.0), "z must be a positive"),
    ((1, 5, float("nan")), "z must be a positive"),
])
def test_wilson_rejects_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        wilson_interval(*args)


def test_cluster_bootstrap_equals_direct_loop():
    rng = np.random.default_rng(3)
    clusters = [f"p{int(c)}" for c in rng.integers(0, 15, size=60)]
    values = [float(v) for v in rng.random(60) < 0.3]
    for seed in (0, 7):
        assert cluster_bootstrap_interval(values, clusters, n_resamples=300, seed=seed) == pytest.approx(
            _reference_cluster_bootstrap(values, clusters, 300, seed), abs=1e-12)


def test_cluster_bootstrap_independent_of_block_size(monkeypatch):
    rng = np.random.default_rng(4)
    clusters = rng.integers(0, 40, size=100).astype(str)
    values = rng.random(100)
    whole = cluster_bootstrap_interval(values, clusters, n_resamples=500, seed=2)
    monkeypatch.setattr(intervals, "_DRAWS_PER_BLOCK", 97)  # forces blocks of two resamples
    assert cluster_bootstrap_interval(values, clusters, n_resamples=500, seed=2) == whole


def test_cluster_bootstrap_columns_share_resamples():
    rng = np.random.default_rng(5)
    clusters = rng.integers(0, 20, size=50).astype(str)
    matrix = (rng.random((50, 3)) < 0.4).astype(float)
    together = cluster_bootstrap_intervals(matrix, clusters, n_resamples=400, seed=9)
    alone = [cluster_bootstrap_interval(matrix[:, j], clusters, n_resamples=400, seed=9) for j in range(3)]
    assert together == alone


def test_cluster_bootstrap_is_seeded_and_contains_estimate():
    rng = np.random.default_rng(6)
    clusters = rng.integers(0, 30, size=90).astype(str)
    values = (rng.random(90) < 0.25).astype(float)
    a = cluster_bootstrap_interval(values, clusters, seed=1)
    assert a == cluster_bootstrap_interval(values, clusters, seed=1)
    assert a != cluster_bootstrap_interval(values, clusters, seed=2)
    assert a[0] <= values.mean() <= a[1]


def test_cluster_bootstrap_wider_than_item_bootstrap_for_correlated_clusters():
    # 20 papers whose gaps all agree: the effective sample size is the number of papers.
    clusters = [f"p{i}" for i in range(20) for _ in range(10)]
    values = [float(i % 2) for i in range(20) for _ in range(10)]
    lo_c, hi_c = cluster_bootstrap_interval(values, clusters)
    lo_i, hi_i = bootstrap_interval(values)
    assert hi_c - lo_c > 2 * (hi_i - lo_i)


def test_item_bootstrap_matches_singleton_clusters():
    values = np.random.default_rng(8).random(40)
    ids = [f"q{i:02d}" for i in range(40)]  # sorted labels keep item order
    assert bootstrap_interval(values, seed=4) == cluster_bootstrap_interval(values, ids, seed=4)
    assert bootstrap_intervals(np.stack([values, 1 - values], axis=1), seed=4)[0] == bootstrap_interval(values, seed=4)


def test_paired_bootstrap_is_bootstrap_of_differences():
    rng = np.random.default_rng(10)
    a, b = rng.random(30), rng.random(30)
    assert paired_bootstrap_interval(a, b, seed=3) == bootstrap_interval(a - b, seed=3)
    lo, hi = paired_bootstrap_interval(a, a, seed=3)
    assert lo == hi == 0.0


def test_confidence_level_nests_intervals():
    values = np.random.default_rng(11).random(200)
    lo90, hi90 = bootstrap_interval(values, confidence=0.90)
    lo99, hi99 = bootstrap_interval(values, confidence=0.99)
    assert lo99 <= lo90 <= hi90 <= hi99


@pytest.mark.parametrize("call, message", [
    (lambda: bootstrap_interval([]), "empty"),
    (lambda: bootstrap_interval([1.0, float("nan")]), "item 1"),
    (lambda: bootstrap_interval([1.0], n_resamples=0), "n_resamples"),
    (lambda: bootstrap_interval([1.0], confidence=1.0), "confidence"),
    (lambda: bootstrap_interval([1.0], seed=-1), "seed"),
    (lambda: cluster_bootstrap_interval([1.0, 0.0], ["a"]), "one label per item"),
    (lambda: cluster_bootstrap_interval([1.0, 0.0], ["a", ""]), r"item\(s\) \[1\]"),
    (lambda: cluster_bootstrap_interval([1.0, 0.0], ["a", None]), r"item\(s\) \[1\]"),
    (lambda: paired_bootstrap_interval([1.0, 0.0], [1.0]), "differ in length"),
    (lambda: paired_bootstrap_interval([1.0, 0.0], [1.0, float("inf")]), "b: non-finite value"),
])
def test_bootstrap_rejects_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_nan_error_is_an_input_error():
    with pytest.raises(InputError):
        cluster_bootstrap_interval([0.0, float("nan")], ["a", "b"])
