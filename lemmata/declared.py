"""A BEIR-style benchmark declared by its metadata: the ranking track and the builder derived from it.

MTEB's retrieval tasks are metadata; so are Lemmata's BEIR-style releases. A
:class:`~lemmata.core.meta.BenchmarkMeta` with a ``ranking`` spec (and a
``beir`` layout for its builder) is everything a family needs:
:class:`DeclaredRankingTrack` derives the header model, the exported schema,
the summary, the notes, the frozen tuple and the collection;
:func:`declared_builder` and :func:`declared_track` bind the generic classes to
one release. A family whose ``Family.declared`` is set gets both for every such
release from the registry (:mod:`lemmata.families`), so adding one BEIR-style
benchmark is its metadata module and its fixture. A family whose releases need
more (MathNet-Retrieve's shared tiers, MIRB's fifteen collections) subclasses
these and keeps only what differs.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, ClassVar

from lemmata.catalog import collection, load_release
from lemmata.core.meta import BenchmarkMeta
from lemmata.formats.beir import Collection, RunRecord
from lemmata.formats.results import FrozenTuple
from lemmata.release.beir_builder import BeirFilesBuilder, BeirHubBuilder
from lemmata.release.builder import ReleaseBuilder
from lemmata.tracks.ranking import RankingTrack, Scored, ranking_header, received_date, scoring_artifact

__all__ = ["DeclaredRankingTrack", "declared_builder", "declared_track"]


class DeclaredRankingTrack(RankingTrack):
    """A ranking track whose every part comes from ``release_meta`` (its ``ranking`` spec).

    A subclass sets ``release_meta``; a ``header_model`` it sets itself is kept.
    """

    release_meta: ClassVar[BenchmarkMeta]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        meta = cls.__dict__.get("release_meta")
        if meta is None:
            return
        spec = meta.ranking
        if spec is None:
            raise TypeError(f"{cls.__name__}: {meta.name}'s metadata declares no ranking track (meta.ranking)")
        cls.benchmark = meta.name
        cls.tracks = meta.tracks
        if "header_model" not in cls.__dict__:
            cls.header_model = ranking_header(meta)
        if "measures" not in cls.__dict__:
            cls.measures = spec.measures
        if "main_metric" not in cls.__dict__:
            cls.main_metric = spec.main_metric
        if "schema" not in cls.__dict__:
            cls.schema = (spec.schema_file, spec.schema_title, spec.schema_description)

    def meta(self, header: Any) -> BenchmarkMeta:
        return self.release_meta

    def collection(self, header: Any) -> Collection:
        """The ``corpus`` and ``queries`` splits the spec names, judged by the ``qrels`` split of the track."""
        spec = self.release_meta.ranking
        assert spec is not None
        release = load_release(self.release_meta, header.release)
        return collection(release, corpus=spec.corpus, queries=spec.queries, qrels=header.track)

    def summary(self, header: Any, runs: dict[str, RunRecord]) -> str:
        spec = self.release_meta.ranking
        assert spec is not None
        return spec.summary.format(rankings=len(runs), track=header.track)

    def frozen(self, header: Any, received_at: str) -> FrozenTuple:
        return FrozenTuple(dataset_release=header.release, split=f"qrels/{header.track}", retrieval_artifact=None,
                           scoring_artifact=scoring_artifact(), date=received_date(received_at))

    def notes(self, header: Any, scored: Scored) -> list[str]:
        spec = self.release_meta.ranking
        assert spec is not None
        notes = [n.format(measures=", ".join(self.measures), judged=scored.judged, track=header.track)
                 for n in spec.notes]
        if scored.missing:
            notes.append(spec.missing_note.format(missing=len(scored.missing)))
        return notes


def _class_name(meta: BenchmarkMeta, suffix: str) -> str:
    """
    >>> _class_name(BenchmarkMeta.model_construct(name="toy-ir-2"), "Track")
    'ToyIr2Track'
    """
    return "".join(part.capitalize() for part in re.split(r"[^a-z0-9]+", meta.name) if part) + suffix


@cache
def declared_track(meta: BenchmarkMeta) -> type[DeclaredRankingTrack]:
    """The ranking track of a release declared by its metadata (one class per release)."""
    return type(_class_name(meta, "Track"), (DeclaredRankingTrack,), {"release_meta": meta, "__module__": __name__})


@cache
def declared_builder(meta: BenchmarkMeta) -> type[ReleaseBuilder]:
    """The builder of a release declared by its metadata: from its Hub pin when it has one, else its pinned files."""
    base = BeirHubBuilder if meta.hub else BeirFilesBuilder
    return type(_class_name(meta, "Builder"), (base,),
                {"meta": meta, "builder_id": f"lemmata.builders.declared.{meta.name}", "__module__": __name__})
