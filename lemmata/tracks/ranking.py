"""Every BEIR-style track: the ranking record, its checks, scoring, and the one :class:`RankingTrack`.

A submission is the shared envelope (header line, then records). Each record is
one query's ranking::

    {"query_id": "q1", "ranking": [{"doc_id": "d7", "score": 12.5}, ...]}

Every id is checked against the collection and every score must be a finite
number; problems name line and field (``ranking[3].score``). Scoring goes through
:func:`lemmata.metrics.retrieval.evaluate_run` (pytrec_eval; ties by score
descending, then doc id ascending) over the judged queries of the split; a judged
query without a record scores 0.

A benchmark family adds a ranking track by subclassing :class:`RankingTrack`
with its header model and the collection a header names (MathNet-Retrieve,
Re²Math theorem retrieval, TaoBench equivalence); MIRB, whose submission spans
fifteen collections, reuses the same checks and scoring per task.
"""

from __future__ import annotations

from abc import abstractmethod

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, create_model, model_serializer

from lemmata.core.errors import InputError, Problem
from lemmata.core.meta import BenchmarkMeta
from lemmata.core.models import Exact, Frozen
from lemmata.formats.beir import MAX_RANKING_DEPTH, Collection, RunRecord, validate_runs
from lemmata.formats.envelope import Envelope, validate_model
from lemmata.formats.results import FrozenTuple, ModelInfo, Result, Score, make_result
from lemmata.formats.schema import SchemaFile, dumps, line_schema
from lemmata.metrics.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED
from lemmata.metrics.retrieval import RetrievalEvaluation, evaluate_run
from lemmata.tracks.base import AuditView, OracleConfig, TrackHandler, Validated
from lemmata.tracks.headers import SELECTING, check_header, records_skipped

SCORER_VERSION = "1"


class HeaderBase(Frozen):
    """Fields every retrieval submission header carries (benchmarks narrow ``benchmark``, ``release``, ``track``)."""

    format: str = Field(description="envelope format; always 'lemmata-submission/1'")
    benchmark: str
    release: str
    track: str
    model: ModelInfo
    notes: str = Field(default="", max_length=4000, description="free text shown with the entry")


def ranking_header(meta: BenchmarkMeta) -> type[HeaderBase]:
    r"""The header model of a declared ranking track: ``benchmark``, ``release`` and ``track`` pinned by ``meta``.

    >>> meta = BenchmarkMeta.model_construct(name="toy-ir", tracks=("dev", "test"), ranking=None)
    >>> model = ranking_header(meta)
    >>> props = model.model_json_schema()["properties"]
    >>> props["track"]["enum"], props["release"]["pattern"], model.__name__
    (['dev', 'test'], '^toy-ir-\\d+\\.\\d+\\.\\d+$', 'Header')
    """
    spec = meta.ranking
    track_field = Field(description=spec.track_description) if spec is not None and spec.track_description else ...
    model = create_model(
        "Header", __base__=HeaderBase, __module__=HeaderBase.__module__,
        format=(Literal["lemmata-submission/1"], ...),
        benchmark=(Literal[meta.name], ...),  # type: ignore[valid-type]
        release=(str, Field(pattern=rf"^{meta.name}-\d+\.\d+\.\d+$")),
        track=(Literal[meta.tracks], track_field),  # type: ignore[valid-type]
    )
    return model


def scoring_artifact() -> str:
    """Id of the scorer: this module's version and the trec_eval binding that computes the measures."""
    try:
        version = metadata.version("pytrec-eval-terrier")
    except metadata.PackageNotFoundError:  # pragma: no cover - the dependency is declared
        version = "unknown"
    return f"lemmata-retrieval/{SCORER_VERSION}+pytrec_eval-{version}"


def received_date(received_at: str) -> str:
    """The evaluation date of the frozen tuple: the day the submission was received.

    >>> received_date("2026-11-21T10:00:00+00:00")
    '2026-11-21'
    """
    return dt.datetime.fromisoformat(received_at).date().isoformat()


def check_records(records: Iterable[tuple[int, dict[str, Any]]], *, file: str, collection: Collection,
                  problems: list[Problem], extra_fields: Iterable[str] = ()) -> dict[str, RunRecord]:
    """Rankings of one collection, each checked (unknown ids, NaN scores, duplicates) — see :mod:`lemmata.formats.beir`."""
    return validate_runs(records, file=file, collection=collection, problems=problems, extra_fields=extra_fields)


@dataclass(frozen=True)
class Scored:
    """One collection's evaluation and what the run left out."""

    evaluation: RetrievalEvaluation
    judged: int
    missing: tuple[str, ...]
    unjudged: int


def score_collection(collection: Collection, runs: dict[str, RunRecord], measures: Iterable[str], *,
                     n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Scored:
    """Evaluate ``runs`` on the judged queries of ``collection``; a judged query without a ranking scores 0."""
    judged = collection.judged_queries
    if not judged:
        raise InputError.one("qrels", "the split has no judged query: nothing to score")
    run = {q: (runs[q].scores if q in runs else {}) for q in judged}
    qrels = {q: collection.qrels[q] for q in judged}
    evaluation = evaluate_run(run, qrels, list(measures), n_resamples=n_resamples, seed=seed)
    judged_set = set(judged)
    return Scored(evaluation=evaluation, judged=len(judged),
                  missing=tuple(q for q in judged if q not in runs),
                  unjudged=sum(1 for q in runs if q not in judged_set))


def measure_summary(scored: Scored) -> dict[str, Any]:
    """Means and intervals of every measure, plus coverage counts (stored as a result's metrics)."""
    out: dict[str, Any] = {
        name: {"mean": m.mean, "ci95": list(m.ci95) if m.ci95 else None, "interval_kind": "query_bootstrap95"}
        for name, m in scored.evaluation.measures.items()
    }
    out["judged_queries"] = scored.judged
    out["missing_queries"] = len(scored.missing)
    out["unjudged_rankings"] = scored.unjudged
    return out


def per_query_items(scored: Scored, **extra: Any) -> list[dict[str, Any]]:
    """One item per judged query with every measure (for the audit view and paired comparisons)."""
    ev = scored.evaluation
    missing = set(scored.missing)
    return [{"item_id": q, **extra, **{name: m.per_query[i] for name, m in ev.measures.items()},
             "ranked": q not in missing}
            for i, q in enumerate(ev.query_ids)]


# -- the ranking record as a model (the JSON Schema users validate against) ----------------------------------

#: a BEIR id: a non-empty string (an integer is read as its decimal string, as older BEIR files write ids)
BeirId = Annotated[StrictStr, Field(min_length=1)] | StrictInt


class StrictRecord(Exact):
    """A submission record model: no unknown fields, no coercion, no NaN or infinity."""

    model_config = ConfigDict(allow_inf_nan=False)


class RankedDoc(StrictRecord):
    """One retrieved document and the system's score for it."""

    doc_id: BeirId = Field(description="a corpus `_id` of the release; listed at most once per ranking")
    score: float = Field(description="finite number; higher is better. Only scores decide the order: ties "
                                     "break by doc_id ascending, the list order is not used")


class RankingRecord(StrictRecord):
    """One query's ranking (every line after the header)."""

    query_id: BeirId = Field(description="a query `_id` of the release; at most one record per query")
    ranking: list[RankedDoc] = Field(max_length=MAX_RANKING_DEPTH,
                                     description=f"retrieved documents, at most {MAX_RANKING_DEPTH}; an empty "
                                                 "list ranks nothing (the query scores 0)")



# -- run files of the derived retrieval tracks ----------------------------------------------------------------

class RunFlags(Exact):
    """What the submitter declares about how the system was built (shown next to the score)."""

    tuned_on_track_data: bool = Field(description="weights or hyper-parameters were fitted on any queries or qrels of "
                                                  "this track (any split)")
    used_external_data: bool = Field(description="trained on, or retrieved from, data beyond the track's own corpus "
                                                 "(pretrained models off the shelf do not count)")
    year_cutoff: bool | None = Field(None, description="each query's year cutoff was applied as a filter (records "
                                                       "dated after it never ranked); a declared condition that "
                                                       "splits the board's group. Unset: left out of the stored "
                                                       "flags, so results made before it keep their ids")

    @model_serializer(mode="wrap")
    def _unset_left_out(self, handler):
        data = handler(self)
        if data.get("year_cutoff") is None:
            data.pop("year_cutoff", None)
        return data


class RunHeader(HeaderBase):
    format: Literal["lemmata-submission/1"]
    split: str = Field(description="'<config>/<split>' of the queries the records answer")
    flags: RunFlags
    system: dict[str, Any] = Field(default_factory=dict, description="the system's configuration, kept in provenance")


#: the measures of every derived retrieval run (Re²Math theorem retrieval, TaoBench equivalence)
RUN_MEASURES: tuple[str, ...] = ("recall@1", "recall@5", "recall@10", "ndcg@10", "mrr@100")
RUN_MAIN_METRIC = "ndcg@10"


def run_notes(header: RunHeader, scored: "Scored", measures: Iterable[str]) -> list[str]:
    """The notes of a derived retrieval run's result."""
    notes = [f"{', '.join(measures)} over the {scored.judged:,} queries of {header.split} ({header.track}); "
             "ties ranked by doc id; intervals: percentile bootstrap over queries."]
    if scored.missing:
        notes.append(f"{len(scored.missing):,} queries had no ranking and score 0.")
    return notes


# -- the track -------------------------------------------------------------------------------------------------

def served_header(envelope: Envelope, model: type[BaseModel], meta: BenchmarkMeta):
    """An upload's validated header, which must name the release this space serves for ``meta``.

    Every header problem is reported at once; records are not looked at before the header is right.
    """
    problems: list[Problem] = []
    name, line = envelope.filename, envelope.header_line
    header = validate_model(model, envelope.header, name, line, problems, prefix="header")
    if header is None:
        raise InputError(problems)
    if header.release != meta.release_id:
        raise InputError.one(name, f"release {header.release!r} is not served; use {meta.release_id!r}", line,
                             "header.release")
    return header


class RankingTrack(TrackHandler):
    """One BEIR-style track: validate a ranking run against a collection, score it by ``measures``.

    Subclasses name the header model, the served release and the collection a
    header selects; the hooks below word the summary, the notes and the frozen
    tuple. ``schema`` names the committed JSON Schema of one submission line.
    """

    header_model: ClassVar[type[HeaderBase]]
    #: the model of one record line (default: :class:`RankingRecord`)
    record_model: ClassVar[type[BaseModel] | None] = None
    measures: ClassVar[tuple[str, ...]]
    main_metric: ClassVar[str]
    #: (file name, title, description) of the exported JSON Schema of one submission line
    schema: ClassVar[tuple[str, str, str] | None] = None
    #: the header fields that select the collection records are checked against (all must be valid to check them)
    selecting: ClassVar[tuple[str, ...]] = SELECTING

    # -- what a subclass provides -------------------------------------------------------------------------------
    @abstractmethod
    def meta(self, header: Any) -> BenchmarkMeta:
        """The registered release metadata the header must name."""

    @abstractmethod
    def collection(self, header: Any) -> Collection:
        """The collection the run is checked and scored against."""

    def part_collection(self, header: Any, label: str | None) -> Collection:
        """The collection one part of a run is judged against: ``label`` names the part of a run that spans
        several collections (a record's ``task``), None the one collection of every other track."""
        return self.collection(header)

    @abstractmethod
    def frozen(self, header: Any, received_at: str) -> FrozenTuple:
        """The frozen tuple a result of this track is ranked under."""

    def summary(self, header: Any, runs: dict[str, RunRecord]) -> str:
        return f"{len(runs)} rankings for {header.track}"

    def notes(self, header: Any, scored: "Scored") -> list[str]:
        return []

    def flags(self, header: Any) -> dict[str, Any]:
        return {}

    def provenance(self, header: Any, submission: Validated) -> dict[str, Any]:
        return {"header_notes": header.notes, "filename": submission.filename}

    # -- the shared checks and scoring --------------------------------------------------------------------------
    def validate(self, envelope: Envelope, sha256: str) -> Validated:
        name = envelope.filename
        problems: list[Problem] = list(envelope.problems)
        check = check_header(envelope, self.header_model, problems,
                             served_release=lambda h: self.meta(h).release_id, selecting=self.selecting)
        if not envelope.records and not envelope.problems:  # a broken record line is no missing one
            problems.append(Problem(name, "no rankings after the header"))
        runs = self.checked_runs(envelope, check.context, problems)
        if problems:
            raise InputError(problems)
        header = check.header
        return Validated(benchmark=self.benchmark, track=header.track, model=header.model, header=header,
                         records=list(runs.values()), sha256=sha256, filename=name,
                         summary=self.summary(header, runs))

    def checked_runs(self, envelope: Envelope, context: Any | None, problems: list[Problem]) -> dict[str, RunRecord]:
        """Every ranking checked against the collection ``context`` selects; without one, their shape only."""
        name = envelope.filename
        if context is not None:
            try:
                coll = self.collection(context)
            except InputError as exc:
                problems.extend(exc.problems)
            else:
                return check_records(envelope.records, file=name, collection=coll, problems=problems)
        for line, obj in envelope.records:
            validate_model(self.record_model or RankingRecord, obj, name, line, problems)
        if envelope.records:
            problems.append(records_skipped(name, self.header_model, "the rankings' query and document ids"))
        return {}

    def validated_header(self, envelope: Envelope):
        """The header, checked against the model and the served release (every header problem at once)."""
        problems: list[Problem] = []
        header = validate_model(self.header_model, envelope.header, envelope.filename, envelope.header_line,
                                problems, prefix="header")
        if header is None:
            raise InputError(problems)
        return served_header(envelope, self.header_model, self.meta(header))

    def score(self, submission: Validated, *, received_at: str, oracles: OracleConfig) -> Result:
        header = submission.header
        scored = score_collection(self.collection(header), {r.query_id: r for r in submission.records},
                                  self.measures)
        main = scored.evaluation.measures[self.main_metric]
        return make_result(
            kind="scored", benchmark=self.benchmark, track=header.track,
            frozen=self.frozen(header, received_at),
            submission_sha256=submission.sha256, model=header.model, flags=self.flags(header),
            main=Score(metric=self.main_metric, value=main.mean, interval=main.ci95,
                       interval_kind="query_bootstrap95", total=scored.judged),
            metrics=measure_summary(scored), items=per_query_items(scored), notes=self.notes(header, scored),
            provenance=self.provenance(header, submission),
        )

    def audit(self, result: Result, item_id: str, submission: Validated | None) -> AuditView:
        """One query: its text, the top of the submitted ranking with scores, the relevant documents marked."""
        from lemmata.tracks.ranking_audit import ranking_sections

        item = next((it for it in result.items if str(it.get("item_id")) == item_id), None)
        if item is None or submission is None:  # without the stored run there is only the stored record to show
            return super().audit(result, item_id, submission)
        from lemmata.tracks.ranking_audit import AUDIT_TOP, ordered

        collection, query_id, part = self.audit_query(submission.header, item)
        scores: dict[str, float] = {}
        for rec in submission.records:  # one collection: RunRecord; several: (part, RunRecord)
            group, run = rec if isinstance(rec, tuple) else (None, rec)
            if group == part and str(run.query_id) == query_id:
                scores = run.scores
        shown = [d for d, _ in ordered(scores)[:AUDIT_TOP]]
        shown += [d for d, g in collection.qrels.get(query_id, {}).items() if g > 0 and d not in shown][:50]
        texts = self.document_texts(submission.header, shown, collection)
        return AuditView(item_id=item_id, sections=ranking_sections(query_id, collection, scores, item, texts=texts))

    def document_texts(self, header: Any, doc_ids: list[str], collection: Collection | None = None) -> dict[str, str]:
        """What the audit shows of each listed document (title and text), from ``collection`` (the audited query's;
        default the header's). The scorer's collection may hold ids only (it needs no text); a track whose collection
        is id-only overrides this to read the text from its release."""
        collection = collection if collection is not None else self.collection(header)
        out = {}
        for d in doc_ids:
            doc = collection.corpus.get(d)
            if doc is not None and (doc.title or doc.text):
                out[d] = (doc.title + ": " if doc.title else "") + doc.text
        return out

    def audit_query(self, header: Any, item: dict[str, Any]) -> tuple[Collection, str, str | None]:
        """The collection an audited item's query lives in, its query id there, and which part of a multi-collection
        submission holds its ranking (None for a single collection)."""
        return self.collection(header), str(item["item_id"]), None

    @classmethod
    def schema_files(cls) -> list[SchemaFile]:
        if cls.schema is None:
            return []
        filename, title, description = cls.schema
        record = cls.record_model or RankingRecord
        return [SchemaFile(cls.benchmark, filename, dumps(line_schema(
            cls.header_model, record, filename=filename, title=title, description=description)))]


def run_schema(benchmark: str, header: type[BaseModel],
               records: str = "one query's ranking (RankingRecord)") -> tuple[str, str, str]:
    """A run track's :attr:`~RankingTrack.schema`: file name, title and description, worded alike for every run."""
    return (f"{benchmark}-run.schema.json", f"{benchmark} run, format lemmata-submission/1 (one JSONL line)",
            f"A {benchmark} run is a UTF-8 JSONL file: line 1 is the header ({header.__name__}), every further line "
            f"{records}. See submissions/baselines/README.md.")


class RunTrack(RankingTrack):
    """A derived retrieval track whose runs carry :class:`RunHeader` (split, flags, system), scored by the run measures.

    Subclasses name the benchmark, the header model, the release metadata, the collection and the qrels id of a
    header; the tracks (the values the header's ``track`` allows) and the schema (:func:`run_schema`) follow.
    """

    measures = RUN_MEASURES
    main_metric = RUN_MAIN_METRIC

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        header = cls.__dict__.get("header_model")
        if header is None:
            return
        if "tracks" not in cls.__dict__:
            cls.tracks = get_args(header.model_fields["track"].annotation)
        if "schema" not in cls.__dict__:
            cls.schema = run_schema(cls.benchmark, header)

    @abstractmethod
    def qrels_id(self, header: RunHeader) -> str:
        """Which judgements score the run (part of the frozen tuple's scoring artifact)."""

    def summary(self, header: RunHeader, runs: dict[str, RunRecord]) -> str:
        return f"{len(runs)} rankings for {header.split} ({header.track})"

    def frozen(self, header: RunHeader, received_at: str) -> FrozenTuple:
        return FrozenTuple(dataset_release=header.release, split=header.split, retrieval_artifact=None,
                           scoring_artifact=f"qrels:{self.qrels_id(header)}; {scoring_artifact()}",
                           date=received_date(received_at))

    def notes(self, header: RunHeader, scored: Scored) -> list[str]:
        return run_notes(header, scored, self.measures)

    def flags(self, header: RunHeader) -> dict[str, Any]:
        return header.flags.model_dump()

    def provenance(self, header: RunHeader, submission: Validated) -> dict[str, Any]:
        return {"header_notes": header.notes, "filename": submission.filename, "system": header.system}
