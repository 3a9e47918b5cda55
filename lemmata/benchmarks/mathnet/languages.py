"""One spelling per language for MathNet's ``language`` column, so the stratified subsets count each language once.

Upstream writes the same language several ways — ``'English'``, ``'español'`` (its own name, lower case),
``'English; Russian'`` (a problem given in two languages) — and leaves it empty on some rows. Stratifying on
the raw strings would make ``'Spanish'`` and ``'español'`` two strata. :func:`normalise_language` maps every
part to its English name (from the table in ``languages.toml``: English names, endonyms and ISO 639-1 codes, compared
case-folded and NFKC-normalised), keeps an unknown part as written (first letter upper-cased), and joins the
parts of a multilingual problem sorted, with ``'; '``, so the order upstream wrote them in does not matter.
"""

from __future__ import annotations

import re
import unicodedata

from lemmata.core.package_data import read_toml

UNKNOWN = "unknown"
_PARTS = re.compile(r"\s*[;,/]\s*")

#: English name -> other spellings seen or expected (endonyms, ISO 639-1 codes), kept as data in languages.toml
_NAMES: dict[str, list[str]] = read_toml("lemmata.benchmarks.mathnet", "languages.toml")["names"]
_LOOKUP = {alias.casefold(): name for name, aliases in _NAMES.items() for alias in (name, *aliases)}


def _part(text: str) -> str:
    key = unicodedata.normalize("NFKC", text).strip()
    if not key:
        return ""
    return _LOOKUP.get(key.casefold(), key[:1].upper() + key[1:])


def normalise_language(raw: str | None) -> str:
    """The language of a problem in one spelling: English names, a multilingual problem's parts sorted.

    >>> normalise_language("English"), normalise_language("español"), normalise_language(" Español ")
    ('English', 'Spanish', 'Spanish')
    >>> normalise_language("English; Russian"), normalise_language("русский, english")
    ('English; Russian', 'English; Russian')
    >>> normalise_language(None), normalise_language("  "), normalise_language("Klingon")
    ('unknown', 'unknown', 'Klingon')
    """
    parts = sorted({p for p in (_part(x) for x in _PARTS.split(raw or "")) if p})
    return "; ".join(parts) or UNKNOWN
