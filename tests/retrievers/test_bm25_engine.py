"""The one BM25 engine against bm25s itself: same scores, same top-k, for the baselines' and the saved-index paths."""

from __future__ import annotations

import numpy as np
import pytest

from lemmata.retrievers.bm25 import (
    B, K1, METHOD, SCORE_DECIMALS, BM25Index, Postings, tokenize_baseline, tokenize_scholar_words, top_rounded,
    write_index,
)

K = 10


@pytest.fixture(scope="module")
def sample():
    """A Zipf-distributed sample corpus (many shared and rare words, so there are ties and long postings)."""
    rng = np.random.default_rng(17)
    words = [f"w{i}" for i in range(3000)]
    weights = 1.0 / np.arange(1, len(words) + 1)
    weights /= weights.sum()
    docs = [" ".join(rng.choice(words, size=int(rng.integers(3, 40)), p=weights)) for _ in range(2500)]
    queries = [" ".join(rng.choice(words, size=int(rng.integers(1, 12)), p=weights)) for _ in range(200)]
    ids = [f"d{i:05d}" for i in range(len(docs))]
    return ids, docs, queries


def _reference(scores: np.ndarray, ids: list[str], k: int) -> list[tuple[str, float]]:
    """bm25s' scores ranked the way every Lemmata ranking is: score descending, then id ascending."""
    order = sorted(range(len(ids)), key=lambda i: (-float(scores[i]), ids[i]))[:k]
    return [(ids[i], float(scores[i])) for i in order]


def test_baseline_index_matches_bm25s(sample):
    import bm25s

    ids, docs, queries = sample
    reference = bm25s.BM25(k1=K1, b=B, method=METHOD)
    reference.index([tokenize_baseline(d) for d in docs], show_progress=False)
    engine = BM25Index(ids, docs)
    for query in queries:
        tokens = list(dict.fromkeys(tokenize_baseline(query)))
        expected = reference.get_scores(tokens)
        assert np.array_equal(engine.scores(query), expected)
        assert engine.search(query, K) == _reference(expected, ids, K)
        # and bm25s' own retrieval finds documents with the same top scores
        _, top = reference.retrieve([tokens], k=K, show_progress=False)
        assert np.array_equal(np.sort(top[0])[::-1], np.array([s for _, s in engine.search(query, K)],
                                                                dtype=top.dtype))


def test_saved_index_top_k_matches_bm25s(sample, tmp_path):
    import bm25s

    ids, docs, queries = sample
    info = write_index([tokenize_scholar_words(d) for d in docs], tmp_path / "index")
    reference = bm25s.BM25.load(str(tmp_path / "index"), show_progress=False)
    assert info == {"library_version": bm25s.__version__, "documents": len(docs),
                    "vocabulary": len(reference.vocab_dict)}
    postings = Postings.load(tmp_path / "index")
    for query in queries:
        term_ids = postings.term_ids(tokenize_scholar_words(query))
        expected32 = reference.get_scores_from_ids(term_ids)
        assert np.array_equal(postings.scores(term_ids, dtype=np.float32), expected32)
        # the world's float64 sums, rounded, against bm25s' weights summed term by term in float64
        weights = reference.scores
        expected64 = np.zeros(len(docs))
        for t in term_ids:
            lo, hi = weights["indptr"][t], weights["indptr"][t + 1]
            expected64[weights["indices"][lo:hi]] += weights["data"][lo:hi].astype(np.float64)
        got = top_rounded(postings.scores(term_ids), K, end=2000)
        rounded = np.round(expected64[:2000], SCORE_DECIMALS)
        want = sorted((i for i in range(2000) if rounded[i] > 0), key=lambda i: (-rounded[i], i))[:K]
        assert got == [(i, float(rounded[i])) for i in want]


def test_unknown_query_terms_score_nothing(sample):
    ids, docs, _ = sample
    engine = BM25Index(ids, docs)
    assert not engine.scores("zzz unknown").any()
    assert top_rounded(np.zeros(5), 3) == []


def _bm25s_saved(docs: list[list[str]], folder) -> dict[str, bytes]:
    """``docs`` indexed and saved by bm25s itself (document by document, as write_index did before its weights were
    computed in array passes): every file's bytes."""
    import bm25s

    vocab = {w: i for i, w in enumerate(sorted({w for d in docs for w in d}))}
    retriever = bm25s.BM25(k1=K1, b=B, method=METHOD)
    retriever.index(([[vocab[w] for w in d] for d in docs], vocab), show_progress=False)
    retriever.save(str(folder), show_progress=False)
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("seed", range(6))
def test_write_index_saves_what_bm25s_index_saves(sample, tmp_path, seed):
    """Byte for byte (weights, sparse layout, dtypes, vocabulary, parameters), on part of the Zipf sample and on small
    random corpora with empty documents, repeated terms and one-document vocabularies."""
    rng = np.random.default_rng(seed)
    if seed == 0:
        docs = [d.split() for d in sample[1][:600]]
    else:
        words = [f"t{i}" for i in range(int(rng.integers(1, 40)))]
        docs = [[str(w) for w in rng.choice(words, size=int(rng.choice([0, 1, 3, 25])))]
                for _ in range(int(rng.integers(1, 400)))]
        docs[0] = docs[0] or [words[0]]  # bm25s refuses an empty vocabulary
    write_index(docs, tmp_path / "ours")
    ours = {p.name: p.read_bytes() for p in sorted((tmp_path / "ours").iterdir())}
    assert ours == _bm25s_saved(docs, tmp_path / "bm25s")
