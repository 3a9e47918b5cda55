"""Baseline retrievers (BM25, static embeddings, RRF) and their end-to-end runs on the theorem-retrieval track."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lemmata.scoring import score_file
from lemmata.retrievers.baseline import build_retriever
from lemmata.benchmarks.re2math.baselines import theorem_retrieval_run
from lemmata.catalog import release_path
from lemmata.benchmarks.re2math.meta import RE2MATH
from lemmata.core.errors import InputError
from lemmata.benchmarks.re2math.theorem.retrieval import load_track
from lemmata.retrievers.bm25 import BM25Index, tokenize_baseline
from lemmata.retrievers.fusion import reciprocal_rank_fusion, top_k
from lemmata.retrievers.static_embeddings import StaticEmbeddingIndex, embed, windows
from lemmata.scoring import validate_upload
from lemmata.store import Store


@pytest.fixture(scope="module")
def release():
    return release_path(RE2MATH)


@pytest.fixture(scope="module")
def corpus(release):
    ids, texts, _, _ = load_track(release, "test", "raw")
    return ids, texts


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "store")


# -- the retrievers ---------------------------------------------------------------------------------

def test_top_k_breaks_ties_by_doc_id_whatever_the_input_order():
    rng = np.random.default_rng(0)
    ids = [f"d{i:03d}" for i in range(50)]
    scores = rng.integers(0, 4, size=50).astype(np.float32)  # many ties
    expected = sorted(zip(ids, scores.tolist()), key=lambda p: (-p[1], p[0]))
    perm = rng.permutation(50)
    assert top_k(scores[perm], [ids[i] for i in perm], None) == expected
    assert top_k(scores, ids, 7) == expected[:7]


def test_rrf_is_symmetric_in_its_inputs_and_ties_by_doc_id():
    a = [("x", 3.0), ("y", 2.0)]
    b = [("y", 9.0), ("x", 1.0)]
    fused = reciprocal_rank_fusion([a, b])
    assert fused == reciprocal_rank_fusion([b, a])
    assert [d for d, _ in fused] == ["x", "y"] and fused[0][1] == fused[1][1] == 1 / 61 + 1 / 62
    assert reciprocal_rank_fusion([a, b], 1) == fused[:1]


def test_bm25_finds_each_statement_from_its_own_text(corpus):
    ids, texts = corpus
    index = BM25Index(ids, texts)
    sample = range(0, len(ids), 17)
    hits = sum(index.search(texts[i], 1)[0][0] == ids[i] for i in sample)
    assert hits >= 0.95 * len(sample)
    assert index.search("zzzz qqqq", 3) == [(d, 0.0) for d in sorted(ids)[:3]]  # no known term: all tie at 0
    assert tokenize_baseline("Let $\\mathbb{R}$ be the reals") == ["let", "mathbb", "reals"]


def test_static_embeddings_cover_long_texts_instead_of_truncating(corpus):
    ids, texts = corpus
    long_text = " ".join(texts[:60])
    assert len(windows(long_text)) > 10 and all(len(w) <= 400 for w in windows(long_text))
    tail = " ".join(texts[30:60])
    e_long, e_tail = embed([long_text, tail])
    assert abs(np.linalg.norm(e_long) - 1) < 1e-6
    # the second half of a long text still moves its embedding; the encoder's own 512-token cut ignores it
    from static_model import get_embeddings

    truncated = np.asarray(get_embeddings([long_text])[0])
    assert 3 * (1 - e_long @ e_tail) < 1 - truncated @ e_tail
    index = StaticEmbeddingIndex(ids, texts)
    sample = range(0, len(ids), 29)
    assert sum(index.search(texts[i], 1)[0][0] == ids[i] for i in sample) >= 0.9 * len(sample)
    with pytest.raises(ValueError, match="unique"):
        StaticEmbeddingIndex(["a", "a"], ["x", "y"])


def test_build_retriever_names_the_known_ones():
    with pytest.raises(ValueError, match="did you mean 'bm25'"):
        build_retriever("bm52", ["a"], ["x"])


# -- end-to-end runs on real data ---------------------------------------------------------------------

def _recall_from_file(path, release, variant, k):
    _, _, _, qrels = load_track(release, "test", variant)
    lines = path.read_text("utf-8").splitlines()
    hits = 0
    for line in lines[1:]:
        rec = json.loads(line)
        ranked = sorted(rec["ranking"], key=lambda e: (-e["score"], e["doc_id"]))[:k]
        hits += any(e["doc_id"] in qrels[rec["query_id"]] for e in ranked)
    return hits / (len(lines) - 1)


@pytest.mark.parametrize("retriever,variant", [("bm25", "raw"), ("static", "assisted"), ("hybrid", "raw")])
def test_theorem_retrieval_baseline_end_to_end(retriever, variant, release, store, tmp_path):
    path = theorem_retrieval_run(retriever, variant, tmp_path / "runs", depth=20)
    header = json.loads(path.read_text("utf-8").splitlines()[0])
    assert header["benchmark"] == "re2math-theorem-retrieval" and header["split"] == "retrieval_queries/test"
    result = score_file(path, store)
    assert result.benchmark == "re2math-theorem-retrieval" and result.track == variant
    assert result.status == "complete" and result.pending == 0
    assert result.frozen.dataset_release == RE2MATH.release_id
    assert result.frozen.split == "retrieval_queries/test" and result.frozen.retrieval_artifact is None
    assert result.frozen.scoring_artifact.startswith("qrels:re2math-1.0.0/retrieval_qrels/test; ")
    assert result.metrics["judged_queries"] == 200 and len(result.items) == 200
    for k in (1, 5, 10):
        assert result.metrics[f"recall@{k}"]["mean"] == pytest.approx(_recall_from_file(path, release, variant, k))
        lo, hi = result.metrics[f"recall@{k}"]["ci95"]
        assert lo <= result.metrics[f"recall@{k}"]["mean"] <= hi
    assert result.main.metric == "ndcg@10" and result.main.value == result.metrics["ndcg@10"]["mean"]
    assert [r["result_id"] for r in store.result_rows()] == [result.result_id]
    again = score_file(path, store)  # the same bytes: same submission, same result, nothing new stored
    assert again.result_id == result.result_id and len(store.result_rows()) == 1


def test_bm25_beats_chance_by_far_on_both_variants(tmp_path, store):
    values = {}
    for variant in ("raw", "assisted"):
        result = score_file(theorem_retrieval_run("bm25", variant, tmp_path, depth=10), store)
        values[variant] = result.metrics["recall@10"]["mean"]
    assert min(values.values()) > 20 * 10 / 858  # chance Recall@10 is 10/858


def test_a_broken_run_is_refused_with_line_and_field(release, tmp_path):
    path = theorem_retrieval_run("bm25", "raw", tmp_path, depth=3)
    lines = path.read_text("utf-8").splitlines()
    rec = json.loads(lines[2])
    rec["ranking"][1]["doc_id"] = "thm-0000000000000000"
    lines[2] = json.dumps(rec)
    header = json.loads(lines[0])
    header["track"] = "oracle"
    lines[0] = json.dumps(header)
    with pytest.raises(InputError) as exc:
        validate_upload(("\n".join(lines) + "\n").encode(), "run.jsonl")
    assert any(p.line == 1 and p.field == "header.track" for p in exc.value.problems)
    lines[0] = json.dumps(dict(header, track="raw"))
    with pytest.raises(InputError) as exc:
        validate_upload(("\n".join(lines) + "\n").encode(), "run.jsonl")
    (problem,) = exc.value.problems
    assert (problem.line, problem.field) == (3, "ranking[1].doc_id") and "unknown document" in problem.reason
    lines[0] = json.dumps(dict(header, track="raw", release="re2math-9.0.0"))
    with pytest.raises(InputError, match="not served"):
        validate_upload(("\n".join(lines) + "\n").encode(), "run.jsonl")
