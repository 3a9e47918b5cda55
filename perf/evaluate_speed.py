"""Speed of `lemmata evaluate`: encoding, exact and approximate search, and a whole source-retrieval run.

    LEMMATA_HOME=/tmp/lm-x lemmata artifact build   # the current world (2.2.0: 347,532 records), once
    LEMMATA_HOME=/tmp/lm-x python perf/evaluate_speed.py [--only encode,exact,exact-synthetic,ann,e2e] [--ann-n 1000000]

Reports, in one run:

- **encode** — the static model the ``tokenlearn-static-model`` wheel ships (``model2vec:tokenlearn-static-model``)
  over every record of the current offline world (347,532 title + author texts), into a cold embedding cache:
  texts/s;
- **exact** — blocked exact top-100 search over those document vectors, batched queries (the Eval-200 raw
  proof states, repeated to 2,000): queries/s and the peak resident memory of a process doing only that
  (targets ≥ 500 queries/s, ≤ 1.5 GB);
- **exact-synthetic** — the same search over 346k × 256 random unit vectors (2,000 queries, top 100), no world
  needed; the load average at the end is printed with it;
- **ann** — the approximate index against exact search at ``--ann-n`` synthetic clustered vectors (64 dims):
  recall@10 over 1,000 queries (target ≥ 0.98), build time, query speed-up over exact; FAISS IVF by default,
  ``--ann-kind hnsw`` for the usearch graph;
- **e2e** — ``lemmata.evaluate("model2vec:tokenlearn-static-model", ["re2math-source-retrieval"])`` from a cold
  cache: both query renderings, year cutoff applied, scored (target ≤ 5 min on 2 cores).

The machine is shared: figures are single runs, printed with the load average at the start.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

MODEL = "model2vec:tokenlearn-static-model"


def _world_corpus():
    from lemmata.benchmarks.re2math.source.retrieval import default_source_track

    track = default_source_track(build=False)
    return track, track.doc_ids, track.doc_texts()


def encode(cache_dir: str) -> dict:
    from lemmata.retrievers.embedding_cache import EmbeddingCache
    from lemmata.retrievers.spec import load_model

    track, ids, texts = _world_corpus()
    encoder = load_model(MODEL)
    cache = EmbeddingCache(cache_dir)
    t = time.perf_counter()
    vectors = cache.corpus_vectors(encoder, ids, texts, batch_size=1024, quiet=True)
    seconds = time.perf_counter() - t
    cached = cache.last.cached
    queries = encoder.encode(list(track.query_texts("test", "raw").values()), role="query", batch_size=256)
    folder = cache.folder(encoder, ids, texts)
    return {"records": len(ids), "cached": cached, "seconds": round(seconds, 1),
            "texts_per_s": round((len(ids) - cached) / seconds) if cached < len(ids) else None,
            "vectors": str(folder / "vectors.f32"), "shape": list(vectors.shape), "queries": queries.tolist()}


def _peak_mb() -> float:
    """This process's own peak resident memory: ``VmHWM`` belongs to the address space made at exec, whereas
    ``ru_maxrss`` keeps the forking parent's peak (the encoding step's, here)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _exact_child(vectors: str, rows: int, dim: int, queries_json: str) -> None:
    """Run in a fresh process: open the memmap, search, print queries/s and peak RSS."""
    import numpy as np

    from lemmata.retrievers.encoders import normalise
    from lemmata.retrievers.search import exact_search

    docs = np.memmap(vectors, dtype=np.float32, mode="r", shape=(rows, dim))
    q = normalise(np.asarray(json.loads(open(queries_json).read()), dtype=np.float32))
    q = np.tile(q, (max(1, 2000 // len(q)), 1))[:2000]
    ids = [f"rec-{i}" for i in range(rows)]
    t = time.perf_counter()
    exact_search(q, docs, ids, 100)
    seconds = time.perf_counter() - t
    peak_mb = _peak_mb()
    print(json.dumps({"queries": len(q), "documents": rows, "dimension": dim, "seconds": round(seconds, 2),
                      "queries_per_s": round(len(q) / seconds), "peak_rss_mb": round(peak_mb),
                      "load_average": [round(x, 2) for x in os.getloadavg()]}))


def _synthetic_child(rows: int, dim: int) -> None:
    """Run in a fresh process: exact top-100 of 2,000 batched queries over ``rows`` × ``dim`` random unit vectors."""
    import numpy as np

    from lemmata.retrievers.search import exact_search

    rng = np.random.default_rng(0)
    docs = rng.standard_normal((rows, dim), dtype=np.float32)
    docs /= np.linalg.norm(docs, axis=1, keepdims=True)
    q = rng.standard_normal((2000, dim), dtype=np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    ids = [f"rec-{i}" for i in range(rows)]
    t = time.perf_counter()
    exact_search(q, docs, ids, 100)
    seconds = time.perf_counter() - t
    peak_mb = _peak_mb()
    print(json.dumps({"queries": len(q), "documents": rows, "dimension": dim, "seconds": round(seconds, 2),
                      "queries_per_s": round(len(q) / seconds), "peak_rss_mb": round(peak_mb),
                      "load_average": [round(x, 2) for x in os.getloadavg()]}))


def exact_synthetic(rows: int = 346_000, dim: int = 256) -> dict:
    out = subprocess.run([sys.executable, __file__, "--synthetic-child", str(rows), str(dim)], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def exact(enc: dict) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(enc["queries"], fh)
    out = subprocess.run([sys.executable, __file__, "--exact-child", enc["vectors"], str(enc["shape"][0]),
                          str(enc["shape"][1]), fh.name], capture_output=True, text=True, check=True)
    os.unlink(fh.name)
    return json.loads(out.stdout.strip().splitlines()[-1])


def ann(n: int, index_path: str, kind: str = "ivf") -> dict:
    """An approximate index against exact search at ``n`` synthetic vectors: the index built once (kept at
    ``index_path`` and reused by later runs), then searched at several settings; the default is reported first.
    ``kind``: ``ivf`` (FAISS IVF, the default approximate index) or ``hnsw`` (usearch; a slow build)."""
    import dataclasses

    import numpy as np

    from lemmata.retrievers.search import ApproximateIndex, HnswParams, IvfParams, exact_search, recall_against_exact

    rng = np.random.default_rng(0)
    centres = rng.normal(size=(2000, 64)).astype(np.float32)
    docs = centres[rng.integers(0, len(centres), size=n)] + 0.6 * rng.normal(size=(n, 64)).astype(np.float32)
    docs /= np.linalg.norm(docs, axis=1, keepdims=True)
    q = docs[rng.choice(n, 1000, replace=False)] + 0.3 * rng.normal(size=(1000, 64)).astype(np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    ids = [f"v{i:07d}" for i in range(n)]
    reused = os.path.exists(index_path)
    default = IvfParams() if kind == "ivf" else HnswParams()
    t = time.perf_counter()
    index = ApproximateIndex(docs, ids, default, path=index_path)
    build = time.perf_counter() - t
    t = time.perf_counter()
    truth = exact_search(q, docs, ids, 10)
    t_exact = time.perf_counter() - t
    out = {"vectors": n, "kind": kind, "index_file": index_path, "build_s" if not reused else "load_s":
           round(build, 1), "exact_queries_per_s": round(len(q) / t_exact), "settings": []}
    if kind == "ivf":
        settings = [dataclasses.replace(index.params, probe=p) for p in (index.params.probe, 16, 32, 128)]
    else:
        settings = [dataclasses.replace(default, expansion_search=ef) for ef in
                    (default.expansion_search, 128, 512, 1024, 3072)]
    for params in settings:
        index.params = params
        t = time.perf_counter()
        approx = index.search(q, 10)
        t_ann = time.perf_counter() - t
        out["settings"].append({"index": params.label(), "recall@10": round(recall_against_exact(approx, truth, 10), 4),
                                "ann_queries_per_s": round(len(q) / t_ann), "speed_up": round(t_exact / t_ann, 1)})
        print("ann setting:", json.dumps(out["settings"][-1]), flush=True)
    out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return out


def e2e(cache_dir: str) -> dict:
    from lemmata.harness.evaluate import evaluate
    from lemmata.retrievers.embedding_cache import EmbeddingCache

    t = time.perf_counter()
    done = evaluate(MODEL, ["re2math-source-retrieval"], out=os.path.join(cache_dir, "runs"), store=None,
                    cache=EmbeddingCache(os.path.join(cache_dir, "e2e-cache")), quiet=True)
    seconds = time.perf_counter() - t
    return {"seconds": round(seconds, 1), "runs": [
        {"task": e.task, "ndcg@10": round(e.result.main.value, 4), "recall@10":
         round(e.result.metrics["recall@10"]["mean"], 4)} for e in done]}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--exact-child":
        _exact_child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--synthetic-child":
        _synthetic_child(int(sys.argv[2]), int(sys.argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="encode,exact,exact-synthetic,ann,e2e")
    parser.add_argument("--ann-n", type=int, default=1_000_000)
    parser.add_argument("--ann-index", metavar="FILE", help="keep the built approximate index here (a later run "
                                                            "with the same --ann-n and --ann-kind loads it)")
    parser.add_argument("--ann-kind", choices=("ivf", "hnsw"), default="ivf",
                        help="approximate index to measure: FAISS IVF (the default one) or usearch HNSW (slow build)")
    parser.add_argument("--cache", metavar="DIR", help="keep the encoded world here (a second run measures search "
                                                        "only; encoding then reports the cached rows)")
    args = parser.parse_args()
    only = set(args.only.split(","))
    print(f"load average at start: {os.getloadavg()}; cpus: {os.cpu_count()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="lemmata-evaluate-speed-") as tmp:
        if only & {"encode", "exact"}:
            enc = encode(args.cache or tmp)
            print("encode:", json.dumps({k: v for k, v in enc.items() if k not in ("queries", "vectors")}),
                  flush=True)
            if "exact" in only:
                print("exact:", json.dumps(exact(enc)), flush=True)
        if "exact-synthetic" in only:
            print("exact-synthetic:", json.dumps(exact_synthetic()), flush=True)
        if "ann" in only:
            print("ann:", json.dumps(ann(args.ann_n, args.ann_index or os.path.join(tmp, "ann.index"), args.ann_kind)),
                  flush=True)
        if "e2e" in only:
            print("e2e:", json.dumps(e2e(tmp)), flush=True)


if __name__ == "__main__":
    main()
