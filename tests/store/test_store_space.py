"""The store under the space: durable files only, rebuilt index, moderation replay, atomic rate limits."""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from lemmata.core.errors import LemmataError
from lemmata.core.hashing import sha256_bytes
from lemmata.formats.results import FrozenTuple, ModelInfo, Score, make_result
from lemmata.space.board import load_rows
from lemmata.space.rows import ROW_SUMMARY
from lemmata.store import DURABLE_FOLDERS, RateLimit, RateLimited, Store

HEADER = {"format": "lemmata-submission/1", "benchmark": "b", "track": "t", "model": {"name": "m"}}


def _result(sha: str, value: float | None = 0.5, *, model: str = "m", release: str = "b-1.0.0", pending: int = 0,
            kind: str = "scored", version: int = 1, supersedes: str | None = None):
    return make_result(
        kind=kind, benchmark="b", track="t",
        frozen=FrozenTuple(dataset_release=release, split="c/test", retrieval_artifact=None,
                           scoring_artifact="scorer-1", date="2026-11-21"),
        submission_sha256=sha, model=ModelInfo(name=model, url="https://example.org/m"),
        main=Score(metric="acc", value=value, interval=(0.4, 0.6) if value is not None else None,
                   interval_kind="wilson95", count=10, total=20),
        metrics={"acc": value, "detail": {"ground": 0.7, "list": [1, 2]}, "name": "x"},
        breakdowns={"domain": {"algebra": 0.25}}, items=[{"item_id": "i1", "verdict": "yes"}],
        pending=pending, status="pending_oracle" if pending else "complete", version=version, supersedes=supersedes)


def _submit(store: Store, payload: bytes, submitter: str = "ada", **kw):
    return store.add_submission(payload, filename="run.jsonl", benchmark="b", track="t", model_name="m",
                                submitter=submitter, header=HEADER, **kw)


def test_submission_sidecar_is_written_once_and_duplicates_create_nothing(tmp_path):
    store = Store(tmp_path)
    rec, created = _submit(store, b"one\n", contact="ada@example.org", notes="first try")
    assert created and rec.status == "queued" and rec.contact == "ada@example.org" and rec.notes == "first try"
    meta = json.loads(store.submission_meta_path(rec.sha256).read_text())
    assert meta["submitter"] == "ada" and meta["received_at"] == rec.received_at and meta["sha256"] == rec.sha256
    again, created_again = _submit(store, b"one\n", submitter="eve")
    assert not created_again and again.submitter == "ada"
    assert json.loads(store.submission_meta_path(rec.sha256).read_text())["submitter"] == "ada"
    assert len(store.list_submissions()) == 1


def test_row_summary_carries_what_the_board_shows(tmp_path):
    store = Store(tmp_path, row_summary=ROW_SUMMARY)
    stored, _ = store.add_result(_result("a" * 64))
    row = store.result_rows()[0]
    summary = json.loads(row["summary_json"])
    assert summary["main"]["interval"] == [0.4, 0.6] and summary["model"]["url"] == "https://example.org/m"
    assert summary["metrics"] == {"acc": 0.5, "detail.ground": 0.7}  # numbers only
    assert summary["frozen"]["dataset_release"] == "b-1.0.0" and summary["breakdowns"] == {"domain": {"algebra": 0.25}}


def test_generation_grows_with_every_change(tmp_path):
    store = Store(tmp_path)
    g0 = store.generation()
    rec, _ = _submit(store, b"x\n")
    g1 = store.generation()
    store.claim_next()
    g2 = store.generation()
    store.add_result(_result(rec.sha256))
    g3 = store.generation()
    assert g0 < g1 < g2 < g3


def test_reindex_rebuilds_everything_from_durable_files(tmp_path):
    """A store copied file-by-file (as from a Hub mirror) comes back with results, submissions, moderation."""
    src = Store(tmp_path / "src")
    scored, _ = _submit(src, b"scored\n")
    waiting, _ = _submit(src, b"waiting\n", submitter="bob")
    r1, _ = src.add_result(_result(scored.sha256, 0.5))
    r_hidden, _ = src.add_result(_result("c" * 64, 0.9, model="spam", kind="reported"))
    src.set_hidden(r_hidden.result_id, True, actor="admin-token", reason="spam")
    src.set_hidden(r1.result_id, True, actor="admin-token")
    src.set_hidden(r1.result_id, False, actor="admin-token", reason="mistake")
    src.set_status(scored.sha256, "scored")

    dst_root = tmp_path / "dst"
    for folder in DURABLE_FOLDERS:
        shutil.copytree(src.root / folder, dst_root / folder)
    assert not (dst_root / "leaderboard.sqlite3").exists()
    dst = Store(dst_root)  # a missing index over durable files is rebuilt on open, with a notice
    assert dst.recovery_notice is not None and "2 result(s)" in dst.recovery_notice
    assert {r["result_id"] for r in dst.result_rows()} == {r1.result_id}
    assert {r["result_id"] for r in dst.result_rows(include_hidden=True)} == {r1.result_id, r_hidden.result_id}
    assert dst.is_hidden(r_hidden.result_id) and not dst.is_hidden(r1.result_id)
    restored = {s.sha256: s for s in dst.list_submissions()}
    assert restored[scored.sha256].status == "scored" and restored[scored.sha256].received_at == scored.received_at
    assert restored[waiting.sha256].status == "queued" and restored[waiting.sha256].submitter == "bob"
    assert dst.reindex() == 0  # idempotent
    assert len(dst.list_submissions()) == 2


def test_pending_results_restore_as_pending_oracle(tmp_path):
    src = Store(tmp_path / "src")
    rec, _ = _submit(src, b"p\n")
    src.add_result(_result(rec.sha256, None, pending=3))
    dst_root = tmp_path / "dst"
    for folder in ("results", "submissions"):
        shutil.copytree(src.root / folder, dst_root / folder)
    dst = Store(dst_root)
    dst.reindex()
    assert dst.get_submission(rec.sha256).status == "pending_oracle"


def test_a_schema_1_database_gains_summaries_in_place(tmp_path):
    store = Store(tmp_path, row_summary=ROW_SUMMARY)
    stored, _ = store.add_result(_result("d" * 64))
    with sqlite3.connect(store.db_path) as conn:  # as written by the first store schema
        conn.execute("UPDATE results SET summary_json = NULL")
    reopened = Store(tmp_path, row_summary=ROW_SUMMARY)
    with sqlite3.connect(store.db_path) as conn:  # filled in on open, before anything is listed
        assert json.loads(conn.execute("SELECT summary_json FROM results").fetchone()[0])["main"]["value"] == 0.5
    assert json.loads(reopened.result_rows()[0]["summary_json"])["main"]["value"] == 0.5


def test_what_a_row_shows_is_the_space_s_to_say(tmp_path):
    """A store opened without a row summary (the CLI's) indexes none; the board still shows the row, and the
    space's store fills the summary in when it lists the row, without a restart."""
    cli = Store(tmp_path)
    stored, _ = cli.add_result(_result("e" * 64))
    assert cli.result_rows()[0]["summary_json"] is None
    (shown,) = load_rows(cli)
    assert shown.metrics == {"acc": 0.5, "detail.ground": 0.7} and shown.model_url == "https://example.org/m"
    space = Store(tmp_path, row_summary=ROW_SUMMARY)
    later, _ = cli.add_result(_result("f" * 64, 0.25))  # added by another process after the space opened
    summaries = {r["result_id"]: json.loads(r["summary_json"]) for r in space.result_rows()}
    assert summaries[later.result_id]["main"]["value"] == 0.25 and summaries[stored.result_id]["metrics"]["acc"] == 0.5
    assert load_rows(space) and load_rows(cli)[0] == load_rows(space)[0]


def test_rate_limit_is_atomic_under_parallel_uploads(tmp_path):
    store = Store(tmp_path)
    limit = RateLimit(max_count=3, window_s=3600)
    outcomes: list[str] = []
    lock = threading.Lock()

    def upload(i: int) -> None:
        try:
            _, created = _submit(store, f"file {i}\n".encode(), rate_limit=limit, rate_keys=["submitter:ada"])
            outcome = "created" if created else "duplicate"
        except RateLimited:
            outcome = "limited"
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=upload, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count("created") == 3 and outcomes.count("limited") == 9
    assert len(store.list_submissions()) == 3
    # refused uploads leave no file behind, and a duplicate of a stored file is answered without counting
    assert len(list(store.submissions_dir.glob("*.jsonl"))) == 3
    stored = store.list_submissions()[0]
    _, created = _submit(store, store.submission_bytes(stored.sha256), rate_limit=limit, rate_keys=["submitter:ada"])
    assert not created
    _, other = _submit(store, b"from bob\n", submitter="bob", rate_limit=limit, rate_keys=["submitter:bob"])
    assert other and store.rate_usage("submitter:ada", limit) == 3


def test_rate_limited_message_says_when_to_retry(tmp_path):
    store = Store(tmp_path)
    limit = RateLimit(max_count=1, window_s=86400)
    _submit(store, b"a\n", rate_limit=limit, rate_keys=["k"])
    with pytest.raises(RateLimited) as err:
        _submit(store, b"b\n", rate_limit=limit, rate_keys=["k"])
    assert "1 submission per 24 h" in str(err.value) and 0 < err.value.retry_after_s <= 86400


def test_requeue_for_rescore_and_unknown_ids(tmp_path):
    store = Store(tmp_path)
    rec, _ = _submit(store, b"r\n")
    store.set_status(rec.sha256, "failed", "boom")
    store.requeue(rec.sha256, actor="admin-token", reason="fixed")
    assert store.get_submission(rec.sha256).status == "queued"
    claimed = store.claim_next()
    with pytest.raises(LemmataError, match="being scored"):
        store.requeue(claimed.sha256, actor="admin-token")
    with pytest.raises(LemmataError, match="no submission"):
        store.requeue("f" * 64, actor="admin-token")
    with pytest.raises(LemmataError, match="no result"):
        store.set_hidden("f" * 64, True, actor="admin-token")


def test_interrupted_scoring_is_requeued(tmp_path):
    store = Store(tmp_path)
    rec, _ = _submit(store, b"i\n")
    assert store.claim_next().sha256 == rec.sha256
    reopened = Store(tmp_path)  # a restart: the claim is still marked 'scoring'
    assert reopened.get_submission(rec.sha256).status == "scoring"
    assert reopened.requeue_interrupted() == 1
    assert reopened.claim_next().sha256 == rec.sha256 and reopened.get_submission(rec.sha256).attempts == 2


def test_superseded_results_leave_the_board_but_stay_stored(tmp_path):
    store = Store(tmp_path)
    sha = sha256_bytes(b"v")
    first, _ = store.add_result(_result(sha, 0.4))
    second, _ = store.add_result(_result(sha, 0.6, version=2, supersedes=first.result_id))
    assert [r["result_id"] for r in store.result_rows()] == [second.result_id]
    assert store.result_ids_for_submission(sha) == [first.result_id, second.result_id]
    assert Path(store.root / store.result_rows(latest_only=False)[0]["path"]).exists()
