"""The SQLite index of a store: its schema, connections, serialised write transactions and the event log.

The index is derived state: every entry can be rebuilt from the durable files
(:mod:`lemmata.store.files`) by :meth:`~lemmata.store.Store.reindex`, plus the
mutable state around them (submission status, the scoring queue, display
flags, rate-limit counters, an audit log) that is recomputed from those files or
is safe to lose. One :class:`Index` is given to every part of the store, so
all parts write through the same serialised transactions into one event log;
it owns no policy, only the plumbing.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lemmata.formats.results import Result, now_iso

__all__ = ["STORE_SCHEMA", "Index", "RowSummary", "equal_to"]

log = logging.getLogger("lemmata.store")

STORE_SCHEMA = 2

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


@dataclass(frozen=True)
class RowSummary:
    """What the index keeps of each result so that listing reads no result files, and its version.

    The store does not decide what a row shows: whoever shows rows (the space)
    passes this in. ``of`` maps a result's JSON document (its ``items`` kept, to
    be counted) to a JSON-able dict; a new ``version`` makes the next open
    recompute every row's summary from its file. A store opened without one
    (the CLI) leaves new rows' summaries empty, and the next store opened with
    one fills them in.
    """

    version: int
    of: Callable[[dict[str, Any]], dict[str, Any]]

    def of_result(self, result: Result) -> dict[str, Any]:
        """The summary of a result object (its document as its file holds it, items included to be counted)."""
        doc = result.model_dump(mode="json", exclude={"items"})
        doc["items"] = result.items
        return self.of(doc)


def equal_to(filters: dict[str, Any]) -> tuple[str, list[Any]]:
    """The SQL condition ``AND column = ?`` for every filter given a value (an empty one filters nothing), and
    its arguments.

    >>> equal_to({"r.benchmark": "mirb", "r.track": None})
    (' AND r.benchmark = ?', ['mirb'])
    """
    given = {column: value for column, value in filters.items() if value}
    return "".join(f" AND {column} = ?" for column in given), list(given.values())


class Index:
    """The SQLite file of one store, which every part of a :class:`~lemmata.store.Store` is given."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A connection in autocommit mode (WAL: readers do not wait for the writer); :meth:`write` for a
        transaction."""
        conn = sqlite3.connect(self.db_path, timeout=30, isolation_level=None)
        conn.row_factory = sqlite3.Row
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            yield conn
        finally:
            conn.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One serialised write transaction (BEGIN IMMEDIATE): all or nothing."""
        with self.connect() as conn:
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

    def create_schema(self, row_summary: RowSummary | None) -> list[sqlite3.Row]:
        """Create or upgrade the tables in place; returns the rows whose summary (``row_summary``'s, when the
        opener passed one) must be (re)computed."""
        with self.connect() as conn:
            conn.executescript(_DDL)
            for table, columns in _ADDED_COLUMNS.items():
                have = {r["name"] for r in conn.execute(f"PRAGMA table_info({table})")}
                for column, sqltype in columns.items():
                    if column not in have:
                        conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {sqltype}")
            conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)", (str(STORE_SCHEMA),))
            conn.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(STORE_SCHEMA),))
            if row_summary is None:
                return []
            row = conn.execute("SELECT value FROM meta WHERE key = 'summary_version'").fetchone()
            if row is None or row["value"] != str(row_summary.version):
                conn.execute("UPDATE results SET summary_json = NULL")
                conn.execute("INSERT INTO meta(key, value) VALUES ('summary_version', ?) ON CONFLICT(key) DO "
                             "UPDATE SET value = excluded.value", (str(row_summary.version),))
            return conn.execute("SELECT result_id, path FROM results WHERE summary_json IS NULL").fetchall()

    def log(self, conn: sqlite3.Connection, actor: str, action: str, target: str, detail: str | None = None) -> None:
        """Add one line to the audit log, inside the caller's write transaction (``conn``)."""
        conn.execute("INSERT INTO events(at, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)",
                     (now_iso(), actor, action, target, detail))

    def generation(self) -> int:
        """A number that grows with every change (every write logs an event): cheap change detection."""
        with self.connect() as conn:
            return int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()[0])

    def events(self, limit: int = 200) -> list[dict[str, Any]]:
        """The newest ``limit`` lines of the audit log, newest first."""
        with self.connect() as conn:
            return [dict(r) for r in conn.execute("SELECT * FROM events ORDER BY id DESC LIMIT ?", (limit,))]
