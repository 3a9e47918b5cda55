r"""Bibliography strings → title, author surnames, year, DOI and arXiv id.

Re²Math's ``z.citation_content`` is raw bibliography LaTeX whose braces were
stripped upstream (``\emphOn arithmetic families…``), in every house style:
natbib blocks (``\newblock``), AMS (``Author, \emph Title, Journal \textbf vol
(year)``), plain ``Author, Title, Journal``, quoted titles, and the dataset's
own ``Title (Authors: …; Year: …)``. Parsing is heuristic and conservative: a
field that cannot be found is ``None``, never guessed, because the matcher
treats a missing field as *no evidence* rather than as agreement.

Identifiers are normalised here so every module compares them one way: DOIs
lower-case without resolver prefixes or trailing punctuation; arXiv ids
without versions, validated against both id schemes (a zbMATH number such as
``0385.32016`` is not an arXiv id).
"""

from __future__ import annotations

import re
from functools import lru_cache

from lemmata.core.identifiers import arxiv_id_year, normalize_arxiv_id, normalize_doi
from lemmata.core.latex_text import BLOCK, FONT, latex_to_text, words
from lemmata.core.models import Frozen

#: years outside this range are not publication years (page numbers, MR numbers)
MIN_YEAR, MAX_YEAR = 1800, 2035

# --------------------------------------------------------------------------- identifiers

_DOI_IN_TEXT = re.compile(r"10\.\d{4,9}/[^\s\"<>{}|\\^`,;]+", re.IGNORECASE)
_ARXIV_IN_TEXT = re.compile(
    r"(?:arxiv(?:\.org/(?:abs|pdf)/|\s*:\s*|\s+)|\\arxiv\s*|abs/)"
    r"(?P<id>(?:\d{4}\.\d{4,5}|[a-z][a-z\-]*(?:\.[a-z]{2})?/\d{7})(?:v\d+)?)",
    re.IGNORECASE,
)


def find_doi(text: str) -> str | None:
    r"""The first DOI written in ``text``.

    >>> find_doi(r"Monatsh. Math., 155:251--263, 2008. \newblock \doi10.1007/s00605-008-0001-2.")
    '10.1007/s00605-008-0001-2'
    >>> find_doi(r"\hrefhttps://doi.org/10.1016/j.jctb.2017.08.003Partitioning $H$-minor free graphs")
    '10.1016/j.jctb.2017.08.003'
    """
    for m in _DOI_IN_TEXT.finditer(text or ""):
        doi = normalize_doi(m.group(0))
        if doi:
            return doi
    return None


def find_arxiv_id(text: str) -> str | None:
    r"""The first valid arXiv id written in ``text`` after an arXiv marker.

    >>> find_arxiv_id(r"\v Spela \v Spenko, Non-commutative resolutions, \arxiv1502.05240v2.")
    '1502.05240'
    >>> find_arxiv_id("Invent. Math. 141 (2000); arXiv:math/9908178."), find_arxiv_id("Zbl 0385.32016")
    ('math/9908178', None)
    """
    for m in _ARXIV_IN_TEXT.finditer(text or ""):
        aid = normalize_arxiv_id(m.group("id"))
        if aid:
            return aid
    return None


# --------------------------------------------------------------------------- year

_YEAR = re.compile(r"(?<![\d./:-])(1[89]\d\d|20[0-3]\d)(?![\d])(?!\s*(?:--|-|–)\s*\d)")
_PAREN_YEAR = re.compile(r"\((1[89]\d\d|20[0-3]\d)[a-z]?\)")
_NOISE_NUMBERS = re.compile(
    r"(?:arxiv\s*:?\s*\S+|https?://\S+|10\.\d{4,9}/\S+|\b(?:MR|Zbl|zbMATH)\s*:?\s*[\d.]+|\b\d+\s*(?:--|-|–)\s*\d+)",
    re.IGNORECASE,
)


def parse_year(text: str) -> int | None:
    """Publication year written in a bibliography string, or None.

    A parenthesised year wins (``Ann. of Math. (2) 144 (1996)``); otherwise the
    last year-like number, ignoring page ranges, identifiers, MR/Zbl numbers
    and URLs.

    >>> parse_year("Ann. of Math. (2) 144 (1996), no.1, 189-237. MR1405949.")
    1996
    >>> parse_year("Lecture Notes in Mathematics, Vol 340. Springer-Verlag, 1973. Seminaire 1967--1969 (SGA 7, II).")
    1973
    >>> parse_year("Math. Ann. 354 (2012), 1521--1554"), parse_year("draft."), parse_year("pp. 1999--2010, arXiv:1905.01677")
    (2012, None, None)
    """
    cleaned = _NOISE_NUMBERS.sub(" ", text or "")
    paren = [int(y) for y in _PAREN_YEAR.findall(cleaned)]
    years = paren or [int(y) for y in _YEAR.findall(cleaned)]
    years = [y for y in years if MIN_YEAR <= y <= MAX_YEAR]
    return years[-1] if years else None


# --------------------------------------------------------------------------- authors

_PARTICLES = {"van", "von", "der", "den", "de", "da", "di", "del", "della", "dos", "das", "du", "la", "le", "ten",
              "ter", "zu", "bin", "al", "el", "st"}
_NOT_NAMES = {"and", "et", "al", "with", "jr", "sr", "ii", "iii", "eds", "ed", "editors", "editor", "author",
              "authors", "in", "the", "of", "on", "for", "a", "an"}
_INITIAL = re.compile(r"^(?:[A-Z][a-z]?\.?)(?:-{0,2}[A-Z][a-z]?\.?)*$")
_NAME_WORD = re.compile(r"^[A-Z\u00C0-\u024F][\w'\u00C0-\u024F\-]*\.?$")
_BYSAME = "\u2014\u2014\u2014"


def _split_names(segment: str) -> list[str]:
    """Person names of an author list (``Last, F.`` pairs kept together)."""
    segment = segment.replace("&", " and ").replace(_BYSAME, " ")
    segment = re.sub(r"\bet\s+al\b\.?", " ", segment)
    if ";" in segment:
        pieces = [p for part in segment.split(";") for p in re.split(r"\s+and\s+", part)]
    else:
        pieces = [p for part in re.split(r",", segment) for p in re.split(r"\s+and\s+", part)]
    names: list[str] = []
    for piece in (p.strip(" .") for p in pieces):
        if not piece:
            continue
        if names and all(_INITIAL.match(w) for w in piece.split()):
            names[-1] = f"{names[-1]}, {piece}"  # "Kim, A. K. H." — the initials belong to the previous surname
        else:
            names.append(piece)
    return names


@lru_cache(maxsize=1 << 18)  # a pure function of one name; world builds ask for the same names again and again
def surname(name: str) -> str | None:
    """Folded last word of a person's surname, or None.

    >>> [surname(n) for n in ("Kim, A. K. H.", "Patrick B. Allen", "Michel Van den Bergh", "P. Petersen V", "JC Robinson")]
    ['kim', 'allen', 'bergh', 'petersen', 'robinson']
    """
    if "," in name:
        name = name.split(",")[0]
    tokens = [w for w in words(name) if len(w) > 1 and w not in _NOT_NAMES and not any(c.isdigit() for c in w)]
    tokens = [w for w in tokens if not (len(w) <= 2 and w.isupper())]
    if not tokens:
        return None
    raw = [t for t in name.replace("-", " ").split() if len(t.strip(".")) > 1]
    # "JC Robinson", "VG Saúco": Scholar writes initials as one capitalised block
    if len(raw) >= 2 and raw[0].isupper() and len(raw[0]) <= 3:
        tokens = [w for w in words(" ".join(raw[1:])) if len(w) > 1] or tokens
    return tokens[-1]


def parse_authors(segment: str, *, surname_first: bool = False) -> tuple[str, ...]:
    """Distinct folded surnames of an author list, in order.

    ``surname_first``: names are ``Last, Given`` separated by ``and`` (the dataset's structured form).

    >>> parse_authors("Kim, A. K. H., and Samworth, R. J.")
    ('kim', 'samworth')
    >>> parse_authors("Cheeger,J.; Colding,T.H.")
    ('cheeger', 'colding')
    >>> parse_authors("M. Melo and F. Viviani"), parse_authors("Keating, Jonathan P. and Rudnick, Zeév", surname_first=True)
    (('melo', 'viviani'), ('keating', 'rudnick'))
    """
    out: list[str] = []
    if surname_first:
        names = [n for n in re.split(r"\s+and\s+|;", segment) if n.strip()]
    else:
        names = _split_names(segment)
    for name in names:
        s = surname(name)
        if s and s not in out:
            out.append(s)
    return tuple(out)


def _is_name(segment: str) -> bool:
    """Does this comma/period-delimited piece look like (part of) an author list?"""
    seg = re.sub(r"^(?:and|&)\s+", "", segment.strip(), flags=re.IGNORECASE).strip()
    seg = re.sub(r"\s*\(\d{4}[a-z]?\)$", "", seg)  # "Dey, P. (2024b)": the year of an author-year style
    if not seg or seg == _BYSAME:
        return True
    people = [p for p in re.split(r"\s+and\s+|\s*&\s*", seg) if p.strip()]
    return bool(people) and all(_is_person(p) for p in people)


def _is_person(seg: str) -> bool:
    ws = seg.split()
    if len(ws) > 5:
        return False
    lower = [w for w in ws if w.lower() not in _PARTICLES and w.lower() not in ("and", "et", "al.", "al", "&")]
    if not lower:
        return False
    first = ws[0]
    if not first.endswith(".") and first.lower() in _TITLE_STARTERS:
        return False
    return all(_INITIAL.match(w) or _NAME_WORD.match(w) for w in lower)


_TITLE_STARTERS = {"on", "the", "a", "an", "some", "sur", "uber", "über", "zur", "les", "la", "le", "une", "un",
                   "introduction", "lectures", "notes", "remarks", "note", "about", "towards", "toward", "how", "why",
                   "what", "when", "where", "existence", "uniqueness", "regularity", "global", "local", "sharp",
                   "higher", "non", "new", "geometric", "analytic", "algebraic", "random", "stable", "elliptic",
                   "hyperbolic", "modular", "moduli", "rigidity", "structure", "structures", "theory", "theorie",
                   "théorie", "groupes", "espaces", "topics", "problems", "methods", "foundations", "principles",
                   "elements", "handbook", "inequalities", "estimates", "convergence", "representation",
                   "representations", "cohomology", "homotopy", "spectral", "quantum", "discrete", "finite",
                   "infinite", "linear", "nonlinear", "partial", "real", "complex", "functional", "harmonic",
                   "probability", "stochastic", "measure", "ergodic", "dynamical", "differential", "integral",
                   "combinatorial", "graph", "graphs", "matrix", "matrices", "operator", "operators", "abelian",
                   "commutative", "perturbation", "asymptotic", "asymptotics", "minimal", "maximal", "optimal"}

# --------------------------------------------------------------------------- title

_VENUE_START = re.compile(
    r"^(?:in\b|in:|preprint|arxiv|available|to appear|accepted|submitted|forthcoming|ph\.?\s?d|thesis|"
    r"habilitation|manuscript|unpublished|draft|lecture notes|lecture|course|http|www\.|vol\b|vol\.|volume|"
    r"pp\b|pp\.|pages|no\.|number|chapter|springer|cambridge|oxford|princeton|academic press|birkh|wiley|"
    r"elsevier|american mathematical|amer\.|north[- ]holland|dover|gauthier|hermann|masson|world scientific|"
    r"crc|de gruyter|walter de gruyter|ems\b|european mathematical|ams\b|siam\b|marcel|kluwer|mcgraw|mc graw|"
    r"prentice|addison|chapman|clarendon|publish or perish|grad\.|graduate texts|encyclopedia|"
    r"journal|american|annals|advances|transactions|proceedings|bulletin|communications|acta|mathematische|"
    r"inventiones|duke|compositio|forum|publications|memoirs|commentarii|selecta|geometry\s*&|algebra\s*&|"
    r"analysis\s*&|combinatorica|israel|pacific|illinois|michigan|indiana|canadian|nagoya|tohoku|osaka|"
    r"mathematika|nonlinearity|physica|physical review|electronic|international|ieee|acm\b|studia|fundamenta|"
    r"colloquium|rendiconti|comptes|séminaire|seminaire|astérisque|asterisque|annales|archiv|ergodic theory|"
    r"experimental|quarterly|revista|documenta|manuscripta|monatshefte|j\.|ann\.|math\.|proc\.|trans\.|comm\.|"
    r"invent\.|geom\.|adv\.|bull\.|publ\.|mem\.|j\s|duke|c\.\s?r\.|[a-z]{1,7}\.\s+[a-z]{1,7}\.)",
    re.IGNORECASE,
)
#: "Algebra Number Theory 2 (2008)", "Anal. PDE 9(2016)", "Forum Math. Pi, 3:e5", a trailing volume number
_VOLUME = re.compile(r"\d+\s*\(\d{4}\)|\(\d{4}\)|\d+\s*\(\d+(?:-\d+)?\)|\d+\s*:\s*\w*\d|\s\d+$|^\d")
_BOUNDARY = re.compile(r"(?:,\s+|(?:(?<=[A-Za-z\u00C0-\u024F]{2})|(?<=[)\d]))\.\s+|;\s+|\s+(?=\([12]\d{3}\)))")
_STRUCTURED = re.compile(r"^(?P<title>.+?)\s*\(Authors:\s*(?P<authors>[^;]*);\s*Year:\s*(?P<year>[^)]*)\)\s*$", re.S)
_QUOTED = re.compile(r"[\u201c\"](?P<title>[^\u201c\u201d\"]{8,}?)[\u201d\"]")


#: "Oriented matroids, second ed." is the book "Oriented matroids"
_EDITION = re.compile(r"[,.;:(]?\s*(?:(?:first|second|third|fourth|fifth|sixth|revised|enlarged|\d+(?:st|nd|rd|th)?)\s+)+"
                      r"(?:ed\.?|edition)\)?\s*$", re.IGNORECASE)


def _strip_title(title: str) -> str | None:
    title = title.replace(FONT, " ").replace(BLOCK, " ")
    title = re.sub(r"\s+", " ", title).strip(" ,.;:")
    title = re.sub(r"^(?:and|with)\s+|^\(\d{4}[a-z]?\)[.,:]?\s*", "", title)
    title = _EDITION.sub("", title).strip(" ,.;:")
    return title if len(words(title)) >= 1 and len(title) >= 3 else None


def _title_until_venue(text: str) -> str:
    """Text from the start of a title up to where the venue / publisher starts."""
    stop = len(text)
    for marker in (FONT, BLOCK):
        i = text.find(marker, 1)
        if i > 0:
            stop = min(stop, i)
    head = text[:stop]
    for m in _BOUNDARY.finditer(head):
        rest = head[m.end():].lstrip()
        if not rest:
            continue
        if _VENUE_START.match(rest) or re.match(r"^\(?\d", rest) or re.match(r"^[A-Z][a-z]{0,6}\.\s", rest):
            return head[: m.start()]
        nxt = re.split(r",\s|\.\s", rest, maxsplit=1)[0]
        if _VOLUME.search(nxt) or "&" in nxt:
            return head[: m.start()]
    return head


def _split_authors_title(text: str) -> tuple[str, str]:
    """(author part, rest) for a plain ``Authors, Title, Venue`` or ``Authors. Title. Venue`` string."""
    pos = 0
    last_author_end = 0
    for m in _BOUNDARY.finditer(text):
        piece = text[pos : m.start()]
        if not _is_name(piece):
            break
        last_author_end = m.end()
        pos = m.end()
    if last_author_end == 0:
        return "", text
    return text[:last_author_end].strip(" ,.;"), text[last_author_end:]


class ParsedCitation(Frozen):
    """What a bibliography string says about its source; None where it does not say."""

    text: str
    title: str | None
    authors: tuple[str, ...]
    year: int | None
    doi: str | None
    arxiv_id: str | None


def parse_title_authors(raw: str) -> tuple[str | None, tuple[str, ...]]:
    r"""Title (display form) and author surnames of a bibliography string.

    >>> parse_title_authors(r"Mladen Bestvina and Michael Handel. \newblock Train tracks and automorphisms of free groups. \newblock \em Annals of Mathematics, 135(1):1--51, 1992.")
    ('Train tracks and automorphisms of free groups', ('bestvina', 'handel'))
    >>> parse_title_authors(r"E.~Hellmann: \emphOn arithmetic families of filtered $\phi$-modules, J.~Inst.\ Math.\ Jussieu \bfseries 12 (2013)")
    ('On arithmetic families of filtered phi-modules', ('hellmann',))
    >>> parse_title_authors("E. Henke, Products in fusion systems, J. Algebra 376 (2013), 300--319")
    ('Products in fusion systems', ('henke',))
    >>> parse_title_authors("On the method of bounded differences (Authors: Colin McDiarmid; Year: 1989)")
    ('On the method of bounded differences', ('mcdiarmid',))
    """
    if re.search(r"\\bb?title", raw):  # imsart tagged references: \bauthor\bsnmLast,~\bfnmFirst … \btitleTitle. \bjournal…
        tagged = re.search(r"\\bb?title\s*(.*?)(?=\\b(?:journal|volume|pages|series|sertitle|publisher|edition|booktitle|"
                           r"note|year|doi|issue|number|eprint|address|location|fpage|endb)|\\end|\\doi|$)", raw, re.S)
        names = re.findall(r"\\bsnm\s*([^,\\]+)", raw)
        title = _strip_title(latex_to_text(tagged.group(1))) if tagged else None
        return title, tuple(dict.fromkeys(s for s in (surname(latex_to_text(n)) for n in names) if s))
    m = _STRUCTURED.match(latex_to_text(raw))
    if m:
        return _strip_title(m.group("title")), parse_authors(m.group("authors"), surname_first=True)
    text = latex_to_text(raw, keep_markers=True)
    m = _QUOTED.search(text)
    if m:
        authors = text[: m.start()].replace(FONT, " ").replace(BLOCK, " ").strip(" ,.:;")
        return _strip_title(m.group("title")), parse_authors(authors)
    blocks = [b.strip() for b in text.split(BLOCK) if b.strip(" .,;")]
    if len(blocks) >= 2 and FONT not in blocks[0]:
        return _strip_title(_title_until_venue(blocks[1].lstrip(FONT + " "))), parse_authors(blocks[0].strip(" .,"))
    flat = text.replace(BLOCK, " ")
    font = flat.find(FONT)
    if font >= 0:
        head = flat[:font].strip(" ,.:;")
        if not head or _is_author_list(head):
            return _strip_title(_title_until_venue(flat[font + 1 :].lstrip())), parse_authors(head)
    flat = flat.replace(FONT, " ")
    sep = re.search(r":|\s--?\s|\s\u2014\s", flat)
    if sep and 0 < sep.start() < 200 and _is_author_list(flat[: sep.start()]):
        return _strip_title(_title_until_venue(flat[sep.end() :].lstrip())), parse_authors(flat[: sep.start()])
    authors, rest = _split_authors_title(flat)
    if not authors:
        return None, ()
    return _strip_title(_title_until_venue(rest)), parse_authors(authors)


def _is_author_list(segment: str) -> bool:
    parts = [p for p in re.split(r",|;|\s+and\s+|&", segment) if p.strip(" .")]
    return bool(parts) and all(_is_name(p) for p in parts)


@lru_cache(maxsize=8192)
def parse_citation(raw: str, doi: str = "", arxiv_id: str = "") -> ParsedCitation:
    r"""Parse one bibliography string; ``doi`` / ``arxiv_id`` are the dataset's own fields, used when valid.

    >>> p = parse_citation(r"Meng Wu. \newblock A proof of Furstenberg's conjecture. \newblock \em arXiv preprint arXiv:1609.08053, 2016.", arxiv_id="1609.08053")
    >>> p.title, p.authors, p.year, p.arxiv_id, p.doi
    ("A proof of Furstenberg's conjecture", ('wu',), 2016, '1609.08053', None)
    """
    title, authors = parse_title_authors(raw)
    text = latex_to_text(raw)
    structured = _STRUCTURED.match(text)
    year = None
    if structured:
        y = re.search(r"\d{4}", structured.group("year"))
        year = int(y.group(0)) if y and MIN_YEAR <= int(y.group(0)) <= MAX_YEAR else None
    else:
        year = parse_year(text)
    aid = normalize_arxiv_id(arxiv_id) or find_arxiv_id(raw) or find_arxiv_id(text)
    the_doi = normalize_doi(doi) or find_doi(raw)
    if aid is None and the_doi:
        aid = normalize_arxiv_id(the_doi)
    if year is None:
        year = arxiv_id_year(aid)
    return ParsedCitation(text=text, title=title, authors=authors, year=year, doi=the_doi, arxiv_id=aid)
