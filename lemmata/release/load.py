"""Open a built release: verify its manifest, then read configs without ``datasets``."""

from __future__ import annotations

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
    return ManifestExpectation(release_id=meta.release_id, name=meta.name, version=meta.version, sources=sources)


def open_release(path: str | Path, *, verify: bool = True, expect: ManifestExpectation | None = None) -> Release:
    """The release at ``path``; ``verify`` checks its manifest (and, with ``expect``, the registry's pins)."""
    root = Path(path)
    if not root.is_dir():
        raise InputError.one(str(root), "release folder does not exist; build it with `lemmata build <family>`")
    from lemmata.release.manifest import read_manifest

    manifest = verify_manifest(root, expect) if verify else read_manifest(root)
    return Release(root=root, manifest=manifest)
