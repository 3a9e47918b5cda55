"""MANIFEST.json: the sha256 of every file of a release, checked on load."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import Field

from lemmata.core.errors import InputError, Problem
from lemmata.core.hashing import sha256_file, write_json
from lemmata.core.models import Frozen, Strict

MANIFEST = "MANIFEST.json"
SCHEMA = "lemmata.manifest/1"


class ManifestFile(Strict):
    path: str
    sha256: str
    bytes: int


class ManifestSource(Strict):
    name: str
    url: str
    sha256: str


class Manifest(Strict):
    schema_version: str = SCHEMA
    release_id: str
    name: str
    version: str
    builder: str
    builder_version: str
    sources: list[ManifestSource] = Field(default_factory=list)
    #: which published layout of each upstream source the build read (source name -> layout name), for sources
    #: that upstream has published in more than one schema; absent (not written) for every other release, so
    #: adding it changed no existing release's bytes
    layouts: dict[str, str] | None = None
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
    write_json(root / MANIFEST, manifest.model_dump(mode="json", exclude_none=True))
    return manifest


def read_manifest(root: Path) -> Manifest:
    path = root / MANIFEST
    if not path.is_file():
        raise InputError.one(str(path), "missing MANIFEST.json: not a Lemmata release or artifact folder")
    try:
        return Manifest.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, json.JSONDecodeError) as exc:
        raise InputError.one(str(path), f"unreadable manifest: {exc}") from None


class ManifestExpectation(Frozen):
    """What a reader knows a manifest must say (from the registry): every given field is compared."""

    release_id: str | None = None
    name: str | None = None
    version: str | None = None
    builder: str | None = None
    builder_version: str | None = None
    sources: dict[str, tuple[str, str]] | None = Field(default=None, description="name -> (url, pinned sha256)")
    manifest_sha256: str | None = Field(default=None, description="pinned sha256 of MANIFEST.json's bytes")


def field_problems(manifest: Manifest, path: Path, expect: ManifestExpectation | None = None) -> list[Problem]:
    """Every MANIFEST.json field that disagrees with its form or with what the registry pins, by field."""
    where = str(path)
    problems: list[Problem] = []
    if manifest.schema_version != SCHEMA:
        problems.append(Problem(where, f"schema {manifest.schema_version!r} is not {SCHEMA!r}", field="schema_version"))
    for name in ("release_id", "name", "version", "builder", "builder_version"):
        if not getattr(manifest, name).strip():
            problems.append(Problem(where, "must not be empty", field=name))
    seen: set[str] = set()
    for i, f in enumerate(manifest.files):
        parts = f.path.split("/")
        if f.path in seen or f.path.startswith("/") or ".." in parts or "" in parts:
            problems.append(Problem(where, f"file path {f.path!r} is repeated or not a plain relative path",
                                    field=f"files[{i}].path"))
        seen.add(f.path)
        if f.bytes < 0:
            problems.append(Problem(where, "must not be negative", field=f"files[{i}].bytes"))
    if expect is None:
        return problems
    for name in ("release_id", "name", "version", "builder", "builder_version"):
        want = getattr(expect, name)
        if want is not None and getattr(manifest, name) != want:
            problems.append(Problem(where, f"says {getattr(manifest, name)!r}, the registry says {want!r}",
                                    field=name))
    if expect.sources is not None:
        for i, src in enumerate(manifest.sources):
            pinned = expect.sources.get(src.name)
            if pinned is None:
                problems.append(Problem(where, f"source {src.name!r} is not pinned in the registry",
                                        field=f"sources[{i}].name"))
                continue
            if src.url != pinned[0]:
                problems.append(Problem(where, f"url of {src.name!r} is not the pinned {pinned[0]}",
                                        field=f"sources[{i}].url"))
            if src.sha256 != pinned[1]:
                problems.append(Problem(where, f"sha256 of {src.name!r} is not the pinned {pinned[1]}",
                                        field=f"sources[{i}].sha256"))
    return problems


def file_problem(root: Path, f: ManifestFile) -> Problem | None:
    """What is wrong with one listed file as found under ``root`` (missing, another size, another sha256), or None:
    the one per-file check, for the whole folder (:func:`verify_manifest`) and for a single file shown alone."""
    path = root / f.path
    if not path.is_file():
        return Problem(str(path), "listed in MANIFEST.json but missing")
    if path.stat().st_size != f.bytes:
        return Problem(str(path), f"size differs from MANIFEST.json ({f.bytes} bytes recorded, "
                                  f"{path.stat().st_size} found)", field="bytes")
    if sha256_file(path) != f.sha256:
        return Problem(str(path), f"sha256 differs from MANIFEST.json ({f.sha256[:12]}…): file was modified")
    return None


def verify_manifest(root: Path, expect: ManifestExpectation | None = None) -> Manifest:
    """Check every MANIFEST.json field: its form, what ``expect`` pins, and every listed file's size and hash.

    No unlisted file may have been added either.
    """
    manifest = read_manifest(root)
    problems: list[Problem] = field_problems(manifest, root / MANIFEST, expect)
    if expect is not None and expect.manifest_sha256 is not None:
        found = sha256_file(root / MANIFEST)
        if found != expect.manifest_sha256:
            # a folder rewritten consistently (a file edited, MANIFEST.json regenerated) passes every per-file
            # check; the registry's pin of the manifest's own bytes is what refuses it
            problems.insert(0, Problem(str(root / MANIFEST), f"release folder {root} is not the pinned build: "
                                       f"MANIFEST.json sha256 {found[:12]}… differs from the registry's pin "
                                       f"{expect.manifest_sha256[:12]}…", field="manifest_sha256"))
    listed = {f.path for f in manifest.files}
    for f in manifest.files:
        problem = file_problem(root, f)
        if problem is not None:
            problems.append(problem)
    for p in _listing(root):
        rel = p.relative_to(root).as_posix()
        if rel not in listed:
            problems.append(Problem(str(p), "file not listed in MANIFEST.json"))
    if problems:
        raise InputError(problems)
    return manifest
