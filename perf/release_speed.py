"""Time the Re2Math release build and a warm ``load_dataset`` of it.

    python perf/release_speed.py [--runs 5] [--source-dir DIR]

Targets on a 2-core machine: build ≤ 10 s, warm load ≤ 1 s. The build is timed
end to end (sha256 checks, validation, Parquet, card, Croissant, manifest), both
as a whole ``lemmata build`` process (imports included) and in-process;
"warm" means the second and later loads of the same release folder, after
``datasets`` has prepared its cache once.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--source-dir", default=None)
    args = parser.parse_args()

    import datasets

    from lemmata.benchmarks.re2math.builder import Re2MathBuilder

    with tempfile.TemporaryDirectory() as work:
        cli = []
        for i in range(args.runs):
            cmd = [sys.executable, "-m", "lemmata", "build", "re2math", "--quiet", "--out", os.path.join(work, f"c{i}")]
            if args.source_dir:
                cmd += ["--source-dir", args.source_dir]
            t = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            cli.append(time.perf_counter() - t)
        builds = []
        for i in range(args.runs):
            t = time.perf_counter()
            release = Re2MathBuilder(source_dir=args.source_dir).build(os.path.join(work, f"b{i}"), quiet=True)
            builds.append(time.perf_counter() - t)
        cache = os.path.join(work, "hf-cache")
        datasets.load_dataset(str(release), "eval200", split="test", cache_dir=cache)  # cold: prepares the cache
        loads = []
        for _ in range(args.runs):
            t = time.perf_counter()
            ds = datasets.load_dataset(str(release), "eval200", split="test", cache_dir=cache)
            loads.append(time.perf_counter() - t)
        assert ds.num_rows == 200

    def row(name, xs, target):
        med = statistics.median(xs)
        print(f"{name:<34} median {med:7.3f} s   min {min(xs):7.3f}   max {max(xs):7.3f}   "
              f"target ≤ {target:g} s   {'OK' if med <= target else 'OVER'}")

    print(f"runs: {args.runs}")
    row("`lemmata build re2math` (process)", cli, 10)
    row("build re2math-1.0.0 (in-process)", builds, 10)
    row("warm load_dataset eval200/test", loads, 1)


if __name__ == "__main__":
    main()
