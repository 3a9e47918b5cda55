"""MathNet-Retrieve as model-run tasks: one ranking of the shared corpus, one submission per tier (easy, medium,
hard share queries and corpus; only their qrels differ)."""

from __future__ import annotations

from lemmata.tracks.model_runs import Part, RankingTask


def doc_text(doc) -> str:
    """What a retriever reads of a BEIR document: title and text, as BEIR and MTEB join them."""
    return f"{doc.title} {doc.text}".strip() if doc.title else doc.text


def tasks(name: str = "mathnet-retrieve", **_: object) -> list[RankingTask]:
    from lemmata.benchmarks.mathnet.meta import MATHNET_RETRIEVE
    from lemmata.benchmarks.mathnet.track import tier_collection

    out = []
    part = None
    for tier in MATHNET_RETRIEVE.tracks:
        coll = tier_collection(MATHNET_RETRIEVE.release_id, tier)
        if part is None:  # the same corpus and queries for every tier: one part object, ranked once
            part = Part(doc_ids=list(coll.corpus), doc_texts=[doc_text(d) for d in coll.corpus.values()],
                        queries=dict(coll.queries))
        out.append(RankingTask(name=f"{MATHNET_RETRIEVE.name}:{tier}", run_header=False,
                               header={"benchmark": MATHNET_RETRIEVE.name, "release": MATHNET_RETRIEVE.release_id,
                                       "track": tier},
                               parts=[part], filename=f"{MATHNET_RETRIEVE.name}.{tier}"))
    return out
