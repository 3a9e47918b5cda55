"""Verified releases are kept per process and verified again when their folder changed."""

from __future__ import annotations

import os

import pytest

from lemmata.core.errors import InputError
from lemmata.release import load
from lemmata.benchmarks.taobench.release import open_taobench


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("tb-cache")
    return open_taobench("taobench-150-1.1.0", root).root


def test_a_verified_release_is_not_hashed_again_until_its_folder_changes(folder, monkeypatch):
    calls = []
    real = load.verify_manifest
    monkeypatch.setattr(load, "verify_manifest", lambda root, expect=None: calls.append(root) or real(root, expect))
    load._OPENED.clear()
    first = load.open_release(folder)
    second = load.open_release(folder)
    assert second is first and len(calls) == 1
    data = next(p for p in folder.rglob("*.parquet"))
    st = os.stat(data)
    raw = bytearray(data.read_bytes())
    raw[len(raw) // 2] ^= 1  # same size, same mtime: only the change time tells
    data.write_bytes(bytes(raw))
    os.utime(data, ns=(st.st_atime_ns, st.st_mtime_ns))
    try:
        with pytest.raises(InputError, match="sha256 differs"):
            load.open_release(folder)
        assert len(calls) == 2
    finally:
        raw[len(raw) // 2] ^= 1
        data.write_bytes(bytes(raw))
    assert load.open_release(folder).manifest == first.manifest and len(calls) == 3
    assert load.open_release(folder, verify=False).manifest == first.manifest and len(calls) == 3
