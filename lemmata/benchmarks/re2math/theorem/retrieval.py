"""The Re²Math theorem-retrieval track: proof states as queries, reference statements as the corpus (BEIR layout).

Re²Math's headline task asks a system to *find* a sufficient theorem in the
literature; whether it can turn a proof need into a retrievable statement is
measured nowhere directly. Every instance carries a curated reference
statement, so a closed-corpus retrieval task falls out of the release itself:

- **corpus** — every ``y.reference_tool_latex`` of the full release, with
  statements that are equal after whitespace normalisation merged into one
  document (``instance_ids`` keeps every instance it came from);
- **queries** — one per instance, the rendered proof state with window
  m = :data:`WINDOW`, in both track variants (``text_raw``, ``text_assisted``);
- **qrels** — each query's single relevant document is its own statement.

Document ids are content hashes of the normalised statement, so they do not
move when a later release adds instances.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lemmata.core.hashing import sha256_bytes
from lemmata.benchmarks.re2math.render import render_instance

WINDOW = 5
VARIANTS: tuple[str, ...] = ("raw", "assisted")
CORPUS_CONFIG = "retrieval_corpus"
QUERIES_CONFIG = "retrieval_queries"
QRELS_CONFIG = "retrieval_qrels"
CONFIGS = (CORPUS_CONFIG, QUERIES_CONFIG, QRELS_CONFIG)
#: the header `benchmark` value of the track's run files
THEOREM_BENCHMARK = "re2math-theorem-retrieval"
#: query splits: test = Eval-200, train/dev = the pool (as configs ``eval200`` and ``pool``)
QUERY_SPLITS: tuple[str, ...] = ("test", "train", "dev")
DOC_PREFIX = "thm-"


def normalize_statement(text: str) -> str:
    """Whitespace-only normalisation (runs of whitespace → one space, ends stripped).

    Nothing else is touched: ``$x$`` and ``\\(x\\)`` stay different documents,
    because deciding that two LaTeX strings state the same theorem is a
    judgement, not a normalisation.

    >>> normalize_statement("  Every  graph\\n has\\tone. ")
    'Every graph has one.'
    """
    return " ".join(text.split())


def statement_id(text: str) -> str:
    """Stable document id of a statement: a hash of its normalised text.

    >>> statement_id("A  B") == statement_id("A B\\n")
    True
    >>> statement_id("A B")
    'thm-fea4c5ce720c1d6a'
    """
    return DOC_PREFIX + sha256_bytes(normalize_statement(text).encode("utf-8"))[:16]


def corpus_rows(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One document per distinct normalised statement, in order of first occurrence."""
    docs: dict[str, dict[str, Any]] = {}
    for row in rows:
        text = normalize_statement(row["y"]["reference_tool_latex"])
        did = statement_id(text)
        doc = docs.get(did)
        if doc is None:
            doc = docs[did] = {"_id": did, "title": "", "text": text, "instance_ids": [],
                               "reference_tool_types": []}
        elif doc["text"] != text:
            raise ValueError(f"statement id collision on {did}")
        doc["instance_ids"].append(row["instance_id"])
        kind = row["y"]["reference_tool_type"]
        if kind not in doc["reference_tool_types"]:
            doc["reference_tool_types"].append(kind)
    return list(docs.values())


def query_row(row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "_id": row["instance_id"],
        "text_raw": render_instance(row, "raw", WINDOW),
        "text_assisted": render_instance(row, "assisted", WINDOW),
        "paper_key": row["paper_key"],
        "domain": row["domain"],
    }


def qrel_row(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"query-id": row["instance_id"], "corpus-id": statement_id(row["y"]["reference_tool_latex"]), "score": 1}


def features() -> dict[str, Any]:
    from datasets import Features, List, Value

    s = Value("string")
    return {
        CORPUS_CONFIG: Features({"_id": s, "title": s, "text": s, "instance_ids": List(s),
                                 "reference_tool_types": List(s)}),
        QUERIES_CONFIG: Features({"_id": s, "text_raw": s, "text_assisted": s, "paper_key": s, "domain": s}),
        QRELS_CONFIG: Features({"query-id": s, "corpus-id": s, "score": Value("int32")}),
    }


@dataclass(frozen=True)
class TrackTables:
    """The track's rows: ``corpus`` plus queries and qrels per split."""

    corpus: list[dict[str, Any]]
    queries: dict[str, list[dict[str, Any]]]
    qrels: dict[str, list[dict[str, Any]]]


def make_track(full: list[Mapping[str, Any]], splits: Mapping[str, list[Mapping[str, Any]]]) -> TrackTables:
    """Corpus from ``full``; queries and qrels for each query split's instance rows.

    Every query's statement is in the corpus by construction; the check is
    kept so that a future change to either side cannot silently break it.
    """
    corpus = corpus_rows(full)
    ids = {d["_id"] for d in corpus}
    queries, qrels = {}, {}
    for split in QUERY_SPLITS:
        rows = list(splits[split])
        qrels[split] = [qrel_row(r) for r in rows]
        missing = [q["query-id"] for q in qrels[split] if q["corpus-id"] not in ids]
        if missing:
            raise ValueError(f"{split}: statements of {missing[:3]} are not in the corpus")
        queries[split] = [query_row(r) for r in rows]
    return TrackTables(corpus=corpus, queries=queries, qrels=qrels)


def card_section(track: TrackTables) -> str:
    """The card's account of how the track is built and what its scores mean."""
    merged = [d for d in track.corpus if len(d["instance_ids"]) > 1]
    n_instances = sum(len(d["instance_ids"]) for d in track.corpus)
    counts = ", ".join(f"{s} {len(track.queries[s])}" for s in QUERY_SPLITS)
    return f"""
## Theorem-retrieval track (`{CORPUS_CONFIG}`, `{QUERIES_CONFIG}`, `{QRELS_CONFIG}`)

A closed-corpus retrieval task in BEIR layout, built from this release alone: given a proof state, rank the
reference statements of all instances so that the one that closes the gap comes first. It measures directly
the step the paper finds models fail at: turning a proof need into a retrievable theorem.

- **Corpus** (`{CORPUS_CONFIG}`, split `corpus`): every `y.reference_tool_latex` of the {n_instances} instances of
  `full`, merged when equal after whitespace normalisation (runs of whitespace become one space; nothing else
  is changed): {len(track.corpus)} documents, {len(merged)} of them shared by more than one instance. Columns `_id`
  (`{DOC_PREFIX}` + the first 16 hex digits of the sha256 of the normalised text, stable across releases),
  `title` (empty), `text` (the normalised statement), `instance_ids` (every instance whose reference it is) and
  `reference_tool_types`.
- **Queries** (`{QUERIES_CONFIG}`): one per instance, `_id` = `instance_id`; `text_raw` and `text_assisted` are
  the Raw and Assisted renderings of `render_instance(row, track, window={WINDOW})` (setup, target theorem, the
  last {WINDOW} local proof blocks, and for Assisted the anchor hint). Splits mirror the instance configs:
  `test` = Eval-200, `train` / `dev` = `pool` ({counts}). Rows of `full` excluded from `pool` have no query but
  their statements stay in the corpus.
- **Qrels** (`{QRELS_CONFIG}`, splits as the queries): `query-id`, `corpus-id`, `score` = 1 — each query's only
  relevant document is its own reference statement; a merged document is relevant to every instance it holds.

Scores are Recall@1/5/10, nDCG@10 and MRR over the test queries, with bootstrap intervals over queries.

**Limits.** A query's own statement is in the corpus by construction, so this is easier than open-literature
search. Conversely, other statements in the corpus that would also close the gap are *not* marked relevant,
so every score is a lower bound on retrieval quality. Statements are compared as LaTeX strings: the same
theorem written differently in two citing papers is two documents. Test queries may retrieve statements that
came from `pool` instances and vice versa; the corpus is shared by design.
"""


def load_track(release_root: str | Path, split: str = "test", variant: str = "raw"):
    """``(doc_ids, doc_texts, {query_id: text}, {query_id: {doc_id: grade}})`` from a built release."""
    from lemmata.catalog import open_release_folder as open_release

    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {VARIANTS}")
    release = open_release(release_root)
    corpus = release.rows(CORPUS_CONFIG, "corpus")
    queries = {q["_id"]: q[f"text_{variant}"] for q in release.rows(QUERIES_CONFIG, split)}
    qrels: dict[str, dict[str, int]] = {}
    for q in release.rows(QRELS_CONFIG, split):
        qrels.setdefault(q["query-id"], {})[q["corpus-id"]] = int(q["score"])
    return [d["_id"] for d in corpus], [d["text"] for d in corpus], queries, qrels
