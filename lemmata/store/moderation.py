"""Moderation: hiding and showing results, each decision an immutable record replayed in order.

A hidden result stays stored and verifiable; it is only left out of listings.
Decisions are files (``moderation/<at>-<id>.json``) so a store rebuilt from its
durable files hides exactly what it hid before.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from lemmata.core.errors import LemmataError
from lemmata.core.hashing import sha256_json
from lemmata.core.models import Frozen
from lemmata.store.files import atomic_write
from lemmata.store.index import Index

__all__ = ["MODERATION_SCHEMA", "Moderation", "ModerationRecord"]

MODERATION_SCHEMA = "lemmata.moderation/1"


class ModerationRecord(Frozen):
    """One hide/unhide decision; files are replayed in ``(at, record_id)`` order."""

    schema_version: Literal["lemmata.moderation/1"] = MODERATION_SCHEMA
    record_id: str
    result_id: str
    hidden: bool
    actor: str
    reason: str | None = None
    at: str


class Moderation:
    """The store's part that hides and shows results (the ``display`` table and the files in ``folder``)."""

    def __init__(self, index: Index, *, folder: Path) -> None:
        self.index = index
        self.folder = folder

    def set_hidden(self, result_id: str, hidden: bool, *, actor: str, reason: str | None = None) -> None:
        """Hide or show a result; the decision is also written as an immutable moderation record."""
        with self.index.write() as conn:
            if conn.execute("SELECT 1 FROM results WHERE result_id = ?", (result_id,)).fetchone() is None:
                raise LemmataError(f"no result {result_id!r} in the store")
            at = dt.datetime.now(dt.timezone.utc).isoformat(timespec="microseconds")
            body = {"result_id": result_id, "hidden": hidden, "actor": actor, "reason": reason, "at": at}
            record = ModerationRecord(record_id=sha256_json(body)[:16], **body)
            conn.execute("INSERT INTO display(result_id, hidden, actor, reason, at) VALUES (?, ?, ?, ?, ?) "
                         "ON CONFLICT(result_id) DO UPDATE SET hidden = excluded.hidden, actor = excluded.actor, "
                         "reason = excluded.reason, at = excluded.at",
                         (result_id, int(hidden), actor, reason, at))
            self.index.log(conn, actor, "hide" if hidden else "unhide", result_id, reason)
            stamp = at.replace(":", "").replace("-", "").replace("+", "Z")
            atomic_write(self.folder / f"{stamp}-{record.record_id}.json",
                         record.model_dump_json(indent=2).encode("utf-8"))

    def is_hidden(self, result_id: str) -> bool:
        with self.index.connect() as conn:
            row = conn.execute("SELECT hidden FROM display WHERE result_id = ?", (result_id,)).fetchone()
        return bool(row and row["hidden"])

    def replay(self, skip: Callable[[Path, Exception], None]) -> None:
        """Apply every moderation file in ``(at, record_id)`` order; a newer decision already indexed wins.

        A file that does not parse is handed to ``skip`` and left out.
        """
        if not self.folder.is_dir():
            return
        records = []
        for path in sorted(self.folder.glob("*.json")):
            if path.name.startswith("."):
                continue
            try:
                records.append(ModerationRecord.model_validate_json(path.read_text(encoding="utf-8")))
            except ValueError as exc:
                skip(path, exc)
        with self.index.write() as conn:
            for rec in sorted(records, key=lambda r: (r.at, r.record_id)):
                current = conn.execute("SELECT at FROM display WHERE result_id = ?", (rec.result_id,)).fetchone()
                if current is not None and current["at"] > rec.at:
                    continue
                conn.execute("INSERT INTO display(result_id, hidden, actor, reason, at) VALUES (?, ?, ?, ?, ?) "
                             "ON CONFLICT(result_id) DO UPDATE SET hidden = excluded.hidden, actor = excluded.actor, "
                             "reason = excluded.reason, at = excluded.at",
                             (rec.result_id, int(rec.hidden), rec.actor, rec.reason, rec.at))
