"""The leaderboard store: immutable result files indexed in SQLite.

The results folder is the source of truth — one JSON file per result, written
once and never changed — and SQLite is an index over it plus the mutable state
around it (submission status, the scoring queue, display flags, an audit log).
``reindex()`` rebuilds the index from the folder, so a store synced from
elsewhere (a Hub dataset repository) loses nothing.

The parts, one module each: the durable files and how they are written
(:mod:`~lemmata.store.files`), the SQLite index (:mod:`~lemmata.store.index`),
stored submissions and their rate limits (:mod:`~lemmata.store.submissions`,
:mod:`~lemmata.store.ratelimit`), the scoring queue (:mod:`~lemmata.store.queue`),
results (:mod:`~lemmata.store.results`) read only when they pass their
integrity check (:mod:`~lemmata.store.integrity`, with the seal ledger in
:mod:`~lemmata.store.ledger`), moderation (:mod:`~lemmata.store.moderation`),
storage faults (:mod:`~lemmata.store.faults`), and opening a folder with its
recovery (:mod:`~lemmata.store.opening`). :class:`Store` holds one object per
part, each given the SQLite index and the folders it needs, and lends their
public methods, so callers write ``store.add_result(...)``. What a board row
shows is the space's to say (:class:`RowSummary`).
"""

from __future__ import annotations

from lemmata.store.faults import StorageError, check_index, describe_fault, is_storage_fault
from lemmata.store.files import DURABLE_FOLDERS, SubmissionMeta
from lemmata.store.index import STORE_SCHEMA, RowSummary
from lemmata.store.integrity import ResultIntegrityError
from lemmata.store.moderation import ModerationRecord
from lemmata.store.opening import Store, default_store
from lemmata.store.ratelimit import RateLimit, RateLimited
from lemmata.store.submissions import SubmissionIntegrityError, SubmissionRecord, SubmissionStatus

__all__ = [
    "DURABLE_FOLDERS", "STORE_SCHEMA", "ModerationRecord", "RateLimit", "RateLimited", "ResultIntegrityError",
    "RowSummary", "StorageError", "Store", "SubmissionIntegrityError", "SubmissionMeta", "SubmissionRecord", "SubmissionStatus", "check_index",
    "default_store", "describe_fault", "is_storage_fault",
]
