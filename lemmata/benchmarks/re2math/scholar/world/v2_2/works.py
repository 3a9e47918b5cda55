"""One work, one record: the same-work rule of world 2.2, the fold that applies it, and the duplicate count.

World 2.1 linked a cited work to an arXiv twin only when both had a year,
and the distractor release it read held a second record under a
float-shortened id for 5,954 works. World 2.2 reads ``math-arxiv-meta-1.1.0``
(ids repaired, twins merged) and makes one record of every group of records
that share an arXiv id, or that :func:`same_work_key` and agreeing authors call
one work, whatever their origin and whether or not they have a year. The same
rule counts what is left (:func:`duplicate_pairs`): the build records the
counts in ``ARTIFACT.json`` and the world's tests require them to be 0.

**The rule (its tolerance).** Two records are one work when they share an
arXiv id, or when their shown titles, folded (case, accents, punctuation,
LaTeX and citation residue removed), are equal and at least
:data:`MIN_TITLE_WORDS` words long, and their shown author surnames agree on
at least half of the shorter list (:func:`authors_agree`: "Banks, Moore" and
"Banks, Moore, Neeman" do; "Chen, Li, Liu" and "Chang, Li, Magnant" do not).
Years are not compared (32% of arXiv records have none, and a journal version
can follow its preprint by years); a title of fewer words, or a record
without authors, is never folded by title.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from lemmata.core.identifiers import normalize_arxiv_id
from lemmata.core.latex_text import words

#: a folded title shorter than this ("Introduction", "Lectures on X") says too little to call two records one work
MIN_TITLE_WORDS = 3
#: which record of a work is kept: a cited work or citing paper, then an arXiv record, then a bibliography record
_RANK = {"work": 0, "arxiv": 1, "bib": 2}


def same_work_key(title: str) -> str | None:
    """The folded title two records of one work share (None: too short to tell).

    >>> same_work_key("On the Navier-Stokes equations"), same_work_key("Introduction")
    ('on the navier stokes equations', None)
    """
    ws = words(title or "")
    return " ".join(ws) if len(ws) >= MIN_TITLE_WORDS else None


def arxiv_identifier(arxiv_id: str | None, doi: str | None) -> str | None:
    """A record's arXiv id when it is one: a valid id (the length of its year-month) not read off the digits of
    the record's own DOI (an arXiv DOI excepted).

    >>> arxiv_identifier("1809.1937", "https://doi.org/10.1111/j.1469-1809.1937.tb02153.x")
    >>> arxiv_identifier("1982.0056", "10.1098/rspa.1982.0056"), arxiv_identifier("1501.0012", None)
    (None, None)
    >>> arxiv_identifier("2504.15837", "10.48550/arxiv.2504.15837"), arxiv_identifier("math/0601001v2", None)
    ('2504.15837', 'math/0601001')
    """
    aid = normalize_arxiv_id(arxiv_id)
    if aid is None:
        return None
    d = (doi or "").lower()
    if aid in d and "10.48550/" not in d:
        return None
    return aid


def authors_agree(a: Sequence[str], b: Sequence[str]) -> bool:
    """Do two shown author lists agree on at least half (rounded up) of the shorter one's surnames?

    >>> authors_agree(["Banks", "Moore"], ["Banks", "Moore", "Neeman"]), authors_agree(["Spisso"], ["Wulf", "Spisso"])
    (True, True)
    >>> authors_agree(["Chen", "Li", "Liu"], ["Chang", "Li", "Magnant"]), authors_agree([], ["Kim"])
    (False, False)
    """
    if not a or not b:
        return False
    return 2 * len(set(a) & set(b)) >= min(len(set(a)), len(set(b)))


def _components(items: Sequence[tuple[str | None, Sequence[str], str | None]]) -> list[list[int]]:
    """Groups (each of two or more, sorted) of the items ``(folded title, authors, arXiv id)`` that the same-work
    rule joins, transitively: the same arXiv id, or the same folded title and agreeing authors."""
    from lemmata.benchmarks.re2math.scholar.works import component_labels

    by_key: dict[str, list[int]] = defaultdict(list)
    by_id: dict[str, int] = {}
    edges: list[tuple[int, int]] = []
    for i, (key, authors, arxiv_id) in enumerate(items):
        if key and authors:
            by_key[key].append(i)
        if arxiv_id:
            edges.append((by_id.setdefault(arxiv_id, i), i))
    for members in by_key.values():
        edges += [(i, j) for n, i in enumerate(members) for j in members[n + 1:]
                  if authors_agree(items[i][1], items[j][1])]
    groups: dict[int, list[int]] = defaultdict(list)
    for i, label in enumerate(component_labels(len(items), edges)):
        groups[label].append(i)
    return sorted(g for g in groups.values() if len(g) > 1)


def duplicate_pairs(records: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Pairs of records that are one work, by kind: the same arXiv id, an id and its zero-padded form (a
    float-shortened id's twin), the same folded title with agreeing authors (:func:`same_work_key`,
    :func:`authors_agree`).

    >>> duplicate_pairs([{"arxiv_id": "1501.0012", "title": "Sharp bounds for maps", "authors": ["Kim"]},
    ...                  {"arxiv_id": "1501.00120", "title": "Sharp bounds for maps.", "authors": ["Kim", "Lee"]},
    ...                  {"arxiv_id": None, "title": "Sharp bounds", "authors": ["Kim"]}])
    {'same_id': 0, 'padded_id': 1, 'same_title_and_author': 1}
    """
    rows = list(records)
    ids: dict[str, int] = defaultdict(int)
    for r in rows:
        if r.get("arxiv_id"):
            ids[r["arxiv_id"]] += 1
    same_id = sum(n * (n - 1) // 2 for n in ids.values())
    padded = sum(1 for a in ids if a + "0" in ids)
    pairs = sum(len(g) * (len(g) - 1) // 2
                for g in _components([(same_work_key(r["title"]), r["authors"], None) for r in rows]))
    return {"same_id": same_id, "padded_id": padded, "same_title_and_author": pairs}


def _origin(entry: Mapping[str, Any]) -> str:
    return "work" if entry["work"] is not None else ("arxiv" if entry["row"] is not None else "bib")


def fold_works(entries: list[dict[str, Any]], works: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """One record per work: each record's arXiv id kept only when it is one (:func:`arxiv_identifier`), then
    each group the same-work rule joins made one record — the first by origin (cited work or citing paper, arXiv
    record, bibliography record), then key. The kept record takes what it lacks from the others (an arXiv
    record's row and abstract, authors, its id, DOI, venue, the earliest year); two works of one group become one work
    (their citations and citing papers together), and a cited work that absorbs an arXiv record is matched to
    it by the rule ``same_work``. Returns the kept entries and ``merged`` (folded key -> kept key).
    """
    for e in entries:
        e["arxiv_id"] = arxiv_identifier(e["arxiv_id"], e["doi"])
    groups = _components([(same_work_key(e["title"]), e["authors"], e["arxiv_id"]) for e in entries])
    merged: dict[str, str] = {}
    gone: set[int] = set()
    for group in groups:
        order = sorted(group, key=lambda i: (_RANK[_origin(entries[i])], entries[i]["key"]))
        keep = entries[order[0]]
        for i in order[1:]:
            other = entries[i]
            for f in ("authors", "arxiv_id", "doi", "venue"):
                keep[f] = keep[f] or other[f]
            years = [y for y in (keep["year"], other["year"]) if y is not None]
            keep["year"] = min(years) if years else None
            if keep["row"] is None and other["row"] is not None:
                keep["row"] = other["row"]
                if keep["work"] is not None and works[keep["work"]].distractor is None:
                    works[keep["work"]].distractor, works[keep["work"]].rule = other["row"], "same_work"
            if other["work"] is not None:  # two records of one cited work or citing paper: one work
                w, o = works[keep["work"]], works.pop(other["work"])
                w.clusters += o.clusters
                w.citing += o.citing
            merged[other["key"]] = keep["key"]
            gone.add(i)
    return [e for i, e in enumerate(entries) if i not in gone], merged
