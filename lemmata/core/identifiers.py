"""Scholarly identifiers: one canonical DOI and arXiv id, and the year an arXiv id encodes.

Every part of Lemmata that compares works by identifier (source identity, the
retrieval artifact, the materialiser, citing-paper dates) goes through these,
so two spellings of one id are never two works.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

__all__ = ["arxiv_id_year", "normalize_arxiv_id", "normalize_doi"]

_DOI_SHAPE = re.compile(r"^10\.\d{4,9}/\S+$")
_ARXIV_NEW = re.compile(r"^(?P<yy>\d{2})(?P<mm>\d{2})\.(?P<num>\d{4,5})$")
_ARXIV_OLD = re.compile(r"^(?P<arch>[a-z][a-z\-]*)(?:\.[a-z]{2})?/(?P<yy>\d{2})(?P<mm>\d{2})(?P<num>\d{3})$")
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(?P<id>.+)$")
_YYMM_NEW = re.compile(r"^(?P<yymm>\d{4})\.\d{4,5}$")
_YYMM_OLD = re.compile(r"^[a-z\-]+(?:\.[a-z]{2})?/(?P<yymm>\d{4})\d{3}$")


def normalize_doi(value: str | None) -> str | None:
    """Canonical DOI, or None when ``value`` is not one.

    Lower-case; ``https://doi.org/``, ``dx.doi.org`` and ``doi:`` prefixes and
    trailing punctuation removed; a DOI written twice by a broken bibliography
    macro (``10.2307/199862310.2307/1998623``) is read once.

    >>> normalize_doi("https://doi.org/10.1007/S00605-008-0001-2.")
    '10.1007/s00605-008-0001-2'
    >>> normalize_doi("10.1090/tran/7241DOI:10.1090/tran/7241"), normalize_doi("10.2307/199862310.2307/1998623")
    ('10.1090/tran/7241', '10.2307/1998623')
    >>> normalize_doi("10.4310/jdg/1214459974.full")
    '10.4310/jdg/1214459974'
    >>> normalize_doi("10.1016/j.jctb.2017.08.003Partitioning")
    '10.1016/j.jctb.2017.08.003'
    >>> normalize_doi("10.1007/s10240-022-00132-0https://dx.doi.org/10.1007/s10240-022-00132-0")
    '10.1007/s10240-022-00132-0'
    >>> normalize_doi("doi: 10.48550/arXiv.2112.09334"), normalize_doi("not a doi"), normalize_doi("")
    ('10.48550/arxiv.2112.09334', None, None)
    """
    if not value:
        return None
    # braces stripped upstream glue a link's DOI to the title after it: "…08.003Partitioning"
    s = re.split(r"(?<=\d)(?=[A-Z][a-z]{2,})", unquote(value.strip()))[0].lower()
    s = re.sub(r"^(?:https?://)?(?:dx\.)?doi\.org/", "", s)
    s = re.sub(r"^doi\s*:?\s*", "", s)
    parts = [p.rstrip(".,;:)]}'\"") for p in re.split(r"doi\s*:\s*|https?://(?:dx\.)?(?:doi\.org/)?", s) if p.strip()]
    if not parts:
        return None
    s = re.sub(r"(?:\.full|\.pdf|/full|/abstract|/pdf|/epdf)$", "", parts[0])  # landing-page suffixes of links
    if len(s) % 2 == 0 and s[: len(s) // 2] == s[len(s) // 2 :]:
        s = s[: len(s) // 2]
    return s if _DOI_SHAPE.match(s) else None


def normalize_arxiv_id(value: str | None) -> str | None:
    """Version-free arXiv id in canonical form, or None when ``value`` is not a valid one.

    New-style ids need a real month and the suffix length of their period
    (4 digits up to 1412, 5 from 1501); old-style ids drop the subject class.

    >>> normalize_arxiv_id("arXiv:1502.05240v2"), normalize_arxiv_id("https://arxiv.org/abs/math/9908178v1")
    ('1502.05240', 'math/9908178')
    >>> normalize_arxiv_id("math.AG/0601001"), normalize_arxiv_id("10.48550/arXiv.2112.09334")
    ('math/0601001', '2112.09334')
    >>> normalize_arxiv_id("0385.32016"), normalize_arxiv_id("1602.0211v3"), normalize_arxiv_id(None)
    (None, None, None)
    """
    if not value:
        return None
    s = value.strip().lower()
    m = _ARXIV_DOI.match(s)
    if m:
        s = m.group("id")
    s = re.sub(r"^(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/", "", s)
    s = re.sub(r"^arxiv\s*:\s*", "", s)
    s = re.sub(r"\.pdf$", "", s)
    s = re.sub(r"v\d+$", "", s)
    m = _ARXIV_NEW.match(s)
    if m:
        yymm = int(m.group("yy") + m.group("mm"))
        if not 1 <= int(m.group("mm")) <= 12:
            return None
        digits = len(m.group("num"))
        if (digits == 4 and 704 <= yymm <= 1412) or (digits == 5 and yymm >= 1501):
            return s
        return None
    m = _ARXIV_OLD.match(s)
    if m and 1 <= int(m.group("mm")) <= 12:
        return f"{m.group('arch')}/{m.group('yy')}{m.group('mm')}{m.group('num')}"
    return None


def arxiv_id_year(arxiv_id: str | None) -> int | None:
    """The submission year encoded in an arXiv id (``YYMM``), or None when it is not one.

    >>> arxiv_id_year("1502.05240"), arxiv_id_year("math/9908178"), arxiv_id_year(None), arxiv_id_year("not-an-id")
    (2015, 1999, None, None)
    """
    if not arxiv_id:
        return None
    m = _YYMM_NEW.match(arxiv_id) or _YYMM_OLD.match(arxiv_id)
    if not m:
        return None
    yy = int(m.group("yymm")[:2])
    return 1900 + yy if yy >= 91 else 2000 + yy
