"""Fetch raw upstream files from a local mirror or their pinned URL, sha256-verified.

A file is never used before its hash matches the registry; downloads land in a
content-addressed cache so a second build needs no network.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from lemmata.core.errors import InputError, LemmataError, Problem
from lemmata.core.hashing import sha256_file
from lemmata.core.meta import BenchmarkMeta, SourceFile
from lemmata.core.paths import default_source_dir, lemmata_home

DOWNLOAD_TIMEOUT_S = 60


def _cache_path(src: SourceFile) -> Path:
    return lemmata_home() / "cache" / "sources" / src.sha256 / src.name


def _download(src: SourceFile, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(src.url, timeout=DOWNLOAD_TIMEOUT_S) as resp:
            shutil.copyfileobj(resp, out)
        if sha256_file(tmp) != src.sha256:
            raise InputError.one(src.url, f"downloaded file does not match the pinned sha256 {src.sha256}")
        os.replace(tmp, dest)
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        raise LemmataError(
            f"could not download {src.name} from {src.url} ({exc}); pass --source-dir with a local mirror"
        ) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def resolve_sources(
    meta: BenchmarkMeta, names: list[str] | None = None, source_dir: str | Path | None = None
) -> dict[str, Path]:
    """Map each needed source name to a verified local path.

    With ``source_dir`` (or a mirror found by :func:`lemmata.core.paths.default_source_dir`)
    files are read from there; otherwise they are downloaded from their pinned URL.
    Every missing file and every hash mismatch is reported at once.
    """
    wanted = [meta.source(n) for n in names] if names else list(meta.sources)
    directory = Path(source_dir) if source_dir is not None else default_source_dir(meta.family)
    problems: list[Problem] = []
    found: dict[str, Path] = {}
    for src in wanted:
        if directory is not None:
            path = directory / src.name
            if not path.is_file():
                problems.append(Problem(str(path), f"missing source file (upstream {src.upstream_path} @ {src.commit[:12]})"))
                continue
        else:
            path = _cache_path(src)
            if not path.is_file():
                _download(src, path)
        actual = sha256_file(path)
        if actual != src.sha256:
            problems.append(Problem(str(path), f"sha256 mismatch: expected {src.sha256}, found {actual}"))
            continue
        found[src.name] = path
    if problems:
        raise InputError(problems)
    return found
