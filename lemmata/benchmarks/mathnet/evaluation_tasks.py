"""MathNet-Retrieve as model-run tasks: one ranking of the shared corpus, one submission per tier (easy, medium,
hard share queries and corpus; only their qrels differ)."""

from __future__ import annotations

from lemmata.tracks.model_runs import Part, RankingTask


def tasks(name: str = "mathnet-retrieve", **_: object) -> list[RankingTask]:
    from lemmata.benchmarks.mathnet.meta import MATHNET_RETRIEVE
    from lemmata.benchmarks.mathnet.track import tier_collection
    from lemmata.catalog import corpus_texts, load_release

    out = []
    part = None
    for tier in MATHNET_RETRIEVE.tracks:
        coll = tier_collection(MATHNET_RETRIEVE.release_id, tier)
        if part is None:  # the same corpus and queries for every tier: one part object, ranked once
            words = corpus_texts(load_release(MATHNET_RETRIEVE), MATHNET_RETRIEVE.ranking.corpus)
            part = Part(doc_ids=list(coll.corpus), doc_texts=[words[d] for d in coll.corpus],
                        queries=dict(coll.queries))  # the scoring collection carries ids only
        out.append(RankingTask(name=f"{MATHNET_RETRIEVE.name}:{tier}", run_header=False,
                               header={"benchmark": MATHNET_RETRIEVE.name, "release": MATHNET_RETRIEVE.release_id,
                                       "track": tier},
                               parts=[part], filename=f"{MATHNET_RETRIEVE.name}.{tier}"))
    return out
