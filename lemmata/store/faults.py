"""Storage faults of the leaderboard store: naming them, and checking the SQLite index before use.

A full disk or an I/O error is not the visitor's fault and not a scoring
verdict: it must surface as one sentence (:class:`StorageError`), leave no
half-written file behind, and put work back in the queue. The SQLite index
is derived state (every entry can be rebuilt from the durable files), so a
damaged or missing index is moved aside — never deleted, it may be needed to
investigate — and rebuilt instead of stopping the server.
"""

from __future__ import annotations

import datetime as dt
import errno
import logging
import sqlite3
from pathlib import Path

from lemmata.core.errors import LemmataError

log = logging.getLogger("lemmata.store")

#: the tables (and their original columns) every store index has had since schema 1
REQUIRED_COLUMNS = {
    "meta": {"key", "value"},
    "submissions": {"sha256", "benchmark", "track", "filename", "model_name", "submitter", "received_at",
                    "header_json", "status", "status_reason", "attempts", "updated_at"},
    "results": {"result_id", "submission_sha256", "version", "supersedes", "kind", "benchmark", "track",
                "group_key", "model_name", "main_value", "status", "pending", "scored_at", "path"},
    "display": {"result_id", "hidden", "actor", "reason", "at"},
    "events": {"id", "at", "actor", "action", "target", "detail"},
}
#: what :func:`check_index` says of a file that holds no tables at all (a fresh or zero-byte index)
EMPTY = "holds no tables"
MISSING = "is missing"
_FULL = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}


class StorageError(LemmataError):
    """The store could not write (disk full, I/O error); the message is one sentence for a visitor."""


def is_storage_fault(exc: BaseException) -> bool:
    """Whether ``exc`` is the disk failing rather than the input or the code.

    >>> is_storage_fault(OSError(errno.ENOSPC, "No space left on device"))
    True
    >>> is_storage_fault(sqlite3.OperationalError("database or disk is full"))
    True
    >>> is_storage_fault(FileNotFoundError(errno.ENOENT, "gone")), is_storage_fault(ValueError("bad"))
    (False, False)
    """
    if isinstance(exc, StorageError):
        return True
    if isinstance(exc, sqlite3.OperationalError):
        text = str(exc).lower()
        return "disk" in text or "full" in text or "readonly" in text or "read-only" in text
    if isinstance(exc, OSError):
        return exc.errno in _FULL | {errno.EIO, errno.EROFS}
    return False


def describe_fault(exc: BaseException) -> str:
    """The cause of a storage fault as a short phrase.

    >>> describe_fault(OSError(errno.EFBIG, "File too large"))
    'the disk is full'
    >>> describe_fault(sqlite3.OperationalError("disk I/O error"))
    'the disk reported an I/O error'
    """
    if isinstance(exc, StorageError) and exc.__cause__ is not None:
        return describe_fault(exc.__cause__)
    if isinstance(exc, OSError):
        if exc.errno in _FULL:
            return "the disk is full"
        if exc.errno == errno.EROFS:
            return "the disk is read-only"
        if exc.errno == errno.EIO:
            return "the disk reported an I/O error"
        return f"the disk could not be written ({exc.strerror or exc})"
    text = str(exc).lower()
    if "full" in text:
        return "the disk is full"
    if "i/o" in text:
        return "the disk reported an I/O error"
    if "readonly" in text or "read-only" in text:
        return "the disk is read-only"
    return f"the disk could not be written ({exc})"


def check_index(db_path: Path) -> str | None:
    """``None`` when the index at ``db_path`` is sound; otherwise why not, as a phrase after "the index".

    Sound means SQLite opens it, ``PRAGMA quick_check`` answers ``ok`` and
    every table the store relies on has its columns. A missing file answers
    :data:`MISSING`, a file without tables :data:`EMPTY` (both are normal for a
    new store).
    """
    if not db_path.exists():
        return MISSING
    try:
        conn = sqlite3.connect(db_path, timeout=30)
        try:
            verdict = [row[0] for row in conn.execute("PRAGMA quick_check(5)")]
            if verdict != ["ok"]:
                return "fails SQLite's integrity check (" + "; ".join(str(v) for v in verdict)[:300] + ")"
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables:
                return EMPTY
            for table, columns in REQUIRED_COLUMNS.items():
                have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
                if not columns <= have:
                    return f"lacks the store's schema (table {table!r} is missing or incomplete)"
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        return f"is not a readable SQLite database ({exc})"
    return None


def move_aside(db_path: Path) -> Path | None:
    """Rename the index and its ``-wal``/``-shm`` files with a UTC timestamp; returns the new main path.

    Nothing is deleted: the damaged file stays next to the new one for
    inspection. Returns ``None`` when there was no main file to move.
    """
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    moved: Path | None = None
    for suffix in ("", "-wal", "-shm"):
        path = db_path.with_name(db_path.name + suffix)
        if not path.exists():
            continue
        target = path.with_name(f"{path.name}.damaged-{stamp}")
        try:
            path.rename(target)
        except FileNotFoundError:  # another process opening the same store moved it first
            continue
        if suffix == "":
            moved = target
    return moved
