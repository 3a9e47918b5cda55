"""Stored submissions: an upload stored once under its content hash, its sidecar, and its status.

The content hash is the dedup key. An upload and its sidecar
(:class:`~lemmata.store.files.SubmissionMeta`) are written under the write lock, and only by the upload that creates
the entry; the index row carries the status the queue and the board read.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from lemmata.core.errors import LemmataError
from lemmata.core.hashing import sha256_bytes
from lemmata.formats.results import now_iso
from lemmata.formats.runner_log import RUNNER_LOG_SUFFIX, declared_log_sha256
from lemmata.store.faults import StorageError, describe_fault, is_storage_fault
from lemmata.store.files import SubmissionMeta, atomic_write
from lemmata.store.index import Index, equal_to
from lemmata.store.ratelimit import RateLimit, RateLimits

__all__ = ["SubmissionIntegrityError", "SubmissionRecord", "SubmissionStatus", "Submissions"]

log = logging.getLogger("lemmata.store")


class SubmissionIntegrityError(LemmataError):
    """A stored submission file (or its sidecar) does not match the hash recorded at upload: nothing from it may
    be shown or scored."""

SubmissionStatus = Literal["validated", "queued", "scoring", "scored", "pending_oracle", "failed"]


class SubmissionRecord(SubmissionMeta):
    """A stored submission as the index holds it: its immutable sidecar plus where its scoring stands."""

    status: SubmissionStatus
    status_reason: str | None
    attempts: int
    updated_at: str

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> "SubmissionRecord":
        d = dict(row)
        d["header"] = json.loads(d.pop("header_json"))
        return cls(**d)


class Submissions:
    """The store's part that holds uploads: add one (deduplicated, rate-limited), read, list and set its status.

    Its files live in ``folder`` (under the store's ``root``, which error messages name paths from).
    """

    def __init__(self, index: Index, rate_limits: RateLimits, *, root: Path, folder: Path) -> None:
        self.index = index
        self.rate_limits = rate_limits
        self.root = root
        self.folder = folder

    def submission_path(self, sha256: str) -> Path:
        return self.folder / f"{sha256}.jsonl"

    def submission_meta_path(self, sha256: str) -> Path:
        return self.folder / f"{sha256}.meta.json"

    def runner_log_path(self, log_sha256: str) -> Path:
        """A runner request log, named by its own sha256 (the submission header that declares it is its binding)."""
        return self.folder / f"{log_sha256}{RUNNER_LOG_SUFFIX}"

    def runner_log_bytes(self, log_sha256: str) -> bytes:
        """A stored runner request log, verified against its sha256 whenever read; else an integrity error."""
        if not re.fullmatch(r"[0-9a-f]{64}", log_sha256):
            raise SubmissionIntegrityError(f"{log_sha256[:80]!r} is not a sha256")
        path = self.runner_log_path(log_sha256)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise SubmissionIntegrityError(f"integrity error: the runner request log {log_sha256[:12]} that a stored "
                                           "submission declares is missing") from None
        actual = sha256_bytes(data)
        if actual != log_sha256:
            raise SubmissionIntegrityError(f"integrity error in stored runner request log {log_sha256[:12]} "
                                           f"({path.relative_to(self.root)}): the file hashes to {actual[:12]}; it was "
                                           "edited after it was stored")
        return data

    def runner_log_for(self, data: bytes) -> bytes | None:
        """The verified runner request log a verified stored upload's header declares, or None (self-reported)."""
        try:
            head = json.loads(data.lstrip().split(b"\n", 1)[0].decode("utf-8-sig"))
        except ValueError:
            return None
        declared = declared_log_sha256(head)
        return self.runner_log_bytes(declared) if declared is not None else None

    def add_submission(
        self, data: bytes, *, filename: str, benchmark: str, track: str, model_name: str, submitter: str,
        header: dict[str, Any], received_at: str | None = None, status: SubmissionStatus = "queued",
        contact: str | None = None, notes: str | None = None, rate_limit: RateLimit | None = None,
        rate_keys: Sequence[str] = (), sha256: str | None = None, runner_log: bytes | None = None,
    ) -> tuple[SubmissionRecord, bool]:
        """Store a validated upload once; returns ``(record, created)``.

        The content hash is the dedup key: a second upload of the same bytes
        returns the existing record and creates nothing (and counts against no
        rate limit). A new upload is checked against ``rate_limit`` for every
        key in ``rate_keys`` inside the same write transaction, so parallel
        uploads cannot overrun it; over the limit raises :class:`RateLimited`.
        The upload and its sidecar are written under the write lock, only for
        the upload that actually creates the entry. A disk fault raises
        :class:`StorageError` and leaves nothing behind: the transaction rolls
        back and every file this call created is removed again (a sidecar
        alone would otherwise be restored as an entry by :meth:`~lemmata.store.Store.reindex`).
        ``sha256`` is the hash validation already took of these same bytes (an upload is hashed once).
        ``runner_log`` (a request log the upload's header declares, already checked) is stored with it, under its
        own sha256, written and removed with the upload.
        """
        sha = sha256 or sha256_bytes(data)
        now = received_at or now_iso()
        meta = SubmissionMeta(sha256=sha, benchmark=benchmark, track=track, filename=filename, model_name=model_name,
                              submitter=submitter, received_at=now, header=header, contact=contact, notes=notes)
        written: list[Path] = []
        try:
            existing = self.get_submission(sha)
            if existing is not None:
                return existing, False
            with self.index.write() as conn:
                if conn.execute("SELECT 1 FROM submissions WHERE sha256 = ?", (sha,)).fetchone() is None:
                    if rate_limit is not None:
                        self.rate_limits.check(conn, rate_limit, rate_keys)
                    created = self._insert(conn, meta, status)
                    files = [(self.submission_path(sha), data),
                             (self.submission_meta_path(sha), meta.model_dump_json(indent=2).encode())]
                    log_sha = sha256_bytes(runner_log) if runner_log is not None else None
                    if runner_log is not None and log_sha is not None:  # first: never an upload naming a missing log
                        files.insert(0, (self.runner_log_path(log_sha), runner_log))
                    for path, body in files:
                        if not path.exists():
                            atomic_write(path, body)
                            written.append(path)
                        elif path == self.submission_meta_path(sha):
                            atomic_write(path, body)
                        elif log_sha is not None and path == self.runner_log_path(log_sha) and \
                                sha256_bytes(path.read_bytes()) != log_sha:  # a damaged copy another upload stored
                            atomic_write(path, body)
                    if rate_limit is not None:
                        self.rate_limits.count(conn, rate_keys)
                else:
                    created = False
            record = self.get_submission(sha)
        except (OSError, sqlite3.Error) as exc:
            for path in written:
                try:
                    path.unlink(missing_ok=True)
                except OSError as cleanup_exc:
                    log.error("could not remove %s after a failed upload: %s", path, cleanup_exc)
                    exc.add_note(f"removing {path.name} failed too: {cleanup_exc}")
            if is_storage_fault(exc):
                raise StorageError(f"The server could not store the upload because {describe_fault(exc)}; "
                                   "nothing was stored, please try again later.") from exc
            raise
        assert record is not None
        return record, created

    def _insert(self, conn: sqlite3.Connection, meta: SubmissionMeta, status: str) -> bool:
        cur = conn.execute(
            "INSERT OR IGNORE INTO submissions(sha256, benchmark, track, filename, model_name, submitter, "
            "received_at, header_json, status, attempts, updated_at, contact, notes) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)",
            (meta.sha256, meta.benchmark, meta.track, meta.filename, meta.model_name, meta.submitter,
             meta.received_at, json.dumps(meta.header, sort_keys=True), status, now_iso(), meta.contact, meta.notes),
        )
        created = cur.rowcount == 1
        if created:
            self.index.log(conn, meta.submitter, "submit", meta.sha256, meta.filename)
        return created

    def get_submission(self, sha256: str) -> SubmissionRecord | None:
        with self.index.connect() as conn:
            row = conn.execute("SELECT * FROM submissions WHERE sha256 = ?", (sha256,)).fetchone()
        return SubmissionRecord.from_row(row) if row else None

    def submission_bytes(self, sha256: str) -> bytes:
        """The stored upload, verified against the sha256 recorded at upload (its name); else an integrity error.

        Every reader (the worker, the audit, exports, the reindex) comes here, so an edited submission file is
        never taken for what was scored.
        """
        path = self.submission_path(sha256)
        data = path.read_bytes()
        actual = sha256_bytes(data)
        if actual != sha256:
            raise SubmissionIntegrityError(f"integrity error in stored submission {sha256[:12]} "
                                           f"({path.relative_to(self.root)}): the file hashes to {actual[:12]}, not "
                                           "to the sha256 recorded at upload; it was edited after it was stored")
        return data

    def verified_meta(self, path: Path) -> SubmissionMeta:
        """A sidecar whose upload verifies and whose every field the upload itself states agrees with it.

        The benchmark and the model name are read from the verified upload's header line and compared; a
        sidecar that disagrees is an integrity error, never data. (The submitter, contact and notes were typed
        in the form and are not in the upload, so no hash of the upload can bind them.)
        """
        meta = SubmissionMeta.model_validate_json(path.read_text(encoding="utf-8"))
        if path.name != f"{meta.sha256}.meta.json":
            raise SubmissionIntegrityError(f"{path.name}: the sidecar names submission {meta.sha256[:12]}")
        data = self.submission_bytes(meta.sha256)
        try:
            head = json.loads(data.split(b"\n", 1)[0].decode("utf-8-sig"))
        except ValueError:  # stored uploads were validated; one that is not JSON states nothing to compare
            head = None
        model = head.get("model") if isinstance(head, dict) else None
        said = {"benchmark": head.get("benchmark") if isinstance(head, dict) else None,
                "model_name": model.get("name") if isinstance(model, dict) else None}
        for field, value in said.items():
            if value is not None and unicodedata.normalize("NFC", str(value)) != getattr(meta, field):
                raise SubmissionIntegrityError(f"integrity error in {path.name}, field {field!r}: the sidecar says "
                                               f"{getattr(meta, field)!r}, the verified upload {value!r}")
        return meta

    def list_submissions(self, *, status: str | None = None, submitter: str | None = None,
                         limit: int = 500) -> list[SubmissionRecord]:
        where, args = equal_to({"status": status, "submitter": submitter})
        sql = "SELECT * FROM submissions WHERE 1=1" + where + " ORDER BY received_at DESC, sha256 LIMIT ?"
        args.append(limit)
        with self.index.connect() as conn:
            return [SubmissionRecord.from_row(r) for r in conn.execute(sql, args)]

    def count_recent_submissions(self, submitter: str, since_iso: str) -> int:
        with self.index.connect() as conn:
            return conn.execute("SELECT COUNT(*) FROM submissions WHERE submitter = ? AND received_at >= ?",
                                (submitter, since_iso)).fetchone()[0]

    def status_counts(self) -> dict[str, int]:
        with self.index.connect() as conn:
            return {r["status"]: r["n"] for r in
                    conn.execute("SELECT status, COUNT(*) AS n FROM submissions GROUP BY status")}

    def set_status(self, sha256: str, status: SubmissionStatus, reason: str | None = None,
                   actor: str = "system") -> None:
        with self.index.write() as conn:
            conn.execute("UPDATE submissions SET status = ?, status_reason = ?, updated_at = ? WHERE sha256 = ?",
                         (status, reason, now_iso(), sha256))
            self.index.log(conn, actor, f"status:{status}", sha256, reason)

    def reindex(self, skip: Callable[[Path, Exception], None]) -> None:
        """Restore every sidecar whose upload is stored but not indexed: 'scored'/'pending_oracle' when a result
        names it, otherwise 'queued' so the worker scores it. A sidecar that does not verify is handed to
        ``skip`` and left out."""
        if not self.folder.is_dir():
            return
        for path in sorted(self.folder.glob("*.meta.json")):
            sha = path.name.removesuffix(".meta.json")
            if not self.submission_path(sha).exists() or self.get_submission(sha) is not None:
                continue
            try:  # identities come only from sidecars whose upload verifies and agrees with them
                meta = self.verified_meta(path)
            except (ValueError, OSError, SubmissionIntegrityError) as exc:
                skip(path, exc)
                continue
            with self.index.connect() as conn:
                row = conn.execute(
                    "SELECT status FROM results WHERE submission_sha256 = ? AND result_id NOT IN "
                    "(SELECT supersedes FROM results WHERE supersedes IS NOT NULL) ORDER BY version DESC LIMIT 1",
                    (meta.sha256,)).fetchone()
            status = "queued" if row is None else ("pending_oracle" if row["status"] == "pending_oracle" else "scored")
            with self.index.write() as conn:
                if self._insert(conn, meta, status):
                    self.index.log(conn, "system", "restore", meta.sha256, status)

