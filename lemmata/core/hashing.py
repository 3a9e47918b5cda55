"""Content addressing: one canonical byte form, one hash function."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from lemmata.core.atomic import atomic_write_text

_CHUNK = 1 << 20


def sha256_bytes(data: bytes) -> str:
    """Hex sha256 of ``data``.

    >>> sha256_bytes(b"")[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def canonical_json(obj: Any) -> bytes:
    """Stable JSON bytes (sorted keys, no spaces, UTF-8) so equal data hashes equal.

    >>> canonical_json({"b": 1, "a": [1, "é"]})
    b'{"a":[1,"\\xc3\\xa9"],"b":1}'
    """
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sha256_json(obj: Any) -> str:
    return sha256_bytes(canonical_json(obj))


def write_json(path: str | Path, obj: Any, *, mode: int = 0o666) -> None:
    """Pretty, stable JSON with a trailing newline (diff-friendly, byte-reproducible), written whole or not at all
    (:func:`~lemmata.core.atomic.atomic_write_text`; ``mode`` as it takes it).

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "a.json"
    >>> write_json(path, {"b": ["é"], "a": 1})
    >>> path.read_bytes()
    b'{\\n  "b": [\\n    "\\xc3\\xa9"\\n  ],\\n  "a": 1\\n}\\n'
    """
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=False, ensure_ascii=False) + "\n", mode=mode)
