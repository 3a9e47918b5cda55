"""MIRB as one model-run task: fifteen parts (one per task), dynamic-corpus exclusions applied per query."""

from __future__ import annotations

from lemmata.tracks.model_runs import Part, RankingTask


def tasks(name: str = "mirb", **_: object) -> list[RankingTask]:
    from lemmata.benchmarks.mirb.meta import MIRB, TASK_NAMES
    from lemmata.benchmarks.mirb.track import task_collection
    from lemmata.catalog import corpus_texts, load_release

    release = load_release(MIRB)
    parts = []
    for t in TASK_NAMES:
        coll = task_collection(MIRB.release_id, t)
        words = corpus_texts(release, t)  # the scoring collection carries ids only
        texts = [words[d] for d in coll.corpus]
        parts.append(Part(doc_ids=list(coll.corpus), doc_texts=texts, queries=dict(coll.queries), label=t,
                          excluded=dict(coll.excluded)))
    return [RankingTask(name=f"{MIRB.name}:zero-shot", run_header=False,
                        header={"benchmark": MIRB.name, "release": MIRB.release_id, "track": "zero-shot"},
                        parts=parts, filename=f"{MIRB.name}.zero-shot")]
