"""The Lemmata ranking tracks as MTEB retrieval tasks, for users who already run ``mteb.evaluate``.

    import mteb
    from lemmata.harness.mteb_export import mteb_tasks

    results = mteb.evaluate(model, tasks=mteb_tasks(["taobench-equivalence"]), cache=None)

Each task holds one collection of a Lemmata task (MIRB gives one MTEB task per
MIRB task) read from the built, versioned release — the same corpus texts,
queries and qrels ``lemmata evaluate`` uses, so an MTEB run of the same model
gives the same nDCG@10 / Recall@k (up to how equal scores are ordered: Lemmata
breaks ties by doc id). Differences from a Lemmata run, by construction: MTEB
has no per-query eligibility filter, so Re²Math source retrieval runs without
its year cutoff (``year_cutoff=False`` in ``lemmata evaluate`` gives the same
protocol) and MIRB's dynamic-corpus exclusions are not applied. A part's declared query instruction is the
task's ``prompt`` (``{"query": …}``), where MTEB's instruction models read it. The score MTEB
reports is not a leaderboard result: to rank, run ``lemmata evaluate``.
Needs the optional extra ``pip install 'lemmata[mteb]'``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lemmata.harness.evaluate import resolve_tasks
from lemmata.retrievers.encoders import require

#: the MTEB metric name of Lemmata's headline measures
MAIN_SCORES = {"ndcg@10": "ndcg_at_10", "recall@5": "recall_at_5"}


def _qrels(task: Any, part: Any) -> dict[str, dict[str, int]]:
    """The judged relevance of one part, from the track handler's own collection (never from the task)."""
    from lemmata.families import handler_for

    handler = handler_for(task.header["benchmark"])
    header = handler.header_model.model_construct(**task.header, **task.header_tail)
    coll = handler.part_collection(header, part.label)  # a labelled part: one of a run's several collections
    return {q: {d: int(s) for d, s in rel.items()} for q, rel in coll.qrels.items()
            if q in part.queries and any(s > 0 for s in rel.values())}


def mteb_tasks(tracks: Sequence[str] | None = None, *, split: str = "test") -> list[Any]:
    """MTEB ``AbsTaskRetrieval`` objects, data loaded, one per collection of the named Lemmata tracks."""
    require("mteb", "mteb")
    from datasets import Dataset
    from mteb.abstasks.retrieval import AbsTaskRetrieval
    from mteb.abstasks.task_metadata import TaskMetadata

    out = []
    for task in resolve_tasks(tracks, split=split, year_cutoff=False):
        for part in task.parts:
            qrels = _qrels(task, part)
            name = f"Lemmata:{task.name}" + (f"/{part.label}" if part.label else "")
            metadata = TaskMetadata(
                name=name, description=f"Lemmata ranking track {task.name} ({task.header['release']}), "
                                       "read from the built release; see lemmata.harness.mteb_export.",
                dataset={"path": f"lemmata/{task.header['release']}", "revision": task.header["release"]},
                type="Retrieval", category="t2t", modalities=["text"], eval_splits=["test"],
                eval_langs=["eng-Latn"], main_score="ndcg_at_10", reference=None, domains=["Academic"],
                license="not specified", annotations_creators="derived", dialect=[], sample_creation="found",
                bibtex_citation="", prompt={"query": part.instruction} if part.instruction else None)
            corpus = Dataset.from_dict({"id": list(part.doc_ids), "text": list(part.texts())})
            queries = Dataset.from_dict({"id": list(part.queries), "text": list(part.queries.values())})
            cls = type("LemmataRetrieval", (AbsTaskRetrieval,), {"metadata": metadata})
            t = cls()
            t.dataset = {"default": {"test": {"corpus": corpus, "queries": queries, "relevant_docs": qrels,
                                              "top_ranked": None}}}
            t.data_loaded = True
            out.append(t)
    return out
