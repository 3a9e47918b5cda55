"""The release builder of a BEIR-style benchmark declared by its metadata: no code of its own.

The metadata's :class:`~lemmata.core.meta.BeirLayout` says where upstream keeps
``corpus``, ``queries`` and one qrels file per track; the release stores them as
the ``corpus``/``corpus``, ``queries``/``queries`` and ``qrels``/``<track>``
tables every ranking track reads, after :func:`~lemmata.formats.beir.check_collection`
has checked that every judged id exists. The card's body is written from the
same metadata. :class:`BeirHubBuilder` reads a pinned Hub snapshot,
:class:`BeirFilesBuilder` the metadata's pinned files (``sources``, named by their
path in the layout), so a benchmark moves between the two by its metadata alone.
"""

from __future__ import annotations

from abc import abstractmethod
from pathlib import Path
from typing import ClassVar

from lemmata.core.errors import LemmataError
from lemmata.core.meta import BeirLayout
from lemmata.formats.beir import (
    check_collection, corpus_features, qrels_features, queries_features, read_corpus, read_qrels, read_queries,
)
from lemmata.release.builder import ReleaseBuilder, SplitTable
from lemmata.release.hub_builder import HubReleaseBuilder

__all__ = ["BeirFilesBuilder", "BeirHubBuilder", "BeirTables"]


class BeirTables(ReleaseBuilder):
    """The tables, features and card of a declared BEIR release; subclasses say where its files are."""

    builder_version: ClassVar[str] = "1"

    @property
    def layout(self) -> BeirLayout:
        if self.meta.beir is None or self.meta.ranking is None:
            raise LemmataError(f"{self.meta.name} declares no BEIR layout and ranking track (meta.beir, meta.ranking)")
        return self.meta.beir

    @abstractmethod
    def file(self, sources: dict[str, Path], path: str) -> tuple[Path, str]:
        """The local file at ``path`` of the layout, and the label its problems name."""

    def features(self):
        return {"corpus": corpus_features(with_title=self.layout.with_title), "queries": queries_features(),
                "qrels": qrels_features()}

    def make_tables(self, sources: dict[str, Path]) -> list[SplitTable]:
        layout, spec = self.layout, self.meta.ranking
        assert spec is not None
        corpus_file, corpus_label = self.file(sources, layout.corpus)
        query_file, query_label = self.file(sources, layout.queries)
        corpus = read_corpus(corpus_file, label=corpus_label)
        queries = read_queries(query_file, label=query_label)
        tables: list[SplitTable] = []
        self.stats: dict[str, int] = {"documents": len(corpus), "queries": len(queries)}
        for track in self.meta.tracks:
            qrels_file, qrels_label = self.file(sources, layout.qrels.format(track=track))
            qrels = read_qrels(qrels_file, label=qrels_label)
            coll = check_collection(corpus, queries, qrels, qrels_label=qrels_label)
            self.stats[track] = len(coll.judged_queries)
            tables.append(SplitTable("qrels", track, [{"query-id": q, "corpus-id": d, "score": s}
                                                      for q in coll.queries for d, s in coll.qrels.get(q, {}).items()]))
        tables.append(SplitTable("queries", spec.queries, [{"_id": q, "text": t} for q, t in queries.items()]))
        tables.append(SplitTable("corpus", spec.corpus, [
            ({"_id": d.doc_id, "title": d.title, "text": d.text} if layout.with_title
             else {"_id": d.doc_id, "text": d.text}) for d in corpus.values()]))
        return tables

    def card_body(self, tables: list[SplitTable]) -> str:
        spec, layout, s = self.meta.ranking, self.layout, self.stats
        assert spec is not None
        title = "`_id`, `title`, `text`" if layout.with_title else "`_id`, `text`"
        judged = ", ".join(f"{t} {s[t]:,}" for t in self.meta.tracks)
        measures = ", ".join(f"`{m}`" for m in spec.measures)
        return f"""
## Layout

Upstream's BEIR files (`{layout.corpus}`, `{layout.queries}`, `{layout.qrels}` per track) are stored as:

| config | split | columns |
|---|---|---|
| `corpus` | `{spec.corpus}` | {title} — {s['documents']:,} documents |
| `queries` | `{spec.queries}` | `_id`, `text` — {s['queries']:,} queries |
| `qrels` | {', '.join(f'`{t}`' for t in self.meta.tracks)} | `query-id`, `corpus-id`, `score` (int) |

Judged queries per track: {judged}.

## Scoring

A run gives, for each query, up to 1,000 documents with scores. Documents are ranked by score (descending), ties broken by document id (ascending); a judged query without a ranking scores 0. Measures: {measures}; `{spec.main_metric}` is the headline.
"""


class BeirHubBuilder(BeirTables, HubReleaseBuilder):
    """A declared BEIR release read from the metadata's one pinned Hub snapshot."""

    def file(self, sources: dict[str, Path], path: str) -> tuple[Path, str]:
        (name,) = self.pins()
        root = self.checked_root(sources, name)
        local = root / path
        if not local.is_file():
            raise LemmataError(f"the snapshot of {name} has no {path} (the layout in {self.meta.name}'s metadata)")
        self.used.add(self.pins()[name], root, [local])
        return local, f"{name}/{path}"


class BeirFilesBuilder(BeirTables):
    """A declared BEIR release read from the metadata's pinned files (each ``SourceFile.name`` a layout path)."""

    def file(self, sources: dict[str, Path], path: str) -> tuple[Path, str]:
        if path not in sources:
            raise LemmataError(f"{self.meta.name} pins no source file {path!r} (the layout in its metadata)")
        return sources[path], path
