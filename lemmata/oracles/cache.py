"""Append-only, content-addressed, tamper-evident verdict cache.

A verdict is looked up by ``sha256(canonical_json(key_fields))`` — for a judge:
judge id, rubric version, instance id, source id, statement; for a Lean
verifier: verifier id, versions, release, item, attempt text. The cache is one
JSONL file inside the scoring artifact folder. Entries are only ever appended;
the first verdict for a key wins, so a rescore reads exactly what was recorded
and makes no oracle calls. Writers hold an exclusive file lock while appending.

Because a verdict decides a score, a recorded verdict must not be editable
without notice. Every line (format ``lemmata.verdict/2``) carries the question
hash (``key``), the question (``fields``), the answer (``verdict``), the
oracle's identity (``oracle``), the time (``recorded_at``), its position
(``seq``), the ``entry_sha256`` of the line before it (``prev_sha256``) and its
own ``entry_sha256`` over the canonical JSON of everything else. The chain makes
a removed, inserted or reordered line visible; the head file
(``verdicts.head.json``) records how many lines the chain has and the hash of
the last, so a line removed from the end is visible too. Any mismatch is an
:class:`~lemmata.core.errors.InputError` naming the file, line and field, so
scoring against an edited cache fails instead of producing a number.

This is tamper *evidence* against edits of recorded verdicts, not a signature:
someone who recomputes every hash can forge a cache, which is why a result
also names the scoring artifact it was computed against.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from lemmata.core.atomic import atomic_write_text
from lemmata.core.errors import InputError, Problem
from lemmata.core.hashing import canonical_json, sha256_bytes, sha256_json
from lemmata.formats.results import now_iso

CACHE_FILE = "verdicts.jsonl"
HEAD_FILE = "verdicts.head.json"
ENTRY_FORMAT = "lemmata.verdict/2"
GENESIS = "0" * 64
_ENTRY_KEYS = frozenset({"format", "seq", "key", "fields", "verdict", "oracle", "recorded_at", "prev_sha256",
                         "entry_sha256"})


def verdict_key(fields: Mapping[str, Any]) -> str:
    """Content address of a verdict request.

    >>> verdict_key({"judge": "j", "rubric": "ground@1"}) == verdict_key({"rubric": "ground@1", "judge": "j"})
    True
    """
    return sha256_json(dict(fields))


def entry_sha256(entry: Mapping[str, Any]) -> str:
    """Hash binding a cache line to its content: everything but ``entry_sha256`` itself, canonically.

    >>> e = {"format": ENTRY_FORMAT, "seq": 1, "verdict": {"verdict": "no"}, "prev_sha256": GENESIS}
    >>> entry_sha256(e) == entry_sha256({**e, "entry_sha256": "x"}), entry_sha256(e) == entry_sha256(
    ...     {**e, "verdict": {"verdict": "yes"}})
    (True, False)
    """
    return sha256_bytes(canonical_json({k: v for k, v in entry.items() if k != "entry_sha256"}))


class VerdictCache:
    """Verdicts of one scoring artifact, keyed by content; thread- and process-safe appends."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.path = self.folder / CACHE_FILE
        self.head_path = self.folder / HEAD_FILE
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self._entries: dict[str, dict[str, Any]] | None = None
        self._size = 0
        self._lines = 0
        self._seq = 0
        self._tip = GENESIS
        self._last_raw = b""
        self._chain: list[str] = []

    def _fail(self, reason: str, line: int | None = None, field: str | None = None,
              file: Path | None = None) -> InputError:
        self._reset()
        return InputError([Problem(str(file or self.path), reason, line, field)])

    def _check_entry(self, raw: bytes) -> dict[str, Any]:
        """One parsed line, checked against its own hash and the chain so far."""
        line = self._lines
        try:
            entry = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise self._fail("unreadable verdict cache entry (not one JSON object)", line) from None
        if not isinstance(entry, dict):
            raise self._fail("unreadable verdict cache entry (not one JSON object)", line)
        if entry.get("format") != ENTRY_FORMAT:
            raise self._fail(f"verdict cache entry has format {entry.get('format')!r}, not {ENTRY_FORMAT!r}: this "
                             "cache was written without entry hashes and cannot be trusted; score into a new "
                             "artifact folder to record verdicts again", line, "format")
        if set(entry) != _ENTRY_KEYS:
            missing, extra = sorted(_ENTRY_KEYS - set(entry)), sorted(set(entry) - _ENTRY_KEYS)
            raise self._fail(f"verdict cache entry has missing fields {missing} / unknown fields {extra}", line,
                             (missing or extra)[0])
        for name, kind in (("fields", dict), ("verdict", dict), ("oracle", dict), ("key", str),
                           ("recorded_at", str), ("prev_sha256", str), ("entry_sha256", str)):
            if not isinstance(entry[name], kind):
                raise self._fail(f"must be a {kind.__name__}", line, name)
        if entry_sha256(entry) != entry["entry_sha256"]:
            raise self._fail("entry does not match its entry_sha256: the line was edited", line, "entry_sha256")
        if entry["seq"] != self._seq + 1 or isinstance(entry["seq"], bool):
            raise self._fail(f"entry is number {entry['seq']!r} of the chain but stands at position {self._seq + 1}: "
                             "lines were removed, inserted or reordered", line, "seq")
        if entry["prev_sha256"] != self._tip:
            raise self._fail("prev_sha256 is not the hash of the entry before it: lines were removed, inserted "
                             "or reordered", line, "prev_sha256")
        if verdict_key(entry["fields"]) != entry["key"]:
            raise self._fail("entry key does not match its fields", line, "key")
        return entry

    def _load(self) -> dict[str, dict[str, Any]]:
        """Entries on file, verified; only bytes appended since the last read are parsed (the file only grows).

        Before reading appended bytes, the last line read before is read again and compared; when it moved
        or changed the whole file is read and verified from the start. Every new reader (each scoring run
        opens its artifact anew) verifies the whole chain; :meth:`verify` does so on demand.
        """
        size = self.path.stat().st_size if self.path.exists() else 0
        if self._entries is not None and size == self._size and self._unchanged():
            self._check_head(*self._read_head())
            return self._entries
        if self._entries is None or size < self._size or not self._unchanged():
            self._reset()
            self._entries = {}
        self._read_appended()
        count, tip = self._read_head()
        if count > len(self._chain):
            self._read_appended()  # the head is written after its line: a line appended meanwhile is on file now
        self._check_head(count, tip)
        assert self._entries is not None
        return self._entries

    def _read_appended(self) -> None:
        entries = self._entries
        assert entries is not None
        if not self.path.exists():
            return
        with open(self.path, "rb") as fh:
            fh.seek(self._size)
            for raw in fh:
                if not raw.endswith(b"\n"):
                    break  # a line still being written: read it next time
                self._size += len(raw)
                self._lines += 1
                if not raw.strip():
                    raise self._fail("blank line in the verdict cache: lines are never removed or blanked",
                                     self._lines)
                entry = self._check_entry(raw)
                self._seq, self._tip, self._last_raw = entry["seq"], entry["entry_sha256"], raw
                self._chain.append(self._tip)
                entries.setdefault(entry["key"], entry)  # first verdict wins

    def _unchanged(self) -> bool:
        """The last line read before is still where it was, byte for byte."""
        if not self._last_raw:
            return True
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self._size - len(self._last_raw))
                return fh.read(len(self._last_raw)) == self._last_raw
        except OSError:
            return False

    def _read_head(self) -> tuple[int, str]:
        if not self.head_path.exists():
            return 0, GENESIS
        try:
            head = json.loads(self.head_path.read_bytes())
            count, tip = head["count"], head["head_sha256"]
        except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError):
            raise self._fail("unreadable verdict chain head", None, None, self.head_path) from None
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise self._fail("must be a non-negative integer", None, "count", self.head_path)
        if set(head) != {"format", "count", "head_sha256"} or head["format"] != ENTRY_FORMAT:
            raise self._fail(f"not a {ENTRY_FORMAT} chain head", None, "format", self.head_path)
        return count, tip

    def _check_head(self, count: int, tip: str) -> None:
        """The recorded head lies on the chain read (the file may be ahead by a line being appended now)."""
        if count == 0 and not self.head_path.exists() and self._chain:
            raise self._fail(f"the verdict cache has {len(self._chain)} entries but no {HEAD_FILE}", None, None,
                             self.head_path)
        if count > len(self._chain):
            raise self._fail(f"the chain head records {count} entries but {self.path.name} holds "
                             f"{len(self._chain)}: lines were removed", None, "count", self.head_path)
        if count and self._chain[count - 1] != tip:
            raise self._fail(f"the chain head is not entry {count} of {self.path.name}: the cache was rewritten",
                             None, "head_sha256", self.head_path)

    def _write_head(self) -> None:
        atomic_write_text(self.head_path,
                          json.dumps({"format": ENTRY_FORMAT, "count": self._seq, "head_sha256": self._tip}) + "\n",
                          mode=0o600)

    def verify(self) -> int:
        """Read and check the whole cache from the start; the number of entries."""
        with self._lock:
            self._reset()
            return len(self._load())

    def get(self, fields: Mapping[str, Any]) -> dict[str, Any] | None:
        """The recorded verdict for these key fields, or None (pending)."""
        with self._lock:
            entry = self._load().get(verdict_key(fields))
        return entry["verdict"] if entry else None

    def entry(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            return self._load().get(key)

    def put(self, fields: Mapping[str, Any], verdict: Mapping[str, Any], *, oracle: Mapping[str, Any]) -> dict[str, Any]:
        """Record a verdict obtained from ``oracle``; returns the verdict now on record (an earlier one wins)."""
        key = verdict_key(fields)
        self.folder.mkdir(parents=True, exist_ok=True)
        with self._lock:
            with open(self.path, "a", encoding="utf-8") as fh:
                fcntl.flock(fh, fcntl.LOCK_EX)
                try:
                    existing = self._load().get(key)  # under the lock: another process may have appended
                    if existing is not None:
                        return existing["verdict"]
                    if not self.head_path.exists():
                        self._write_head()  # before the first line, so a cache never lacks its head
                    entry: dict[str, Any] = {"format": ENTRY_FORMAT, "seq": self._seq + 1, "key": key,
                                             "fields": dict(fields), "verdict": dict(verdict),
                                             "oracle": dict(oracle), "recorded_at": now_iso(),
                                             "prev_sha256": self._tip}
                    # the stored form is what gets hashed: round-trip so non-JSON types cannot differ on reading
                    entry = json.loads(json.dumps(entry, ensure_ascii=False))
                    entry["entry_sha256"] = entry_sha256(entry)
                    fh.write(json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n")
                    fh.flush()
                    os.fsync(fh.fileno())
                    self._load()  # take the new line onto the chain
                    self._write_head()
                finally:
                    fcntl.flock(fh, fcntl.LOCK_UN)
        return entry["verdict"]

    def __len__(self) -> int:
        with self._lock:
            return len(self._load())

    def __iter__(self) -> Iterator[dict[str, Any]]:
        with self._lock:
            return iter(list(self._load().values()))
