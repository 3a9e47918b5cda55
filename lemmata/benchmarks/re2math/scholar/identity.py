"""Source identity over one retrieval artifact: is a record an instance's cited source, and its search cutoff.

Both the scorer (CiteRecall, the selected source) and anyone producing a
submission (the year cutoff a query must be replayed with) ask these of the
artifact, so they live beside it rather than in the scorer.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from lemmata.core.errors import InputError
from lemmata.benchmarks.re2math.scholar.protocol import ScholarlyArtifact


def year_cutoff(artifact: ScholarlyArtifact, row: Mapping[str, Any], rule: str | None = None) -> int | None:
    """The instance's search cutoff.

    ``rule=None`` (every frozen artifact, 1.0.0 and 2.0.0 alike): the
    artifact's attribution, else the citing paper's ``publication_year`` — the
    rule the artifact's searches were recorded with, so replays stay exact.
    A named rule of :data:`lemmata.benchmarks.re2math.cutoffs.RULES` (e.g.
    ``"versioned"``, measured to leave 2 rather than 13 Eval-200 cited sources
    unreachable) is computed from the row alone, for building a new artifact.
    """
    if rule is not None:
        from lemmata.benchmarks.re2math.cutoffs import rule_cutoff

        return rule_cutoff(row, rule)  # type: ignore[arg-type]
    try:
        return artifact.attribution(row["instance_id"]).year_cutoff
    except InputError:
        return row.get("publication_year")


class AttributedIdentity:
    """Source identity by the artifact's own attribution alone: a record is an instance's cited source exactly when
    the artifact attributes it to the instance (a 2.x world, where one work is one record, needs no more)."""

    def __init__(self, artifact: ScholarlyArtifact) -> None:
        self.artifact = artifact

    def cited_record(self, instance_id: str) -> str | None:
        try:
            return self.artifact.attribution(instance_id).record_id
        except InputError:
            return None

    def is_cited(self, record_id: str, row: Mapping[str, Any]) -> tuple[str, str | None] | None:
        """('record', None) when ``record_id`` is the instance's attributed cited source, else None."""
        return ("record", None) if record_id == self.cited_record(row["instance_id"]) else None


class SourceIdentity(AttributedIdentity):
    """The source-identity matcher over one artifact's records, each record's references built once.

    A record is tried through its metadata and every bibliography string it
    carries (as :func:`lemmata.benchmarks.re2math.scholar.matcher.match_candidate` does); the
    artifact's own attribution of an instance's cited source counts first.
    """

    def __init__(self, artifact: ScholarlyArtifact) -> None:
        super().__init__(artifact)
        self._refs: dict[str, list[Any]] = {}
        self._cited: dict[str, Any] = {}
        self._lock = threading.Lock()

    def refs(self, record_id: str) -> list[Any]:
        from lemmata.benchmarks.re2math.scholar.matcher import SourceRef

        with self._lock:
            if record_id not in self._refs:
                rec = self.artifact.record(record_id)
                self._refs[record_id] = [
                    SourceRef.from_fields(title=rec.title, authors=rec.authors, year=rec.year, doi=rec.doi,
                                          arxiv_id=rec.arxiv_id, text=rec.text),
                    *(SourceRef.from_citation(c) for c in rec.citations)]
            return self._refs[record_id]

    def cited_ref(self, row: Mapping[str, Any]):
        from lemmata.benchmarks.re2math.scholar.matcher import SourceRef

        with self._lock:
            if row["instance_id"] not in self._cited:
                self._cited[row["instance_id"]] = SourceRef.from_z(row["z"])
            return self._cited[row["instance_id"]]

    def is_cited(self, record_id: str, row: Mapping[str, Any]) -> tuple[str, str | None] | None:
        """How ``record_id`` is the instance's cited source: ('record', None), ('matcher', rule), or None."""
        from lemmata.benchmarks.re2math.scholar.matcher import match_sources

        if (attributed := super().is_cited(record_id, row)) is not None:
            return attributed
        cited = self.cited_ref(row)
        for ref in self.refs(record_id):
            m = match_sources(ref, cited)
            if m.matched:
                return ("matcher", m.rule)
        return None
