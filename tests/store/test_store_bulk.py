"""Adding many results at once stores what adding them one by one stores, and the seal ledger stays one chain."""

from __future__ import annotations

import pytest

from lemmata.core.errors import LemmataError
from lemmata.formats.results import FrozenTuple, ModelInfo, Score, make_result
from lemmata.space.rows import ROW_SUMMARY
from lemmata.store import Store
from lemmata.store.ledger import SealLedger


def _result(i: int, *, items: int = 3):
    values = [float((i + j) % 2) for j in range(items)]
    return make_result(
        kind="scored", benchmark="mathnet-retrieve", track="hard",
        frozen=FrozenTuple(dataset_release="mathnet-retrieve-1.0.0", split="qrels/hard", retrieval_artifact=None,
                           scoring_artifact="lemmata-retrieval/1", date="2026-11-21"),
        submission_sha256=f"{i:064x}", model=ModelInfo(name=f"retriever-{i}"),
        main=Score(metric="recall@5", value=sum(values) / items, total=items),
        items=[{"item_id": f"q{j}", "recall@5": v} for j, v in enumerate(values)],
        scored_at="2026-11-21T10:00:00+00:00")


def test_bulk_and_one_by_one_store_the_same_bytes_rows_and_ledger(tmp_path):
    results = [_result(i) for i in range(5)]
    one, bulk = Store(tmp_path / "one", row_summary=ROW_SUMMARY), Store(tmp_path / "bulk", row_summary=ROW_SUMMARY)
    for r in results:
        one.add_result(r)
    assert bulk.add_results(results[:2]) == 2
    assert bulk.add_results(results) == 3  # the first two are kept as they are
    assert bulk.add_results(results) == 0
    for r in results:
        assert bulk.result_path(r).read_bytes() == one.result_path(r).read_bytes()
    assert bulk.result_rows() == one.result_rows()  # index rows and their row summaries
    assert bulk.verify_files() == []
    # the ledger as a fresh reader sees it: one chain, each result with its seal, in the order added
    assert SealLedger(bulk.results_dir).seals() == SealLedger(one.results_dir).seals() == {
        r.result_id: r.sealed_sha256 for r in results}
    ledger = "seals.ledger.jsonl"
    assert (bulk.results_dir / ledger).read_bytes() == (one.results_dir / ledger).read_bytes()
    bulk.add_result(_result(9))  # a single add after a bulk one continues the same chain
    assert SealLedger(bulk.results_dir).seals()[_result(9).result_id] == _result(9).sealed_sha256


@pytest.mark.parametrize("spoil", ["unsealed", "edited"])
def test_a_result_that_is_not_finalized_stores_nothing(tmp_path, spoil):
    good = _result(1)
    bad = _result(2)
    bad = bad.model_copy(update={"sealed_sha256": None} if spoil == "unsealed" else {"model": ModelInfo(name="x")})
    store = Store(tmp_path, row_summary=ROW_SUMMARY)
    with pytest.raises(LemmataError, match="finalized"):
        store.add_results([good, bad])
    assert not store.result_path(good).exists()
    assert store.result_rows() == []
    assert SealLedger(store.results_dir).seals() == {}
