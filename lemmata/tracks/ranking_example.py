"""The example submission of a declared ranking track: the project's BM25 baseline over the built release.

What ``submissions/mathnet/make_example.py`` does by hand for one benchmark, done
from the metadata for any release whose ``ranking`` spec names its ``corpus`` and
``queries`` splits: one BM25 index (:mod:`lemmata.retrievers.bm25`: bm25s, Lucene
BM25 k1 = 1.5, b = 0.75, its fixed LaTeX-aware tokenizer) over every document's
title and text; each query keeps its ``depth`` best documents that share a term
with it; scores are rounded to four decimals and each ranking is written in the
order the scorer reads it (score descending, then doc id ascending). The depth is
the deepest cut-off among the track's measures, since documents below it never
change a score.
"""

from __future__ import annotations

from typing import Any

from lemmata.core.meta import BenchmarkMeta, RankingSpec
from lemmata.formats.envelope import SUBMISSION_FORMAT
from lemmata.metrics.retrieval import parse_measure
from lemmata.release.load import Release

__all__ = ["EXAMPLE_MODEL", "example_depth", "example_filename", "example_lines", "bm25_rankings"]

#: the model block of every generated example (the same baseline the hand-made examples use)
EXAMPLE_MODEL = {"name": "example: BM25 (bm25s, Lucene k1=1.5 b=0.75)", "revision": "lemmata bm25_baseline"}


def example_depth(spec: RankingSpec) -> int:
    """The deepest cut-off among the measures: documents ranked below it never change a score.

    >>> example_depth(RankingSpec(measures=("recall@1", "ndcg@10"), main_metric="ndcg@10", schema_file="x.schema.json",
    ...                           schema_title="t", schema_description="d"))
    10
    """
    return max(parse_measure(m)[1] for m in spec.measures)


def example_filename(meta: BenchmarkMeta) -> str:
    """The example's file name, next to the page (the space's Submit tab finds it by its header's benchmark).

    >>> example_filename(BenchmarkMeta.model_construct(name="toy-ir"))
    'example-toy-ir.jsonl'
    """
    return f"example-{meta.name}.jsonl"


def bm25_rankings(release: Release, spec: RankingSpec, depth: int) -> list[dict[str, Any]]:
    """One record per query of the release's ``queries`` split, in query order, ranked by BM25 over its corpus."""
    from lemmata.retrievers.bm25 import BM25Index

    docs = release.rows("corpus", spec.corpus)
    index = BM25Index([str(d["_id"]) for d in docs],
                      [" ".join(filter(None, (d.get("title"), d["text"]))) for d in docs])
    records = []
    for q in release.rows("queries", spec.queries):
        ranked = [(doc_id, round(score, 4)) for doc_id, score in index.search(q["text"], depth) if score > 0]
        ranked.sort(key=lambda pair: (-pair[1], pair[0]))
        records.append({"query_id": q["_id"], "ranking": [{"doc_id": d, "score": s} for d, s in ranked]})
    return records


def example_lines(meta: BenchmarkMeta, release: Release, *, track: str | None = None,
                  command: str) -> list[dict[str, Any]]:
    """The example submission as JSON objects: its header (for ``track``, default the first), then the rankings.

    ``command`` is what produced it, named in the header's notes.
    """
    spec = meta.ranking
    if spec is None:
        raise ValueError(f"{meta.name}'s metadata declares no ranking track (meta.ranking)")
    if not meta.tracks:
        raise ValueError(f"{meta.name}'s metadata names no track (meta.tracks): a run is scored on one")
    track = track or meta.tracks[0]
    depth = example_depth(spec)
    header = {"format": SUBMISSION_FORMAT, "benchmark": meta.name, "release": meta.release_id, "track": track,
              "model": EXAMPLE_MODEL,
              "notes": f"Produced by `{command}`: top {depth} BM25 documents per query of {release.release_id}."}
    return [header, *bm25_rankings(release, spec, depth)]
