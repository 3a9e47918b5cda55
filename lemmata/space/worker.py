"""The background scorer: one thread draining the queue that lives in the store.

The queue survives restarts because it *is* the store: on start the worker
puts back anything a stopped process left in ``scoring`` and resumes. Each
submission is re-validated from its stored bytes (never from memory), scored
by its benchmark's handler, stored as an immutable result, and its status set
to ``scored``, ``pending_oracle`` (some verdicts await an oracle) or
``failed`` with the reason. Rescoring a submission whose result changed stores
a new version that supersedes the old one; an unchanged result stores nothing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from lemmata.formats.results import Result
from lemmata.tracks.base import OracleConfig
from lemmata.runner import score_record
from lemmata.store import Store, SubmissionRecord

log = logging.getLogger("lemmata.space.worker")


class ScoringWorker:
    """Scores queued submissions one at a time in a daemon thread."""

    def __init__(self, store: Store, *, oracles: Callable[[], OracleConfig] = OracleConfig,
                 poll_seconds: float = 2.0, on_change: Callable[[], None] | None = None) -> None:
        self.store = store
        self.oracles = oracles
        self.poll_seconds = poll_seconds
        self.on_change = on_change
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.current: str | None = None
        self.processed = 0

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
            if not worked:
                self._wake.wait(self.poll_seconds)
                self._wake.clear()

    # -- work --------------------------------------------------------------------
    def run_once(self) -> bool:
        """Claim and score one submission; False when the queue is empty."""
        record = self.store.claim_next()
        if record is None:
            return False
        self.current = record.sha256
        try:
            self.process(record)
        finally:
            self.current = None
            self.processed += 1
            if self.on_change is not None:
                self.on_change()
        return True

    def process(self, record: SubmissionRecord) -> Result | None:
        return score_record(self.store, record, self.oracles())
