"""Exact blocked search (ties, filters, exclusions), the approximate index's measured recall, and the embedding
cache: memory-mapped, keyed by model × corpus, resumed after an interruption without recomputing."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lemmata.formats.results import ModelInfo
from lemmata.retrievers.embedding_cache import EmbeddingCache
from lemmata.retrievers.fusion import top_k
from lemmata.retrievers.search import QUERY_BLOCK, exact_search, one_blas_thread, recall_against_exact


def _reference(q, docs, ids, k, block, keep=None, qblock=QUERY_BLOCK):
    """The full ranking by (score desc, id asc) of float32 scores computed in the blocks the search uses."""
    with one_blas_thread():
        scores = np.concatenate([np.concatenate([q[b:b + qblock] @ docs[a:a + block].T
                                                 for a in range(0, len(docs), block)], axis=1)
                                 for b in range(0, len(q), qblock)])
    out = []
    for r in range(len(q)):
        s = scores[r].astype(np.float64)
        if keep is not None:
            s = np.where(keep[r], s, -np.inf)
        ranked = [p for p in top_k(s, ids, None) if np.isfinite(p[1])][:k]
        out.append([(d, float(np.float32(scores[r][ids.index(d)]))) for d, _ in ranked])
    return out


def test_exact_search_equals_full_ranking_with_ties_across_blocks():
    rng = np.random.default_rng(1)
    docs = np.round(rng.normal(size=(3000, 8)), 1).astype(np.float32)
    docs[200:1500] = docs[7]  # a large tie group spanning blocks
    ids = [f"doc-{rng.integers(10**9):09d}-{i}" for i in range(len(docs))]
    q = np.round(rng.normal(size=(12, 8)), 1).astype(np.float32)
    q[3] = 0.0  # every score equal: ranked by id alone
    got = exact_search(q, docs, ids, 50, doc_block=512, query_block=5)
    assert got == _reference(q, docs, ids, 50, 512, qblock=5)
    assert [d for d, _ in got[3]] == sorted(ids)[:50]


def test_exact_search_filter_and_exclusions_never_rank_an_ineligible_document():
    rng = np.random.default_rng(2)
    docs = rng.normal(size=(800, 4)).astype(np.float32)
    ids = [f"d{i:04d}" for i in range(800)]
    years = rng.integers(1990, 2025, size=800)
    years[:50] = -1  # unknown: always eligible
    limits = [2000, None, 1995]
    excluded = [[5, 6], [], [int(np.argmax(docs @ rng.normal(size=4)))]]
    q = rng.normal(size=(3, 4)).astype(np.float32)
    got = exact_search(q, docs, ids, 30, doc_keys=years, query_limits=limits, excluded=excluded, doc_block=100)
    keep = np.ones((3, 800), bool)
    for r, lim in enumerate(limits):
        if lim is not None:
            keep[r] &= (years <= lim) | (years < 0)
        keep[r, excluded[r]] = False
    assert got == _reference(q, docs, ids, 30, 100, keep)
    assert all(years[ids.index(d)] <= 2000 or years[ids.index(d)] < 0 for d, _ in got[0])


def test_exact_search_gives_the_same_rankings_whatever_the_number_of_workers():
    """Query blocks run in parallel, each product on one BLAS thread: scores and ranks never depend on how many
    threads searched (nor on the machine's core count)."""
    rng = np.random.default_rng(4)
    docs = rng.normal(size=(20000, 48)).astype(np.float32)
    ids = [f"d{i:05d}" for i in range(len(docs))]
    q = rng.normal(size=(700, 48)).astype(np.float32)
    one = exact_search(q, docs, ids, 20, workers=1)
    assert exact_search(q, docs, ids, 20, workers=3) == one
    assert exact_search(q, docs, ids, 20, workers=2, query_block=64) == exact_search(q, docs, ids, 20, workers=1,
                                                                                     query_block=64)
    with one_blas_thread():
        full = np.concatenate([q[b:b + QUERY_BLOCK] @ docs.T for b in range(0, len(q), QUERY_BLOCK)])
    for r in (0, 255, 256, 699):  # spot checks against the whole row, sorted by (score desc, id asc)
        order = np.lexsort((np.arange(len(docs)), -full[r].astype(np.float64)))[:20]
        assert [d for d, _ in one[r]] == [ids[i] for i in order]


def test_rank_keys_order_is_score_desc_then_tiebreak_and_round_trips():
    """One key per (score, tie-break) replaces the two-key sort: its order is the ranking's, signed zeros tie, and
    the score comes back bit for bit."""
    from lemmata.retrievers.search import key_ranks, key_scores, rank_keys

    rng = np.random.default_rng(11)
    for _ in range(50):
        n = int(rng.integers(1, 400))
        scores = rng.choice([-0.0, 0.0, 1.5, -2.0, np.inf, -np.inf, 1e-40, -1e-40, 3.25], size=n).astype(np.float32)
        drawn = rng.random(n) < 0.5
        scores[drawn] = rng.normal(size=int(drawn.sum())).astype(np.float32)
        tiebreak = rng.permutation(n)
        keys = rank_keys(scores, tiebreak)
        assert np.argsort(keys).tolist() == np.lexsort((tiebreak, -scores.astype(np.float64))).tolist()
        assert key_scores(keys).tobytes() == scores.tobytes() and key_ranks(keys).tolist() == tiebreak.tolist()


def test_single_queries_split_over_workers_keep_the_one_block_bits():
    """A one-query block is a matrix-vector product over several document blocks at once, split among workers at
    block boundaries: the same bits (and rankings) as one document block at a time."""
    rng = np.random.default_rng(12)
    docs = (np.round(rng.normal(size=(3000, 17)) * 4) / 4).astype(np.float32)  # quarters: exact sums in any
    docs[100:900] = docs[3]  # order, as BLAS and the compiled one-query product (numba installed) sum differently
    ids = [f"doc-{rng.integers(10**6):06d}-{i}" for i in range(len(docs))]
    q = (np.round(rng.normal(size=(5, 17)) * 4) / 4).astype(np.float32)
    want = _reference(q, docs, ids, 40, 64, qblock=1)
    for workers in (1, 3):
        assert exact_search(q, docs, ids, 40, doc_block=64, query_block=1, workers=workers) == want


def test_top_arrays_pad_past_the_eligible_documents_and_nan_never_ranks():
    from lemmata.retrievers.search import ExactIndex

    docs = np.array([[1, 0], [np.nan, 0], [0.5, 0], [2, 0]], dtype=np.float32)
    index = ExactIndex(docs, ["a", "b", "c", "d"], doc_keys=np.array([2020, 2000, -1, 2030]))
    rows, scores = index.top(np.array([[1, 0], [-1, 0]], dtype=np.float32), 4, query_limits=[2025, None])
    assert rows.tolist() == [[0, 2, -1, -1], [2, 0, 3, -1]]
    assert scores.tolist() == [[1.0, 0.5, -np.inf, -np.inf], [-0.5, -1.0, -2.0, -np.inf]]
    assert index.search(np.array([[1, 0]], dtype=np.float32), 2) == [[("d", 2.0), ("a", 1.0)]]


@pytest.mark.parametrize("kind", ["ivf", "hnsw"])
def test_approximate_index_recall_is_measured_against_exact(kind, tmp_path):
    from lemmata.retrievers.search import ApproximateIndex, HnswParams, IvfParams

    rng = np.random.default_rng(3)
    docs = rng.normal(size=(5000, 16)).astype(np.float32)
    docs /= np.linalg.norm(docs, axis=1, keepdims=True)
    ids = [f"d{i}" for i in range(len(docs))]
    q = docs[:40] + 0.05 * rng.normal(size=(40, 16)).astype(np.float32)
    params = IvfParams() if kind == "ivf" else HnswParams()
    index = ApproximateIndex(docs, ids, params, path=str(tmp_path / "index"))
    ann = index.search(q, 10)
    exact = exact_search(q, docs, ids, 10)
    recall = recall_against_exact(ann, exact, 10)
    assert 0.9 <= recall <= 1.0
    for a in ann:  # candidates re-scored exactly and ordered like the exact search
        assert a == sorted(a, key=lambda p: (-p[1], p[0]))
    assert index.label.startswith("faiss-ivf-flat(lists=283," if kind == "ivf" else "usearch-hnsw(")
    again = ApproximateIndex(docs, ids, params, path=str(tmp_path / "index"))  # the kept index loads
    assert again.search(q, 10) == ann
    with pytest.raises(ValueError, match="not 4999 × 16"):
        ApproximateIndex(docs[:-1], ids[:-1], params, path=str(tmp_path / "index"))


class CountingEncoder:
    """A deterministic encoder (hashed bag of words) that counts what it encodes and can fail on demand."""

    similarity = "cosine"

    def __init__(self, fail_after: int | None = None) -> None:
        self.info = ModelInfo(name="counting-encoder", revision="1")
        self.encoded = 0
        self.calls = 0
        self.fail_after = fail_after

    def encode(self, texts, *, role, batch_size=32):
        self.calls += 1
        if self.fail_after is not None and self.calls > self.fail_after:
            raise KeyboardInterrupt
        self.encoded += len(texts)
        out = np.zeros((len(texts), 32), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.split():
                out[i, hash(w) % 32] += 1.0
            out[i, 31] += 0.5
        return out


def test_cache_resumes_an_interrupted_encoding_without_recomputing(tmp_path):
    ids = [f"d{i}" for i in range(1000)]
    texts = [f"word{i % 17} word{i % 5} text{i}" for i in range(1000)]
    cache = EmbeddingCache(tmp_path)
    failing = CountingEncoder(fail_after=3)
    with pytest.raises(KeyboardInterrupt):
        cache.corpus_vectors(failing, ids, texts, chunk=100, quiet=True)
    assert failing.encoded == 300
    state = json.loads((cache.folder(failing, ids, texts) / "state.json").read_text())
    assert state["done"] == 300 and len(state["chunks"]) == 3

    resumed = CountingEncoder()
    vectors = cache.corpus_vectors(resumed, ids, texts, chunk=100, quiet=True)
    assert resumed.encoded == 700  # only what was missing
    assert (cache.last.cached, cache.last.encoded) == (300, 700)
    assert isinstance(vectors, np.memmap) and vectors.shape == (1000, 32)

    fresh = CountingEncoder()
    again = cache.corpus_vectors(fresh, ids, texts, chunk=100, quiet=True)
    assert fresh.encoded == 0 and np.array_equal(np.asarray(again), np.asarray(vectors))
    whole = CountingEncoder()
    direct = EmbeddingCache(tmp_path / "other").corpus_vectors(whole, ids, texts, chunk=1000, quiet=True)
    assert np.array_equal(np.asarray(direct), np.asarray(vectors))


def test_cache_reencodes_a_damaged_chunk_and_keys_by_model_and_corpus(tmp_path):
    ids = [f"d{i}" for i in range(300)]
    texts = [f"t{i} common" for i in range(300)]
    cache = EmbeddingCache(tmp_path)
    enc = CountingEncoder()
    cache.corpus_vectors(enc, ids, texts, chunk=100, quiet=True)
    folder = cache.folder(enc, ids, texts)
    raw = bytearray((folder / "vectors.f32").read_bytes())
    raw[150 * 32 * 4] ^= 0xFF  # a byte of chunk 1
    (folder / "vectors.f32").write_bytes(bytes(raw))
    again = CountingEncoder()
    cache.corpus_vectors(again, ids, texts, chunk=100, quiet=True)
    assert again.encoded == 200  # chunk 1 and everything after it; chunk 0 verified and kept
    other_prompt = CountingEncoder()
    other_prompt.info = ModelInfo(name="counting-encoder", revision="1", prompts={"document": "passage: "})
    assert cache.folder(other_prompt, ids, texts) != folder
    assert cache.folder(enc, ids, texts[:-1] + ["changed"]) != folder


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_top_k_of_a_few_equals_the_full_sort_with_ties_and_signed_zeros(dtype):
    """Top k below the corpus size takes a partial sort; it must give the full sort's prefix, tie for tie."""
    rng = np.random.default_rng(7)
    for case in range(400):
        n = int(rng.integers(1, 300))
        levels = rng.choice([-0.0, 0.0, 0.5, 1.0, 2.5, -1.0, 1e-30, 3.0], size=int(rng.integers(1, 8)))
        values = (rng.choice(levels, size=n) if case % 2 else rng.normal(size=n).round(1)).astype(dtype)
        ids = [f"d{int(x)}" for x in rng.integers(0, 10 * n, size=n)]  # ids may repeat: order by position then
        if case % 3 == 0:
            ids = list(dict.fromkeys(ids)) + [f"u{i}" for i in range(n - len(set(ids)))]
        full = top_k(values, ids, None)
        for k in {0, 1, 2, n // 3, n - 1, n, n + 5}:
            assert top_k(values, ids, k) == full[:max(k, 0)], (case, k)
