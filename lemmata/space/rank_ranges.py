"""Rank ranges of a board group: which rows are bootstrapped, and the cache that keeps the first render fast.

A group's ranges depend only on its ranked rows, and stored results never
change, so they are computed once per set of result ids and kept. Rows whose
per-item scores share the group's most common item set are resampled together
(:func:`lemmata.metrics.ranks.rank_ranges`); every other ranked row (a paper's
reported number, a row scored on another item set) is held at its value. A
large group is computed on a background thread: the board first shows its
ranks without ranges and re-renders when they arrive (:attr:`RankRangeCache.revision`
is part of the page's change token).
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from lemmata.metrics.ranks import RANK_RESAMPLES, rank_ranges

#: a :class:`lemmata.space.board.BoardRow` (named loosely: the board imports this module)
BoardRow = Any

Ranges = dict[str, tuple[int, int]]
#: entries x items x draws computed while the page waits (about 50 ms); a larger group is computed in the
#: background
SYNC_CELLS = 10_000_000
_MAX_GROUPS = 256


def _ranked(rows: Sequence[BoardRow]) -> list[BoardRow]:
    """The rows that get a rank (a finite score), as :func:`lemmata.space.board.rank_rows` decides."""
    return [r for r in rows if r.rank_value is not None and math.isfinite(r.rank_value)]


def group_key(rows: Sequence[BoardRow], higher_is_better: bool) -> tuple:
    """What a group's ranges depend on: its ranked result ids and the direction."""
    return (higher_is_better, tuple(sorted(r.result_id for r in _ranked(rows))))


def resampled(rows: Sequence[BoardRow]) -> list[BoardRow]:
    """The ranked rows whose per-item scores share the group's most common item set."""
    ranked = _ranked(rows)
    sets = Counter(r.item_scores[0] for r in ranked if r.item_scores is not None)
    if not sets:
        return []
    common = sets.most_common(1)[0][0]
    return [r for r in ranked if r.item_scores is not None and r.item_scores[0] == common]


def compute_ranges(rows: Sequence[BoardRow], higher_is_better: bool) -> Ranges:
    """``{result_id: (best, worst)}`` rank range of every resampled row of one group (others have none)."""
    boot = resampled(rows)
    if not boot:
        return {}
    taken = {r.result_id for r in boot}
    fixed = [r.rank_value for r in _ranked(rows) if r.result_id not in taken]
    matrix = np.array([r.item_scores[1] for r in boot], dtype=np.float64).T  # type: ignore[index]
    found = rank_ranges(matrix, fixed=fixed, higher_is_better=higher_is_better)
    return {r.result_id: span for r, span in zip(boot, found)}


class RankRangeCache:
    """Ranges by group key; small groups computed on the caller's thread, large ones on a background thread."""

    def __init__(self, sync_cells: int = SYNC_CELLS) -> None:
        self.sync_cells = sync_cells
        self.revision = 0
        self._done: dict[tuple, Ranges] = {}
        self._running: set[tuple] = set()
        self._lock = threading.Lock()

    def get(self, rows: Sequence[BoardRow], higher_is_better: bool) -> Ranges | None:
        """The group's ranges, or None while a background computation runs."""
        key = group_key(rows, higher_is_better)
        with self._lock:
            if key in self._done:
                return self._done[key]
            if key in self._running:
                return None
        boot = resampled(rows)
        if len(boot) * len(boot[0].item_scores[1] if boot else ()) * RANK_RESAMPLES <= self.sync_cells:
            return self._store(key, compute_ranges(rows, higher_is_better), background=False)
        with self._lock:
            self._running.add(key)
        snapshot = list(rows)
        threading.Thread(target=self._background, args=(key, snapshot, higher_is_better),
                         name="lemmata-rank-ranges", daemon=True).start()
        return None

    def _background(self, key: tuple, rows: list[BoardRow], higher_is_better: bool) -> None:
        try:
            ranges = compute_ranges(rows, higher_is_better)
        except (ValueError, MemoryError):  # the board keeps its ranks; the group shows no ranges
            ranges = {}
        self._store(key, ranges, background=True)

    def _store(self, key: tuple, ranges: Ranges, *, background: bool) -> Ranges:
        """Keep ``ranges``; a background result moves :attr:`revision`, so the page re-renders to show it."""
        with self._lock:
            if len(self._done) >= _MAX_GROUPS:
                self._done.clear()
            self._done[key] = ranges
            self._running.discard(key)
            self.revision += background
        return ranges


#: the cache a board built without a space's own uses (the CLI, tests): everything on the caller's thread
SYNC_CACHE = RankRangeCache(sync_cells=1 << 62)
