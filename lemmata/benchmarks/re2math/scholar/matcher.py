"""Source identity: is a retrieved candidate the same work as a cited source, or the citing paper itself?

Used for CiteRecall@N (does a candidate match the instance's cited source
``z``?), the oracle subset, deduplication of the offline artifact, and the
citing-paper exclusion. Rules are tried in order and the first that decides
wins; the :class:`Match` names it:

1. ``doi`` — equal normalised DOIs. Two *different* publisher DOIs mean two
   works (no further rule is tried); arXiv DOIs (``10.48550/arXiv.…``) are read
   as arXiv ids instead, since a preprint and its journal version differ there.
2. ``arxiv`` — equal version-free arXiv ids (old and new style); different ids
   mean different works.
3. ``citation`` — the same bibliography string (after LaTeX removal and case /
   accent folding), e.g. a record of the offline artifact built from that string.
4. ``title_author`` — titles agree (token-set similarity ≥ :data:`TITLE_THRESHOLD`,
   or the shorter title of ≥ :data:`MIN_PREFIX_TOKENS` words opens the longer
   one and is not followed by a part number such as ``II``), **and** at least
   one author surname is shared, **and** the years, when both are known, differ
   by at most :data:`YEAR_TOLERANCE` (a preprint and its journal version) —
   except for word-for-word equal titles of :data:`MIN_EDITION_TITLE_WORDS` or
   more words (editions and reprints of one book).
   When one side has no parsed title, its full bibliographic text must contain
   the other title word for word.

Thresholds are deliberately conservative: a false match would credit a system
with finding a source it did not find; a missed match only lowers a diagnostic.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any, Literal

from pydantic import model_validator

from lemmata.benchmarks.re2math.scholar.citations import (
    normalize_arxiv_id,
    normalize_doi,
    parse_citation,
    surname,
)
from lemmata.core.latex_text import words as _words
from lemmata.core.models import Frozen
from lemmata.benchmarks.re2math.scholar.querycache import Candidate


@lru_cache(maxsize=1 << 16)
def words(text: str) -> tuple[str, ...]:
    """Folded words of ``text`` (cached: the same titles are compared many times)."""
    return tuple(_words(text))

__all__ = [
    "MIN_PREFIX_TOKENS",
    "TITLE_THRESHOLD",
    "YEAR_TOLERANCE",
    "Match",
    "SourceRef",
    "is_citing_paper",
    "match_candidate",
    "match_sources",
    "normalize_arxiv_id",
    "normalize_doi",
    "title_similarity",
]

#: token-set similarity (shared distinct words / words of the longer title) for titles to agree
TITLE_THRESHOLD = 0.85
#: a title that opens a longer one agrees with it only from this many words on
MIN_PREFIX_TOKENS = 4
#: largest year difference that does not contradict (preprint → journal lag) ...
YEAR_TOLERANCE = 4
#: ... unless the titles are equal word for word and this long (editions and reprints of one book)
MIN_EDITION_TITLE_WORDS = 3

Rule = Literal["doi", "arxiv", "citation", "title_author", "title"]
_PART_WORDS = {"i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii", "part", "partie", "teil",
               "volume", "vol", "chapter", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}
_ARXIV_DOI_PREFIX = "10.48550/arxiv."


class Match(Frozen):
    """The verdict and the rule that decided it (``rule`` is None when no rule matched)."""

    matched: bool
    rule: Rule | None = None
    score: float = 0.0
    reason: str = ""

    def __bool__(self) -> bool:
        return self.matched


class SourceRef(Frozen):
    """What is known of one work's identity; every field may be missing."""

    title: str | None = None
    authors: tuple[str, ...] = ()
    year: int | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    text: str = ""

    @model_validator(mode="before")
    @classmethod
    def _normalise_ids(cls, data: Any) -> Any:
        """Identifiers are stored normalised (an arXiv DOI also yields the arXiv id), whoever builds the ref."""
        if isinstance(data, dict):
            data = dict(data)
            doi = normalize_doi(data.get("doi"))
            data["doi"] = doi
            data["arxiv_id"] = normalize_arxiv_id(data.get("arxiv_id")) or (
                normalize_arxiv_id(doi) if _is_arxiv_doi(doi) else None)
        return data

    @classmethod
    def from_citation(cls, citation: str, doi: str | None = "", arxiv_id: str | None = "") -> "SourceRef":
        p = parse_citation(citation or "", doi or "", arxiv_id or "")
        return cls(title=p.title, authors=p.authors, year=p.year, doi=p.doi, arxiv_id=p.arxiv_id, text=p.text)

    @classmethod
    def from_z(cls, z: Mapping[str, Any]) -> "SourceRef":
        """From a release row's ``z`` (cited source) record."""
        return cls.from_citation(z.get("citation_content") or "", z.get("doi") or "", z.get("arxiv_id") or "")

    @classmethod
    def from_fields(cls, *, title: str | None = None, authors: Iterable[str] = (), year: int | None = None,
                    doi: str | None = None, arxiv_id: str | None = None, text: str = "") -> "SourceRef":
        """From structured metadata (a search result): identifiers normalised, author names reduced to surnames."""
        surnames = tuple(dict.fromkeys(s for s in (surname(a) for a in authors) if s))
        return cls(title=title or None, authors=surnames, year=year, doi=doi, arxiv_id=arxiv_id, text=text)


#: what the matcher compares: a search hit, an already built reference, or a release row's ``z`` mapping
Comparable = Candidate | SourceRef | Mapping[str, Any]


def _refs_of(obj: Comparable) -> list[SourceRef]:
    """A SourceRef, a release ``z`` mapping, or a candidate (its metadata plus each bibliographic variant)."""
    if isinstance(obj, SourceRef):
        return [obj]
    if isinstance(obj, Mapping):
        return [SourceRef.from_z(obj)]
    if not isinstance(obj, Candidate):
        raise TypeError(f"cannot compare a {type(obj).__name__}: expected a Candidate, a SourceRef or a z mapping")
    refs = [SourceRef.from_fields(title=obj.title, authors=obj.authors, year=obj.year, doi=obj.doi,
                                  arxiv_id=obj.arxiv_id, text=obj.text)]
    refs += [SourceRef.from_citation(variant) for variant in obj.variants]
    return refs


def title_similarity(a: str | None, b: str | None) -> float:
    """Shared distinct words over the distinct words of the longer title (0 when either is empty).

    >>> title_similarity("Train tracks and automorphisms of free groups", "Train-tracks and automorphisms of free groups.")
    1.0
    >>> round(title_similarity("Higher composition laws III", "Higher composition laws IV"), 2)
    0.75
    """
    ta, tb = set(words(a or "")), set(words(b or ""))
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / max(len(ta), len(tb))


def _opens(short: list[str], long: list[str]) -> bool:
    """``short`` is the first words of ``long`` and what follows is not a part number."""
    if len(short) < MIN_PREFIX_TOKENS or len(short) >= len(long) or tuple(long[: len(short)]) != tuple(short):
        return False
    return long[len(short)] not in _PART_WORDS


def _contains(text_words: list[str], title_words: list[str]) -> bool:
    n = len(title_words)
    if n < MIN_PREFIX_TOKENS:
        return False
    return any(tuple(text_words[i : i + n]) == tuple(title_words) for i in range(len(text_words) - n + 1))


def _titles_agree(a: SourceRef, b: SourceRef) -> tuple[bool, float, str]:
    if a.title and b.title:
        sim = title_similarity(a.title, b.title)
        if sim >= TITLE_THRESHOLD:
            return True, sim, f"title similarity {sim:.2f}"
        wa, wb = words(a.title), words(b.title)
        short, long = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
        if _opens(short, long):
            return True, len(short) / len(long), f"title of {len(short)} words opens the other"
        return False, sim, f"title similarity {sim:.2f} < {TITLE_THRESHOLD}"
    titled, other = (a, b) if a.title else (b, a)
    if titled.title and other.text:
        if _contains(words(other.text), words(titled.title)):
            return True, 1.0, "title found word for word in the bibliographic text"
        return False, 0.0, "title not found in the bibliographic text"
    return False, 0.0, "no title to compare"


def _shared_authors(a: SourceRef, b: SourceRef) -> list[str]:
    shared = [s for s in a.authors if s in set(b.authors)]
    if shared:
        return shared
    # a side without a parsed author list: look for the other side's surnames in its text
    for x, y in ((a, b), (b, a)):
        if x.authors and not y.authors and y.text:
            text_words = set(words(y.text))
            found = [s for s in x.authors if s in text_words]
            if found:
                return found
    return []


def _same_title(a: SourceRef, b: SourceRef) -> bool:
    """Word-for-word equal titles of at least :data:`MIN_EDITION_TITLE_WORDS` words: editions of one book."""
    return bool(a.title and b.title) and words(a.title) == words(b.title) and len(words(a.title)) >= MIN_EDITION_TITLE_WORDS


def _is_arxiv_doi(doi: str | None) -> bool:
    return bool(doi) and doi.startswith(_ARXIV_DOI_PREFIX)


def _same_text(a: SourceRef, b: SourceRef) -> bool:
    return bool(a.text) and bool(b.text) and len(a.text) >= 20 and words(a.text) == words(b.text)


def match_sources(a: SourceRef, b: SourceRef) -> Match:
    """Are ``a`` and ``b`` the same work? Symmetric.

    >>> hellmann = SourceRef.from_citation(r"E.~Hellmann: \\emphOn arithmetic families of filtered $\\phi$-modules and "
    ...     r"crystalline representations, J.~Inst.\\ Math.\\ Jussieu \\bfseries 12 (2013)", arxiv_id="1010.4577")
    >>> match_sources(hellmann, SourceRef(arxiv_id="1010.4577v3")).rule
    'arxiv'
    >>> scholar = SourceRef.from_fields(title="On arithmetic families of filtered φ-modules and crystalline "
    ...     "representations", authors=["E Hellmann"], year=2013)
    >>> m = match_sources(hellmann, scholar); (m.matched, m.rule)
    (True, 'title_author')
    >>> match_sources(hellmann, SourceRef.from_fields(title=scholar.title, authors=["M Kisin"], year=2013)).matched
    False
    """
    da = None if _is_arxiv_doi(a.doi) else a.doi
    db = None if _is_arxiv_doi(b.doi) else b.doi
    if da and db:
        if da == db:
            return Match(matched=True, rule="doi", score=1.0, reason=f"same DOI {da}")
        return Match(matched=False, reason=f"different DOIs ({da} vs {db})")
    if a.arxiv_id and b.arxiv_id:
        if a.arxiv_id == b.arxiv_id:
            return Match(matched=True, rule="arxiv", score=1.0, reason=f"same arXiv id {a.arxiv_id}")
        return Match(matched=False, reason=f"different arXiv ids ({a.arxiv_id} vs {b.arxiv_id})")
    if _same_text(a, b):
        return Match(matched=True, rule="citation", score=1.0, reason="same bibliography string")
    agree, score, why = _titles_agree(a, b)
    if not agree:
        return Match(matched=False, score=score, reason=why)
    if a.year is not None and b.year is not None and abs(a.year - b.year) > YEAR_TOLERANCE and not _same_title(a, b):
        return Match(matched=False, score=score, reason=f"{why}, but years contradict ({a.year} vs {b.year})")
    shared = _shared_authors(a, b)
    if not shared:
        return Match(matched=False, score=score, reason=f"{why}, but no shared author surname")
    return Match(matched=True, rule="title_author", score=score, reason=f"{why}; shared author {shared[0]}")


def match_candidate(candidate: Comparable, cited: Comparable) -> Match:
    """Does a retrieved ``candidate`` match the cited source?

    ``candidate``: a :class:`~lemmata.benchmarks.re2math.scholar.querycache.Candidate` (its
    metadata and every bibliographic variant it carries are tried), a
    :class:`SourceRef` or a ``z`` mapping; ``cited``: a release row's ``z``
    mapping or a :class:`SourceRef`. The first positive verdict is returned,
    else the most informative negative one.
    """
    best: Match | None = None
    for c_ref in _refs_of(candidate):
        for z_ref in _refs_of(cited):
            m = match_sources(c_ref, z_ref)
            if m.matched:
                return m
            if best is None or m.score > best.score:
                best = m
    return best or Match(matched=False, reason="nothing to compare")


def is_citing_paper(candidate: Comparable, paper: Mapping[str, Any]) -> Match:
    """Is ``candidate`` the instance's citing paper (any arXiv version of it)? Such a source is inadmissible.

    ``paper`` is a release row (``paper_key`` / ``paper``) or its ``paper``
    mapping (``paper_id``, ``title``). Decided by arXiv id (version-free; the
    offline artifact's ``paper-<id>`` record ids included) or, failing that, by
    the same title word for word (case, accents, punctuation and LaTeX aside).
    No author list is released for citing papers, so no similarity threshold is
    safe: "… 2D Navier–Stokes flow" cites the same authors' "… 2D Stokes flow".

    >>> paper = {"paper_id": "2110.11087v2", "title": "Tropical Hodge theory of curves"}
    >>> is_citing_paper(SourceRef(arxiv_id="2110.11087"), paper).rule
    'arxiv'
    >>> is_citing_paper(SourceRef(title="Tropical Hodge Theory of Curves."), paper).rule
    'title'
    >>> is_citing_paper(SourceRef(title="Tropical Hodge theory of surfaces"), paper).matched
    False
    >>> is_citing_paper(SourceRef(title="Tropical Hodge theory of curves II"), paper).matched
    False
    """
    info = paper.get("paper", paper)
    key = normalize_arxiv_id(paper.get("paper_key") or info.get("paper_id") or "")
    title = info.get("title") or ""
    cand_id = candidate.id if isinstance(candidate, Candidate) else None
    if key and cand_id == f"paper-{key}":
        return Match(matched=True, rule="arxiv", score=1.0, reason=f"the citing paper's own record ({cand_id})")
    refs = _refs_of(candidate)
    for ref in refs:
        if key and ref.arxiv_id == key:
            return Match(matched=True, rule="arxiv", score=1.0, reason=f"arXiv id {key} of the citing paper")
    best = 0.0
    target = words(title)
    for ref in refs:
        if not ref.title or not target:
            continue
        if words(ref.title) == target:
            return Match(matched=True, rule="title", score=1.0, reason="the citing paper's title")
        best = max(best, title_similarity(ref.title, title))
    return Match(matched=False, score=best, reason="neither the citing paper's arXiv id nor its title")

