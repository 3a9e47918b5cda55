"""MathNet-Retrieve track handler: one tier per submission, scored by Recall@1/5/10 (Recall@5 headline).

Header::

    {"format": "lemmata-submission/1", "benchmark": "mathnet-retrieve", "release": "mathnet-retrieve-1.0.0",
     "track": "hard", "model": {"name": "..."}}

then one ``{"query_id", "ranking": [{"doc_id", "score"}, ...]}`` record per query.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from lemmata.benchmarks.mathnet.meta import MAIN_METRIC, MATHNET_RETRIEVE, RECALL_KS
from lemmata.catalog import collection, load_release
from lemmata.formats.results import FrozenTuple
from lemmata.tracks.ranking import HeaderBase, RankingTrack, received_date, scoring_artifact

MEASURES = tuple(f"recall@{k}" for k in RECALL_KS)


class Header(HeaderBase):
    format: Literal["lemmata-submission/1"]
    benchmark: Literal["mathnet-retrieve"]
    release: str = Field(pattern=r"^mathnet-retrieve-\d+\.\d+\.\d+$")
    track: Literal["easy", "medium", "hard"] = Field(description="the tier whose qrels score the run")


def tier_collection(release_id: str, tier: str):
    release = load_release(MATHNET_RETRIEVE, release_id)
    return collection(release, corpus="corpus", queries="queries", qrels=tier)


class MathNetHandler(RankingTrack):
    benchmark = MATHNET_RETRIEVE.name
    tracks = MATHNET_RETRIEVE.tracks
    header_model = Header
    measures = MEASURES
    main_metric = MAIN_METRIC
    schema = ("mathnet-retrieve-submission.schema.json",
              "MathNet-Retrieve submission, format lemmata-submission/1 (one JSONL line)",
              "MathNet-Retrieve submission files are UTF-8 JSONL: line 1 is the header (Header), every further "
              "line a record (RankingRecord). See submissions/mathnet/README.md.")

    def meta(self, header):
        return MATHNET_RETRIEVE

    def collection(self, header: Header):
        return tier_collection(header.release, header.track)

    def summary(self, header: Header, runs) -> str:
        return f"{len(runs)} rankings for tier {header.track}"

    def frozen(self, header: Header, received_at: str) -> FrozenTuple:
        return FrozenTuple(dataset_release=header.release, split=f"qrels/{header.track}", retrieval_artifact=None,
                           scoring_artifact=scoring_artifact(), date=received_date(received_at))

    def notes(self, header: Header, scored) -> list[str]:
        notes = [f"Recall@k over the {scored.judged:,} queries of tier {header.track}; ties ranked by doc id."]
        if scored.missing:
            notes.append(f"{len(scored.missing):,} judged queries had no ranking and score 0.")
        return notes
