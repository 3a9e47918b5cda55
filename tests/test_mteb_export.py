"""The MTEB export: a Lemmata ranking track run by ``mteb.evaluate`` gives the scores ``lemmata evaluate`` gives."""

from __future__ import annotations

import pytest


def test_mteb_task_scores_equal_lemmata_evaluate(tmp_path, monkeypatch):
    import mteb
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    from lemmata.benchmarks.taobench.evaluation_tasks import equivalence_task
    from lemmata.harness.evaluate import evaluate
    from lemmata.harness.mteb_export import mteb_tasks
    from lemmata.retrievers.embedding_cache import EmbeddingCache

    monkeypatch.setenv("MTEB_CACHE", str(tmp_path / "mteb-cache"))
    track = "taobench-equivalence:taobench-150/tao2mathlib"
    part = equivalence_task("taobench-150", "tao2mathlib").parts[0]
    words: dict[str, None] = {"[UNK]": None, "[PAD]": None}
    for text in [*part.queries.values(), *part.texts()]:
        words.update(dict.fromkeys(text.lower().split()))
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    torch.manual_seed(0)
    SentenceTransformer(modules=[StaticEmbedding(tok, embedding_weights=torch.randn(len(words), 24))]).save(
        str(tmp_path / "tiny-st"))

    [task] = mteb_tasks([track])
    run = mteb.evaluate(SentenceTransformer(str(tmp_path / "tiny-st")), tasks=[task], cache=None,
                        show_progress_bar=False)
    scores = run.task_results[0].scores["test"][0]
    [ours] = evaluate(f"st:{tmp_path / 'tiny-st'}", [track], out=tmp_path / "runs", store=None,
                      cache=EmbeddingCache(tmp_path / "cache"), quiet=True)
    for lemmata_name, mteb_name in (("ndcg@10", "ndcg_at_10"), ("recall@1", "recall_at_1"),
                                    ("recall@10", "recall_at_10"), ("mrr@100", "mrr_at_100")):
        assert ours.result.metrics[lemmata_name]["mean"] == pytest.approx(scores[mteb_name], abs=1e-5)
    assert 0.0 < scores["ndcg_at_10"] < 1.0
