"""A 2.x world as the scorer's :class:`~lemmata.benchmarks.re2math.scholar.protocol.ScholarlyArtifact`.

The scorer, the audit view and the baseline agent read any artifact through
the small scholarly protocol (search, record, attribution, materialise). A
:class:`~lemmata.benchmarks.re2math.scholar.world.ScholarWorld` answers the
same questions under other names and with one difference in meaning that
matters for scoring: one work is one record, so a record *is* an instance's
cited source exactly when the world's attribution says so
(:meth:`ScholarWorld.is_cited_source`), and the citing paper is a record too
(:meth:`ScholarWorld.is_citing_paper`). :class:`WorldIdentity` gives the
scorer that identity: the attribution alone
(:class:`~lemmata.benchmarks.re2math.scholar.identity.AttributedIdentity`, which
:class:`~lemmata.benchmarks.re2math.scholar.identity.SourceIdentity` extends
with bibliography matching), so no bibliography matching runs against a world.

Opening a record (``materialise``) goes through :meth:`ScholarWorld.open` and
is logged; what it returns is bibliographic data and the abstract, never a
statement.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lemmata.benchmarks.re2math.scholar.identity import AttributedIdentity
from lemmata.benchmarks.re2math.scholar.querycache import DEFAULT_N, Candidate, SearchResult
from lemmata.benchmarks.re2math.scholar.world import ScholarWorld, WorldAttribution, WorldInfo


@dataclass(frozen=True)
class WorldRecord:
    """One world record as search shows it (the fields every record has, whatever its origin)."""

    id: str
    title: str
    text: str
    authors: Sequence[str]
    year: int | None
    doi: str | None = None
    arxiv_id: str | None = None
    citations: Sequence[str] = field(default_factory=tuple)

    def candidate(self, rank: int, score: float | None) -> Candidate:
        return Candidate(id=self.id, rank=rank, score=score, kind="scholar_result", title=self.title, text=self.text,
                         authors=list(self.authors), year=self.year)


@dataclass(frozen=True)
class OpenedWorldRecord:
    """An opened world record: its record and the text an agent (and a judge) reads."""

    record: WorldRecord
    text: str
    statements: tuple = ()  # a world serves no statements; kept so readers of 1.x openings need no special case


class WorldArtifact:
    """:class:`ScholarWorld` under the scholarly protocol the scorer reads."""

    def __init__(self, world: ScholarWorld) -> None:
        self.world = world
        self.artifact_id: str = world.artifact_id
        self.backend: str = world.backend
        self.root: Path = world.root
        self.info: WorldInfo = world.info

    def search(self, query: str, year_cutoff: int | None, n: int = DEFAULT_N, *,
               instance_id: str | None = None) -> SearchResult:
        return self.world.search_result(query, year_cutoff, n, instance_id=instance_id)

    def record(self, record_id: str) -> WorldRecord:
        """The record's shown fields (an unknown id raises InputError); reading them is not an opening."""
        from lemmata.benchmarks.re2math.scholar.artifact import MaterialisationLog
        from lemmata.benchmarks.re2math.scholar.world import snippet

        o = self.world.open(record_id, log=MaterialisationLog())  # a private log: the scorer's look-up is no opening
        return WorldRecord(id=o.id, title=o.title, text=snippet(o.authors, o.year), authors=tuple(o.authors),
                           year=o.year, doi=o.doi, arxiv_id=o.arxiv_id)

    def attribution(self, instance_id: str) -> WorldAttribution:
        return self.world.attribution(instance_id)

    def materialise(self, record_id: str, *, instance_id: str | None = None, log: Any = None) -> OpenedWorldRecord:
        o = self.world.open(record_id, instance_id=instance_id, log=log)
        record = WorldRecord(id=o.id, title=o.title, text=o.text, authors=tuple(o.authors), year=o.year, doi=o.doi,
                             arxiv_id=o.arxiv_id)
        return OpenedWorldRecord(record=record, text=o.text)

    def is_citing_paper(self, instance_id: str, record_id: str) -> bool:
        return self.world.is_citing_paper(instance_id, record_id)

    def opening_ready(self, record_id: str) -> Future | None:
        """None where opening ``record_id`` reads nothing more, else a future done once it reads nothing more
        (:meth:`ScholarWorld.opening_ready`)."""
        return self.world.opening_ready(record_id)

    def prefetch_search(self) -> None:
        """Load what a search reads now rather than in the first search (:meth:`ScholarWorld.prefetch_search`)."""
        self.world.prefetch_search()

    def prefetch_openings(self) -> None:
        """Read what openings show in the background, ahead of a run that opens records
        (:meth:`ScholarWorld.prefetch_openings`)."""
        self.world.prefetch_openings()


class WorldIdentity(AttributedIdentity):
    """Source identity over a world: record equality with the instance's attributed cited source."""
