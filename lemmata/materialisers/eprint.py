"""An arXiv e-print's bytes → its files, in memory and bounded.

arXiv's ``/e-print/<id>vN`` answers with a gzipped tarball (a multi-file
submission), a single gzipped TeX file, or the PDF when the authors submitted
no source; the headers do not say which reliably, so the kind is read from the
magic bytes (gzip ``1f 8b``, PDF ``%PDF-``, ustar at offset 257) after
decompression. Nothing is written to disk.

Bounds (tar and gzip bombs, hostile archives): the decompressed size, the
number of members, each member's size; a member with an absolute path, a
``..`` component, a link (symbolic or hard), a device, a FIFO or sparse data is
refused and named in the record, never followed.
"""

from __future__ import annotations

import io
import posixpath
import tarfile
import zlib
from dataclasses import dataclass, field
from typing import Literal

from lemmata.core.errors import Error

Kind = Literal["tar.gz", "tar", "gzip-tex", "tex", "pdf", "unknown"]


class EprintError(Error, ValueError):
    """The e-print is unusable as it stands (too large, truncated, not an archive we accept): one sentence."""


@dataclass(frozen=True)
class ArchiveLimits:
    max_unpacked_bytes: int = 200 * 1024 * 1024
    max_members: int = 5_000
    max_member_bytes: int = 64 * 1024 * 1024


@dataclass
class Unpacked:
    """What an e-print holds: its kind, its files (path → bytes) or PDF bytes, refused members."""

    kind: Kind
    files: dict[str, bytes] = field(default_factory=dict)
    pdf: bytes | None = None
    refused: list[str] = field(default_factory=list)


def gunzip(data: bytes, limit: int) -> bytes:
    """Decompress gzip data (concatenated members too) without ever holding more than ``limit`` bytes.

    >>> import gzip
    >>> gunzip(gzip.compress(b"abc") + gzip.compress(b"def"), 10)
    b'abcdef'
    >>> gunzip(gzip.compress(b"x" * 100), 10)
    Traceback (most recent call last):
    ...
    lemmata.materialisers.eprint.EprintError: the e-print decompresses to more than 10 bytes (a gzip bomb?)
    """
    out = bytearray()
    rest = data
    while rest:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        buf = rest
        while True:
            try:
                chunk = d.decompress(buf, limit - len(out) + 1)
            except zlib.error as exc:
                raise EprintError(f"the e-print is not valid gzip data ({exc})") from None
            out += chunk
            if len(out) > limit:
                raise EprintError(f"the e-print decompresses to more than {limit} bytes (a gzip bomb?)")
            buf = d.unconsumed_tail
            if d.eof or (not buf and not chunk):
                break
        if not d.eof:
            raise EprintError("the e-print's gzip stream is truncated")
        rest = d.unused_data
        if not rest.strip(b"\0"):
            break
    return bytes(out)


def is_tar(data: bytes) -> bool:
    """A POSIX/GNU tar stream (``ustar`` magic at offset 257).

    >>> is_tar(b"\\0" * 257 + b"ustar\\x0000"), is_tar(b"%PDF-1.4")
    (True, False)
    """
    return len(data) >= 263 and data[257:262] == b"ustar"


def safe_member_path(name: str) -> str | None:
    """The normalised relative path of a tar member, or None when it is absolute or leaves the archive.

    >>> safe_member_path("./sec/intro.tex"), safe_member_path("/etc/passwd"), safe_member_path("a/../../x")
    ('sec/intro.tex', None, None)
    """
    if not name or name.startswith("/") or "\\" in name or "\0" in name:
        return None
    path = posixpath.normpath(name)
    if path in (".", "..") or path.startswith("../") or path.startswith("/"):
        return None
    return path


def read_tar(data: bytes, limits: ArchiveLimits) -> tuple[dict[str, bytes], list[str]]:
    """Regular files of a tar stream held in memory, and the members refused (with why)."""
    files: dict[str, bytes] = {}
    refused: list[str] = []
    total = 0
    try:
        tf = tarfile.open(fileobj=io.BytesIO(data), mode="r:")
    except tarfile.TarError as exc:
        raise EprintError(f"the e-print is not a readable tar archive ({exc})") from None
    with tf:
        count = 0
        while True:
            try:
                member = tf.next()
            except tarfile.TarError as exc:
                raise EprintError(f"the e-print's tar archive is damaged ({exc})") from None
            if member is None:
                break
            count += 1
            if count > limits.max_members:
                raise EprintError(f"the e-print holds more than {limits.max_members} members (a tar bomb?)")
            if member.isdir():
                continue
            path = safe_member_path(member.name)
            if path is None:
                refused.append(f"{member.name}: path outside the archive, refused")
                continue
            if not member.isreg():
                kind = "link" if (member.issym() or member.islnk()) else "special file"
                refused.append(f"{path}: {kind}, refused")
                continue
            if member.issparse():
                refused.append(f"{path}: sparse file, refused")
                continue
            if member.size > limits.max_member_bytes:
                raise EprintError(f"member {path} is {member.size} bytes, more than {limits.max_member_bytes}")
            total += member.size
            if total > limits.max_unpacked_bytes:
                raise EprintError(f"the e-print's members exceed {limits.max_unpacked_bytes} bytes (a tar bomb?)")
            fh = tf.extractfile(member)
            content = fh.read(member.size + 1) if fh is not None else b""
            if len(content) != member.size:
                raise EprintError(f"member {path} is truncated")
            if path in files:
                refused.append(f"{path}: duplicate member, the first kept")
                continue
            files[path] = content
    return files, refused


def unpack(data: bytes, limits: ArchiveLimits, *, name: str = "main.tex") -> Unpacked:
    """Read an e-print: gzip → tar / single TeX file / PDF; raw tar; raw PDF; raw TeX. ``name``: a lone file's name."""
    if data[:5] == b"%PDF-":
        return Unpacked(kind="pdf", pdf=data)
    if data[:2] == b"\x1f\x8b":
        inner = gunzip(data, limits.max_unpacked_bytes)
        if is_tar(inner):
            files, refused = read_tar(inner, limits)
            return Unpacked(kind="tar.gz", files=files, refused=refused)
        if inner[:5] == b"%PDF-":
            return Unpacked(kind="pdf", pdf=inner)
        if len(inner) > limits.max_member_bytes:
            raise EprintError(f"the single source file is more than {limits.max_member_bytes} bytes")
        return Unpacked(kind="gzip-tex", files={name: inner})
    if is_tar(data):
        files, refused = read_tar(data, limits)
        return Unpacked(kind="tar", files=files, refused=refused)
    if b"\\document" in data[:65536] or b"\\begin" in data[:65536]:
        return Unpacked(kind="tex", files={name: data})
    return Unpacked(kind="unknown")
