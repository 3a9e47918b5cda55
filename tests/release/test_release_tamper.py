"""Every frozen byte of a release is bound: each MANIFEST.json field and a sample of every file's bytes, edited
one at a time, is refused by the one opening function every path uses (and by the TaoBench scoring path)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from lemmata.benchmarks.taobench.release import open_taobench
from lemmata.catalog import open_release_folder
from lemmata.core.errors import InputError, LemmataError
from lemmata.release.manifest import MANIFEST

RELEASE = "taobench-150-1.1.0"


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tamper")
    return open_taobench(RELEASE, root).root


def _leaves(doc, path=()):
    """``(path, value)`` of every scalar field of the manifest (the file list sampled: first, middle, last)."""
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(doc, list):
        picks = sorted({0, len(doc) // 2, len(doc) - 1}) if path == ("files",) else range(len(doc))
        for i in picks:
            yield from _leaves(doc[i], (*path, i))
    else:
        yield path, doc


def _edited(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    text = str(value)
    if len(text) == 64 and all(c in "0123456789abcdef" for c in text):  # a sha256: one digit changed
        return text[:10] + ("0" if text[10] != "0" else "1") + text[11:]
    return text + "x"


def _set(doc, path, value):
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


def _refused(folder: Path) -> str:
    with pytest.raises((InputError, LemmataError)) as err:
        open_release_folder(folder)
    with pytest.raises((InputError, LemmataError)):
        open_taobench(RELEASE, folder.parent, build=False)
    return str(err.value) + " " + " ".join(str(p) for p in getattr(err.value, "problems", []))


def test_every_manifest_field_edit_is_refused(folder):
    path = folder / MANIFEST
    original = path.read_bytes()
    doc = json.loads(original)
    cases = list(_leaves(doc))
    assert len(cases) >= 12 and any(p[0] == "sources" and p[-1] == "sha256" for p, _ in cases)
    try:
        for field_path, value in cases:
            edited = json.loads(original)
            _set(edited, field_path, _edited(value))
            path.write_text(json.dumps(edited, indent=2), "utf-8")
            message = _refused(folder)
            name = str(field_path[-1]) if field_path[0] not in ("files",) else ""
            assert name in message, (field_path, message)
    finally:
        path.write_bytes(original)
    assert open_release_folder(folder).release_id == RELEASE


def test_a_sample_of_bytes_of_every_file_is_bound(folder):
    rng = random.Random(25)
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST)
    assert files
    for file in files:
        original = file.read_bytes()
        try:
            for at in {0, len(original) - 1, rng.randrange(len(original))}:
                raw = bytearray(original)
                raw[at] ^= 0x01
                file.write_bytes(bytes(raw))
                assert "sha256 differs" in _refused(folder), (file, at)
        finally:
            file.write_bytes(original)
    assert open_release_folder(folder).release_id == RELEASE
