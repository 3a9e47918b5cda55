"""Atomic writing of a file or a whole folder: readers see the old complete one or the new complete one.

A file is written to a synced temporary file beside it (``.tmp-*``, hidden, so
no mirror or folder scan takes it for a real file) and renamed into place
(:func:`atomic_write_bytes`, :func:`atomic_write_text`, or
:func:`atomic_writer` for a stream); a failure removes the temporary file and
leaves any existing file untouched. Releases, retrieval artifacts and query
caches are written into a temporary folder beside their target and put in
place by :func:`atomic_dir`, so a failed build leaves nothing behind and an
existing folder is replaced only by a complete one.

A write that runs out of room (a full disk, a quota, a file-size limit) is
:class:`DiskFull`: one sentence naming the file or folder and saying that
nothing was written, raised after the temporary file or folder is removed.
It is still the :class:`OSError` with its ``errno``, so whoever handles
storage faults (the store puts work back in its queue) recognises it.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from functools import partial
from pathlib import Path
from typing import BinaryIO

from lemmata.core.errors import LemmataError

__all__ = ["DiskFull", "atomic_dir", "atomic_write_bytes", "atomic_write_text", "atomic_writer", "replace_dir"]

#: the start of every temporary file's name (hidden: mirrors and folder scans pass over it)
TEMP_PREFIX = ".tmp-"


#: the errors that mean "no room left": a full disk, a full quota, a file past the size limit
NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


class DiskFull(OSError, LemmataError):
    """A write ran out of room; the message names what was being written and says nothing of it was left.

    >>> exc = DiskFull(errno.ENOSPC, "cannot write a.json: the disk is full")
    >>> str(exc), exc.errno == errno.ENOSPC, isinstance(exc, OSError)
    ('cannot write a.json: the disk is full', True, True)
    """

    def __str__(self) -> str:
        return str(self.strerror)


def _no_room(exc: BaseException, what: str, *, within: bool = False) -> DiskFull | None:
    """The :class:`DiskFull` to raise instead of ``exc`` when it is a write that ran out of room, else None;
    ``within``: a :class:`DiskFull` already raised for a file inside ``what`` is said of ``what`` (a folder
    being built, whose temporary files no longer exist)."""
    if not isinstance(exc, OSError) or exc.errno not in NO_ROOM or (isinstance(exc, DiskFull) and not within):
        return None
    cause = "the file is larger than the system allows" if exc.errno == errno.EFBIG else \
        "the disk quota is used up" if exc.errno == errno.EDQUOT else "the disk is full"
    return DiskFull(exc.errno, f"cannot write {what}: {cause} ({os.strerror(exc.errno)}); nothing was written and "
                               "what was there before is unchanged: free some space and run it again")


def _create_temp(folder: Path, mode: int) -> BinaryIO:
    """A new, exclusively created file in ``folder`` whose permissions are ``mode`` less the umask."""
    while True:
        try:
            return open(folder / f"{TEMP_PREFIX}{secrets.token_hex(8)}", "xb",  # noqa: SIM115 (closed by the caller)
                        opener=partial(os.open, mode=mode))
        except FileExistsError:
            continue


@contextmanager
def atomic_writer(path: str | Path, *, mode: int = 0o666) -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s new content into; on success it is synced and renamed over ``path``.

    On any failure the temporary file is removed, ``path`` is left as it was and the error propagates unchanged.
    ``mode`` is the permissions before the umask, as :func:`os.open` takes them: the default gives what
    :func:`open` gives a new file; ``0o600`` keeps the file to its owner. The file's ``name`` is the temporary
    path, for a check of the written bytes before they are put in place.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> with atomic_writer(root / "a.bin") as fh:
    ...     _ = fh.write(b"new")
    >>> try:
    ...     with atomic_writer(root / "a.bin") as fh:
    ...         _ = fh.write(b"half")
    ...         raise OSError("disk full")
    ... except OSError as exc:
    ...     print(exc)
    disk full
    >>> sorted(p.name for p in root.iterdir()), (root / "a.bin").read_bytes()
    (['a.bin'], b'new')

    A write that runs out of room raises :class:`DiskFull` instead (the same ``errno``), the file left as it was.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fh = _create_temp(path.parent, mode)
    except OSError as exc:
        full = _no_room(exc, str(path))
        if full is None:
            raise
        raise full from exc
    try:
        with fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(fh.name, path)
    except BaseException as exc:
        with suppress(FileNotFoundError):
            os.unlink(fh.name)
        full = _no_room(exc, str(path))
        if full is not None:
            raise full from exc
        raise


def atomic_write_bytes(path: str | Path, data: bytes, *, mode: int = 0o666) -> Path:
    """Write ``data`` to ``path`` whole or not at all (:func:`atomic_writer`); returns ``path``.

    >>> import stat, tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> atomic_write_bytes(root / "sub" / "a.bin", b"x").read_bytes()
    b'x'
    >>> oct(stat.S_IMODE(atomic_write_bytes(root / "own.bin", b"y", mode=0o600).stat().st_mode))
    '0o600'
    """
    with atomic_writer(path, mode=mode) as fh:
        fh.write(data)
    return Path(path)


def atomic_write_text(path: str | Path, text: str, *, mode: int = 0o666) -> Path:
    """Write ``text`` as UTF-8 to ``path`` whole or not at all; ``"\\n"`` stays ``"\\n"`` on every platform.

    >>> import tempfile
    >>> path = atomic_write_text(Path(tempfile.mkdtemp()) / "a.txt", "é\\n")
    >>> path.read_bytes()
    b'\\xc3\\xa9\\n'
    """
    return atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


def replace_dir(new: Path, target: Path) -> None:
    """Put ``new`` at ``target``; an existing ``target`` is swapped out only after ``new`` is complete."""
    if not target.exists():
        os.replace(new, target)
        return
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    os.replace(target, old)
    try:
        os.replace(new, target)
    except BaseException:
        os.replace(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)


@contextmanager
def atomic_dir(target: Path) -> Iterator[Path]:
    """A temporary folder beside ``target`` to write into; on success it is put at ``target``, on failure removed.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> with atomic_dir(root / "out") as tmp:
    ...     _ = (tmp / "a.txt").write_text("x")
    >>> sorted(p.name for p in root.iterdir()), (root / "out" / "a.txt").read_text()
    (['out'], 'x')
    """
    target = Path(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    except OSError as exc:
        full = _no_room(exc, f"the folder {target}")
        if full is None:
            raise
        raise full from exc
    try:
        yield tmp
        os.chmod(tmp, 0o755)
        replace_dir(tmp, target)
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        full = _no_room(exc, f"the folder {target}", within=True)
        if full is not None:
            raise full from exc
        raise
