r"""The one display of a scholarly record: every title and author list a world shows goes through here.

World 2.0.0 showed each record's text in the form its origin gave it: arXiv
titles in their authors' case with LaTeX, titles parsed from citation strings
with residue (``{\~a}``), hyphens broken at line ends (``Landau- de Gennes``)
and another case convention. A system could tell a citation-parsed (gold)
record from an arXiv (distractor) record by its *form*. World 2.1 renders
every record through these functions, whatever its origin:

- **title** (:func:`display_title`): LaTeX to text, Unicode NFC, whitespace
  collapsed, hyphen breaks repaired, surrounding quotes and trailing
  punctuation dropped, and one case rule — lower case with the first letter
  capitalised (sentence case), which every origin can be brought to (the
  reverse, guessing proper nouns, is not uniform);
- **authors** (:func:`display_authors`): surnames only, transliterated to
  ASCII by one table (:func:`transliterate`), capitalised by one rule, at
  most :data:`MAX_AUTHORS`, in order, without repeats.

The rules are deliberately lossy: what matters is that two records of the same
work from different origins look the same, so that form cannot point to gold.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

#: authors shown per record
MAX_AUTHORS = 4
#: version of these rules, recorded in a world's ARTIFACT.json (a change needs a new world version)
DISPLAY_VERSION = "1"

#: letters NFKD does not decompose, transliterated by one table
_TRANSLIT = str.maketrans({
    "ß": "ss", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "đ": "d",
    "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "Th", "ı": "i", "ħ": "h", "ŋ": "ng", "’": "'", "‘": "'",
    "ʼ": "'", "`": "'",
})
_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2212": "-", "\u00ad": ""})
_QUOTES = "\"'“”‘’«»`"
_PART_START = re.compile(r"(^|[\s\-'])([a-z])")
_NOT_NAME = re.compile(r"[^A-Za-z'\- ]")
_SPACED_HYPHEN = re.compile(r"(?<=\w)\s*-{1,3}\s+(?=\w)|(?<=\w)\s+-{1,3}\s*(?=\w)")
_DOUBLE_HYPHEN = re.compile(r"(?<=\w)-{2,3}(?=\w)")


def transliterate(text: str) -> str:
    """ASCII form of a name: accents removed (NFKD), the few letters NFKD keeps mapped by one table.

    >>> transliterate("Łoś"), transliterate("Schröder-Ørsted"), transliterate("Đoković"), transliterate("Gaß")
    ('Los', 'Schroder-Orsted', 'Dokovic', 'Gass')
    """
    decomposed = unicodedata.normalize("NFKD", text.translate(_TRANSLIT))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).translate(_TRANSLIT)


def _capitalise(name: str) -> str:
    """One case rule for a surname: lower case, each part (after a space, hyphen or apostrophe) capitalised.

    >>> _capitalise("o'CONNELL"), _capitalise("van den bergh"), _capitalise("ALLEN-cahn")
    ("O'Connell", 'Van Den Bergh', 'Allen-Cahn')
    """
    return _PART_START.sub(lambda m: m.group(1) + m.group(2).upper(), name.lower())


@lru_cache(maxsize=1 << 18)  # a pure function of one name, and surnames repeat: a build renders each once
def display_author(surname: str | None) -> str | None:
    """One shown surname (None when nothing name-like is left).

    >>> display_author("bjÖrner"), display_author(" łoś "), display_author("42"), display_author(None)
    ('Bjorner', 'Los', None, None)
    """
    if not surname:
        return None
    s = " ".join(transliterate(surname).split())
    s = _NOT_NAME.sub("", s).strip(" -'")
    return _capitalise(s) if len(s) > 1 else None


def display_authors(surnames: Iterable[str | None]) -> list[str]:
    """Shown author list: distinct shown surnames in order, at most :data:`MAX_AUTHORS`.

    >>> display_authors(["kim", "Samworth", "KIM", None, "o'connell", "bergh", "müller"])
    ['Kim', 'Samworth', "O'Connell", 'Bergh']
    """
    out: list[str] = []
    for s in surnames:
        d = display_author(s)
        if d and d not in out:
            out.append(d)
    return out[:MAX_AUTHORS]


def repair_hyphens(text: str) -> str:
    """Hyphens broken by line ends or spacing, rejoined; dashes unified to ``-``.

    >>> repair_hyphens("Landau- de Gennes"), repair_hyphens("Navier -- Stokes"), repair_hyphens("quasi- periodic")
    ('Landau-de Gennes', 'Navier-Stokes', 'quasi-periodic')
    """
    s = text.translate(_DASHES)
    return _DOUBLE_HYPHEN.sub("-", _SPACED_HYPHEN.sub("-", s))


def sentence_case(text: str) -> str:
    """The one case rule: everything lower case, the first letter capitalised.

    >>> sentence_case("On The Navier-Stokes EQUATIONS"), sentence_case("l^p spaces")
    ('On the navier-stokes equations', 'L^p spaces')
    """
    low = text.lower()
    for i, c in enumerate(low):
        if c.isalpha():
            return low[:i] + c.upper() + low[i + 1:]
    return low


def display_title(title: str | None) -> str:
    r"""Shown title: LaTeX to text, NFC, whitespace and hyphens repaired, quotes and end punctuation dropped,
    sentence case.

    >>> display_title(r"Sharp bounds for $L^p$ norms of \emph{Harmonic} maps.")
    'Sharp bounds for l^p norms of harmonic maps'
    >>> display_title("“Landau- de  Gennes theory   of NEMATIC liquid crystals”")
    'Landau-de gennes theory of nematic liquid crystals'
    >>> display_title(r"Sur les op{\'e}rateurs") == display_title("Sur les opérateurs")
    True
    """
    from lemmata.core.latex_text import latex_to_text

    return display_plain_title(latex_to_text(title or ""))


def display_plain_title(text: str) -> str:
    """:func:`display_title` of a title already free of LaTeX (the builder converts each title once).

    >>> display_plain_title("ON THE  Navier -- Stokes equations.")
    'On the navier-stokes equations'
    """
    s = unicodedata.normalize("NFC", text)
    s = repair_hyphens(" ".join(s.split()))
    s = s.strip().strip(_QUOTES).strip(" ,.;:").strip(_QUOTES).strip()
    return sentence_case(" ".join(s.split()))


def display_name_surnames(names: Iterable[str]) -> list[str]:
    r"""Shown authors of a list of full names in any order ("Last, First" or "First Last", with LaTeX).

    >>> display_name_surnames([r"Aar{\~a}o Reis, Fabio D. A.", "Patrick B. Allen", r"Bj{\'o}rner, A."])
    ['Reis', 'Allen', 'Bjorner']
    """
    from lemmata.benchmarks.re2math.scholar.citations import surname
    from lemmata.core.latex_text import latex_to_text

    return display_authors(surname(latex_to_text(n)) for n in names)


#: what a bibliography string's venue part is made of: journal and series words and their abbreviations
_VENUE_WORD = re.compile(
    r"^(?:acad|academic|acta|adv|algebra|am|amer|ann|annals|appl|applied|bull|comm|commun|comp|cong|congressus|"
    r"doc|dokl|dunod|ed|eds|edition|esaim|geom|grad|graduate|izv|j|journal|lect|lecture|lett|letters|math|"
    r"mathematical|mathematics|mem|monogr|monographs|notes|numerantium|original|press|proc|proceedings|progress|"
    r"publ|reprint|rev|sb|sbornik|sci|sciences|series|soc|springer|studies|surveys|texts|trans|transactions|"
    r"univ|university|ussr|verlag|vol|volume|[a-z]?\d+[a-z]?)$")
_PART = re.compile(r"^(?:[ivx]+|part|chapter|appendix|(?:lecture|volume|vol)\.?\s+[ivx\d]+|\d+)\b", re.IGNORECASE)
#: words that are neither evidence of a venue nor against one
_STOP = frozenset({"of", "in", "the", "and", "de", "der", "für", "for", "no", "on"})
#: a bracketed reference at a title's end, with a year or an MR number ("[J. Algebra 358 (2012) 162-177]",
#: "[MR2413088]"; never "[0,1]" or "k[x,y]")
_BRACKET_TAIL = re.compile(r"\s*\[(?=[^\[\]]*(?:\b(?:1[89]|20)\d\d\b|\bmr\s?\d))[^\[\]]*\]\s*$", re.IGNORECASE)
_LEADING_INITIALS = re.compile(r"^(?:[A-Za-z]\.\s*){1,3}\s+(?=[A-Za-z]{2})|^(?:[A-Za-z]\.){2,3}\s*(?=[A-Za-z]{2})")
_CLOSING_QUOTE_TAIL = re.compile(r"\.[”\"]\s+\S.*$")
_QUOTE_MARKS = re.compile(r"[\"“”«»]")
#: a journal abbreviation ending a venue ("linear algebra appl", "esaim: cocv", "systems control lett"): words
#: no title ends with
_ABBREVIATION_END = re.compile(r"(?:^|\s)(?:acad|algebr|anal|appl|cocv|combin|comput|contin|funct|geom|internat|lett|"
                               r"math|monogr|optim|probab|proc|sci|soc|statist)\.?$")
#: an editor note at a title's end ("(p. l. hennequin, ed.)"), and an unclosed parenthesis of words only at its end
#: (a place or meeting cut off: "(luminy", "(boston, ma"; never "(1/3,1/2]")
_EDITOR_TAIL = re.compile(r"\s*\([^()]*\beds?\.?\)\s*$", re.IGNORECASE)
_OPEN_PAREN_TAIL = re.compile(r"\s*\([^\W\d_]+(?:[ ,]+[^\W\d_]+)*$")


def _venue_like(segment: str) -> bool:
    """Is a sentence after a title's last ``". "`` a venue or volume: its words all journal or series words, or
    at least half of them with a volume number at its end (never a part, chapter or lecture number)?"""
    ws = [w.strip(".()'") for w in re.split(r"[\s:,\-]+", segment.lower())]
    named = [w for w in ws if re.search(r"[a-z]{2}", w) and w not in _STOP]
    if not named or _PART.match(segment):
        return False
    venue = sum(1 for w in named if _VENUE_WORD.match(w))
    return venue == len(named) or (venue * 2 >= len(named) and bool(re.search(r"\d+\)?$", segment)))


def _venue_tail(segment: str, after_comma: bool) -> bool:
    """Is a title's last segment (after ``". "`` or ``", "``) a venue: :func:`_venue_like`, or at most five words
    without a comma ending with a journal abbreviation? After a comma, where a title's own list goes on ("geometry, topology, and
    algebra"; "notebooks, first series (1998)"), only two or more words, every one a venue word, or the
    abbreviation."""
    ws = [w for w in re.split(r"[\s:,\-]+", segment) if w]
    if len(ws) <= 5 and "," not in segment and _ABBREVIATION_END.search(segment.strip()):
        return True
    if not after_comma:
        return _venue_like(segment)
    named = [w.strip(".()'") for w in ws if re.search(r"[a-z]{2}", w) and w not in _STOP]
    return len(named) >= 2 and all(_VENUE_WORD.match(w) for w in named)


def without_citation_residue(title: str) -> str:
    """A shown title without what parsing a bibliography string leaves in it: leading initials (the end of an
    author list), quote marks (and what follows one closing a sentence: ``ring.” Mathematics of the USSR``), a
    bracketed reference, an editor note or an unclosed parenthesis of words at the end, and venue or
    volume segments after the last ``". "`` or ``", "`` — one rule for every record, applied until nothing changes
    (on arXiv titles it changes about 0.4%, mostly by dropping quote marks).

    >>> without_citation_residue("M. steinberg group of a polynomial ring.” mathematics of the ussr-sbornik 45")
    'Steinberg group of a polynomial ring'
    >>> without_citation_residue("S. t. differential equations on riemannian manifolds")
    'Differential equations on riemannian manifolds'
    >>> without_citation_residue("Toric varieties. graduate studies in mathematics")
    'Toric varieties'
    >>> without_citation_residue("Supplement to “estimation and inference for minimizers")
    'Supplement to estimation and inference for minimizers'
    >>> without_citation_residue('A "hybrid plane" with spin-orbit interaction')
    'A hybrid plane with spin-orbit interaction'
    >>> without_citation_residue("Shellable nonpure complexes and posets. ii")
    'Shellable nonpure complexes and posets. ii'
    >>> without_citation_residue("On carleman estimates. applications to unique continuation")
    'On carleman estimates. applications to unique continuation'
    >>> without_citation_residue("A. weil's explicit formula"), without_citation_residue("L^p spaces")
    ("Weil's explicit formula", 'L^p spaces')
    >>> without_citation_residue("Representability of delta-matroids over gf(2), linear algebra appl")
    'Representability of delta-matroids over gf(2)'
    >>> without_citation_residue("On carleman estimates. applications to control, esaim: cocv")
    'On carleman estimates. applications to control'
    >>> without_citation_residue("Topics in propagation of chaos, saint-flour xix-1989 (p. l. hennequin, ed.)")
    'Topics in propagation of chaos, saint-flour xix-1989'
    >>> without_citation_residue("Regularity of navier-stokes flows (luminy"), without_citation_residue("Integers in (y,2y]")
    ('Regularity of navier-stokes flows', 'Integers in (y,2y]')
    >>> without_citation_residue("Vector bundles on projective spaces, progress in mathematics")
    'Vector bundles on projective spaces'
    >>> without_citation_residue("Curves with semigroups (4,5,6), (4,5,7)"), without_citation_residue("Type e6, e7 and e8")
    ('Curves with semigroups (4,5,6), (4,5,7)', 'Type e6, e7 and e8')
    >>> without_citation_residue("Colombeau algebras: geometry, topology, and algebra")
    'Colombeau algebras: geometry, topology, and algebra'
    >>> without_citation_residue("Tiba y. second main theorem in projective space. math z, 2012, 272:1165-1186")
    'Tiba y. second main theorem in projective space'
    >>> without_citation_residue("Identities from the ramanujan notebooks, first series (1998)")
    'Identities from the ramanujan notebooks, first series (1998)'
    """
    for _ in range(8):  # each pass removes at least one segment; titles carry at most a few
        shown = _without_residue_once(title)
        if shown == title:
            break
        title = shown
    return title


def _without_residue_once(title: str) -> str:
    """One pass of :func:`without_citation_residue`."""
    s = _LEADING_INITIALS.sub("", title)
    s = _QUOTE_MARKS.sub("", _CLOSING_QUOTE_TAIL.sub("", s))
    while _BRACKET_TAIL.search(s):
        s = _BRACKET_TAIL.sub("", s)
    s = _OPEN_PAREN_TAIL.sub("", _EDITOR_TAIL.sub("", s))
    while shorter := _without_venue_tail(s):
        s = shorter
    s = s.strip().strip(" ,.;:")
    return sentence_case(s) if s else sentence_case(title)


def _without_venue_tail(s: str) -> str | None:
    """The title without its venue segment: the one after its last ``". "`` (the whole rest, commas and all), else
    the one after its last ``", "``; None when neither is a venue (:func:`_venue_tail`)."""
    for sep in (". ", ", "):
        if sep not in s:
            continue
        head, tail = s.rsplit(sep, 1)
        if re.search(r"(?:^|\s)\w$", head) or _PART.match(tail):  # "c. jordan": an initial ends no sentence
            continue
        if _venue_tail(tail, sep == ", "):
            return head
    return None
