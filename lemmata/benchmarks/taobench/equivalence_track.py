"""The TaoBench cross-framework equivalence track: find an exercise's twin in the other framework.

A run is a submission in the shared envelope, exactly as every BEIR-style track::

    {"format": "lemmata-submission/1", "benchmark": "taobench-equivalence", "release": "taobench-v1-1.0.0",
     "split": "pairs/test", "track": "tao2mathlib", "model": {"name": "BM25 (bm25s)"},
     "flags": {"tuned_on_track_data": false, "used_external_data": false}}
    {"query_id": "Chapter2.Nat.backwards_induction", "ranking": [{"doc_id": "mathlib-…", "score": 12.5}, …]}

Scores are Recall@1/5/10, nDCG@10 (headline) and MRR@100 with bootstrap-over-queries
intervals (see :mod:`lemmata.benchmarks.taobench.equivalence` for the track itself).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import Field

from lemmata.benchmarks.taobench.equivalence import (
    CONFIG, EQUIVALENCE_BENCHMARK, SPLIT, make_track, scoring_artifact_prefix,
)
from lemmata.benchmarks.taobench.meta import RELEASES
from lemmata.catalog import load_release
from lemmata.core.errors import InputError
from lemmata.tracks.ranking import RunHeader, RunTrack


class EquivalenceRunHeader(RunHeader):
    benchmark: Literal["taobench-equivalence"]
    release: str = Field(pattern=r"^taobench-[a-z0-9]+-\d+\.\d+\.\d+$")
    split: Literal["pairs/test"]
    track: Literal["tao2mathlib", "mathlib2tao"] = Field(description="query formulation 2 corpus formulation")


def _meta(release_id: str):
    for meta in RELEASES:
        if meta.release_id == release_id:
            return meta
    raise InputError.one("header", f"release {release_id!r} is not served for {EQUIVALENCE_BENCHMARK}",
                         field="header.release")


@lru_cache(maxsize=16)
def equivalence_track(release_id: str, direction: str):
    """The TaoBench equivalence track of one release and direction, from the built release."""
    release = load_release(_meta(release_id), release_id)
    return make_track(release.rows(CONFIG, SPLIT), direction, release_id)


class EquivalenceRetrievalHandler(RunTrack):
    """TaoBench equivalence retrieval: find an exercise's twin in the other framework."""

    benchmark = EQUIVALENCE_BENCHMARK
    header_model = EquivalenceRunHeader

    def meta(self, header: EquivalenceRunHeader):
        return _meta(header.release)

    def collection(self, header: EquivalenceRunHeader):
        return equivalence_track(header.release, header.track).collection()

    def qrels_id(self, header) -> str:
        return f"{header.release}/{header.split}/{header.track} via {scoring_artifact_prefix()}"
