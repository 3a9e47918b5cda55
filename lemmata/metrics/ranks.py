"""Rank ranges: how far each entry's rank could move when the benchmark's items are resampled.

A board ranks by point estimates, but two systems one item apart are not
distinguishable on a few hundred items (MTEB's users found most adjacent ranks
inseparable). A *paired* bootstrap over items redraws the item set with
replacement, recomputes every entry's mean on the same draw (so the item-level
correlation between systems is kept) and ranks them; an entry's rank range is
the percentile interval of its ranks over the draws, with the order-statistic
convention of :mod:`lemmata.metrics.intervals`. Entries whose ranges overlap are
*tied*: the data do not order them at that confidence.

Entries without per-item scores (a paper's reported row) take part as fixed
competitors — their score is held at its value in every draw, so every range is
on the scale of the official rank — but get no range of their own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from lemmata.metrics.intervals import DEFAULT_SEED, check_resampling, percentile_bounds

#: resamples behind a board's rank ranges (ranks are integers: 1,000 draws pin the 2.5% and 97.5% order statistics)
RANK_RESAMPLES = 1000
#: per-item keys read, after the main metric's own name, as an item's score (booleans count 1 and 0)
OUTCOME_KEYS = ("correct", "right", "score", "value")
_ID_KEYS = ("item_id", "instance_id", "query_id")
_DRAWS_PER_BLOCK = 1 << 21


def rank_ranges(values: Sequence[Sequence[float]] | np.ndarray, *, fixed: Sequence[float] = (),
                higher_is_better: bool = True, n_resamples: int = RANK_RESAMPLES, seed: int = DEFAULT_SEED,
                confidence: float = 0.95) -> list[tuple[int, int]]:
    """The rank range of each column of ``values`` (items x entries), under a paired bootstrap over items.

    A rank is 1 + the number of entries strictly better in that draw (ties share a rank, as on the board);
    ``fixed`` are the scores of entries without per-item data, held constant in every draw. Seeded: the
    same inputs give the same ranges.

    >>> a = [1] * 51 + [0] * 49          # 51 of 100 items
    >>> b = [1] * 50 + [0] * 50          # one item fewer: never ahead, but level whenever item 51 is not drawn
    >>> rank_ranges(np.array([a, b]).T)
    [(1, 1), (1, 2)]
    >>> clear = [1] * 90 + [0] * 10
    >>> rank_ranges(np.array([clear, a, b]).T)
    [(1, 1), (2, 2), (2, 3)]
    >>> rank_ranges(np.array([a]).T, fixed=[0.99, 0.0])   # a reported row at 0.99 always ranks above
    [(2, 2)]
    """
    check_resampling(n_resamples, confidence, seed)
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"values must be a non-empty items x entries matrix, got shape {arr.shape}")
    held = np.asarray(fixed, dtype=np.float64).ravel()
    if not np.isfinite(arr).all() or not np.isfinite(held).all():
        raise ValueError("values and fixed must be finite (an entry with a pending item has no rank range)")
    sign = -1.0 if higher_is_better else 1.0  # ranks count entries with a strictly smaller signed score
    n_items, n_entries = arr.shape
    rng = np.random.default_rng(seed)
    ranks = np.empty((n_resamples, n_entries), dtype=np.float64)
    held_signed = np.sort(sign * held)
    block = max(1, _DRAWS_PER_BLOCK // n_items)
    for start in range(0, n_resamples, block):
        rows = min(block, n_resamples - start)
        draws = rng.integers(0, n_items, size=(rows, n_items))
        flat = (draws + (np.arange(rows) * n_items)[:, None]).ravel()
        counts = np.bincount(flat, minlength=rows * n_items).reshape(rows, n_items).astype(np.float64)
        means = sign * (counts @ arr) / n_items  # (rows x entries), smaller is better
        ranks[start:start + rows] = _competition_ranks(means, held_signed)
    return [(int(lo), int(hi)) for lo, hi in percentile_bounds(ranks, confidence)]


def _competition_ranks(means: np.ndarray, held: np.ndarray) -> np.ndarray:
    """1 + the number of strictly smaller values in each row (and in ``held``), for every cell of ``means``.

    One stable argsort per row, then the first position of each run of equal values (vectorised; a row-wise
    ``searchsorted`` with unsorted needles is several times slower on large groups).
    """
    rows, n = means.shape
    order = np.argsort(means, axis=1, kind="stable")
    flat = (order + (np.arange(rows) * n)[:, None]).ravel()
    ordered = means.ravel()[flat].reshape(rows, n)
    starts = np.ones(ordered.shape, dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    first = np.where(starts, np.arange(n)[None, :], 0)
    np.maximum.accumulate(first, axis=1, out=first)
    if held.size:
        first = first + np.searchsorted(held, ordered.ravel(), side="left").reshape(rows, n)
    out = np.empty(rows * n, dtype=np.float64)
    out[flat] = first.ravel() + 1
    return out.reshape(rows, n)


def tie_counts(ranges: Sequence[tuple[int, int] | None]) -> list[int]:
    """For each range, how many of the other ranges overlap it (no range: ties with nothing).

    Two ranges ``[a, b]`` and ``[c, d]`` overlap when ``c <= b`` and ``a <= d``; counted with two sorted lists
    (every range starting at or before ``b``, less those ending before ``a``), so a group of thousands of
    entries costs milliseconds.

    >>> tie_counts([(1, 1), (2, 3), (2, 3), None, (3, 5)])
    [0, 2, 2, 0, 2]
    """
    import bisect

    present = [r for r in ranges if r is not None]
    lows = sorted(lo for lo, _ in present)
    highs = sorted(hi for _, hi in present)
    return [0 if r is None else bisect.bisect_right(lows, r[1]) - bisect.bisect_left(highs, r[0]) - 1
            for r in ranges]


def item_scores(items: Sequence[Mapping[str, Any]], metric: str, headline: float | None,
                tolerance: float = 1e-6) -> dict[str, float] | None:
    """Each item's score on the main metric, keyed by item id — or None when the items do not give the headline.

    The score is the item's field named like the metric (a ranking track's per-query ``ndcg@10``), else the
    first of :data:`OUTCOME_KEYS` every item carries. The scores count only when their mean reproduces
    ``headline`` (a macro-average over tasks, pass@k from attempt counts or a pending item do not), so a rank
    range never rests on numbers other than the ranked ones.

    >>> item_scores([{"item_id": "q1", "ndcg@10": 1.0}, {"item_id": "q2", "ndcg@10": 0.5}], "ndcg@10", 0.75)
    {'q1': 1.0, 'q2': 0.5}
    >>> item_scores([{"item_id": "a", "correct": True}, {"item_id": "b", "correct": False}], "correct", 0.5)
    {'a': 1.0, 'b': 0.0}
    >>> item_scores([{"item_id": "a", "correct": True}, {"item_id": "b", "correct": None}], "correct", 1.0) is None
    True
    >>> item_scores([{"item_id": "t1/q", "ndcg@10": 1.0}, {"item_id": "t2/q", "ndcg@10": 0.0}], "ndcg@10", 0.7) is None
    True
    """
    if headline is None or not items or not math.isfinite(headline):
        return None
    for key in (metric, metric.lower(), *OUTCOME_KEYS):
        out: dict[str, float] = {}
        for item in items:
            ident = next((item[k] for k in _ID_KEYS if item.get(k) is not None), None)
            value = item.get(key)
            if ident is None or value is None or (not isinstance(value, (int, float))) \
                    or (isinstance(value, float) and not math.isfinite(value)):
                out = {}
                break
            out[str(ident)] = float(value)
        if out and len(out) == len(items):
            mean = sum(out.values()) / len(out)
            return out if abs(mean - headline) <= tolerance else None
    return None
