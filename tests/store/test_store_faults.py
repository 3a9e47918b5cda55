"""Faults leave nothing half-done: a full disk during upload or scoring, a damaged index, a killed scorer.

Disk full is real, not mocked: a child process lowers its own ``RLIMIT_FSIZE``
with ``SIGXFSZ`` ignored, so every write past the limit fails with
``OSError(EFBIG)`` (SQLite sees the same failure as a disk I/O error). The
MathNet-Retrieve release built from the upstream-layout fixture gives real
submissions that score without an oracle.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from lemmata.core.errors import LemmataError
from lemmata.core.hashing import sha256_bytes
from lemmata.space.config import SpaceConfig
from lemmata.space.submit import SubmissionForm, submit_upload
from lemmata.space.worker import ScoringWorker
from lemmata.store import RateLimit, Store
from lemmata.store.faults import check_index
from test_space_scoring import RELEASE, mathnet_file, mathnet_release  # noqa: F401  (module fixture)

ROOT = Path(__file__).resolve().parents[2]
FORM = SubmissionForm(submitter="Ada Lovelace")
HEADER = {"format": "lemmata-submission/1", "benchmark": "b", "track": "t", "model": {"name": "m"}}

#: prepended to every child script: the store under test and a way to cap file sizes from here on
PRELUDE = """
import json, os, resource, signal, sys
from pathlib import Path
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
HARD = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
def cap(n):
    resource.setrlimit(resource.RLIMIT_FSIZE, (n, HARD))
def uncap():
    resource.setrlimit(resource.RLIMIT_FSIZE, (HARD, HARD))
ROOT = Path(sys.argv[1])
def hold():
    # an open connection keeps SQLite's shared-memory file in place, as on a server that ran before the disk
    # filled; the log is emptied so every later write must grow it
    import sqlite3
    conn = sqlite3.connect(ROOT / "leaderboard.sqlite3")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return conn
"""


def _child(script: str, store_root: Path, *, wait: bool = True, timeout: float = 60) -> subprocess.Popen | dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.Popen([sys.executable, "-c", PRELUDE + textwrap.dedent(script), str(store_root)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not wait:
        return proc
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def _config(tmp_path: Path) -> SpaceConfig:
    return SpaceConfig.from_env({"LEMMATA_HOME": str(tmp_path)}, rate_limit=RateLimit(10, 3600))


def _leftovers(store: Store) -> list[str]:
    return sorted(p.name for p in store.submissions_dir.rglob("*")) if store.submissions_dir.exists() else []


# -- upload -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("held, message", [
    (True, "The server could not store the upload because the disk is full; nothing was stored, "
           "please try again later."),
    (False, "The server could not check the upload because the disk reported an I/O error; nothing was stored, "
            "please try again later."),
])
def test_disk_full_during_upload_is_one_sentence_and_stores_nothing(tmp_path, held, message):
    """Held: the upload's own file cannot be written. Not held: SQLite cannot even open the index."""
    config = _config(tmp_path)
    store = Store(config.store_root)
    data = mathnet_file("full-disk-model")
    assert len(data) > 2048
    (tmp_path / "upload.jsonl").write_bytes(data)
    out = _child(f"""
        from lemmata.space.config import SpaceConfig
        from lemmata.space.submit import SubmissionForm, render_outcome, submit_upload
        from lemmata.store import RateLimit, Store
        config = SpaceConfig.from_env({{"LEMMATA_HOME": {str(tmp_path)!r}}}, rate_limit=RateLimit(10, 3600))
        store = Store(config.store_root)
        data = Path({str(tmp_path / "upload.jsonl")!r}).read_bytes()
        keep = hold() if {held!r} else None
        cap(2048)  # the upload itself does not fit
        outcome = submit_upload(store, config, data, "run.jsonl", SubmissionForm(submitter="Ada"))
        uncap()
        print(json.dumps({{"kind": outcome.kind, "message": outcome.message, "html": render_outcome(outcome)}}))
    """, config.store_root)
    assert out["kind"] == "unavailable"
    assert out["message"] == message
    assert "lm-errors" in out["html"] and "Traceback" not in out["html"]
    assert _leftovers(store) == [] and store.list_submissions() == []
    # nothing half-written: the same bytes are a new entry once the disk has room, not a "duplicate"
    assert submit_upload(store, config, data, "run.jsonl", FORM).kind == "created"


def test_a_failing_commit_removes_the_files_the_upload_wrote(tmp_path):
    """The files fit but SQLite's write-ahead log does not: the commit fails, the files go, the cause is kept."""
    store = Store(tmp_path)
    out = _child("""
        from lemmata.store import Store
        from lemmata.store.faults import StorageError
        store = Store(ROOT)
        header = {"format": "lemmata-submission/1", "benchmark": "b", "track": "t", "model": {"name": "m"}}
        keep = hold()
        cap(4096)  # a page of the log is 4096 bytes plus headers; the small upload and its sidecar fit
        try:
            store.add_submission(b"small\\n", filename="run.jsonl", benchmark="b", track="t", model_name="m",
                                 submitter="ada", header=header)
            print(json.dumps({"raised": None}))
        except StorageError as exc:
            cause = exc.__cause__
            print(json.dumps({"raised": str(exc), "cause": type(cause).__name__, "cause_text": str(cause),
                              "notes": getattr(cause, "__notes__", [])}))
    """, tmp_path)
    assert out["raised"] == ("The server could not store the upload because the disk reported an I/O error; "
                             "nothing was stored, please try again later.")
    assert out["cause"] == "OperationalError" and "disk" in out["cause_text"]
    assert _leftovers(store) == [] and store.list_submissions() == []
    assert check_index(store.db_path) is None


def test_a_failing_rollback_is_attached_to_the_cause_not_raised_instead(tmp_path, monkeypatch, caplog):
    store = Store(tmp_path)
    real_connect = sqlite3.connect

    class RollbackFails(sqlite3.Connection):
        def execute(self, sql, *args):
            if sql == "ROLLBACK":
                raise sqlite3.OperationalError("cannot rollback - disk I/O error")
            return super().execute(sql, *args)

    monkeypatch.setattr(sqlite3, "connect", lambda *a, **kw: real_connect(*a, factory=RollbackFails, **kw))
    with pytest.raises(OSError) as info:
        with store.index.write() as conn:
            conn.execute("INSERT INTO meta(key, value) VALUES ('probe', '1')")
            raise OSError(errno.ENOSPC, "No space left on device")
    assert info.value.errno == errno.ENOSPC
    assert any("rollback that followed failed too" in n for n in info.value.__notes__)
    assert "rollback after OSError failed too" in caplog.text


# -- scoring ------------------------------------------------------------------------------------------------
def _queued(tmp_path: Path, model: str) -> tuple[Store, str]:
    config = _config(tmp_path)
    store = Store(config.store_root)
    outcome = submit_upload(store, config, mathnet_file(model), "run.jsonl", FORM)
    assert outcome.kind == "created"
    return store, outcome.record.sha256


def test_disk_full_while_scoring_requeues_and_the_next_run_scores(tmp_path):
    """The result file and every status write fail: the cause is reported, and once the disk has room the
    unwritten requeue is written and the submission scored, without a restart."""
    store, sha = _queued(tmp_path, "scoring-disk-full")
    out = _child("""
        import logging
        from lemmata.space.worker import ScoringWorker
        from lemmata.store import Store
        logging.basicConfig(level=logging.ERROR)
        store = Store(ROOT)
        worker = ScoringWorker(store, fault_backoff_s=0)
        record = store.claim_next()
        keep = hold()
        cap(1024)
        result = worker.process(record)
        stuck = dict(worker.unsettled)
        cause = worker.last_error
        uncap()
        status_while_full = store.get_submission(record.sha256).status
        worked = worker.run_once()
        rec = store.get_submission(record.sha256)
        print(json.dumps({"result": result is not None, "cause": [type(cause).__name__, getattr(cause, "errno", None)],
                          "stuck": list(stuck.values()), "status_while_full": status_while_full, "worked": worked,
                          "status": rec.status, "events": [e["action"] for e in store.events()]}))
    """, store.root)
    assert not out["result"] and out["cause"] == ["DiskFull", errno.EFBIG]  # an OSError naming the file
    assert out["stuck"] == [["fault", "storage fault while scoring: the disk is full"]]
    assert out["status_while_full"] == "scoring"
    assert out["worked"] and out["status"] == "scored"
    assert "fault_retry" in out["events"]
    assert len(store.results_for_submission(sha)) == 1
    assert not [p for p in store.results_dir.rglob(".tmp-*")]


def test_storage_faults_requeue_with_the_reason_a_bounded_number_of_times(tmp_path, monkeypatch):
    store, sha = _queued(tmp_path, "bounded-retries")

    def full(result):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store, "add_result", full)
    worker = ScoringWorker(store, fault_retries=2, fault_backoff_s=0)
    assert worker.run_once()
    rec = store.get_submission(sha)
    assert rec.status == "queued" and rec.status_reason == "storage fault while scoring: the disk is full; retry 1 of 2"
    assert worker.run_once() and store.get_submission(sha).status == "queued"
    assert worker.run_once()
    rec = store.get_submission(sha)
    assert rec.status == "failed" and rec.status_reason.endswith("gave up after 2 retries") and rec.attempts == 3
    # an admin's rescore starts a fresh allowance, and with room on the disk it scores
    monkeypatch.undo()
    store.requeue(sha, actor="admin-token")
    assert worker.run_once() and store.get_submission(sha).status == "scored"


def test_the_worker_waits_out_a_storage_fault_before_claiming_again(tmp_path, monkeypatch):
    store, sha = _queued(tmp_path, "backoff")
    monkeypatch.setattr(store, "add_result", lambda r: (_ for _ in ()).throw(OSError(errno.EIO, "I/O error")))
    worker = ScoringWorker(store, fault_backoff_s=60)
    assert worker.run_once()
    assert store.get_submission(sha).status == "queued"
    assert "I/O error" in store.get_submission(sha).status_reason
    assert not worker.run_once() and store.get_submission(sha).status == "queued"  # backing off, nothing claimed



def test_the_pause_banner_goes_when_the_back_off_ends_with_nothing_queued(tmp_path, monkeypatch):
    """The pause is shown only while the scorer backs off: when the back-off ends and nothing is queued (no result is
    stored to end it), the banner goes and the page's change token moves, so an open page drops it too."""
    store, sha = _queued(tmp_path, "backoff-ends-empty")
    monkeypatch.setattr(store, "add_result", lambda r: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space")))
    worker = ScoringWorker(store, fault_retries=0, fault_backoff_s=60)
    assert worker.run_once() and worker.notice() is not None
    assert store.get_submission(sha).status == "failed"  # no retry left: nothing is queued
    before = worker.revision
    worker._resume_at = 0.0  # the back-off is over
    assert not worker.run_once()
    assert worker.notice() is None and worker.revision != before

def test_a_full_disk_while_scoring_is_shown_until_the_entry_is_queued_again(tmp_path, monkeypatch):
    """The result writer runs out of room (ENOSPC from the atomic writer) and the index refuses the status change
    too, as on a full disk: the board's banner, the status table and the status API say why the entry still marked
    scoring waits and that the queue is paused; once the index takes writes the entry is ``queued`` with the reason
    recorded, and the pause is still shown until the scorer tries again."""
    import sqlite3
    from types import SimpleNamespace

    from lemmata.core import atomic
    from lemmata.space.views import banner_html, status_html

    store, sha = _queued(tmp_path, "full-disk-shown")
    waiting = submit_upload(store, _config(tmp_path), mathnet_file("waits-behind"), "run.jsonl", FORM).record.sha256
    create = atomic._create_temp

    def no_room(folder, mode):
        if store.results_dir in (folder, *folder.parents):
            raise OSError(errno.ENOSPC, "No space left on device")
        return create(folder, mode)

    def index_full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(atomic, "_create_temp", no_room)
    monkeypatch.setattr(store, "requeue_after_fault", index_full)
    worker = ScoringWorker(store, fault_backoff_s=60)
    before = worker.revision
    record = store.claim_next()
    assert record.sha256 == sha and worker.process(record) is None
    assert type(worker.last_error).__name__ == "DiskFull" and worker.revision != before
    page = SimpleNamespace(store=store, worker=worker, config=SimpleNamespace(problems=list),
                           bootstrap=SimpleNamespace(render_html=str))
    shown, banner = status_html(page), banner_html(page)
    assert store.get_submission(sha).status == "scoring"  # the index could not be told
    assert "Scoring is paused: the store could not record 1 status change(s) (storage fault while scoring: the " \
           "disk is full)" in banner and "queued submissions wait" in banner
    row = shown.split(sha[:12])[0].rsplit("<tr>", 1)[1]
    assert "storage fault while scoring: the disk is full; back to the queue once the store accepts writes" in row
    assert worker.pending_reasons() == {sha: "storage fault while scoring: the disk is full; back to the queue "
                                             "once the store accepts writes"}
    assert not worker.run_once()  # paused: the other entry is not claimed
    assert store.get_submission(waiting).status == "queued"

    monkeypatch.undo()  # the index takes writes again (the result writer would too)
    assert not worker.run_once() and worker.unsettled == {}  # the held change is written; still backing off
    rec = store.get_submission(sha)
    assert rec.status == "queued" and rec.status_reason == "storage fault while scoring: the disk is full; retry 1 of 3"
    assert "storage fault while scoring: the disk is full; retry 1 of 3" in status_html(page)
    assert "Scoring is paused after a storage fault (the disk is full): queued submissions wait; the scorer tries " \
           "again at " in banner_html(page)
    worker._resume_at = 0.0  # the back-off is over
    assert worker.run_once() and worker.run_once()  # both scored now
    assert {store.get_submission(s).status for s in (sha, waiting)} == {"scored"}
    assert worker.notice() is None and "Scoring is paused" not in banner_html(page)


def test_the_runner_reports_a_full_disk_in_one_sentence(tmp_path, monkeypatch):
    from lemmata.scoring import score_file

    path = tmp_path / "baseline.jsonl"
    path.write_bytes(mathnet_file("runner-disk-full"))
    store = Store(tmp_path / "store")
    monkeypatch.setattr(store, "add_result", lambda r: (_ for _ in ()).throw(OSError(errno.ENOSPC, "full")))
    with pytest.raises(LemmataError, match=r"^scoring baseline.jsonl could not be stored because the disk is "
                                           r"full; the submission is queued to be scored again$") as info:
        score_file(path, store)
    assert isinstance(info.value.__cause__, OSError)
    assert store.get_submission(sha256_bytes(path.read_bytes())).status == "queued"


# -- a damaged index ----------------------------------------------------------------------------------------
def _populated(root: Path) -> tuple[Store, set[str], set[str]]:
    store, sha = _queued(root, "index-model")
    ScoringWorker(store).run_once()
    waiting = submit_upload(store, _config(root), mathnet_file("still-queued"), "run.jsonl", FORM).record.sha256
    results = {r["result_id"] for r in store.result_rows(include_hidden=True)}
    assert store.get_submission(sha).status == "scored" and results
    return store, results, {sha, waiting}


def _garbage(db: Path) -> None:
    db.write_bytes(os.urandom(8192))


def _truncated(db: Path) -> None:
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2 + 100])


def _missing(db: Path) -> None:
    db.unlink()


def _foreign(db: Path) -> None:
    db.unlink()
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE results (x INTEGER)")
    conn.close()


@pytest.mark.parametrize("damage", [_garbage, _truncated, _missing, _foreign])
def test_a_damaged_index_is_moved_aside_and_rebuilt_with_a_notice(tmp_path, damage):
    store, results, submissions = _populated(tmp_path)
    with sqlite3.connect(store.db_path) as conn:  # everything in the main file, as after a clean stop
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    damage(store.db_path)
    before = store.db_path.read_bytes() if store.db_path.exists() else None
    reopened = Store(store.root)
    notice = reopened.recovery_notice
    assert notice is not None and "\n" not in notice and "rebuilt it from the durable files" in notice
    assert "1 result(s), 2 submission(s)" in notice
    assert {r["result_id"] for r in reopened.result_rows(include_hidden=True)} == results
    restored = {s.sha256: s.status for s in reopened.list_submissions()}
    assert set(restored) == submissions and sorted(restored.values()) == ["queued", "scored"]
    assert check_index(reopened.db_path) is None
    aside = sorted(store.root.glob("leaderboard.sqlite3.damaged-*"))
    if before is None:
        assert aside == [] and "is missing" in notice
    else:  # never deleted: the damaged bytes are kept next to the new index
        assert len(aside) == 1 and aside[0].read_bytes() == before and aside[0].name in notice
    assert Store(store.root).recovery_notice is None  # sound now


def test_a_new_store_and_a_sound_index_open_without_a_notice(tmp_path):
    assert Store(tmp_path / "new").recovery_notice is None
    store, _, _ = _populated(tmp_path)
    assert Store(store.root).recovery_notice is None
    assert list(store.root.glob("*.damaged-*")) == []


# -- a killed scorer ----------------------------------------------------------------------------------------
def test_a_scorer_killed_mid_scoring_is_requeued_and_completes_on_restart(tmp_path):
    store, sha = _queued(tmp_path, "sigkill-model")
    proc = _child("""
        import time
        from lemmata.space.worker import ScoringWorker
        from lemmata.store import Store

        def stall():  # called inside scoring, after the claim and the re-validation
            print("scoring", flush=True)
            time.sleep(120)
            raise SystemExit("not killed")

        ScoringWorker(Store(ROOT), oracles=stall).run_once()
    """, store.root, wait=False)
    try:
        assert proc.stdout.readline().strip() == "scoring"
        assert store.get_submission(sha).status == "scoring"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    assert store.get_submission(sha).status == "scoring" and store.results_for_submission(sha) == []

    restarted = Store(store.root)
    worker = ScoringWorker(restarted, poll_seconds=30)
    assert worker.start() == 1
    try:
        deadline = time.monotonic() + 20
        while restarted.get_submission(sha).status != "scored" and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        worker.stop()
    rec = restarted.get_submission(sha)
    assert rec.status == "scored" and rec.attempts == 2
    assert len(restarted.results_for_submission(sha)) == 1
    assert "requeue_interrupted" in [e["action"] for e in restarted.events()]
