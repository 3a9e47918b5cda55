"""The frozen tokenizers: one per frozen definition, each named by what it freezes.

A tokenizer is part of a ranking's definition: change one token and a frozen
artifact or a published baseline number changes. So each definition is written
down once, here, under its own name, and never edited — a new definition is a
new function with a new name and version:

- :func:`tokenize_baseline` — the offline baselines' BM25 (``lemmata baselines``,
  the example submissions): lower-case, split on every character that is not a
  letter or digit (``\\mathbb{R}`` → ``mathbb``, ``r``; ``Real.sqrt`` → ``real``,
  ``sqrt``; ``x_n`` → ``x``, ``n``), drop bm25s' English stopwords and one-character
  tokens (bound variables such as ``x`` or ``n`` carry no topic); no stemming, so
  results do not depend on an optional stemmer.
- :func:`tokenize_scholar_words` — the offline scholarly artifacts, 1.0.0 and the
  2.0.0 world alike (``lemmata-scholar-words`` v1, recorded in each artifact's
  ``ARTIFACT.json`` as :data:`SCHOLAR_WORDS_TOKENIZER` and checked on every open):
  LaTeX removed, folded words, one-character words and a fixed English stopword
  list dropped.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lemmata.core.hashing import sha256_json
from lemmata.core.latex_text import fold, latex_to_text, latex_words_text, words

# --------------------------------------------------------------------------- the baselines' tokenizer

_TOKEN = re.compile(r"[^\W_]+")
#: what the baselines' tokenizer is, as a baseline's provenance records it
BASELINE_TOKENIZER = "lower; split non-alphanumeric; drop en stopwords, len<2"


@lru_cache(maxsize=1)
def _baseline_stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


def tokenize_baseline(text: str) -> list[str]:
    """Tokens of one text for the offline baselines' BM25, in order (duplicates kept).

    >>> tokenize_baseline(r"Let $f\\colon \\mathbb{R}^n \\to \\mathbb{R}$ be the Lipschitz map_2.")
    ['let', 'colon', 'mathbb', 'mathbb', 'lipschitz', 'map']
    >>> tokenize_baseline("theorem Nat.add_comm (a b : ℕ) : a + b = b + a")
    ['theorem', 'nat', 'add', 'comm']
    """
    stop = _baseline_stopwords()
    return [t for t in _TOKEN.findall(text.lower()) if len(t) > 1 and t not in stop]


# --------------------------------------------------------------------------- the scholarly artifacts' tokenizer

MIN_TOKEN_LENGTH = 2
#: English function words dropped from documents and queries (part of the scholarly artifacts' definition)
SCHOLAR_STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between both but
by can could did do does doing down during each few for from further had has have having he her here hers herself
him himself his how i if in into is it its itself just let me more most my myself no nor not now of off on once only
or other our ours ourselves out over own same she should so some such than that the their theirs them themselves
then there these they this those through to too under until up very was we were what when where which while who whom
why will with would you your yours yourself yourselves also thus hence since via where whereas whether may might must
shall one two let us we'll it's etc ie eg cf see
""".split())
#: the definition as every scholarly artifact records it in ``ARTIFACT.json`` (compared on open)
SCHOLAR_WORDS_TOKENIZER = {
    "name": "lemmata-scholar-words",
    "version": "1",
    "steps": [
        "LaTeX markup removed (accents resolved, Greek letter commands kept as words, other commands dropped)",
        "Unicode NFKD, combining marks removed, lower-cased, Greek letters spelled out",
        "words = maximal runs of letters/digits ([^\\W_]+)",
        f"words shorter than {MIN_TOKEN_LENGTH} characters dropped",
        "English stopwords dropped",
    ],
    "stopwords_sha256": sha256_json(sorted(SCHOLAR_STOPWORDS)),
    "stemmer": None,
    "query_terms": "distinct",
}


#: a folded word of at least MIN_TOKEN_LENGTH characters (``words`` filtered by length, in one pass: the run that
#: starts a maximal run of word characters matches all of it or, when shorter, nothing)
_LONG_WORD = re.compile(r"[^\W_]{%d,}" % MIN_TOKEN_LENGTH)


def tokenize_scholar_words(text: str) -> list[str]:
    """Index tokens of ``text`` (document or query) for the offline scholarly artifacts, in order.

    The definition is ``[w for w in words(latex_to_text(text)) if len(w) >= MIN_TOKEN_LENGTH and w not in
    SCHOLAR_STOPWORDS]``; it runs as :func:`~lemmata.core.latex_text.latex_words_text` (the same words, without
    the passes that only move spaces) and one pattern that finds the long enough words, which gives the same tokens
    with fewer passes (the tests compare both on every kind of text the artifacts tokenize).

    >>> tokenize_scholar_words(r"Let $\\phi\\colon \\mathbb{R}^n \\to X$ be the Lipschitz map of \\emph{Cheeger--Colding}.")
    ['phi', 'lipschitz', 'map', 'cheeger', 'colding']
    """
    return [w for w in _LONG_WORD.findall(fold(latex_words_text(text))) if w not in SCHOLAR_STOPWORDS]


def tokenize_scholar_words_by_definition(text: str) -> list[str]:
    """:func:`tokenize_scholar_words` as its definition reads, pass by pass (what the tests compare it with).

    >>> tokenize_scholar_words_by_definition("The Banach--Tarski paradox, II")
    ['banach', 'tarski', 'paradox', 'ii']
    """
    return [w for w in words(latex_to_text(text)) if len(w) >= MIN_TOKEN_LENGTH and w not in SCHOLAR_STOPWORDS]
