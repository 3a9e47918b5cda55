"""Lemmata's search and metrics beside the libraries they must keep up with, in one process: speed ratios.

    pip install -e '.[perf]'   # faiss-cpu (the dense anchor); pytrec_eval is a core dependency
    python perf/anchors_speed.py [--only bm25,dense-64,dense-256,metrics] [--repeats 3] [--queries 2000] [--single 200]
                                 [--world DIR] [--release DIR]

Each workload runs Lemmata's code and its anchor on the same inputs, alternately, ``--repeats`` times (the order
flips every repeat, so background load hits both alike; each call starts on a collected heap, so the collections
one side's garbage would start never land on the other's call); the ratio printed is the median over repeats of
(anchor seconds ÷ Lemmata seconds) — Lemmata's speed over the anchor's, above 1.0 where Lemmata is faster —
beside each side's best rate. The load average before and after is printed: on a shared machine only the ratio
is comparable between runs.

Workloads (``WORKLOADS``: a name, what it measures, and a function returning table rows):

- **bm25** — the offline world's search end to end against bm25s 0.3 with its numba backend (``pip install numba``,
  in the ``perf`` extra) on the same index files (``bm25s.BM25.load`` of the world's ``index/`` folder, memory-mapped):
  the Re²Math release's two query sets (the 860 rendered proof states, raw, m = 5, and the 860 target theorems),
  each with its instance's year cutoff, top 20. Lemmata: :meth:`ScholarWorld.search` / ``search_batch`` (tokenize,
  score, cut by year, validated hits with title and authors). bm25s: the same tokenizer, ``retrieve`` with the
  cutoff as ``weight_mask`` (a batch makes one call per distinct cutoff, on every usable core), then the same hits'
  titles and authors read from the world's columns. The world is ``--world DIR``, else the current world under
  ``$LEMMATA_HOME/artifacts`` (built there first when missing: minutes); the release is ``--release DIR``, else
  the one under ``$LEMMATA_HOME/releases`` (built when missing). The top-20 overlap is printed: it can differ
  only where two scores tie within the rounding Lemmata ranks by. First row: opening the world
  (``open_any_world``: every file's sha256 checked against MANIFEST.json, every manifest field bound, the index
  memory-mapped and the hit columns read) against ``bm25s.BM25.load`` of the same index plus the title and
  authors columns read with pyarrow (no verification).

- **dense-64** / **dense-256** — exact top-100 by inner product over 353,842 × 64 (the offline world's record
  count at the shipped static model's dimension) and 346,000 × 256 seeded random unit float32 vectors:
  :meth:`lemmata.retrievers.search.ExactIndex.top` (ties by document id; row and score arrays, the form FAISS
  returns) against FAISS ``IndexFlatIP.search`` holding the same vectors. Modes: *single query* (one query per
  call, one thread each), *batch, 1 thread* (``--queries`` per call; FAISS on one OpenMP and one BLAS thread),
  the same with Lemmata building its ``(doc_id, score)`` rankings (:meth:`~lemmata.retrievers.search.ExactIndex.search`),
  and *single query* / *batch, N threads* (every usable core: Lemmata's worker threads — a lone query's document
  range split among them —, FAISS's OpenMP and BLAS threads). The top-100
  document sets are compared (overlap printed): they can differ only where two scores fall within the float32
  rounding of the two libraries' different product shapes.
- **metrics** — Recall@10, nDCG@10 and MRR@10 of a run of ``--metric-queries`` × 100 documents (ties in 5% of the
  queries): ``lemmata.metrics.evaluate_run`` (validation, tie order, cut, per-query arrays; no intervals)
  against constructing ``pytrec_eval.RelevanceEvaluator`` and calling ``evaluate`` directly.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: one printed table row: workload, mode, Lemmata's rate, the anchor's rate, the unit, ratio, note
Row = tuple[str, str, float, float, str, float, str]


@dataclass(frozen=True)
class Workload:
    """One comparison: its name (for ``--only``), the anchor, and the function measuring it."""

    name: str
    anchor: str
    measure: Callable[[argparse.Namespace], list[Row]]


def alternate(ours: Callable[[], object], anchor: Callable[[], object], repeats: int) -> tuple[list, list]:
    """Seconds of each call over ``repeats`` rounds, the order flipped every round, each call on a collected heap
    (``gc.collect()`` before it, untimed): the collections a call's own objects start still count against it, but
    not those that the garbage of the call before it (the other side's, or the setup's) would start."""
    times: tuple[list, list] = ([], [])
    for r in range(repeats):
        for i in ((0, 1) if r % 2 == 0 else (1, 0)):
            gc.collect()
            t = time.perf_counter()
            (ours, anchor)[i]()
            times[i].append(time.perf_counter() - t)
    return times


def row(workload: str, mode: str, work: int, unit: str, times: tuple[list, list], note: str = "") -> Row:
    """A table row from alternated timings of ``work`` items: best rates and the median per-round ratio."""
    ours, anchor = times
    ratio = statistics.median(a / o for o, a in zip(ours, anchor))
    return workload, mode, work / min(ours), work / min(anchor), unit, ratio, note


def unit_vectors(rows: int, dim: int, seed: int):
    import numpy as np

    rng = np.random.default_rng(seed)
    out = rng.standard_normal((rows, dim), dtype=np.float32)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def dense(rows: int, dim: int) -> Callable[[argparse.Namespace], list[Row]]:
    def measure(args: argparse.Namespace) -> list[Row]:
        import faiss
        import numpy as np
        from threadpoolctl import threadpool_limits

        from lemmata.core.cores import usable_cores
        from lemmata.retrievers.search import ExactIndex

        name, k = f"exact dense top-100, {rows:,} × {dim}", 100
        docs, q = unit_vectors(rows, dim, seed=0), unit_vectors(args.queries, dim, seed=1)
        ours = ExactIndex(docs, [f"rec-{i:07d}" for i in range(rows)])
        flat = faiss.IndexFlatIP(dim)
        flat.add(docs)
        cores = usable_cores()

        def overlap(workers: int) -> float:
            mine, _ = ours.top(q[:200], k, workers=workers)
            _, theirs = flat.search(q[:200], k)
            return float(np.mean([np.intersect1d(m, t).size / k for m, t in zip(mine, theirs)]))

        out = []
        ours.top(q[:2], k, workers=1)  # compile the selection pass (numba, where installed) before timing
        with threadpool_limits(1, "blas"):  # FAISS's own BLAS on one thread too
            faiss.omp_set_num_threads(1)
            single = q[:args.single]
            out.append(row(name, "single query, 1 thread", len(single), "q/s", alternate(
                lambda: [ours.top(single[i:i + 1], k, workers=1) for i in range(len(single))],
                lambda: [flat.search(single[i:i + 1], k) for i in range(len(single))], args.repeats)))
            out.append(row(name, "batch, 1 thread", len(q), "q/s", alternate(
                lambda: ours.top(q, k, workers=1), lambda: flat.search(q, k), args.repeats),
                f"top-100 overlap {overlap(1):.4f}"))
            out.append(row(name, "batch, 1 thread, as (id, score) rankings", len(q), "q/s", alternate(
                lambda: ours.search(q, k, workers=1), lambda: flat.search(q, k), args.repeats)))
        faiss.omp_set_num_threads(cores)
        out.append(row(name, f"single query, {cores} threads", len(single), "q/s", alternate(
            lambda: [ours.top(single[i:i + 1], k, workers=cores) for i in range(len(single))],
            lambda: [flat.search(single[i:i + 1], k) for i in range(len(single))], args.repeats)))
        out.append(row(name, f"batch, {cores} threads", len(q), "q/s", alternate(
            lambda: ours.top(q, k, workers=cores), lambda: flat.search(q, k), args.repeats)))
        return out

    return measure


def metrics(args: argparse.Namespace) -> list[Row]:
    import pytrec_eval

    from lemmata.metrics.retrieval import evaluate_run
    from perf.metrics_speed import make_run

    run, qrels = make_run(args.metric_queries, 100, 0, "tied_5pct")
    trec = {"recall_10", "ndcg_cut_10", "recip_rank"}
    times = alternate(lambda: evaluate_run(run, qrels, ["recall@10", "ndcg@10", "mrr@10"], n_resamples=0),
                      lambda: pytrec_eval.RelevanceEvaluator(qrels, trec).evaluate(run), args.repeats)
    return [row("IR metrics (Recall / nDCG / MRR @10)", f"{args.metric_queries:,} queries × 100 documents",
                args.metric_queries, "queries/s", times)]


def bm25(args: argparse.Namespace) -> list[Row]:
    import bm25s
    import numpy as np

    from lemmata.benchmarks.re2math.render import render_instance
    from lemmata.benchmarks.re2math.scholar.artifact import default_release_path
    from lemmata.benchmarks.re2math.scholar.layout import INDEX_DIR
    from lemmata.benchmarks.re2math.scholar.world.info import RECORDS_FILE
    from lemmata.benchmarks.re2math.scholar.worlds import open_any_world, world_path
    from lemmata.core.cores import usable_cores
    from lemmata.release.load import open_release
    from lemmata.retrievers.bm25 import tokenize_scholar_words

    release = args.release or default_release_path(build=True, quiet=True)
    folder = Path(args.world) if args.world else world_path()
    if not args.world and not folder.exists():
        from lemmata.benchmarks.re2math.scholar.worlds import CURRENT, build_world_version

        print(f"building {folder.name} (minutes) ...", flush=True)
        build_world_version(CURRENT, release, None, folder.parent, quiet=True)
    world = open_any_world(folder)
    rows = open_release(release).rows("full", "full")
    sets = {"rendered proof states (raw, m=5)": [(render_instance(r, "raw", 5), r["publication_year"], 20)
                                                 for r in rows],
            "target theorems": [(r["x"]["global_context"]["target_theorem"], r["publication_year"], 20)
                                for r in rows]}
    anchor = bm25s.BM25.load(world.root / INDEX_DIR, mmap=True, override_params={"backend": "numba"},
                             show_progress=False)
    vocab, years, ids = anchor.vocab_dict, np.asarray(world._year), world._ids
    titles, authors = world._titles, world._authors
    cores, k = usable_cores(), 20

    def masks(cutoffs) -> dict:
        return {c: (np.ones(len(years), np.float32) if c is None else (years <= c).astype(np.float32))
                for c in set(cutoffs)}

    def hits(docs) -> list:
        return [[(ids[d], titles[d].as_py(), authors[d].as_py()) for d in row] for row in docs]

    def theirs(queries, mask_of, threads: int) -> list:
        """Every query's top 20 through bm25s, one ``retrieve`` call per distinct cutoff."""
        out: list = [None] * len(queries)
        by_cutoff: dict = {}
        for i, (q, c, _) in enumerate(queries):
            by_cutoff.setdefault(c, []).append(i)
        for c, idx in by_cutoff.items():
            tokens = [[vocab[t] for t in dict.fromkeys(tokenize_scholar_words(queries[i][0])) if t in vocab] or [0]
                      for i in idx]
            docs, _ = anchor.retrieve(tokens, k=k, weight_mask=mask_of[c], n_threads=threads, show_progress=False)
            for i, found in zip(idx, hits(docs)):
                out[i] = found
        return out

    def load_theirs() -> None:
        """What bm25s needs to answer the same hits: its saved index and the two columns a hit shows."""
        import pyarrow.parquet as pq

        bm25s.BM25.load(world.root / INDEX_DIR, show_progress=False)
        pq.read_table(world.root / RECORDS_FILE, columns=["title", "authors"])

    opens = alternate(lambda: open_any_world(folder), load_theirs, args.repeats)
    out = [row(f"world open (every file's sha256 checked, index and hit columns read), {len(world):,} records",
               "one open, 1 process", 1, "opens/s", opens,
               f"{min(opens[0]):.2f} s vs {min(opens[1]):.2f} s")]
    for name, queries in sets.items():
        mask_of = masks(c for _, c, _ in queries)
        theirs(queries[:5], mask_of, 1)  # compile the numba functions before timing
        mine = [world.search(q, c, n) for q, c, n in queries]
        other = theirs(queries, mask_of, 1)
        overlap = float(np.mean([len({h.id for h in m.hits} & {t[0] for t in o}) / max(len(m.hits), 1)
                                 for m, o in zip(mine, other)]))
        label = f"world BM25 top-20 end to end, {name}, {len(world):,} records"
        out.append(row(label, "single query, 1 process", len(queries), "q/s", alternate(
            lambda: [world.search(q, c, n) for q, c, n in queries],
            lambda: [theirs([x], mask_of, 1) for x in queries], args.repeats), f"top-20 overlap {overlap:.4f}"))
        out.append(row(label, f"batch, {cores} cores", len(queries), "q/s", alternate(
            lambda: world.search_batch(queries), lambda: theirs(queries, mask_of, cores), args.repeats)))
    return out


WORKLOADS = {w.name: w for w in (
    Workload("bm25", "bm25s (numba backend)", bm25),
    Workload("dense-64", "FAISS IndexFlatIP", dense(353_842, 64)),
    Workload("dense-256", "FAISS IndexFlatIP", dense(346_000, 256)),
    Workload("metrics", "pytrec_eval", metrics),
)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="workloads: " + ", ".join(f"{n} (vs {w.anchor})"
                                                                     for n, w in WORKLOADS.items()))
    parser.add_argument("--only", default=",".join(WORKLOADS), help="comma-separated workloads (default: all)")
    parser.add_argument("--repeats", type=int, default=3, help="alternated rounds per measurement (median ratio)")
    parser.add_argument("--queries", type=int, default=2000, help="queries per batch call (dense)")
    parser.add_argument("--single", type=int, default=200, help="one-query calls per round (dense)")
    parser.add_argument("--metric-queries", type=int, default=100_000, help="queries in the metrics run")
    parser.add_argument("--world", metavar="DIR", help="bm25: a built offline world (default: the current one)")
    parser.add_argument("--release", metavar="DIR", help="bm25: a built Re2Math release (default: build/use the one "
                        "under $LEMMATA_HOME/releases)")
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n]
    unknown = sorted(set(names) - set(WORKLOADS))
    if unknown:
        parser.error(f"unknown workloads {unknown}; known: {sorted(WORKLOADS)}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    print("| workload | mode | Lemmata | anchor | ratio |\n|---|---|---|---|---|")
    for n in names:
        for workload, mode, mine, theirs, unit, ratio, note in WORKLOADS[n].measure(args):
            print(f"| {workload} | {mode} | {mine:,.0f} {unit} | {WORKLOADS[n].anchor} {theirs:,.0f} {unit} | "
                  f"{ratio:.2f}{' (' + note + ')' if note else ''} |", flush=True)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
