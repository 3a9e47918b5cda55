"""MIRB track handler: rankings for all fifteen tasks in one submission, scored by nDCG@10.

Header::

    {"format": "lemmata-submission/1", "benchmark": "mirb", "release": "mirb-1.0.0", "track": "zero-shot",
     "model": {"name": "..."}}

then ``{"task": "msedup", "query_id": ..., "ranking": [{"doc_id", "score"}, ...]}`` records. The benchmark
score is the mean over the paper's twelve datasets, NaturalProofs being the mean of its four subsets
(:func:`mirb_average`). nDCG@10 is averaged over the queries with a positive grade; upstream's evaluator also
counts queries whose judgements all have grade 0 (:func:`upstream_query_set_mean`), and where the two differ a
result reports both, upstream's under ``upstream_query_set``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from lemmata.benchmarks.mirb.meta import DATASETS, MAIN_METRIC, MIRB, TASK_NAMES, TASKS, task
from lemmata.formats.beir import RunRecord
from lemmata.core.errors import InputError, Problem
from lemmata.catalog import collection, load_release
from lemmata.formats.beir import MAX_RANKING_DEPTH
from lemmata.declared import DeclaredRankingTrack
from lemmata.tracks.ranking import (
    BeirId, RankedDoc, StrictRecord, check_records, measure_summary, per_query_items, ranking_header, received_date,
    score_collection, scoring_artifact,
)
from lemmata.core.registry import suggest
from lemmata.formats.results import FrozenTuple, Result, Score, make_result
from lemmata.tracks.base import OracleConfig, Validated
from lemmata.formats.envelope import Envelope, validate_model
from lemmata.tracks.headers import check_header, records_skipped

assert MIRB.ranking is not None
MEASURES = MIRB.ranking.measures
#: the header model derived from the metadata (what the exported schema calls ``Header``)
Header = ranking_header(MIRB)


MirbTaskName = Literal[TASK_NAMES]  # type: ignore[valid-type]


class MirbRankingRecord(StrictRecord):
    """One query's ranking within one MIRB task (every line after the header)."""

    task: MirbTaskName = Field(description="the MIRB task (= release split) the query belongs to")
    query_id: BeirId = Field(description="a query `_id` of that task; at most one record per (task, query)")
    ranking: list[RankedDoc] = Field(max_length=MAX_RANKING_DEPTH,
                                     description=f"retrieved documents of that task's corpus, at most "
                                                 f"{MAX_RANKING_DEPTH}; never a document excluded for the query "
                                                 "(dynamic-corpus tasks)")




def mirb_average(per_task: Mapping[str, float]) -> tuple[dict[str, float], float]:
    """Per-dataset scores (NaturalProofs = mean of its four subsets) and their mean over the twelve datasets.

    Every task must be present; the average of an incomplete set is not MIRB's score.

    >>> scores = {t: 0.5 for t in TASK_NAMES} | {"proofwikips": 0.9, "stacksps": 0.1}
    >>> per_dataset, average = mirb_average(scores)
    >>> len(per_dataset), per_dataset["naturalproofs"], average
    (12, 0.5, 0.5)
    >>> mirb_average({"msedup": 0.1})
    Traceback (most recent call last):
    ...
    ValueError: MIRB needs every task; missing: holps, isabelleps, leanps, mathlibretrieval, modup, mseformula, mseqa, numbertheoryps, proofwikips, proofwikiqa, realanalysisps, stacksps, stacksqa, wikiformula
    """
    missing = sorted(set(TASK_NAMES) - set(per_task))
    if missing:
        raise ValueError(f"MIRB needs every task; missing: {', '.join(missing)}")
    groups: dict[str, list[float]] = defaultdict(list)
    for t in TASKS:
        groups[t.dataset].append(float(per_task[t.name]))
    per_dataset = {d: sum(groups[d]) / len(groups[d]) for d in DATASETS}
    return per_dataset, sum(per_dataset.values()) / len(per_dataset)


def upstream_query_set_mean(mean: float, *, positive: int, present: int) -> float:
    """nDCG@k averaged as upstream's evaluator averages it: over every query present in the qrels.

    The authors' MTEB fork (``RetrievalEvaluator.evaluate`` at the pinned commit) averages trec_eval's per-query
    nDCG over every query of the qrels, and trec_eval scores a query whose judgements all have grade 0 as 0 (no
    ideal ranking). Lemmata averages over the ``positive`` queries with a positive grade, so upstream's mean over
    the ``present`` queries is Lemmata's ``mean`` scaled by ``positive / present``.

    >>> upstream_query_set_mean(1.0, positive=1, present=2)
    0.5
    >>> upstream_query_set_mean(0.75, positive=3, present=3)
    0.75
    """
    if not 0 < positive <= present:
        raise ValueError(f"need 0 < positive <= present, got positive={positive}, present={present}")
    return mean if positive == present else mean * positive / present


def task_collection(release_id: str, name: str):
    t = task(name)
    release = load_release(MIRB, release_id)
    return collection(release, corpus=name, queries=name, qrels=name, excluded=name if t.dynamic_corpus else None)


class MirbHandler(DeclaredRankingTrack):
    """Fifteen collections in one submission: the shared ranking checks and scoring, task by task (the header,
    measures and schema come from the metadata's ranking spec)."""

    release_meta = MIRB
    header_model = Header
    record_model = MirbRankingRecord

    def collection(self, header: Header):
        raise TypeError("a MIRB run spans fifteen collections, one per task: see task_collection(release, task)")

    def part_collection(self, header: Header, label: str | None):
        if label is None:
            return self.collection(header)
        return task_collection(header.release, label)

    def frozen(self, header: Header, received_at: str) -> FrozenTuple:
        return FrozenTuple(dataset_release=header.release, split="qrels/all-tasks", retrieval_artifact=None,
                           scoring_artifact=scoring_artifact(), date=received_date(received_at))

    def audit_query(self, header: Any, item: dict[str, Any]):
        """An item ``<task>/<query id>``: the task's collection, the query id in it, and the task's rankings."""
        return task_collection(header.release, item["task"]), str(item["item_id"]).split("/", 1)[1], item["task"]

    def validate(self, envelope: Envelope, sha256: str) -> Validated:
        name = envelope.filename
        problems: list[Problem] = list(envelope.problems)
        check = check_header(envelope, Header, problems, served_release=lambda h: MIRB.release_id)
        header = check.header
        if not envelope.records and not envelope.problems:  # a broken record line is no missing one
            problems.append(Problem(name, "no rankings after the header"))
        by_task: dict[str, list[tuple[int, dict[str, Any]]]] = defaultdict(list)
        for line, rec in envelope.records:
            t = rec.get("task")
            if not isinstance(t, str) or not t:
                problems.append(Problem(name, "missing task (one of the MIRB task names)", line, "task"))
            elif t not in TASK_NAMES:
                problems.append(Problem(name, suggest("MIRB task", t, TASK_NAMES), line, "task"))
            else:
                by_task[t].append((line, rec))
        records: list[tuple[str, RunRecord]] = []
        for t in TASK_NAMES:
            if t not in by_task:
                problems.append(Problem(name, f"no rankings for task {t!r}; a MIRB submission covers all "
                                              f"{len(TASK_NAMES)} tasks", field="task"))
                continue
            if check.context is None:
                for line, obj in by_task[t]:
                    validate_model(MirbRankingRecord, obj, name, line, problems)
                continue
            runs = check_records(by_task[t], file=name, collection=task_collection(check.context.release, t),
                                 problems=problems, extra_fields=("task",))
            records.extend((t, r) for r in runs.values())
        if check.context is None and by_task:
            problems.append(records_skipped(name, Header, "the rankings' query and document ids"))
        if problems:
            raise InputError(problems)
        return Validated(benchmark=self.benchmark, track=header.track, model=header.model, header=header,
                         records=records, sha256=sha256, filename=name,
                         summary=f"{len(records)} rankings over {len(by_task)} tasks")

    def score(self, submission: Validated, *, received_at: str, oracles: OracleConfig) -> Result:
        header: Header = submission.header
        runs: dict[str, dict[str, RunRecord]] = defaultdict(dict)
        for t, r in submission.records:
            runs[t][r.query_id] = r
        per_task: dict[str, Any] = {}
        items: list[dict[str, Any]] = []
        main_by_task: dict[str, float] = {}
        upstream_by_task: dict[str, float] = {}
        for t in TASKS:
            coll = task_collection(header.release, t.name)
            scored = score_collection(coll, runs.get(t.name, {}), MEASURES)
            per_task[t.name] = {"dataset": t.dataset, **measure_summary(scored)}
            main_by_task[t.name] = scored.evaluation.measures[MAIN_METRIC].mean
            present = sum(1 for q in coll.queries if coll.qrels.get(q))
            upstream_by_task[t.name] = upstream_query_set_mean(main_by_task[t.name], positive=scored.judged,
                                                               present=present)
            if present != scored.judged:
                per_task[t.name]["upstream_query_set"] = {MAIN_METRIC: upstream_by_task[t.name], "queries": present}
            items.extend(per_query_items(scored, task=t.name))
        per_dataset, average = mirb_average(main_by_task)
        missing = sum(v["missing_queries"] for v in per_task.values())
        notes = ["nDCG@10 per task over its judged queries; benchmark score = mean over the 12 datasets, "
                 "NaturalProofs = mean of its four subsets."]
        if missing:
            notes.append(f"{missing:,} judged queries had no ranking and score 0.")
        upstream: dict[str, Any] = {}
        if upstream_by_task != main_by_task:
            up_dataset, up_average = mirb_average(upstream_by_task)
            upstream = {"upstream_query_set": {
                "metric": f"{MAIN_METRIC} over every query present in the qrels (upstream's evaluator)",
                "average": up_average, "per_dataset": up_dataset}}
            grade0 = sorted(n for n, v in per_task.items() if "upstream_query_set" in v)
            notes.append(f"Upstream's evaluator also averages over queries judged only with grade 0 (they score 0) "
                         f"in {', '.join(grade0)}: its average is {up_average:.4f} (upstream_query_set).")
        return make_result(
            kind="scored", benchmark=self.benchmark, track=header.track,
            frozen=self.frozen(header, received_at),
            submission_sha256=submission.sha256, model=header.model,
            main=Score(metric="ndcg@10 (MIRB average)", value=average, total=len(DATASETS)),
            metrics={"average": average, "per_dataset": per_dataset, **upstream},
            breakdowns={"per_task": per_task},
            items=[{**i, "item_id": f"{i['task']}/{i['item_id']}"} for i in items],
            notes=notes, provenance={"header_notes": header.notes, "filename": submission.filename},
        )
