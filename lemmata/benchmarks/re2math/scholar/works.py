"""From bibliography strings to works: the release's distinct citations, clustered so one work is one record.

Every offline scholarly artifact (1.0.0 and the 2.0.0 world) groups the gold
sources this way: citations that share a DOI or an arXiv id, or whose titles
share words and that the identity matcher
(:func:`lemmata.benchmarks.re2math.scholar.matcher.match_sources`) calls the
same work, are one work, transitively — the connected components of that
graph (``scipy.sparse.csgraph.connected_components``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from lemmata.benchmarks.re2math.papers import paper_key as normalize_paper_key
from lemmata.benchmarks.re2math.scholar.citations import ParsedCitation, parse_citation
from lemmata.benchmarks.re2math.scholar.matcher import SourceRef, match_sources
from lemmata.core.latex_text import words

#: a title word shared by more citations than this ("of", "the") carries no evidence of identity
MAX_TITLE_WORD_POSTINGS = 60


def component_labels(n: int, edges: Sequence[tuple[int, int]]) -> list[int]:
    """Component label of each of ``n`` nodes of the undirected graph ``edges``."""
    import numpy as np
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    a = np.fromiter((e[0] for e in edges), dtype=np.int64, count=len(edges))
    b = np.fromiter((e[1] for e in edges), dtype=np.int64, count=len(edges))
    graph = coo_matrix((np.ones(len(edges), dtype=np.int8), (a, b)), shape=(n, n))
    return connected_components(graph, directed=False)[1].tolist()


def cluster_citations(parsed: Sequence[ParsedCitation]) -> list[list[int]]:
    """Groups of indices that the matcher calls one work (transitively), each sorted, in a stable order."""
    refs = [SourceRef(title=p.title, authors=p.authors, year=p.year, doi=p.doi, arxiv_id=p.arxiv_id, text=p.text)
            for p in parsed]
    edges: list[tuple[int, int]] = []
    by_key: dict[str, int] = {}
    for i, p in enumerate(parsed):
        for key in (f"doi:{p.doi}" if p.doi else None, f"arxiv:{p.arxiv_id}" if p.arxiv_id else None):
            if key:
                if key in by_key:
                    edges.append((by_key[key], i))
                else:
                    by_key[key] = i
    # candidate pairs for the title rule: titles sharing three distinct words (all of a shorter title's)
    postings: dict[str, list[int]] = defaultdict(list)
    title_words = [set(words(p.title or "")) for p in parsed]
    for i, ws in enumerate(title_words):
        for w in ws:
            postings[w].append(i)
    shared: Counter[tuple[int, int]] = Counter()
    for members in postings.values():
        if len(members) > MAX_TITLE_WORD_POSTINGS:
            continue
        for a in range(len(members)):
            for b in range(a + 1, len(members)):
                shared[(members[a], members[b])] += 1
    same_identifier = component_labels(len(parsed), edges)  # pairs one identifier joins already need no matching
    for (i, j), count in sorted(shared.items()):
        if count < min(3, len(title_words[i]), len(title_words[j])):
            continue
        if same_identifier[i] != same_identifier[j] and match_sources(refs[i], refs[j]).matched:
            edges.append((i, j))
    groups: dict[int, list[int]] = defaultdict(list)
    for i, label in enumerate(component_labels(len(parsed), edges)):
        groups[label].append(i)
    return sorted(groups.values())


def most_common_value(values: Iterable[str | None]) -> str | None:
    """The most frequent non-empty value, the smallest on ties (None when there is none).

    >>> most_common_value(["b", None, "a", "b", "a", ""]), most_common_value([None])
    ('a', None)
    """
    counts = Counter(v for v in values if v)
    if not counts:
        return None
    return min(counts, key=lambda v: (-counts[v], v))


def cited_sources(rows: Sequence[Mapping[str, Any]]) -> tuple[
        dict[tuple[str, str, str], list[Mapping[str, Any]]], list[tuple[str, str, str]], list[ParsedCitation],
        list[list[int]]]:
    """The release's distinct citations (text, DOI, arXiv id) with their rows, parsed, and clustered into works.

    Every offline artifact groups gold sources this way, so one work is one record in each of them.
    """
    by_citation: dict[tuple[str, str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        z = row["z"]
        by_citation[(z["citation_content"], z.get("doi") or "", z.get("arxiv_id") or "")].append(row)
    citations = sorted(by_citation)
    parsed = [parse_citation(*c) for c in citations]
    groups = cluster_citations(parsed)
    return by_citation, citations, parsed, groups


def citing_papers(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The citing papers by version-free key, with their titles (counted) and the years their rows state."""
    papers: dict[str, dict[str, Any]] = {}
    for row in rows:
        key = row.get("paper_key") or normalize_paper_key(row["paper"]["paper_id"])
        entry = papers.setdefault(key, {"titles": Counter(), "years": []})
        entry["titles"][row["paper"]["title"]] += 1
        entry["years"].append(row.get("publication_year"))
    return papers
