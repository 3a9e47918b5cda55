"""A write that runs out of room says so in one sentence and leaves nothing half-written (a simulated ENOSPC)."""

from __future__ import annotations

import errno
import io

import pytest

from lemmata.core import atomic
from lemmata.core.atomic import DiskFull, atomic_dir, atomic_write_bytes
from lemmata.core.errors import LemmataError
from lemmata.store.faults import describe_fault, is_storage_fault


class _FillsUp(io.FileIO):
    """A real temporary file on a disk with ``room`` bytes left: the write past it fails as the kernel's does."""

    room = 1000

    def write(self, data) -> int:
        left = self.room - self.tell()
        if len(data) > left:
            super().write(bytes(data[:max(0, left)]))  # the part that fit is on disk: half a file
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().write(data)


@pytest.fixture()
def small_disk(monkeypatch):
    real = atomic._create_temp

    def create(folder, mode):
        fh = real(folder, mode)
        name = fh.name
        fh.close()
        return _FillsUp(name, "wb")

    monkeypatch.setattr(atomic, "_create_temp", create)


def test_a_full_disk_leaves_the_old_file_and_no_half_written_one(tmp_path, small_disk):
    target = tmp_path / "result.json"
    target.write_bytes(b"the old complete file")
    with pytest.raises(DiskFull) as err:
        atomic_write_bytes(target, b"x" * 5000)
    message = str(err.value)
    assert message.startswith(f"cannot write {target}: the disk is full") and "nothing was written" in message
    assert isinstance(err.value, LemmataError) and err.value.errno == errno.ENOSPC  # the one root, and still an OSError
    assert is_storage_fault(err.value) and describe_fault(err.value) == "the disk is full"
    assert target.read_bytes() == b"the old complete file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json"]  # the partly written temporary file is gone
    atomic_write_bytes(tmp_path / "small.json", b"fits")  # a write that fits still works
    assert (tmp_path / "small.json").read_bytes() == b"fits"


def test_a_full_disk_during_a_folder_build_leaves_no_folder(tmp_path, small_disk):
    target = tmp_path / "release"
    target.mkdir()
    (target / "old.txt").write_text("old build")
    with pytest.raises(DiskFull, match=f"cannot write the folder {target}: the disk is full"):
        with atomic_dir(target) as tmp:
            atomic_write_bytes(tmp / "a.parquet", b"x" * 500)
            atomic_write_bytes(tmp / "b.parquet", b"y" * 5000)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["release"]
    assert sorted(p.name for p in target.iterdir()) == ["old.txt"]


def test_other_errors_pass_through_unchanged(tmp_path, monkeypatch):
    def refused(folder, mode):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(atomic, "_create_temp", refused)
    with pytest.raises(PermissionError) as err:
        atomic_write_bytes(tmp_path / "a.json", b"x")
    assert not isinstance(err.value, DiskFull)


def test_the_folder_s_message_is_one_sentence(tmp_path, small_disk):
    with pytest.raises(DiskFull) as err:
        with atomic_dir(tmp_path / "out") as tmp:
            atomic_write_bytes(tmp / "big.bin", b"z" * 5000)
    assert str(err.value).count("cannot write") == 1 and ".tmp" not in str(err.value)
