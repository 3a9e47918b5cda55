"""Opening a store folder: the :class:`Store` composed of its parts, and its index rebuilt from the files.

A store is one folder (``leaderboard.sqlite3``, ``results/``, ``submissions/``,
``moderation/``). Opening it checks the SQLite index first: a damaged index,
or a missing one beside durable files, is moved aside (never deleted) and
rebuilt by :meth:`Store.reindex`, so a store synced from elsewhere (a Hub
dataset repository) loses nothing.

The store is one object per concern, each given the SQLite index and the
folders it works on, so each part can be read (and tested) without the
others. Callers keep one handle: the parts' public methods are reached as
``store.<method>`` (:data:`LENT` says which part holds each).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from lemmata.core.errors import Problem
from lemmata.core.settings import read as setting
from lemmata.store.faults import EMPTY, MISSING, check_index, move_aside
from lemmata.store.files import has_durable_files
from lemmata.store.index import Index, RowSummary
from lemmata.store.integrity import Integrity
from lemmata.store.ledger import LEDGER_FILE, SealLedger
from lemmata.store.moderation import Moderation
from lemmata.store.queue import Queue
from lemmata.store.ratelimit import RateLimits
from lemmata.store.results import ResultFiles
from lemmata.store.submissions import Submissions

__all__ = ["LENT", "Store", "default_store"]

log = logging.getLogger("lemmata.store")

#: the methods callers reach as ``store.<method>``, by the part (attribute of :class:`Store`) that holds them
LENT: dict[str, tuple[str, ...]] = {
    "index": ("events", "generation"),
    "integrity": ("verified_document", "verify_files"),
    "rate_limits": ("rate_usage",),
    "submissions": ("add_submission", "get_submission", "list_submissions", "runner_log_bytes", "runner_log_for",
                    "runner_log_path", "set_status", "status_counts", "submission_bytes", "submission_meta_path",
                    "submission_path"),
    "queue": ("claim_next", "requeue", "requeue_after_fault", "requeue_interrupted"),
    "result_files": ("add_result", "add_results", "get_result", "result_ids_for_submission", "result_path",
                     "result_rows", "results", "results_for_submission"),
    "moderation": ("is_hidden", "set_hidden"),
}
_LENDER = {name: part for part, names in LENT.items() for name in names}


class Store:
    """A leaderboard store rooted at one folder (``leaderboard.sqlite3``, ``results/``, ``submissions/``).

    Its parts: ``index`` (the SQLite file), ``integrity`` (stored files checked before they are read),
    ``rate_limits``, ``submissions``, ``queue``, ``result_files`` and ``moderation``.
    ``row_summary`` says what the index keeps of each result for listing; the
    space passes what its board rows show (:data:`lemmata.space.rows.ROW_SUMMARY`).
    """

    def __init__(self, root: str | Path, *, row_summary: RowSummary | None = None) -> None:
        self.root = Path(root)
        self.results_dir = self.root / "results"
        self.submissions_dir = self.root / "submissions"
        self.moderation_dir = self.root / "moderation"
        self.db_path = self.root / "leaderboard.sqlite3"
        self.row_summary = row_summary
        #: files :meth:`reindex` could not read, from its last run
        self.reindex_problems: list[Problem] = []
        #: which results are sealed and their seals (append-only hash chain; see :mod:`lemmata.store.ledger`)
        self.ledger = SealLedger(self.results_dir)
        self.index = Index(self.db_path)
        self.integrity = Integrity(self.index, root=self.root, ledger=self.ledger, row_summary=row_summary)
        self.rate_limits = RateLimits(self.index)
        self.submissions = Submissions(self.index, self.rate_limits, root=self.root, folder=self.submissions_dir)
        self.queue = Queue(self.index)
        self.result_files = ResultFiles(self.index, self.integrity, root=self.root, folder=self.results_dir,
                                        row_summary=row_summary)
        self.moderation = Moderation(self.index, folder=self.moderation_dir)
        #: one line when the index was found damaged or missing at open and rebuilt from the durable files
        self.recovery_notice: str | None = None
        self.root.mkdir(parents=True, exist_ok=True)
        damage = check_index(self.db_path)
        rebuild = damage is not None and (damage not in (MISSING, EMPTY) or has_durable_files(self.root))
        moved = move_aside(self.db_path) if rebuild else None
        missing = self.index.create_schema(row_summary)
        if not self.ledger.exists():  # a new store, or one whose results predate the ledger (their seals as found)
            found = _found_seals(self.results_dir)
            sealed = sum(seal is not None for _, seal in found)
            if sealed:  # the store writes a seal only beside its ledger line: the ledger was removed
                self.ledger.missing = (
                    f"the seal ledger ({LEDGER_FILE}) is missing although {sealed} stored result(s) carry a seal: "
                    "it was removed, and it is not started again over them (that would make a result whose seal "
                    "was stripped look legacy); restore it from a backup or the Hub mirror")
                log.error(self.ledger.missing)
            else:
                self.ledger.start(found)
        # rows indexed by an older summary, or by a store opened without one: fill them in once
        self.result_files.refill_summaries(missing)
        if rebuild:
            added = self.reindex()
            aside = f"moved it aside to {moved.name} and " if moved is not None else ""
            self.recovery_notice = (
                f"The SQLite index {damage}: {aside}rebuilt it from the durable files ({added} result(s), "
                f"{sum(self.submissions.status_counts().values())} submission(s), "
                f"{len(self.reindex_problems)} unreadable file(s) skipped).")
            log.warning(self.recovery_notice)

    def __getattr__(self, name: str) -> Any:
        """A part's method lent to the store (:data:`LENT`): ``store.claim_next`` is ``store.queue.claim_next``."""
        part = _LENDER.get(name)
        if part is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(getattr(self, part), name)

    def reindex(self) -> int:
        """Index every durable file not yet in SQLite; returns how many results were added.

        Results first, then submission sidecars (a restored submission is
        'scored'/'pending_oracle' when a result names it, otherwise 'queued' so
        the worker scores it), then moderation records replayed in order.
        A file that does not parse is skipped, logged as a ``reindex_skip``
        event and listed in ``reindex_problems``: one damaged file must not
        take the whole board down.
        """
        self.reindex_problems = []
        added = self.result_files.reindex(self._skip)
        self.submissions.reindex(self._skip)
        self.moderation.replay(self._skip)
        return added

    def _skip(self, path: Path, exc: Exception) -> None:
        """Record a durable file that could not be read (a ``reindex_skip`` event and a problem) and go on."""
        reason = str(exc).splitlines()
        text = "; ".join(line.strip() for line in reason[:4])[:500]
        self.reindex_problems.append(Problem(str(path.relative_to(self.root)), text))
        with self.index.write() as conn:
            self.index.log(conn, "system", "reindex_skip", str(path.relative_to(self.root)), text)


def _found_seals(results_dir: Path) -> list[tuple[str, str | None]]:
    """``(result_id, seal or None)`` of every result file already stored, in path order (unreadable ones left
    out: they fail their own checks)."""
    out = []
    for path in sorted(results_dir.rglob("*.json")) if results_dir.is_dir() else ():
        if path.name.startswith("."):
            continue
        try:
            doc = json.loads(path.read_bytes())
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and doc.get("result_id") == path.stem:
            seal = doc.get("sealed_sha256")
            out.append((path.stem, seal if isinstance(seal, str) else None))
    return out


def default_store(*, row_summary: RowSummary | None = None) -> Store:
    """The store at ``$LEMMATA_STORE``, else ``$LEMMATA_HOME/store``."""
    from lemmata.core.paths import lemmata_home

    return Store(Path(setting("LEMMATA_STORE") or lemmata_home() / "store"), row_summary=row_summary)
