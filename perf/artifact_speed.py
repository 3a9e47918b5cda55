"""Time the offline retrieval artifact: build, load, and queries per second with the year filter.

    python perf/artifact_speed.py [--runs 3] [--release DIR]

Queries are the release's own: the 860 rendered proof states (Raw track, m = 5,
each with its instance's year cutoff) and the 860 target theorems. Target on a
2-core machine: >= 200 queries/s with the year filter, top 20. Times are the
best of --runs (the machine is shared; the minimum is the least disturbed run).
The build is timed once into a temporary folder; without --release the release
is built there too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

TARGET_QPS = 200


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--release", metavar="DIR", help="a built Re2Math release folder")
    args = parser.parse_args()

    from lemmata.benchmarks.re2math.render import render_instance
    from lemmata.release.load import open_release
    from lemmata.benchmarks.re2math.scholar.artifact import build_artifact, open_artifact

    with tempfile.TemporaryDirectory(prefix="lemmata-artifact-speed-") as tmp:
        release = Path(args.release) if args.release else None
        if release is None:
            from lemmata.benchmarks.re2math.builder import Re2MathBuilder

            release = Re2MathBuilder().build(Path(tmp) / "releases", quiet=True)
        t = time.perf_counter()
        path = build_artifact(release, Path(tmp) / "artifacts")
        build_s = time.perf_counter() - t
        t = time.perf_counter()
        art = open_artifact(path)
        art.search("warm up the index", 2020)
        load_s = time.perf_counter() - t

        rows = open_release(release).rows("full", "full")
        workloads = {
            "rendered proof states (raw, m=5)": [(render_instance(r, "raw", 5), r["publication_year"]) for r in rows],
            "target theorems": [(r["x"]["global_context"]["target_theorem"], r["publication_year"]) for r in rows],
        }
        print(f"artifact {art.artifact_id}: {len(art)} records; build {build_s:.2f} s, load + first query "
              f"{load_s:.2f} s")
        worst = float("inf")
        for name, queries in workloads.items():
            times = []
            for _ in range(args.runs):
                t = time.perf_counter()
                late = 0
                for q, cutoff in queries:
                    result = art.search(q, cutoff, 20)
                    late += sum(1 for c in result.candidates if c.year is not None and c.year > cutoff)
                times.append(time.perf_counter() - t)
                assert late == 0, "year filter violated"
            best, median = min(times), statistics.median(times)
            qps = len(queries) / best
            worst = min(worst, qps)
            print(f"{name:<34} {len(queries)} queries: best {best:.2f} s ({qps:,.0f} q/s), "
                  f"median {median:.2f} s ({len(queries) / median:,.0f} q/s)")
        verdict = "meets" if worst >= TARGET_QPS else "MISSES"
        print(f"slowest workload: {worst:,.0f} q/s with the year filter -> {verdict} the target of {TARGET_QPS} q/s")


if __name__ == "__main__":
    main()
