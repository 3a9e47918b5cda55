"""Turn a model into a ranking submission: encode, search, write the header and one ranking per query.

A :class:`RankingTask` is everything a benchmark family knows about one
submission file: the header fields it must carry and one or more
:class:`Part` collections (MIRB has fifteen; every other track one), each with
its corpus, queries and per-query restrictions (a year cutoff as an
eligibility filter, a dynamic corpus's excluded documents). A ranker — a dense
:class:`DenseRanker` over any :class:`~lemmata.retrievers.encoders.Encoder`, or a
:class:`BaselineRanker` over the built-in BM25 / static / hybrid retrievers —
ranks each part; :func:`submission_bytes` writes the file exactly as a user
would upload it, so it is validated and scored by the same handler as any
entry. Nothing here knows a benchmark: the families build the tasks.

Output is deterministic: queries in the task's order, every ranking sorted by
(score descending, doc id ascending), scores written as the float32 values the
search compared, so the same model on the same task gives byte-identical files.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lemmata.core.jsonl import dumps_jsonl
from lemmata.formats.envelope import SUBMISSION_FORMAT
from lemmata.formats.results import ModelInfo
from lemmata.retrievers.fusion import Ranking

DEFAULT_DEPTH = 100
#: above this many documents the exact search is slow enough that an approximate index is worth its recall loss
EXACT_LIMIT = 1_000_000
RECALL_SAMPLE = 1000
#: ``--index`` values: exact search, an approximate index (FAISS IVF, or usearch HNSW by name), or exact up to
#: ``EXACT_LIMIT`` documents and approximate beyond
INDEX_KINDS = ("auto", "exact", "approximate", "hnsw")


@dataclass
class Part:
    """One collection of a submission: corpus, queries (in order) and what a query may not be given."""

    doc_ids: list[str]
    doc_texts: Callable[[], list[str]] | list[str]
    queries: dict[str, str]
    label: str | None = None
    #: per document an integer key (e.g. a year; negative = unknown, always eligible) ...
    doc_keys: np.ndarray | None = None
    #: ... and per query its upper bound (None or missing: no bound)
    query_limits: dict[str, int | None] | None = None
    #: per query, document ids never ranked for it (a dynamic corpus)
    excluded: dict[str, frozenset[str]] = field(default_factory=dict)
    #: the task's declared query instruction, put before its queries for a model that takes instructions (in the
    #: model's template) and never for one that does not
    instruction: str | None = None

    def texts(self) -> list[str]:
        if callable(self.doc_texts):
            self.doc_texts = self.doc_texts()
        return self.doc_texts


@dataclass
class RankingTask:
    """One submission file to produce: header fields (without ``model``), its parts, and its file name."""

    name: str
    header: dict[str, Any]
    parts: list[Part]
    filename: str
    #: the header has ``flags`` and ``system`` (derived run tracks) rather than the plain Hub header
    run_header: bool = True
    #: header fields written after ``notes`` (kept where the published baseline files have them)
    header_tail: dict[str, Any] = field(default_factory=dict)
    #: what the task applies, recorded in the header's ``system`` (e.g. the year-cutoff rule)
    protocol: dict[str, Any] = field(default_factory=dict)
    #: declared flags the task itself sets (e.g. ``year_cutoff``: a condition that splits the board's group)
    flags: dict[str, Any] = field(default_factory=dict)
    #: run only when its variant is named (``NAME:VARIANT``), never by a plain ``NAME``: a variant kept for the results
    #: made with it while new runs use another (Re²Math source retrieval's unmasked queries)
    on_request: bool = False


@dataclass
class PartRun:
    """A part's rankings (in query order) and how they were made."""

    rankings: dict[str, Ranking]
    system: dict[str, Any]
    seconds: float = 0.0


# -- rankers ----------------------------------------------------------------------------------------------------

class DenseRanker:
    """An encoder's rankings: cached corpus vectors, encoded queries, exact (or approximate) top-k search."""

    def __init__(self, encoder: Any, *, cache: Any = None, depth: int = DEFAULT_DEPTH, batch_size: int = 256,
                 index: str = "auto", quiet: bool = False, instruction_template: str | None = None) -> None:
        from lemmata.retrievers.embedding_cache import EmbeddingCache
        from lemmata.retrievers.encoders import check_template

        if index not in INDEX_KINDS:
            raise ValueError(f"index must be one of {', '.join(INDEX_KINDS)}, not {index!r}")
        self.encoder, self.depth, self.batch_size, self.index, self.quiet = encoder, depth, batch_size, index, quiet
        self.cache = cache if cache is not None else EmbeddingCache()
        self.instruction_template = check_template(instruction_template) if instruction_template else None
        self.index_kinds: set[str] = set()
        self.instructed = False  # whether this task's queries got their instruction (the identity records it)
        self.stats: list[dict[str, Any]] = []

    def start_task(self) -> None:
        """Forget what the previous task's parts recorded (index kinds, instructions applied)."""
        self.index_kinds.clear()
        self.instructed = False

    def model(self) -> ModelInfo:
        kinds = sorted(self.index_kinds) or ["exact"]
        update = {"index": "+".join(kinds), "kind": self.encoder.info.kind or "retriever"}
        if self.instructed:
            update["instruction_template"] = self.instruction_template
        return self.encoder.info.model_copy(update=update)

    def query_vectors(self, part: Part, qids: Sequence[str]) -> np.ndarray:
        """The part's queries encoded; with the part's instruction in the template, when both are set."""
        texts = [part.queries[i] for i in qids]
        if self.instruction_template and part.instruction:
            from lemmata.retrievers.encoders import instructed

            self.instructed = True
            return self.encoder.encode(texts, role="query", batch_size=self.batch_size,
                                       prompt=instructed(self.instruction_template, part.instruction))
        return self.encoder.encode(texts, role="query", batch_size=self.batch_size)

    def rank(self, part: Part) -> PartRun:
        from lemmata.retrievers.search import (
            ApproximateIndex,
            HnswParams,
            IvfParams,
            exact_search,
            recall_against_exact,
        )

        start = time.perf_counter()
        normalised = self.encoder.similarity == "cosine"
        docs = self.cache.corpus_vectors(self.encoder, part.doc_ids, part.texts(), batch_size=self.batch_size,
                                         quiet=self.quiet, normalise_rows=normalised)
        encode_stats = self.cache.last
        qids = list(part.queries)
        from lemmata.retrievers.encoders import checked_vectors

        q = checked_vectors(self.query_vectors(part, qids), model=self.encoder.info.name, role="query", ids=qids,
                            dim=int(docs.shape[1]))
        if normalised:
            from lemmata.retrievers.encoders import normalise

            q = normalise(q)
        limits = [part.query_limits.get(i) for i in qids] if part.query_limits is not None else None
        position = {d: i for i, d in enumerate(part.doc_ids)} if part.excluded else {}
        excluded = ([sorted(position[d] for d in part.excluded.get(i, ()) if d in position) for i in qids]
                    if part.excluded else None)
        approximate = self.index in ("approximate", "hnsw") or (self.index == "auto"
                                                                and len(part.doc_ids) > EXACT_LIMIT)
        system: dict[str, Any] = {"similarity": self.encoder.similarity, "depth": self.depth}
        search_start = time.perf_counter()
        if approximate and limits is None and excluded is None:
            ann = ApproximateIndex(docs, part.doc_ids, HnswParams() if self.index == "hnsw" else IvfParams())
            ranked = ann.search(q, self.depth)
            sample = list(range(0, len(qids), max(1, len(qids) // RECALL_SAMPLE)))[:RECALL_SAMPLE]
            exact = exact_search(q[sample], docs, part.doc_ids, 10)
            recall = recall_against_exact([ranked[i] for i in sample], exact, 10)
            self.index_kinds.add(ann.label)
            system["index"] = {"kind": ann.label, "recall@10_vs_exact": round(recall, 6),
                               "recall_sample_queries": len(sample)}
        else:
            ranked = exact_search(q, docs, part.doc_ids, self.depth, doc_keys=part.doc_keys,
                                  query_limits=limits, excluded=excluded)
            self.index_kinds.add("exact" if limits is None else "exact-filtered")
            system["index"] = {"kind": "exact", "search": "blocked float32 matrix products"}
        now = time.perf_counter()
        self.stats.append({"part": part.label, "documents": len(part.doc_ids), "queries": len(qids),
                           "encoded_documents": encode_stats.encoded if encode_stats else None,
                           "cached_documents": encode_stats.cached if encode_stats else None,
                           "search_seconds": now - search_start, "seconds": now - start})
        return PartRun(dict(zip(qids, ranked)), system, now - start)


class BaselineRanker:
    """The built-in baselines (``bm25``, ``static``, ``hybrid``) of :mod:`lemmata.retrievers.baseline`."""

    def __init__(self, name: str, *, depth: int = DEFAULT_DEPTH, quiet: bool = True) -> None:
        from lemmata.retrievers.baseline import MODEL_NAMES, RETRIEVERS

        if name not in RETRIEVERS:
            from lemmata.core.registry import suggest

            raise ValueError(suggest("baseline", name, RETRIEVERS))
        self.name, self.depth, self.quiet = name, depth, quiet
        from lemmata import __version__

        self.info = ModelInfo(name=MODEL_NAMES[name], revision=f"lemmata {__version__}")

    def model(self) -> ModelInfo:
        return self.info

    def rank(self, part: Part) -> PartRun:
        from lemmata.retrievers.baseline import shared_retriever

        start = time.perf_counter()
        where = f" ({part.label})" if part.label else ""
        self._say(f"{self.name}: indexing {len(part.doc_ids):,} documents{where}")
        index = shared_retriever(self.name, part.doc_ids, part.texts())  # raw and assisted: one build
        qids = list(part.queries)
        texts = [part.queries[q] for q in qids]
        self._say(f"{self.name}: index built in {time.perf_counter() - start:.1f} s; ranking {len(qids):,} queries")
        if part.query_limits is None and not part.excluded:
            ranked = index.search_many(texts, self.depth)
        else:
            ranked = self._filtered(index, part, qids, texts)
        return PartRun(dict(zip(qids, ranked)), index.config, time.perf_counter() - start)

    def _say(self, line: str) -> None:
        """A progress line on stderr: a large corpus takes the index build's seconds before any query is ranked,
        and a terminal that shows nothing meanwhile looks hung (plain lines, so logs keep them too)."""
        if not self.quiet:
            import sys

            print(line, file=sys.stderr, flush=True)

    def _filtered(self, index: Any, part: Part, qids: list[str], texts: list[str]) -> list[Ranking]:
        """Top ``depth`` of the eligible documents: ask for more until enough survive the filter."""
        key = {d: int(k) for d, k in zip(part.doc_ids, part.doc_keys)} if part.doc_keys is not None else {}
        out: list[Ranking] = []
        for qid, text in zip(qids, texts):
            limit = (part.query_limits or {}).get(qid)
            banned = part.excluded.get(qid, frozenset())

            def ok(doc: str) -> bool:
                return doc not in banned and (limit is None or key.get(doc, -1) < 0 or key[doc] <= limit)

            want = self.depth * 2 + len(banned)
            while True:
                got = index.search_many([text], min(want, len(part.doc_ids)))[0]
                kept = [p for p in got if ok(p[0])]
                if len(kept) >= self.depth or want >= len(part.doc_ids):
                    out.append(kept[: self.depth])
                    break
                want *= 4
        return out


class RerankingRanker:
    """A first stage's top ``depth`` documents per query rescored by a reranker (:mod:`lemmata.retrievers.rerank`)
    and sorted by (new score descending, doc id): the file holds those ``depth`` documents. The reranker reads the
    query as the task states it (no instruction) and each document's text; its identity and depth are part of the
    model identity (``model.reranker``) and its name follows the first stage's (``FIRST → RERANKER``), so the
    reranked run and its first stage are two systems and two rows."""

    def __init__(self, first: Any, reranker: Any, *, depth: int) -> None:
        self.first, self.reranker, self.depth = first, reranker, depth
        self.encoder = getattr(first, "encoder", None)  # closed by the harness after the run

    @property
    def stats(self) -> list[dict[str, Any]]:
        return getattr(self.first, "stats", [])

    def start_task(self) -> None:
        if callable(getattr(self.first, "start_task", None)):
            self.first.start_task()

    def model(self) -> ModelInfo:
        from lemmata.formats.results import RerankerInfo

        first = self.first.model()
        info = RerankerInfo(**{k: v for k, v in self.reranker.identity.items() if v is not None}, depth=self.depth)
        name = f"{first.name[:200 - len(info.name) - 3]} → {info.name}"  # the board's row reads as a pipeline
        return first.model_copy(update={"name": name, "reranker": info, "kind": first.kind or "retriever"})

    def rank(self, part: Part) -> PartRun:
        from lemmata.retrievers.rerank import rescored

        run = self.first.rank(part)
        start = time.perf_counter()
        position = {d: i for i, d in enumerate(part.doc_ids)}
        texts = part.texts()
        qids = list(run.rankings)
        tops = [[d for d, _ in run.rankings[q][: self.depth]] for q in qids]
        scores = self.reranker.rerank([part.queries[q] for q in qids], [[texts[position[d]] for d in top]
                                                                       for top in tops])
        rankings = {q: rescored(top, s) for q, top, s in zip(qids, tops, scores)}
        seconds = time.perf_counter() - start
        return PartRun(rankings, {**run.system, "rerank": {"depth": self.depth}}, run.seconds + seconds)

    def close(self) -> None:
        close = getattr(self.reranker, "close", None)
        if callable(close):
            close()


# -- the file -----------------------------------------------------------------------------------------------------

FLAGS = {"tuned_on_track_data": False, "used_external_data": False}


def header_of(task: RankingTask, model: ModelInfo, system: Mapping[str, Any], notes: str,
              flags: Mapping[str, bool] | None = None) -> dict[str, Any]:
    """The header line: the task's fields, ``model`` (unset identity fields left out), and for run tracks the
    declared flags and the system configuration."""
    head: dict[str, Any] = {"format": SUBMISSION_FORMAT, **task.header, "model": model.model_dump(mode="json")}
    if head["model"].get("url") is None:
        head["model"].pop("url", None)
    if task.run_header:
        head["flags"] = {**(flags or FLAGS), **task.flags}
        head["system"] = dict(system)
    head["notes"] = notes
    head.update(task.header_tail)
    return head


def submission_bytes(header: Mapping[str, Any], runs: Sequence[tuple[str | None, Mapping[str, Ranking]]]) -> bytes:
    """Header, then one ranking record per query (parts in order; a labelled part's records carry ``task``)."""
    lines: list[dict[str, Any]] = [dict(header)]
    for label, rankings in runs:
        for qid, ranking in rankings.items():
            rec: dict[str, Any] = {"task": label} if label is not None else {}
            rec.update({"query_id": qid, "ranking": [{"doc_id": d, "score": float(s)} for d, s in ranking]})
            lines.append(rec)
    return dumps_jsonl(lines).encode("utf-8")


def run_task(task: RankingTask, ranker: Any, *, notes: str | None = None,
             flags: Mapping[str, bool] | None = None) -> tuple[bytes, dict[str, Any]]:
    """``(submission bytes, run statistics)`` of one task."""
    runs: list[tuple[str | None, dict[str, Ranking]]] = []
    systems: list[dict[str, Any]] = []
    seconds = 0.0
    if callable(getattr(ranker, "start_task", None)):
        ranker.start_task()
    for part in task.parts:
        run = ranker.rank(part)
        runs.append((part.label, run.rankings))
        systems.append(run.system)
        seconds += run.seconds
    system = dict(systems[0]) if systems else {}
    if len(systems) > 1 and any(s != systems[0] for s in systems):
        system = {"parts": {p.label: s for p, s in zip(task.parts, systems)}}
    system.update(task.protocol)
    model = ranker.model()
    n_docs = sum(len(p.doc_ids) for p in task.parts)
    text = notes if notes is not None else (f"Run by `lemmata evaluate` (lemmata {_version()}); top "
                                            f"{getattr(ranker, 'depth', DEFAULT_DEPTH)} of {n_docs:,} documents.")
    header = header_of(task, model, system, text, flags)
    return submission_bytes(header, runs), {"seconds": seconds, "documents": n_docs,
                                            "queries": sum(len(p.queries) for p in task.parts)}


def _version() -> str:
    from lemmata import __version__

    return __version__
