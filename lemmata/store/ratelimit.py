"""How many new submissions a submitter may make: the limit, its refusal, and the count kept in the index.

Counting happens inside the write transaction that stores the upload
(:meth:`~lemmata.store.submissions.Submissions.add_submission`), so parallel uploads cannot
overrun a limit; a re-upload of bytes already stored counts against nothing.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from lemmata.core.errors import LemmataError
from lemmata.store.index import Index

__all__ = ["RateLimit", "RateLimited", "RateLimits", "human_duration"]


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


def human_duration(seconds: float) -> str:
    """Rounded-up wording of a wait.

    >>> human_duration(30), human_duration(125), human_duration(7300)
    ('1 min', '3 min', '2.0 h')
    """
    if seconds < 3600:
        return f"{max(1, int(-(-seconds // 60)))} min"
    return f"{seconds / 3600:.1f} h"


class RateLimits:
    """The store's part that counts new submissions per key (the ``rate_events`` table)."""

    def __init__(self, index: Index) -> None:
        self.index = index

    def check(self, conn: sqlite3.Connection, limit: RateLimit, keys: Sequence[str]) -> None:
        """Raise :class:`RateLimited` when any key is at ``limit``, inside the caller's write transaction."""
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
                    f"{human_duration(retry)}", retry_after_s=max(retry, 0.0))

    def count(self, conn: sqlite3.Connection, keys: Sequence[str]) -> None:
        """Count one new submission against every key, in the transaction that stored it."""
        stamp = dt.datetime.now(dt.timezone.utc).timestamp()
        conn.executemany("INSERT INTO rate_events(key, at) VALUES (?, ?)", [(k, stamp) for k in keys])

    def rate_usage(self, key: str, limit: RateLimit) -> int:
        """How many new submissions ``key`` made in the current window."""
        since = dt.datetime.now(dt.timezone.utc).timestamp() - limit.window_s
        with self.index.connect() as conn:
            return conn.execute("SELECT COUNT(*) FROM rate_events WHERE key = ? AND at >= ?",
                                (key, since)).fetchone()[0]
