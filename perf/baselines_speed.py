"""Time the baseline retrievers: index build and queries per second on the two derived retrieval tracks.

    python perf/baselines_speed.py [--runs 3]

Workloads are the real ones: Re²Math theorem retrieval (200 Eval-200 proof
states, Raw m = 5, against 858 statements) and TaoBench-v1 equivalence
(594 Tao-framework statements against 598 Mathlib statements). Every
retriever ranks the complete corpus exactly. Times are the best of --runs (the
machine is shared; the minimum is the least disturbed run). Releases are built
into a temporary LEMMATA_HOME first.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


def _best(fn, runs: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lemmata-baselines-speed-") as home:
        os.environ["LEMMATA_HOME"] = home
        from lemmata.retrievers.baseline import RETRIEVERS, build_retriever
        from lemmata.catalog import release_path
        from lemmata.benchmarks.re2math.meta import RE2MATH
        from lemmata.benchmarks.taobench.meta import TAOBENCH_V1
        from lemmata.benchmarks.re2math.theorem.retrieval import load_track
        from lemmata.benchmarks.taobench import equivalence

        ids, texts, queries, _ = load_track(release_path(RE2MATH), "test", "raw")
        eq = equivalence.load_track(release_path(TAOBENCH_V1), "tao2mathlib")
        workloads = {
            "theorem-retrieval (200 x 858)": (ids, texts, list(queries.values())),
            "equivalence v1 (594 x 598)": (eq.doc_ids, eq.doc_texts, [q["text"] for q in eq.queries]),
        }
        print(f"{'workload':<32} {'retriever':<8} {'index s':>8} {'rank s':>8} {'queries/s':>10}")
        for label, (doc_ids, doc_texts, qs) in workloads.items():
            for name in RETRIEVERS:
                t_index, index = _best(lambda: build_retriever(name, doc_ids, doc_texts), args.runs)
                t_rank, _ = _best(lambda: index.search_many(qs, 100), args.runs)
                print(f"{label:<32} {name:<8} {t_index:>8.3f} {t_rank:>8.3f} {len(qs) / t_rank:>10.0f}")


if __name__ == "__main__":
    main()
