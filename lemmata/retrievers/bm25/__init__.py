"""One BM25 engine: frozen tokenizers, the bm25s postings every ranking scores through, the baselines' index.

Modules: ``tokenizers`` (one frozen tokenizer per frozen definition: the baselines'
and the scholarly artifacts'), ``postings`` (index writing with bm25s, scoring straight from
the index's CSR arrays, rounded top-k), ``weights`` (bm25s' index weights computed in array
passes, bit for bit, for the index writer), ``index`` (the offline baselines'
in-memory :class:`BM25Index`).
"""

from lemmata.retrievers.bm25.index import BM25Index
from lemmata.retrievers.bm25.postings import B, K1, METHOD, SCORE_DECIMALS, Postings, top_rounded, write_index
from lemmata.retrievers.bm25.tokenizers import (
    BASELINE_TOKENIZER, SCHOLAR_WORDS_TOKENIZER, tokenize_baseline, tokenize_scholar_words,
)

__all__ = ["B", "BASELINE_TOKENIZER", "BM25Index", "K1", "METHOD", "Postings", "SCHOLAR_WORDS_TOKENIZER",
           "SCORE_DECIMALS", "tokenize_baseline", "tokenize_scholar_words", "top_rounded", "write_index"]
