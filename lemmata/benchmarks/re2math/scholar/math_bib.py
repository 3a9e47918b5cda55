"""Journal articles, book chapters and books that are not arXiv records: the second haystack of world 2.1.

The arXiv distractors of world 2.0.0 are arXiv records of 1991–2019, while the
gold records are journal papers and books of every year: every record dated
before 1991, and every record without an arXiv id, was gold. ``math_bib`` is
the largest non-arXiv mathematics bibliography these machines can reach
(9,303 records, 1828–2026; see the mirror's ``SOURCES.md``): two public BibTeX
collections, parsed into one pinned Parquet file. This module

- reads that file from the raw-source mirror (``math_bib/``), refusing any
  bytes but the pinned sha256 (:func:`math_bib_path`, :func:`read_math_bib`);
- removes the rows that are a work the world already holds
  (:func:`deduplicate`): an arXiv record (same arXiv id, same DOI, or the
  same normalised title with a shared author surname) or a cited source (same
  DOI, or a normalised title of at least :data:`MIN_TITLE_WORDS` words
  contained in a citation string — the same work must stay one record, and a
  duplicate of gold would be a second answer).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lemmata.core.errors import InputError
from lemmata.core.meta import SourceFile

NAME = "math-bib"
#: folder of the raw-source mirror that holds the pinned file
MIRROR_FOLDER = "math_bib"
PARQUET = "math_bib_nonarxiv.parquet"
PARQUET_SHA256 = "d611afce05346586b19804be91b42252f2027dda5ea051b833c93a6ddbd202cc"
ROWS = 9_303
SPDES_REPO, SPDES_COMMIT = "chenle02/SPDEs-Bib", "be59127f9cb4efcab2cde06d376875429a171aba"
STACKS_REPO, STACKS_COMMIT = "stacks/stacks-project", "4ac4815d5a00dc2eacab7824cf4e4baafe2773ac"
SOURCE = SourceFile(
    name=PARQUET,
    upstream_path=(f"derived: {SPDES_REPO}@{SPDES_COMMIT} (Build_docs/bib_files/*.bib, CC BY-SA 4.0) + "
                   f"{STACKS_REPO}@{STACKS_COMMIT} (my.bib, GFDL 1.2)"),
    commit=f"{SPDES_COMMIT[:12]}+{STACKS_COMMIT[:12]}",
    url="lemmata-mirror:math_bib/math_bib_nonarxiv.parquet",
    sha256=PARQUET_SHA256,
    description="mathematics journal articles, book chapters and books (non-arXiv), one row per work",
)
#: a title shorter than this (in words) is too generic to decide that a citation string names the same work
MIN_TITLE_WORDS = 4
COLUMNS = ("id", "entry_type", "title", "authors", "year", "venue", "publisher", "volume", "number", "pages", "doi",
           "arxiv_id")


@dataclass(frozen=True)
class BibRecord:
    """One row of the table, as the pinned file gives it (field values keep their LaTeX)."""

    id: str
    entry_type: str
    title: str
    authors: tuple[str, ...]
    year: int | None
    venue: str | None
    publisher: str | None
    volume: str | None
    number: str | None
    pages: str | None
    doi: str | None
    arxiv_id: str | None


def math_bib_path(source_dir: str | Path | None = None) -> Path:
    """The verified pinned file: from ``source_dir`` or the mirror's ``math_bib/`` folder; its sha256 must match."""
    from lemmata.core.hashing import sha256_file
    from lemmata.core.paths import mirror_root
    from lemmata.release.sources import SourceUnavailable

    if source_dir is None:
        root = mirror_root()
        if root is None or not (root / MIRROR_FOLDER).is_dir():
            raise SourceUnavailable(f"{PARQUET} has no download (a derived file); it is read from the mirror",
                                    family=NAME, folder=MIRROR_FOLDER)
        source_dir = root / MIRROR_FOLDER
    path = Path(source_dir) / PARQUET
    if not path.is_file():
        raise InputError.one(str(path), f"missing source file ({SOURCE.upstream_path})")
    actual = sha256_file(path)
    if actual != PARQUET_SHA256:
        raise InputError.one(str(path), f"sha256 mismatch: expected {PARQUET_SHA256}, found {actual}")
    return path


def read_math_bib(path: str | Path | None = None) -> list[BibRecord]:
    """Every row of the pinned table (``path``: the verified file; None: :func:`math_bib_path`), in file order."""
    import pyarrow.parquet as pq

    path = Path(path) if path is not None else math_bib_path()
    try:
        table = pq.read_table(path, columns=list(COLUMNS)).to_pydict()
    except Exception as exc:  # noqa: BLE001 - any unreadable file is the same input error
        raise InputError.one(str(path), f"unreadable math_bib table: {exc}") from None

    def text(v):
        return v if isinstance(v, str) and v.strip() else None

    out = []
    for i in range(len(table["id"])):
        year = table["year"][i]
        out.append(BibRecord(
            id=table["id"][i], entry_type=table["entry_type"][i] or "misc", title=table["title"][i],
            authors=tuple(table["authors"][i] or ()), year=int(year) if year is not None else None,
            venue=text(table["venue"][i]), publisher=text(table["publisher"][i]), volume=text(table["volume"][i]),
            number=text(table["number"][i]), pages=text(table["pages"][i]),
            doi=(text(table["doi"][i]) or "").lower() or None, arxiv_id=text(table["arxiv_id"][i])))
    return out


def title_key(title: str | None) -> str:
    r"""A title folded for comparison: LaTeX to text, accents removed, lower case, alphanumeric words only.

    >>> title_key(r"On the {N}avier--{S}tokes equations in $L^p$.")
    'on the navier stokes equations in l p'
    """
    from lemmata.core.latex_text import latex_to_text, words

    return " ".join(words(latex_to_text(title or "")))


def deduplicate(records: Sequence[BibRecord], *, arxiv_ids: Iterable[str], arxiv_dois: Iterable[str],
                arxiv_titles: Mapping[str, Iterable[str]], cited_dois: Iterable[str],
                citation_texts: Iterable[str]) -> tuple[list[BibRecord], dict[str, str]]:
    """The rows that are works of their own, and why each other row was dropped (row id -> reason).

    ``arxiv_titles`` maps a :func:`title_key` to the shown author surnames of the arXiv records with that title.

    >>> r = lambda i, t, a=(), doi=None, ax=None: BibRecord(i, "article", t, a, 2000, None, None, None, None, None,
    ...                                                  doi, ax)
    >>> rows = [r("a", "X"), r("b", "Y", doi="10.1/y"), r("c", "Sharp constants in Sobolev inequalities", ("Kim, A.",)),
    ...         r("d", "Large deviations for random walks in random environment"), r("e", "Z", ax="1234.5678"),
    ...         r("f", "Sharp constants in Sobolev inequalities", ("Lee, B.",))]
    >>> kept, dropped = deduplicate(rows, arxiv_ids={"1234.5678"}, arxiv_dois=set(),
    ...     arxiv_titles={"sharp constants in sobolev inequalities": ["Kim"]}, cited_dois={"10.1/y"},
    ...     citation_texts=["A. Dembo, Large deviations for random walks in random environment, Ann. Probab. (2004)"])
    >>> [k.id for k in kept], dropped
    (['a', 'f'], {'b': 'cited source (DOI)', 'c': 'arXiv record (title and author)', 'd': 'cited source (title in a citation string)', 'e': 'arXiv record (arXiv id)'})
    """
    from lemmata.benchmarks.re2math.scholar.display import display_name_surnames

    ax_ids, ax_dois, cited = set(arxiv_ids), {d.lower() for d in arxiv_dois}, {d.lower() for d in cited_dois}
    haystack = "\n".join(" " + title_key(t) + " " for t in citation_texts)
    dropped: dict[str, str] = {}
    kept: list[BibRecord] = []
    for rec in records:
        key = title_key(rec.title)
        reason = None
        if rec.doi and rec.doi in cited:
            reason = "cited source (DOI)"
        elif len(key.split()) >= MIN_TITLE_WORDS and f" {key} " in haystack:
            reason = "cited source (title in a citation string)"
        elif rec.arxiv_id and re.sub(r"v\d+$", "", rec.arxiv_id) in ax_ids:
            reason = "arXiv record (arXiv id)"
        elif rec.doi and rec.doi in ax_dois:
            reason = "arXiv record (DOI)"
        elif key in arxiv_titles and set(display_name_surnames(rec.authors)) & set(arxiv_titles[key]):
            reason = "arXiv record (title and author)"
        if reason:
            dropped[rec.id] = reason
        else:
            kept.append(rec)
    return kept, dropped


def bibliographic_entry(rec: BibRecord) -> str:
    r"""The record's venue line as an opening shows it: venue, volume (number), pages, publisher (LaTeX to text).

    >>> bibliographic_entry(BibRecord("x", "article", "T", (), 1996, r"Ann. of Math. (2)", None, "144", "1",
    ...                               "189--237", None, None))
    'Ann. of Math. (2) 144 (1), 189-237'
    """
    from lemmata.core.latex_text import latex_to_text

    parts = []
    venue = latex_to_text(rec.venue or "")
    vol = latex_to_text(rec.volume or "")
    num = latex_to_text(rec.number or "")
    head = " ".join(p for p in (venue, vol) if p)
    if num:
        head += f" ({num})"
    if head.strip():
        parts.append(head.strip())
    if rec.pages:
        parts.append(latex_to_text(rec.pages).replace("--", "-"))
    if rec.publisher:
        parts.append(latex_to_text(rec.publisher))
    return ", ".join(parts)
