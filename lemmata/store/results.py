"""Stored results: immutable files named by their content hash, indexed for the board, read only when verified.

Result files are written once and never changed; a correction is a new
version that names the result it supersedes. The index row of a result holds
what listing needs (the frozen tuple's group, the main value and, when the
opener passed a :class:`~lemmata.store.index.RowSummary`, what a row shows), so a
board page reads no result file that is already verified.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from lemmata.core.errors import LemmataError
from lemmata.formats.results import Result
from lemmata.store.files import atomic_write
from lemmata.store.index import Index, RowSummary, equal_to
from lemmata.store.integrity import Integrity, ResultIntegrityError, check_result_bytes

__all__ = ["ResultFiles"]


class ResultFiles:
    """The store's part that adds, lists and reads results: files in ``folder``, each read through ``integrity``
    (which also records each added result's seal in the seal ledger).

    Index rows name their file relative to ``root`` and keep ``row_summary``'s
    summary of it (none when the store was opened without one).
    """

    def __init__(self, index: Index, integrity: Integrity, *, root: Path, folder: Path,
                 row_summary: RowSummary | None) -> None:
        self.index = index
        self.integrity = integrity
        self.root = root
        self.folder = folder
        self.row_summary = row_summary

    def result_path(self, result: Result) -> Path:
        return self.folder / result.benchmark / f"{result.result_id}.json"

    def add_result(self, result: Result) -> tuple[Result, bool]:
        """Store a finalized result; returns ``(stored, created)``.

        Result files are immutable: an existing file with the same id is kept
        as it is (same content by construction, apart from ``scored_at``).
        """
        if not result.result_id or result.result_id != result.content_id():
            raise LemmataError("result_id does not match the result's content; call Result.finalized() first")
        if result.sealed_sha256 != result.seal():  # every result stored from now on binds its date too
            result = result.model_copy(update={"sealed_sha256": None})
            result = result.model_copy(update={"sealed_sha256": result.seal()})
        path = self.result_path(result)
        if path.exists():
            stored = Result.from_file(path)
        else:
            with self.index.write():  # one writer at a time: the ledger line follows the file
                atomic_write(path, result.to_json().encode("utf-8"))
                self.integrity.record_seal(result.result_id, result.sealed_sha256)
            stored = result
        created = self._add_row(stored, path)
        return stored, created

    def add_results(self, results: Iterable[Result]) -> int:
        """Store many finalized results at once (an import, a seeded board); returns how many rows were new.

        Adding one at a time opens the index four times and syncs the seal ledger once per result; here the
        bytes of every new file are first checked as a read checks them (name, id, content hash, seal), then all
        are written, the ledger gets one append and the index one transaction. Each result must be finalized
        (:meth:`~lemmata.formats.results.Result.finalized`), else nothing is stored; a file already stored is
        kept as it is.
        """
        checked: list[tuple[Result, Path, bytes | None, str | None]] = []
        for result in results:  # every result checked before any file is written: all are stored, or none
            path = self.result_path(result)
            if path.exists():
                checked.append((result, path, None, None))
                continue
            if result.sealed_sha256 is None:
                raise LemmataError(f"result {result.result_id[:12] or '(no id)'} is not sealed; call "
                                   "Result.finalized() first")
            data = result.to_json().encode("utf-8")
            try:  # what a read checks: name, id, content hash and seal
                doc = check_result_bytes(data, result_id=result.result_id, path=str(path))
            except ResultIntegrityError as exc:
                raise LemmataError(f"{exc.reason}; call Result.finalized() first") from None
            summary = None if self.row_summary is None else json.dumps(self.row_summary.of(doc), default=str)
            checked.append((result, path, data, summary))
        batch: list[tuple[Result, Path, str | None]] = []
        with self.index.write() as conn:  # one writer at a time: the ledger lines follow the files
            for result, path, data, summary in checked:
                if data is None:  # stored before: kept as it is
                    result = Result.from_file(path)
                    summary = self._summary_json(result)
                else:
                    atomic_write(path, data)
                batch.append((result, path, summary))
            self.integrity.ledger.append([(r.result_id, r.sealed_sha256) for r, _, data, _ in checked
                                          if data is not None])
            return sum(self._insert_row(conn, result, path, summary) for result, path, summary in batch)

    def reindex(self, skip: Callable[[Path, Exception], None]) -> int:
        """Index every result file not yet in SQLite; returns how many were added.

        Only a file whose name, ``result_id``, content hash, seal and ledger
        line agree is indexed; any other is handed to ``skip`` and left out.
        """
        with self.index.connect() as conn:
            known = {r["result_id"] for r in conn.execute("SELECT result_id FROM results")}
        added = 0
        for path in sorted(self.folder.rglob("*.json")):
            if path.name.startswith(".") or path.stem in known:
                continue
            try:
                result = Result.from_file(path)
                if result.result_id != path.stem or result.content_id() != result.result_id:
                    raise ValueError("file name, result_id and content hash disagree")
                if result.sealed_sha256 is not None and result.sealed_sha256 != result.seal():
                    raise ValueError("field 'scored_at' (or another stored field) was edited: the stored fields do "
                                     "not hash to the seal; identities and dates come only from files that verify")
                reason = self.integrity.ledger_problem(result.result_id, result.sealed_sha256)
                if reason is not None:
                    raise ValueError(reason)
            except ValueError as exc:
                skip(path, exc)
                continue
            if self._add_row(result, path):
                added += 1
        return added

    def refill_summaries(self, rows: list[sqlite3.Row]) -> None:
        """Compute the summary of rows indexed by an older summary, or by a store opened without one (on open)."""
        for row in rows:
            with self.index.write() as conn:
                conn.execute("UPDATE results SET summary_json = ? WHERE result_id = ?",
                             (self._summary_json(Result.from_file(self.root / row["path"])), row["result_id"]))

    def _add_row(self, result: Result, path: Path) -> bool:
        with self.index.write() as conn:
            return self._insert_row(conn, result, path, self._summary_json(result))

    def _insert_row(self, conn: sqlite3.Connection, result: Result, path: Path, summary: str | None) -> bool:
        """Index one stored result (with its row summary) inside the caller's write transaction; whether it is new."""
        cur = conn.execute(
            "INSERT OR IGNORE INTO results(result_id, submission_sha256, version, supersedes, kind, benchmark, "
            "track, group_key, model_name, main_value, status, pending, scored_at, path, summary_json) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (result.result_id, result.submission_sha256, result.version, result.supersedes, result.kind,
             result.benchmark, result.track, result.frozen.group_key(), result.model.name, result.main.value,
             result.status, result.pending, result.scored_at, str(path.relative_to(self.root)), summary),
        )
        created = cur.rowcount == 1
        if created:
            self.index.log(conn, "system", "result", result.result_id, f"{result.benchmark}/{result.track}")
        return created

    def get_result(self, result_id: str) -> Result | None:
        """The stored result, verified against its content hash and index row (:class:`ResultIntegrityError`)."""
        with self.index.connect() as conn:
            row = conn.execute("SELECT * FROM results WHERE result_id = ?", (result_id,)).fetchone()
        return self.integrity.verified_result(dict(row)) if row else None


    def result_rows(self, *, benchmark: str | None = None, track: str | None = None, latest_only: bool = True,
                    include_hidden: bool = False) -> list[dict[str, Any]]:
        """Index rows — what the leaderboard lists; ``summary_json`` holds the row's display data.

        Each row carries ``integrity``: None when its file still matches its
        content hash and the row, else the reason (then nothing of the row may
        be shown). Files are read only when new here or changed on disk.
        """
        where, args = equal_to({"r.benchmark": benchmark, "r.track": track})
        sql = ("SELECT r.*, COALESCE(d.hidden, 0) AS hidden FROM results r "
               "LEFT JOIN display d ON d.result_id = r.result_id WHERE 1=1" + where)
        if latest_only:
            sql += " AND r.result_id NOT IN (SELECT supersedes FROM results WHERE supersedes IS NOT NULL)"
        if not include_hidden:
            sql += " AND COALESCE(d.hidden, 0) = 0"
        sql += " ORDER BY r.benchmark, r.track, r.group_key, r.main_value DESC, r.model_name, r.result_id"
        with self.index.connect() as conn:
            rows = [dict(r) for r in conn.execute(sql, args)]
        for row in rows:  # the index holds what the file held when written; the file must still hold it
            row["integrity"] = self.integrity.verdict(row)
            row["summary_json"] = self.integrity.checked_summary(row)
            if row["summary_json"] is None and row["integrity"] is None and self.row_summary is not None:
                row["summary_json"] = self._fill_summary(row)
        return rows

    def results(self, **filters: Any) -> list[Result]:
        """Every listed result, each verified; one that fails raises :class:`ResultIntegrityError`."""
        return [self.integrity.verified_result(row) for row in self.result_rows(**filters)]

    def results_for_submission(self, sha256: str) -> list[Result]:
        """A submission's results, oldest version first, each verified (:class:`ResultIntegrityError`)."""
        with self.index.connect() as conn:
            rows = conn.execute("SELECT * FROM results WHERE submission_sha256 = ? ORDER BY version",
                                (sha256,)).fetchall()
        return [self.integrity.verified_result(dict(r)) for r in rows]

    def result_ids_for_submission(self, sha256: str) -> list[str]:
        """Ids of a submission's results, oldest version first (index only)."""
        with self.index.connect() as conn:
            rows = conn.execute("SELECT result_id FROM results WHERE submission_sha256 = ? ORDER BY version, "
                                "scored_at", (sha256,)).fetchall()
        return [r["result_id"] for r in rows]

    def _summary_json(self, result: Result) -> str | None:
        """The row summary of ``result`` for its index row (None when this store was opened without one)."""
        if self.row_summary is None:
            return None
        return json.dumps(self.row_summary.of_result(result), default=str)

    def _fill_summary(self, row: dict[str, Any]) -> str | None:
        """Compute and keep the summary of a row indexed without one (by a store opened without a summary)."""
        assert self.row_summary is not None
        try:
            summary = json.dumps(self.row_summary.of(self.integrity.verified_document(row)), default=str)
        except ResultIntegrityError:  # changed since it was checked: the next listing reports it
            return None
        with self.index.write() as conn:
            conn.execute("UPDATE results SET summary_json = ? WHERE result_id = ? AND summary_json IS NULL",
                         (summary, row["result_id"]))
        return summary
