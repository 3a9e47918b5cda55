"""The one base of every verdict artifact: a folder holding ``ARTIFACT.json`` and its verdict cache.

A judge and a Lean verifier differ in what their manifest records (rubric
template hashes; Lean and Mathlib versions) and in what makes an existing
folder theirs, but not in how the folder is kept: the manifest is written once,
atomically, before the first verdict; a folder with verdicts but no manifest is
refused; the verdict cache (:mod:`lemmata.oracles.cache`) is verified entry by
entry whenever it is read. Subclasses say which manifest model they use and
what to compare in :meth:`VerdictArtifact.check_manifest`.
"""

from __future__ import annotations

import threading
from pathlib import Path
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from lemmata.core.errors import LemmataError
from lemmata.core.hashing import write_json
from lemmata.oracles.cache import VerdictCache

ARTIFACT_FILE = "ARTIFACT.json"

M = TypeVar("M", bound=BaseModel)


def read_artifact_manifest(folder: Path, model: type[M], kind: str) -> M:
    """``ARTIFACT.json`` of ``folder`` as ``model``; a missing or invalid one is a one-sentence error."""
    path = folder / ARTIFACT_FILE
    if not path.is_file():
        raise LemmataError(f"{folder} has no {ARTIFACT_FILE}: not a {kind} artifact")
    try:
        return model.model_validate_json(path.read_text("utf-8"))
    except (ValidationError, UnicodeDecodeError) as exc:
        why = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else "not UTF-8"
        raise LemmataError(f"{path} is not a valid {kind} artifact manifest ({why})") from None


class VerdictArtifact(ABC, Generic[M]):
    """A scoring artifact's folder: its manifest (checked on open) and its verdict cache."""

    kind: ClassVar[str] = "verdict"
    manifest_model: ClassVar[type[BaseModel]]
    #: description fields every opener knows in advance (from the registry and its configuration): each must
    #: equal what the folder's ``ARTIFACT.json`` says, so one artifact's verdicts are never shown as another's
    bound_fields: ClassVar[tuple[str, ...]] = ("artifact_id", "benchmark", "cache_file")

    def __init__(self, folder: str | Path, manifest: M) -> None:
        self.folder = Path(folder)
        self.manifest: M = manifest
        self.cache = VerdictCache(self.folder)
        self._manifest_lock = threading.Lock()
        self._open()

    @property
    def manifest_path(self) -> Path:
        return self.folder / ARTIFACT_FILE

    def _open(self) -> None:
        if not self.manifest_path.exists():
            if self.cache.path.exists():
                raise LemmataError(f"{self.folder} holds verdicts but no {ARTIFACT_FILE}; it is not a "
                                   f"{self.kind} artifact")
            return
        found = read_artifact_manifest(self.folder, self.manifest_model, self.kind)
        self.check_manifest(found)  # type: ignore[arg-type]
        for name in self.bound_fields:
            want, have = getattr(self.manifest, name, None), getattr(found, name, None)
            if have != want:
                raise LemmataError(f"{self.manifest_path}, field {name!r}: says {have!r}, but this folder is the "
                                   f"{self.kind} artifact {want!r}; the description was edited or the folder is "
                                   "another artifact's")
        self.manifest = found  # type: ignore[assignment]

    @abstractmethod
    def check_manifest(self, found: M) -> None:
        """Raise :class:`LemmataError` when the folder's manifest is not this artifact's."""

    def write_manifest(self, manifest: M) -> None:
        """Write ``ARTIFACT.json`` once, before the first verdict (atomic; threads and processes may race here)."""
        with self._manifest_lock:
            if self.manifest_path.exists():
                return
            self.manifest = manifest
            write_json(self.manifest_path, manifest.model_dump(mode="json", by_alias=True), mode=0o600)

    def verify(self) -> int:
        """Read and check every recorded verdict from the start; the number of verdicts."""
        return self.cache.verify()

    def describe(self) -> dict[str, Any]:
        return self.manifest.model_dump(mode="json", by_alias=True)

    def __len__(self) -> int:
        return len(self.cache)
