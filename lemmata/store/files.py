"""The durable files of a store: the folders a mirror carries, the submission sidecar, and the one way to write.

Three kinds of files are immutable and together are the whole durable state:
``results/<benchmark>/<result_id>.json``; ``submissions/<sha256>.jsonl`` with
its ``<sha256>.meta.json`` sidecar (:class:`SubmissionMeta`: who sent it,
when); and ``moderation/<at>-<id>.json`` (hide/unhide decisions, replayed in
order). Every file is written whole or not at all (:func:`atomic_write`), so a
crash never leaves a half-written file for :meth:`~lemmata.store.Store.reindex`
to find.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from lemmata.core.atomic import atomic_write_bytes
from lemmata.core.models import Frozen

__all__ = ["DURABLE_FOLDERS", "SUBMISSION_META_SCHEMA", "SubmissionMeta", "atomic_write", "has_durable_files"]

SUBMISSION_META_SCHEMA = "lemmata.submission/1"
#: the folders a mirror (Hub dataset repository) must carry; SQLite is rebuilt from them
DURABLE_FOLDERS = ("results", "submissions", "moderation")


class SubmissionMeta(Frozen):
    """The immutable sidecar of a stored submission: what the upload alone does not say."""

    schema_version: Literal["lemmata.submission/1"] = SUBMISSION_META_SCHEMA
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    benchmark: str
    track: str
    filename: str
    model_name: str
    submitter: str
    received_at: str
    header: dict[str, Any]
    contact: str | None = None
    notes: str | None = None


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a synced temporary file in the same folder and one rename, readable by
    its owner only (:func:`~lemmata.core.atomic.atomic_write_bytes`)."""
    atomic_write_bytes(path, data, mode=0o600)


def has_durable_files(root: Path) -> bool:
    """Whether any durable file exists under ``root``, i.e. whether a missing index means lost entries."""
    for name in DURABLE_FOLDERS:
        folder = root / name
        if folder.is_dir() and any(p.is_file() for p in folder.rglob("*.json*")):
            return True
    return False
