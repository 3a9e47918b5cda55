"""MIRB as one model-run task: fifteen parts (one per task), dynamic-corpus exclusions applied per query, and each
task's query instruction (``meta.MirbTask.query_prompt``, the ``prompt={"query": …}`` of the task's metadata in the
authors' MTEB fork) declared on its part: a model that takes instructions is run as the paper ran it."""

from __future__ import annotations

from lemmata.tracks.model_runs import Part, RankingTask


def tasks(name: str = "mirb", **_: object) -> list[RankingTask]:
    from lemmata.benchmarks.mirb.meta import MIRB, TASKS
    from lemmata.benchmarks.mirb.track import task_collection
    from lemmata.catalog import corpus_texts, load_release

    release = load_release(MIRB)
    parts = []
    for t in TASKS:
        coll = task_collection(MIRB.release_id, t.name)
        words = corpus_texts(release, t.name)  # the scoring collection carries ids only
        texts = [words[d] for d in coll.corpus]
        parts.append(Part(doc_ids=list(coll.corpus), doc_texts=texts, queries=dict(coll.queries), label=t.name,
                          excluded=dict(coll.excluded), instruction=t.query_prompt))
    return [RankingTask(name=f"{MIRB.name}:zero-shot", run_header=False,
                        header={"benchmark": MIRB.name, "release": MIRB.release_id, "track": "zero-shot"},
                        parts=parts, filename=f"{MIRB.name}.zero-shot")]
