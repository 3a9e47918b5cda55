"""MANIFEST.json: the sha256 of every file of a release, checked on load."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from lemmata.core.errors import InputError, Problem
from lemmata.core.hashing import sha256_file, write_json

MANIFEST = "MANIFEST.json"
SCHEMA = "lemmata.manifest/1"


class ManifestFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str
    sha256: str
    bytes: int


class ManifestSource(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    url: str
    sha256: str


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: str = SCHEMA
    release_id: str
    name: str
    version: str
    builder: str
    builder_version: str
    sources: list[ManifestSource] = Field(default_factory=list)
    files: list[ManifestFile]

    def file(self, path: str) -> ManifestFile:
        for f in self.files:
            if f.path == path:
                return f
        raise KeyError(path)


def _listing(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name != MANIFEST and not p.name.startswith("."))


def write_manifest(root: Path, **fields) -> Manifest:
    files = [
        ManifestFile(path=p.relative_to(root).as_posix(), sha256=sha256_file(p), bytes=p.stat().st_size)
        for p in _listing(root)
    ]
    manifest = Manifest(files=files, **fields)
    write_json(root / MANIFEST, manifest.model_dump(mode="json"))
    return manifest


def read_manifest(root: Path) -> Manifest:
    path = root / MANIFEST
    if not path.is_file():
        raise InputError.one(str(path), "missing MANIFEST.json: not a Lemmata release or artifact folder")
    try:
        return Manifest.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, json.JSONDecodeError) as exc:
        raise InputError.one(str(path), f"unreadable manifest: {exc}") from None


def verify_manifest(root: Path) -> Manifest:
    """Check every listed file's hash and that no unlisted file was added."""
    manifest = read_manifest(root)
    problems: list[Problem] = []
    listed = {f.path for f in manifest.files}
    for f in manifest.files:
        path = root / f.path
        if not path.is_file():
            problems.append(Problem(str(path), "listed in MANIFEST.json but missing"))
        elif sha256_file(path) != f.sha256:
            problems.append(Problem(str(path), f"sha256 differs from MANIFEST.json ({f.sha256[:12]}…): file was modified"))
    for p in _listing(root):
        rel = p.relative_to(root).as_posix()
        if rel not in listed:
            problems.append(Problem(str(p), "file not listed in MANIFEST.json"))
    if problems:
        raise InputError(problems)
    return manifest
