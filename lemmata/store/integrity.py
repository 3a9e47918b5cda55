"""Stored result files checked against their content hash whenever the store reads them.

A result file is named by its ``result_id``, and ``result_id`` is the hash of
its content (:meth:`~lemmata.formats.results.Result.content_id`). A file whose
name, ``result_id`` and content hash disagree was changed after it was
written; its numbers must never be shown, ranked or exported. The index row
for it was made from the file as written, so the index columns are compared
with the file too: an edit that keeps the hash consistent (a recomputed
``result_id`` under the old file name) or an edited index row is caught the
same way.

Listing the board must not parse every file on every page view, so
:class:`VerifiedFiles` remembers each file's verdict next to its ``stat``
fingerprint (inode, size, modification and change time in nanoseconds) and
what the index row it was checked with said (:func:`row_state`), and
re-verifies whenever either differs. The change time (``ctime``) is set
by the kernel on every write and cannot be set back by a user, so an edit
that restores the modification time is still seen; an edit to the index row
alone (its summary, say) leaves the file's fingerprint as it was, and is seen
by the row's state.

A store opened without a :class:`~lemmata.store.index.RowSummary` cannot
recompute a row's summary, so it cannot check one: it hands none out
(:meth:`Integrity.checked_summary`), and whoever shows the row summarises the
verified file instead.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

from lemmata.core.errors import LemmataError, Problem
from lemmata.core.hashing import sha256_bytes, sha256_json
from lemmata.formats.results import Result
from lemmata.formats.runner_log import RUNNER_LOG_SUFFIX, declared_log_sha256
from lemmata.store.index import Index, RowSummary
from lemmata.store.ledger import LEDGER_FILE, LedgerError, SealLedger

__all__ = ["Fingerprint", "Integrity", "ResultIntegrityError", "VerifiedFiles", "check_result_bytes", "fingerprint",
           "parse_checked", "row_state"]

log = logging.getLogger("lemmata.store")

Fingerprint = tuple[int, int, int, int, int]
#: the fields :meth:`Result.content_id` leaves out of the hash
_UNHASHED = ("result_id", "scored_at", "sealed_sha256")
#: the columns of a ``results`` index row, all of which are checked against (or derived from) its file
_ROW_COLUMNS = ("result_id", "submission_sha256", "version", "supersedes", "kind", "benchmark", "track", "group_key",
                "model_name", "main_value", "status", "pending", "scored_at", "path", "summary_json")


class ResultIntegrityError(LemmataError):
    """A stored result file does not match its content hash or its index row; nothing from it may be shown."""

    def __init__(self, result_id: str, path: str, reason: str) -> None:
        super().__init__(f"integrity error in stored result {result_id[:12]} ({path}): {reason}")
        self.result_id = result_id
        self.path = path
        self.reason = reason


def check_result_bytes(data: bytes, *, result_id: str, path: str) -> dict[str, Any]:
    """The JSON document a stored file holds, when its name, ``result_id`` and content hash agree; else raise.

    The hash is taken over the parsed document exactly as stored (the same
    canonical form :meth:`~lemmata.formats.results.Result.content_id` hashes),
    so a field added, removed or changed anywhere but ``scored_at`` is seen
    without validating the record first.

    >>> doc = {"schema_version": "lemmata.result/1", "kind": "scored", "scored_at": "2026-01-01T00:00:00+00:00"}
    >>> rid = sha256_json({"schema_version": "lemmata.result/1", "kind": "scored"})
    >>> check_result_bytes(json.dumps({**doc, "result_id": rid}).encode(), result_id=rid, path=f"r/{rid}.json")["kind"]
    'scored'
    >>> check_result_bytes(json.dumps({**doc, "kind": "reported", "result_id": rid}).encode(), result_id=rid,
    ...                    path=f"r/{rid}.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    lemmata.store.integrity.ResultIntegrityError: integrity error in stored result ... the content hashes to ...
    """
    try:
        doc = json.loads(data)
    except ValueError as exc:
        raise ResultIntegrityError(result_id, path, f"the file is not JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise ResultIntegrityError(result_id, path, "the file does not hold a JSON object")
    if doc.get("result_id") != result_id:
        raise ResultIntegrityError(result_id, path, f"the file names result_id {str(doc.get('result_id'))[:12]!r}")
    if Path(path).stem != result_id:
        raise ResultIntegrityError(result_id, path, "the file name is not the result_id")
    actual = sha256_json({k: v for k, v in doc.items() if k not in _UNHASHED})
    if actual != result_id:
        raise ResultIntegrityError(result_id, path, f"the content hashes to {actual[:12]}, not to its result_id")
    seal = doc.get("sealed_sha256")
    if seal is not None:
        sealed = sha256_json({k: v for k, v in doc.items() if k not in ("result_id", "sealed_sha256")})
        if sealed != seal:
            raise ResultIntegrityError(result_id, path, "field 'scored_at' (or another stored field) was edited: "
                                                        f"the stored fields hash to {sealed[:12]}, not to the seal")
    return doc


def parse_checked(doc: dict[str, Any], *, result_id: str, path: str) -> Result:
    """The :class:`Result` of a document whose hash was checked (a record that does not validate raises)."""
    try:
        return Result.model_validate(doc)
    except ValueError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ResultIntegrityError(result_id, path, f"the file is not a valid result ({first})") from None


def row_state(row: dict[str, Any]) -> tuple[Any, ...]:
    """What an index row says of its result (every ``results`` column; columns joined in for listing, such as
    ``hidden``, left out): a verdict is kept for one file *and* one row content.

    Compared exactly, not hashed: a listing of 10,000 rows checks every row on every page view, and comparing
    the values (strings compare by length, then bytes) costs a fraction of hashing each row's summary.

    >>> row = {"result_id": "r", "main_value": 0.5, "summary_json": '{"main": {"interval": [0.4, 0.6]}}'}
    >>> row_state(row) == row_state({**row, "hidden": 1, "integrity": None})
    True
    >>> row_state(row) == row_state({**row, "summary_json": '{"main": {"interval": [0.9, 0.99]}}'})
    False
    """
    return tuple(row.get(column) for column in _ROW_COLUMNS)


def fingerprint(path: Path | str) -> Fingerprint | None:
    """``(device, inode, size, mtime_ns, ctime_ns)`` of a file, or None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class VerifiedFiles:
    """Per-process memo: each file's verdict (None = sound, else the reason) for one fingerprint (a file's
    :func:`fingerprint`, or that and the :func:`row_state` of the index row it was checked with)."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[Any, str | None]] = {}
        self._lock = threading.Lock()

    def get(self, key: str, fp: Any) -> tuple[bool, str | None]:
        """``(known, reason)``: known is False when the file is new here or changed since it was checked."""
        with self._lock:
            seen = self._seen.get(key)
        if seen is None or fp is None or seen[0] != fp:
            return False, None
        return True, seen[1]

    def put(self, key: str, fp: Any, reason: str | None) -> str | None:
        """Record a verdict; returns the previous verdict's reason (``"new"`` when there was none)."""
        with self._lock:
            previous = self._seen.get(key)
            self._seen[key] = (fp, reason)
        return "new" if previous is None else previous[1]


class Integrity:
    """The store's part that checks stored files before anything reads them: result files against their hash,
    their index row and the seal ledger; uploads and runner logs against the sha256 that names them.

    Paths in the index are relative to ``root``; ``row_summary`` is what the index rows keep of each result
    (their summary is checked too).
    """

    def __init__(self, index: Index, *, root: Path, ledger: SealLedger, row_summary: RowSummary | None) -> None:
        self.index = index
        self.root = root
        self._root = os.fspath(root)
        #: which results are sealed and their seals (append-only hash chain; see :mod:`lemmata.store.ledger`)
        self.ledger = ledger
        self.row_summary = row_summary
        #: verdicts of files already checked in this process, by stat fingerprint
        self.verified = VerifiedFiles()

    def verified_result(self, row: dict[str, Any]) -> Result:
        """Read one indexed result file, check it fully and return it; a mismatch raises and is remembered."""
        doc = self.verified_document(row)
        try:
            return parse_checked(doc, result_id=row["result_id"], path=row["path"])
        except ResultIntegrityError as exc:
            self._remember(row, self._state(row), exc.reason)
            raise

    def verified_document(self, row: dict[str, Any]) -> dict[str, Any]:
        """The JSON document of an index row's file once its hash and the row check out (else
        :class:`ResultIntegrityError`); not validated as a :class:`~lemmata.formats.results.Result`."""
        path = self.root / row["path"]
        fp = self._state(row)
        try:
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise ResultIntegrityError(row["result_id"], row["path"],
                                           f"the file cannot be read ({exc.strerror or exc})") from None
            doc = check_result_bytes(data, result_id=row["result_id"], path=row["path"])
            seal = doc.get("sealed_sha256")
            reason = self.ledger_problem(row["result_id"], seal if isinstance(seal, str) else None)
            if reason is not None:
                raise ResultIntegrityError(row["result_id"], row["path"], reason)
            self._check_row(doc, row)
        except ResultIntegrityError as exc:
            self._remember(row, fp, exc.reason)
            raise
        self._remember(row, fp, None)
        return doc

    def record_seal(self, result_id: str, seal: str) -> None:
        """List a newly stored result and its seal in the ledger (under the store's write lock)."""
        self.ledger.append([(result_id, seal)])

    def ledger_problem(self, result_id: str, seal: str | None) -> str | None:
        """None when the seal ledger lists the result with this seal (None: legacy), else why not: a seal
        deleted from a file must not make a sealed result look like a legacy one."""
        try:
            listed, recorded = self.ledger.listed(result_id)
        except LedgerError as exc:
            return f"the seal ledger does not verify ({exc})"
        if not listed:
            return (f"the seal ledger ({LEDGER_FILE}) does not list this result: only results the store added "
                    "(or found when it started the ledger) are shown")
        if recorded is not None and seal is None:
            return (f"field 'sealed_sha256' was removed: the seal ledger records this result as sealed with "
                    f"{recorded[:12]}")
        if recorded != seal:
            return (f"field 'sealed_sha256' is {str(seal)[:12]}, but the seal ledger records "
                    f"{'none (legacy)' if recorded is None else recorded[:12]}")
        return None

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
        if row.get("summary_json") is not None and self.row_summary is not None and \
                json.loads(row["summary_json"]) != json.loads(json.dumps(self.row_summary.of(doc), default=str)):
            differ.append("summary")
        if differ:
            raise ResultIntegrityError(row["result_id"], row["path"],
                                       "the file and its index row disagree on " + ", ".join(differ))

    def _remember(self, row: dict[str, Any], fp: Any, reason: str | None) -> None:
        """Keep the verdict; a verdict that changed (or a first mismatch) is logged, which also bumps
        :meth:`~lemmata.store.index.Index.generation`, so every cache keyed by it (board rows, exports) is dropped."""
        previous = self.verified.put(row["path"], fp, reason)
        if previous != reason and (reason is not None or previous != "new"):
            try:
                with self.index.write() as conn:
                    self.index.log(conn, "system", "integrity_error" if reason else "integrity_ok", row["result_id"],
                              reason)
            except sqlite3.Error as exc:  # a read must still report the mismatch when the index is read-only
                log.error("could not log the integrity verdict of %s: %s", row["path"], exc)
        if reason is not None and previous != reason:
            log.error("stored result %s fails its integrity check: %s", row["path"], reason)

    def _state(self, row: dict[str, Any]) -> tuple[Fingerprint, str] | None:
        """What a verdict on ``row`` holds for: its file's fingerprint and the row's state (None: no file)."""
        fp = fingerprint(os.path.join(self._root, row["path"]))  # a string join: every row on every page view
        return None if fp is None else (fp, row_state(row))

    def checked_summary(self, row: dict[str, Any]) -> str | None:
        """The row's ``summary_json`` when this store can check it against the file (it was opened with the
        :class:`~lemmata.store.index.RowSummary` that made it), else None: a summary nobody here can recompute
        is never handed out as verified."""
        return row.get("summary_json") if self.row_summary is not None else None

    def verdict(self, row: dict[str, Any]) -> str | None:
        """None when the row's file is sound and the row says what the file says, else why not; re-verified
        whenever the file's fingerprint or the row's content changed."""
        known, reason = self.verified.get(row["path"], self._state(row))
        if known:
            return reason
        try:
            self.verified_document(row)
        except ResultIntegrityError as exc:
            return exc.reason
        return None

    def verify_files(self) -> list[Problem]:
        """Check every indexed result file, stored upload and declared runner log (cheaply: only files new or
        changed since the last check are read).

        Call before reading anything keyed by :meth:`~lemmata.store.index.Index.generation`: a newly found
        mismatch is logged, which changes the generation.
        """
        with self.index.connect() as conn:
            rows = [dict(r) for r in conn.execute("SELECT * FROM results ORDER BY result_id")]
        problems = []
        for row in rows:
            reason = self.verdict(row)
            if reason is not None:
                problems.append(Problem(row["path"], reason, field="result_id"))
        with self.index.connect() as conn:
            rows = [(r["sha256"], r["header_json"]) for r in
                    conn.execute("SELECT sha256, header_json FROM submissions ORDER BY sha256")]
        logs: set[str] = set()
        for sha, header_json in rows:  # every stored upload against the sha256 recorded at upload (cheap when unchanged)
            reason = self._hash_verdict(f"submissions/{sha}.jsonl", sha, what="stored upload",
                                        named="recorded at upload")
            if reason is not None:
                problems.append(Problem(f"submissions/{sha}.jsonl", reason, field="sha256"))
            try:
                log_sha = declared_log_sha256(json.loads(header_json))
            except ValueError:
                log_sha = None
            if log_sha is not None and log_sha not in logs:  # and the runner request log it declares, once
                logs.add(log_sha)
                reason = self._hash_verdict(f"submissions/{log_sha}{RUNNER_LOG_SUFFIX}", log_sha, what="stored file",
                                            named="it is named by")
                if reason is not None:
                    problems.append(Problem(f"submissions/{log_sha}{RUNNER_LOG_SUFFIX}", reason, field="sha256"))
        return problems

    def _hash_verdict(self, relative: str, sha256: str, *, what: str, named: str) -> str | None:
        """None when the stored file ``relative`` (the ``what``) still hashes to ``sha256`` (the sha256 ``named``),
        else why not; memoised by file fingerprint."""
        path = self.root / relative
        fp = fingerprint(path)
        known, reason = self.verified.get(f"file:{relative}", fp)
        if known:
            return reason
        if fp is None:
            reason = f"the {what} is missing"
        else:
            actual = sha256_bytes(path.read_bytes())
            reason = None if actual == sha256 else (f"the {what} hashes to {actual[:12]}, not to the sha256 {named}: "
                                                    "it was edited after it was stored")
        self.verified.put(f"file:{relative}", fp, reason)
        return reason
