"""Time the offline retrieval artifacts: build, load, and queries per second with the year filter.

    python perf/artifact_speed.py [--runs 3] [--release DIR] [--distractors DIR] [--distractors-11 DIR]
                                  [--only 1.0.0|2.0.0|2.1.0|2.2.0] [--world DIR]

**1.0.0** (``re2math-scholar-offline-1.0.0``):
Queries are the release's own: the 860 rendered proof states (Raw track, m = 5,
each with its instance's year cutoff) and the 860 target theorems. Target on a
2-core machine: >= 200 queries/s with the year filter, top 20. Times are the
best of --runs (the machine is shared; the minimum is the least disturbed run).
The build is timed once into a temporary folder; without --release the release
is built there too.

**2.0.0** (``re2math-scholar-offline-2.0.0``, the world with the distractor
corpus): targets on a 2-core machine: build from the two releases <= 90 s with
peak memory <= 3 GB; warm open (manifest verified, first query answered)
<= 2 s; search with the year cutoff >= 200 queries/s in one process; batch
search >= 500 queries/s, on the same two workloads. The build runs in a child
process so that its peak resident memory is its own; without --distractors the
math-arxiv-meta release is built into the temporary folder first.

**2.1.0** (``re2math-scholar-offline-2.1.0``, the current world: 2.0.0's records
plus the math_bib distractors, one display, opaque ids): the same targets and
workloads; the build also reads the math_bib table from the mirror. With
``--world DIR`` an already built world is timed (open and search only).

**2.2.0** (``re2math-scholar-offline-2.2.0``: 2.1's pipeline on
``math-arxiv-meta-1.1.0``, one work one record): the same targets and
workloads; without --distractors-11 that release is built into the temporary
folder first.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

TARGET_QPS = 200
WORLD_TARGETS = {"build_s": 90, "build_gb": 3.0, "open_s": 2.0, "single_qps": 200, "batch_qps": 500}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--release", metavar="DIR", help="a built Re2Math release folder")
    parser.add_argument("--distractors", metavar="DIR", help="a built math-arxiv-meta-1.0.0 folder (2.0.0, 2.1.0)")
    parser.add_argument("--distractors-11", metavar="DIR", help="a built math-arxiv-meta-1.1.0 folder (2.2.0)")
    parser.add_argument("--only", choices=("1.0.0", "2.0.0", "2.1.0", "2.2.0"), help="time one artifact version only")
    parser.add_argument("--world", metavar="DIR", help="time this built 2.x world (open and search; no build)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="lemmata-artifact-speed-") as tmp:
        release = Path(args.release) if args.release else None
        if release is None:
            from lemmata.benchmarks.re2math.builder import Re2MathBuilder

            release = Re2MathBuilder().build(Path(tmp) / "releases", quiet=True)
        if args.only in (None, "1.0.0") and not args.world:
            measure_v1(args, release, Path(tmp))
        for version in ("2.0.0", "2.1.0", "2.2.0"):
            if args.only in (None, version):
                measure_world(args, release, Path(tmp), version)


def measure_v1(args, release: Path, tmp: Path) -> None:
    from lemmata.benchmarks.re2math.render import render_instance
    from lemmata.release.load import open_release
    from lemmata.benchmarks.re2math.scholar.artifact import build_artifact, open_artifact

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


def measure_world(args, release: Path, tmp: Path, version: str = "2.0.0") -> None:
    from lemmata.benchmarks.re2math.scholar.worlds import world_id

    if args.world:
        return time_world(args, release, Path(args.world), None, None)

    given = args.distractors_11 if version == "2.2.0" else args.distractors
    distractors = Path(given) if given else None
    if distractors is None:
        from lemmata.benchmarks.math_arxiv_meta.builder import MathArxivMetaBuilder, MathArxivMetaBuilder11

        t = time.perf_counter()
        builder = MathArxivMetaBuilder11 if version == "2.2.0" else MathArxivMetaBuilder
        distractors = builder().build(Path(tmp) / "releases", quiet=True)
        print(f"{builder.meta.release_id} built in {time.perf_counter() - t:.1f} s")
    out = Path(tmp) / "artifacts"
    code = ("import sys; from lemmata.benchmarks.re2math.scholar.worlds import build_world_version; "
            "build_world_version(sys.argv[4], sys.argv[1], sys.argv[2], sys.argv[3])")
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, str(release), str(distractors), str(out), version], check=True)
    build_s = time.perf_counter() - t
    build_gb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024 / 1e9  # Linux: kilobytes (max child)
    time_world(args, release, out / world_id(version), build_s, build_gb)


def time_world(args, release: Path, path: Path, build_s: float | None, build_gb: float | None) -> None:
    from lemmata.benchmarks.re2math.render import render_instance
    from lemmata.release.load import open_release
    from lemmata.benchmarks.re2math.scholar.worlds import open_any_world as open_world

    opens = []
    for _ in range(args.runs):
        t = time.perf_counter()
        world = open_world(path)
        world.search("warm up the index", 2020)
        opens.append(time.perf_counter() - t)
    open_s = min(opens)

    rows = open_release(release).rows("full", "full")
    workloads = {
        "rendered proof states (raw, m=5)": [(render_instance(r, "raw", 5), r["publication_year"], 20)
                                             for r in rows],
        "target theorems": [(r["x"]["global_context"]["target_theorem"], r["publication_year"], 20) for r in rows],
    }
    built = f"build {build_s:.1f} s, peak memory {build_gb:.2f} GB" if build_s is not None else "not built here"
    print(f"artifact {world.artifact_id}: {len(world):,} records; {built}; warm open + first query best "
          f"{open_s:.2f} s (runs: "
          + ", ".join(f"{x:.2f}" for x in opens) + ")")
    single_worst = batch_worst = float("inf")
    for name, queries in workloads.items():
        single, batch = [], []
        for _ in range(args.runs):
            t = time.perf_counter()
            results = [world.search(q, c, n) for q, c, n in queries]
            single.append(time.perf_counter() - t)
            t = time.perf_counter()
            batched = world.search_batch(queries)
            batch.append(time.perf_counter() - t)
            late = sum(1 for (q, c, n), r in zip(queries, results) for h in r.hits  # hits of 2.1 show no year
                       if c is not None and world._year[world.position(h.id)] > c)
            assert late == 0, "year filter violated"
            assert [r.hits for r in results] == [r.hits for r in batched], "batch and single searches differ"
        for label, times in (("single", single), ("batch", batch)):
            qps = len(queries) / min(times)
            print(f"{name:<34} {label:<6} {len(queries)} queries: best {min(times):.2f} s ({qps:,.0f} q/s), "
                  f"median {statistics.median(times):.2f} s ({len(queries) / statistics.median(times):,.0f} q/s)")
        single_worst = min(single_worst, len(queries) / min(single))
        batch_worst = min(batch_worst, len(queries) / min(batch))
    checks = [("build time", build_s <= WORLD_TARGETS["build_s"], f"{build_s:.1f} s <= {WORLD_TARGETS['build_s']} s"),
              ("build memory", build_gb <= WORLD_TARGETS["build_gb"],
               f"{build_gb:.2f} GB <= {WORLD_TARGETS['build_gb']} GB")] if build_s is not None else []
    checks += [("warm open", open_s <= WORLD_TARGETS["open_s"], f"{open_s:.2f} s <= {WORLD_TARGETS['open_s']} s"),
              ("single search", single_worst >= WORLD_TARGETS["single_qps"],
               f"{single_worst:,.0f} q/s >= {WORLD_TARGETS['single_qps']} q/s"),
              ("batch search", batch_worst >= WORLD_TARGETS["batch_qps"],
               f"{batch_worst:,.0f} q/s >= {WORLD_TARGETS['batch_qps']} q/s")]
    for name, ok, what in checks:
        print(f"{'meets' if ok else 'MISSES'} {name}: {what}")


if __name__ == "__main__":
    main()
