"""Open a built release: verify its manifest, then read configs without ``datasets``."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from lemmata.core.errors import InputError
from lemmata.release.card import CARD, parse_front_matter
from lemmata.release.manifest import Manifest, ManifestExpectation, verify_manifest
from lemmata.release.parquet import read_rows


@dataclass
class Release:
    root: Path
    manifest: Manifest

    @property
    def release_id(self) -> str:
        return self.manifest.release_id

    @cached_property
    def card_data(self) -> dict:
        return parse_front_matter((self.root / CARD).read_text("utf-8"))

    def _data_files(self, config: str) -> dict[str, str]:
        for entry in self.card_data.get("configs", []):
            if entry["config_name"] == config:
                return {df["split"]: df["path"] for df in entry["data_files"]}
        known = [e["config_name"] for e in self.card_data.get("configs", [])]
        raise InputError.one(str(self.root), f"release {self.release_id} has no config {config!r} (has: {known})",
                             field="config")

    def configs(self) -> list[str]:
        return [e["config_name"] for e in self.card_data.get("configs", [])]

    def splits(self, config: str) -> list[str]:
        return list(self._data_files(config))

    def rows(self, config: str, split: str) -> list[dict[str, Any]]:
        files = self._data_files(config)
        if split not in files:
            raise InputError.one(str(self.root), f"config {config!r} of {self.release_id} has no split {split!r} "
                                                 f"(has: {list(files)})", field="split")
        return read_rows(self.root / files[split])


def expectation(meta: Any) -> ManifestExpectation:
    """What the registry pins for a release's MANIFEST.json: id, name, version and every raw source's hash.

    ``meta`` is a :class:`lemmata.core.meta.BenchmarkMeta`. Hub-built releases list snapshot files that the
    registry pins by revision, not by file, so their sources are compared only when ``meta`` lists files.
    """
    sources = {s.name: (s.url, s.sha256) for s in meta.sources} if meta.sources else None
    return ManifestExpectation(release_id=meta.release_id, name=meta.name, version=meta.version, sources=sources,
                               manifest_sha256=getattr(meta, "manifest_sha256", None))


def open_release(path: str | Path, *, verify: bool = True, expect: ManifestExpectation | None = None) -> Release:
    """The release at ``path``; ``verify`` checks its manifest (and, with ``expect``, the registry's pins)."""
    root = Path(path)
    if not root.is_dir():
        raise InputError.one(str(root), "release folder does not exist; build it with `lemmata build <family>`")
    from lemmata.release.manifest import read_manifest

    if not verify:
        return Release(root=root, manifest=read_manifest(root))
    key = (str(root.resolve()), expect.model_dump_json() if expect is not None else None)
    stamp = folder_fingerprint(root)
    with _LOCK:
        hit = _OPENED.get(key)
        if hit is not None and hit[0] == stamp:
            _OPENED.move_to_end(key)
            return hit[1]
    release = Release(root=root, manifest=verify_manifest(root, expect))
    with _LOCK:
        _OPENED[key] = (stamp, release)
        while len(_OPENED) > _MAX_OPENED:
            _OPENED.popitem(last=False)
    return release


#: verified releases of this process: ``(folder, expectation) -> (folder fingerprint, release)``
_OPENED: OrderedDict[tuple[str, str | None], tuple[tuple, Release]] = OrderedDict()
_LOCK = threading.Lock()
_MAX_OPENED = 32


def folder_fingerprint(root: str | Path) -> tuple:
    """``(path, inode, size, mtime_ns, ctime_ns)`` of the folder and of every file and folder under it.

    Verifying a release hashes every file (the slow part of opening one);
    releases and artifacts are immutable, so a verified folder whose
    fingerprint is unchanged needs no second hashing in the same process. Any
    write, rename, added or removed file changes a size, a time or the
    listing (the change time cannot be set back by a user), and the folder is
    verified again.
    """
    out = []
    stack = [Path(root)]
    while stack:
        folder = stack.pop()
        try:
            st = os.stat(folder)
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            out.append((str(folder), None))
            continue
        out.append((str(folder), st.st_ino, st.st_mtime_ns, st.st_ctime_ns))
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
                continue
            try:
                est = entry.stat(follow_symlinks=False)
            except OSError:
                out.append((entry.path, None))
                continue
            out.append((entry.path, est.st_ino, est.st_size, est.st_mtime_ns, est.st_ctime_ns))
    return tuple(out)
