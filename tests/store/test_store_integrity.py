"""Stored results are verified against their content hash whenever read: board rows, audit view, exports."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from lemmata.formats.results import FrozenTuple, ModelInfo, Score, make_result
from lemmata.space.audit import SubmissionCache, audited_result, render_audit
from lemmata.space.board import BoardQuery, build_view, export_records, load_rows, to_csv, to_json
from lemmata.space.rows import ROW_SUMMARY
from lemmata.space.tables import render_group
from lemmata.store import Store
from lemmata.store.integrity import ResultIntegrityError


def _result(sha: str, value: float, model: str, interval: tuple[float, float] | None = None):
    return make_result(
        kind="scored", benchmark="b", track="t",
        frozen=FrozenTuple(dataset_release="b-1.0.0", split="c/test", retrieval_artifact=None,
                           scoring_artifact="scorer-1", date="2026-11-21"),
        submission_sha256=sha, model=ModelInfo(name=model),
        main=Score(metric="acc", value=value, count=int(value * 20), total=20, interval=interval,
                   interval_kind="wilson95" if interval else None),
        metrics={"acc": value, "recall": 0.25}, items=[{"item_id": "i1", "verdict": "yes"}])


@pytest.fixture()
def store_with_two(tmp_path):
    store = Store(tmp_path)
    good, _ = store.add_result(_result("a" * 64, 0.5, "goodmodel"))
    bad, _ = store.add_result(_result("b" * 64, 0.25, "editedmodel"))
    return store, good, bad


def _edit_number(store: Store, result_id: str, keep_mtime: bool = False) -> None:
    """Change one number of a stored file, as someone with write access to the folder could."""
    path = store.results_dir / "b" / f"{result_id}.json"
    st = os.stat(path)
    doc = json.loads(path.read_text())
    doc["main"]["value"] = 0.95
    path.write_text(json.dumps(doc, indent=2))
    if keep_mtime:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _view(store: Store):
    return build_view(load_rows(store), BoardQuery(benchmark="b", track="t"))


def test_sound_files_read_as_data(store_with_two):
    store, good, bad = store_with_two
    assert store.get_result(good.result_id) == good
    assert [r["integrity"] for r in store.result_rows()] == [None, None]
    assert store.verify_files() == []
    assert [r.value for r in _view(store).rows] == [0.5, 0.25]


@pytest.mark.parametrize("keep_mtime", [False, True])
def test_an_edited_number_is_an_integrity_error_everywhere(store_with_two, keep_mtime):
    store, good, bad = store_with_two
    store.result_rows()  # both files checked and remembered as sound
    _edit_number(store, bad.result_id, keep_mtime=keep_mtime)

    # the store: reads raise, the row says why
    with pytest.raises(ResultIntegrityError, match="hashes to"):
        store.get_result(bad.result_id)
    with pytest.raises(ResultIntegrityError):
        store.results(benchmark="b")
    with pytest.raises(ResultIntegrityError):
        store.results_for_submission("b" * 64)
    rows = {r["result_id"]: r for r in store.result_rows()}
    assert rows[good.result_id]["integrity"] is None and "content hashes to" in rows[bad.result_id]["integrity"]
    assert [p.file for p in store.verify_files()] == [f"results/b/{bad.result_id}.json"]

    # the board: the row is listed by name, without numbers or rank, and says so
    view = _view(store)
    by_id = {r.result_id: r for r in view.rows}
    broken = by_id[bad.result_id]
    assert broken.value is None and broken.rank is None and broken.metrics == {} and broken.status == "integrity_error"
    assert by_id[good.result_id].rank == 1 and by_id[good.result_id].value == 0.5
    assert any("integrity check" in n for n in view.notices)
    html = render_group(view.groups[0], view.query.sort)
    assert "integrity error" in html and "0.95" not in html and "editedmodel" in html
    assert view.groups[0].frozen["dataset_release"] == "b-1.0.0"

    # the exports: left out, with a note in the JSON
    records = export_records(view)
    assert [r["result_id"] for r in records] == [good.result_id]
    csv_text = to_csv(records)
    assert bad.result_id not in csv_text and "0.95" not in csv_text and "editedmodel" not in csv_text
    doc = json.loads(to_json(view))
    assert [r["result_id"] for g in doc["groups"] for r in g["rows"]] == [good.result_id]
    assert doc["left_out"][0]["result_id"] == bad.result_id and "integrity error" in doc["left_out"][0]["reason"]

    # the audit view: says so, shows nothing of the file
    text = render_audit(store, SubmissionCache(store), bad.result_id, None)
    assert text.startswith("## Integrity error") and "0.95" not in text and "editedmodel" not in text
    assert audited_result(store, bad.result_id) is None
    assert "## goodmodel" in render_audit(store, SubmissionCache(store), good.result_id, None)


def test_a_first_mismatch_moves_the_generation_and_a_restored_file_reads_again(store_with_two):
    store, good, bad = store_with_two
    path = store.results_dir / "b" / f"{bad.result_id}.json"
    original = path.read_bytes()
    store.verify_files()
    g0 = store.generation()
    _edit_number(store, bad.result_id)
    store.verify_files()
    g1 = store.generation()
    assert g1 > g0  # caches keyed by the generation (board rows, exports) are dropped
    store.verify_files()
    assert store.generation() == g1  # the same mismatch is logged once
    assert any(e["action"] == "integrity_error" and e["target"] == bad.result_id for e in store.events())
    path.write_bytes(original)
    assert store.verify_files() == [] and store.generation() > g1
    assert store.get_result(bad.result_id) == bad


def test_a_consistent_rewrite_under_the_old_name_is_caught(store_with_two):
    """Recomputing result_id after the edit does not help: the file name and the index row still disagree."""
    store, good, bad = store_with_two
    path = store.results_dir / "b" / f"{bad.result_id}.json"
    forged = bad.model_copy(update={"main": bad.main.model_copy(update={"value": 0.95})}).finalized()
    path.write_text(forged.to_json())
    with pytest.raises(ResultIntegrityError, match="names result_id"):
        store.get_result(bad.result_id)


def test_an_edited_index_row_is_caught(store_with_two):
    """The index row is compared with the verified file: a number changed in SQLite is not shown either."""
    store, good, bad = store_with_two
    with sqlite3.connect(store.db_path) as conn:
        conn.execute("UPDATE results SET main_value = 0.99 WHERE result_id = ?", (bad.result_id,))
    fresh = Store(store.root)  # a new process: nothing remembered
    rows = {r["result_id"]: r for r in fresh.result_rows()}
    assert "main_value" in rows[bad.result_id]["integrity"] and rows[good.result_id]["integrity"] is None


def _forge_summary_in_another_process(db_path, result_id: str) -> None:
    """Edit one row's summary (its interval) and nothing else, from a separate process, as someone with write
    access to the SQLite file could; the result file and its fingerprint are left as they are."""
    script = ("import json, sqlite3, sys\n"
              "conn = sqlite3.connect(sys.argv[1])\n"
              "s = json.loads(conn.execute('SELECT summary_json FROM results WHERE result_id = ?', (sys.argv[2],))"
              ".fetchone()[0])\n"
              "s['main']['interval'] = [0.91, 0.99]\n"
              "conn.execute('UPDATE results SET summary_json = ? WHERE result_id = ?', (json.dumps(s), sys.argv[2]))\n"
              "conn.commit()\n")
    subprocess.run([sys.executable, "-c", script, str(db_path), result_id], check=True, timeout=60)


def test_an_index_only_summary_edit_is_never_shown(tmp_path):
    """A summary edited in SQLite alone (the file and its fingerprint unchanged) is an integrity error for the
    running board that already verified the row, for a freshly opened board, and in the exports; a store that
    cannot recompute summaries (the CLI's) shows the verified file's values, never the forged ones."""
    space = Store(tmp_path, row_summary=ROW_SUMMARY)
    good, _ = space.add_result(_result("a" * 64, 0.5, "goodmodel", interval=(0.4, 0.6)))
    bad, _ = space.add_result(_result("b" * 64, 0.25, "editedmodel", interval=(0.1, 0.4)))
    assert {r.result_id: r.interval for r in _view(space).rows}[bad.result_id] == (0.1, 0.4)  # verified, remembered
    assert space.verify_files() == []
    g0 = space.generation()
    _forge_summary_in_another_process(space.db_path, bad.result_id)

    # the running board: the verdict remembered for the unchanged file does not cover the changed row
    assert [p.file for p in space.verify_files()] == [f"results/b/{bad.result_id}.json"]
    assert space.generation() > g0  # caches keyed by the generation (board rows, API answers) are dropped
    for store in (space, Store(tmp_path, row_summary=ROW_SUMMARY)):  # and a board opened afresh
        by_id = {r.result_id: r for r in _view(store).rows}
        assert by_id[bad.result_id].status == "integrity_error" and by_id[bad.result_id].interval is None
        assert "summary" in by_id[bad.result_id].integrity and by_id[good.result_id].interval == (0.4, 0.6)
        doc = json.loads(to_json(_view(store)))
        assert "0.91" not in json.dumps(doc) and doc["left_out"][0]["result_id"] == bad.result_id

    # a store opened without the row summary cannot check one: the row shows what the verified file says
    cli = Store(tmp_path)
    assert all(r["summary_json"] is None for r in cli.result_rows())
    assert {r.result_id: r.interval for r in _view(cli).rows}[bad.result_id] == (0.1, 0.4)


def test_a_missing_or_unparsable_file_is_an_integrity_error(store_with_two):
    store, good, bad = store_with_two
    (store.results_dir / "b" / f"{bad.result_id}.json").write_text("{not json")
    with pytest.raises(ResultIntegrityError, match="not JSON"):
        store.get_result(bad.result_id)
    (store.results_dir / "b" / f"{good.result_id}.json").unlink()
    rows = {r["result_id"]: r for r in store.result_rows()}
    assert "cannot be read" in rows[good.result_id]["integrity"]


# -- stored submissions and their sidecars ---------------------------------------------------------------------
_UPLOAD = (b'{"format": "lemmata-submission/1", "benchmark": "b", "track": "t", "model": {"name": "honest"}}\n'
           b'{"item": "i1", "proof": "by simp"}\n')


def _stored_upload(tmp_path):
    from lemmata.core.hashing import sha256_bytes

    store = Store(tmp_path / "s")
    store.add_submission(_UPLOAD, filename="run.jsonl", benchmark="b", track="t", model_name="honest",
                         submitter="ada", header=json.loads(_UPLOAD.split(b"\n")[0]))
    return store, sha256_bytes(_UPLOAD)


def test_an_edited_submission_file_is_an_integrity_error_when_read(tmp_path):
    from lemmata.store import SubmissionIntegrityError

    store, sha = _stored_upload(tmp_path)
    assert store.submission_bytes(sha) == _UPLOAD and store.verify_files() == []
    path = store.submission_path(sha)
    path.write_bytes(_UPLOAD.replace(b"by simp", b"by sorry"))  # the forged proof text
    with pytest.raises(SubmissionIntegrityError, match="recorded at upload"):
        store.submission_bytes(sha)
    with pytest.raises(SubmissionIntegrityError):
        SubmissionCache(store).get(sha, "run.jsonl")
    [p] = store.verify_files()
    assert p.file == f"submissions/{sha}.jsonl" and "edited after it was stored" in p.reason


def test_a_rebuilt_index_takes_identities_only_from_verified_sidecars(tmp_path):
    store, sha = _stored_upload(tmp_path)
    meta = store.submission_meta_path(sha)
    doc = json.loads(meta.read_text())
    doc["model_name"] = "forged"
    meta.write_text(json.dumps(doc))
    store.db_path.unlink()
    rebuilt = Store(store.root)
    assert rebuilt.get_submission(sha) is None
    assert any("field 'model_name'" in p.reason for p in rebuilt.reindex_problems)
    doc["model_name"] = "honest"
    meta.write_text(json.dumps(doc))
    store.submission_path(sha).write_bytes(_UPLOAD.replace(b"honest", b"forged"))
    (store.root / "leaderboard.sqlite3").unlink()
    again = Store(store.root)
    assert again.get_submission(sha) is None and any("recorded at upload" in p.reason for p in again.reindex_problems)


def test_an_edited_scored_at_is_refused_on_read_and_after_a_reindex(store_with_two):
    """The result id leaves the date out (rescoring gives the same id); the seal binds it."""
    store, good, bad = store_with_two
    path = store.results_dir / "b" / f"{bad.result_id}.json"
    doc = json.loads(path.read_text())
    assert doc["sealed_sha256"] and doc["result_id"] == bad.result_id
    doc["scored_at"] = "2020-01-01T00:00:00+00:00"
    path.write_text(json.dumps(doc, indent=2))
    with pytest.raises(ResultIntegrityError, match="scored_at"):
        store.get_result(bad.result_id)
    store.db_path.unlink()
    rebuilt = Store(store.root)
    assert {r["result_id"] for r in rebuilt.result_rows()} == {good.result_id}
    assert any("scored_at" in p.reason for p in rebuilt.reindex_problems)


def test_results_stored_before_the_seal_keep_their_ids():
    legacy = _result("a" * 64, 0.5, "m").model_copy(update={"sealed_sha256": None})
    assert "sealed_sha256" not in json.loads(legacy.to_json())
    assert legacy.content_id() == legacy.result_id == _result("a" * 64, 0.5, "m").result_id


def _drop_seal_and_date(path) -> None:
    """Delete the seal and move the date: without the ledger the file would read as a legacy result."""
    doc = json.loads(path.read_text())
    del doc["sealed_sha256"]
    doc["scored_at"] = "2020-01-01T00:00:00+00:00"
    path.write_text(json.dumps(doc, indent=2))


def test_a_deleted_seal_does_not_make_a_result_legacy(store_with_two):
    store, good, bad = store_with_two
    path = store.results_dir / "b" / f"{bad.result_id}.json"
    _drop_seal_and_date(path)
    with pytest.raises(ResultIntegrityError, match="'sealed_sha256' was removed"):
        store.get_result(bad.result_id)
    store.db_path.unlink()
    rebuilt = Store(store.root)
    assert {r["result_id"] for r in rebuilt.result_rows()} == {good.result_id}
    assert any("'sealed_sha256' was removed" in p.reason for p in rebuilt.reindex_problems)


def test_a_deleted_ledger_is_not_started_again_over_sealed_results(store_with_two):
    """Delete the ledger and strip one result's seal: the store must not start a new ledger that lists the
    stripped result as legacy; every result read is refused with the reason until the ledger is restored."""
    store, good, bad = store_with_two
    ledger = store.ledger.path.read_bytes()
    store.ledger.path.unlink()
    _drop_seal_and_date(store.results_dir / "b" / f"{bad.result_id}.json")
    store.db_path.unlink()
    reopened = Store(store.root)
    assert not reopened.ledger.path.exists()
    assert reopened.result_rows() == []
    assert {p.reason for p in reopened.reindex_problems} and all(
        "seal ledger" in p.reason and "missing" in p.reason for p in reopened.reindex_problems)
    store.ledger.path.write_bytes(ledger)  # restored: the good result reads again, the stripped one is refused
    restored = Store(store.root)
    restored.reindex()
    assert {r["result_id"] for r in restored.result_rows()} == {good.result_id}
    assert any("'sealed_sha256' was removed" in p.reason for p in restored.reindex_problems)


def test_legacy_results_are_those_the_ledger_started_with(tmp_path):
    """A store from before the ledger: its unsealed results are listed as legacy once and read; a result file
    without a seal that turns up later is not listed, so it is refused, never legacy."""
    legacy = _result("a" * 64, 0.5, "old").model_copy(update={"sealed_sha256": None})
    (tmp_path / "results" / "b").mkdir(parents=True)
    (tmp_path / "results" / "b" / f"{legacy.result_id}.json").write_text(legacy.to_json())
    store = Store(tmp_path)
    assert store.ledger.seals() == {legacy.result_id: None}
    assert store.get_result(legacy.result_id).sealed_sha256 is None and store.verify_files() == []
    late = _result("c" * 64, 0.75, "late").model_copy(update={"sealed_sha256": None})
    (tmp_path / "results" / "b" / f"{late.result_id}.json").write_text(late.to_json())
    store.db_path.unlink()
    rebuilt = Store(tmp_path)
    assert {r["result_id"] for r in rebuilt.result_rows()} == {legacy.result_id}
    assert any("does not list this result" in p.reason for p in rebuilt.reindex_problems)


def test_an_edited_or_truncated_ledger_is_an_integrity_error(store_with_two):
    store, good, bad = store_with_two
    lines = store.ledger.path.read_text().splitlines(keepends=True)
    entry = json.loads(lines[1])
    entry["sealed_sha256"] = None  # make the second result "legacy" in the ledger too
    store.ledger.path.write_text(lines[0] + json.dumps(entry, sort_keys=True) + "\n")
    with pytest.raises(ResultIntegrityError, match="entry_sha256"):
        Store(store.root).get_result(bad.result_id)
    store.ledger.path.write_text(lines[0])  # the last line removed: its result is no longer listed
    with pytest.raises(ResultIntegrityError, match="does not list this result"):
        Store(store.root).get_result(bad.result_id)
