"""``lemmata evaluate`` as the papers ran their models: each task's declared query instruction reaches a model that
takes instructions exactly as the task declares it (a recording encoder), and the run that applied them is another
system than the one that did not."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_evaluation import _vector, hub_releases  # noqa: F401  (the module fixture building the MIRB release)

from lemmata.harness.evaluate import evaluate
from lemmata.oracles.local_server import JsonHandler, LocalServer
from lemmata.retrievers.embedding_cache import EmbeddingCache
from lemmata.retrievers.encoders import INSTRUCT_TEMPLATE
from lemmata.store import Store

#: three tasks' instructions as the authors' MTEB fork declares them (GitHub j991222/mirb at a2b2d600,
#: mteb/tasks/Retrieval/math/{LeanPremiseRetrieval,MSEFormulaRetrieval,MathlibRetrieval}.py, ``prompt={"query": …}``)
FORK_INSTRUCTIONS = {
    "leanps": "Given a Lean 4 proof state, retrieve the declarations that are useful for proving it.",
    "mseformula": "Given a math formula and its context, retrieve relevant formulas.",
    "mathlibretrieval": "Given a mathematical query, retrieve relevant theorems.",
}


class RecordingEncoder:
    """Records every text it is given (hashed bag-of-words vectors); declares an instruction template when given
    one, as an instruction-tuned model's wrapper would."""

    def __init__(self, template: str | None = None) -> None:
        self.seen: list[str] = []
        if template is not None:
            self.instruction_template = template

    def encode(self, texts, **_):
        self.seen.extend(texts)
        return np.asarray([_vector(t) for t in texts], dtype=np.float32)


def _mirb_queries() -> dict[str, list[str]]:
    from lemmata.benchmarks.mirb.meta import MIRB, TASKS
    from lemmata.benchmarks.mirb.track import task_collection

    return {t.name: list(task_collection(MIRB.release_id, t.name).queries.values()) for t in TASKS}


def _run(tmp_path, encoder, label, **kw):
    [ev] = evaluate(encoder, ["mirb"], out=tmp_path / label, store=kw.pop("store", None), name="recorder",
                    cache=EmbeddingCache(tmp_path / "cache"), quiet=True, **kw)
    return ev


def test_each_mirb_task_instruction_reaches_the_encoder_exactly_as_declared(tmp_path, hub_releases):  # noqa: F811
    from lemmata.benchmarks.mirb.meta import TASKS, task

    assert {name: task(name).query_prompt for name in FORK_INSTRUCTIONS} == FORK_INSTRUCTIONS
    queries = _mirb_queries()
    enc = RecordingEncoder()
    store = Store(tmp_path / "store")
    instructed = _run(tmp_path, enc, "on", instructions=True, store=store)
    expected = [f"Instruct: {t.query_prompt}\nQuery: {q}" for t in TASKS for q in queries[t.name]]
    asked = [s for s in enc.seen if s.startswith("Instruct: ")]
    assert asked == expected  # every query, in task order, with its own task's instruction and nothing else
    assert not any("Instruct:" in s for s in enc.seen if s not in set(expected))  # documents get no instruction
    assert instructed.result.model.instruction_template == INSTRUCT_TEMPLATE
    header = json.loads(instructed.path.read_bytes().splitlines()[0])
    assert header["model"]["instruction_template"] == INSTRUCT_TEMPLATE

    plain = RecordingEncoder()
    without = _run(tmp_path, plain, "off", instructions=False, store=store)
    assert not any(s.startswith("Instruct:") for s in plain.seen)
    assert sorted(s for t in TASKS for s in queries[t.name]) == sorted(s for s in plain.seen if s in
                                                                        {q for v in queries.values() for q in v})
    assert without.result.model.instruction_template is None
    # two systems: other identities, other files, other results, both in the store
    assert without.result.model.identity() != instructed.result.model.identity()
    assert without.path != instructed.path and without.result.result_id != instructed.result.result_id
    stored = {r["result_id"] for r in store.result_rows()}
    assert {without.result.result_id, instructed.result.result_id} <= stored


def test_instructions_follow_the_model_declaration_unless_switched_off(tmp_path, hub_releases):  # noqa: F811
    from lemmata.benchmarks.mirb.meta import TASKS

    template = "Represent the query for the task '{instruction}': "
    own = RecordingEncoder(template)
    ev = _run(tmp_path, own, "own")  # the default: the model declares it takes instructions
    first = TASKS[0]
    assert f"Represent the query for the task '{first.query_prompt}': " + _mirb_queries()[first.name][0] in own.seen
    assert ev.result.model.instruction_template == template
    off = RecordingEncoder(template)
    assert _run(tmp_path, off, "off", instructions=False).result.model.instruction_template is None
    assert not any(s.startswith("Represent the query") for s in off.seen)
    plain = RecordingEncoder()  # a model that declares nothing gets no instruction by default
    assert _run(tmp_path, plain, "plain").result.model.instruction_template is None
    with pytest.raises(ValueError, match="exactly once"):
        _run(tmp_path, RecordingEncoder(), "bad", instructions="Instruct: no slot")


def test_a_track_without_instructions_is_the_same_system_with_or_without_them(tmp_path, hub_releases):  # noqa: F811
    runs = [evaluate(RecordingEncoder(), ["mathnet-retrieve:hard"], out=tmp_path / str(flag), store=None,
                     name="recorder", cache=EmbeddingCache(tmp_path / "cache"), quiet=True,
                     instructions=flag)[0] for flag in (True, False)]
    assert runs[0].result.model.instruction_template is None
    assert runs[0].path.read_bytes() == runs[1].path.read_bytes()


def test_the_builtin_baselines_take_no_instructions():
    from lemmata.core.errors import InputError

    with pytest.raises(InputError, match="takes no instructions"):
        evaluate("bm25", ["mirb"], store=None, instructions=True)


# -- reranking ----------------------------------------------------------------------------------------------------

def _tiny_cross_encoder(folder, words) -> str:
    """A real sentence-transformers CrossEncoder, built here without a download: a one-layer BERT sequence
    classifier (one label) over a word-level tokenizer of ``words``, with BERT's pair template."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(dict.fromkeys(["[PAD]", "[UNK]", "[CLS]", "[SEP]", *words]))}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                            sep_token="[SEP]", model_max_length=128).save_pretrained(folder)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=128, num_labels=1)
    BertForSequenceClassification(config).save_pretrained(folder)
    return str(folder)


def _records(path) -> dict[tuple[str | None, str], list[tuple[str, float]]]:
    lines = [json.loads(x) for x in path.read_bytes().splitlines()[1:]]
    return {(r.get("task"), r["query_id"]): [(d["doc_id"], d["score"]) for d in r["ranking"]] for r in lines}


def test_a_cross_encoder_reranks_the_first_stage_into_another_system(tmp_path, hub_releases):  # noqa: F811
    from lemmata.benchmarks.mirb.meta import MIRB, TASK_NAMES
    from lemmata.catalog import corpus_texts, load_release

    words = {w for t in TASK_NAMES for text in corpus_texts(load_release(MIRB), t).values() for w in text.lower().split()}
    ce = _tiny_cross_encoder(tmp_path / "tiny-ce", sorted(words))
    store = Store(tmp_path / "store")
    [first] = evaluate("bm25", ["mirb"], out=tmp_path / "first", store=store, depth=5)
    [second] = evaluate("bm25", ["mirb"], out=tmp_path / "second", store=store, rerank=f"ce:{ce}", rerank_depth=5)
    before, after = _records(first.path), _records(second.path)
    assert before.keys() == after.keys()
    for key, ranking in after.items():
        assert {d for d, _ in ranking} == {d for d, _ in before[key]}  # the first stage's top 5, rescored
        assert ranking == sorted(ranking, key=lambda p: (-p[1], p[0]))
    assert any([d for d, _ in after[k]] != [d for d, _ in before[k]] for k in after)  # the order changed
    reranker = second.result.model.reranker
    assert (reranker.name, reranker.depth) == ("tiny-ce", 5) and reranker.revision.startswith("sha256:")
    assert first.result.model.reranker is None and second.result.model.name == f"{first.result.model.name} → tiny-ce"
    assert second.result.model.identity() != first.result.model.identity() and second.path != first.path
    rows = {r["result_id"]: r for r in store.result_rows()}
    assert {first.result.result_id, second.result.result_id} <= set(rows)
    assert second.result.main.value != first.result.main.value or after != before
    # byte-reproducible, and another depth is another system
    [again] = evaluate("bm25", ["mirb"], out=tmp_path / "again", store=None, rerank=f"ce:{ce}", rerank_depth=5)
    assert again.path.read_bytes() == second.path.read_bytes()
    [deeper] = evaluate("bm25", ["mirb"], out=tmp_path / "deeper", store=None, rerank=f"ce:{ce}", rerank_depth=8)
    assert deeper.result.model.identity() != second.result.model.identity()


class RerankServer(LocalServer):
    """An in-process server speaking the Cohere / Jina rerank protocol (POST /v1/rerank: ``model``, ``query``,
    ``documents``, ``top_n`` -> ``results`` of ``index`` and ``relevance_score``, best first, as those APIs
    answer: docs.cohere.com "Rerank" v2, jina.ai reranker API); the score is the number of query words a document
    holds."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        outer = self

        class Handler(JsonHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                assert self.path == "/v1/rerank" and self.headers["Authorization"] == "Bearer rk-test"
                outer.requests.append(body)
                q = set(body["query"].lower().split())
                scored = [{"index": i, "relevance_score": float(len(q & set(d.lower().split())))}
                          for i, d in enumerate(body["documents"])]
                scored.sort(key=lambda r: -r["relevance_score"])
                self.send_json(200, json.dumps({"id": "r1", "model": "overlap-reranker@v1",
                                                "results": scored[: body.get("top_n") or len(scored)]}).encode())

        self.serve(Handler)


def test_a_rerank_endpoint_rescores_the_first_stage(tmp_path, hub_releases, monkeypatch):  # noqa: F811
    from lemmata.harness.evaluate import resolve_tasks

    with RerankServer() as server:
        monkeypatch.setenv("LEMMATA_RERANK_BASE_URL", server.url + "/v1")
        monkeypatch.setenv("LEMMATA_RERANK_API_KEY", "rk-test")
        [first] = evaluate("bm25", ["mathnet-retrieve:hard"], out=tmp_path / "a", store=None, depth=10)
        [ev] = evaluate("bm25", ["mathnet-retrieve:hard"], out=tmp_path / "b", store=None,
                        rerank="rerank-api:overlap-reranker", rerank_depth=10)
    reranker = ev.result.model.reranker
    assert (reranker.name, reranker.endpoint_model, reranker.depth) == ("overlap-reranker", "overlap-reranker@v1", 10)
    [part] = resolve_tasks(["mathnet-retrieve:hard"])[0].parts
    texts = dict(zip(part.doc_ids, part.texts()))
    before, after = _records(first.path), _records(ev.path)
    assert len(server.requests) == len(after) and all(r["model"] == "overlap-reranker" for r in server.requests)
    for (_, qid), ranking in after.items():
        q = set(part.queries[qid].lower().split())
        want = sorted(((d, float(len(q & set(texts[d].lower().split())))) for d, _ in before[(None, qid)]),
                      key=lambda p: (-p[1], p[0]))
        assert ranking == want  # each score mapped back by its index, ties broken by doc id
    assert ev.result.model.identity() != first.result.model.identity()
