"""The leaderboard store: immutable result files indexed in SQLite.

The results folder is the source of truth — one JSON file per result, written
once and never changed — and SQLite is an index over it plus the mutable state
around it (submission status, the scoring queue, display flags, an audit log).
``reindex()`` rebuilds the index from the folder, so a store synced from
elsewhere (a Hub dataset repository) loses nothing.

Three kinds of files are immutable and together are the whole durable state:
``results/<benchmark>/<result_id>.json``; ``submissions/<sha256>.jsonl`` with
its ``<sha256>.meta.json`` sidecar (who sent it, when); and
``moderation/<at>-<id>.json`` (hide/unhide decisions, replayed in order).
Everything else in SQLite — queue state, attempts, rate-limit counters — is
recomputed from those files or is safe to lose.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import sqlite3
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from lemmata.core.settings import read as setting
from lemmata.core.errors import LemmataError, Problem
from lemmata.core.hashing import sha256_bytes, sha256_json
from lemmata.formats.results import Result, now_iso
from lemmata.store_faults import EMPTY, MISSING, StorageError, check_index, describe_fault, is_storage_fault, move_aside
from lemmata.store_integrity import (ResultIntegrityError, VerifiedFiles, check_result_bytes, fingerprint,
                                     parse_checked)

log = logging.getLogger("lemmata.store")

SubmissionStatus = Literal["validated", "queued", "scoring", "scored", "pending_oracle", "failed"]
STORE_SCHEMA = 2
#: bump when :func:`result_summary` changes: every row's summary is then recomputed from its file on open
SUMMARY_VERSION = 3
SUBMISSION_META_SCHEMA = "lemmata.submission/1"
MODERATION_SCHEMA = "lemmata.moderation/1"
#: the folders a mirror (Hub dataset repository) must carry; SQLite is rebuilt from them
DURABLE_FOLDERS = ("results", "submissions", "moderation")

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
CREATE TABLE IF NOT EXISTS rate_events (
    key TEXT NOT NULL,
    at  REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS rate_events_key ON rate_events(key, at);
"""

#: columns added after schema 1, with their SQL types (added in place on open)
_ADDED_COLUMNS = {
    "results": {"summary_json": "TEXT"},
    "submissions": {"contact": "TEXT", "notes": "TEXT"},
}
_SUMMARY_LIMIT = 64 * 1024


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
    contact: str | None = None
    notes: str | None = None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> "SubmissionRecord":
        d = dict(row)
        d["header"] = json.loads(d.pop("header_json"))
        return cls(**d)


class SubmissionMeta(BaseModel):
    """The immutable sidecar of a stored submission: what the upload alone does not say."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal["lemmata.submission/1"] = SUBMISSION_META_SCHEMA
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    benchmark: str
    track: str
    filename: str
    model_name: str
    submitter: str
    received_at: str
    header: dict[str, Any]
    contact: str | None = None
    notes: str | None = None


class ModerationRecord(BaseModel):
    """One hide/unhide decision; files are replayed in ``(at, record_id)`` order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal["lemmata.moderation/1"] = MODERATION_SCHEMA
    record_id: str
    result_id: str
    hidden: bool
    actor: str
    reason: str | None = None
    at: str


@dataclass(frozen=True)
class RateLimit:
    """At most ``max_count`` new submissions per key in any ``window_s`` seconds."""

    max_count: int
    window_s: float

    def describe(self) -> str:
        """Human wording of the limit.

        >>> RateLimit(5, 86400).describe()
        '5 submissions per 24 h'
        """
        hours = self.window_s / 3600
        span = f"{hours:g} h" if hours >= 1 else f"{self.window_s / 60:g} min"
        return f"{self.max_count} submission{'s' if self.max_count != 1 else ''} per {span}"


class RateLimited(LemmataError):
    """A submitter has used up their allowance; ``retry_after_s`` says when the next one is accepted."""

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


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


def _headline(value: dict[str, Any]) -> Any:
    """The number a metric object stands for (``rate`` of a rate, ``mean`` of a mean, or ``value``).

    A metric with pending items has no number yet (None): showing its partial
    rate would read as a score.
    """
    if isinstance(value.get("pending"), int) and value["pending"] > 0 and ("rate" in value or "mean" in value):
        return None
    for key in ("rate", "mean", "value"):
        if key in value and (value[key] is None or isinstance(value[key], (int, float))):
            return value[key]
    return _NO_HEADLINE


_NO_HEADLINE = object()


def _scalars(obj: Any) -> dict[str, Any]:
    """Numeric columns of a metrics dict: metric objects by their headline number, other dicts one level deep.

    >>> _scalars({"a": 1, "acc": {"name": "acc", "rate": 0.5, "count": 3}, "r@1": {"mean": 0.2, "ci95": [0, 1]},
    ...           "per": {"x": 0.1, "y": [1]}, "e": "text", "f": None, "g": {"rate": 0.0, "pending": 4}})
    {'a': 1, 'acc': 0.5, 'r@1': 0.2, 'per.x': 0.1, 'f': None, 'g': None}
    """
    out: dict[str, Any] = {}
    if not isinstance(obj, dict):
        return out
    for key, value in obj.items():
        if isinstance(value, dict):
            headline = _headline(value)
            if headline is not _NO_HEADLINE:
                out[str(key)] = headline
                continue
            for sub, inner in value.items():
                if inner is None or (isinstance(inner, (int, float)) and not isinstance(inner, bool)):
                    out[f"{key}.{sub}"] = inner
        elif value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            out[str(key)] = value
    return out


def result_summary(result: Result) -> dict[str, Any]:
    """What a leaderboard row shows, kept in the index so listing reads no result files."""
    doc = result.model_dump(mode="json", exclude={"items"})
    doc["items"] = result.items  # only counted
    return summary_of(doc)


def summary_of(doc: dict[str, Any]) -> dict[str, Any]:
    """:func:`result_summary` of a result as its JSON document (what a result file holds).

    Works on the document so a stored file can be compared with its index row
    without validating it first.
    """
    main = doc["main"]
    metrics = doc.get("metrics") or {}
    detail = metrics.get(main.get("metric")) if isinstance(metrics, dict) else None
    summary: dict[str, Any] = {
        "main": main,
        "metrics": _scalars(metrics),
        "model": doc["model"],
        "frozen": doc["frozen"],
        "flags": doc.get("flags", {}),
        "notes": list(doc.get("notes") or [])[:5],
        "n_items": len(doc.get("items") or []),
        "breakdowns": doc.get("breakdowns", {}),
        "main_detail": detail if isinstance(detail, dict) else {},
    }
    for optional in ("breakdowns", "flags", "main_detail"):
        if len(json.dumps(summary[optional], default=str)) > _SUMMARY_LIMIT:
            summary[optional] = {}
    return summary


class Store:
    """A leaderboard store rooted at one folder (``leaderboard.sqlite3``, ``results/``, ``submissions/``)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.results_dir = self.root / "results"
        self.submissions_dir = self.root / "submissions"
        self.moderation_dir = self.root / "moderation"
        self.db_path = self.root / "leaderboard.sqlite3"
        self.reindex_problems: list[Problem] = []
        #: verdicts of result files already checked in this process, by stat fingerprint
        self.verified = VerifiedFiles()
        #: one line when the index was found damaged or missing at open and rebuilt from the durable files
        self.recovery_notice: str | None = None
        self.root.mkdir(parents=True, exist_ok=True)
        damage = check_index(self.db_path)
        rebuild = damage is not None and (damage not in (MISSING, EMPTY) or self._has_durable_files())
        moved = move_aside(self.db_path) if rebuild else None
        with self._conn() as conn:
            conn.executescript(_DDL)
            for table, columns in _ADDED_COLUMNS.items():
                have = {r["name"] for r in conn.execute(f"PRAGMA table_info({table})")}
                for column, sqltype in columns.items():
                    if column not in have:
                        conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {sqltype}")
            conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)", (str(STORE_SCHEMA),))
            conn.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(STORE_SCHEMA),))
            row = conn.execute("SELECT value FROM meta WHERE key = 'summary_version'").fetchone()
            if row is None or row["value"] != str(SUMMARY_VERSION):
                conn.execute("UPDATE results SET summary_json = NULL")
                conn.execute("INSERT INTO meta(key, value) VALUES ('summary_version', ?) ON CONFLICT(key) DO "
                             "UPDATE SET value = excluded.value", (str(SUMMARY_VERSION),))
            missing = conn.execute("SELECT result_id, path FROM results WHERE summary_json IS NULL").fetchall()
        for row in missing:  # rows indexed by an older schema: fill in their summaries once
            result = Result.from_file(self.root / row["path"])
            with self._write() as conn:
                conn.execute("UPDATE results SET summary_json = ? WHERE result_id = ?",
                             (json.dumps(result_summary(result), default=str), row["result_id"]))
        if rebuild:
            added = self.reindex()
            aside = f"moved it aside to {moved.name} and " if moved is not None else ""
            self.recovery_notice = (
                f"The SQLite index {damage}: {aside}rebuilt it from the durable files ({added} result(s), "
                f"{sum(self.status_counts().values())} submission(s), "
                f"{len(self.reindex_problems)} unreadable file(s) skipped).")
            log.warning(self.recovery_notice)

    def _has_durable_files(self) -> bool:
        """Whether any durable file exists, i.e. whether a missing index means lost entries."""
        for folder in (self.results_dir, self.submissions_dir, self.moderation_dir):
            if folder.is_dir() and any(p.is_file() for p in folder.rglob("*.json*")):
                return True
        return False

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
            except BaseException as exc:
                # SQLite may already have rolled back (a full disk does that): a failing ROLLBACK must
                # never replace the error that caused it, so it is logged and attached, and the cause raised
                if conn.in_transaction:
                    try:
                        conn.execute("ROLLBACK")
                    except sqlite3.Error as rollback_exc:
                        log.error("rollback after %s failed too: %s", type(exc).__name__, rollback_exc)
                        exc.add_note(f"the rollback that followed failed too: {rollback_exc}")
                raise

    def _log(self, conn: sqlite3.Connection, actor: str, action: str, target: str, detail: str | None = None) -> None:
        conn.execute("INSERT INTO events(at, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)",
                     (now_iso(), actor, action, target, detail))

    def generation(self) -> int:
        """A number that grows with every change (every write logs an event): cheap change detection."""
        with self._conn() as conn:
            return int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()[0])

    # -- submissions ---------------------------------------------------------
    def submission_path(self, sha256: str) -> Path:
        return self.submissions_dir / f"{sha256}.jsonl"

    def submission_meta_path(self, sha256: str) -> Path:
        return self.submissions_dir / f"{sha256}.meta.json"

    def add_submission(
        self, data: bytes, *, filename: str, benchmark: str, track: str, model_name: str, submitter: str,
        header: dict[str, Any], received_at: str | None = None, status: SubmissionStatus = "queued",
        contact: str | None = None, notes: str | None = None, rate_limit: RateLimit | None = None,
        rate_keys: Sequence[str] = (),
    ) -> tuple[SubmissionRecord, bool]:
        """Store a validated upload once; returns ``(record, created)``.

        The content hash is the dedup key: a second upload of the same bytes
        returns the existing record and creates nothing (and counts against no
        rate limit). A new upload is checked against ``rate_limit`` for every
        key in ``rate_keys`` inside the same write transaction, so parallel
        uploads cannot overrun it; over the limit raises :class:`RateLimited`.
        The upload and its sidecar are written under the write lock, only for
        the upload that actually creates the entry. A disk fault raises
        :class:`StorageError` and leaves nothing behind: the transaction rolls
        back and every file this call created is removed again (a sidecar
        alone would otherwise be restored as an entry by :meth:`reindex`).
        """
        sha = sha256_bytes(data)
        now = received_at or now_iso()
        meta = SubmissionMeta(sha256=sha, benchmark=benchmark, track=track, filename=filename, model_name=model_name,
                              submitter=submitter, received_at=now, header=header, contact=contact, notes=notes)
        written: list[Path] = []
        try:
            existing = self.get_submission(sha)
            if existing is not None:
                return existing, False
            with self._write() as conn:
                if conn.execute("SELECT 1 FROM submissions WHERE sha256 = ?", (sha,)).fetchone() is None:
                    if rate_limit is not None:
                        self._check_rate(conn, rate_limit, rate_keys)
                    created = self._insert_submission(conn, meta, status)
                    for path, body in ((self.submission_path(sha), data),
                                       (self.submission_meta_path(sha), meta.model_dump_json(indent=2).encode())):
                        if not path.exists():
                            _atomic_write(path, body)
                            written.append(path)
                        elif path == self.submission_meta_path(sha):
                            _atomic_write(path, body)
                    if rate_limit is not None:
                        stamp = dt.datetime.now(dt.timezone.utc).timestamp()
                        conn.executemany("INSERT INTO rate_events(key, at) VALUES (?, ?)",
                                         [(k, stamp) for k in rate_keys])
                else:
                    created = False
            record = self.get_submission(sha)
        except (OSError, sqlite3.Error) as exc:
            for path in written:
                try:
                    path.unlink(missing_ok=True)
                except OSError as cleanup_exc:
                    log.error("could not remove %s after a failed upload: %s", path, cleanup_exc)
                    exc.add_note(f"removing {path.name} failed too: {cleanup_exc}")
            if is_storage_fault(exc):
                raise StorageError(f"The server could not store the upload because {describe_fault(exc)}; "
                                   "nothing was stored, please try again later.") from exc
            raise
        assert record is not None
        return record, created

    def _insert_submission(self, conn: sqlite3.Connection, meta: SubmissionMeta, status: str) -> bool:
        cur = conn.execute(
            "INSERT OR IGNORE INTO submissions(sha256, benchmark, track, filename, model_name, submitter, "
            "received_at, header_json, status, attempts, updated_at, contact, notes) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)",
            (meta.sha256, meta.benchmark, meta.track, meta.filename, meta.model_name, meta.submitter,
             meta.received_at, json.dumps(meta.header, sort_keys=True), status, now_iso(), meta.contact, meta.notes),
        )
        created = cur.rowcount == 1
        if created:
            self._log(conn, meta.submitter, "submit", meta.sha256, meta.filename)
        return created

    def _check_rate(self, conn: sqlite3.Connection, limit: RateLimit, keys: Sequence[str]) -> None:
        now = dt.datetime.now(dt.timezone.utc).timestamp()
        since = now - limit.window_s
        conn.execute("DELETE FROM rate_events WHERE at < ?", (since,))
        for key in keys:
            rows = conn.execute("SELECT at FROM rate_events WHERE key = ? AND at >= ? ORDER BY at",
                                (key, since)).fetchall()
            if len(rows) >= limit.max_count:
                retry = rows[len(rows) - limit.max_count]["at"] + limit.window_s - now
                raise RateLimited(
                    f"rate limit reached: {limit.describe()} for each submitter; the next one is accepted in "
                    f"{_human_duration(retry)}", retry_after_s=max(retry, 0.0))

    def rate_usage(self, key: str, limit: RateLimit) -> int:
        """How many new submissions ``key`` made in the current window."""
        since = dt.datetime.now(dt.timezone.utc).timestamp() - limit.window_s
        with self._conn() as conn:
            return conn.execute("SELECT COUNT(*) FROM rate_events WHERE key = ? AND at >= ?",
                                (key, since)).fetchone()[0]

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

    def status_counts(self) -> dict[str, int]:
        with self._conn() as conn:
            return {r["status"]: r["n"] for r in
                    conn.execute("SELECT status, COUNT(*) AS n FROM submissions GROUP BY status")}

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
            if row is not None:
                self._log(conn, "system", "status:scoring", row["sha256"])
        return SubmissionRecord.from_row(row) if row else None

    def requeue_interrupted(self) -> int:
        """Put back submissions left in 'scoring' by a stopped worker (called at start-up)."""
        with self._write() as conn:
            cur = conn.execute("UPDATE submissions SET status = 'queued', updated_at = ? WHERE status = 'scoring'",
                               (now_iso(),))
            if cur.rowcount:
                self._log(conn, "system", "requeue_interrupted", "*", str(cur.rowcount))
            return cur.rowcount

    def requeue_after_fault(self, sha256: str, reason: str, *, max_retries: int) -> SubmissionStatus:
        """Put a submission whose scoring hit a storage fault back in the queue, at most ``max_retries`` times.

        Retries are counted from the ``fault_retry`` events since the entry was
        submitted, restored or rescored; past the bound it is ``failed`` with
        the reason, so a disk that stays full cannot keep it cycling. Only a
        submission still in ``scoring`` is moved. Returns the new status.
        """
        with self._write() as conn:
            since = conn.execute("SELECT COALESCE(MAX(id), 0) FROM events WHERE target = ? AND action IN "
                                 "('submit', 'restore', 'rescore')", (sha256,)).fetchone()[0]
            done = conn.execute("SELECT COUNT(*) FROM events WHERE target = ? AND action = 'fault_retry' AND id > ?",
                                (sha256, since)).fetchone()[0]
            status: SubmissionStatus = "queued" if done < max_retries else "failed"
            detail = (f"{reason}; retry {done + 1} of {max_retries}" if status == "queued"
                      else f"{reason}; gave up after {done} retries")
            conn.execute("UPDATE submissions SET status = ?, status_reason = ?, updated_at = ? "
                         "WHERE sha256 = ? AND status = 'scoring'", (status, detail, now_iso(), sha256))
            self._log(conn, "system", "fault_retry" if status == "queued" else "status:failed", sha256, detail)
        return status

    def requeue(self, sha256: str, *, actor: str, reason: str | None = None) -> None:
        """Queue a stored submission for scoring again (an admin's rescore)."""
        with self._write() as conn:
            cur = conn.execute("UPDATE submissions SET status = 'queued', status_reason = ?, updated_at = ? "
                               "WHERE sha256 = ? AND status != 'scoring'", (reason, now_iso(), sha256))
            if cur.rowcount != 1:
                known = conn.execute("SELECT status FROM submissions WHERE sha256 = ?", (sha256,)).fetchone()
                if known is None:
                    raise LemmataError(f"no submission {sha256!r} in the store")
                raise LemmataError(f"submission {sha256[:12]} is being scored right now; try again when it is done")
            self._log(conn, actor, "rescore", sha256, reason)

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
                "track, group_key, model_name, main_value, status, pending, scored_at, path, summary_json) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (result.result_id, result.submission_sha256, result.version, result.supersedes, result.kind,
                 result.benchmark, result.track, result.frozen.group_key(), result.model.name, result.main.value,
                 result.status, result.pending, result.scored_at, str(path.relative_to(self.root)),
                 json.dumps(result_summary(result), default=str)),
            )
            created = cur.rowcount == 1
            if created:
                self._log(conn, "system", "result", result.result_id, f"{result.benchmark}/{result.track}")
        return created

    def reindex(self) -> int:
        """Index every durable file not yet in SQLite; returns how many results were added.

        Results first, then submission sidecars (a restored submission is
        'scored'/'pending_oracle' when a result names it, otherwise 'queued' so
        the worker scores it), then moderation records replayed in order.
        A file that does not parse is skipped, logged as a ``reindex_skip``
        event and listed in ``reindex_problems``: one damaged file must not
        take the whole board down.
        """
        with self._conn() as conn:
            known = {r["result_id"] for r in conn.execute("SELECT result_id FROM results")}
        self.reindex_problems = []
        added = 0
        for path in sorted(self.results_dir.rglob("*.json")):
            if path.name.startswith(".") or path.stem in known:
                continue
            try:
                result = Result.from_file(path)
                if result.result_id != path.stem or result.content_id() != result.result_id:
                    raise ValueError("file name, result_id and content hash disagree")
            except ValueError as exc:
                self._skip(path, exc)
                continue
            if self._index(result, path):
                added += 1
        self._reindex_submissions()
        self._replay_moderation()
        return added

    def _skip(self, path: Path, exc: Exception) -> None:
        reason = str(exc).splitlines()
        text = "; ".join(line.strip() for line in reason[:4])[:500]
        self.reindex_problems.append(Problem(str(path.relative_to(self.root)), text))
        with self._write() as conn:
            self._log(conn, "system", "reindex_skip", str(path.relative_to(self.root)), text)

    def _reindex_submissions(self) -> None:
        if not self.submissions_dir.is_dir():
            return
        for path in sorted(self.submissions_dir.glob("*.meta.json")):
            try:
                meta = SubmissionMeta.model_validate_json(path.read_text(encoding="utf-8"))
            except ValueError as exc:
                self._skip(path, exc)
                continue
            if not self.submission_path(meta.sha256).exists() or self.get_submission(meta.sha256) is not None:
                continue
            with self._conn() as conn:
                row = conn.execute(
                    "SELECT status FROM results WHERE submission_sha256 = ? AND result_id NOT IN "
                    "(SELECT supersedes FROM results WHERE supersedes IS NOT NULL) ORDER BY version DESC LIMIT 1",
                    (meta.sha256,)).fetchone()
            status = "queued" if row is None else ("pending_oracle" if row["status"] == "pending_oracle" else "scored")
            with self._write() as conn:
                if self._insert_submission(conn, meta, status):
                    self._log(conn, "system", "restore", meta.sha256, status)

    def _replay_moderation(self) -> None:
        if not self.moderation_dir.is_dir():
            return
        records = []
        for path in sorted(self.moderation_dir.glob("*.json")):
            if path.name.startswith("."):
                continue
            try:
                records.append(ModerationRecord.model_validate_json(path.read_text(encoding="utf-8")))
            except ValueError as exc:
                self._skip(path, exc)
        with self._write() as conn:
            for rec in sorted(records, key=lambda r: (r.at, r.record_id)):
                current = conn.execute("SELECT at FROM display WHERE result_id = ?", (rec.result_id,)).fetchone()
                if current is not None and current["at"] > rec.at:
                    continue
                conn.execute("INSERT INTO display(result_id, hidden, actor, reason, at) VALUES (?, ?, ?, ?, ?) "
                             "ON CONFLICT(result_id) DO UPDATE SET hidden = excluded.hidden, actor = excluded.actor, "
                             "reason = excluded.reason, at = excluded.at",
                             (rec.result_id, int(rec.hidden), rec.actor, rec.reason, rec.at))

    def get_result(self, result_id: str) -> Result | None:
        """The stored result, verified against its content hash and index row (:class:`ResultIntegrityError`)."""
        with self._conn() as conn:
            row = conn.execute("SELECT * FROM results WHERE result_id = ?", (result_id,)).fetchone()
        return self._verified(dict(row)) if row else None

    # -- integrity of stored results ----------------------------------------
    def _verified(self, row: dict[str, Any]) -> Result:
        """Read one indexed result file, check it fully and return it; a mismatch raises and is remembered."""
        doc = self._verified_doc(row)
        try:
            return parse_checked(doc, result_id=row["result_id"], path=row["path"])
        except ResultIntegrityError as exc:
            self._remember(row, fingerprint(self.root / row["path"]), exc.reason)
            raise

    def _verified_doc(self, row: dict[str, Any]) -> dict[str, Any]:
        """The file's document once its hash and its index row check out (:class:`ResultIntegrityError`)."""
        path = self.root / row["path"]
        fp = fingerprint(path)
        try:
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise ResultIntegrityError(row["result_id"], row["path"],
                                           f"the file cannot be read ({exc.strerror or exc})") from None
            doc = check_result_bytes(data, result_id=row["result_id"], path=row["path"])
            self._check_row(doc, row)
        except ResultIntegrityError as exc:
            self._remember(row, fp, exc.reason)
            raise
        self._remember(row, fp, None)
        return doc

    def _check_row(self, doc: dict[str, Any], row: dict[str, Any]) -> None:
        """The index row must say what the file says (it was made from it)."""
        try:
            frozen = doc["frozen"]
            expected = {
                "submission_sha256": doc["submission_sha256"], "version": doc["version"],
                "supersedes": doc["supersedes"], "kind": doc["kind"], "benchmark": doc["benchmark"],
                "track": doc["track"], "model_name": doc["model"]["name"], "main_value": doc["main"]["value"],
                "status": doc["status"], "pending": doc["pending"], "scored_at": doc["scored_at"],
                "group_key": " | ".join([frozen["dataset_release"], frozen["split"],
                                         frozen["retrieval_artifact"] or "-", frozen["scoring_artifact"]]),
            }
        except (KeyError, TypeError) as exc:
            raise ResultIntegrityError(row["result_id"], row["path"], f"the file lacks the field {exc}") from None
        differ = [k for k, v in expected.items() if k in row and row[k] != v]
        if row.get("summary_json") is not None and \
                json.loads(row["summary_json"]) != json.loads(json.dumps(summary_of(doc), default=str)):
            differ.append("summary")
        if differ:
            raise ResultIntegrityError(row["result_id"], row["path"],
                                       "the file and its index row disagree on " + ", ".join(differ))

    def _remember(self, row: dict[str, Any], fp: Any, reason: str | None) -> None:
        """Keep the verdict; a verdict that changed (or a first mismatch) is logged, which also bumps
        :meth:`generation`, so every cache keyed by it (board rows, exports) is dropped."""
        previous = self.verified.put(row["path"], fp, reason)
        if previous != reason and (reason is not None or previous != "new"):
            try:
                with self._write() as conn:
                    self._log(conn, "system", "integrity_error" if reason else "integrity_ok", row["result_id"],
                              reason)
            except sqlite3.Error as exc:  # a read must still report the mismatch when the index is read-only
                log.error("could not log the integrity verdict of %s: %s", row["path"], exc)
        if reason is not None and previous != reason:
            log.error("stored result %s fails its integrity check: %s", row["path"], reason)

    def integrity(self, row: dict[str, Any]) -> str | None:
        """None when the row's file is sound, else why not; re-verified whenever the file's fingerprint changed."""
        known, reason = self.verified.get(row["path"], fingerprint(self.root / row["path"]))
        if known:
            return reason
        try:
            self._verified_doc(row)
        except ResultIntegrityError as exc:
            return exc.reason
        return None

    def verify_files(self) -> list[Problem]:
        """Check every indexed result file (cheaply: only files new or changed since the last check are read).

        Call before reading anything keyed by :meth:`generation`: a newly found
        mismatch is logged, which changes the generation.
        """
        with self._conn() as conn:
            rows = [dict(r) for r in conn.execute("SELECT * FROM results ORDER BY result_id")]
        problems = []
        for row in rows:
            reason = self.integrity(row)
            if reason is not None:
                problems.append(Problem(row["path"], reason, field="result_id"))
        return problems

    def result_rows(self, *, benchmark: str | None = None, track: str | None = None, latest_only: bool = True,
                    include_hidden: bool = False) -> list[dict[str, Any]]:
        """Index rows — what the leaderboard lists; ``summary_json`` holds the row's display data.

        Each row carries ``integrity``: None when its file still matches its
        content hash and the row, else the reason (then nothing of the row may
        be shown). Files are read only when new here or changed on disk.
        """
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
            rows = [dict(r) for r in conn.execute(sql, args)]
        for row in rows:  # the index holds what the file held when written; the file must still hold it
            row["integrity"] = self.integrity(row)
        return rows

    def results(self, **filters: Any) -> list[Result]:
        """Every listed result, each verified; one that fails raises :class:`ResultIntegrityError`."""
        return [self._verified(row) for row in self.result_rows(**filters)]

    def results_for_submission(self, sha256: str) -> list[Result]:
        """A submission's results, oldest version first, each verified (:class:`ResultIntegrityError`)."""
        with self._conn() as conn:
            rows = conn.execute("SELECT * FROM results WHERE submission_sha256 = ? ORDER BY version",
                                (sha256,)).fetchall()
        return [self._verified(dict(r)) for r in rows]

    def result_ids_for_submission(self, sha256: str) -> list[str]:
        """Ids of a submission's results, oldest version first (index only)."""
        with self._conn() as conn:
            rows = conn.execute("SELECT result_id FROM results WHERE submission_sha256 = ? ORDER BY version, "
                                "scored_at", (sha256,)).fetchall()
        return [r["result_id"] for r in rows]

    def set_hidden(self, result_id: str, hidden: bool, *, actor: str, reason: str | None = None) -> None:
        """Hide or show a result; the decision is also written as an immutable moderation record."""
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM results WHERE result_id = ?", (result_id,)).fetchone() is None:
                raise LemmataError(f"no result {result_id!r} in the store")
            at = dt.datetime.now(dt.timezone.utc).isoformat(timespec="microseconds")
            body = {"result_id": result_id, "hidden": hidden, "actor": actor, "reason": reason, "at": at}
            record = ModerationRecord(record_id=sha256_json(body)[:16], **body)
            conn.execute("INSERT INTO display(result_id, hidden, actor, reason, at) VALUES (?, ?, ?, ?, ?) "
                         "ON CONFLICT(result_id) DO UPDATE SET hidden = excluded.hidden, actor = excluded.actor, "
                         "reason = excluded.reason, at = excluded.at",
                         (result_id, int(hidden), actor, reason, at))
            self._log(conn, actor, "hide" if hidden else "unhide", result_id, reason)
            stamp = at.replace(":", "").replace("-", "").replace("+", "Z")
            _atomic_write(self.moderation_dir / f"{stamp}-{record.record_id}.json",
                          record.model_dump_json(indent=2).encode("utf-8"))

    def is_hidden(self, result_id: str) -> bool:
        with self._conn() as conn:
            row = conn.execute("SELECT hidden FROM display WHERE result_id = ?", (result_id,)).fetchone()
        return bool(row and row["hidden"])

    def events(self, limit: int = 200) -> list[dict[str, Any]]:
        with self._conn() as conn:
            return [dict(r) for r in conn.execute("SELECT * FROM events ORDER BY id DESC LIMIT ?", (limit,))]


def _human_duration(seconds: float) -> str:
    """Rounded-up wording of a wait.

    >>> _human_duration(30), _human_duration(125), _human_duration(7300)
    ('1 min', '3 min', '2.0 h')
    """
    if seconds < 3600:
        return f"{max(1, int(-(-seconds // 60)))} min"
    return f"{seconds / 3600:.1f} h"


def default_store() -> Store:
    from lemmata.core.paths import lemmata_home

    return Store(Path(setting("LEMMATA_STORE") or lemmata_home() / "store"))
