"""The seal ledger: which stored results are sealed, and their seals, in an append-only hash chain.

A result's ``sealed_sha256`` binds every stored field, but a seal deleted from
the file would otherwise make the result look like one stored before seals
existed (and then its date is not bound). The store therefore records, when it
adds a result, one line in ``results/seals.ledger.jsonl``: the result id and its seal
(``null`` only for a *legacy* result, one already stored when the ledger was
started). Each line carries its position (``seq``), the hash of the line before
it (``prev_sha256``) and its own ``entry_sha256``, so a line removed, changed or
reordered breaks the chain. Every read of a result checks its file's seal
against the ledger: a result the ledger lists as sealed must carry that seal; a
result the ledger does not list is an integrity error, never legacy.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from lemmata.core.hashing import sha256_json

__all__ = ["LEDGER_FILE", "LEDGER_FORMAT", "LedgerError", "SealLedger"]

LEDGER_FILE = "seals.ledger.jsonl"  #: under results/: a durable file the Hub mirror carries
LEDGER_FORMAT = "lemmata.seal-ledger/1"
GENESIS = "0" * 64
_KEYS = frozenset({"format", "seq", "result_id", "sealed_sha256", "prev_sha256", "entry_sha256"})


class LedgerError(ValueError):
    """The ledger file itself does not verify (its line and field are named)."""


def _entry_hash(entry: dict[str, Any]) -> str:
    return sha256_json({k: v for k, v in entry.items() if k != "entry_sha256"})


class SealLedger:
    """``result_id -> seal`` (None: legacy) read from a verified chain; re-read whenever the file changed."""

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / LEDGER_FILE
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._seals: dict[str, str | None] = {}
        self._tip = GENESIS
        #: why the ledger cannot be trusted although it is absent (results carry seals): every read is refused
        self.missing: str | None = None

    def exists(self) -> bool:
        return self.path.exists()

    def start(self, pairs: list[tuple[str, str | None]]) -> None:
        """Create the ledger (empty, or listing the results already stored: legacy where they carry no seal)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.touch()
        self.append(pairs)

    def _load(self) -> None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._stamp, self._seals, self._tip = None, {}, GENESIS
            return
        stamp = (st.st_size, st.st_mtime_ns)
        if stamp == self._stamp:
            return
        seals: dict[str, str | None] = {}
        tip = GENESIS
        with open(self.path, "rb") as fh:
            for seq, raw in enumerate(fh, start=1):
                where = f"{self.path.name}, line {seq}"
                try:
                    entry = json.loads(raw)
                except ValueError:
                    raise LedgerError(f"{where}: not JSON") from None
                if not isinstance(entry, dict) or set(entry) != _KEYS or entry["format"] != LEDGER_FORMAT:
                    raise LedgerError(f"{where}: not a {LEDGER_FORMAT} entry")
                if entry["seq"] != seq:
                    raise LedgerError(f"{where}, field 'seq': entry {entry['seq']!r} stands at position {seq}")
                if entry["prev_sha256"] != tip:
                    raise LedgerError(f"{where}, field 'prev_sha256': not the hash of the entry before it (lines "
                                      "were removed, inserted or reordered)")
                if entry["entry_sha256"] != _entry_hash(entry):
                    raise LedgerError(f"{where}, field 'entry_sha256': the entry was edited")
                if entry["result_id"] in seals and seals[entry["result_id"]] != entry["sealed_sha256"]:
                    raise LedgerError(f"{where}, field 'sealed_sha256': result {entry['result_id'][:12]} is "
                                      "already listed with another seal")
                seals[entry["result_id"]] = entry["sealed_sha256"]
                tip = entry["entry_sha256"]
        self._stamp, self._seals, self._tip = stamp, seals, tip

    def seals(self) -> dict[str, str | None]:
        """Every listed result and its seal (None: legacy); :class:`LedgerError` when the chain breaks."""
        with self._lock:
            self._load()
            return dict(self._seals)

    def listed(self, result_id: str) -> tuple[bool, str | None]:
        """``(listed, seal)`` of one result."""
        with self._lock:
            if self.missing is not None and not self.path.exists():
                raise LedgerError(self.missing)
            self._load()
            return result_id in self._seals, self._seals.get(result_id)

    def append(self, pairs: list[tuple[str, str | None]]) -> None:
        """Record results and their seals (None only when starting the ledger over legacy results); a result
        already listed with the same seal is not written again. Call under the store's write lock."""
        with self._lock:
            if self.missing is not None and not self.path.exists():
                raise LedgerError(self.missing)
            self._load()
            lines = []
            seals = dict(self._seals)  # kept only once the lines are on disk
            seq, tip = len(seals), self._tip  # one line per listed result
            for result_id, seal in pairs:
                if result_id in seals:
                    if seals[result_id] != seal:
                        raise LedgerError(f"{self.path.name}: result {result_id[:12]} is already listed with "
                                          "another seal")
                    continue
                seq += 1
                entry = {"format": LEDGER_FORMAT, "seq": seq, "result_id": result_id, "sealed_sha256": seal,
                         "prev_sha256": tip}
                entry["entry_sha256"] = tip = _entry_hash(entry)
                seals[result_id] = seal
                lines.append(json.dumps(entry, sort_keys=True) + "\n")
            if not lines:
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            data = "".join(lines).encode("utf-8")
            with open(self.path, "ab") as fh:
                before = os.fstat(fh.fileno()).st_size
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
                after = os.fstat(fh.fileno())
            # the chain now read is the one just verified plus the lines just written: keep it, so adding n
            # results reads the file once, not n times; anything else (a size that does not add up) re-reads it
            known = self._stamp is not None and before == self._stamp[0] and after.st_size == before + len(data)
            self._seals = seals
            self._stamp, self._tip = ((after.st_size, after.st_mtime_ns), tip) if known else (None, self._tip)
