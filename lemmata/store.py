"""The leaderboard store: immutable result files indexed in SQLite.

The results folder is the source of truth — one JSON file per result, written
once and never changed — and SQLite is an index over it plus the mutable state
around it (submission status, the scoring queue, display flags, an audit log).
``reindex()`` rebuilds the index from the folder, so a store synced from
elsewhere (a Hub dataset repository) loses nothing.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from lemmata.errors import LemmataError
from lemmata.hashing import sha256_bytes
from lemmata.results import Result, now_iso

SubmissionStatus = Literal["validated", "queued", "scoring", "scored", "pending_oracle", "failed"]
STORE_SCHEMA = 1

_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS submissions (
    sha256        TEXT PRIMARY KEY,
    benchmark     TEXT NOT NULL,
    track         TEXT NOT NULL,
    filename      TEXT NOT NULL,
    model_name    TEXT NOT NULL,
    submitter     TEXT NOT NULL,
    received_at   TEXT NOT NULL,
    header_json   TEXT NOT NULL,
    status        TEXT NOT NULL,
    status_reason TEXT,
    attempts      INTEGER NOT NULL DEFAULT 0,
    updated_at    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS submissions_status ON submissions(status, received_at);
CREATE INDEX IF NOT EXISTS submissions_submitter ON submissions(submitter, received_at);
CREATE TABLE IF NOT EXISTS results (
    result_id         TEXT PRIMARY KEY,
    submission_sha256 TEXT NOT NULL,
    version           INTEGER NOT NULL,
    supersedes        TEXT,
    kind              TEXT NOT NULL,
    benchmark         TEXT NOT NULL,
    track             TEXT NOT NULL,
    group_key         TEXT NOT NULL,
    model_name        TEXT NOT NULL,
    main_value        REAL,
    status            TEXT NOT NULL,
    pending           INTEGER NOT NULL,
    scored_at         TEXT NOT NULL,
    path              TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS results_board ON results(benchmark, track, group_key);
CREATE INDEX IF NOT EXISTS results_submission ON results(submission_sha256);
CREATE TABLE IF NOT EXISTS display (
    result_id TEXT PRIMARY KEY,
    hidden    INTEGER NOT NULL,
    actor     TEXT NOT NULL,
    reason    TEXT,
    at        TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    at     TEXT NOT NULL,
    actor  TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    detail TEXT
);
"""


@dataclass(frozen=True)
class SubmissionRecord:
    sha256: str
    benchmark: str
    track: str
    filename: str
    model_name: str
    submitter: str
    received_at: str
    header: dict[str, Any]
    status: SubmissionStatus
    status_reason: str | None
    attempts: int
    updated_at: str

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> "SubmissionRecord":
        d = dict(row)
        d["header"] = json.loads(d.pop("header_json"))
        return cls(**d)


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


class Store:
    """A leaderboard store rooted at one folder (``leaderboard.sqlite3``, ``results/``, ``submissions/``)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.results_dir = self.root / "results"
        self.submissions_dir = self.root / "submissions"
        self.db_path = self.root / "leaderboard.sqlite3"
        self.root.mkdir(parents=True, exist_ok=True)
        with self._conn() as conn:
            conn.executescript(_DDL)
            conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)", (str(STORE_SCHEMA),))

    # -- plumbing ------------------------------------------------------------
    @contextmanager
    def _conn(self) -> Iterator[sqlite3.Connection]:
        conn = sqlite3.connect(self.db_path, timeout=30, isolation_level=None)
        conn.row_factory = sqlite3.Row
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            yield conn
        finally:
            conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One serialised write transaction (BEGIN IMMEDIATE): all or nothing."""
        with self._conn() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def _log(self, conn: sqlite3.Connection, actor: str, action: str, target: str, detail: str | None = None) -> None:
        conn.execute("INSERT INTO events(at, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)",
                     (now_iso(), actor, action, target, detail))

    # -- submissions ---------------------------------------------------------
    def submission_path(self, sha256: str) -> Path:
        return self.submissions_dir / f"{sha256}.jsonl"

    def add_submission(
        self, data: bytes, *, filename: str, benchmark: str, track: str, model_name: str, submitter: str,
        header: dict[str, Any], received_at: str | None = None, status: SubmissionStatus = "queued",
    ) -> tuple[SubmissionRecord, bool]:
        """Store a validated upload once; returns ``(record, created)``.

        The content hash is the dedup key: a second upload of the same bytes
        returns the existing record and creates nothing.
        """
        sha = sha256_bytes(data)
        existing = self.get_submission(sha)
        if existing is not None:
            return existing, False
        path = self.submission_path(sha)
        if not path.exists():
            _atomic_write(path, data)
        now = received_at or now_iso()
        with self._write() as conn:
            cur = conn.execute(
                "INSERT OR IGNORE INTO submissions(sha256, benchmark, track, filename, model_name, submitter, "
                "received_at, header_json, status, attempts, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)",
                (sha, benchmark, track, filename, model_name, submitter, now, json.dumps(header, sort_keys=True),
                 status, now),
            )
            created = cur.rowcount == 1
            if created:
                self._log(conn, submitter, "submit", sha, filename)
        record = self.get_submission(sha)
        assert record is not None
        return record, created

    def get_submission(self, sha256: str) -> SubmissionRecord | None:
        with self._conn() as conn:
            row = conn.execute("SELECT * FROM submissions WHERE sha256 = ?", (sha256,)).fetchone()
        return SubmissionRecord.from_row(row) if row else None

    def submission_bytes(self, sha256: str) -> bytes:
        return self.submission_path(sha256).read_bytes()

    def list_submissions(self, *, status: str | None = None, submitter: str | None = None,
                         limit: int = 500) -> list[SubmissionRecord]:
        sql, args = "SELECT * FROM submissions WHERE 1=1", []
        if status:
            sql += " AND status = ?"
            args.append(status)
        if submitter:
            sql += " AND submitter = ?"
            args.append(submitter)
        sql += " ORDER BY received_at DESC, sha256 LIMIT ?"
        args.append(limit)
        with self._conn() as conn:
            return [SubmissionRecord.from_row(r) for r in conn.execute(sql, args)]

    def count_recent_submissions(self, submitter: str, since_iso: str) -> int:
        with self._conn() as conn:
            return conn.execute("SELECT COUNT(*) FROM submissions WHERE submitter = ? AND received_at >= ?",
                                (submitter, since_iso)).fetchone()[0]

    def set_status(self, sha256: str, status: SubmissionStatus, reason: str | None = None,
                   actor: str = "system") -> None:
        with self._write() as conn:
            conn.execute("UPDATE submissions SET status = ?, status_reason = ?, updated_at = ? WHERE sha256 = ?",
                         (status, reason, now_iso(), sha256))
            self._log(conn, actor, f"status:{status}", sha256, reason)

    # -- queue ---------------------------------------------------------------
    def claim_next(self) -> SubmissionRecord | None:
        """Atomically move the oldest queued submission to 'scoring' and return it."""
        with self._write() as conn:
            row = conn.execute(
                "UPDATE submissions SET status = 'scoring', attempts = attempts + 1, updated_at = ? WHERE sha256 = "
                "(SELECT sha256 FROM submissions WHERE status = 'queued' ORDER BY received_at, sha256 LIMIT 1) "
                "RETURNING *", (now_iso(),)
            ).fetchone()
        return SubmissionRecord.from_row(row) if row else None

    def requeue_interrupted(self) -> int:
        """Put back submissions left in 'scoring' by a stopped worker (called at start-up)."""
        with self._write() as conn:
            cur = conn.execute("UPDATE submissions SET status = 'queued', updated_at = ? WHERE status = 'scoring'",
                               (now_iso(),))
            return cur.rowcount

    # -- results -------------------------------------------------------------
    def result_path(self, result: Result) -> Path:
        return self.results_dir / result.benchmark / f"{result.result_id}.json"

    def add_result(self, result: Result) -> tuple[Result, bool]:
        """Store a finalized result; returns ``(stored, created)``.

        Result files are immutable: an existing file with the same id is kept
        as it is (same content by construction, apart from ``scored_at``).
        """
        if not result.result_id or result.result_id != result.content_id():
            raise LemmataError("result_id does not match the result's content; call Result.finalized() first")
        path = self.result_path(result)
        if path.exists():
            stored = Result.from_file(path)
        else:
            _atomic_write(path, result.to_json().encode("utf-8"))
            stored = result
        created = self._index(stored, path)
        return stored, created

    def _index(self, result: Result, path: Path) -> bool:
        with self._write() as conn:
            cur = conn.execute(
                "INSERT OR IGNORE INTO results(result_id, submission_sha256, version, supersedes, kind, benchmark, "
                "track, group_key, model_name, main_value, status, pending, scored_at, path) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (result.result_id, result.submission_sha256, result.version, result.supersedes, result.kind,
                 result.benchmark, result.track, result.frozen.group_key(), result.model.name, result.main.value,
                 result.status, result.pending, result.scored_at, str(path.relative_to(self.root))),
            )
            created = cur.rowcount == 1
            if created:
                self._log(conn, "system", "result", result.result_id, f"{result.benchmark}/{result.track}")
        return created

    def reindex(self) -> int:
        """Index every result file not yet in SQLite; returns how many were added."""
        added = 0
        for path in sorted(self.results_dir.rglob("*.json")):
            result = Result.from_file(path)
            if self._index(result, path):
                added += 1
        return added

    def get_result(self, result_id: str) -> Result | None:
        with self._conn() as conn:
            row = conn.execute("SELECT path FROM results WHERE result_id = ?", (result_id,)).fetchone()
        return Result.from_file(self.root / row["path"]) if row else None

    def result_rows(self, *, benchmark: str | None = None, track: str | None = None, latest_only: bool = True,
                    include_hidden: bool = False) -> list[dict[str, Any]]:
        """Index rows (no file reads) — what the leaderboard lists."""
        sql = ("SELECT r.*, COALESCE(d.hidden, 0) AS hidden FROM results r "
               "LEFT JOIN display d ON d.result_id = r.result_id WHERE 1=1")
        args: list[Any] = []
        if benchmark:
            sql += " AND r.benchmark = ?"
            args.append(benchmark)
        if track:
            sql += " AND r.track = ?"
            args.append(track)
        if latest_only:
            sql += " AND r.result_id NOT IN (SELECT supersedes FROM results WHERE supersedes IS NOT NULL)"
        if not include_hidden:
            sql += " AND COALESCE(d.hidden, 0) = 0"
        sql += " ORDER BY r.benchmark, r.track, r.group_key, r.main_value DESC, r.model_name, r.result_id"
        with self._conn() as conn:
            return [dict(r) for r in conn.execute(sql, args)]

    def results(self, **filters: Any) -> list[Result]:
        return [Result.from_file(self.root / row["path"]) for row in self.result_rows(**filters)]

    def results_for_submission(self, sha256: str) -> list[Result]:
        with self._conn() as conn:
            rows = conn.execute("SELECT path FROM results WHERE submission_sha256 = ? ORDER BY version",
                                (sha256,)).fetchall()
        return [Result.from_file(self.root / r["path"]) for r in rows]

    def set_hidden(self, result_id: str, hidden: bool, *, actor: str, reason: str | None = None) -> None:
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM results WHERE result_id = ?", (result_id,)).fetchone() is None:
                raise LemmataError(f"no result {result_id!r} in the store")
            conn.execute("INSERT INTO display(result_id, hidden, actor, reason, at) VALUES (?, ?, ?, ?, ?) "
                         "ON CONFLICT(result_id) DO UPDATE SET hidden = excluded.hidden, actor = excluded.actor, "
                         "reason = excluded.reason, at = excluded.at",
                         (result_id, int(hidden), actor, reason, now_iso()))
            self._log(conn, actor, "hide" if hidden else "unhide", result_id, reason)

    def events(self, limit: int = 200) -> list[dict[str, Any]]:
        with self._conn() as conn:
            return [dict(r) for r in conn.execute("SELECT * FROM events ORDER BY id DESC LIMIT ?", (limit,))]


def default_store() -> Store:
    from lemmata.paths import lemmata_home

    return Store(Path(os.environ.get("LEMMATA_STORE") or lemmata_home() / "store"))
