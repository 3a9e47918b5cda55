"""Source identity on real Re2Math citation strings: matches, near misses, identifiers, citing-paper exclusion."""

from __future__ import annotations

import pytest

from lemmata.release.load import open_release
from lemmata.benchmarks.re2math.scholar.citations import find_arxiv_id, parse_citation, parse_year
from lemmata.core.identifiers import normalize_arxiv_id, normalize_doi
from lemmata.benchmarks.re2math.scholar.matcher import SourceRef, is_citing_paper, match_candidate, match_sources


@pytest.fixture(scope="session")
def rows(re2math_release):
    return open_release(re2math_release).rows("full", "full")


@pytest.fixture(scope="session")
def cite(rows):
    """The release's ``z`` record whose citation string contains every given fragment (exactly one string)."""

    def find(*fragments: str) -> dict:
        hits = {r["z"]["citation_content"]: r["z"] for r in rows
                if all(f in r["z"]["citation_content"] for f in fragments)}
        assert len(hits) == 1, (fragments, list(hits)[:3])
        return next(iter(hits.values()))

    return find


def ref(z: dict) -> SourceRef:
    return SourceRef.from_z(z)


def scholar(title: str, authors: list[str], year: int | None, **ids) -> SourceRef:
    """What a search-engine hit gives: a clean title, abbreviated author names, a year."""
    return SourceRef.from_fields(title=title, authors=authors, year=year, **ids)


def test_same_work_in_two_bibliography_styles(cite):
    cases = [
        (("Sabot", "Edge-reinforced random walk", "C.~Sabot"), ("Christophe Sabot", "Edge-reinforced")),
        (("Heinonen, P.~Koskela", "Sobolev spaces on metric measure spaces"),
         ("Juha Heinonen", "Sobolev spaces on metric measure spaces")),
        (("Gauss sums and the maximum cliques", "Authors:"), ("C.~H. Yip", "Gauss sums")),
        (("Oriented matroids, second ed",), ("Oriented matroids.", "Encyclopedia")),
        (("The Red Book of Varieties",), ("red book of varieties and schemes",)),  # 1999 edition of 1974 notes
    ]
    for a, b in cases:
        m = match_sources(ref(cite(*a)), ref(cite(*b)))
        assert m.matched and m.rule in ("title_author", "citation"), (a, m.reason)


def test_identifiers_decide_first(cite):
    alberti = [cite("Alberti and Andrea Marchese"), cite("G.~Alberti and A.~Marchese")]
    assert match_sources(ref(alberti[0]), ref(alberti[1])).matched
    # a DOI written twice by a broken macro is still the DOI
    assert normalize_doi(alberti[0]["doi"]) == "10.1007/s00039-016-0354-y"
    assert match_candidate(scholar("unrelated", [], None, doi="https://doi.org/10.1007/S00039-016-0354-Y."),
                           alberti[0]).rule == "doi"
    # arXiv ids: version-free, old and new style, from the field or from the string itself
    giroux = cite("Giroux", "math/9908178")
    assert match_candidate(SourceRef(arxiv_id="math.GT/9908178v2"), giroux).rule == "arxiv"
    spenko = cite("Spenko, Michel Van den Bergh")
    assert match_candidate(SourceRef(arxiv_id="arXiv:1502.05240v1"), spenko).rule == "arxiv"
    assert not match_candidate(SourceRef(arxiv_id="1502.05241"), spenko).matched
    # different publisher DOIs are different works whatever the titles say
    assert not match_sources(SourceRef(title="Same title here", authors=("x",), doi="10.1000/a"),
                             SourceRef(title="Same title here", authors=("x",), doi="10.1000/b")).matched


def test_invalid_identifiers_in_the_release_are_ignored(rows):
    zbl = [r["z"] for r in rows if r["z"]["arxiv_id"] in ("0385.32016", "1158.57002", "1602.0211v3")]
    assert len({z["arxiv_id"] for z in zbl}) == 3  # zbMATH numbers and a truncated id, stored as arXiv ids
    for z in zbl:
        assert normalize_arxiv_id(z["arxiv_id"]) is None and ref(z).arxiv_id is None


def test_books_and_strings_without_identifiers(cite):
    hatcher = cite("Hatcher", "Algebraic Topology")
    assert not (ref(hatcher).doi or ref(hatcher).arxiv_id)
    m = match_candidate(scholar("Algebraic topology", ["A Hatcher"], 2002), hatcher)
    assert (m.matched, m.rule) == (True, "title_author")
    tao = cite("T.~Tao. \\newblock \\em Higher order Fourier analysis")
    assert match_candidate(scholar("Higher order Fourier analysis", ["T Tao"], 2012), tao).matched
    cheeger = cite("Cheeger,J.; Colding,T.H.")
    m = match_candidate(scholar("Lower bounds on Ricci curvature and the almost rigidity of warped products",
                                ["J Cheeger", "TH Colding"], 1996), cheeger)
    assert (m.matched, m.rule) == (True, "title_author")
    # a title written into an unparsed string: found word for word, plus an author
    plain = SourceRef(text=ref(cheeger).text)
    assert match_sources(scholar("Lower bounds on Ricci curvature and the almost rigidity of warped products",
                                 ["J Cheeger"], 1996), plain).matched


def test_near_misses_do_not_match(cite):
    # same author, different book
    for a, b in [(("Heinonen, P.~Koskela",), ("Lectures on analysis on metric spaces",)),
                 (("Intersections of Random Walks",), ("Random Walk: a Modern Introduction",)),
                 (("Convex Analysis", "Rockafellar"), ("Variational Analysis (Authors",)),
                 (("Primes of the form",), ("Toric varieties",))]:
        m = match_sources(ref(cite(*a)), ref(cite(*b)))
        assert not m.matched, (a, b, m.reason)
    # same title words, different paper
    tao = cite("T.~Tao. \\newblock \\em Higher order Fourier analysis")
    host = cite("Frantzikinakis", "Higher order Fourier analysis of multiplicative functions")
    assert not match_sources(ref(tao), ref(host)).matched
    assert not match_candidate(scholar("Higher order Fourier analysis of multiplicative functions and applications",
                                       ["N Frantzikinakis", "B Host"], 2017), tao).matched
    # the next part of a series by the same authors
    hfhm1 = cite("Kutluhan", "HF=HM I :")
    assert not match_candidate(scholar("HF= HM II: Reeb orbits and holomorphic curves for the ech/Heegaard-Floer "
                                       "correspondence", ["C Kutluhan", "YJ Lee", "CH Taubes"], 2010), hfhm1).matched
    bhargava = cite("Higher composition laws. IV")
    assert not match_candidate(scholar("Higher composition laws III: The parametrization of quartic rings",
                                       ["M Bhargava"], 2004), bhargava).matched
    cheeger = cite("Cheeger,J.; Colding,T.H.")
    assert not match_candidate(scholar("On the structure of spaces with Ricci curvature bounded below. I",
                                       ["J Cheeger", "TH Colding"], 1997), cheeger).matched
    # same title and author but years far apart, and titles not identical: not trusted
    m = match_candidate(scholar("Lower bounds on Ricci curvature and the almost rigidity of warped products, II",
                                ["J Cheeger"], 2012), cheeger)
    assert not m.matched
    # same title, no shared author
    assert not match_candidate(scholar("Algebraic topology", ["EH Spanier"], 1966), cite("Hatcher", "Algebraic Topology")).matched


def test_every_release_citation_matches_itself_through_a_clean_candidate(rows):
    """A search hit carrying a citation's parsed title, authors and year matches that citation."""
    checked = 0
    for z in {r["z"]["citation_content"]: r["z"] for r in rows}.values():
        p = parse_citation(z["citation_content"], z["doi"], z["arxiv_id"])
        if not (p.title and p.authors):
            continue
        hit = scholar(p.title, [a.title() for a in p.authors], p.year)
        assert match_candidate(hit, z).matched, z["citation_content"]
        checked += 1
    assert checked > 700


def test_parser_on_real_strings(cite):
    p = parse_citation(cite("Bestvina and Michael Handel")["citation_content"])
    assert (p.title, p.authors, p.year) == ("Train tracks and automorphisms of free groups", ("bestvina", "handel"), 1992)
    z = cite("Hellmann: \\emphOn arithmetic families")
    p = parse_citation(z["citation_content"], z["doi"], z["arxiv_id"])
    assert p.arxiv_id == "1010.4577" and p.year == 2013  # the string's year; the artifact dates it by the arXiv id
    z = cite("Roberts. ``Singularity subschemes")
    p = parse_citation(z["citation_content"], z["doi"], z["arxiv_id"])
    assert (p.title, p.doi, p.year) == ("Singularity subschemes and generic projections", "10.2307/1998623", 1975)
    assert find_arxiv_id(cite("Naslund")["citation_content"]) == "1701.04475"
    assert parse_year("Springer-Verlag, 1973. Séminaire 1967--1969 (SGA 7, II).") == 1973


def test_citing_paper_exclusion(rows):
    row = next(r for r in rows if "v" in r["paper"]["paper_id"])
    key = row["paper_key"]
    assert is_citing_paper(SourceRef(arxiv_id=key), row).rule == "arxiv"
    assert is_citing_paper(SourceRef(arxiv_id=f"https://arxiv.org/abs/{key}v1"), row).rule == "arxiv"
    assert is_citing_paper(SourceRef(title=row["paper"]["title"]), row["paper"]).rule == "title"
    assert not is_citing_paper(SourceRef(arxiv_id="1502.05240", title="Something else entirely"), row).matched
    # the real near miss: same authors, the earlier "Stokes" paper is admissible for the "Navier–Stokes" paper
    navier = next(r for r in rows if r["instance_id"] == "2010.15713_gap_1")
    assert "Navier" in navier["paper"]["title"] and "Stokes flow" in navier["z"]["citation_content"]
    cited = SourceRef.from_z(navier["z"])
    assert not is_citing_paper(cited, navier).matched
