"""Append-only, content-addressed verdict cache.

A verdict is looked up by ``sha256(canonical_json(key_fields))`` — for a judge:
judge id, rubric version, instance id, source id, statement; for a Lean
verifier: verifier id, versions, release, item, attempt text. The cache is one
JSONL file inside the scoring artifact folder. Entries are only ever appended;
the first verdict for a key wins, so a rescore reads exactly what was recorded
and makes no oracle calls. Writers hold an exclusive file lock while appending.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from lemmata.core.errors import InputError, Problem
from lemmata.core.hashing import sha256_json
from lemmata.formats.results import now_iso

CACHE_FILE = "verdicts.jsonl"


def verdict_key(fields: Mapping[str, Any]) -> str:
    """Content address of a verdict request.

    >>> verdict_key({"judge": "j", "rubric": "ground@1"}) == verdict_key({"rubric": "ground@1", "judge": "j"})
    True
    """
    return sha256_json(dict(fields))


class VerdictCache:
    """Verdicts of one scoring artifact, keyed by content; thread- and process-safe appends."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.path = self.folder / CACHE_FILE
        self._lock = threading.Lock()
        self._entries: dict[str, dict[str, Any]] | None = None
        self._size = 0
        self._lines = 0

    def _load(self) -> dict[str, dict[str, Any]]:
        """Entries on file; only bytes appended since the last read are parsed (the file only grows)."""
        size = self.path.stat().st_size if self.path.exists() else 0
        if self._entries is not None and size == self._size:
            return self._entries
        if self._entries is None or size < self._size:
            self._entries, self._size, self._lines = {}, 0, 0
        entries = self._entries
        if self.path.exists():
            with open(self.path, "rb") as fh:
                fh.seek(self._size)
                for raw in fh:
                    if not raw.endswith(b"\n"):
                        break  # a line still being written: read it next time
                    self._size += len(raw)
                    self._lines += 1
                    if not raw.strip():
                        continue
                    try:
                        entry = json.loads(raw)
                        key, fields = entry["key"], entry["fields"]
                    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError):
                        self._entries = None
                        raise InputError([Problem(str(self.path), "unreadable verdict cache entry", self._lines)]) from None
                    if verdict_key(fields) != key:
                        self._entries = None
                        raise InputError([Problem(str(self.path), "entry key does not match its fields", self._lines,
                                                  "key")])
                    entries.setdefault(key, entry)  # first verdict wins
        return entries

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
        entry = {"key": key, "fields": dict(fields), "verdict": dict(verdict), "oracle": dict(oracle),
                 "recorded_at": now_iso()}
        line = json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n"
        self.folder.mkdir(parents=True, exist_ok=True)
        with self._lock:
            with open(self.path, "a", encoding="utf-8") as fh:
                fcntl.flock(fh, fcntl.LOCK_EX)
                try:
                    existing = self._load().get(key)  # under the lock: another process may have appended
                    if existing is not None:
                        return existing["verdict"]
                    fh.write(line)
                    fh.flush()
                    os.fsync(fh.fileno())
                finally:
                    fcntl.flock(fh, fcntl.LOCK_UN)
        return dict(verdict)

    def __len__(self) -> int:
        with self._lock:
            return len(self._load())

    def __iter__(self) -> Iterator[dict[str, Any]]:
        with self._lock:
            return iter(list(self._load().values()))
