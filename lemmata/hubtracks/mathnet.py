"""MathNet-Retrieve track handler: one tier per submission, scored by Recall@1/5/10 (Recall@5 headline).

Header::

    {"format": "lemmata-submission/1", "benchmark": "mathnet-retrieve", "release": "mathnet-retrieve-1.0.0",
     "track": "hard", "model": {"name": "..."}}

then one ``{"query_id", "ranking": [{"doc_id", "score"}, ...]}`` record per query.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from lemmata.benchmarks.mathnet import MAIN_METRIC, MATHNET_RETRIEVE, RECALL_KS
from lemmata.errors import InputError, Problem
from lemmata.hubtracks.releases import collection, load_release, served_header
from lemmata.hubtracks.retrieval import (
    HeaderBase, check_records, measure_summary, per_query_items, received_date, score_collection, scoring_artifact,
)
from lemmata.results import FrozenTuple, Result, Score, make_result
from lemmata.scoring.base import OracleConfig, TrackHandler, Validated
from lemmata.submissions.envelope import Envelope

MEASURES = tuple(f"recall@{k}" for k in RECALL_KS)


class Header(HeaderBase):
    format: Literal["lemmata-submission/1"]
    benchmark: Literal["mathnet-retrieve"]
    release: str = Field(pattern=r"^mathnet-retrieve-\d+\.\d+\.\d+$")
    track: Literal["easy", "medium", "hard"] = Field(description="the tier whose qrels score the run")


def tier_collection(release_id: str, tier: str):
    release = load_release(MATHNET_RETRIEVE, release_id)
    return collection(release, corpus="corpus", queries="queries", qrels=tier)


class MathNetHandler(TrackHandler):
    benchmark = MATHNET_RETRIEVE.name
    tracks = MATHNET_RETRIEVE.tracks

    def validate(self, envelope: Envelope, sha256: str) -> Validated:
        problems: list[Problem] = []
        name = envelope.filename
        header = served_header(envelope, Header, MATHNET_RETRIEVE)
        if not envelope.records:
            raise InputError.one(name, "no rankings after the header")
        coll = tier_collection(header.release, header.track)
        runs = check_records(envelope.records, file=name, collection=coll, problems=problems)
        if problems:
            raise InputError(problems[:200])
        return Validated(benchmark=self.benchmark, track=header.track, model=header.model, header=header,
                         records=list(runs.values()), sha256=sha256, filename=name,
                         summary=f"{len(runs)} rankings for tier {header.track}")

    def score(self, submission: Validated, *, received_at: str, oracles: OracleConfig) -> Result:
        header: Header = submission.header
        coll = tier_collection(header.release, header.track)
        scored = score_collection(coll, {r.query_id: r for r in submission.records}, MEASURES)
        main = scored.evaluation.measures[MAIN_METRIC]
        notes = [f"Recall@k over the {scored.judged:,} queries of tier {header.track}; ties ranked by doc id."]
        if scored.missing:
            notes.append(f"{len(scored.missing):,} judged queries had no ranking and score 0.")
        return make_result(
            kind="scored", benchmark=self.benchmark, track=header.track,
            frozen=FrozenTuple(dataset_release=header.release, split=f"qrels/{header.track}",
                               retrieval_artifact=None, scoring_artifact=scoring_artifact(),
                               date=received_date(received_at)),
            submission_sha256=submission.sha256, model=header.model,
            main=Score(metric=MAIN_METRIC, value=main.mean, interval=main.ci95, interval_kind="query_bootstrap95",
                       total=scored.judged),
            metrics=measure_summary(scored), items=per_query_items(scored), notes=notes,
            provenance={"header_notes": header.notes, "filename": submission.filename},
        )
