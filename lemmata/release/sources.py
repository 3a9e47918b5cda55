"""Fetch raw upstream files from a local mirror or their pinned URL, sha256-verified.

A file is never used before its hash matches the registry; downloads land in a
content-addressed cache so a second build needs no network.
"""

from __future__ import annotations

import shutil
import urllib.error
import urllib.request
from pathlib import Path

from lemmata.core.atomic import atomic_writer
from lemmata.core.errors import InputError, LemmataError, Problem
from lemmata.core.hashing import sha256_file
from lemmata.core.meta import BenchmarkMeta, SourceFile
from lemmata.core.paths import default_source_dir, lemmata_home, offline_advice

DOWNLOAD_TIMEOUT_S = 60


class SourceUnavailable(LemmataError):
    """Upstream files that cannot be had on this machine (no network, no pinned revision, no download).

    The message is one sentence: the ``reason`` (what could not be fetched, and why), then the advice of
    :func:`lemmata.core.paths.offline_advice`. Keeping the two apart lets a caller that collects several
    such failures (the space's start-up) list the reasons and give the advice once. Code that does not
    know the family (a Hub snapshot) leaves it out; the release builder fills it in (:meth:`for_family`).
    """

    def __init__(self, reason: str, *, family: str | None = None, folder: str | None = None,
                 hub: bool = False) -> None:
        self.reason, self.family, self.folder, self.hub = reason, family, folder, hub
        self.advice = offline_advice(family, folder, hub=hub)
        super().__init__(f"{reason}; {self.advice}")

    def for_family(self, family: str) -> "SourceUnavailable":
        """The same failure, its advice naming ``family`` when it did not yet."""
        if self.family is not None:
            return self
        return SourceUnavailable(self.reason, family=family, folder=self.folder, hub=self.hub)


def unavailable_summary(failures: list[tuple[str, BaseException]]) -> str:
    """``"<release>: <reason>; ...; <advice>"`` with the offline advice said once, not once per release.

    >>> a = SourceUnavailable("could not download a.jsonl", family="a")
    >>> b = SourceUnavailable("could not download b.jsonl", family="b", hub=True)
    >>> unavailable_summary([("x-1.0.0", a), ("y-1.0.0", b), ("z-1.0.0", OSError("disk full"))])
    'x-1.0.0: could not download a.jsonl; y-1.0.0: could not download b.jsonl; z-1.0.0: disk full; to build them from local files, run `lemmata build FAMILY --source-dir DIR` with DIR holding its upstream files, or set LEMMATA_MIRROR to a mirror holding them in one folder per benchmark family, or keep that mirror at ../shared/data beside the checkout'
    """
    parts = [f"{name}: {exc.reason if isinstance(exc, SourceUnavailable) else exc}" for name, exc in failures]
    if any(isinstance(exc, SourceUnavailable) for _, exc in failures):
        parts.append(offline_advice().replace("to build it ", "to build them ", 1))
    return "; ".join(parts)


def _cache_path(src: SourceFile) -> Path:
    return lemmata_home() / "cache" / "sources" / src.sha256 / src.name


def _download(src: SourceFile, dest: Path, family: str) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        with atomic_writer(dest, mode=0o600) as out:
            with urllib.request.urlopen(src.url, timeout=DOWNLOAD_TIMEOUT_S) as resp:
                shutil.copyfileobj(resp, out)
            out.flush()
            if sha256_file(out.name) != src.sha256:
                raise InputError.one(src.url, f"downloaded file does not match the pinned sha256 {src.sha256}")
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        why = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        raise SourceUnavailable(f"could not download {src.name} from {src.url} ({why})", family=family) from None


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
                _download(src, path, meta.family)
        actual = sha256_file(path)
        if actual != src.sha256:
            problems.append(Problem(str(path), f"sha256 mismatch: expected {src.sha256}, found {actual}"))
            continue
        found[src.name] = path
    if problems:
        raise InputError(problems)
    return found
