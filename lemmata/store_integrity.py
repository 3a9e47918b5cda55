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
re-verifies whenever any of them differs. The change time (``ctime``) is set
by the kernel on every write and cannot be set back by a user, so an edit
that restores the modification time is still seen.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from lemmata.core.errors import LemmataError
from lemmata.core.hashing import sha256_json
from lemmata.formats.results import Result

Fingerprint = tuple[int, int, int, int, int]
#: the fields :meth:`Result.content_id` leaves out of the hash
_UNHASHED = ("result_id", "scored_at")


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
    lemmata.store_integrity.ResultIntegrityError: integrity error in stored result ... the content hashes to ...
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
    return doc


def parse_checked(doc: dict[str, Any], *, result_id: str, path: str) -> Result:
    """The :class:`Result` of a document whose hash was checked (a record that does not validate raises)."""
    try:
        return Result.model_validate(doc)
    except ValueError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ResultIntegrityError(result_id, path, f"the file is not a valid result ({first})") from None


def fingerprint(path: Path) -> Fingerprint | None:
    """``(device, inode, size, mtime_ns, ctime_ns)`` of a file, or None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class VerifiedFiles:
    """Per-process memo: each file's verdict (None = sound, else the reason) for one fingerprint."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[Fingerprint | None, str | None]] = {}
        self._lock = threading.Lock()

    def get(self, key: str, fp: Fingerprint | None) -> tuple[bool, str | None]:
        """``(known, reason)``: known is False when the file is new here or changed since it was checked."""
        with self._lock:
            seen = self._seen.get(key)
        if seen is None or fp is None or seen[0] != fp:
            return False, None
        return True, seen[1]

    def put(self, key: str, fp: Fingerprint | None, reason: str | None) -> str | None:
        """Record a verdict; returns the previous verdict's reason (``"new"`` when there was none)."""
        with self._lock:
            previous = self._seen.get(key)
            self._seen[key] = (fp, reason)
        return "new" if previous is None else previous[1]
