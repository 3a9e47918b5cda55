"""Hosted persistence: mirror the store's immutable files to a Hub dataset repository.

A Space's disk is wiped on restart. Only immutable files are mirrored —
results, submissions with their sidecars, moderation records (see
:data:`~lemmata.store.DURABLE_FOLDERS`) — so a file is uploaded once and never
conflicts; SQLite is rebuilt from them by ``Store.reindex()``. On start the
repository is downloaded into the store folder and reindexed; afterwards a
``huggingface_hub.CommitScheduler`` pushes new files every few minutes (and
once more at exit). Locally nothing of this runs: the store stays on disk.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from lemmata.core.errors import LemmataError
from lemmata.space.config import HubSyncConfig, SpaceConfig
from lemmata.store import DURABLE_FOLDERS, Store

log = logging.getLogger("lemmata.space.hub_sync")

ALLOW_PATTERNS = [f"{folder}/**" for folder in DURABLE_FOLDERS]
#: temporary files of atomic writes (``.tmp-*``) and anything hidden must never be pushed half-written
IGNORE_PATTERNS = ["**/.tmp-*", ".tmp-*", "**/.*", "*.sqlite3", "*.sqlite3-*"]


@dataclass(frozen=True)
class RestoreReport:
    repo_id: str
    existed: bool
    results_added: int
    submissions: int
    skipped: int = 0

    def describe(self) -> str:
        if not self.existed:
            return f"{self.repo_id} does not exist yet; it will be created by the first sync"
        text = f"restored {self.results_added} new result(s) and {self.submissions} submission(s) from {self.repo_id}"
        if self.skipped:
            text += f"; {self.skipped} unreadable file(s) skipped (see the events log)"
        return text


def sync_plan(config: SpaceConfig) -> HubSyncConfig | None:
    """The mirror to use, or None locally (and on a Space without ``LEMMATA_RESULTS_REPO``)."""
    return config.hub_sync if config.hosted else None


def restore(store: Store, sync: HubSyncConfig, *, token: str | None = None,
            endpoint: str | None = None) -> RestoreReport:
    """Download the mirror's durable files into the store folder, then ``reindex()``.

    The repository's current commit is resolved first and downloaded exactly;
    afterwards every durable file it lists must be on disk. This matters
    because ``snapshot_download`` quietly returns an existing local folder when
    the Hub cannot be reached: a store that silently starts empty would accept
    a second copy of an entry the mirror already holds. Any failure here is a
    LemmataError (the start-up step fails and uploads stay paused); only a
    repository that does not exist yet starts an empty store.
    """
    from fnmatch import fnmatch

    from huggingface_hub import HfApi, snapshot_download
    from huggingface_hub.errors import RepositoryNotFoundError

    api = HfApi(endpoint=endpoint, token=token)
    try:
        info = api.repo_info(sync.repo_id, repo_type="dataset")
    except RepositoryNotFoundError:
        info = None
    except Exception as exc:
        raise LemmataError(f"could not reach the Hub dataset {sync.repo_id} to restore the store: {exc}") from exc
    if info is not None:
        wanted = [s.rfilename for s in (info.siblings or [])
                  if any(fnmatch(s.rfilename, p) for p in ALLOW_PATTERNS)
                  and not any(fnmatch(s.rfilename, p) for p in IGNORE_PATTERNS)]
        try:
            snapshot_download(repo_id=sync.repo_id, repo_type="dataset", revision=info.sha,
                              local_dir=str(store.root), allow_patterns=ALLOW_PATTERNS,
                              ignore_patterns=IGNORE_PATTERNS, token=token, endpoint=endpoint)
        except Exception as exc:
            raise LemmataError(f"could not restore the store from the Hub dataset {sync.repo_id}: {exc}") from exc
        missing = [f for f in wanted if not (store.root / f).is_file()]
        if missing:
            raise LemmataError(f"restoring from {sync.repo_id} left {len(missing)} file(s) missing (for example "
                               f"{missing[0]}); the Hub may be unreachable")
    added = store.reindex()
    submissions = sum(1 for _ in store.submissions_dir.glob("*.meta.json")) if store.submissions_dir.is_dir() else 0
    report = RestoreReport(repo_id=sync.repo_id, existed=info is not None, results_added=added,
                           submissions=submissions, skipped=len(store.reindex_problems))
    log.info(report.describe())
    return report


def start_scheduler(store: Store, sync: HubSyncConfig, *, token: str | None = None,
                    scheduler_cls: type | None = None) -> Any:
    """Start pushing new durable files every ``sync.every_minutes`` (a public dataset unless ``LEMMATA_RESULTS_PRIVATE=1``: the
    mirror is the outside record anyone can audit)."""
    if scheduler_cls is None:
        from huggingface_hub import CommitScheduler as scheduler_cls  # noqa: N813
    return scheduler_cls(repo_id=sync.repo_id, repo_type="dataset", folder_path=store.root,
                         every=sync.every_minutes, private=sync.private, token=token,
                         allow_patterns=ALLOW_PATTERNS, ignore_patterns=IGNORE_PATTERNS)
