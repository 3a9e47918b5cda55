"""The offline scholarly world 2.1: ``re2math-scholar-offline-2.1.0``, where no field a hit shows singles out gold.

World 2.0.0 kept the answers out of every opened text, but a system could find
gold by its *form*: every record dated before 1991 or undated was gold (the
distractors were arXiv 1991–2019 only), every record without an arXiv id was
gold, ids were numbered in year order, and titles parsed from citation strings
looked different from arXiv titles. A classifier on what a hit showed
separated gold from random distractors with AUC 0.72–0.78. This world changes
what a system is shown, and what the haystack holds:

- **Haystack.** 2.0.0's records (every ``math-arxiv-meta-1.0.0`` record, every
  cited source, every citing paper; one work, one record) plus the
  journal articles, book chapters and books of
  :mod:`~lemmata.benchmarks.re2math.scholar.math_bib` (read from the mirror by
  sha256), de-duplicated against the arXiv records and the cited sources.
  Cited sources are matched to arXiv records as in 2.0.0, plus one more rule
  for same-work arXiv twins: the same normalised title (at least
  :data:`TWIN_MIN_WORDS` words) and a year no more than :data:`TWIN_MAX_YEARS`
  apart (``title_year``).
- **One display.** A hit shows ``id, rank, score, title, authors`` and
  nothing else: title and authors rendered for every record by
  :mod:`~lemmata.benchmarks.re2math.scholar.display` (LaTeX to text, NFC,
  hyphens repaired, sentence case; surnames transliterated to ASCII). No year,
  no snippet, no field only some origins have (abstract, DOI, arXiv id, venue).
- **Opaque ids** (:mod:`~lemmata.benchmarks.re2math.scholar.record_ids`): ``r`` +
  seven digits, a fixed pseudo-random permutation; ties in a search break by
  id, so storage order says nothing either.
- **The world enforces the cutoff.** Records are stored in year order
  (unknown years first) and ``search(query, cutoff)`` scores only the prefix
  dated no later than the cutoff; a system never needs a year to obey it.
- **Years from bibliographic sources**, never from an identifier's digits: an
  arXiv record's first-version date (``created``), a math_bib record's year,
  the years written in a cited work's bibliography strings (identifiers,
  page ranges and MR numbers ignored), a citing paper's stated publication
  date. A record without one has no year and is scored under every cutoff,
  gold or not.
- **Openings** show the full bibliographic entry — authors, year, venue (a
  math_bib record's journal or book, the venue part of a cited work's
  citation string), arXiv id or DOI — and the abstract where one exists
  (arXiv records only: no other source has abstracts). Nothing derived from
  the release's ``y`` is stored.

The scorer's view (``identity.jsonl``, ``attributions.jsonl``) and everything
else (BM25 settings, tokenizer, manifest verification, logged openings) are
2.0.0's.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from lemmata.core.errors import InputError
from lemmata.core.hashing import sha256_file, write_json
from lemmata.core.identifiers import normalize_doi
from lemmata.core.jsonl import iter_jsonl
from lemmata.core.latex_text import latex_to_text, words
from lemmata.retrievers.bm25 import (
    B, K1, METHOD, SCHOLAR_WORDS_TOKENIZER as TOKENIZER, SCORE_DECIMALS, tokenize_scholar_words as tokenize,
    write_index,
)
from lemmata.benchmarks.re2math.papers import paper_key as normalize_paper_key
from lemmata.benchmarks.re2math.scholar.citations import MAX_YEAR, MIN_YEAR, parse_year
from lemmata.benchmarks.re2math.scholar.display import (
    DISPLAY_VERSION, MAX_AUTHORS, display_authors, display_name_surnames, display_plain_title, display_title,
)
from lemmata.benchmarks.re2math.scholar.layout import ARTIFACT_NAME, INDEX_DIR, INFO_FILE
from lemmata.benchmarks.re2math.scholar.math_bib import (
    PARQUET_SHA256 as BIB_SHA256, bibliographic_entry, deduplicate, read_math_bib, title_key,
)
from lemmata.benchmarks.re2math.scholar.matcher import SourceRef
from lemmata.benchmarks.re2math.scholar.querycache import DEFAULT_N, Candidate, QuerySettings, SearchResult, now_utc
from lemmata.benchmarks.re2math.scholar.record_ids import opaque_ids
from lemmata.benchmarks.re2math.scholar.works import cited_sources, citing_papers, most_common_value
from lemmata.benchmarks.re2math.scholar.world import (
    ATTRIBUTIONS_FILE, BACKEND, DISTRACTOR_RELEASE, IDENTITY_FILE, RECORDS_FILE, RELEASE_CONFIG, RELEASE_SPLIT,
    Identity, ScholarWorld, WorldAttribution,
)
from lemmata.benchmarks.re2math.scholar.world.build import Work, match_cluster, title_postings, write_jsonl

VERSION = "2.1.0"
BUILDER_VERSION = "1"
SCHEMA = "lemmata.scholarly-artifact/2.1"
#: a same-work arXiv twin shares a normalised title of at least this many words ...
TWIN_MIN_WORDS = 5
#: ... and a year at most this far apart (a preprint precedes its journal version)
TWIN_MAX_YEARS = 3


def world_id(version: str = VERSION) -> str:
    return f"{ARTIFACT_NAME}-{version}"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --------------------------------------------------------------------------- what a system sees


class UniformHit(_Model):
    """One search hit: the same five fields for every record, rendered by one display."""

    id: str
    rank: int = Field(ge=1)
    score: float
    title: str = Field(description="display title (LaTeX to text, NFC, hyphens repaired, sentence case)")
    authors: list[str] = Field(description=f"display surnames (ASCII, capitalised), at most {MAX_AUTHORS}")


class UniformSearch(_Model):
    """One query's ranked hits (``lemmata artifact search --json`` prints exactly this)."""

    artifact_id: str
    query: str
    cutoff: int | None
    n: int
    hits: list[UniformHit]


class BibliographicRecord(_Model):
    """An opened record: its full bibliographic entry and the abstract where one exists, never a statement."""

    artifact_id: str
    id: str
    title: str
    authors: list[str]
    year: int | None
    venue: str | None
    arxiv_id: str | None
    doi: str | None
    abstract: str | None
    text: str = Field(description="the text an agent reads")


def render_entry(rid: str, title: str, authors: Sequence[str], year: int | None, venue: str | None,
                 arxiv_id: str | None, doi: str | None, abstract: str | None) -> str:
    """The text of an opened record, one layout for every record.

    >>> print(render_entry("r0000001", "A title", ["Kim"], 1996, "Ann. of Math. 144", None, "10.1/x", None), end="")
    # A title
    <BLANKLINE>
    Record: r0000001
    Authors: Kim
    Year: 1996
    Venue: Ann. of Math. 144
    DOI: 10.1/x
    """
    lines = [f"# {title}", "", f"Record: {rid}"]
    lines += [f"Authors: {', '.join(authors)}"] if authors else []
    lines += [f"Year: {year}"] if year is not None else []
    lines += [f"Venue: {venue}"] if venue else []
    lines += [f"arXiv: {arxiv_id}"] if arxiv_id else []
    lines += [f"DOI: {doi}"] if doi else []
    if abstract:
        lines += ["", "## Abstract", " ".join(abstract.split())]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- years and venues


_STRUCTURED_YEAR = re.compile(r"\(Authors:[^;]*;\s*Year:\s*(\d{4})")
#: arXiv identifiers, also where a dropped LaTeX command (``\arXiv1908.00885``) left them without a prefix
_ARXIV_IDS = re.compile(r"(?:arxiv\s*:?\s*)?(?:(?<![\d.])\d{4}\.\d{4,5}(?:v\d+)?(?![\d])|"
                        r"\b[a-z][a-z\-]+(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?\b)", re.IGNORECASE)


def citation_year(text: str) -> int | None:
    """The publication year a bibliography string states (never digits of an identifier in it).

    >>> citation_year("S. Borodachov, Optimal measures for p-frame energies on spheres, arXiv:1908.04234 (2019)")
    2019
    >>> citation_year("S. Borodachov, Optimal measures for p-frame energies on spheres, arXiv:1908.04234")
    >>> citation_year("Title (Authors: A. Kim; Year: 2004)")
    2004
    >>> citation_year("D. Bilyk et al. Optimal measures for p-frame energies on spheres. preprint. 1908.00885")
    """
    m = _STRUCTURED_YEAR.search(text or "")
    if m and MIN_YEAR <= int(m.group(1)) <= MAX_YEAR:
        return int(m.group(1))
    return parse_year(_ARXIV_IDS.sub(" ", text or ""))


def created_year(created: str | None) -> int | None:
    """The year of an arXiv record's first-version date (None when the mirror did not give it).

    >>> created_year("2007-03-30"), created_year(None), created_year("junk")
    (2007, None, None)
    """
    m = re.match(r"(\d{4})-\d\d", created or "")
    return int(m.group(1)) if m else None


def stated_year(date: str | None) -> int | None:
    """The year of a citing paper's stated publication date (``"Unknown"``: None).

    >>> stated_year("2021-03-04"), stated_year("Unknown"), stated_year(None)
    (2021, None, None)
    """
    m = re.match(r"(\d{4})", date or "")
    return int(m.group(1)) if m and MIN_YEAR <= int(m.group(1)) <= MAX_YEAR else None


_NOISE = re.compile(r"(?:arxiv\s*:?\s*\S+|https?://\S+|doi\s*:?\s*\S+|10\.\d{4,9}/\S+|\b(?:MR|Zbl)\s*:?\s*[\d.]+)",
                    re.IGNORECASE)


def citation_venue(text: str, title: str | None) -> str | None:
    """The venue part of a bibliography string: what follows its title, identifiers and URLs removed.

    >>> citation_venue("A. Kim, Sharp bounds, Ann. of Math. (2) 144 (1996), 189-237. MR1405949", "Sharp bounds")
    'Ann. of Math. (2) 144 (1996), 189-237'
    >>> citation_venue("A. Kim, Sharp bounds, arXiv:1901.00001", "Sharp bounds"), citation_venue("x", None)
    (None, None)
    """
    if not title:
        return None
    plain = latex_to_text(text)
    i = plain.lower().find(title.lower())
    if i < 0:
        return None
    rest = _NOISE.sub(" ", plain[i + len(title):])
    rest = " ".join(rest.split()).strip(" ,.;:\"'”“")
    rest = re.sub(r"^(?:in\s*:?\s*)", "In ", rest, flags=re.IGNORECASE) if rest[:3].lower() == "in " else rest
    return rest[:200].rstrip(" ,.;:") or None if re.search(r"[A-Za-z]{2}", rest) else None


# --------------------------------------------------------------------------- build


MatchRule21 = Literal["arxiv", "doi", "title_author", "title_year", "none"]


class Identity21(Identity):
    """2.0.0's identity record, with the same-work twin rule ``title_year``."""

    rule: MatchRule21 = Field(description="how the cited source was matched to the distractor ('none': not matched)")


class WorldAttribution21(WorldAttribution):
    """2.0.0's attribution record, with the same-work twin rule ``title_year``."""

    rule: MatchRule21


class WorldInfo21(_Model):
    """``ARTIFACT.json`` of a 2.1 world: its inputs, composition and build settings."""

    schema_version: Literal["lemmata.scholarly-artifact/2.1"] = SCHEMA
    id: str
    name: str
    version: str
    release_id: str
    release_manifest_sha256: str
    release_rows: str
    distractor_release_id: str
    distractor_manifest_sha256: str
    bibliography: dict[str, Any]
    builder: str
    builder_version: str
    backend: dict[str, Any]
    tokenizer: dict[str, Any]
    presentation: dict[str, Any]
    year_policy: str
    composition: dict[str, int]


def _twin(tokens_key: str, years: Sequence[int], by_title: Mapping[str, list[int]], table_year) -> int | None:
    """The one distractor row with the same normalised title and a year within :data:`TWIN_MAX_YEARS` (else None)."""
    if len(tokens_key.split()) < TWIN_MIN_WORDS or tokens_key not in by_title:
        return None
    rows = [r for r in by_title[tokens_key]
            if table_year[r] is not None and any(abs(table_year[r] - y) <= TWIN_MAX_YEARS for y in years)]
    return rows[0] if len(rows) == 1 else None


def build_world_21(release: str | Path, distractors: str | Path, out_root: str | Path | None = None, *,
                   bib: str | Path | None = None, quiet: bool = True) -> Path:
    """Build ``<out_root>/re2math-scholar-offline-2.1.0/`` from a Re²Math release, the distractor release and the
    pinned math_bib table (``bib``: a folder holding it; None: the mirror's ``math_bib/``), verified by sha256."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from lemmata.core.atomic import atomic_dir
    from lemmata.core.paths import artifacts_dir
    from lemmata.core.progress import Steps
    from lemmata.catalog import open_release_folder as open_release
    from lemmata.release.manifest import MANIFEST, write_manifest
    from lemmata.benchmarks.re2math.scholar.citations import surname
    from lemmata.benchmarks.re2math.scholar.math_bib import math_bib_path

    steps = Steps(8, quiet=quiet)
    steps.step(f"reading releases {release} and {distractors} and the math_bib table")
    rel, dis = open_release(release), open_release(distractors)
    if not rel.release_id.startswith("re2math-"):
        raise InputError.one(str(release), f"not a Re2Math release ({rel.release_id})", field="release_id")
    if dis.release_id != DISTRACTOR_RELEASE:
        raise InputError.one(str(distractors), f"expected the distractor release {DISTRACTOR_RELEASE}, found "
                                               f"{dis.release_id}", field="release_id")
    bib_path = math_bib_path(bib)
    bib_rows = read_math_bib(bib_path)
    rows = rel.rows(RELEASE_CONFIG, RELEASE_SPLIT)
    (shard,) = dis._data_files("default").values()
    table = pq.read_table(dis.root / shard,
                          columns=["arxiv_id", "title", "authors", "year", "created", "doi"]).to_pydict()
    n_dis = len(table["arxiv_id"])

    steps.step(f"rendering {n_dis} distractor records")
    from lemmata.benchmarks.re2math.scholar.world import display_title as title_2_0  # matching keeps 2.0.0's tokens

    match_titles = [title_2_0(t) for t in table["title"]]
    titles = [display_plain_title(t) for t in match_titles]
    authors = [display_authors(surname(a) for a in al) for al in table["authors"]]
    years = [created_year(c) for c in table["created"]]
    title_tokens = [tokenize(t) for t in match_titles]
    n_tokens = np.fromiter((len(set(t)) for t in title_tokens), dtype=np.int64, count=n_dis)
    by_arxiv = {a: i for i, a in enumerate(table["arxiv_id"])}
    by_doi: dict[str, int] = {}
    for i, d in enumerate(table["doi"]):
        nd = normalize_doi(d)
        if nd and nd not in by_doi:
            by_doi[nd] = i
    by_title: dict[str, list[int]] = {}
    for i, t in enumerate(match_titles):  # title_key of a title already free of LaTeX: its folded words
        by_title.setdefault(" ".join(words(t)), []).append(i)

    steps.step(f"matching the cited sources of {len(rows)} instances to the distractors")
    by_citation, citations, parsed, groups = cited_sources(rows)
    postings = title_postings(title_tokens)
    works: dict[str, Work] = {}
    work_of_citation: dict[tuple[str, str, str], str] = {}
    for g, group in enumerate(groups):
        refs = [SourceRef(title=parsed[i].title, authors=parsed[i].authors, year=parsed[i].year, doi=parsed[i].doi,
                          arxiv_id=parsed[i].arxiv_id, text=parsed[i].text) for i in group]
        tokens = [t for i in group for t in tokenize(title_2_0(parsed[i].title or ""))]
        row, rule = match_cluster(refs, tokens, table, by_arxiv, by_doi, postings, n_tokens)
        if row is None:
            cyears = [y for i in group if (y := citation_year(parsed[i].text)) is not None]
            keys = {title_key(parsed[i].title) for i in group if parsed[i].title}
            twins = {r for k in keys if (r := _twin(k, cyears, by_title, years)) is not None}
            if len(twins) == 1:
                row, rule = twins.pop(), "title_year"
        arxiv = most_common_value(p.arxiv_id for p in (parsed[i] for i in group))
        key = f"arxiv:{table['arxiv_id'][row]}" if row is not None else (f"arxiv:{arxiv}" if arxiv else f"cite:{g}")
        work = works.setdefault(key, Work(key=key, distractor=row, rule=rule, clusters=[], citing=[]))
        if row is not None and work.rule == "none":
            work.distractor, work.rule = row, rule
        work.clusters.append(g)
        for i in group:
            work_of_citation[citations[i]] = key

    papers = citing_papers(rows)
    stated: dict[str, list[int]] = {}
    for r in rows:
        pk = r.get("paper_key") or normalize_paper_key(r["paper"]["paper_id"])
        y = stated_year(r["paper"].get("publication_date"))
        if y is not None:
            stated.setdefault(pk, []).append(y)
    for pkey in papers:
        key = f"arxiv:{pkey}"
        work = works.setdefault(key, Work(key=key, distractor=by_arxiv.get(pkey), rule="none", clusters=[],
                                           citing=[]))
        if work.distractor is None and pkey in by_arxiv:
            work.distractor = by_arxiv[pkey]
        work.citing.append(pkey)

    steps.step("de-duplicating the math_bib records against the arXiv records and the cited sources")
    arxiv_titles: dict[str, list[str]] = {}
    for k, rs in by_title.items():
        arxiv_titles[k] = [a for r in rs for a in authors[r]]
    cited_dois = {p.doi for p in parsed if p.doi}
    kept_bib, dropped_bib = deduplicate(bib_rows, arxiv_ids=by_arxiv, arxiv_dois=by_doi,
                                        arxiv_titles=arxiv_titles, cited_dois=cited_dois,
                                        citation_texts=[c[0] for c in citations])

    steps.step("assembling records")
    claimed = {w.distractor for w in works.values() if w.distractor is not None}
    entries: list[dict[str, Any]] = []
    for i in range(n_dis):
        if i in claimed:
            continue
        entries.append({"key": f"arxiv:{table['arxiv_id'][i]}", "title": titles[i], "authors": authors[i],
                        "year": years[i], "venue": None, "arxiv_id": table["arxiv_id"][i],
                        "doi": normalize_doi(table["doi"][i]), "row": i, "work": None})
    for b in kept_bib:
        entries.append({"key": f"bib:{b.id}", "title": display_title(b.title),
                        "authors": display_name_surnames(b.authors), "year": b.year,
                        "venue": bibliographic_entry(b) or None, "arxiv_id": b.arxiv_id, "doi": b.doi, "row": None,
                        "work": None})
    for key, w in sorted(works.items()):
        members = [parsed[i] for g in w.clusters for i in groups[g]]
        known = [y for p in members if (y := citation_year(p.text)) is not None]
        known += [y for pk in w.citing for y in stated.get(pk, [])]
        venue = None
        if w.distractor is not None:
            i = w.distractor
            title, auth, arxiv, doi = titles[i], authors[i], table["arxiv_id"][i], normalize_doi(table["doi"][i])
            if years[i] is not None:
                known.append(years[i])
        elif members:
            weight = Counter({i: len(by_citation[citations[i]]) for g in w.clusters for i in groups[g]})
            order = sorted(weight, key=lambda i: (-weight[i], citations[i]))
            raw_title = most_common_value(parsed[i].title for i in order)
            title = display_title(raw_title or parsed[order[0]].text[:200])
            auth = display_authors(s for i in order for s in parsed[i].authors)
            arxiv = most_common_value(p.arxiv_id for p in members) or (w.citing[0] if w.citing else None)
            doi = most_common_value(p.doi for p in members if p.doi and not p.doi.startswith("10.48550/"))
            venue = next((v for i in order if (v := citation_venue(citations[i][0], parsed[i].title))), None)
        else:  # a citing paper outside the corpus: its release title and arXiv id (no author list is released)
            entry = papers[w.citing[0]]
            title = display_title(min(entry["titles"], key=lambda t: (-entry["titles"][t], t)))
            auth, arxiv, doi = [], w.citing[0], None
        entries.append({"key": key, "title": title, "authors": auth, "year": min(known) if known else None,
                        "venue": venue, "arxiv_id": arxiv, "doi": doi, "row": w.distractor, "work": key})
    aid = world_id()
    ids = opaque_ids((e["key"] for e in entries), seed=aid)
    for e in entries:
        e["id"] = ids[e["key"]]
    # storage order: unknown years first, then year, then id (the cutoff scores a prefix; ids say nothing)
    entries.sort(key=lambda e: (e["year"] is not None, e["year"] or 0, e["id"]))
    record_id = {e["work"]: e["id"] for e in entries if e["work"] is not None}

    identities = []
    for key, w in sorted(works.items(), key=lambda kv: record_id[kv[0]]):
        identities.append(Identity21(
            record_id=record_id[key], distractor=table["arxiv_id"][w.distractor] if w.distractor is not None else None,
            rule=w.rule, citations=sorted(citations[i][0] for g in w.clusters for i in groups[g]),
            citing_papers=sorted(w.citing)))
    year_of = {e["id"]: e["year"] for e in entries}
    rule_of = {record_id[k]: w.rule for k, w in works.items()}
    attributions = []
    for row in rows:
        z = row["z"]
        rid = record_id[work_of_citation[(z["citation_content"], z.get("doi") or "", z.get("arxiv_id") or "")]]
        key = row.get("paper_key") or normalize_paper_key(row["paper"]["paper_id"])
        cutoff, year = row.get("publication_year"), year_of[rid]
        attributions.append(WorldAttribution21(
            instance_id=row["instance_id"], paper_key=key, citing_record_id=record_id[f"arxiv:{key}"],
            year_cutoff=cutoff, record_id=rid, rule=rule_of[rid],
            cited_after_cutoff=cutoff is not None and year is not None and year > cutoff))
    attributions.sort(key=lambda a: a.instance_id)

    steps.step(f"indexing {len(entries)} records")
    abstracts = pq.read_table(dis.root / shard, columns=["abstract"])["abstract"]
    rows_taken = pa.array([e["row"] if e["row"] is not None else 0 for e in entries], type=pa.int64())
    has_row = pa.array([e["row"] is not None for e in entries])
    abstract_col = pc.if_else(has_row, pc.take(abstracts, rows_taken), pa.scalar(None, pa.string()))
    records = pa.table({
        "id": pa.array([e["id"] for e in entries], pa.string()),
        "title": pa.array([e["title"] for e in entries], pa.string()),
        "authors": pa.array([e["authors"] for e in entries], pa.list_(pa.string())),
        "year": pa.array([e["year"] for e in entries], pa.int16()),
        "venue": pa.array([e["venue"] for e in entries], pa.string()),
        "arxiv_id": pa.array([e["arxiv_id"] for e in entries], pa.string()),
        "doi": pa.array([e["doi"] for e in entries], pa.string()),
        "abstract": abstract_col.cast(pa.string()),
    })
    docs = [tokenize(e["title"]) + tokenize(" ".join(e["authors"])) for e in entries]

    out_root = Path(out_root) if out_root is not None else artifacts_dir()
    out_root.mkdir(parents=True, exist_ok=True)
    with atomic_dir(out_root / aid) as tmp:
        index = write_index(docs, tmp / INDEX_DIR)
        backend = {"name": BACKEND, "library": "bm25s", "library_version": index["library_version"], "k1": K1,
                   "b": B, "method": METHOD, "documents": index["documents"], "vocabulary": index["vocabulary"],
                   "score_decimals": SCORE_DECIMALS, "ties": "record id ascending (ids are opaque)",
                   "default_n": DEFAULT_N, "year_filter": "records stored in year order; a cutoff scores the prefix "
                                                          "of records dated <= cutoff (undated records included)"}
        steps.step("writing records, identity, attributions, ARTIFACT.json and MANIFEST.json")
        pq.write_table(records, tmp / RECORDS_FILE, compression="zstd", row_group_size=1 << 16)
        write_jsonl(tmp / IDENTITY_FILE, identities)
        write_jsonl(tmp / ATTRIBUTIONS_FILE, attributions)
        rules = Counter(i.rule for i in identities if i.citations)
        dropped = Counter(dropped_bib.values())
        info = WorldInfo21(
            id=aid, name=ARTIFACT_NAME, version=VERSION, release_id=rel.release_id,
            release_manifest_sha256=sha256_file(Path(release) / MANIFEST),
            release_rows=f"{RELEASE_CONFIG}/{RELEASE_SPLIT}", distractor_release_id=dis.release_id,
            distractor_manifest_sha256=sha256_file(Path(distractors) / MANIFEST),
            bibliography={"name": "math_bib", "file": bib_path.name, "sha256": BIB_SHA256, "rows": len(bib_rows),
                          "kept": len(kept_bib), "dropped": dict(sorted(dropped.items()))},
            builder=f"{__name__}.build_world_21", builder_version=BUILDER_VERSION, backend=backend,
            tokenizer=TOKENIZER,
            presentation={
                "hit_fields": list(UniformHit.model_fields), "opened_fields": list(BibliographicRecord.model_fields),
                "display": f"lemmata.benchmarks.re2math.scholar.display v{DISPLAY_VERSION}",
                "title": "LaTeX to text, Unicode NFC, whitespace and hyphens repaired, sentence case",
                "authors": f"surnames transliterated to ASCII, capitalised, at most {MAX_AUTHORS}",
                "indexed_text": "shown title and authors",
                "not_in_hits": "year, abstract, venue, DOI, arXiv id (their presence differs by origin)",
                "ids": "r + 7 digits: rank in sha256(world id, record key) order (a fixed pseudo-random permutation)"},
            year_policy="a record's year is the earliest bibliographic year known for it: an arXiv record's "
                        "first-version date, a math_bib record's year, the years written in a cited work's "
                        "bibliography strings, a citing paper's stated publication date; never an identifier's "
                        "digits. search(query, cutoff) scores only records dated <= cutoff or undated (gold or not)",
            composition={
                "records": len(entries),
                "distractor_rows": n_dis,
                "distractor_only_records": sum(1 for e in entries if e["work"] is None and e["row"] is not None),
                "bibliography_records": len(kept_bib),
                "cited_source_records": sum(1 for i in identities if i.citations),
                "cited_sources_matched_by_arxiv": rules["arxiv"],
                "cited_sources_matched_by_doi": rules["doi"],
                "cited_sources_matched_by_title_author": rules["title_author"],
                "cited_sources_matched_by_title_year": rules["title_year"],
                "cited_sources_from_citations_only": rules["none"],
                "citing_paper_records": sum(1 for i in identities if i.citing_papers),
                "citing_papers_in_distractors": sum(1 for i in identities if i.citing_papers and i.distractor),
                "citing_papers_also_cited": sum(1 for i in identities if i.citing_papers and i.citations),
                "bibliography_strings": len(citations),
                "instances": len(attributions),
                "records_with_abstract": len(entries) - abstract_col.null_count,
                "records_without_year": sum(1 for e in entries if e["year"] is None),
                "instances_cited_after_cutoff": sum(a.cited_after_cutoff for a in attributions),
            },
        )
        write_json(tmp / INFO_FILE, info.model_dump(mode="json"))
        write_manifest(tmp, release_id=aid, name=ARTIFACT_NAME, version=VERSION, builder=info.builder,
                       builder_version=BUILDER_VERSION,
                       sources=[{"name": f"{rel.release_id}/{MANIFEST}", "url": f"lemmata-release:{rel.release_id}",
                                 "sha256": info.release_manifest_sha256},
                                {"name": f"{dis.release_id}/{MANIFEST}", "url": f"lemmata-release:{dis.release_id}",
                                 "sha256": info.distractor_manifest_sha256},
                                {"name": f"math_bib/{bib_path.name}", "url": "lemmata-mirror:math_bib",
                                 "sha256": BIB_SHA256}])
        steps.step(f"moving artifact into place: {out_root / aid}")
    return out_root / aid


# --------------------------------------------------------------------------- open, search, read


class UniformWorld(ScholarWorld):
    """An opened 2.1 world: 2.0.0's search and scorer's view, with the uniform hit and the bibliographic opening."""

    def __init__(self, root: Path, info: WorldInfo21) -> None:
        import numpy as np

        super().__init__(root, info)  # type: ignore[arg-type]
        self._id_rank = np.fromiter((int(r[1:]) for r in self._ids), dtype=np.int64, count=len(self._ids))

    def _top(self, scores, end: int, n: int) -> list[tuple[int, float]]:
        """Best ``n`` of ``scores[:end]``: score descending, then *id* ascending (storage order is year order)."""
        import numpy as np

        s = scores[:end]
        hits = np.flatnonzero(s > 0)
        if hits.size == 0:
            return []
        vals = s[hits]
        if hits.size > n:
            kth = np.partition(vals, hits.size - n)[hits.size - n]
            keep = vals >= kth - 10 ** -SCORE_DECIMALS
            hits, vals = hits[keep], vals[keep]
        rounded = np.round(vals, SCORE_DECIMALS)
        order = np.lexsort((self._id_rank[hits], -rounded))[:n]
        return [(int(hits[i]), float(rounded[i])) for i in order]

    def _hit(self, pos: int, rank: int, score: float) -> UniformHit:  # type: ignore[override]
        return UniformHit(id=self._ids[pos], rank=rank, score=score, title=self._titles[pos].as_py(),
                          authors=self._authors[pos].as_py())

    def search(self, query: str, cutoff: int | None, n: int = DEFAULT_N) -> UniformSearch:  # type: ignore[override]
        """The ``n`` best records for ``query`` among those dated no later than ``cutoff`` or undated."""
        if n < 1:
            raise InputError.one("n", f"n must be at least 1, got {n}", field="n")
        index = self._index
        ids = index.term_ids(tokenize(query))
        top = self._top(index.scores(ids), self._prefix(cutoff), n) if ids else []
        return UniformSearch(artifact_id=self.artifact_id, query=query, cutoff=cutoff, n=n,
                             hits=[self._hit(p, r, s) for r, (p, s) in enumerate(top, 1)])

    def search_result(self, query: str, year_cutoff: int | None, n: int = DEFAULT_N, *,
                      instance_id: str | None = None) -> SearchResult:
        res = self.search(query, year_cutoff, n)
        cands = [Candidate(id=h.id, rank=h.rank, score=h.score, kind="scholar_result", title=h.title,
                           text=", ".join(h.authors), authors=list(h.authors), year=None) for h in res.hits]
        return SearchResult(artifact_id=self.artifact_id, query=query, timestamp=now_utc(), candidates=cands,
                            settings=QuerySettings(backend=BACKEND, n=n, year_cutoff=year_cutoff),
                            instance_id=instance_id)

    @property
    def _full(self):  # type: ignore[override]
        if not hasattr(self, "_full_table"):
            import pyarrow.parquet as pq

            self._full_table = pq.read_table(self.root / RECORDS_FILE, columns=["venue", "arxiv_id", "doi",
                                                                                 "abstract"])
        return self._full_table

    def _opened(self, pos: int) -> BibliographicRecord:  # type: ignore[override]
        full = self._full
        authors = self._authors[pos].as_py()
        year = int(self._year[pos]) if self._year[pos] >= 0 else None
        title = self._titles[pos].as_py()
        venue, arxiv, doi, abstract = (full[c][pos].as_py() for c in ("venue", "arxiv_id", "doi", "abstract"))
        return BibliographicRecord(
            artifact_id=self.artifact_id, id=self._ids[pos], title=title, authors=authors, year=year, venue=venue,
            arxiv_id=arxiv, doi=doi, abstract=abstract,
            text=render_entry(self._ids[pos], title, authors, year, venue, arxiv, doi, abstract))

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "bibliography": self.info.bibliography}  # type: ignore[attr-defined]

    @cached_property
    def _identities(self) -> dict[str, Identity21]:  # type: ignore[override]
        return {i.record_id: i for i in (Identity21.model_validate(o)
                                         for _, o in iter_jsonl(self.root / IDENTITY_FILE))}

    @cached_property
    def _attributions(self) -> dict[str, WorldAttribution21]:  # type: ignore[override]
        return {a.instance_id: a for a in (WorldAttribution21.model_validate(o)
                                            for _, o in iter_jsonl(self.root / ATTRIBUTIONS_FILE))}


def is_world_21(path: str | Path) -> bool:
    """Does this folder hold a 2.1 world?"""
    import json

    try:
        return json.loads((Path(path) / INFO_FILE).read_text("utf-8")).get("schema_version") == SCHEMA
    except (OSError, ValueError):
        return False


def open_world_21(path: str | Path, *, verify: bool = True) -> UniformWorld:
    """Open a 2.1 world folder; with ``verify`` (default) every file's sha256 is checked against MANIFEST.json."""
    import json

    from lemmata.release.manifest import read_manifest, verify_manifest

    root = Path(path)
    if not root.is_dir():
        raise InputError.one(str(root), "retrieval artifact folder does not exist; build it with "
                                        f"`lemmata artifact build --version {VERSION}`")
    manifest = verify_manifest(root) if verify else read_manifest(root)
    info_path = root / INFO_FILE
    try:
        info = WorldInfo21.model_validate(json.loads(info_path.read_text("utf-8")))
    except (OSError, ValueError) as exc:
        raise InputError.one(str(info_path), f"unreadable artifact description: {exc}") from None
    if manifest.release_id != info.id:
        raise InputError.one(str(info_path), f"ARTIFACT.json describes {info.id}, MANIFEST.json {manifest.release_id}",
                             field="id")
    if info.tokenizer != TOKENIZER:
        raise InputError.one(str(info_path), f"artifact was built with tokenizer {info.tokenizer.get('name')} "
                                             f"v{info.tokenizer.get('version')}; this Lemmata ranks with "
                                             f"v{TOKENIZER['version']}: rebuild the artifact", field="tokenizer")
    return UniformWorld(root, info)
