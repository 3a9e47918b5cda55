"""What the Re²Math scorer needs from a retrieval artifact, as typed protocols.

The scorer replays a submission's queries, looks records up, asks which record
is an instance's cited source and opens (materialises) selected sources. Any
artifact that answers these — the offline artifact of version 1.0.0 or a later
one — can be scored against; a backend that can only replay searches (a query
cache) cannot, and :func:`is_scholarly` tells the two apart by type instead of
by probing attributes. The protocols are deliberately small: every member is
something the scorer, the audit view or the baseline agent reads (the data members are only read, so a
frozen record or a read-only property satisfies them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, Sequence, runtime_checkable

from lemmata.benchmarks.re2math.scholar.querycache import DEFAULT_N, Candidate, SearchBackend, SearchResult


class ArtifactDescription(Protocol):
    """The artifact's own description (``ARTIFACT.json``): what it was built from and its version."""

    release_id: str
    version: str


class SourceRecord(Protocol):
    """One record as search shows it: the metadata the source-identity matcher compares."""

    id: str
    title: str
    text: str
    authors: Sequence[str]
    year: int | None
    doi: str | None
    arxiv_id: str | None
    citations: Sequence[str]

    def candidate(self, rank: int, score: float | None) -> Candidate:
        """The record as a ranked search hit (what an agent sees and the citing-paper check reads)."""
        ...


class CitedSource(Protocol):
    """The artifact's attribution of an instance: its cited-source record and its search cutoff."""

    record_id: str
    year_cutoff: int | None


class OpenedSource(Protocol):
    """A materialised source: its record and the frozen text the Ground judge is shown."""

    record: SourceRecord
    text: str


@runtime_checkable
class ScholarlyArtifact(SearchBackend, Protocol):
    """A retrieval artifact a Re²Math submission can be scored against.

    ``record`` and ``attribution`` raise :class:`~lemmata.core.errors.InputError`
    for an unknown id (the scorer reports it as a problem of the submission);
    ``materialise`` logs the opening (``log``: the artifact's own log when None).
    """

    artifact_id: str
    backend: str
    root: Path
    info: ArtifactDescription

    def search(self, query: str, year_cutoff: int | None, n: int = DEFAULT_N, *,
               instance_id: str | None = None) -> SearchResult: ...

    def record(self, record_id: str) -> SourceRecord: ...

    def attribution(self, instance_id: str) -> CitedSource: ...

    def materialise(self, record_id: str, *, instance_id: str | None = None, log: Any = None) -> OpenedSource: ...


def is_scholarly(backend: object) -> bool:
    """Whether ``backend`` is a full scholarly artifact (records, attributions, materialisation), not replay only.

    >>> from lemmata.benchmarks.re2math.scholar.querycache import CacheHeader, ReplayBackend
    >>> is_scholarly(ReplayBackend(CacheHeader(artifact_id="cache", backend="b", created_at="2026-01-01"), []))
    False
    """
    return isinstance(backend, ScholarlyArtifact)
