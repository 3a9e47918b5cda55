"""The releases and retrieval artifacts a Re²Math submission is scored against, opened once and kept.

Opening verifies every file's sha256, which is the slow part of scoring a
submission from cold; one :class:`Resources` per handler keeps what it opened
(thread-safe) so validation, scoring and audit share it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lemmata.core.errors import LemmataError
from lemmata.benchmarks.re2math.scholar.identity import SourceIdentity
from lemmata.benchmarks.re2math.scholar.protocol import ScholarlyArtifact, is_scholarly
from lemmata.benchmarks.re2math.submission import Header


@dataclass
class Context:
    """What one submission is scored against: release rows of its split and the retrieval artifact."""

    release_id: str
    release_manifest_sha256: str
    split: str
    rows: dict[str, dict[str, Any]]  # instance_id -> row, in release order
    artifact: ScholarlyArtifact


#: verified artifacts of this process: ``folder -> (folder fingerprint, artifact)``; re-verified when it changed
_ARTIFACTS: dict[str, tuple[tuple, Any]] = {}
_ARTIFACTS_LOCK = threading.Lock()


def _open_artifact_once(path: Path) -> Any:
    """Open (and verify) an artifact folder once per process; a handler is made per upload, this is not."""
    from lemmata.benchmarks.re2math.scholar import artifact as art
    from lemmata.release.load import folder_fingerprint

    key, stamp = str(path.resolve()), folder_fingerprint(path)
    with _ARTIFACTS_LOCK:
        hit = _ARTIFACTS.get(key)
        if hit is not None and hit[0] == stamp:
            return hit[1]
    opened = art.open_artifact(path)
    with _ARTIFACTS_LOCK:
        if len(_ARTIFACTS) >= 8:
            _ARTIFACTS.clear()
        _ARTIFACTS[key] = (stamp, opened)
    return opened


class Resources:
    """Opens (and keeps) releases and retrieval artifacts by id; built on demand when they are the defaults."""

    def __init__(self, *, releases_root: str | Path | None = None, artifacts_root: str | Path | None = None,
                 build_missing: bool = True) -> None:
        self.releases_root = Path(releases_root) if releases_root else None
        self.artifacts_root = Path(artifacts_root) if artifacts_root else None
        self.build_missing = build_missing
        self._releases: dict[str, Any] = {}
        self._artifacts: dict[str, ScholarlyArtifact] = {}
        self._rows: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        self._identities: dict[str, SourceIdentity] = {}
        self._lock = threading.RLock()

    def _releases_dir(self) -> Path:
        from lemmata.core.paths import releases_dir

        return self.releases_root or releases_dir()

    def _artifacts_dir(self) -> Path:
        from lemmata.core.paths import artifacts_dir

        return self.artifacts_root or artifacts_dir()

    def release(self, release_id: str):
        from lemmata.benchmarks.re2math.meta import RE2MATH
        from lemmata.catalog import release_path
        from lemmata.catalog import open_release_folder as open_release

        with self._lock:
            if release_id not in self._releases:
                path = release_path(RE2MATH, release_id, root=self._releases_dir(), build=self.build_missing)
                self._releases[release_id] = open_release(path)
            return self._releases[release_id]

    def rows(self, release_id: str, split: str) -> dict[str, dict[str, Any]]:
        with self._lock:
            key = (release_id, split)
            if key not in self._rows:
                config, _, name = split.partition("/")
                self._rows[key] = {r["instance_id"]: r for r in self.release(release_id).rows(config, name)}
            return self._rows[key]

    def available_artifacts(self) -> list[str]:
        """Scholarly artifacts on disk, plus every declared version (built on first use)."""
        from lemmata.benchmarks.re2math.scholar.worlds import WORLDS, held_version

        root = self._artifacts_dir()
        found = {folder.name for folder in (sorted(root.iterdir()) if root.is_dir() else ())
                 if held_version(folder) is not None and (folder / "MANIFEST.json").is_file()}
        return sorted(found | {v.artifact_id for v in WORLDS.versions})

    def artifact(self, artifact_id: str) -> ScholarlyArtifact:
        from lemmata.benchmarks.re2math.scholar import worlds

        with self._lock:
            if artifact_id not in self._artifacts:
                path = self._artifacts_dir() / artifact_id
                declared = worlds.WORLDS.find(artifact_id)
                if not path.is_dir():
                    if not (self.build_missing and declared is not None):
                        raise LemmataError(f"retrieval artifact {artifact_id} is not under {self._artifacts_dir()}")
                    from lemmata.benchmarks.re2math.meta import RE2MATH

                    release = self.release(RE2MATH.release_id)
                    if declared.kind == "world":
                        worlds.build_world_version(declared.version, release.root, None, self._artifacts_dir(),
                                                   quiet=True)
                    else:
                        declared.function("build")(release.root, self._artifacts_dir(), quiet=True)
                if worlds.is_any_world(path):
                    from lemmata.benchmarks.re2math.scholar.world_artifact import WorldArtifact

                    opened = WorldArtifact(worlds.open_any_world(path))
                else:
                    opened = _open_artifact_once(path)
                if not is_scholarly(opened):
                    raise LemmataError(f"retrieval artifact {artifact_id} cannot be scored against: it does not "
                                       "provide records, attributions and materialisation")
                self._artifacts[artifact_id] = opened
            return self._artifacts[artifact_id]

    def identity(self, artifact_id: str) -> SourceIdentity:
        """The source-identity matcher of an artifact (a world's is record equality with its attribution)."""
        from lemmata.benchmarks.re2math.scholar.world_artifact import WorldArtifact, WorldIdentity

        with self._lock:
            if artifact_id not in self._identities:
                opened = self.artifact(artifact_id)
                self._identities[artifact_id] = (WorldIdentity(opened) if isinstance(opened, WorldArtifact)
                                                 else SourceIdentity(opened))
            return self._identities[artifact_id]

    def context(self, header: Header) -> Context:
        from lemmata.release.manifest import MANIFEST
        from lemmata.core.hashing import sha256_file

        release = self.release(header.release)
        return Context(release_id=header.release, split=header.split,
                       release_manifest_sha256=sha256_file(release.root / MANIFEST),
                       rows=self.rows(header.release, header.split), artifact=self.artifact(header.retrieval_artifact))
