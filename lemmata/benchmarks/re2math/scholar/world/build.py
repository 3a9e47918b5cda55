"""The steps every world's builder shares: read the inputs, match cited sources to the distractors, index.

One work is one record: a cited source that *is* a distractor (same arXiv id,
same publisher DOI, or a conservative title + author match) is that record; an
unmatched source becomes a bibliographic record parsed from its citation
strings; a citing paper outside the corpus becomes a record of its release title
and arXiv id. Each version's builder (:mod:`~lemmata.benchmarks.re2math.scholar.world.v2_0.build`,
:mod:`~lemmata.benchmarks.re2math.scholar.world.v2_1.build`) orders, identifies
and presents the records its own way, and indexes them here with the one BM25
engine over the frozen scholarly tokenizer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from lemmata.core import jsonl
from lemmata.core.errors import InputError
from lemmata.core.identifiers import normalize_doi
from lemmata.retrievers.bm25 import B, K1, METHOD, SCORE_DECIMALS, tokenize_scholar_words, write_index
from lemmata.benchmarks.re2math.papers import paper_key as normalize_paper_key
from lemmata.benchmarks.re2math.scholar.matcher import SourceRef, match_sources
from lemmata.benchmarks.re2math.scholar.querycache import DEFAULT_N
from lemmata.benchmarks.re2math.scholar.layout import ARTIFACT_NAME, INDEX_DIR, INFO_FILE
from lemmata.benchmarks.re2math.scholar.world.info import (
    ATTRIBUTIONS_FILE, BACKEND, DISTRACTOR_RELEASE, IDENTITY_FILE, RECORDS_FILE, RELEASE_CONFIG, RELEASE_SPLIT,
    WorldInfo,
)
from lemmata.benchmarks.re2math.scholar.world.scorer import Identity, MatchRule, WorldAttribution
from lemmata.benchmarks.re2math.scholar.world.view import display_title
from lemmata.benchmarks.re2math.scholar.works import cited_sources, citing_papers, most_common_value

#: distractor candidates for the title + author rule share at least this many title tokens (fewer: all of them)
MIN_SHARED_TITLE_TOKENS = 3
#: a title token in more distractor titles than this carries no evidence of identity
MAX_TITLE_POSTINGS = 20_000


@dataclass
class _Work:
    """A record under construction."""

    key: str
    distractor: int | None = None  # row of the distractor table
    rule: MatchRule = "none"
    clusters: list[int] | None = None
    citing: list[str] | None = None


def _distractor_refs(table: Mapping[str, list], row: int) -> SourceRef:
    return SourceRef.from_fields(title=table["title"][row], authors=table["authors"][row], year=table["year"][row],
                                 doi=table["doi"][row], arxiv_id=table["arxiv_id"][row])


def _title_postings(title_tokens: Sequence[Sequence[str]]):
    """Token -> distractor rows, for title-overlap candidates: a token-by-row ``scipy.sparse`` CSR matrix over a
    local vocabulary (each row's tokens once, rows ascending within a token)."""
    import numpy as np
    from scipy.sparse import csr_matrix

    vocab: dict[str, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    for i, toks in enumerate(title_tokens):
        for t in set(toks):
            cols.append(vocab.setdefault(t, len(vocab)))
            rows.append(i)
    matrix = csr_matrix((np.ones(len(rows), dtype=np.int8), (np.asarray(cols, dtype=np.int64),
                                                              np.asarray(rows, dtype=np.int64))),
                        shape=(len(vocab), len(title_tokens)))
    return vocab, matrix.indptr, matrix.indices


def _match_cluster(refs: Sequence[SourceRef], tokens: Sequence[str], table, by_arxiv, by_doi, postings,
                   n_tokens) -> tuple[int | None, MatchRule]:
    """The distractor row a cluster of citations is, and the rule that decided (first decisive rule wins)."""
    import numpy as np

    for ref in refs:
        if ref.arxiv_id and ref.arxiv_id in by_arxiv:
            return by_arxiv[ref.arxiv_id], "arxiv"
    for ref in refs:
        if ref.doi and not ref.doi.startswith("10.48550/") and ref.doi in by_doi:
            return by_doi[ref.doi], "doi"
    vocab, indptr, rows = postings
    ids = [vocab[t] for t in dict.fromkeys(tokens) if t in vocab]
    ids = [i for i in ids if indptr[i + 1] - indptr[i] <= MAX_TITLE_POSTINGS]
    if not ids:
        return None, "none"
    hits = np.concatenate([rows[indptr[i]:indptr[i + 1]] for i in ids])
    cand, counts = np.unique(hits, return_counts=True)
    need = np.minimum(MIN_SHARED_TITLE_TOKENS, np.minimum(len(set(tokens)), n_tokens[cand]))
    best: tuple[float, str, int] | None = None
    for row in cand[counts >= need].tolist():
        d = _distractor_refs(table, row)
        for ref in refs:
            m = match_sources(ref, d)
            if m.matched and (best is None or (-m.score, table["arxiv_id"][row]) < (-best[0], best[1])):
                best = (m.score, table["arxiv_id"][row], row)
    return (best[2], "title_author") if best else (None, "none")


def open_inputs(release: str | Path, distractors: str | Path, *, distractor_release: str = DISTRACTOR_RELEASE):
    """The opened Re²Math release and distractor release (each checked to be what a world is built from: the
    distractors ``distractor_release``), the release's rows and the distractor table's shard."""
    from lemmata.catalog import open_release_folder as open_release

    rel, dis = open_release(release), open_release(distractors)
    if not rel.release_id.startswith("re2math-"):
        raise InputError.one(str(release), f"not a Re2Math release ({rel.release_id})", field="release_id")
    if dis.release_id != distractor_release:
        raise InputError.one(str(distractors), f"expected the distractor release {distractor_release}, found "
                                               f"{dis.release_id}", field="release_id")
    (shard,) = dis._data_files("default").values()
    return rel, dis, rel.rows(RELEASE_CONFIG, RELEASE_SPLIT), shard


def citing_paper_counts(identities: Sequence[Identity]) -> dict[str, int]:
    """The composition counts of citing-paper records (in ARTIFACT.json order)."""
    return {"citing_paper_records": sum(1 for i in identities if i.citing_papers),
            "citing_papers_in_distractors": sum(1 for i in identities if i.citing_papers and i.distractor),
            "citing_papers_also_cited": sum(1 for i in identities if i.citing_papers and i.citations)}


def distractor_lookups(table: Mapping[str, list]) -> tuple[dict[str, int], dict[str, int]]:
    """Distractor rows by arXiv id and by normalised DOI (the first row of a DOI)."""
    by_arxiv = {a: i for i, a in enumerate(table["arxiv_id"])}
    by_doi: dict[str, int] = {}
    for i, d in enumerate(table["doi"]):
        nd = normalize_doi(d)
        if nd and nd not in by_doi:
            by_doi[nd] = i
    return by_arxiv, by_doi


def match_works(rows, table, by_arxiv, by_doi, title_tokens, n_tokens, twin=None):
    """One work per cited source and citing paper: each cluster of citations matched to a distractor row (first
    decisive rule wins; ``twin(group, parsed)`` -> ``(row, rule)`` is asked when no rule decides), works keyed
    ``arxiv:<id>`` or ``cite:<cluster>``, and each citing paper joined to its work.

    Returns ``(by_citation, citations, parsed, groups, works, work_of_citation, papers)``.
    """
    by_citation, citations, parsed, groups = cited_sources(rows)
    postings = _title_postings(title_tokens)
    works: dict[str, _Work] = {}
    work_of_citation: dict[tuple[str, str, str], str] = {}
    for g, group in enumerate(groups):
        refs = [SourceRef(title=parsed[i].title, authors=parsed[i].authors, year=parsed[i].year, doi=parsed[i].doi,
                          arxiv_id=parsed[i].arxiv_id, text=parsed[i].text) for i in group]
        tokens = [t for i in group for t in tokenize_scholar_words(display_title(parsed[i].title or ""))]
        row, rule = _match_cluster(refs, tokens, table, by_arxiv, by_doi, postings, n_tokens)
        if row is None and twin is not None:
            row, rule = twin(group, parsed)
        arxiv = most_common_value(p.arxiv_id for p in (parsed[i] for i in group))
        key = f"arxiv:{table['arxiv_id'][row]}" if row is not None else (f"arxiv:{arxiv}" if arxiv else f"cite:{g}")
        work = works.setdefault(key, _Work(key=key, distractor=row, rule=rule, clusters=[], citing=[]))
        if row is not None and work.rule == "none":
            work.distractor, work.rule = row, rule
        work.clusters.append(g)
        for i in group:
            work_of_citation[citations[i]] = key

    papers = citing_papers(rows)
    for pkey in papers:
        key = f"arxiv:{pkey}"
        work = works.setdefault(key, _Work(key=key, distractor=by_arxiv.get(pkey),
                                           rule="none", clusters=[], citing=[]))
        if work.distractor is None and pkey in by_arxiv:
            work.distractor = by_arxiv[pkey]
        work.citing.append(pkey)
    return by_citation, citations, parsed, groups, works, work_of_citation, papers


def scorer_view(works: Mapping[str, _Work], record_id: Mapping[str, str], payloads: Sequence[Mapping[str, Any]],
                rows: Sequence[Mapping[str, Any]], table: Mapping[str, list], citations, groups, work_of_citation, *,
                identity: type[Identity] = Identity, attribution: type[WorldAttribution] = WorldAttribution):
    """What the scorer sees: one identity per non-distractor record (in id order) and one attribution per instance
    (in instance order), each cited after its cutoff when its record's year is later."""
    identities = []
    for key, w in sorted(works.items(), key=lambda kv: record_id[kv[0]]):
        identities.append(identity(
            record_id=record_id[key], distractor=table["arxiv_id"][w.distractor] if w.distractor is not None else None,
            rule=w.rule, citations=sorted(citations[i][0] for g in w.clusters for i in groups[g]),
            citing_papers=sorted(w.citing)))
    year_of = {p["id"]: p["year"] for p in payloads}
    rule_of = {record_id[k]: w.rule for k, w in works.items()}
    attributions = []
    for row in rows:
        z = row["z"]
        rid = record_id[work_of_citation[(z["citation_content"], z.get("doi") or "", z.get("arxiv_id") or "")]]
        key = row.get("paper_key") or normalize_paper_key(row["paper"]["paper_id"])
        cutoff, year = row.get("publication_year"), year_of[rid]
        attributions.append(attribution(
            instance_id=row["instance_id"], paper_key=key, citing_record_id=record_id[f"arxiv:{key}"],
            year_cutoff=cutoff, record_id=rid, rule=rule_of[rid],
            cited_after_cutoff=cutoff is not None and year is not None and year > cutoff))
    attributions.sort(key=lambda a: a.instance_id)
    return identities, attributions


def records_table(payloads: Sequence[Mapping[str, Any]], shard: Path, *, venue: bool = False):
    """``records.parquet`` of the records in storage order (a distractor row's abstract taken from ``shard``), and
    its abstract column."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    abstracts = pq.read_table(shard, columns=["abstract"])["abstract"]
    rows_taken = pa.array([p["row"] if p["row"] is not None else 0 for p in payloads], type=pa.int64())
    has_row = pa.array([p["row"] is not None for p in payloads])
    abstract_col = pc.if_else(has_row, pc.take(abstracts, rows_taken), pa.scalar(None, pa.string()))
    columns = {
        "id": pa.array([p["id"] for p in payloads], pa.string()),
        "title": pa.array([p["title"] for p in payloads], pa.string()),
        "authors": pa.array([p["authors"] for p in payloads], pa.list_(pa.string())),
        "year": pa.array([p["year"] for p in payloads], pa.int16()),
    }
    if venue:
        columns["venue"] = pa.array([p["venue"] for p in payloads], pa.string())
    columns["arxiv_id"] = pa.array([p["arxiv_id"] for p in payloads], pa.string())
    columns["doi"] = pa.array([p["doi"] for p in payloads], pa.string())
    columns["abstract"] = abstract_col.cast(pa.string())
    return pa.table(columns), abstract_col


def write_jsonl(path: Path, models: Iterable[BaseModel]) -> None:
    """A world's JSONL file: one model a line, keys sorted (:func:`lemmata.core.jsonl.write_jsonl`)."""
    jsonl.write_jsonl(path, models, sort_keys=True)


def input_fields(rel, dis, release: str | Path, distractors: str | Path) -> dict[str, str]:
    """The ``ARTIFACT.json`` fields every world has for its two input releases (opened by :func:`open_inputs`)."""
    from lemmata.core.hashing import sha256_file
    from lemmata.release.manifest import MANIFEST

    return {"release_id": rel.release_id, "release_manifest_sha256": sha256_file(Path(release) / MANIFEST),
            "release_rows": f"{RELEASE_CONFIG}/{RELEASE_SPLIT}", "distractor_release_id": dis.release_id,
            "distractor_manifest_sha256": sha256_file(Path(distractors) / MANIFEST)}


def write_world(out_root: str | Path | None, world_id: str, docs: list[list[str]], records,
                identities: Sequence[BaseModel], attributions: Sequence[BaseModel], *, ties: str, year_filter: str,
                describe: Callable[[dict[str, Any]], WorldInfo], steps) -> Path:
    """Write a world atomically as ``<out_root>/<world_id>/`` and return that folder: the index of ``docs``, the
    records table, the scorer's view, ``ARTIFACT.json`` (``describe(backend)``: the version's description, given the
    index's ``backend`` block) and MANIFEST.json (its inputs: :meth:`WorldInfo.sources`)."""
    import pyarrow.parquet as pq

    from lemmata.core.atomic import atomic_dir
    from lemmata.core.hashing import write_json
    from lemmata.core.paths import artifacts_dir
    from lemmata.release.manifest import write_manifest

    out_root = Path(out_root) if out_root is not None else artifacts_dir()
    out_root.mkdir(parents=True, exist_ok=True)
    with atomic_dir(out_root / world_id) as tmp:
        backend = write_world_index(docs, tmp / INDEX_DIR, ties=ties, year_filter=year_filter)
        steps.step("writing records, identity, attributions, ARTIFACT.json and MANIFEST.json")
        pq.write_table(records, tmp / RECORDS_FILE, compression="zstd", row_group_size=1 << 16)
        write_jsonl(tmp / IDENTITY_FILE, identities)
        write_jsonl(tmp / ATTRIBUTIONS_FILE, attributions)
        info = describe(backend)
        write_json(tmp / INFO_FILE, info.to_json())
        write_manifest(tmp, release_id=world_id, name=ARTIFACT_NAME, version=info.version, builder=info.builder,
                       builder_version=info.builder_version, sources=info.sources())
        steps.step(f"moving artifact into place: {out_root / world_id}")
    return out_root / world_id


def write_world_index(docs: list[list[str]], folder: Path, *, ties: str, year_filter: str) -> dict[str, Any]:
    """Index ``docs`` with the one BM25 engine and return the ``backend`` block of ``ARTIFACT.json``."""
    index = write_index(docs, folder)
    return {"name": BACKEND, "library": "bm25s", "library_version": index["library_version"], "k1": K1, "b": B,
            "method": METHOD, "documents": index["documents"], "vocabulary": index["vocabulary"],
            "score_decimals": SCORE_DECIMALS, "ties": ties, "default_n": DEFAULT_N, "year_filter": year_filter}
