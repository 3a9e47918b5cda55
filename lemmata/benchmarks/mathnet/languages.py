"""One spelling per language for MathNet's ``language`` column, so the stratified subsets count each language once.

Upstream writes the same language several ways — ``'English'``, ``'español'`` (its own name, lower case),
``'English; Russian'`` (a problem given in two languages) — and leaves it empty on some rows. Stratifying on
the raw strings would make ``'Spanish'`` and ``'español'`` two strata. :func:`normalise_language` maps every
part to its English name (from the table below: English names, endonyms and ISO 639-1 codes, compared
case-folded and NFKC-normalised), keeps an unknown part as written (first letter upper-cased), and joins the
parts of a multilingual problem sorted, with ``'; '``, so the order upstream wrote them in does not matter.
"""

from __future__ import annotations

import re
import unicodedata

UNKNOWN = "unknown"
_PARTS = re.compile(r"\s*[;,/]\s*")

#: English name -> other spellings seen or expected (endonyms, ISO 639-1 codes); compared case-folded
_NAMES: dict[str, tuple[str, ...]] = {
    "English": ("en", "eng", "inglés", "anglais", "englisch"),
    "Spanish": ("es", "español", "espanol", "castellano"),
    "Portuguese": ("pt", "português", "portugues"),
    "French": ("fr", "français", "francais"),
    "German": ("de", "deutsch"),
    "Italian": ("it", "italiano"),
    "Russian": ("ru", "русский", "russkij"),
    "Ukrainian": ("uk", "українська"),
    "Chinese": ("zh", "中文", "汉语", "漢語"),
    "Japanese": ("ja", "日本語"),
    "Korean": ("ko", "한국어"),
    "Vietnamese": ("vi", "tiếng việt"),
    "Dutch": ("nl", "nederlands"),
    "Greek": ("el", "ελληνικά"),
    "Hungarian": ("hu", "magyar"),
    "Romanian": ("ro", "română", "romana"),
    "Polish": ("pl", "polski"),
    "Czech": ("cs", "čeština", "cestina"),
    "Slovak": ("sk", "slovenčina", "slovencina"),
    "Slovenian": ("sl", "slovenščina"),
    "Croatian": ("hr", "hrvatski"),
    "Serbian": ("sr", "srpski", "српски"),
    "Bulgarian": ("bg", "български"),
    "Macedonian": ("mk", "македонски"),
    "Turkish": ("tr", "türkçe", "turkce"),
    "Persian": ("fa", "farsi", "فارسی"),
    "Arabic": ("ar", "العربية"),
    "Hebrew": ("he", "עברית"),
    "Danish": ("da", "dansk"),
    "Swedish": ("sv", "svenska"),
    "Norwegian": ("no", "nb", "norsk"),
    "Finnish": ("fi", "suomi"),
    "Estonian": ("et", "eesti"),
    "Latvian": ("lv", "latviešu"),
    "Lithuanian": ("lt", "lietuvių"),
    "Mongolian": ("mn", "монгол"),
    "Kazakh": ("kk", "қазақ"),
    "Georgian": ("ka", "ქართული"),
    "Armenian": ("hy", "հայերեն"),
    "Indonesian": ("id", "bahasa indonesia"),
}
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
