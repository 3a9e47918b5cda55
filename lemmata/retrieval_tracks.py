"""Retrieval tracks derived from releases: the run format, its validation and its scoring.

Two tracks rank a corpus that a release defines, rather than a BEIR release of its own:

- ``re2math-theorem-retrieval`` — Re²Math proof states against every reference
  statement (configs ``retrieval_*`` of the Re²Math release); tracks ``raw`` and
  ``assisted`` pick the query text;
- ``taobench-equivalence`` — a TaoBench statement against the other framework's
  statements of the same release (:mod:`lemmata.taobench.equivalence`); tracks
  ``tao2mathlib`` and ``mathlib2tao``.

A *run* is a submission in the shared envelope: a header line, then one record
per query, exactly the records of the BEIR benchmarks::

    {"format": "lemmata-submission/1", "benchmark": "taobench-equivalence", "release": "taobench-v1-1.0.0",
     "split": "pairs/test", "track": "tao2mathlib", "model": {"name": "BM25 (bm25s)"},
     "flags": {"tuned_on_track_data": false, "used_external_data": false}}
    {"query_id": "Chapter2.Nat.backwards_induction", "ranking": [{"doc_id": "mathlib-…", "score": 12.5}, …]}

Scores are Recall@1/5/10, nDCG@10 (headline) and MRR@100, computed by
:func:`lemmata.metrics.retrieval.evaluate_run` (ties: score descending, then doc
id ascending) with bootstrap-over-queries intervals; a query without a record
scores 0. The frozen tuple names the release, the query split, no retrieval
artifact (a system ranks the corpus itself) and the qrels with the scorer version.
"""

from __future__ import annotations

from abc import abstractmethod
from functools import lru_cache
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from lemmata.errors import InputError, Problem
from lemmata.hubtracks.retrieval import (
    HeaderBase, check_records, measure_summary, per_query_items, received_date, score_collection, scoring_artifact,
)
from lemmata.results import FrozenTuple, Result, Score, make_result
from lemmata.scoring.base import OracleConfig, TrackHandler, Validated
from lemmata.submissions.envelope import Envelope, validate_model

MEASURES: tuple[str, ...] = ("recall@1", "recall@5", "recall@10", "ndcg@10", "mrr@100")
MAIN_METRIC = "ndcg@10"
THEOREM_BENCHMARK = "re2math-theorem-retrieval"
EQUIVALENCE_BENCHMARK = "taobench-equivalence"


class RunFlags(BaseModel):
    """What the submitter declares about how the system was built (shown next to the score)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    tuned_on_track_data: bool = Field(description="weights or hyper-parameters were fitted on any queries or qrels of "
                                                  "this track (any split)")
    used_external_data: bool = Field(description="trained on, or retrieved from, data beyond the track's own corpus "
                                                 "(pretrained models off the shelf do not count)")


class RunHeader(HeaderBase):
    format: Literal["lemmata-submission/1"]
    split: str = Field(description="'<config>/<split>' of the queries the records answer")
    flags: RunFlags
    system: dict[str, Any] = Field(default_factory=dict, description="the system's configuration, kept in provenance")


class TheoremRunHeader(RunHeader):
    benchmark: Literal["re2math-theorem-retrieval"]
    release: str = Field(pattern=r"^re2math-\d+\.\d+\.\d+$")
    split: Literal["retrieval_queries/test", "retrieval_queries/dev"]
    track: Literal["raw", "assisted"] = Field(description="which rendering of the proof state is the query")


class EquivalenceRunHeader(RunHeader):
    benchmark: Literal["taobench-equivalence"]
    release: str = Field(pattern=r"^taobench-[a-z0-9]+-\d+\.\d+\.\d+$")
    split: Literal["pairs/test"]
    track: Literal["tao2mathlib", "mathlib2tao"] = Field(description="query formulation 2 corpus formulation")


RUN_BENCHMARKS: tuple[str, ...] = (THEOREM_BENCHMARK, EQUIVALENCE_BENCHMARK)


def run_schema(benchmark: str) -> dict[str, Any]:
    """JSON Schema of one line of a run file of a derived retrieval track (header or ranking record)."""
    from lemmata.hubtracks.schema import RankingRecord
    from lemmata.submissions.schema import line_schema

    header = {THEOREM_BENCHMARK: TheoremRunHeader, EQUIVALENCE_BENCHMARK: EquivalenceRunHeader}[benchmark]
    return line_schema(
        header, RankingRecord, filename=f"{benchmark}-run.schema.json",
        title=f"{benchmark} run, format lemmata-submission/1 (one JSONL line)",
        description=f"A {benchmark} run is a UTF-8 JSONL file: line 1 is the header ({header.__name__}), every "
                    "further line one query's ranking (RankingRecord). See submissions/baselines/README.md.",
    )


def _served(benchmark_name: str, release_id: str):
    """The registered release a header names, or None when that release is not served."""
    from lemmata.registry import UnknownNameError, get_benchmark

    try:
        meta = get_benchmark(benchmark_name)
    except UnknownNameError:
        return None
    return meta if meta.release_id == release_id else None


@lru_cache(maxsize=16)
def theorem_collection(release_id: str, split: str, variant: str):
    """The Re²Math theorem-retrieval collection of one query split and variant, from the built release."""
    from lemmata.beir import Collection, Doc
    from lemmata.benchmarks.re2math import RE2MATH
    from lemmata.hubtracks.releases import load_release, read_columns
    from lemmata.re2math.theorem_retrieval import CORPUS_CONFIG, QRELS_CONFIG, QUERIES_CONFIG

    release = load_release(RE2MATH, release_id)
    ids = read_columns(release, CORPUS_CONFIG, "corpus", ["_id"])["_id"]
    qs = read_columns(release, QUERIES_CONFIG, split, ["_id", f"text_{variant}"])
    qr = read_columns(release, QRELS_CONFIG, split, ["query-id", "corpus-id", "score"])
    qrels: dict[str, dict[str, int]] = {}
    for q, d, s in zip(qr["query-id"], qr["corpus-id"], qr["score"]):
        qrels.setdefault(q, {})[d] = int(s)
    return Collection(corpus={i: Doc(i, "") for i in ids}, queries=dict(zip(qs["_id"], qs[f"text_{variant}"])),
                      qrels=qrels)


@lru_cache(maxsize=16)
def equivalence_track(release_id: str, direction: str):
    """The TaoBench equivalence track of one release and direction, from the built release."""
    from lemmata.hubtracks.releases import load_release
    from lemmata.registry import get_benchmark
    from lemmata.taobench.equivalence import CONFIG, SPLIT, make_track

    meta = get_benchmark(release_id.rsplit("-", 1)[0])
    release = load_release(meta, release_id)
    return make_track(release.rows(CONFIG, SPLIT), direction, release_id)


class _RetrievalRunHandler(TrackHandler):
    """Validation and scoring shared by the derived retrieval tracks; subclasses name the collection."""

    header_model: ClassVar[type[RunHeader]]

    @abstractmethod
    def release_name(self, header: RunHeader) -> str:
        """Registry name of the benchmark whose release the header names."""

    @abstractmethod
    def collection(self, header: RunHeader):
        """The :class:`lemmata.beir.Collection` the run is checked and scored against."""

    @abstractmethod
    def qrels_id(self, header: RunHeader) -> str:
        """Which judgements score the run (part of the frozen tuple's scoring artifact)."""

    def validate(self, envelope: Envelope, sha256: str) -> Validated:
        problems: list[Problem] = []
        name = envelope.filename
        header = validate_model(self.header_model, envelope.header, name, envelope.header_line, problems,
                                prefix="header")
        if header is None:
            raise InputError(problems)
        if _served(self.release_name(header), header.release) is None:
            raise InputError.one(name, f"release {header.release!r} is not served for {self.benchmark}",
                                 envelope.header_line, "header.release")
        if not envelope.records:
            raise InputError.one(name, "no rankings after the header")
        coll = self.collection(header)
        runs = check_records(envelope.records, file=name, collection=coll, problems=problems)
        if problems:
            raise InputError(problems[:200])
        return Validated(benchmark=self.benchmark, track=header.track, model=header.model, header=header,
                         records=list(runs.values()), sha256=sha256, filename=name,
                         summary=f"{len(runs)} rankings for {header.split} ({header.track})")

    def score(self, submission: Validated, *, received_at: str, oracles: OracleConfig) -> Result:
        header: RunHeader = submission.header
        coll = self.collection(header)
        scored = score_collection(coll, {r.query_id: r for r in submission.records}, MEASURES)
        main = scored.evaluation.measures[MAIN_METRIC]
        notes = [f"{', '.join(MEASURES)} over the {scored.judged:,} queries of {header.split} ({header.track}); "
                 "ties ranked by doc id; intervals: percentile bootstrap over queries."]
        if scored.missing:
            notes.append(f"{len(scored.missing):,} queries had no ranking and score 0.")
        return make_result(
            kind="scored", benchmark=self.benchmark, track=header.track,
            frozen=FrozenTuple(dataset_release=header.release, split=header.split, retrieval_artifact=None,
                               scoring_artifact=f"qrels:{self.qrels_id(header)}; {scoring_artifact()}",
                               date=received_date(received_at)),
            submission_sha256=submission.sha256, model=header.model, flags=header.flags.model_dump(),
            main=Score(metric=MAIN_METRIC, value=main.mean, interval=main.ci95, interval_kind="query_bootstrap95",
                       total=scored.judged),
            metrics=measure_summary(scored), items=per_query_items(scored), notes=notes,
            provenance={"header_notes": header.notes, "filename": submission.filename, "system": header.system},
        )


class TheoremRetrievalHandler(_RetrievalRunHandler):
    """Re²Math theorem retrieval: rank the reference statements for a rendered proof state."""

    benchmark = THEOREM_BENCHMARK
    tracks = ("raw", "assisted")
    header_model = TheoremRunHeader

    def release_name(self, header: RunHeader) -> str:
        return "re2math"

    def collection(self, header: RunHeader):
        return theorem_collection(header.release, header.split.split("/", 1)[1], header.track)

    def qrels_id(self, header: RunHeader) -> str:
        from lemmata.re2math.theorem_retrieval import QRELS_CONFIG

        return f"{header.release}/{QRELS_CONFIG}/{header.split.split('/', 1)[1]}"


class EquivalenceRetrievalHandler(_RetrievalRunHandler):
    """TaoBench equivalence retrieval: find an exercise's twin in the other framework."""

    benchmark = EQUIVALENCE_BENCHMARK
    tracks = ("tao2mathlib", "mathlib2tao")
    header_model = EquivalenceRunHeader

    def release_name(self, header: RunHeader) -> str:
        return header.release.rsplit("-", 1)[0]

    def collection(self, header: RunHeader):
        return equivalence_track(header.release, header.track).collection()

    def qrels_id(self, header: RunHeader) -> str:
        from lemmata.taobench.equivalence import scoring_artifact_prefix

        return f"{header.release}/{header.split}/{header.track} via {scoring_artifact_prefix()}"
