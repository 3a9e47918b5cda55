"""``lemmata.evaluate`` / ``lemmata evaluate`` end to end with real models and no download: the static model the
``tokenlearn-static-model`` wheel ships (model2vec), a sentence-transformers model built inside the test, and an
in-process server speaking the OpenAI embeddings protocol. Each run is scored into a store, ranks in the same
frozen-tuple group as the baselines, carries its model identity, and is byte-reproducible."""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from lemmata.harness.evaluate import evaluate
from lemmata.retrievers.embedding_cache import EmbeddingCache
from lemmata.scoring import score_file
from lemmata.store import Store

THEOREM = "re2math-theorem-retrieval"
FIXTURES = Path(__file__).parent / "fixtures" / "hub"


@pytest.fixture(scope="module")
def hub_releases():
    """The MathNet-Retrieve and MIRB fixture releases where the handlers look for them."""
    from lemmata.benchmarks.mathnet.builder import MathNetRetrieveBuilder
    from lemmata.benchmarks.mirb.builder import MirbBuilder
    from lemmata.core.paths import releases_dir

    for cls, src, rid in ((MathNetRetrieveBuilder, FIXTURES / "MathNet-Retrieve", "mathnet-retrieve-1.0.0"),
                          (MirbBuilder, FIXTURES / "mirb", "mirb-1.0.0")):
        if not (releases_dir() / rid).is_dir():
            cls(source_dir=src).build(releases_dir(), quiet=True)


def test_every_ranking_task_gives_the_model_the_documents_words(hub_releases):
    """A model ranks what the release serves: each document's title and text, never the empty text of the id-only
    collection the scorer reads (an earlier MIRB and MathNet-Retrieve run encoded empty strings)."""
    import pyarrow.parquet as pq

    from lemmata.catalog import load_release, table_path
    from lemmata.families import get_benchmark
    from lemmata.harness.evaluate import resolve_tasks

    for task in resolve_tasks(["mirb", "mathnet-retrieve"]):
        release = load_release(get_benchmark(task.header["release"]))
        for part in task.parts:
            table = pq.read_table(table_path(release, "corpus", part.label or "corpus")).to_pylist()
            served = {r["_id"]: " ".join(filter(None, (r.get("title"), r["text"]))) for r in table}
            texts = part.texts()
            assert all(texts) and dict(zip(part.doc_ids, texts)) == {d: served[d] for d in part.doc_ids}


def _group(store: Store, result_id: str) -> str:
    return next(r["group_key"] for r in store.result_rows() if r["result_id"] == result_id)


def test_static_model_scores_into_the_baselines_group_reproducibly_with_the_cli_id(tmp_path, capsys, monkeypatch):
    from lemmata.cli import main

    monkeypatch.setenv("LEMMATA_EMBEDDING_CACHE", str(tmp_path / "cache"))  # the CLI's cache too
    store = Store(tmp_path / "store")
    cache = EmbeddingCache()
    assert cache.root == tmp_path / "cache"
    [ev] = evaluate("model2vec:tokenlearn-static-model", [f"{THEOREM}:raw"], out=tmp_path / "a", store=store,
                    cache=cache, quiet=True)
    model = ev.result.model
    assert (model.kind, model.dimension, model.index, model.open_weights) == ("retriever", 64, "exact", True)
    assert model.revision.startswith("sha256:") and model.parameters and model.parameters > 64 * 1000
    assert ev.result.benchmark == THEOREM and ev.result.status == "complete"
    assert 0.0 < ev.result.main.value < 1.0 and ev.result.main.metric == "ndcg@10"
    header = json.loads(ev.path.read_bytes().splitlines()[0])
    assert header["model"]["dimension"] == 64 and header["system"]["index"]["kind"] == "exact"

    [bm25] = evaluate("bm25", [f"{THEOREM}:raw"], out=tmp_path / "a", store=store)
    assert _group(store, ev.result.result_id) == _group(store, bm25.result.result_id)

    # the same model again: byte-identical file, nothing re-encoded, and the CLI prints the same result id
    assert main(["evaluate", "--model", "model2vec:tokenlearn-static-model", "--track", f"{THEOREM}:raw",
                 "--out", str(tmp_path / "b"), "--store", str(tmp_path / "store"), "--quiet"]) == 0
    printed = capsys.readouterr().out
    again = tmp_path / "b" / ev.path.name
    assert again.read_bytes() == ev.path.read_bytes()
    assert f"result {ev.result.result_id[:12]}" in printed
    # what the space computes for the same file, in a store that has never seen it
    assert score_file(again, Store(tmp_path / "fresh")).result_id == ev.result.result_id


def _tiny_sentence_transformer(folder: Path) -> Path:
    """A real sentence-transformers model (static word embeddings over a word-level tokenizer), built here."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    from lemmata.benchmarks.mirb.track import task_collection
    from lemmata.benchmarks.mirb.meta import MIRB, TASK_NAMES
    from lemmata.catalog import corpus_texts, load_release

    words: dict[str, None] = {"[UNK]": None, "[PAD]": None}
    for t in TASK_NAMES:
        coll = task_collection(MIRB.release_id, t)
        for text in [*coll.queries.values(), *corpus_texts(load_release(MIRB), t).values()]:
            words.update(dict.fromkeys(text.lower().split()))
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    torch.manual_seed(0)
    model = SentenceTransformer(modules=[StaticEmbedding(tok, embedding_weights=torch.randn(len(words), 24))])
    model.save(str(folder))
    return folder


def test_tiny_sentence_transformer_on_mirb_and_mathnet(tmp_path, hub_releases):
    folder = _tiny_sentence_transformer(tmp_path / "tiny-st")
    store = Store(tmp_path / "store")
    done = evaluate(f"st:{folder}", ["mirb", "mathnet-retrieve"], out=tmp_path / "runs", store=store,
                    cache=EmbeddingCache(tmp_path / "cache"), prompts={"query": "query: "}, quiet=True)
    assert [e.result.benchmark for e in done] == ["mirb", "mathnet-retrieve", "mathnet-retrieve",
                                                  "mathnet-retrieve"]
    assert [e.result.track for e in done[1:]] == ["easy", "medium", "hard"]
    for e in done:
        m = e.result.model
        assert (m.name, m.dimension, m.prompts) == ("tiny-st", 24, {"query": "query: "})
        assert m.revision.startswith("sha256:") and e.result.status == "complete"
    mirb = done[0].result
    assert set(mirb.breakdowns["per_task"]) and mirb.main.value is not None
    # a dynamic-corpus task never ranks a query's excluded documents
    from lemmata.benchmarks.mirb.meta import MIRB, TASKS
    from lemmata.benchmarks.mirb.track import task_collection

    records = [json.loads(x) for x in done[0].path.read_bytes().splitlines()[1:]]
    for t in (t for t in TASKS if t.dynamic_corpus):
        excluded = task_collection(MIRB.release_id, t.name).excluded
        for rec in (r for r in records if r["task"] == t.name):
            assert not {d["doc_id"] for d in rec["ranking"]} & excluded.get(rec["query_id"], frozenset())
    # another prompt is another system: another file name and another identity
    other = evaluate(f"st:{folder}", ["mathnet-retrieve:hard"], out=tmp_path / "runs", store=None,
                     cache=EmbeddingCache(tmp_path / "cache"), quiet=True)[0]
    assert other.path != done[3].path and other.result.model.identity() != done[3].result.model.identity()


class EmbeddingsServer:
    """An in-process server speaking the OpenAI embeddings protocol (POST /v1/embeddings), with hashed
    bag-of-words vectors; it counts the inputs it embeds."""

    def __init__(self) -> None:
        self.inputs = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                assert self.path == "/v1/embeddings" and self.headers["Authorization"] == "Bearer sk-test"
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                outer.inputs += len(texts)
                data = [{"object": "embedding", "index": i, "embedding": _vector(t)} for i, t in enumerate(texts)]
                raw = json.dumps({"object": "list", "data": data, "model": "hashed-bow-32@v1",
                                  "usage": {"prompt_tokens": 0, "total_tokens": 0}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()


def _vector(text: str) -> list[float]:
    v = np.zeros(32)
    for w in text.lower().split():
        v[int(hashlib.sha256(w.encode()).hexdigest()[:6], 16) % 32] += 1.0
    return v.tolist()


def test_openai_compatible_endpoint_with_cached_corpus(tmp_path, monkeypatch):
    server = EmbeddingsServer()
    try:
        monkeypatch.setenv("LEMMATA_EMBEDDINGS_BASE_URL", server.url)
        monkeypatch.setenv("LEMMATA_EMBEDDINGS_API_KEY", "sk-test")
        store = Store(tmp_path / "store")
        cache = EmbeddingCache(tmp_path / "cache")
        [ev] = evaluate("openai:hashed-bow", [f"{THEOREM}:assisted"], out=tmp_path / "runs", store=store,
                        cache=cache, batch_size=128, quiet=True)
        m = ev.result.model
        assert (m.name, m.endpoint_model, m.dimension) == ("hashed-bow", "hashed-bow-32@v1", 32)
        assert ev.result.status == "complete" and ev.result.main.value > 0
        first = server.inputs
        [again] = evaluate("openai:hashed-bow", [f"{THEOREM}:assisted"], out=tmp_path / "runs2", store=store,
                           cache=cache, batch_size=128, quiet=True)
        assert server.inputs - first == 1 + 200  # the dimension probe and the queries: the corpus came from the cache
        assert again.path.read_bytes() == ev.path.read_bytes() and again.result.result_id == ev.result.result_id
    finally:
        server.close()


@pytest.fixture(scope="module")
def served_source_track(scholar_artifacts, re2math_release):
    """The source track over the session's built world and release (``conftest.scholar_artifacts``), the world linked
    where the harness opens the track's world: nothing is built here."""
    from lemmata.benchmarks.re2math.scholar.worlds import world_path
    from lemmata.benchmarks.re2math.source.retrieval import make_source_track
    from lemmata.catalog import open_release_folder
    from lemmata.benchmarks.re2math.scholar.worlds import open_any_world

    built = scholar_artifacts / world_path("2.0.0").name
    link = world_path("2.0.0")
    if not link.exists():
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(built, target_is_directory=True)
    return make_source_track(open_any_world(built), open_release_folder(re2math_release))


def test_source_retrieval_applies_each_query_year_cutoff_as_a_filter(tmp_path, served_source_track):
    from test_search_and_cache import CountingEncoder

    from lemmata.benchmarks.re2math.evaluation_tasks import source_task, track_world
    from lemmata.tracks.model_runs import DenseRanker, Part, RankingTask, run_task

    task = source_task("test", "raw", track=served_source_track)
    world = track_world(served_source_track)
    assert world.artifact_id == served_source_track.world_id  # the track's own world, whichever version it serves
    part = task.parts[0]
    assert task.protocol["year_cutoff"] and len(part.doc_keys) == len(part.doc_ids) == len(world)
    qids = list(part.queries)[:6]
    assert [part.query_limits[q] for q in qids] == [world.attribution(q).year_cutoff for q in qids]
    # a few hundred records of all years, each query's cited source among them: the filter is under test, not scale
    keep = sorted({*range(0, len(part.doc_ids), 997),
                   *(part.doc_ids.index(world.attribution(q).record_id) for q in qids)})
    ids = [part.doc_ids[i] for i in keep]
    texts = part.texts()
    small = Part(doc_ids=ids, doc_texts=[texts[i] for i in keep], queries={q: part.queries[q] for q in qids},
                 doc_keys=part.doc_keys[keep], query_limits=part.query_limits)
    one = RankingTask(name=task.name, header=task.header, parts=[small], filename=task.filename,
                      header_tail=task.header_tail, protocol=task.protocol, flags=task.flags)
    data, _ = run_task(one, DenseRanker(CountingEncoder(), cache=EmbeddingCache(tmp_path), quiet=True))
    lines = [json.loads(x) for x in data.splitlines()]
    assert lines[0]["system"]["year_cutoff"] and lines[0]["corpus"] == world.artifact_id
    assert lines[0]["model"]["index"] == "exact-filtered" and lines[0]["flags"]["year_cutoff"] is True
    year = dict(zip(small.doc_ids, small.doc_keys.tolist()))
    limits = [part.query_limits[q] for q in qids]
    assert any(limit is not None and limit < max(year.values()) for limit in limits)  # the filter removes records
    assert len(lines) == 1 + len(qids)
    for rec in lines[1:]:
        limit = part.query_limits[rec["query_id"]]
        ranked = [d["doc_id"] for d in rec["ranking"]]
        allowed = [d for d in small.doc_ids if year[d] < 0 or limit is None or year[d] <= limit]
        assert len(ranked) == min(100, len(allowed)) and set(ranked) <= set(allowed)


def test_a_year_cutoff_run_never_ranks_in_the_group_of_one_without():
    """The cutoff is a declared condition that splits the board's group; a header without it stores no such flag,
    so the published baselines' flags (and result ids) are unchanged."""
    from lemmata.benchmarks.re2math.source.track import SourceRunHeader
    from lemmata.space.conditions import badges, view_group_key
    from lemmata.tracks.model_runs import FLAGS

    head = {"format": "lemmata-submission/1", "benchmark": "re2math-source-retrieval", "release": "re2math-1.0.0",
            "split": "eval200/test", "track": "raw", "model": {"name": "m"}, "notes": "",
            "corpus": "re2math-scholar-offline-2.0.0", "system": {}}
    without = SourceRunHeader.model_validate({**head, "flags": dict(FLAGS)}).flags.model_dump()
    with_cut = SourceRunHeader.model_validate({**head, "flags": {**FLAGS, "year_cutoff": True}}).flags.model_dump()
    assert without == FLAGS and with_cut == {**FLAGS, "year_cutoff": True}
    group = "re2math-1.0.0 | eval200/test | re2math-scholar-offline-2.0.0 | qrels | 2026-11-22"
    assert view_group_key(group, without) == group
    assert view_group_key(group, with_cut) == f"{group} | with year cutoff"
    assert ("year cutoff" in [b for b, _ in badges(with_cut)]) and not badges(without)
    with pytest.raises(Exception):  # strict: a string is not a declaration
        SourceRunHeader.model_validate({**head, "flags": {**FLAGS, "year_cutoff": "yes"}})


def test_several_devices_encode_through_the_libraries_multi_process_pool(tmp_path, hub_releases, monkeypatch):
    """``--device`` given more than once starts sentence-transformers' own multi-process pool (here two CPU
    processes): the run's file is the same bytes as a single-process run's, the devices are not part of the
    system's identity, and the pool is stopped when the run ends."""
    from sentence_transformers import SentenceTransformer

    started, stopped = [], []
    real_start, real_stop = SentenceTransformer.start_multi_process_pool, SentenceTransformer.stop_multi_process_pool

    def start(self, *args, **kwargs):
        pool = real_start(self, *args, **kwargs)
        started.append(len(pool["processes"]))
        return pool

    def stop(pool):
        stopped.append(pool)
        return real_stop(pool)

    monkeypatch.setattr(SentenceTransformer, "start_multi_process_pool", start)
    monkeypatch.setattr(SentenceTransformer, "stop_multi_process_pool", staticmethod(stop))
    folder = _tiny_sentence_transformer(tmp_path / "tiny-st")
    runs = [evaluate(f"st:{folder}", ["mathnet-retrieve:hard"], out=tmp_path / name, store=None,
                     cache=EmbeddingCache(tmp_path / f"cache-{name}"), devices=devices, quiet=True)[0]
            for name, devices in (("one", None), ("two", ["cpu", "cpu"]))]
    assert started == [2] and len(stopped) == 1
    assert runs[0].path.read_bytes() == runs[1].path.read_bytes()
    assert runs[0].result.result_id == runs[1].result.result_id


class _Poisoned:
    """An embedding model whose vectors can hold NaN or Inf (an fp16 overflow does this) or have another width.

    ``bad_docs``: every other document vector is NaN; ``bad_queries``: the first query vector is +Inf;
    ``query_dim``: query vectors of another width than document vectors."""

    def __init__(self, *, bad_docs: bool = False, bad_queries: bool = False, query_dim: int = 16) -> None:
        self.bad_docs, self.bad_queries, self.query_dim = bad_docs, bad_queries, query_dim

    @staticmethod
    def _rows(texts, dim: int) -> np.ndarray:
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.split():
                out[i, int(hashlib.sha256(w.encode()).hexdigest(), 16) % dim] += 1.0
            out[i, 0] += 0.5
        return out

    def encode_document(self, texts):
        rows = self._rows(texts, 16)
        if self.bad_docs:
            rows[::2, 1] = np.nan
        return rows

    def encode_query(self, texts):
        rows = self._rows(texts, self.query_dim)
        if self.bad_queries:
            rows[0, 2] = np.inf
        return rows

    def encode(self, texts):
        return self.encode_query(texts)


def test_non_finite_or_misshapen_vectors_are_refused_naming_the_model_and_items(tmp_path, hub_releases):
    """NaN document vectors, an Inf query vector and query vectors of another width are each refused with one
    bounded sentence naming the model and the items; nothing is written, cached or stored."""
    from lemmata.retrievers.encoders import SHOWN_ITEMS, BadVectors

    store = Store(tmp_path / "store")
    cache = EmbeddingCache(tmp_path / "emb")
    task = "mathnet-retrieve:hard"
    with pytest.raises(BadVectors) as err:
        evaluate(_Poisoned(bad_docs=True), [task], out=tmp_path / "runs", store=store, name="poisoned-docs",
                 cache=cache, quiet=True)
    message = str(err.value)
    assert message.startswith("model 'poisoned-docs' returned NaN or infinite values in ") and "document vector" in message
    assert "(row 0)" in message and "(row 2)" in message and "more; such a vector cannot be ranked" in message
    assert message.count("(row ") == SHOWN_ITEMS and len(message) < 2000
    assert not list(cache.root.rglob("state.json"))  # nothing cached for the poisoned corpus

    with pytest.raises(BadVectors, match=r"'poisoned-queries' returned NaN or infinite values in 1 query vector\(s\): "
                                         r"'[^']+' \(row 0\)"):
        evaluate(_Poisoned(bad_queries=True), [task], out=tmp_path / "runs", store=store, name="poisoned-queries",
                 cache=cache, quiet=True)
    with pytest.raises(BadVectors, match="returned query vectors of dimension 8; its document vectors have "
                                         "dimension 16"):
        evaluate(_Poisoned(query_dim=8), [task], out=tmp_path / "runs", store=store, name="narrow-queries",
                 cache=cache, quiet=True)
    assert store.result_rows() == [] and not list((tmp_path / "runs").glob("*.jsonl"))


def test_a_baseline_says_what_it_is_doing_before_the_first_query(capsys):
    """Indexing a large corpus takes seconds before any query is ranked: `lemmata evaluate --model bm25` says so on
    stderr (plain lines, kept by logs), and says nothing when quiet."""
    from lemmata.tracks.model_runs import BaselineRanker, Part

    part = Part(doc_ids=["a", "b"], doc_texts=["banach space", "hilbert space"], queries={"q": "banach"},
                label="toy/test")
    run = BaselineRanker("bm25", depth=1, quiet=False).rank(part)
    err = capsys.readouterr().err
    assert "bm25: indexing 2 documents (toy/test)" in err and "ranking 1 queries" in err
    assert [d for d, _ in run.rankings["q"]] == ["a"]
    BaselineRanker("bm25", depth=1).rank(part)
    assert capsys.readouterr().err == ""
