"""Build the MathNet-Retrieve release from a pinned snapshot of ``ShadenA/MathNet-Retrieve``.

Upstream repeats one corpus and one query set under each tier; the release
stores them once (``corpus``, ``queries``) after checking that the tiers agree,
and keeps each tier's judgements as a split of ``qrels``.
"""

from __future__ import annotations

from pathlib import Path

from lemmata.formats.beir import (
    Collection, check_collection, corpus_features, qrels_features, queries_features, read_corpus, read_qrels,
    read_queries,
)
from lemmata.benchmarks.mathnet.meta import HUB_REPO, MATHNET_RETRIEVE, RECALL_KS, TIERS
from lemmata.core.errors import InputError, Problem
from lemmata.core.hashing import sha256_file
from lemmata.release.builder import SplitTable
from lemmata.release.card_check import CardLayout, ConfigLayout
from lemmata.release.hub import UsedFiles, data_files
from lemmata.release.hub_builder import HubReleaseBuilder

PIN = MATHNET_RETRIEVE.hub[0]
ALLOW_PATTERNS = ("README.md",) + tuple(
    f"{tier}/{name}" for tier in TIERS for name in ("corpus.jsonl", "queries.jsonl", "qrels/test.jsonl",
                                                    "qrels/test.tsv")
)


def load_tier(root: Path, tier: str, used: UsedFiles) -> tuple[Path, Path, Collection]:
    """One tier as the card declares it (splits ``corpus``, ``queries``, ``qrels``), checked for consistency.

    When the snapshot also carries the TSV twin of the qrels, both must hold the same judgements.
    """
    corpus_files = data_files(root, tier, "corpus").paths
    query_files = data_files(root, tier, "queries").paths
    qrels_files = data_files(root, tier, "qrels").paths
    rel = lambda p: p.relative_to(root).as_posix()  # noqa: E731
    corpus = read_corpus(corpus_files, label=rel(corpus_files[0]) if len(corpus_files) == 1 else None)
    queries = read_queries(query_files, label=rel(query_files[0]) if len(query_files) == 1 else None)
    qrels_label = rel(qrels_files[0])
    qrels = read_qrels(qrels_files, label=qrels_label if len(qrels_files) == 1 else None)
    used.add(PIN, root, [*corpus_files, *query_files, *qrels_files])
    tsv = root / tier / "qrels" / "test.tsv"
    if tsv.is_file() and tsv not in qrels_files:
        twin = read_qrels(tsv, label=rel(tsv))
        used.add(PIN, root, [tsv])
        a = {(q.query_id, q.doc_id, q.score) for q in qrels}
        b = {(q.query_id, q.doc_id, q.score) for q in twin}
        if a != b:
            only = sorted(b - a) or sorted(a - b)
            raise InputError.one(rel(tsv), f"holds different judgements than {qrels_label} "
                                           f"({len(b - a)} only here, {len(a - b)} only there; e.g. {only[0]})")
    collection = check_collection(corpus, queries, qrels, qrels_label=qrels_label)
    problems = []
    for q in qrels:
        if q.score <= 0:
            problems.append(Problem(q.file or qrels_label, "upstream states positives only; found score "
                                                           f"{q.score}", q.line, "score"))
    positives: dict[str, int] = {}
    for q in qrels:
        positives[q.query_id] = positives.get(q.query_id, 0) + (q.score > 0)
    for qid, n in positives.items():
        if n != 1:
            problems.append(Problem(qrels_label, f"query {qid!r} has {n} positives; upstream states exactly one",
                                    field="corpus-id"))
    if problems:
        raise InputError(problems)
    return corpus_files[0], query_files[0], collection


class MathNetRetrieveBuilder(HubReleaseBuilder):
    builder_id = "lemmata.builders.mathnet.MathNetRetrieveBuilder"
    meta = MATHNET_RETRIEVE
    builder_version = "1.0"
    allow_patterns = ALLOW_PATTERNS

    def features(self):
        return {"corpus": corpus_features(with_title=False), "queries": queries_features(), "qrels": qrels_features()}

    def card_layouts(self) -> dict[str, tuple[CardLayout, ...]]:
        """One config per tier with splits ``corpus``, ``queries``, ``qrels``. A config's ``dataset_info`` has one
        feature list, which cannot describe three splits of different columns, so columns are not compared."""
        return {HUB_REPO: (CardLayout(name="BEIR per tier", configs=tuple(
            ConfigLayout(name=tier, splits=("corpus", "queries", "qrels"), other_splits=True) for tier in TIERS)),)}

    def make_tables(self, sources: dict[str, Path]) -> list[SplitTable]:
        root = self.checked_root(sources, HUB_REPO)
        tiers: dict[str, Collection] = {}
        first: tuple[str, Path, Path] | None = None
        for tier in TIERS:
            corpus_file, query_file, coll = load_tier(root, tier, self.used)
            if first is None:
                first = (tier, corpus_file, query_file)
            else:
                _same_as_first(root, first[0], tier, "corpus", first[1], corpus_file,
                               coll.corpus, tiers[first[0]].corpus)
                _same_as_first(root, first[0], tier, "queries", first[2], query_file,
                               coll.queries, tiers[first[0]].queries)
            tiers[tier] = coll
        base = tiers[TIERS[0]]
        self.stats = {
            "documents": len(base.corpus),
            "queries": len(base.queries),
            "judged": {t: len(c.judged_queries) for t, c in tiers.items()},
        }
        tables = [
            SplitTable("qrels", tier, [
                {"query-id": qid, "corpus-id": did, "score": score}
                for qid in coll.queries for did, score in coll.qrels.get(qid, {}).items()
            ])
            for tier, coll in tiers.items()
        ]
        tables.append(SplitTable("queries", "queries", [{"_id": q, "text": t} for q, t in base.queries.items()]))
        tables.append(SplitTable("corpus", "corpus", [{"_id": d.doc_id, "text": d.text} for d in base.corpus.values()]))
        return tables

    def card_body(self, tables: list[SplitTable]) -> str:
        s = self.stats
        judged = ", ".join(f"{t} {n:,}" for t, n in s["judged"].items())
        ks = ", ".join(str(k) for k in RECALL_KS)
        return f"""
## Layout

Upstream ships the BEIR layout once per tier (`<tier>/corpus.jsonl`, `<tier>/queries.jsonl`, `<tier>/qrels/test.jsonl`); the three tiers share one corpus and one query set and differ only in which reformulation is the positive. This release checks that the tiers' corpus and queries are identical and stores them once:

| config | split | columns |
|---|---|---|
| `corpus` | `corpus` | `_id`, `text` — {s['documents']:,} documents |
| `queries` | `queries` | `_id`, `text` — {s['queries']:,} queries |
| `qrels` | `easy`, `medium`, `hard` | `query-id`, `corpus-id`, `score` (int, 1 = the equivalent reformulation) |

Queries with a positive per tier: {judged}. Every query has exactly one positive per tier (checked).

## Scoring

A run gives, for each query, up to 1,000 documents with scores. Documents are ranked by score (descending), ties broken by document id (ascending). Recall@k (k = {ks}) is the share of queries whose positive is among the top k; with one positive per query it equals the hit rate the paper reports. Recall@5 is the headline. Scores are per tier; a run may cover one tier or all three.

## Limitations

- The equivalents and near-misses were written by an LLM and kept when two LLM judges agreed; a subset was reviewed by people.
- The paper's Table 5 reports Recall@1/@5 by mathematical domain on the paper's retrieval set, not on these tiers; reported rows are shown as reported and are not comparable to scores on this release.
"""


def _same_as_first(root: Path, first_tier: str, tier: str, what: str, first_file: Path, file: Path,
                   content, first_content) -> None:
    if sha256_file(first_file) == sha256_file(file) or content == first_content:
        return
    rel = file.relative_to(root).as_posix()
    ids = list(content)
    first_ids = list(first_content)
    for i, (a, b) in enumerate(zip(ids, first_ids), start=1):
        if a != b or content[a] != first_content[b]:
            raise InputError.one(rel, f"differs from tier {first_tier!r} at record {i} (id {a!r}); the tiers must "
                                      f"share one {what}")
    raise InputError.one(rel, f"has {len(ids)} records, tier {first_tier!r} has {len(first_ids)}; the tiers must "
                              f"share one {what}")
