"""The Re²Math theorem-retrieval track: rank the reference statements for a rendered proof state.

A run is a submission in the shared envelope — a header line, then one ranking
per query, exactly the records of every BEIR-style track::

    {"format": "lemmata-submission/1", "benchmark": "re2math-theorem-retrieval", "release": "re2math-1.0.0",
     "split": "retrieval_queries/test", "track": "assisted", "model": {"name": "BM25 (bm25s)"},
     "flags": {"tuned_on_track_data": false, "used_external_data": false}}
    {"query_id": "1903.08525_gap_0", "ranking": [{"doc_id": "thm-…", "score": 12.5}, …]}

Scores are Recall@1/5/10, nDCG@10 (headline) and MRR@100 with bootstrap-over-queries
intervals; a query without a record scores 0. The frozen tuple names the release,
the query split, no retrieval artifact (a system ranks the corpus itself) and the
qrels with the scorer version.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

from pydantic import Field

from lemmata.benchmarks.re2math.meta import RE2MATH
from lemmata.benchmarks.re2math.theorem.retrieval import (
    CORPUS_CONFIG, QRELS_CONFIG, QUERIES_CONFIG, THEOREM_BENCHMARK,
)
from lemmata.catalog import load_release, read_columns
from lemmata.formats.beir import Collection, Doc
from lemmata.tracks.ranking import RunHeader, RunTrack


class TheoremRunHeader(RunHeader):
    benchmark: Literal["re2math-theorem-retrieval"]
    release: str = Field(pattern=r"^re2math-\d+\.\d+\.\d+$")
    split: Literal["retrieval_queries/test", "retrieval_queries/dev"]
    track: Literal["raw", "assisted"] = Field(description="which rendering of the proof state is the query")


@lru_cache(maxsize=16)
def theorem_collection(release_id: str, split: str, variant: str) -> Collection:
    """The Re²Math theorem-retrieval collection of one query split and variant, from the built release."""
    release = load_release(RE2MATH, release_id)
    ids = read_columns(release, CORPUS_CONFIG, "corpus", ["_id"])["_id"]
    qs = read_columns(release, QUERIES_CONFIG, split, ["_id", f"text_{variant}"])
    qr = read_columns(release, QRELS_CONFIG, split, ["query-id", "corpus-id", "score"])
    qrels: dict[str, dict[str, int]] = {}
    for q, d, s in zip(qr["query-id"], qr["corpus-id"], qr["score"]):
        qrels.setdefault(q, {})[d] = int(s)
    return Collection(corpus={i: Doc(i, "") for i in ids}, queries=dict(zip(qs["_id"], qs[f"text_{variant}"])),
                      qrels=qrels)


@lru_cache(maxsize=4)
def statement_texts(release_id: str) -> dict[str, str]:
    """Every corpus statement of a release by document id (what the audit shows beside a ranked id)."""
    release = load_release(RE2MATH, release_id)
    cols = read_columns(release, CORPUS_CONFIG, "corpus", ["_id", "text"])
    return dict(zip(cols["_id"], cols["text"]))


class TheoremRetrievalHandler(RunTrack):
    """Re²Math theorem retrieval: rank the reference statements for a rendered proof state."""

    benchmark = THEOREM_BENCHMARK
    header_model = TheoremRunHeader

    def meta(self, header: TheoremRunHeader):
        return RE2MATH

    def collection(self, header: TheoremRunHeader) -> Collection:
        return theorem_collection(header.release, header.split.split("/", 1)[1], header.track)

    def document_texts(self, header: TheoremRunHeader, doc_ids: list[str], collection: Any = None) -> dict[str, str]:
        """The listed statements' text, from the release's corpus (the scorer's collection holds ids only)."""
        texts = statement_texts(header.release)
        return {d: texts[d] for d in doc_ids if d in texts}

    def qrels_id(self, header) -> str:
        return f"{header.release}/{QRELS_CONFIG}/{header.split.split('/', 1)[1]}"
