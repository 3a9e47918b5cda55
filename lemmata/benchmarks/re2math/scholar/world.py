"""The offline scholarly world 2.0: ``re2math-scholar-offline-2.0.0``, a haystack with the needles hidden in it.

Version 1.0.0 of the offline artifact indexed only Re²Math's cited sources and
citing papers, served the reference statements when a source was opened and
labelled every hit ``source`` or ``citing_paper``: a system could tell gold
from non-gold without reading anything. This world fixes all three:

- **Haystack.** The index holds every record of the distractor corpus
  ``math-arxiv-meta-1.0.0`` (345,376 mathematics arXiv records, 1991–2019),
  every cited source and every citing paper of the Re²Math release.
- **One work, one record.** A cited source that *is* a distractor — same
  arXiv id, same publisher DOI, or a conservative title + author match by
  :func:`lemmata.benchmarks.re2math.scholar.matcher.match_sources` — is that record, with the
  arXiv metadata; every arXiv version of a work is one record (ids are
  version-free). An unmatched source becomes a bibliographic record parsed
  from its citation strings (:mod:`lemmata.benchmarks.re2math.scholar.citations`); a citing
  paper outside the corpus becomes a record of its release title and arXiv id.
- **One shape.** Every record is shown through the same fields, built by the
  same code from the same kinds of information: :class:`ScholarHit` (id,
  title, authors as capitalised surnames, at most :data:`MAX_AUTHORS`, year,
  a snippet made of those) in search results, :class:`OpenedRecord` when
  opened. Nothing says where a record came from: ids are positions in a
  (year, title) order, there is no ``kind``, and search results show no
  field that only some origins have (arXiv id, DOI and abstract are known
  for distractors but not for most citation-parsed records, so they appear
  only when a record is opened, as what is genuinely known about it).
- **Opening serves no answers.** An opened record is its bibliographic data
  and abstract where one exists; nothing derived from the release's ``y``
  (reference statements) is stored in the artifact at all.

**Ranking** is 1.0.0's: Lucene BM25 (k1 = 1.5, b = 0.75, bm25s) over the
frozen tokenizer of :mod:`lemmata.benchmarks.re2math.scholar.artifact`, applied to the uniform
text (title and shown authors), each distinct query word counted once, scores
rounded to six decimals, ties broken by record id ascending.

**Years.** A record's year is the earliest it is known to have existed (its
arXiv id's year, the years in its bibliography strings, a citing paper's
``publication_year``). Records are stored ordered by year, unknown years
first, so ``search(query, cutoff)`` scores a *prefix* of the index: records
dated after the cutoff are never scored, unknown years always are.

**Scorer view.** ``identity.jsonl`` (which cited sources and citing papers
each non-distractor record stands for, and how they were matched) and
``attributions.jsonl`` (each instance's cited-source record) are for scoring:
:meth:`ScholarWorld.is_cited_source`, :meth:`ScholarWorld.attribution`; the
search and open APIs never read them. Openings are logged
(:class:`~lemmata.benchmarks.re2math.scholar.artifact.MaterialisationLog`) and
:meth:`ScholarWorld.beir_corpus` exports the searchable records as a BEIR
corpus. ``ARTIFACT.json`` and ``MANIFEST.json`` are verified on every open.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from lemmata.core.errors import InputError, LemmataError
from lemmata.core.hashing import sha256_file, write_json
from lemmata.core.jsonl import iter_jsonl
from lemmata.benchmarks.re2math.papers import paper_key as normalize_paper_key
from lemmata.benchmarks.re2math.scholar.artifact import (
    ARTIFACT_NAME, B, INFO_FILE, INDEX_DIR, K1, METHOD, SCORE_DECIMALS, TOKENIZER, MaterialisationEvent,
    MaterialisationLog, cited_sources, citing_papers, most_common_value, tokenize,
)
from lemmata.benchmarks.re2math.scholar.citations import (
    arxiv_id_year, latex_to_text, normalize_doi, surname,
)
from lemmata.benchmarks.re2math.scholar.matcher import SourceRef, match_sources
from lemmata.benchmarks.re2math.scholar.querycache import DEFAULT_N, Candidate, QuerySettings, SearchResult, now_utc

VERSION = "2.0.0"
BUILDER_VERSION = "1"
SCHEMA = "lemmata.scholarly-artifact/2"
BACKEND = "offline-bm25s-world"
DISTRACTOR_RELEASE = "math-arxiv-meta-1.0.0"
RELEASE_CONFIG, RELEASE_SPLIT = "full", "full"

RECORDS_FILE = "records.parquet"
IDENTITY_FILE = "identity.jsonl"
ATTRIBUTIONS_FILE = "attributions.jsonl"
#: authors shown per record: citation strings often end their lists in "et al.", arXiv metadata never does
MAX_AUTHORS = 4
#: distractor candidates for the title + author rule share at least this many title tokens (fewer: all of them)
MIN_SHARED_TITLE_TOKENS = 3
#: a title token in more distractor titles than this carries no evidence of identity
MAX_TITLE_POSTINGS = 20_000

MatchRule = Literal["arxiv", "doi", "title_author", "none"]


def world_id(version: str = VERSION) -> str:
    return f"{ARTIFACT_NAME}-{version}"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --------------------------------------------------------------------------- what a system sees


class ScholarHit(_Model):
    """One search hit, the same fields for every record whatever its origin."""

    id: str
    rank: int = Field(ge=1)
    score: float
    title: str
    authors: list[str] = Field(description=f"capitalised surnames, at most {MAX_AUTHORS}")
    year: int | None
    snippet: str = Field(description="byline made of the shown authors and year (the same rule for every record)")


class ScholarSearch(_Model):
    """One query's ranked hits (``lemmata artifact search --json`` prints exactly this)."""

    artifact_id: str
    query: str
    cutoff: int | None
    n: int
    hits: list[ScholarHit]


class OpenedRecord(_Model):
    """An opened record: what is genuinely known about the document, never a statement from the release."""

    artifact_id: str
    id: str
    title: str
    authors: list[str]
    year: int | None
    arxiv_id: str | None
    doi: str | None
    abstract: str | None
    text: str = Field(description="the text an agent reads")


def display_authors(surnames: Iterable[str | None]) -> list[str]:
    """Shown author list: distinct capitalised surnames, at most :data:`MAX_AUTHORS`.

    >>> display_authors(["kim", "samworth", "kim", None, "o'connell", "van", "bergh"])
    ['Kim', 'Samworth', "O'connell", 'Van']
    """
    out: list[str] = []
    for s in surnames:
        if s and s[:1].upper() + s[1:] not in out:
            out.append(s[:1].upper() + s[1:])
    return out[:MAX_AUTHORS]


def display_title(title: str) -> str:
    r"""Shown title: LaTeX removed, whitespace collapsed, no trailing punctuation.

    >>> display_title(r"Sharp bounds for $L^p$ norms of \emph{harmonic} maps.")
    'Sharp bounds for L^p norms of harmonic maps'
    """
    return " ".join(latex_to_text(title).split()).strip(" ,.;:")


def snippet(authors: Sequence[str], year: int | None) -> str:
    """The byline every hit shows.

    >>> snippet(["Kim", "Samworth"], 2016), snippet([], None)
    ('Kim, Samworth - 2016', '')
    """
    parts = [", ".join(authors)] if authors else []
    if year is not None:
        parts.append(str(year))
    return " - ".join(parts)


def index_text(title: str, authors: Sequence[str]) -> str:
    """The text a search ranks for one record — its shown title, then its shown authors — as exported for BEIR
    corpora and external rankers (the index itself tokenizes the same two fields)."""
    return title + "\n" + " ".join(authors)


def render_opened(title: str, authors: Sequence[str], year: int | None, arxiv_id: str | None, doi: str | None,
                  abstract: str | None, record_id: str) -> str:
    """The text of an opened record, the same layout for every record."""
    lines = [f"# {title}", "", f"Record: {record_id}"]
    lines += [f"Authors: {', '.join(authors)}"] if authors else []
    lines += [f"Year: {year}"] if year is not None else []
    lines += [f"arXiv: {arxiv_id}"] if arxiv_id else []
    lines += [f"DOI: {doi}"] if doi else []
    if abstract:
        lines += ["", "## Abstract", " ".join(abstract.split())]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- what the scorer sees


class Identity(_Model):
    """What one non-distractor record stands for (scorer's view; never shown by search or open)."""

    record_id: str
    distractor: str | None = Field(description="arXiv id of the distractor record it is, if any")
    rule: MatchRule = Field(description="how the cited source was matched to the distractor ('none': not matched)")
    citations: list[str] = Field(default_factory=list, description="bibliography strings of this work")
    citing_papers: list[str] = Field(default_factory=list, description="paper keys of citing papers it is")


class WorldAttribution(_Model):
    """Which record is an instance's cited source and which is its citing paper."""

    instance_id: str
    paper_key: str
    citing_record_id: str
    year_cutoff: int | None
    record_id: str
    rule: MatchRule
    cited_after_cutoff: bool


class WorldInfo(_Model):
    """``ARTIFACT.json`` of a world: its inputs, composition and build settings."""

    schema_version: Literal["lemmata.scholarly-artifact/2"] = SCHEMA
    id: str
    name: str
    version: str
    release_id: str
    release_manifest_sha256: str
    release_rows: str
    distractor_release_id: str
    distractor_manifest_sha256: str
    builder: str
    builder_version: str
    backend: dict[str, Any]
    tokenizer: dict[str, Any]
    presentation: dict[str, Any]
    year_policy: str
    composition: dict[str, int]


# --------------------------------------------------------------------------- build


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
    """Token -> distractor rows (CSR over a local vocabulary), for title-overlap candidates."""
    import numpy as np

    vocab: dict[str, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    for i, toks in enumerate(title_tokens):
        for t in set(toks):
            cols.append(vocab.setdefault(t, len(vocab)))
            rows.append(i)
    cols_a, rows_a = np.asarray(cols, dtype=np.int64), np.asarray(rows, dtype=np.int64)
    order = np.argsort(cols_a, kind="stable")
    indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
    np.add.at(indptr, cols_a + 1, 1)
    return vocab, np.cumsum(indptr), rows_a[order]


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


def build_world(release: str | Path, distractors: str | Path, out_root: str | Path | None = None, *,
                quiet: bool = True) -> Path:
    """Build ``<out_root>/re2math-scholar-offline-2.0.0/`` from a Re²Math release and the distractor release."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lemmata.core.paths import artifacts_dir
    from lemmata.core.progress import Steps
    from lemmata.core.atomic import atomic_dir
    from lemmata.release.load import open_release
    from lemmata.release.manifest import MANIFEST, write_manifest

    steps = Steps(7, quiet=quiet)
    steps.step(f"reading releases {release} and {distractors}")
    rel, dis = open_release(release), open_release(distractors)
    if not rel.release_id.startswith("re2math-"):
        raise InputError.one(str(release), f"not a Re2Math release ({rel.release_id})", field="release_id")
    if dis.release_id != DISTRACTOR_RELEASE:
        raise InputError.one(str(distractors), f"expected the distractor release {DISTRACTOR_RELEASE}, found "
                                               f"{dis.release_id}", field="release_id")
    rows = rel.rows(RELEASE_CONFIG, RELEASE_SPLIT)
    (shard,) = dis._data_files("default").values()
    table = pq.read_table(dis.root / shard, columns=["arxiv_id", "title", "authors", "year", "doi"]).to_pydict()
    n_dis = len(table["arxiv_id"])

    steps.step(f"tokenizing {n_dis} distractor records")
    titles = [display_title(t) for t in table["title"]]
    authors = [display_authors(surname(a) for a in al) for al in table["authors"]]
    title_tokens = [tokenize(t) for t in titles]
    n_tokens = np.fromiter((len(set(t)) for t in title_tokens), dtype=np.int64, count=n_dis)
    by_arxiv = {a: i for i, a in enumerate(table["arxiv_id"])}
    by_doi: dict[str, int] = {}
    for i, d in enumerate(table["doi"]):
        nd = normalize_doi(d)
        if nd and nd not in by_doi:
            by_doi[nd] = i

    steps.step(f"matching the cited sources of {len(rows)} instances to the distractors")
    by_citation, citations, parsed, groups = cited_sources(rows)
    postings = _title_postings(title_tokens)
    works: dict[str, _Work] = {}
    work_of_citation: dict[tuple[str, str, str], str] = {}
    for g, group in enumerate(groups):
        refs = [SourceRef(title=parsed[i].title, authors=parsed[i].authors, year=parsed[i].year, doi=parsed[i].doi,
                          arxiv_id=parsed[i].arxiv_id, text=parsed[i].text) for i in group]
        tokens = [t for i in group for t in tokenize(display_title(parsed[i].title or ""))]
        row, rule = _match_cluster(refs, tokens, table, by_arxiv, by_doi, postings, n_tokens)
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

    steps.step("assembling records in (year, title) order")
    # every record: (sort key, payload); distractor rows not claimed by a work are records of their own
    claimed = {w.distractor: w.key for w in works.values() if w.distractor is not None}
    entries: list[tuple[tuple, dict[str, Any]]] = []
    for i in range(n_dis):
        if i in claimed:
            continue
        y = table["year"][i]
        entries.append(((1, y, titles[i].lower(), f"arxiv:{table['arxiv_id'][i]}"),
                        {"title": titles[i], "authors": authors[i], "year": y, "arxiv_id": table["arxiv_id"][i],
                         "doi": normalize_doi(table["doi"][i]), "row": i, "work": None}))
    for key, w in sorted(works.items()):
        members = [parsed[i] for g in w.clusters for i in groups[g]]
        years = [p.year for p in members] + [arxiv_id_year(p.arxiv_id) for p in members]
        years += [y for pk in w.citing for y in papers[pk]["years"]]
        if w.distractor is not None:
            i = w.distractor
            title, auth, arxiv, doi = titles[i], authors[i], table["arxiv_id"][i], normalize_doi(table["doi"][i])
            years.append(table["year"][i])
        elif members:
            weight = Counter({i: len(by_citation[citations[i]]) for g in w.clusters for i in groups[g]})
            order = sorted(weight, key=lambda i: (-weight[i], citations[i]))
            title = display_title(most_common_value(parsed[i].title for i in order) or parsed[order[0]].text[:200])
            auth = display_authors(s for i in order for s in parsed[i].authors)
            arxiv = most_common_value(p.arxiv_id for p in members) or (w.citing[0] if w.citing else None)
            doi = most_common_value(p.doi for p in members if p.doi and not p.doi.startswith("10.48550/"))
        else:  # a citing paper outside the corpus: its release title and arXiv id (no author list is released)
            entry = papers[w.citing[0]]
            title = display_title(min(entry["titles"], key=lambda t: (-entry["titles"][t], t)))
            auth, arxiv, doi = [], w.citing[0], None
        known = [y for y in years if y is not None]
        year = min(known) if known else None
        entries.append(((0 if year is None else 1, year or 0, title.lower(), key),
                        {"title": title, "authors": auth, "year": year, "arxiv_id": arxiv, "doi": doi,
                         "row": w.distractor, "work": key}))
    entries.sort(key=lambda e: (e[0][0], e[0][1], e[0][2], e[0][3]))
    width = len(str(len(entries)))
    record_id = {}
    for pos, (_, payload) in enumerate(entries):
        payload["id"] = f"rec-{pos:0{width}d}"
        if payload["work"] is not None:
            record_id[payload["work"]] = payload["id"]

    identities = []
    for key, w in sorted(works.items(), key=lambda kv: record_id[kv[0]]):
        identities.append(Identity(
            record_id=record_id[key], distractor=table["arxiv_id"][w.distractor] if w.distractor is not None else None,
            rule=w.rule, citations=sorted(citations[i][0] for g in w.clusters for i in groups[g]),
            citing_papers=sorted(w.citing)))
    year_of = {p["id"]: p["year"] for _, p in entries}
    rule_of = {record_id[k]: w.rule for k, w in works.items()}
    attributions = []
    for row in rows:
        z = row["z"]
        rid = record_id[work_of_citation[(z["citation_content"], z.get("doi") or "", z.get("arxiv_id") or "")]]
        key = row.get("paper_key") or normalize_paper_key(row["paper"]["paper_id"])
        cutoff, year = row.get("publication_year"), year_of[rid]
        attributions.append(WorldAttribution(
            instance_id=row["instance_id"], paper_key=key, citing_record_id=record_id[f"arxiv:{key}"],
            year_cutoff=cutoff, record_id=rid, rule=rule_of[rid],
            cited_after_cutoff=cutoff is not None and year is not None and year > cutoff))
    attributions.sort(key=lambda a: a.instance_id)

    steps.step(f"indexing {len(entries)} records")
    abstracts = pq.read_table(dis.root / shard, columns=["abstract"])["abstract"]
    rows_taken = pa.array([p["row"] if p["row"] is not None else 0 for _, p in entries], type=pa.int64())
    has_row = pa.array([p["row"] is not None for _, p in entries])
    import pyarrow.compute as pc

    abstract_col = pc.if_else(has_row, pc.take(abstracts, rows_taken), pa.scalar(None, pa.string()))
    records = pa.table({
        "id": pa.array([p["id"] for _, p in entries], pa.string()),
        "title": pa.array([p["title"] for _, p in entries], pa.string()),
        "authors": pa.array([p["authors"] for _, p in entries], pa.list_(pa.string())),
        "year": pa.array([p["year"] for _, p in entries], pa.int16()),
        "arxiv_id": pa.array([p["arxiv_id"] for _, p in entries], pa.string()),
        "doi": pa.array([p["doi"] for _, p in entries], pa.string()),
        "abstract": abstract_col.cast(pa.string()),
    })
    docs = []
    for _, p in entries:
        toks = title_tokens[p["row"]] if p["work"] is None else tokenize(p["title"])
        docs.append(toks + tokenize(" ".join(p["authors"])))

    aid = world_id()
    out_root = Path(out_root) if out_root is not None else artifacts_dir()
    out_root.mkdir(parents=True, exist_ok=True)
    with atomic_dir(out_root / aid) as tmp:
        backend = _write_index(docs, tmp / INDEX_DIR)
        steps.step("writing records, identity, attributions, ARTIFACT.json and MANIFEST.json")
        pq.write_table(records, tmp / RECORDS_FILE, compression="zstd", row_group_size=1 << 16)
        _write_jsonl(tmp / IDENTITY_FILE, identities)
        _write_jsonl(tmp / ATTRIBUTIONS_FILE, attributions)
        rules = Counter(i.rule for i in identities if i.citations)
        info = WorldInfo(
            id=aid, name=ARTIFACT_NAME, version=VERSION, release_id=rel.release_id,
            release_manifest_sha256=sha256_file(Path(release) / MANIFEST),
            release_rows=f"{RELEASE_CONFIG}/{RELEASE_SPLIT}", distractor_release_id=dis.release_id,
            distractor_manifest_sha256=sha256_file(Path(distractors) / MANIFEST),
            builder=f"{__name__}.build_world", builder_version=BUILDER_VERSION, backend=backend, tokenizer=TOKENIZER,
            presentation={"hit_fields": list(ScholarHit.model_fields), "opened_fields": list(OpenedRecord.model_fields),
                          "max_authors": MAX_AUTHORS, "authors": "capitalised surnames (citations.surname)",
                          "snippet": "shown authors ' - ' year", "indexed_text": "shown title and authors",
                          "ids": "rec-<position in (unknown year first, year, lower-cased title, identity) order>"},
            year_policy="a record's year is the earliest of its arXiv id's year, the years in its bibliography "
                        "strings and (citing papers) the release's publication_year; search(query, cutoff) scores "
                        "only records with year <= cutoff or year unknown",
            composition={
                "records": len(entries),
                "distractor_rows": n_dis,
                "distractor_only_records": sum(1 for _, p in entries if p["work"] is None),
                "cited_source_records": sum(1 for i in identities if i.citations),
                "cited_sources_matched_by_arxiv": rules["arxiv"],
                "cited_sources_matched_by_doi": rules["doi"],
                "cited_sources_matched_by_title_author": rules["title_author"],
                "cited_sources_from_citations_only": rules["none"],
                "citing_paper_records": sum(1 for i in identities if i.citing_papers),
                "citing_papers_in_distractors": sum(1 for i in identities if i.citing_papers and i.distractor),
                "citing_papers_also_cited": sum(1 for i in identities if i.citing_papers and i.citations),
                "bibliography_strings": len(citations),
                "instances": len(attributions),
                "records_with_abstract": len(entries) - abstract_col.null_count,
                "records_without_year": sum(1 for _, p in entries if p["year"] is None),
                "instances_cited_after_cutoff": sum(a.cited_after_cutoff for a in attributions),
            },
        )
        write_json(tmp / INFO_FILE, info.model_dump(mode="json"))
        write_manifest(tmp, release_id=aid, name=ARTIFACT_NAME, version=VERSION, builder=info.builder,
                       builder_version=BUILDER_VERSION,
                       sources=[{"name": f"{rel.release_id}/{MANIFEST}", "url": f"lemmata-release:{rel.release_id}",
                                 "sha256": info.release_manifest_sha256},
                                {"name": f"{dis.release_id}/{MANIFEST}", "url": f"lemmata-release:{dis.release_id}",
                                 "sha256": info.distractor_manifest_sha256}])
        steps.step(f"moving artifact into place: {out_root / aid}")
    return out_root / aid


def _write_jsonl(path: Path, models: Iterable[BaseModel]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for m in models:
            fh.write(json.dumps(m.model_dump(mode="json"), ensure_ascii=False, sort_keys=True) + "\n")


def _write_index(docs: list[list[str]], folder: Path) -> dict[str, Any]:
    import bm25s

    vocab = {w: i for i, w in enumerate(sorted({w for d in docs for w in d}))}
    retriever = bm25s.BM25(k1=K1, b=B, method=METHOD)
    retriever.index(([[vocab[w] for w in d] for d in docs], vocab), show_progress=False)
    retriever.save(str(folder), show_progress=False)
    return {"name": BACKEND, "library": "bm25s", "library_version": bm25s.__version__, "k1": K1, "b": B,
            "method": METHOD, "documents": len(docs), "vocabulary": len(vocab), "score_decimals": SCORE_DECIMALS,
            "ties": "record id ascending", "default_n": DEFAULT_N,
            "year_filter": "records stored in year order; a cutoff scores the prefix of records dated <= cutoff"}


# --------------------------------------------------------------------------- open, search, read


class ScholarWorld:
    """An opened (manifest-verified) world: search, open, and the scorer's identity view."""

    backend = BACKEND

    def __init__(self, root: Path, info: WorldInfo) -> None:
        import numpy as np
        import pyarrow.parquet as pq

        self.root = root
        self.info = info
        self.artifact_id = info.id
        cols = pq.read_table(root / RECORDS_FILE, columns=["id", "title", "authors", "year"])
        self._ids = cols["id"].to_pylist()
        self._titles = cols["title"]
        self._authors = cols["authors"]
        years = cols["year"].to_numpy(zero_copy_only=False)
        known = ~np.isnan(years.astype(np.float64)) if years.dtype.kind == "f" else np.ones(len(years), bool)
        self._year = np.where(known, np.nan_to_num(years, nan=-1), -1).astype(np.int64)
        if np.any(np.diff(self._year) < 0):
            raise InputError.one(str(root / RECORDS_FILE), "records are not in year order (unknown years first)",
                                 field="year")
        self._by_id = {rid: i for i, rid in enumerate(self._ids)}
        self.log = MaterialisationLog()

    # -- index -------------------------------------------------------------
    @cached_property
    def _index(self):
        import bm25s
        import numpy as np

        index = bm25s.BM25.load(str(self.root / INDEX_DIR), show_progress=False)
        m = index.scores
        return index.vocab_dict, np.asarray(m["data"]), np.asarray(m["indices"]), np.asarray(m["indptr"])

    def _prefix(self, cutoff: int | None) -> int:
        import numpy as np

        return len(self._year) if cutoff is None else int(np.searchsorted(self._year, cutoff, side="right"))

    def _token_ids(self, query: str) -> list[int]:
        vocab = self._index[0]
        return list(dict.fromkeys(vocab[t] for t in tokenize(query) if t in vocab))

    def _top(self, scores, end: int, n: int) -> list[tuple[int, float]]:
        """Best ``n`` of ``scores[:end]`` as (position, rounded score): score descending, position ascending."""
        import numpy as np

        s = scores[:end]
        hits = np.flatnonzero(s > 0)
        if hits.size == 0:
            return []
        vals = s[hits]
        if hits.size > n:
            kth = np.partition(vals, hits.size - n)[hits.size - n]
            keep = vals >= kth - 10 ** -SCORE_DECIMALS  # anything that may round to the n-th score
            hits, vals = hits[keep], vals[keep]
        rounded = np.round(vals, SCORE_DECIMALS)
        order = np.lexsort((hits, -rounded))[:n]
        return [(int(hits[i]), float(rounded[i])) for i in order]

    def _scores(self, ids: list[int]):
        import numpy as np

        _, data, indices, indptr = self._index
        if not ids:
            return np.zeros(0)
        idx = np.concatenate([indices[indptr[t]:indptr[t + 1]] for t in ids])
        w = np.concatenate([data[indptr[t]:indptr[t + 1]] for t in ids]).astype(np.float64)
        return np.bincount(idx, weights=w, minlength=len(self._ids))

    def _hit(self, pos: int, rank: int, score: float) -> ScholarHit:
        authors = self._authors[pos].as_py()
        year = int(self._year[pos]) if self._year[pos] >= 0 else None
        return ScholarHit(id=self._ids[pos], rank=rank, score=score, title=self._titles[pos].as_py(),
                          authors=authors, year=year, snippet=snippet(authors, year))

    def __len__(self) -> int:
        return len(self._ids)

    def search(self, query: str, cutoff: int | None, n: int = DEFAULT_N) -> ScholarSearch:
        """The ``n`` best records for ``query`` dated no later than ``cutoff`` (unknown years kept)."""
        if n < 1:
            raise InputError.one("n", f"n must be at least 1, got {n}", field="n")
        ids = self._token_ids(query)
        top = self._top(self._scores(ids), self._prefix(cutoff), n) if ids else []
        return ScholarSearch(artifact_id=self.artifact_id, query=query, cutoff=cutoff, n=n,
                             hits=[self._hit(p, r, s) for r, (p, s) in enumerate(top, 1)])

    def search_batch(self, queries: Sequence[tuple[str, int | None, int]]) -> list[ScholarSearch]:
        """Many ``(query, cutoff, n)`` at once, in order; exactly the hits :meth:`search` gives for each.

        Each query scores only the year prefix of its cutoff. A sparse
        query-by-document product over chunks of queries and a thread pool
        were both slower than this loop on this index, so batch search is the
        loop (``benchmarks/artifact_speed.py`` times both entry points). Every
        ``n`` is checked before any query runs.
        """
        for i, (_, _, n) in enumerate(queries):
            if n < 1:
                raise InputError.one("queries", f"n must be at least 1, got {n}", line=i + 1, field="n")
        return [self.search(q, c, n) for q, c, n in queries]

    def search_result(self, query: str, year_cutoff: int | None, n: int = DEFAULT_N, *,
                      instance_id: str | None = None) -> SearchResult:
        """The same search as a query-cache :class:`SearchResult` (for recording and replay); every candidate
        has the one kind ``scholar_result`` and no field beyond the hit's."""
        res = self.search(query, year_cutoff, n)
        cands = [Candidate(id=h.id, rank=h.rank, score=h.score, kind="scholar_result", title=h.title, text=h.snippet,
                           authors=list(h.authors), year=h.year) for h in res.hits]
        return SearchResult(artifact_id=self.artifact_id, query=query, timestamp=now_utc(), candidates=cands,
                            settings=QuerySettings(backend=BACKEND, n=n, year_cutoff=year_cutoff),
                            instance_id=instance_id)

    # -- opening -----------------------------------------------------------
    @cached_property
    def _full(self):
        import pyarrow.parquet as pq

        return pq.read_table(self.root / RECORDS_FILE, columns=["arxiv_id", "doi", "abstract"])

    def position(self, record_id: str) -> int:
        try:
            return self._by_id[record_id]
        except KeyError:
            raise InputError.one(str(self.root), f"no record {record_id!r} in artifact {self.artifact_id}",
                                 field="record_id") from None

    def open(self, record_id: str, *, instance_id: str | None = None,
             log: MaterialisationLog | str | Path | None = None) -> OpenedRecord:
        """Open a record: its bibliographic data and abstract where one exists; the opening is logged.

        ``log``: a :class:`MaterialisationLog`, a JSONL path to append to, or
        None for the world's own in-memory :attr:`log`.
        """
        pos = self.position(record_id)
        rec = self._opened(pos)
        target = log if isinstance(log, MaterialisationLog) else (
            MaterialisationLog(Path(log)) if log is not None else self.log)
        target.append(MaterialisationEvent(artifact_id=self.artifact_id, record_id=record_id,
                                           instance_id=instance_id, at=now_utc()))
        return rec

    def _opened(self, pos: int) -> OpenedRecord:
        full = self._full
        authors = self._authors[pos].as_py()
        year = int(self._year[pos]) if self._year[pos] >= 0 else None
        title = self._titles[pos].as_py()
        arxiv, doi, abstract = (full[c][pos].as_py() for c in ("arxiv_id", "doi", "abstract"))
        return OpenedRecord(artifact_id=self.artifact_id, id=self._ids[pos], title=title, authors=authors, year=year,
                            arxiv_id=arxiv, doi=doi, abstract=abstract,
                            text=render_opened(title, authors, year, arxiv, doi, abstract, self._ids[pos]))

    def iter_opened(self) -> Iterator[OpenedRecord]:
        """Every record as it opens, in id order, without logging (audits and exports)."""
        for pos in range(len(self._ids)):
            yield self._opened(pos)

    # -- scorer's view -----------------------------------------------------
    @cached_property
    def _identities(self) -> dict[str, Identity]:
        return {i.record_id: i for i in (Identity.model_validate(o) for _, o in iter_jsonl(self.root / IDENTITY_FILE))}

    @cached_property
    def _attributions(self) -> dict[str, WorldAttribution]:
        return {a.instance_id: a for a in (WorldAttribution.model_validate(o)
                                            for _, o in iter_jsonl(self.root / ATTRIBUTIONS_FILE))}

    def attribution(self, instance_id: str) -> WorldAttribution:
        try:
            return self._attributions[instance_id]
        except KeyError:
            raise InputError.one(str(self.root), f"no instance {instance_id!r} in artifact {self.artifact_id}",
                                 field="instance_id") from None

    def attributions(self) -> list[WorldAttribution]:
        return list(self._attributions.values())

    def identity(self, record_id: str) -> Identity | None:
        """What a record stands for (None: a distractor only)."""
        self.position(record_id)
        return self._identities.get(record_id)

    def is_cited_source(self, instance_id: str, record_id: str) -> bool:
        """Is ``record_id`` the instance's cited source (one work, one record: identity is record equality)?"""
        self.position(record_id)
        return self.attribution(instance_id).record_id == record_id

    def is_citing_paper(self, instance_id: str, record_id: str) -> bool:
        """Is ``record_id`` the instance's own citing paper (an inadmissible source)?"""
        self.position(record_id)
        return self.attribution(instance_id).citing_record_id == record_id

    def beir_corpus(self) -> Iterator[dict[str, str]]:
        """The searchable records as a BEIR corpus (``_id``, ``title``, ``text`` = the indexed author line)."""
        for pos, rid in enumerate(self._ids):
            yield {"_id": rid, "title": self._titles[pos].as_py(), "text": " ".join(self._authors[pos].as_py())}

    def write_beir_corpus(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            for doc in self.beir_corpus():
                fh.write(json.dumps(doc, ensure_ascii=False) + "\n")
        return path

    def describe(self) -> dict[str, Any]:
        """``lemmata artifact info``: id, record count, composition and build settings."""
        i = self.info
        return {"id": i.id, "schema_version": i.schema_version, "records": len(self), "composition": i.composition,
                "built_from": {"release": i.release_id, "distractors": i.distractor_release_id},
                "backend": i.backend, "tokenizer": {"name": i.tokenizer["name"], "version": i.tokenizer["version"]},
                "presentation": i.presentation, "year_policy": i.year_policy}


def is_world(path: str | Path) -> bool:
    """Does this folder hold a 2.x world (as opposed to a 1.0.0 artifact)?"""
    try:
        return json.loads((Path(path) / INFO_FILE).read_text("utf-8")).get("schema_version") == SCHEMA
    except (OSError, ValueError):
        return False


def open_world(path: str | Path, *, verify: bool = True) -> ScholarWorld:
    """Open a world folder; with ``verify`` (default) every file's sha256 is checked against MANIFEST.json first."""
    from lemmata.release.manifest import read_manifest, verify_manifest

    root = Path(path)
    if not root.is_dir():
        raise InputError.one(str(root), "retrieval artifact folder does not exist; build it with "
                                        "`lemmata artifact build --version 2.0.0`")
    manifest = verify_manifest(root) if verify else read_manifest(root)
    info_path = root / INFO_FILE
    try:
        info = WorldInfo.model_validate(json.loads(info_path.read_text("utf-8")))
    except (OSError, ValueError) as exc:
        raise InputError.one(str(info_path), f"unreadable artifact description: {exc}") from None
    if manifest.release_id != info.id:
        raise InputError.one(str(info_path), f"ARTIFACT.json describes {info.id}, MANIFEST.json {manifest.release_id}",
                             field="id")
    if info.tokenizer != TOKENIZER:
        raise InputError.one(str(info_path), f"artifact was built with tokenizer {info.tokenizer.get('name')} "
                                             f"v{info.tokenizer.get('version')}; this Lemmata ranks with "
                                             f"v{TOKENIZER['version']}: rebuild the artifact", field="tokenizer")
    return ScholarWorld(root, info)


def default_world_path() -> Path:
    from lemmata.core.paths import artifacts_dir

    return artifacts_dir() / world_id()


def default_distractor_path(*, build: bool = True, quiet: bool = True) -> Path:
    """The distractor release (``math-arxiv-meta``), resolved through the registry and built when missing."""
    from lemmata.catalog import release_path
    from lemmata.families import get_benchmark

    return release_path(get_benchmark(DISTRACTOR_RELEASE), build=build, quiet=quiet)


def default_world(*, build: bool = True, quiet: bool = True) -> ScholarWorld:
    """The default 2.0.0 world, building the two releases and the world first when missing."""
    from lemmata.benchmarks.re2math.scholar.artifact import DEFAULT_LOCK, default_release_path

    with DEFAULT_LOCK:
        path = default_world_path()
        if not path.is_dir():
            if not build:
                raise LemmataError(f"retrieval artifact {world_id()} is not built; run "
                                   "`lemmata artifact build --version 2.0.0`")
            build_world(default_release_path(build=True, quiet=quiet), default_distractor_path(quiet=quiet),
                        path.parent, quiet=quiet)
        return open_world(path)


class WorldBackend:
    """A world as a :class:`~lemmata.benchmarks.re2math.scholar.querycache.SearchBackend`, for recording and replay.

    Answers ``search(query, year_cutoff, n)`` with a :class:`SearchResult`
    whose candidates all have the one kind ``scholar_result`` and carry only
    the hit's fields; ``world`` keeps the full API (open, identity).
    """

    def __init__(self, world: ScholarWorld) -> None:
        self.world = world
        self.artifact_id = world.artifact_id
        self.backend = world.backend

    def search(self, query: str, year_cutoff: int | None, n: int = DEFAULT_N, *,
               instance_id: str | None = None) -> SearchResult:
        return self.world.search_result(query, year_cutoff, n, instance_id=instance_id)
