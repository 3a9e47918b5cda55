"""The scholarly tokenizer runs fused (``latex_words_text``, one pattern for the long-enough words) and gives exactly
the tokens of its definition, pass by pass (``tokenize_scholar_words_by_definition``): on random strings built from
every character a LaTeX rule acts on, on hand-picked edge cases of the skipped passes (a dash after an initial,
spaces before punctuation, escaped spaces, one-letter words), and on real titles and abstracts of the arXiv
metadata the offline worlds index (from the local mirror, where there is one)."""

from __future__ import annotations

import numpy as np
import pytest

from lemmata.core.latex_text import latex_to_text, latex_words_text, words
from lemmata.retrievers.bm25.tokenizers import tokenize_scholar_words, tokenize_scholar_words_by_definition

#: pieces the random strings are made of: every character class some rule of latex_to_text acts on, commands
#: (accents, ligatures, fonts, Greek, spacing, escapes), the initial-dash and space-before-punctuation patterns
PIECES = [
    " ", "  ", "\t", "\n", "~", ".", ",", ";", ":", ")", "(", "-", "--", "'", "''", "``", '"', "{", "}", "$", "\\",
    "_", "^", "*", "&", "%", "#", "/", "://", "www.", "http://x.org/a", "a", "b", "Z", "ab", "xyz", "A", "J", "P",
    "é", "ö", "ł", "Ł", "ß", "α", "Ω", "\u0301", "ﬁ", "²", "1", "42", "x_n", "\\'e", '\\"o', "\\v s", "\\c c",
    "\\oe", "\\ss", "\\l", "\\emph", "\\em", "\\textbf", "\\it", "\\newblock", "\\bysame", "\\alpha", "\\varphi",
    "\\Gamma", "\\mathbb{R}", "\\,", "\\;", "\\ ", "\\\\", "\\&", "\\%", "\\_", "\\og", "\\fg", "J.~-P.",
    "J. -P.", ". -A", " , ", " ;", " :", " )", " .", "\\cite{key}", "\\frac{a}{b}", "\\leavevmode", "of", "the", "I",
]


def _random_texts(seed: int, count: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return ["".join(PIECES[i] for i in rng.integers(0, len(PIECES), int(rng.integers(1, 40))))
            for _ in range(count)]


@pytest.mark.parametrize("text", [
    "J.~-P. Serre", "J. -P. Serre", "A.\\ -B. Smith", "word , next ; last : end )", "\\alpha.-B", "\\. -A",
    "a b c", "x_n and y_m", "Ann.\\ Math.", "Cheeger--Colding", "{\\em On} the ``problem''", "", "   ", "~-A",
    "non-commutative résolutions, II: $C^*$-algebras", "\\og titre\\fg, J.~-C.~Yoccoz",
])
def test_edge_cases_tokenize_as_the_definition(text):
    assert tokenize_scholar_words(text) == tokenize_scholar_words_by_definition(text)
    assert words(latex_words_text(text)) == words(latex_to_text(text))


def test_random_latex_strings_tokenize_as_the_definition():
    texts = _random_texts(7, 20_000)
    mismatched = [t for t in texts if tokenize_scholar_words(t) != tokenize_scholar_words_by_definition(t)]
    assert mismatched == []
    assert sum(bool(tokenize_scholar_words(t)) for t in texts) > 15_000  # the strings do hold words


def test_real_titles_and_abstracts_tokenize_as_the_definition():
    import pyarrow.parquet as pq

    from lemmata.benchmarks.math_arxiv_meta.meta import PARQUET
    from lemmata.core.paths import mirror_root

    root = mirror_root()
    path = None if root is None else root / "arxiv_math" / PARQUET
    if path is None or not path.is_file():
        pytest.skip("no local mirror of the arXiv metadata")
    batch = next(pq.ParquetFile(path).iter_batches(batch_size=20_000, columns=["title", "abstract"]))
    texts = [t for column in batch.columns for t in column.to_pylist() if t]
    assert len(texts) > 20_000
    assert [t for t in texts if tokenize_scholar_words(t) != tokenize_scholar_words_by_definition(t)] == []
