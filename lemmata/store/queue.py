"""The scoring queue: submissions claimed one at a time, put back after an interruption or a storage fault.

The queue is the ``status`` column of the submissions table: the worker claims
the oldest ``queued`` entry atomically, so two workers never score the same
one, and whatever a stopped worker left in ``scoring`` is queued again at
start-up.
"""

from __future__ import annotations

from lemmata.core.errors import LemmataError
from lemmata.formats.results import now_iso
from lemmata.store.index import Index
from lemmata.store.submissions import SubmissionRecord, SubmissionStatus

__all__ = ["Queue"]


class Queue:
    """The store's part that hands stored submissions to the scorer and takes them back."""

    def __init__(self, index: Index) -> None:
        self.index = index

    def claim_next(self) -> SubmissionRecord | None:
        """Atomically move the oldest queued submission to 'scoring' and return it."""
        with self.index.write() as conn:
            row = conn.execute(
                "UPDATE submissions SET status = 'scoring', attempts = attempts + 1, updated_at = ? WHERE sha256 = "
                "(SELECT sha256 FROM submissions WHERE status = 'queued' ORDER BY received_at, sha256 LIMIT 1) "
                "RETURNING *", (now_iso(),)
            ).fetchone()
            if row is not None:
                self.index.log(conn, "system", "status:scoring", row["sha256"])
        return SubmissionRecord.from_row(row) if row else None

    def requeue_interrupted(self) -> int:
        """Put back submissions left in 'scoring' by a stopped worker (called at start-up)."""
        with self.index.write() as conn:
            cur = conn.execute("UPDATE submissions SET status = 'queued', updated_at = ? WHERE status = 'scoring'",
                               (now_iso(),))
            if cur.rowcount:
                self.index.log(conn, "system", "requeue_interrupted", "*", str(cur.rowcount))
            return cur.rowcount

    def requeue_after_fault(self, sha256: str, reason: str, *, max_retries: int) -> SubmissionStatus:
        """Put a submission whose scoring hit a storage fault back in the queue, at most ``max_retries`` times.

        Retries are counted from the ``fault_retry`` events since the entry was
        submitted, restored or rescored; past the bound it is ``failed`` with
        the reason, so a disk that stays full cannot keep it cycling. Only a
        submission still in ``scoring`` is moved. Returns the new status.
        """
        with self.index.write() as conn:
            since = conn.execute("SELECT COALESCE(MAX(id), 0) FROM events WHERE target = ? AND action IN "
                                 "('submit', 'restore', 'rescore')", (sha256,)).fetchone()[0]
            done = conn.execute("SELECT COUNT(*) FROM events WHERE target = ? AND action = 'fault_retry' AND id > ?",
                                (sha256, since)).fetchone()[0]
            status: SubmissionStatus = "queued" if done < max_retries else "failed"
            detail = (f"{reason}; retry {done + 1} of {max_retries}" if status == "queued"
                      else f"{reason}; gave up after {done} retries")
            conn.execute("UPDATE submissions SET status = ?, status_reason = ?, updated_at = ? "
                         "WHERE sha256 = ? AND status = 'scoring'", (status, detail, now_iso(), sha256))
            self.index.log(conn, "system", "fault_retry" if status == "queued" else "status:failed", sha256, detail)
        return status

    def requeue(self, sha256: str, *, actor: str, reason: str | None = None) -> None:
        """Queue a stored submission for scoring again (an admin's rescore)."""
        with self.index.write() as conn:
            cur = conn.execute("UPDATE submissions SET status = 'queued', status_reason = ?, updated_at = ? "
                               "WHERE sha256 = ? AND status != 'scoring'", (reason, now_iso(), sha256))
            if cur.rowcount != 1:
                known = conn.execute("SELECT status FROM submissions WHERE sha256 = ?", (sha256,)).fetchone()
                if known is None:
                    raise LemmataError(f"no submission {sha256!r} in the store")
                raise LemmataError(f"submission {sha256[:12]} is being scored right now; try again when it is done")
            self.index.log(conn, actor, "rescore", sha256, reason)
