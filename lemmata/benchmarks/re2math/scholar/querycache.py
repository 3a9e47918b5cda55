"""What every search backend returns, and the query-cache artifact they all record into.

A search returns a :class:`SearchResult`: the query, its settings (backend, n,
year cutoff), a timestamp and the ranked :class:`Candidate` list, stamped with
the id of the *retrieval artifact* it came from. Results from different
artifacts are never ranked together, which is why the id travels with every
candidate list.

A query cache is a JSONL file: line 1 is a :class:`CacheHeader` (its
``artifact_id`` and backend), every further line one :class:`SearchResult` of
that artifact. The offline artifact can record into one, the SerpAPI client
always does (into a *new* artifact id: a live engine's answers are a new
artifact), and :class:`ReplayBackend` answers recorded queries offline, so a
recorded cache frozen with :func:`freeze_query_cache` is itself a reproducible
retrieval artifact.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import Field, ValidationError, model_validator

from lemmata.core.errors import Error, InputError, Problem
from lemmata.core.hashing import sha256_file, sha256_json, write_json
from lemmata.core.jsonl import iter_jsonl
from lemmata.core.models import Frozen

QUERYCACHE_SCHEMA = "lemmata.querycache/1"
FROZEN_CACHE_SCHEMA = "lemmata.querycache-artifact/1"
QUERIES_FILE = "queries.jsonl"
ARTIFACT_FILE = "ARTIFACT.json"
#: the paper's candidate-list length (Top-20 metadata candidates)
DEFAULT_N = 20
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]*$")

CandidateKind = Literal["source", "citing_paper", "scholar_result"]

#: the freezer's identity as recorded in a frozen cache's MANIFEST; fixed, so that moving code never changes a
#: frozen cache's bytes
FREEZE_BUILDER_ID = "lemmata.retrieval.querycache.freeze_query_cache"


class Candidate(Frozen):
    """One ranked search hit with the metadata an agent sees and the scorer matches on."""

    id: str = Field(min_length=1, description="record id within its artifact: src-…, paper-…, gs-<result_id>")
    rank: int = Field(ge=1, description="1-based position in the candidate list")
    score: float | None = Field(default=None, description="backend score (None when the engine gives none)")
    kind: CandidateKind
    title: str
    text: str = Field(default="", description="bibliographic text or snippet shown to the agent")
    authors: list[str] = Field(default_factory=list)
    year: int | None = Field(default=None, description="publication year; None when unknown")
    doi: str | None = None
    arxiv_id: str | None = None
    link: str | None = None
    variants: list[str] = Field(default_factory=list,
                                description="other bibliography strings of the same source (offline artifact)")
    extra: dict[str, Any] = Field(default_factory=dict, description="backend-specific metadata, kept verbatim")


class QuerySettings(Frozen):
    backend: str = Field(min_length=1)
    n: int = Field(ge=1, le=10_000)
    year_cutoff: int | None = Field(description="no candidate dated after this year; None: no filter")


class SearchResult(Frozen):
    """One query against one retrieval artifact and its ranked candidates."""

    artifact_id: str = Field(min_length=1)
    query: str
    settings: QuerySettings
    timestamp: str = Field(description="UTC time of the search (ISO 8601)")
    candidates: list[Candidate]
    instance_id: str | None = Field(default=None, description="the benchmark instance the query was issued for")
    request: dict[str, Any] = Field(default_factory=dict, description="backend request metadata, never credentials")

    @model_validator(mode="after")
    def _consistent(self) -> "SearchResult":
        ranks = [c.rank for c in self.candidates]
        if ranks != list(range(1, len(ranks) + 1)):
            raise ValueError(f"candidate ranks must be 1..{len(ranks)} in order, got {ranks[:10]}")
        ids = [c.id for c in self.candidates]
        if len(set(ids)) != len(ids):
            raise ValueError("a candidate id occurs twice in one list")
        if len(ids) > self.settings.n:
            raise ValueError(f"{len(ids)} candidates exceed n={self.settings.n}")
        cutoff = self.settings.year_cutoff
        late = [c.id for c in self.candidates if cutoff is not None and c.year is not None and c.year > cutoff]
        if late:
            raise ValueError(f"candidates dated after the year cutoff {cutoff}: {late[:5]}")
        return self

    def ids(self) -> list[str]:
        return [c.id for c in self.candidates]

    def key(self) -> str:
        return query_key(self.query, self.settings.year_cutoff, self.settings.n)


class CacheHeader(Frozen):
    """First line of a query cache: which artifact its results belong to."""

    schema_version: Literal["lemmata.querycache/1"] = QUERYCACHE_SCHEMA
    artifact_id: str = Field(min_length=1)
    backend: str = Field(min_length=1)
    created_at: str
    description: str = ""
    settings: dict[str, Any] = Field(default_factory=dict, description="fixed backend settings, e.g. engine, hl")

    @model_validator(mode="after")
    def _id_shape(self) -> "CacheHeader":
        if not _ID.match(self.artifact_id):
            raise ValueError(f"artifact_id {self.artifact_id!r} must be letters, digits, '.', '_' or '-'")
        return self


@runtime_checkable
class SearchBackend(Protocol):
    """Anything that answers ``search`` with a :class:`SearchResult` of one artifact."""

    artifact_id: str
    backend: str

    def search(self, query: str, year_cutoff: int | None, n: int = DEFAULT_N, *,
               instance_id: str | None = None) -> SearchResult: ...


def now_utc() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def query_key(query: str, year_cutoff: int | None, n: int) -> str:
    """Replay key: the exact query text with its cutoff and list length.

    >>> query_key("ricci flow", 2019, 20) == query_key("ricci flow", 2019, 20) != query_key("ricci flow", 2020, 20)
    True
    """
    return sha256_json({"query": query, "year_cutoff": year_cutoff, "n": n})


def apply_year_cutoff(candidates: Iterable[Candidate], year_cutoff: int | None, n: int) -> list[Candidate]:
    """Drop candidates dated after ``year_cutoff`` (unknown years stay), keep ``n``, renumber ranks from 1."""
    kept = [c for c in candidates if year_cutoff is None or c.year is None or c.year <= year_cutoff][:n]
    return [c if c.rank == i else c.model_copy(update={"rank": i}) for i, c in enumerate(kept, start=1)]


# --------------------------------------------------------------------------- files


def _problems(label: str, line: int, exc: ValidationError) -> list[Problem]:
    return [Problem(label, e["msg"], line, ".".join(str(p) for p in e["loc"]) or None) for e in exc.errors()]


def read_query_cache(path: str | Path) -> tuple[CacheHeader, list[SearchResult]]:
    """Header and results of a query-cache file; every bad line is reported with its line and field."""
    path = Path(path)
    label = str(path)
    if not path.is_file():
        raise InputError.one(label, "query cache does not exist")
    header: CacheHeader | None = None
    results: list[SearchResult] = []
    problems: list[Problem] = []
    for line, obj in iter_jsonl(path, label=label):
        if header is None:
            try:
                header = CacheHeader.model_validate(obj)
            except ValidationError as exc:
                raise InputError([Problem(label, "line 1 must be the query-cache header", line)]
                                 + _problems(label, line, exc)) from None
            continue
        try:
            result = SearchResult.model_validate(obj)
        except ValidationError as exc:
            problems += _problems(label, line, exc)
            continue
        if result.artifact_id != header.artifact_id:
            problems.append(Problem(label, f"result of artifact {result.artifact_id!r} in the cache of "
                                           f"{header.artifact_id!r}: results of different artifacts never mix",
                                    line, "artifact_id"))
            continue
        results.append(result)
    if header is None:
        raise InputError.one(label, "empty query cache: line 1 must be the header")
    if problems:
        raise InputError(problems)
    return header, results


class QueryCacheWriter:
    """Append :class:`SearchResult` lines to a query cache, creating it with its header when new."""

    def __init__(self, path: str | Path, header: CacheHeader) -> None:
        self.path = Path(path)
        self.header = header
        if self.path.exists() and self.path.stat().st_size > 0:
            existing, _ = read_query_cache(self.path)
            if existing.artifact_id != header.artifact_id or existing.backend != header.backend:
                raise InputError.one(str(self.path), f"cache belongs to artifact {existing.artifact_id!r} "
                                                     f"({existing.backend}), not {header.artifact_id!r}",
                                     line=1, field="artifact_id")
            self.header = existing
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "w", encoding="utf-8") as fh:
                fh.write(_line(header.model_dump(mode="json")))

    def append(self, result: SearchResult) -> None:
        if result.artifact_id != self.header.artifact_id:
            raise ValueError(f"result of artifact {result.artifact_id!r} cannot go into the cache of "
                             f"{self.header.artifact_id!r}")
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(_line(result.model_dump(mode="json")))
            fh.flush()
            os.fsync(fh.fileno())


def _line(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


class NotRecordedError(Error, LookupError):
    """A replayed artifact was asked a query it never recorded: a frozen artifact cannot answer new queries."""


class ReplayBackend:
    """Answer recorded queries from a query cache (the first recording of a query wins)."""

    def __init__(self, header: CacheHeader, results: Iterable[SearchResult], *, source: str = "") -> None:
        self.header = header
        self.artifact_id = header.artifact_id
        self.backend = header.backend
        self.source = source
        self._by_key: dict[str, SearchResult] = {}
        for r in results:
            self._by_key.setdefault(r.key(), r)

    @classmethod
    def open(cls, path: str | Path) -> "ReplayBackend":
        """From a cache file, or from a frozen cache folder (its manifest verified first)."""
        path = Path(path)
        if path.is_dir():
            from lemmata.release.manifest import verify_manifest

            verify_manifest(path)
            path = path / QUERIES_FILE
        header, results = read_query_cache(path)
        return cls(header, results, source=str(path))

    def __len__(self) -> int:
        return len(self._by_key)

    def __contains__(self, key: tuple[str, int | None, int]) -> bool:
        return query_key(*key) in self._by_key

    def results(self) -> list[SearchResult]:
        return list(self._by_key.values())

    def search(self, query: str, year_cutoff: int | None, n: int = DEFAULT_N, *,
               instance_id: str | None = None) -> SearchResult:
        hit = self._by_key.get(query_key(query, year_cutoff, n))
        if hit is None:
            raise NotRecordedError(f"artifact {self.artifact_id!r} has no recording of {query!r} "
                                   f"(year cutoff {year_cutoff}, n={n})")
        return hit


class RecordingBackend:
    """Wrap a live backend: answer from the cache when recorded, else search and append the result.

    A query already recorded (same text, cutoff and n) is never sent again: it
    is answered from the cache, with the first recording's instance id.
    """

    def __init__(self, backend: SearchBackend, path: str | Path, *, description: str = "",
                 settings: dict[str, Any] | None = None) -> None:
        self.inner = backend
        self.artifact_id = backend.artifact_id
        self.backend = backend.backend
        header = CacheHeader(artifact_id=backend.artifact_id, backend=backend.backend, created_at=now_utc(),
                             description=description, settings=settings or {})
        self.writer = QueryCacheWriter(path, header)
        _, recorded = read_query_cache(self.writer.path)
        self.replay = ReplayBackend(self.writer.header, recorded)

    def search(self, query: str, year_cutoff: int | None, n: int = DEFAULT_N, *,
               instance_id: str | None = None) -> SearchResult:
        try:
            return self.replay.search(query, year_cutoff, n)
        except NotRecordedError:
            pass
        result = self.inner.search(query, year_cutoff, n, instance_id=instance_id)
        self.writer.append(result)
        self.replay._by_key.setdefault(result.key(), result)
        return result


class FrozenCacheInfo(Frozen):
    """ARTIFACT.json of a frozen query cache."""

    schema_version: Literal["lemmata.querycache-artifact/1"] = FROZEN_CACHE_SCHEMA
    artifact_id: str
    backend: str
    queries: int
    cache_sha256: str
    header: CacheHeader


def freeze_query_cache(path: str | Path, out_root: str | Path) -> Path:
    """Freeze a recorded cache into ``<out_root>/<artifact_id>/`` (queries, ARTIFACT.json, MANIFEST.json).

    The folder is written beside its target and renamed into place; loading it
    with :meth:`ReplayBackend.open` verifies every byte against the manifest.
    """
    from lemmata.core.atomic import atomic_dir
    from lemmata.release.manifest import write_manifest

    header, results = read_query_cache(path)
    out_root = Path(out_root)
    target = out_root / header.artifact_id
    if target.exists() and not (target / QUERIES_FILE).is_file():
        raise InputError.one(str(target), f"{target} holds a retrieval artifact that is not a query cache; a cache "
                                          f"recorded from it needs no freezing (the artifact is frozen already)")
    out_root.mkdir(parents=True, exist_ok=True)
    with atomic_dir(target) as tmp:
        shutil.copyfile(path, tmp / QUERIES_FILE)
        info = FrozenCacheInfo(artifact_id=header.artifact_id, backend=header.backend, queries=len(results),
                               cache_sha256=sha256_file(tmp / QUERIES_FILE), header=header)
        write_json(tmp / ARTIFACT_FILE, info.model_dump(mode="json"))
        write_manifest(tmp, release_id=header.artifact_id, name=header.artifact_id, version="frozen",
                       builder=FREEZE_BUILDER_ID, builder_version="1")
    return target


def require_same_artifact(results: Iterable[SearchResult]) -> str:
    """The single artifact id of ``results``; mixing artifacts is an error, never a merged ranking."""
    ids = sorted({r.artifact_id for r in results})
    if len(ids) != 1:
        raise ValueError(f"results come from {len(ids)} retrieval artifacts {ids}; rank them separately")
    return ids[0]
