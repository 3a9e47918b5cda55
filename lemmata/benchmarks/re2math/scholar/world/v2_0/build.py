"""Building world 2.0.0: records in (unknown year first, year, title) order, ids ``rec-<position>``, 2.0.0's hit.

The steps every world shares (reading the releases, matching cited sources to
arXiv records, the scorer's view, the records table, indexing with the one
BM25 engine) are :mod:`~lemmata.benchmarks.re2math.scholar.world.build`'s; what
is 2.0.0's is here: years from arXiv ids and citation strings, the (year,
title) order and the position ids, the 2.0.0 presentation. The build is
byte-reproducible and written atomically.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import fields
from pathlib import Path
from typing import Any

from lemmata.core.identifiers import arxiv_id_year, normalize_doi
from lemmata.retrievers.bm25 import SCHOLAR_WORDS_TOKENIZER, tokenize_scholar_words
from lemmata.benchmarks.re2math.scholar.citations import surname
from lemmata.benchmarks.re2math.scholar.layout import ARTIFACT_NAME
from lemmata.benchmarks.re2math.scholar.works import most_common_value
from lemmata.benchmarks.re2math.scholar.world.build import (
    citing_paper_counts, distractor_lookups, input_fields, match_works, open_inputs, records_table, scorer_view,
    write_world,
)
from lemmata.benchmarks.re2math.scholar.world.v2_0.info import (
    BUILDER_ID, BUILDER_VERSION, VERSION, WORLD_ID, WorldInfo20,
)
from lemmata.benchmarks.re2math.scholar.world.view import (
    MAX_AUTHORS, OpenedRecord, ScholarHit, display_authors, display_title,
)


def build_world(release: str | Path, distractors: str | Path, out_root: str | Path | None = None, *,
                quiet: bool = True) -> Path:
    """Build ``<out_root>/re2math-scholar-offline-2.0.0/`` from a Re²Math release and the distractor release."""
    import numpy as np
    import pyarrow.parquet as pq

    from lemmata.core.progress import Steps

    steps = Steps(7, quiet=quiet)
    steps.step(f"reading releases {release} and {distractors}")
    rel, dis, rows, shard = open_inputs(release, distractors)
    table = pq.read_table(dis.root / shard, columns=["arxiv_id", "title", "authors", "year", "doi"]).to_pydict()
    n_dis = len(table["arxiv_id"])

    steps.step(f"tokenizing {n_dis} distractor records")
    titles = [display_title(t) for t in table["title"]]
    authors = [display_authors(surname(a) for a in al) for al in table["authors"]]
    title_tokens = [tokenize_scholar_words(t) for t in titles]
    n_tokens = np.fromiter((len(set(t)) for t in title_tokens), dtype=np.int64, count=n_dis)
    by_arxiv, by_doi = distractor_lookups(table)

    steps.step(f"matching the cited sources of {len(rows)} instances to the distractors")
    by_citation, citations, parsed, groups, works, work_of_citation, papers = match_works(
        rows, table, by_arxiv, by_doi, title_tokens, n_tokens)

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

    payloads = [p for _, p in entries]
    identities, attributions = scorer_view(works, record_id, payloads, rows, table, citations, groups,
                                           work_of_citation)

    steps.step(f"indexing {len(entries)} records")
    records, abstract_col = records_table(payloads, dis.root / shard)
    docs = []
    for _, p in entries:
        toks = title_tokens[p["row"]] if p["work"] is None else tokenize_scholar_words(p["title"])
        docs.append(toks + tokenize_scholar_words(" ".join(p["authors"])))

    def describe(backend: dict[str, Any]) -> WorldInfo20:
        rules = Counter(i.rule for i in identities if i.citations)
        return WorldInfo20(
            id=WORLD_ID, name=ARTIFACT_NAME, version=VERSION, **input_fields(rel, dis, release, distractors),
            builder=BUILDER_ID, builder_version=BUILDER_VERSION, backend=backend,
            tokenizer=SCHOLAR_WORDS_TOKENIZER,
            presentation={"hit_fields": [f.name for f in fields(ScholarHit)], "opened_fields": list(OpenedRecord.model_fields),
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
                **citing_paper_counts(identities),
                "bibliography_strings": len(citations),
                "instances": len(attributions),
                "records_with_abstract": len(entries) - abstract_col.null_count,
                "records_without_year": sum(1 for _, p in entries if p["year"] is None),
                "instances_cited_after_cutoff": sum(a.cited_after_cutoff for a in attributions),
            },
        )

    return write_world(out_root, WORLD_ID, docs, records, identities, attributions, describe=describe, steps=steps,
                       ties="record id ascending",
                       year_filter="records stored in year order; a cutoff scores the prefix of records "
                                   "dated <= cutoff")
