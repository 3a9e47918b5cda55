"""Rank ranges on the board: per-item scores kept in the row summary, one bootstrap per group, cached."""

from __future__ import annotations

import time

from lemmata.core.hashing import sha256_bytes
from lemmata.formats.results import FrozenTuple, ModelInfo, Score, make_result
from lemmata.space.board import BoardQuery, build_view, export_records, load_rows
from lemmata.space.rank_ranges import RankRangeCache
from lemmata.space.rows import ROW_SUMMARY
from lemmata.space.tables import render_board
from lemmata.store import Store

N = 100


def _result(name: str, correct: int, *, kind: str = "scored", items: bool = True):
    """A MathAtlas-shaped row: ``correct`` of ``N`` items right, per-item ``correct`` as its scorer stores it."""
    return make_result(
        kind=kind, benchmark="mathatlas", track="statements",
        frozen=FrozenTuple(dataset_release="mathatlas-1.0.0", split="statements/test", retrieval_artifact=None,
                           scoring_artifact="judge@v1", date="2026-11-20"),
        submission_sha256=sha256_bytes(name.encode()), model=ModelInfo(name=name),
        main=Score(metric="correct", value=correct / N, count=correct, total=N),
        items=[{"item_id": f"s{i:03d}", "correct": i < correct} for i in range(N)] if items else [])


def _store(tmp_path, summary=ROW_SUMMARY) -> Store:
    store = Store(tmp_path / "store", row_summary=summary)
    for r in (_result("clear-winner", 90), _result("fifty-one", 51), _result("fifty", 50),
              _result("paper", 70, kind="reported", items=False)):
        store.add_result(r)
    return store


def _rows(view):
    return {r.model_name: r for r in view.rows}


def test_one_item_apart_tie_a_clear_winner_does_not(tmp_path):
    view = build_view(load_rows(_store(tmp_path)), BoardQuery(benchmark="mathatlas", track="statements"))
    rows = _rows(view)
    assert rows["clear-winner"].rank == 1 and rows["clear-winner"].rank_range == (1, 1)
    assert rows["clear-winner"].ties == 0
    # the reported 0.70 has no items: held at its value, so the others rank below it, and it gets no range
    assert rows["paper"].rank_range is None and rows["paper"].rank == 2
    assert rows["fifty-one"].rank_range == (3, 3) and rows["fifty"].rank_range == (3, 4)
    assert rows["fifty-one"].ties == 1 and rows["fifty"].ties == 1
    html = render_board(view)
    assert "3–4 ≈" in html and "statistically tied" in html and ">1–1</span>" in html
    exported = {r["model"]: r for r in export_records(view)}
    assert (exported["fifty"]["rank_best"], exported["fifty"]["rank_worst"], exported["fifty"]["tied_with"]) == (3, 4, 1)
    assert exported["paper"]["rank_best"] is None


def test_a_store_without_summaries_gets_the_same_ranges(tmp_path):
    """The CLI opens the store without the space's summary: rows are summarised from their files."""
    with_summary = _rows(build_view(load_rows(_store(tmp_path / "a")), BoardQuery(benchmark="mathatlas")))
    without = _rows(build_view(load_rows(_store(tmp_path / "b", summary=None)), BoardQuery(benchmark="mathatlas")))
    assert {k: r.rank_range for k, r in with_summary.items()} == {k: r.rank_range for k, r in without.items()}


def test_large_groups_are_computed_once_in_the_background(tmp_path):
    rows = load_rows(_store(tmp_path))
    cache = RankRangeCache(sync_cells=0)  # every group counts as large
    first = build_view(rows, BoardQuery(benchmark="mathatlas"), ranges=cache)
    assert not first.groups[0].ranges_ready and all(r.rank_range is None for r in first.rows)
    assert "rank ranges: computing" in render_board(first)
    deadline = time.monotonic() + 30
    while cache.revision == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert cache.revision == 1  # the page's change token moves, so it re-renders
    again = build_view(rows, BoardQuery(benchmark="mathatlas"), ranges=cache)
    assert again.groups[0].ranges_ready and _rows(again)["fifty"].rank_range == (3, 4)
    assert cache.revision == 1  # served from the cache: nothing recomputed
