"""The background scorer: one thread draining the queue that lives in the store.

The queue survives restarts because it *is* the store: on start the worker
puts back anything a stopped process left in ``scoring`` and resumes. Each
submission is re-validated from its stored bytes (never from memory), scored
by its benchmark's handler, stored as an immutable result, and its status set
to ``scored``, ``pending_oracle`` (some verdicts await an oracle) or
``failed`` with the reason. A storage fault (full disk, I/O error) is no
verdict: the submission goes back to ``queued`` with the reason, at most
``fault_retries`` times, and the worker waits ``fault_backoff_s`` before
claiming again. When even recording a status fails, the original error is
what is logged and reported, and the status change is retried on the next
iteration instead of leaving the entry in ``scoring`` until a restart. Rescoring a submission whose result changed stores
a new version that supersedes the old one; an unchanged result stores nothing.

A pause is never silent: while the worker waits out a storage fault, or holds a status change the store would
not take (a full disk refuses the index's writes too), :meth:`ScoringWorker.notice` says so and why, the board's
banner and the status table show it, and an entry still marked ``scoring`` in the index shows the reason it goes
back to the queue (:meth:`ScoringWorker.pending_reasons`).

When an oracle is configured (a judge or a Lean verifier) and the queue is
empty, the worker queues the submissions still waiting for an oracle
(``pending_oracle``) again, at most every ``revisit_pending_s`` seconds, so
verdicts that could not be had before (no oracle then, or it was down) fill in
as new result versions — what ``lemmata judge`` does from the command line.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from lemmata.formats.results import Result
from lemmata.tracks.base import OracleConfig
from lemmata.scoring import FAULT_RETRIES, failure_reason, score_stored, settled_status
from lemmata.store import Store, SubmissionRecord
from lemmata.store.faults import describe_fault, is_storage_fault

log = logging.getLogger("lemmata.space.worker")
MAX_REASON = 2000
FAULT_BACKOFF_S = 30.0
#: how often an idle worker with an oracle queues the submissions that wait for one again
REVISIT_PENDING_S = 900.0


class ScoringWorker:
    """Scores queued submissions one at a time in a daemon thread."""

    def __init__(self, store: Store, *, oracles: Callable[[], OracleConfig] = OracleConfig,
                 poll_seconds: float = 2.0, on_change: Callable[[], None] | None = None,
                 fault_retries: int = FAULT_RETRIES, fault_backoff_s: float = FAULT_BACKOFF_S,
                 revisit_pending_s: float = REVISIT_PENDING_S) -> None:
        self.store = store
        self.revisit_pending_s = revisit_pending_s
        self._revisited_at: float | None = None
        self.fault_retries = fault_retries
        self.fault_backoff_s = fault_backoff_s
        #: the error that stopped the last :meth:`process` call (None after a success)
        self.last_error: BaseException | None = None
        #: status changes that could not be written yet: sha256 -> (status or "fault", reason)
        self.unsettled: dict[str, tuple[str, str | None]] = {}
        self._resume_at = 0.0
        self.oracles = oracles
        self.poll_seconds = poll_seconds
        self.on_change = on_change
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.current: str | None = None
        self.processed = 0
        #: the storage fault the worker is waiting out (None: none); shown by :meth:`notice`
        self._fault: str | None = None
        self._fault_until = 0.0  # wall-clock time the back-off ends (shown as a time of day)
        #: changes whenever :meth:`notice` or :meth:`pending_reasons` may have changed (the page's change token)
        self.revision = 0
        #: light periodic work the space gives this thread (each decides itself whether it is due, e.g. reading
        #: the Hub leaderboards again): run once per poll, between submissions
        self.chores: list[Callable[[], object]] = []

    # -- lifecycle -------------------------------------------------------------
    def start(self) -> int:
        """Requeue interrupted work and start the thread; returns how many submissions were requeued."""
        requeued = self.store.requeue_interrupted()
        if requeued:
            log.info("requeued %d submission(s) interrupted by a previous stop", requeued)
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="lemmata-scoring-worker", daemon=True)
            self._thread.start()
        return requeued

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wake(self) -> None:
        """Score now instead of at the next poll (called after an upload)."""
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                worked = self.run_once()
            except Exception:  # the loop must survive a broken store read; the next poll retries
                log.exception("scoring worker iteration failed")
                worked = False
            for chore in list(self.chores):
                try:
                    chore()
                except Exception:  # a chore that fails is logged and asked again at the next poll
                    log.exception("scoring worker chore failed")
            if not worked:
                self._wake.wait(self.poll_seconds)
                self._wake.clear()

    # -- work --------------------------------------------------------------------
    def run_once(self) -> bool:
        """Claim and score one submission; False when the queue is empty, or while a storage fault is
        being waited out (unwritten status changes pending, or within the back-off)."""
        if not self._settle_pending() or time.monotonic() < self._resume_at:
            return False
        if self._fault is not None:  # the back-off is over, queue or no queue: the page drops the pause banner
            self._fault = None
            self.revision += 1
        record = self.store.claim_next()
        if record is None:
            return self._revisit_pending()
        self.current = record.sha256
        try:
            self.process(record)
        finally:
            self.current = None
            self.processed += 1
            if self.on_change is not None:
                self.on_change()
        return True

    def _revisit_pending(self) -> bool:
        """Queue the submissions waiting for an oracle again when one is configured; True when any was queued."""
        now = time.monotonic()
        if self._revisited_at is not None and now - self._revisited_at < self.revisit_pending_s:
            return False
        self._revisited_at = now
        oracles = self.oracles()
        if oracles.judge is None and oracles.lean is None:
            return False
        waiting = self.store.list_submissions(status="pending_oracle")
        for record in waiting:
            self.store.requeue(record.sha256, actor="worker", reason="an oracle is configured: fill pending verdicts")
        if waiting:
            log.info("queued %d submission(s) waiting for an oracle again", len(waiting))
        return bool(waiting)

    def process(self, record: SubmissionRecord) -> Result | None:
        started = time.perf_counter()
        self.last_error = None
        try:
            stored = score_stored(self.store, record, self.oracles())
        except Exception as exc:
            self.last_error = exc
            if is_storage_fault(exc):
                log.error("scoring %s hit a storage fault: %s", record.sha256[:12], exc)
                self._resume_at = time.monotonic() + self.fault_backoff_s
                self._fault, self._fault_until = describe_fault(exc), time.time() + self.fault_backoff_s
                self.revision += 1
                self._settle(record.sha256, "fault", f"storage fault while scoring: {describe_fault(exc)}", exc)
            else:
                log.warning("scoring %s failed: %s", record.sha256[:12], exc)
                self._settle(record.sha256, "failed", failure_reason(exc), exc)
            return None
        status, reason = settled_status(stored)
        self._settle(record.sha256, status, reason)
        log.info("scored %s (%s/%s) in %.2fs", record.sha256[:12], stored.benchmark, stored.track,
                 time.perf_counter() - started)
        return stored

    # -- status changes that survive a failing store ---------------------------------------------------
    def _settle(self, sha256: str, status: str, reason: str | None, cause: BaseException | None = None) -> bool:
        """Record ``status`` (``"fault"``: requeue within the retry bound); on failure keep it for later.

        A failure here never replaces ``cause``: both are logged, the cause
        stays :attr:`last_error`, and the change waits in :attr:`unsettled`.
        """
        try:
            if status == "fault":
                self.store.requeue_after_fault(sha256, reason or "storage fault", max_retries=self.fault_retries)
            else:
                self.store.set_status(sha256, status, reason)  # type: ignore[arg-type]
        except Exception as exc:
            if self.unsettled.get(sha256) != (status, reason):
                self.revision += 1
            self.unsettled[sha256] = (status, reason)
            self._resume_at = time.monotonic() + self.fault_backoff_s
            if cause is not None:
                log.error("could not record status %r for %s (%s) after: %s", status, sha256[:12], exc, cause)
            else:
                log.error("could not record status %r for %s: %s", status, sha256[:12], exc)
            return False
        if self.unsettled.pop(sha256, None) is not None:
            self.revision += 1
        return True

    # -- what the page shows of a pause -------------------------------------------------------------
    def notice(self) -> str | None:
        """One sentence while scoring is held up by a storage fault (None otherwise): what waits, and why."""
        held = list(self.unsettled.values())  # one snapshot: the worker thread changes the dict
        if held:
            return (f"Scoring is paused: the store could not record {len(held)} status change(s) "
                    f"({held[0][1] or 'storage fault'}); the submission(s) still shown as scoring are settled as "
                    "soon as it takes writes again (back to the queue after a storage fault), and queued "
                    "submissions wait.")
        if self._fault is not None and time.monotonic() < self._resume_at:
            until = time.strftime("%H:%M:%S UTC", time.gmtime(self._fault_until))
            return (f"Scoring is paused after a storage fault ({self._fault}): queued submissions wait; the scorer "
                    f"tries again at {until}.")
        return None

    def pending_reasons(self) -> dict[str, str]:
        """Why each entry the index still marks ``scoring`` is waiting: its status change the store refused."""
        return {sha: (f"{reason or 'storage fault'}; back to the queue once the store accepts writes"
                      if status == "fault" else f"{status} ({reason}) once the store accepts writes" if reason
                      else f"{status} once the store accepts writes")
                for sha, (status, reason) in list(self.unsettled.items())}

    def _settle_pending(self) -> bool:
        """Retry the status changes a failing store refused; True when none is left."""
        for sha256, (status, reason) in list(self.unsettled.items()):
            if not self._settle(sha256, status, reason):
                return False
        return True
