"""Citing-paper identity and dates.

arXiv ids carry version suffixes (``2110.11087v2``); two versions are one paper,
so every split and exclusion rule works on the normalised key.
"""

from __future__ import annotations

import re

from lemmata.core.identifiers import arxiv_id_year as arxiv_year

_DATE = re.compile(r"^(?P<year>\d{4})-\d{2}-\d{2}$")


def paper_key(paper_id: str) -> str:
    """Version-free, lower-case arXiv id.

    >>> paper_key("2110.11087v2")
    '2110.11087'
    >>> paper_key(" arXiv:math/0601001V3 ")
    'math/0601001'
    """
    key = paper_id.strip().lower()
    key = re.sub(r"^arxiv:", "", key)
    return re.sub(r"v\d+$", "", key)


def publication_year(publication_date: str | None, key: str) -> int | None:
    """Year from the stated date, else from the arXiv id; None when neither says.

    >>> publication_year("2020-02-01", "1903.08525"), publication_year("Unknown", "1903.08525")
    (2020, 2019)
    """
    if publication_date:
        m = _DATE.match(publication_date.strip())
        if m:
            return int(m.group("year"))
    return arxiv_year(key)
