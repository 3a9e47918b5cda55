"""The Re²Math source-retrieval track: rank the offline world's records for a rendered proof state.

A run is a submission in the shared envelope — a header line, then one ranking
per query, the records of every BEIR-style track::

    {"format": "lemmata-submission/1", "benchmark": "re2math-source-retrieval", "release": "re2math-1.0.0",
     "corpus": "re2math-scholar-offline-2.2.0", "split": "eval200/test", "track": "raw-masked",
     "model": {"name": "BM25 (bm25s)"}, "flags": {"tuned_on_track_data": false, "used_external_data": false}}
    {"query_id": "1903.08525_gap_0", "ranking": [{"doc_id": "r0123456", "score": 12.5}, …]}

The header names the world (``corpus``) because record ids belong to one
world: the same id is another work in another world version. New runs rank the
current world (2.2.0: one work, one record, so a record of the cited work is
the cited work in the qrels); runs on 2.1.0 and 2.0.0 still validate and score
against their own world's qrels, in their own group (the world id is the frozen
tuple's retrieval artifact), byte for byte as before: a 2.0.0 result stores
``superseded_by`` 2.1.0 in its flags, a 2.1.0 result stores nothing, and the
board reads either's badge from the registry. Scores are
Recall@1/5/10, nDCG@10 (headline) and MRR@100 with bootstrap-over-queries
intervals; a query without a record scores 0. The frozen tuple names the
release, the query split, the world as retrieval artifact and the qrels with
the scorer version. No year cutoff applies (see
:mod:`lemmata.benchmarks.re2math.source.retrieval`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

from pydantic import Field

from lemmata.benchmarks.re2math.meta import RE2MATH
from lemmata.benchmarks.re2math.scholar.worlds import WORLDS
from lemmata.benchmarks.re2math.source.retrieval import (
    MASKED_VARIANTS, SOURCE_BENCHMARK, SOURCE_VARIANTS, default_source_track, query_split,
)
from lemmata.formats.beir import Collection, Doc
from lemmata.formats.results import FrozenTuple
from lemmata.tracks.ranking import (
    RUN_MAIN_METRIC, RUN_MEASURES, RankingTrack, RunHeader, received_date, run_notes, scoring_artifact,
)

#: the worlds a run may rank, oldest first (record ids belong to one world); new runs rank the current one
RUN_WORLDS = tuple(v.artifact_id for v in WORLDS.of_kind("world"))


class SourceRunHeader(RunHeader):
    benchmark: Literal["re2math-source-retrieval"]
    release: str = Field(pattern=r"^re2math-\d+\.\d+\.\d+$")
    corpus: Literal[RUN_WORLDS] = Field(  # type: ignore[valid-type]
        description=f"the offline world whose record ids the rankings use ({WORLDS.current}, the current world, for "
                    "new runs)",
        examples=[WORLDS.current_id])  # what a header template offers: the current world, never a superseded one
    split: Literal["eval200/test", "pool/dev"]
    track: Literal["raw-masked", "assisted-masked", "raw", "assisted"] = Field(
        description="which rendering of the proof state is the query: raw-masked or assisted-masked for new runs "
                    "(the instance's own cite key reads \\cite{?}), raw or assisted with the key as stored; each "
                    "ranked in its own group")


@lru_cache(maxsize=8)
def source_collection(release_id: str, corpus: str, split: str, variant: str) -> Collection:
    """The source-retrieval collection of one world, query split and variant (world and release built when
    missing)."""
    track = default_source_track(release_id, world_id=corpus)
    name = query_split(split)
    return Collection(corpus={i: Doc(i, "") for i in track.doc_ids}, queries=track.query_texts(name, variant),
                      qrels=track.qrels_of(name))


@lru_cache(maxsize=2)
def record_positions(release_id: str, corpus: str) -> dict[str, int]:
    return {d: i for i, d in enumerate(default_source_track(release_id, world_id=corpus).doc_ids)}


class SourceRetrievalHandler(RankingTrack):
    """Re²Math source retrieval: rank the world's records so that the cited source comes first."""

    benchmark = SOURCE_BENCHMARK
    tracks = SOURCE_VARIANTS
    header_model = SourceRunHeader
    selecting = ("release", "split", "track", "corpus")  # the world selects the collection too
    measures = RUN_MEASURES
    main_metric = RUN_MAIN_METRIC
    schema = (f"{SOURCE_BENCHMARK}-run.schema.json",
              f"{SOURCE_BENCHMARK} run, format lemmata-submission/1 (one JSONL line)",
              f"A {SOURCE_BENCHMARK} run is a UTF-8 JSONL file: line 1 is the header (SourceRunHeader), every "
              "further line one query's ranking (RankingRecord) over the records of the world named in corpus "
              f"({WORLDS.current_id} for new runs). "
              "See submissions/baselines/README.md.")

    def meta(self, header: SourceRunHeader):
        return RE2MATH

    def collection(self, header: SourceRunHeader) -> Collection:
        return source_collection(header.release, header.corpus, header.split, header.track)

    def document_texts(self, header: SourceRunHeader, doc_ids: list[str], collection: Any = None) -> dict[str, str]:
        """The listed records' title and author line, from the world (the scorer's collection holds ids only)."""
        track = default_source_track(header.release, world_id=header.corpus)
        position = record_positions(header.release, header.corpus)
        return {d: f"{track.titles[position[d]]} — {track.authors[position[d]]}".strip(" —")
                for d in doc_ids if d in position}

    def summary(self, header: SourceRunHeader, runs) -> str:
        return f"{len(runs)} rankings of {header.corpus} records for {header.split} ({header.track})"

    def frozen(self, header: SourceRunHeader, received_at: str) -> FrozenTuple:
        qrels = f"{header.corpus}/attributions/{header.split}"
        return FrozenTuple(dataset_release=header.release, split=header.split, retrieval_artifact=header.corpus,
                           scoring_artifact=f"qrels:{qrels}; {scoring_artifact()}", date=received_date(received_at))

    def notes(self, header: SourceRunHeader, scored) -> list[str]:
        return run_notes(header, scored, self.measures) + [
            f"Corpus: every record of {header.corpus}; no year cutoff applies in this track."]

    def flags(self, header: SourceRunHeader) -> dict:
        """The header's flags, the world that superseded the run's where its results store it (1.x, 2.0.0: the
        board reads any later supersession from the registry), and the masked cite key of a masked variant (its
        badge; the variant, the result's track, already splits the group)."""
        successor = WORLDS.stamped_successor(header.corpus)
        return {**header.flags.model_dump(), **({"superseded_by": successor} if successor else {}),
                **({"cite_keys": "masked"} if header.track in MASKED_VARIANTS else {})}

    def provenance(self, header: SourceRunHeader, submission) -> dict:
        return {"header_notes": header.notes, "filename": submission.filename, "system": header.system}
