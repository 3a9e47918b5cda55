"""Opening a store folder: the :class:`Store` assembled from its parts, and its index rebuilt from the files.

A store is one folder (``leaderboard.sqlite3``, ``results/``, ``submissions/``,
``moderation/``). Opening it checks the SQLite index first: a damaged index,
or a missing one beside durable files, is moved aside (never deleted) and
rebuilt by :meth:`Store.reindex`, so a store synced from elsewhere (a Hub
dataset repository) loses nothing.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from lemmata.core.errors import Problem
from lemmata.core.settings import read as setting
from lemmata.formats.results import Result
from lemmata.store.faults import EMPTY, MISSING, check_index, move_aside
from lemmata.store.files import has_durable_files
from lemmata.store.index import RowSummary
from lemmata.store.integrity import VerifiedFiles
from lemmata.store.ledger import LEDGER_FILE, SealLedger
from lemmata.store.moderation import Moderation
from lemmata.store.queue import Queue
from lemmata.store.results import Results

__all__ = ["Store", "default_store"]

log = logging.getLogger("lemmata.store")


class Store(Queue, Results, Moderation):
    """A leaderboard store rooted at one folder (``leaderboard.sqlite3``, ``results/``, ``submissions/``).

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
        self.reindex_problems: list[Problem] = []
        self.verified = VerifiedFiles()
        self.ledger = SealLedger(self.results_dir)
        #: one line when the index was found damaged or missing at open and rebuilt from the durable files
        self.recovery_notice: str | None = None
        self.root.mkdir(parents=True, exist_ok=True)
        damage = check_index(self.db_path)
        rebuild = damage is not None and (damage not in (MISSING, EMPTY) or has_durable_files(self.root))
        moved = move_aside(self.db_path) if rebuild else None
        missing = self._create_schema()
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
        for row in missing:  # rows indexed by an older summary, or by a store opened without one: fill them in once
            with self._write() as conn:
                conn.execute("UPDATE results SET summary_json = ? WHERE result_id = ?",
                             (self._summary_json(Result.from_file(self.root / row["path"])), row["result_id"]))
        if rebuild:
            added = self.reindex()
            aside = f"moved it aside to {moved.name} and " if moved is not None else ""
            self.recovery_notice = (
                f"The SQLite index {damage}: {aside}rebuilt it from the durable files ({added} result(s), "
                f"{sum(self.status_counts().values())} submission(s), "
                f"{len(self.reindex_problems)} unreadable file(s) skipped).")
            log.warning(self.recovery_notice)

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
                if result.sealed_sha256 is not None and result.sealed_sha256 != result.seal():
                    raise ValueError("field 'scored_at' (or another stored field) was edited: the stored fields do "
                                     "not hash to the seal; identities and dates come only from files that verify")
                reason = self.ledger_problem(result.result_id, result.sealed_sha256)
                if reason is not None:
                    raise ValueError(reason)
            except ValueError as exc:
                self._skip(path, exc)
                continue
            if self._index(result, path):
                added += 1
        self._reindex_submissions()
        self._replay_moderation()
        return added


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
