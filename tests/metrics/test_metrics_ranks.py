"""Rank ranges under a paired bootstrap over items (lemmata.metrics.ranks) on constructed cases."""

from __future__ import annotations

import numpy as np
import pytest

from lemmata.metrics.ranks import item_scores, rank_ranges, tie_counts


def _entries(*correct: int, n: int = 100) -> np.ndarray:
    """Items x entries: entry j answers its first ``correct[j]`` of ``n`` items right."""
    return np.array([[1.0] * c + [0.0] * (n - c) for c in correct]).T


def test_two_entries_one_item_apart_tie_and_a_clear_winner_does_not():
    ranges = rank_ranges(_entries(90, 51, 50))
    ties = tie_counts(ranges)
    assert ranges[0] == (1, 1) and ties[0] == 0           # the clear winner: always first, tied with nobody
    assert ties[1] == 1 and ties[2] == 1                   # 51 vs 50 of 100: their ranges overlap
    assert ranges[1][0] == 2 and ranges[2][1] == 3


def test_lower_is_better_and_fixed_competitors_shift_every_rank():
    assert rank_ranges(_entries(90, 10), higher_is_better=False) == [(2, 2), (1, 1)]
    assert rank_ranges(_entries(90, 10), fixed=[0.999]) == [(2, 2), (3, 3)]


def test_seeded_and_deterministic_and_sensitive_to_the_seed():
    values = np.random.default_rng(3).random((40, 6))
    assert rank_ranges(values) == rank_ranges(values)
    wide = [rank_ranges(values, seed=s, n_resamples=30) for s in range(5)]
    assert any(w != wide[0] for w in wide[1:])  # the seed is really used


def test_tie_counts_agree_with_pairwise_overlap():
    rng = np.random.default_rng(1)
    ranges = [None if rng.random() < 0.1 else tuple(sorted(rng.integers(1, 40, size=2).tolist())) for _ in range(300)]
    pairwise = [0 if a is None else sum(1 for j, b in enumerate(ranges) if j != i and b is not None
                                        and b[0] <= a[1] and a[0] <= b[1]) for i, a in enumerate(ranges)]
    assert tie_counts(ranges) == pairwise


def test_refuses_what_it_cannot_rank():
    with pytest.raises(ValueError, match="non-empty"):
        rank_ranges(np.zeros((0, 2)))
    with pytest.raises(ValueError, match="finite"):
        rank_ranges(np.array([[np.nan, 1.0]]))
    with pytest.raises(ValueError, match="n_resamples"):
        rank_ranges(_entries(1, 2), n_resamples=0)


def test_item_scores_only_when_they_give_the_headline():
    items = [{"item_id": f"q{i}", "ndcg@10": v} for i, v in enumerate([1.0, 0.5, 0.0])]
    assert item_scores(items, "ndcg@10", 0.5) == {"q0": 1.0, "q1": 0.5, "q2": 0.0}
    assert item_scores(items, "ndcg@10", 0.6) is None             # a macro-average, say: no range
    assert item_scores(items, "ndcg@10", None) is None            # nothing computable yet
    assert item_scores([{"n": 4, "c": 1, "item_id": "x"}], "pass@k", 0.25) is None
