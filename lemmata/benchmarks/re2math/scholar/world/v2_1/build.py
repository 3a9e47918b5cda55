"""Building world 2.1.0: the shared matching plus same-work twins, the math_bib distractors, one display, opaque ids.

The steps every world's builder shares (reading the releases, matching cited
sources to arXiv records, indexing with the one BM25 engine) are
:mod:`~lemmata.benchmarks.re2math.scholar.world.build`'s; what is 2.1's is
here: years and venues from bibliographic sources only, the twin rule, the
de-duplicated math_bib records, the uniform display of every record, ids from
:mod:`~lemmata.benchmarks.re2math.scholar.record_ids` and storage in (unknown
year first, year, id) order. The build is byte-reproducible. A later world built
by the same pipeline (2.2.0) declares what it changes as a :class:`Variant`;
the defaults build 2.1.0 byte for byte.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from lemmata.core.identifiers import normalize_doi
from lemmata.core.latex_text import latex_to_text, words
from lemmata.retrievers.bm25 import SCHOLAR_WORDS_TOKENIZER as TOKENIZER, tokenize_scholar_words as tokenize
from lemmata.benchmarks.re2math.papers import paper_key as normalize_paper_key
from lemmata.benchmarks.re2math.scholar.citations import MAX_YEAR, MIN_YEAR, parse_year
from lemmata.benchmarks.re2math.scholar.display import (
    DISPLAY_VERSION, MAX_AUTHORS, display_authors, display_name_surnames, display_plain_title, display_title,
)
from lemmata.benchmarks.re2math.scholar.layout import ARTIFACT_NAME
from lemmata.benchmarks.re2math.scholar.math_bib import (
    PARQUET_SHA256 as BIB_SHA256, bibliographic_entry, deduplicate, read_math_bib, title_key,
)
from lemmata.benchmarks.re2math.scholar.record_ids import opaque_ids
from lemmata.benchmarks.re2math.scholar.works import most_common_value
from lemmata.benchmarks.re2math.scholar.world.info import DISTRACTOR_RELEASE
from lemmata.benchmarks.re2math.scholar.world.build import (
    citing_paper_counts, distractor_lookups, input_fields, match_works, open_inputs, records_table, scorer_view,
    write_world,
)
from lemmata.benchmarks.re2math.scholar.world.v2_1.info import (
    BUILDER_ID, BUILDER_VERSION, VERSION, WORLD_ID, WorldInfo21,
)
from lemmata.benchmarks.re2math.scholar.world.v2_1.scorer import Identity21, WorldAttribution21
from lemmata.benchmarks.re2math.scholar.world.v2_1.view import BibliographicRecord, UniformHit

#: a same-work arXiv twin shares a normalised title of at least this many words ...
TWIN_MIN_WORDS = 5
#: ... and a year at most this far apart (a preprint precedes its journal version)
TWIN_MAX_YEARS = 3


def _as_shown(title: str) -> str:
    return title


def _no_fold(entries, works):
    return entries, {}


def _no_counts(entries, merged, identities) -> dict[str, int]:
    return {}


@dataclass(frozen=True)
class Variant:
    """What a later world built by this pipeline changes (the defaults build 2.1.0, byte for byte): its identity
    and records, the distractor release it reads, one rule applied to every shown ``title`` after the display,
    and ``fold(entries, works)`` -> ``(entries, merged)``, which makes one record of each work's records
    (``merged``: record key -> the key of the record it became; ``works`` updated to match)."""

    world_id: str = WORLD_ID
    version: str = VERSION
    builder_id: str = BUILDER_ID
    builder_version: str = BUILDER_VERSION
    info: type = WorldInfo21
    identity: type = Identity21
    attribution: type = WorldAttribution21
    distractor_release: str = DISTRACTOR_RELEASE
    title: Callable[[str], str] = _as_shown
    fold: Callable = _no_fold
    presentation: Mapping[str, str] = field(default_factory=dict)
    composition: Callable[[list, Mapping[str, str], list], dict[str, int]] = _no_counts


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


def _twin(tokens_key: str, years: Sequence[int], by_title: Mapping[str, list[int]], table_year) -> int | None:
    """The one distractor row with the same normalised title and a year within :data:`TWIN_MAX_YEARS` (else None)."""
    if len(tokens_key.split()) < TWIN_MIN_WORDS or tokens_key not in by_title:
        return None
    rows = [r for r in by_title[tokens_key]
            if table_year[r] is not None and any(abs(table_year[r] - y) <= TWIN_MAX_YEARS for y in years)]
    return rows[0] if len(rows) == 1 else None


def build_world(release: str | Path, distractors: str | Path, out_root: str | Path | None = None, *,
                bib: str | Path | None = None, quiet: bool = True) -> Path:
    """Build ``<out_root>/re2math-scholar-offline-2.1.0/`` from a Re²Math release, the distractor release and the
    pinned math_bib table (``bib``: a folder holding it; None: the mirror's ``math_bib/``), verified by sha256."""
    return build_uniform_world(release, distractors, out_root, bib=bib, quiet=quiet)


def build_uniform_world(release: str | Path, distractors: str | Path, out_root: str | Path | None = None, *,
                        bib: str | Path | None = None, quiet: bool = True, variant: Variant = Variant()) -> Path:
    """:func:`build_world` for ``variant`` (the default: 2.1.0)."""
    import numpy as np
    import pyarrow.parquet as pq

    from lemmata.core.progress import Steps
    from lemmata.benchmarks.re2math.scholar.citations import surname
    from lemmata.benchmarks.re2math.scholar.math_bib import math_bib_path

    steps = Steps(8, quiet=quiet)
    steps.step(f"reading releases {release} and {distractors} and the math_bib table")
    rel, dis, rows, shard = open_inputs(release, distractors, distractor_release=variant.distractor_release)
    bib_path = math_bib_path(bib)
    bib_rows = read_math_bib(bib_path)
    table = pq.read_table(dis.root / shard,
                          columns=["arxiv_id", "title", "authors", "year", "created", "doi"]).to_pydict()
    n_dis = len(table["arxiv_id"])

    steps.step(f"rendering {n_dis} distractor records")
    # matching keeps 2.0.0's tokens (the shared display title), whatever 2.1 shows
    from lemmata.benchmarks.re2math.scholar.world.view import display_title as title_2_0

    match_titles = [title_2_0(t) for t in table["title"]]
    titles = [variant.title(display_plain_title(t)) for t in match_titles]
    authors = [display_authors(surname(a) for a in al) for al in table["authors"]]
    years = [created_year(c) for c in table["created"]]
    title_tokens = [tokenize(t) for t in match_titles]
    n_tokens = np.fromiter((len(set(t)) for t in title_tokens), dtype=np.int64, count=n_dis)
    by_arxiv, by_doi = distractor_lookups(table)
    by_title: dict[str, list[int]] = {}
    for i, t in enumerate(match_titles):  # title_key of a title already free of LaTeX: its folded words
        by_title.setdefault(" ".join(words(t)), []).append(i)

    def twin_of(group, parsed):
        """The one same-work arXiv twin of a cluster no 2.0.0 rule matched (the ``title_year`` rule)."""
        cyears = [y for i in group if (y := citation_year(parsed[i].text)) is not None]
        keys = {title_key(parsed[i].title) for i in group if parsed[i].title}
        twins = {r for k in keys if (r := _twin(k, cyears, by_title, years)) is not None}
        return (twins.pop(), "title_year") if len(twins) == 1 else (None, "none")

    steps.step(f"matching the cited sources of {len(rows)} instances to the distractors")
    by_citation, citations, parsed, groups, works, work_of_citation, papers = match_works(
        rows, table, by_arxiv, by_doi, title_tokens, n_tokens, twin=twin_of)
    stated: dict[str, list[int]] = {}
    for r in rows:
        pk = r.get("paper_key") or normalize_paper_key(r["paper"]["paper_id"])
        y = stated_year(r["paper"].get("publication_date"))
        if y is not None:
            stated.setdefault(pk, []).append(y)

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
        entries.append({"key": f"bib:{b.id}", "title": variant.title(display_title(b.title)),
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
            title = variant.title(display_title(raw_title or parsed[order[0]].text[:200]))
            auth = display_authors(s for i in order for s in parsed[i].authors)
            arxiv = most_common_value(p.arxiv_id for p in members) or (w.citing[0] if w.citing else None)
            doi = most_common_value(p.doi for p in members if p.doi and not p.doi.startswith("10.48550/"))
            venue = next((v for i in order if (v := citation_venue(citations[i][0], parsed[i].title))), None)
        else:  # a citing paper outside the corpus: its release title and arXiv id (no author list is released)
            entry = papers[w.citing[0]]
            title = variant.title(display_title(min(entry["titles"], key=lambda t: (-entry["titles"][t], t))))
            auth, arxiv, doi = [], w.citing[0], None
        entries.append({"key": key, "title": title, "authors": auth, "year": min(known) if known else None,
                        "venue": venue, "arxiv_id": arxiv, "doi": doi, "row": w.distractor, "work": key})
    entries, merged = variant.fold(entries, works)
    aid = variant.world_id
    ids = opaque_ids((e["key"] for e in entries), seed=aid)
    for e in entries:
        e["id"] = ids[e["key"]]
    # storage order: unknown years first, then year, then id (the cutoff scores a prefix; ids say nothing)
    entries.sort(key=lambda e: (e["year"] is not None, e["year"] or 0, e["id"]))
    record_id = {e["work"]: e["id"] for e in entries if e["work"] is not None}
    record_id.update({gone: record_id[kept] for gone, kept in merged.items() if kept in record_id})

    identities, attributions = scorer_view(works, record_id, entries, rows, table, citations, groups,
                                           work_of_citation, identity=variant.identity,
                                           attribution=variant.attribution)

    steps.step(f"indexing {len(entries)} records")
    records, abstract_col = records_table(entries, dis.root / shard, venue=True)
    docs = [tokenize(e["title"]) + tokenize(" ".join(e["authors"])) for e in entries]

    def describe(backend: dict[str, Any]) -> WorldInfo21:
        rules = Counter(i.rule for i in identities if i.citations)
        dropped = Counter(dropped_bib.values())
        return variant.info(
            id=aid, name=ARTIFACT_NAME, version=variant.version, **input_fields(rel, dis, release, distractors),
            bibliography={"name": "math_bib", "file": bib_path.name, "sha256": BIB_SHA256, "rows": len(bib_rows),
                          "kept": len(kept_bib), "dropped": dict(sorted(dropped.items()))},
            builder=variant.builder_id, builder_version=variant.builder_version, backend=backend,
            tokenizer=TOKENIZER,
            presentation={
                "hit_fields": [f.name for f in fields(UniformHit)], "opened_fields": list(BibliographicRecord.model_fields),
                "display": f"lemmata.benchmarks.re2math.scholar.display v{DISPLAY_VERSION}",
                "title": "LaTeX to text, Unicode NFC, whitespace and hyphens repaired, sentence case",
                "authors": f"surnames transliterated to ASCII, capitalised, at most {MAX_AUTHORS}",
                "indexed_text": "shown title and authors",
                "not_in_hits": "year, abstract, venue, DOI, arXiv id (their presence differs by origin)",
                "ids": "r + 7 digits: rank in sha256(world id, record key) order (a fixed pseudo-random permutation)",
                **variant.presentation},
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
                **citing_paper_counts(identities),
                "bibliography_strings": len(citations),
                "instances": len(attributions),
                "records_with_abstract": len(entries) - abstract_col.null_count,
                "records_without_year": sum(1 for e in entries if e["year"] is None),
                "instances_cited_after_cutoff": sum(a.cited_after_cutoff for a in attributions),
                **variant.composition(entries, merged, identities),
            },
        )

    return write_world(out_root, aid, docs, records, identities, attributions, describe=describe, steps=steps,
                       ties="record id ascending (ids are opaque)",
                       year_filter="records stored in year order; a cutoff scores the prefix of records "
                                   "dated <= cutoff (undated records included)")
