"""Atomic writing of a file or a whole folder: readers see the old complete one or the new complete one.

A file is written to a synced temporary file beside it (``.tmp-*``, hidden, so
no mirror or folder scan takes it for a real file) and renamed into place
(:func:`atomic_write_bytes`, :func:`atomic_write_text`, or
:func:`atomic_writer` for a stream); a failure removes the temporary file and
leaves any existing file untouched. Releases, retrieval artifacts and query
caches are written into a temporary folder beside their target and put in
place by :func:`atomic_dir`, so a failed build leaves nothing behind and an
existing folder is replaced only by a complete one.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from functools import partial
from pathlib import Path
from typing import BinaryIO

__all__ = ["atomic_dir", "atomic_write_bytes", "atomic_write_text", "atomic_writer", "replace_dir"]

#: the start of every temporary file's name (hidden: mirrors and folder scans pass over it)
TEMP_PREFIX = ".tmp-"


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
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fh = _create_temp(path.parent, mode)
    try:
        with fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(fh.name, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(fh.name)
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
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        yield tmp
        os.chmod(tmp, 0o755)
        replace_dir(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
