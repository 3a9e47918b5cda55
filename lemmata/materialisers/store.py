"""The materialisation store: the log and the texts, content-addressed and covered by a MANIFEST.

Layout of a store folder::

    STORE.json      schema and the text settings it was made under
    log.jsonl       one MaterialisationRecord per line, append-only
    texts/<sha256>.txt   each fixed text, named by its own sha256
    MANIFEST.json   sha256 and size of every file above (lemmata.manifest/1)

Opening a store checks everything before anything is read: each log line
parses, validates and matches its own ``record_sha256`` (else the file and line
are named), each text referred to exists and hashes to its name, and the
MANIFEST lists exactly the files present with their hashes. A text is hashed
again whenever it is read. Appends hold an exclusive lock (``.lock``), check
that the log is still the one the MANIFEST describes, and update the MANIFEST
in the same step, so a rescore reads exactly the bytes that were recorded and
needs no network.

The first *final* record (materialised or unavailable) for a key answers
lookups; pending records stay in the log as history and never answer one.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationError

from lemmata import __version__
from lemmata.core.atomic import atomic_write_bytes
from lemmata.core.errors import InputError, LemmataError, Problem
from lemmata.core.hashing import sha256_bytes, sha256_file, write_json
from lemmata.core.models import Frozen
from lemmata.formats.datafiles import iter_valid
from lemmata.materialisers.records import MaterialisationRecord
from lemmata.release.manifest import MANIFEST, Manifest, ManifestFile, read_manifest, verify_manifest

STORE_FILE = "STORE.json"
LOG_FILE = "log.jsonl"
LOCK_FILE = ".lock"
STORE_SCHEMA = "lemmata.materialisation-store/1"


class StoreHeader(Frozen):
    model_config = ConfigDict(populate_by_name=True)

    schema_: Literal["lemmata.materialisation-store/1"] = Field(STORE_SCHEMA, alias="schema")
    text_settings: dict[str, Any]
    text_settings_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class MaterialisationStore:
    """A verified store folder; created on the first write when it does not exist."""

    def __init__(self, folder: str | Path, *, text_settings: dict[str, Any], text_settings_sha256: str) -> None:
        self.folder = Path(folder)
        self.header = StoreHeader(text_settings=text_settings, text_settings_sha256=text_settings_sha256)
        self._lock = threading.Lock()
        self._records: list[MaterialisationRecord] = []
        self._final: dict[str, MaterialisationRecord] = {}
        self._log_sha256: str | None = None  # the log as last verified or written by this object
        if (self.folder / STORE_FILE).exists() or (self.folder / LOG_FILE).exists():
            self._open()

    # -- reading --------------------------------------------------------------------------------------------
    @property
    def log_path(self) -> Path:
        return self.folder / LOG_FILE

    def _open(self) -> None:
        store_json = self.folder / STORE_FILE
        if not store_json.is_file():
            raise InputError.one(str(store_json), f"missing {STORE_FILE}: not a materialisation store")
        try:
            found = StoreHeader.model_validate_json(store_json.read_bytes())
        except ValidationError as exc:
            raise InputError.one(str(store_json), f"not a materialisation store header ({exc.errors()[0]['msg']})")
        if found.text_settings_sha256 != self.header.text_settings_sha256:
            changed = sorted(k for k in set(found.text_settings) | set(self.header.text_settings)
                             if found.text_settings.get(k) != self.header.text_settings.get(k))
            raise LemmataError(f"{self.folder} was made under other text settings ({', '.join(changed)} differ); "
                               "use a new store folder for these settings")
        problems: list[Problem] = []
        records: list[MaterialisationRecord] = []
        text_hashes: dict[str, str] = {}
        log = str(self.log_path)
        if self.log_path.exists():
            for lineno, rec in iter_valid(self.log_path, MaterialisationRecord, problems, label=log):
                if rec.record_sha256 != rec.content_sha256():
                    problems.append(Problem(log, "record does not match its record_sha256: the line was edited",
                                            lineno, "record_sha256"))
                    continue
                if rec.text_settings_sha256 != self.header.text_settings_sha256:
                    problems.append(Problem(log, "record made under other text settings", lineno,
                                            "text_settings_sha256"))
                    continue
                if rec.text_file:
                    path = self.folder / rec.text_file
                    have = text_hashes.get(rec.text_file)
                    if have is None and path.is_file():
                        have = text_hashes[rec.text_file] = sha256_file(path)
                    if have is None:
                        problems.append(Problem(log, f"{rec.text_file} is missing", lineno, "text_file"))
                        continue
                    if have != rec.text_sha256:
                        problems.append(Problem(log, f"{rec.text_file} was modified (sha256 {have[:12]}…, recorded "
                                                     f"{rec.text_sha256[:12]}…)", lineno, "text_sha256"))
                        continue
                records.append(rec)
        if problems:
            raise InputError(problems)
        verify_manifest(self.folder)
        self._log_sha256 = sha256_file(self.log_path) if self.log_path.exists() else None
        self._records = records
        self._final = {}
        for rec in records:
            if rec.final:
                self._final.setdefault(rec.key, rec)

    def lookup(self, key: str) -> MaterialisationRecord | None:
        """The first final record for ``key``, or None."""
        with self._lock:
            return self._final.get(key)

    def read_text(self, record: MaterialisationRecord) -> str:
        """The text of a materialised record, hashed again as it is read."""
        if record.text_file is None:
            raise LemmataError(f"{record.key} has no text ({record.status}: {record.reason})")
        path = self.folder / record.text_file
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise InputError.one(str(path), "text listed in the materialisation log is missing") from None
        if sha256_bytes(data) != record.text_sha256:
            raise InputError.one(str(path), f"sha256 differs from the log's {record.text_sha256[:12]}…: "
                                            "the text was modified")
        return data.decode("utf-8")

    def records(self) -> list[MaterialisationRecord]:
        with self._lock:
            return list(self._records)

    def __iter__(self) -> Iterator[MaterialisationRecord]:
        return iter(self.records())

    # -- writing --------------------------------------------------------------------------------------------
    def _manifest(self) -> Manifest:
        if (self.folder / MANIFEST).exists():
            return read_manifest(self.folder)
        return Manifest(release_id=f"materialisations-{self.header.text_settings_sha256[:12]}",
                        name="materialisations", version=STORE_SCHEMA, builder="lemmata.materialisers",
                        builder_version=__version__, files=[])

    def append(self, record: MaterialisationRecord, text: str | None = None) -> MaterialisationRecord:
        """Record an outcome (and its text); returns the record now answering its key."""
        record = record.sealed()
        data = text.encode("utf-8") if text is not None else None
        if (data is None) != (record.text_sha256 is None) or (data is not None and
                                                               sha256_bytes(data) != record.text_sha256):
            raise LemmataError(f"{record.key}: the text given is not the text the record describes")
        self.folder.mkdir(parents=True, exist_ok=True)
        with self._lock, open(self.folder / LOCK_FILE, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                if (self.folder / STORE_FILE).exists():
                    current = sha256_file(self.log_path) if self.log_path.exists() else None
                    if current != self._log_sha256 or not (self.folder / MANIFEST).exists():
                        self._open()  # another writer appended (or someone edited): verify all before extending
                else:
                    write_json(self.folder / STORE_FILE, self.header.model_dump(mode="json", by_alias=True))
                if record.final and record.key in self._final:
                    return self._final[record.key]
                manifest = self._manifest()
                entries = {f.path: f for f in manifest.files}
                if data is not None and record.text_file not in entries:
                    atomic_write_bytes(self.folder / record.text_file, data, mode=0o600)
                    entries[record.text_file] = ManifestFile(path=record.text_file, sha256=record.text_sha256,
                                                             bytes=len(data))
                line = (json.dumps(record.model_dump(mode="json", by_alias=True), ensure_ascii=False,
                                   sort_keys=True) + "\n").encode("utf-8")
                with open(self.log_path, "ab") as fh:
                    fh.write(line)
                    fh.flush()
                    os.fsync(fh.fileno())
                for name in (LOG_FILE, STORE_FILE):
                    path = self.folder / name
                    entries[name] = ManifestFile(path=name, sha256=sha256_file(path), bytes=path.stat().st_size)
                self._log_sha256 = entries[LOG_FILE].sha256
                manifest = manifest.model_copy(update={"files": [entries[k] for k in sorted(entries)]})
                write_json(self.folder / MANIFEST, manifest.model_dump(mode="json"), mode=0o600)
                self._records.append(record)
                if record.final:
                    self._final.setdefault(record.key, record)
                return record
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
