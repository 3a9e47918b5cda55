"""What the two BEIR retrieval benchmarks share: the submission records, their checks, and scoring.

A submission is the shared envelope (header line, then records). Each record is
one query's ranking::

    {"query_id": "q1", "ranking": [{"doc_id": "d7", "score": 12.5}, ...]}

(MIRB records also name their ``task``). Every id is checked against the built
release and every score must be a finite number; problems name line and field
(``ranking[3].score``). Scoring goes through :func:`lemmata.metrics.retrieval.evaluate_run`
(pytrec_eval; ties by score descending, then doc id ascending) over the judged
queries of the split; a judged query without a record scores 0.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from lemmata.beir import Collection, RunRecord, validate_runs
from lemmata.errors import InputError, Problem
from lemmata.metrics.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED
from lemmata.metrics.retrieval import RetrievalEvaluation, evaluate_run
from lemmata.results import ModelInfo

SCORER_VERSION = "1"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class HeaderBase(_Strict):
    """Fields every retrieval submission header carries (benchmarks narrow ``benchmark``, ``release``, ``track``)."""

    format: str = Field(description="envelope format; always 'lemmata-submission/1'")
    benchmark: str
    release: str
    track: str
    model: ModelInfo
    notes: str = Field(default="", max_length=4000, description="free text shown with the entry")


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
    """Rankings of one collection, each checked (unknown ids, NaN scores, duplicates) — see :mod:`lemmata.beir`."""
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
