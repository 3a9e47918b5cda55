"""Every frozen byte of a release is bound: each MANIFEST.json field and a sample of every file's bytes, edited
one at a time, is refused by the one opening function every path uses (and by the TaoBench scoring path)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import lemmata
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
    with pytest.raises((InputError, LemmataError)) as public:  # the public loader verifies exactly as the scoring path does
        lemmata.open_release(folder)
    assert str(public.value) == str(err.value)
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
    assert open_release_folder(folder).release_id == RELEASE == lemmata.open_release(folder).release_id


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


def test_a_consistently_rewritten_release_is_refused_by_the_manifest_pin(folder, tmp_path):
    """Edit a Parquet table and regenerate MANIFEST.json so every per-file hash agrees: only the registry's pin
    of the manifest's own sha256 can tell, and it refuses the folder naming folder, file and field."""
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    from lemmata.benchmarks.taobench.meta import TAOBENCH_150
    from lemmata.core.hashing import sha256_file
    from lemmata.release.manifest import read_manifest, write_manifest

    assert sha256_file(folder / MANIFEST) == TAOBENCH_150.manifest_sha256  # the suite's build is the pinned one
    copy = tmp_path / RELEASE
    shutil.copytree(folder, copy)
    table_file = next((copy / "data").rglob("*.parquet"))
    table = pq.read_table(table_file)
    column = next(i for i, f in enumerate(table.schema) if str(f.type) in ("string", "large_string"))
    values = table.column(column).to_pylist()
    values[0] = (values[0] or "") + " "
    field = table.schema.field(column)
    pq.write_table(table.set_column(column, field, pa.array(values, field.type)), table_file)
    old = read_manifest(copy)
    write_manifest(copy, **old.model_dump(exclude={"files", "schema_version"}))
    with pytest.raises(InputError) as err:
        open_release_folder(copy)
    problem = err.value.problems[0]
    assert problem.field == "manifest_sha256" and problem.file == str(copy / MANIFEST), problem
    assert str(copy) in problem.reason
    assert len(err.value.problems) == 1  # every other field and file hash agrees: the pin alone refuses it
